#!/usr/bin/env bash
# Debian packages for flashtune's real-component tests: Ceph 16.2.15 daemons, MariaDB 10.11, fio,
# sysbench, tuned, Chromium. Idempotent: does nothing when everything is installed already.
set -euo pipefail
PKGS=(
  ceph ceph-mon ceph-osd ceph-mgr ceph-common radosgw   # real Ceph daemons and ceph-conf
  ceph-mds                                               # CephFS for the scratch workload's real-Ceph test
  ceph-fuse fuse                                         # flashtune prove mounts CephFS for the scratch probes (fusermount)
  python3-ceph-common python3-yaml                       # cephadm's ServiceSpec/DriveGroupSpec, to validate the OSD spec
  python3-lxml sudo psmisc                               # the real CBT the tests run: its imports, sudo, killall
  mariadb-server mariadb-client                          # real MariaDB for my.cnf checks
  fio sysbench                                           # real benchmark output for ingest
  rbd-fuse shellcheck                                    # bench/sysbench-oltp.sh: its rbd-fuse + loop method on the lab cluster; shellcheck of the script
  tuned                                                  # tuned profiles for comparison / validation
  chromium                                               # the book's browser test
  nodejs                                                 # npm: Pyodide for the book's compile page (make book)
  fonts-dejavu-core                                      # the font the book's SVG charts are measured and drawn in
  uuid-runtime iproute2 util-linux procps kmod curl      # uuidgen, ip netns, losetup, sysctl
  python3-venv python3-pip make git
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "system packages: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

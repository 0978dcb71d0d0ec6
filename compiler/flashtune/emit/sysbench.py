"""bench/sysbench-oltp.sh: the mysql workload's application-level run as one bash script (compile/oltp.py sizes it).

The script creates an RBD image in the compiled pool, maps it (krbd, rbd-nbd, or rbd-fuse + a loop device), makes
the chosen file system with the compiler's options, starts its own database server with the compiled my.cnf and
its datadir on that file system, loads the sysbench tables, runs every case time-based after a warm-up for
several iterations (one output file per run, which `flashtune ingest` reads), and takes everything down again
on any exit (a trap: server, mount, mapping, and the image when the script created it).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from flashtune.emit.common import header
from flashtune.model import Choice, OltpPlan

PATH = "bench/sysbench-oltp.sh"
METHODS = ("krbd", "nbd", "fuse")


def _q(value: object) -> str:
    return shlex.quote(str(value))


def _comment(text: str, width: int = 110) -> list[str]:
    """`text` as comment lines of at most `width` characters."""
    lines: list[str] = []
    line = "#"
    for word in text.split():
        if len(line) + 1 + len(word) > width and line != "#":
            lines.append(line + "\n")
            line = "#"
        line += " " + word
    return [*lines, line + "\n"]


def _options(plan: OltpPlan) -> list[str]:
    out: list[str] = []
    for fs in sorted(plan.mkfs):
        out.append(f"# mkfs.{fs}:\n")
        for c in plan.mkfs[fs]:
            out += _comment(f"  {c.option}: {c.why}")
    for fs in sorted(plan.mount):
        out.append(f"# mount ({fs}):\n")
        for c in plan.mount[fs]:
            out += _comment(f"  {c.option}: {c.why}")
    out.append("# rbd device map (krbd):\n")
    for c in plan.map_options:
        out += _comment(f"  -o {c.option}: {c.why}")
    return out


def _mkfs_words(choices: tuple[Choice, ...]) -> str:
    """The mkfs options as words, every `-E a` joined into one `-E a,b` (mke2fs keeps only one -E list)."""
    extended = [c.option.removeprefix("-E ").strip() for c in choices if c.option.startswith("-E ")]
    words = [c.option for c in choices if not c.option.startswith("-E ")]
    if extended:
        words.append("-E " + ",".join(extended))
    return " ".join(f"'{w}'" for w in shlex.split(" ".join(words)))


def _head(plan: OltpPlan, inputs: Mapping[str, Any]) -> str:
    """The comment block: how to run the script, its environment, the data set and why each option."""
    scale_note = (
        f"# --bench-scale {plan.scale}: sizes and durations only (tables, rows, image, buffer pool and redo "
        "sizes, run and warm-up times);\n# the tests, thread counts, iterations and file-system options are the "
        "full plan's.\n"
        if plan.scale != "full"
        else ""
    )
    head = [
        "#!/usr/bin/env bash\n",
        header("#", inputs),
        "#\n",
        f"# The mysql workload's application-level run: sysbench OLTP against {plan.flavour} with the compiled\n",
        "# my.cnf, its datadir on a file system on an RBD image in the compiled pool. Run it as root on the\n",
        "# database host (it maps and mounts), with ceph.conf and a keyring for CEPH_ID:\n",
        '#   sudo bash bench/sysbench-oltp.sh            then: flashtune ingest "$WORKDIR/results"\n',
        "#   sudo bash bench/sysbench-oltp.sh cleanup    undoes what a killed run left (server, mount, mapping, image)\n",
        "# Environment (defaults in brackets): MAP_METHOD krbd|nbd|fuse [" + plan.map_method + "] (fuse = "
        "rbd-fuse and a\n",
        "# loop device, for hosts without the rbd or nbd kernel module), FS ext4|xfs [" + plan.fs + "], "
        f"POOL [{plan.pool}],\n",
        f"# IMAGE [{plan.image}], CEPH_CONF [/etc/ceph/ceph.conf], CEPH_ID [admin], MYCNF [my.cnf beside bench/],\n",
        "# WORKDIR [/var/tmp/flashtune-oltp], RESULTS [$WORKDIR/results], DB_USER [mysql], KEEP_IMAGE [0].\n",
        "# The image must not exist (the script makes a file system on it); it is removed at the end unless\n",
        "# KEEP_IMAGE=1. Every case's sizing and what it answers are in explain.md (Application-level run).\n",
        scale_note,
        "#\n",
        *_comment(
            "Data set: " + plan.sizing.reason
            if plan.scale == "full"
            else "Full-scale data set: " + plan.sizing.reason
        ),
        "#\n# Why each file-system and map option:\n",
        *_options(plan),
    ]
    return "".join(head)


def _settings(plan: OltpPlan) -> str:
    """The variables: what the environment may change (with the compiled defaults), the sizes and the cases."""
    map_opts = ",".join(c.option for c in plan.map_options)
    tests = " ".join(plan.tests)
    threads = " ".join(str(n) for n in plan.threads)
    return f"""
set -euo pipefail

MAP_METHOD=${{MAP_METHOD:-{plan.map_method}}}
FS=${{FS:-{plan.fs}}}
POOL=${{POOL:-{_q(plan.pool)}}}
IMAGE=${{IMAGE:-{_q(plan.image)}}}
IMAGE_GIB={plan.image_gib}
CEPH_CONF=${{CEPH_CONF:-/etc/ceph/ceph.conf}}
CEPH_ID=${{CEPH_ID:-admin}}
HERE=$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)
MYCNF=${{MYCNF:-$HERE/../my.cnf}}
WORKDIR=${{WORKDIR:-/var/tmp/flashtune-oltp}}
RESULTS=${{RESULTS:-$WORKDIR/results}}
DB_USER=${{DB_USER:-mysql}}
KEEP_IMAGE=${{KEEP_IMAGE:-0}}

SERVER={_q(plan.server)}
CLIENT={_q(plan.client)}
ADMIN={_q(plan.admin)}
INSTALL={_q(plan.install[0])}
TABLES={plan.tables}
TABLE_SIZE={plan.table_size}
TESTS=({tests})
THREADS=({threads})
ITERATIONS={plan.iterations}
TIME={plan.time}
WARMUP={plan.warmup_time}
REPORT_INTERVAL={plan.report_interval}
MAP_OPTIONS={_q(map_opts)}

MNT=$WORKDIR/mnt
FUSE=$WORKDIR/rbd-fuse
RUN=$WORKDIR/run
LOGS=$WORKDIR/logs
CNF=$RUN/server.cnf
SOCK=$RUN/mysqld.sock
RBD=(rbd --conf "$CEPH_CONF" --id "$CEPH_ID")

"""


def _checks(plan: OltpPlan) -> str:
    """Refuse to start without root, the tools, a my.cnf, or with earlier results in the results folder."""
    mkfs = {fs: _mkfs_words(cs) for fs, cs in plan.mkfs.items()}
    mount = {fs: ",".join(c.option for c in cs) for fs, cs in plan.mount.items()}
    return f"""say() {{ printf '%s sysbench-oltp: %s\\n' "$(date -u +%H:%M:%S)" "$*" >&2; }}
die() {{ say "ERROR: $*"; exit 1; }}

MODE=${{1:-run}}
case "$MODE" in run|cleanup) ;; *) die "usage: $0 [run|cleanup] (cleanup: undo what a killed run left behind)" ;; esac
case "$MAP_METHOD" in krbd|nbd|fuse) ;; *) die "MAP_METHOD=$MAP_METHOD: use krbd, nbd or fuse" ;; esac
case "$FS" in ext4) MKFS_OPTS=({mkfs.get("ext4", "")}); MOUNT_OPTS={_q(mount.get("ext4", "defaults"))} ;;
  xfs) MKFS_OPTS=({mkfs.get("xfs", "")}); MOUNT_OPTS={_q(mount.get("xfs", "defaults"))} ;;
  *) die "FS=$FS: use ext4 or xfs" ;; esac
[ "$(id -u)" -eq 0 ] || die "run as root: the script maps an RBD image and mounts a file system"
[ -r "$MYCNF" ] || die "no compiled my.cnf at $MYCNF (set MYCNF)"
need=(rbd sysbench "mkfs.$FS" mount umount mountpoint "$SERVER" "$CLIENT" "$ADMIN" "$INSTALL")
[ "$MAP_METHOD" = fuse ] && need+=(rbd-fuse losetup fusermount)
[ "$MAP_METHOD" = nbd ] && need+=(rbd-nbd)
for tool in "${{need[@]}}"; do
  command -v "$tool" >/dev/null || die "$tool is not installed"
done
if [ "$MODE" = run ] && [ -d "$RESULTS" ] && [ -n "$(ls -A "$RESULTS")" ]; then
  die "$RESULTS already holds results: move them away or set RESULTS (runs are never mixed or overwritten)"
fi
mkdir -p "$RESULTS" "$LOGS" "$RUN" "$MNT"
MYCNF=$(cd "$(dirname "$MYCNF")" && pwd)/$(basename "$MYCNF")

"""


# what undoes a run on any exit (the trap) and the `cleanup` mode that undoes what a killed run left
_TEARDOWN = """CREATED=0
DEV=""
FUSED=0
MOUNTED=0
SERVER_PID=""

cleanup() {
  local rc=$?
  set +e
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    say "stopping the database server"
    "$ADMIN" --defaults-file="$CNF" -uroot shutdown 2>/dev/null
    for _ in $(seq 1 120); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 1; done
    kill -9 "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  if [ "$MOUNTED" = 1 ] && mountpoint -q "$MNT"; then
    umount "$MNT" || umount -l "$MNT"
  fi
  if [ -n "$DEV" ]; then
    case "$MAP_METHOD" in
      krbd) "${RBD[@]}" device unmap "$DEV" ;;
      nbd) "${RBD[@]}" device unmap -t nbd "$DEV" ;;
      fuse) losetup -d "$DEV" ;;
    esac
  fi
  if [ "$FUSED" = 1 ] && mountpoint -q "$FUSE"; then
    fusermount -u "$FUSE" || umount -l "$FUSE"
  fi
  if [ "$CREATED" = 1 ] && [ "$KEEP_IMAGE" != 1 ]; then
    "${RBD[@]}" rm --no-progress "$POOL/$IMAGE" >/dev/null
  fi
  say "cleaned up (exit $rc)"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# the device a mapping method shows for the image (krbd/nbd: rbd device list; fuse: the loop device on its file)
mapped() {
  case "$MAP_METHOD" in
    krbd) "${RBD[@]}" device list 2>/dev/null | awk -v p="$POOL" -v i="$IMAGE" 'NR > 1 && $2 == p && ($3 == i || $4 == i) { print $NF; exit }' ;;
    nbd) "${RBD[@]}" device list -t nbd 2>/dev/null | awk -v p="$POOL" -v i="$IMAGE" 'NR > 1 && $2 == p && ($3 == i || $4 == i) { print $NF; exit }' ;;
    fuse) losetup -l -n -O NAME,BACK-FILE | awk -v f="$FUSE/$IMAGE" '$2 == f { print $1; exit }' ;;
  esac
}

if [ "$MODE" = cleanup ]; then
  # a run killed without its trap (SIGKILL, power loss): find what it left and let the trap undo it; the image
  # goes only if this script made it (its image-meta mark) and KEEP_IMAGE is not 1
  if [ -f "$RUN/mysqld.pid" ]; then SERVER_PID=$(cat "$RUN/mysqld.pid"); fi
  if mountpoint -q "$MNT"; then MOUNTED=1; fi
  DEV=$(mapped || true)
  if mountpoint -q "$FUSE"; then FUSED=1; fi
  if [ "$("${RBD[@]}" image-meta get "$POOL/$IMAGE" flashtune.created-by 2>/dev/null)" = sysbench-oltp ]; then
    CREATED=1
  fi
  say "cleaning up after an earlier run: server ${SERVER_PID:-none}, mount $MOUNTED, device ${DEV:-none}, image $CREATED"
  exit 0
fi

"""


# steps 1-3: a new image, mapped by the chosen method, with the file system made and mounted
_STORAGE = """# 1. the image (never one that exists: the file system below would erase it)
if "${RBD[@]}" info "$POOL/$IMAGE" >/dev/null 2>&1; then
  if [ "$("${RBD[@]}" image-meta get "$POOL/$IMAGE" flashtune.created-by 2>/dev/null)" = sysbench-oltp ]; then
    die "image $POOL/$IMAGE was left by a killed run: bash $0 cleanup (same environment) removes it"
  fi
  die "image $POOL/$IMAGE exists: remove it or set IMAGE (the script makes a file system on its image)"
fi
say "creating $POOL/$IMAGE (${IMAGE_GIB} GiB)"
"${RBD[@]}" create --size "${IMAGE_GIB}G" "$POOL/$IMAGE"
CREATED=1
"${RBD[@]}" image-meta set "$POOL/$IMAGE" flashtune.created-by sysbench-oltp

# 2. map it
case "$MAP_METHOD" in
  krbd) DEV=$("${RBD[@]}" device map -o "$MAP_OPTIONS" "$POOL/$IMAGE") ;;
  nbd) DEV=$("${RBD[@]}" device map -t nbd "$POOL/$IMAGE") ;;
  fuse)
    mkdir -p "$FUSE"
    rbd-fuse -c "$CEPH_CONF" --id "$CEPH_ID" -p "$POOL" -r "$IMAGE" "$FUSE"
    FUSED=1
    for _ in $(seq 1 30); do [ -e "$FUSE/$IMAGE" ] && break; sleep 1; done
    [ -e "$FUSE/$IMAGE" ] || die "rbd-fuse shows no $IMAGE under $FUSE"
    # direct I/O: the loop device reads and writes the image without a second copy in the page cache
    DEV=$(losetup --find --show --direct-io=on "$FUSE/$IMAGE")
    ;;
esac
[ -b "$DEV" ] || die "mapping gave no block device ($DEV)"
say "mapped $POOL/$IMAGE at $DEV ($MAP_METHOD)"

# 3. file system and mount
"mkfs.$FS" -q "${MKFS_OPTS[@]}" "$DEV"
mount -o "$MOUNT_OPTS" "$DEV" "$MNT"
MOUNTED=1
mkdir -p "$MNT/data" "$MNT/tmp"
chown "$DB_USER" "$MNT/data" "$MNT/tmp" "$RUN"

"""


def _database(plan: OltpPlan) -> str:
    """Step 4: the database server on the mounted file system, started with the compiled my.cnf."""
    overrides = "".join(f"{k} = {v}\n" for k, v in plan.server_overrides.items())
    install = " ".join(_q(x) for x in plan.install[1:])
    return f"""# 4. the database server: the compiled my.cnf, then only what places this instance (its files on the
#    mount, a private socket, no TCP listener){", and the scale's sizes" if plan.server_overrides else ""}
cat >"$CNF" <<CNF_END
!include $MYCNF
[mysqld]
datadir = $MNT/data
tmpdir = $MNT/tmp
socket = $SOCK
pid-file = $RUN/mysqld.pid
log-error = $LOGS/server-error.log
user = $DB_USER
skip-networking
loose-mysqlx = OFF
{overrides}[client]
socket = $SOCK
CNF_END
say "initialising the datadir"
"$INSTALL" --defaults-file="$CNF" {install} >"$LOGS/install.log" 2>&1 || die "datadir initialisation failed: $LOGS/install.log"
"$SERVER" --defaults-file="$CNF" >"$LOGS/server.out" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 120); do
  "$ADMIN" --defaults-file="$CNF" -uroot ping >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || die "the server stopped at start: $LOGS/server-error.log"
  sleep 1
done
"$ADMIN" --defaults-file="$CNF" -uroot ping >/dev/null 2>&1 || die "the server did not answer in 120 s"
"$CLIENT" --defaults-file="$CNF" -uroot -e "CREATE DATABASE IF NOT EXISTS sbtest;
  CREATE USER IF NOT EXISTS 'sbtest'@'localhost' IDENTIFIED BY 'sbtest';
  GRANT ALL ON sbtest.* TO 'sbtest'@'localhost';"

"""


# steps 5-6: sysbench loads the tables, then every case runs time-based, iteration outermost
_RUNS = """# 5. sysbench: uniform row choice (the default 'special' puts most reads on 1 % of the rows, a hot set the
#    buffer pool holds, which would defeat the data-set sizing)
SB=(--db-driver=mysql --mysql-socket="$SOCK" --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest
    --tables="$TABLES" --table-size="$TABLE_SIZE" --rand-type=uniform)
say "loading $TABLES tables x $TABLE_SIZE rows"
sysbench oltp_read_write "${SB[@]}" --threads="$TABLES" prepare >"$LOGS/prepare.log" 2>&1 \\
  || die "sysbench prepare failed: $LOGS/prepare.log"
# sysbench 1.1 discards its own warm-up (--warmup-time); 1.0 has no such option: a separate run, not kept
WARM_OPT=0
if sysbench --help 2>&1 | grep -q -- '--warmup-time'; then WARM_OPT=1; fi

# 6. the measured runs: iteration outermost, so a drift over the hours (image fill, OSD state) spreads over
#    every case instead of landing on one case's iterations
for i in $(seq 1 "$ITERATIONS"); do
  for test in "${TESTS[@]}"; do
    for n in "${THREADS[@]}"; do
      out="$RESULTS/$test-threads$n-iter$i.txt"
      if [ "$WARMUP" -gt 0 ] && [ "$WARM_OPT" = 0 ]; then
        sysbench "$test" "${SB[@]}" --threads="$n" --time="$WARMUP" run >"$LOGS/warmup-$test-threads$n-iter$i.txt" 2>&1 \\
          || die "sysbench warm-up $test failed: $LOGS/warmup-$test-threads$n-iter$i.txt"
        warm=()
      elif [ "$WARM_OPT" = 1 ]; then
        warm=(--warmup-time="$WARMUP")
      else
        warm=()
      fi
      say "iteration $i/$ITERATIONS: $test, $n thread(s), ${TIME} s"
      sysbench "$test" "${SB[@]}" --threads="$n" --time="$TIME" --report-interval="$REPORT_INTERVAL" \\
        ${warm[@]+"${warm[@]}"} run >"$out.part" 2>&1 || die "sysbench $test failed: $out.part"
      mv "$out.part" "$out"
    done
  done
done
say "done: $((ITERATIONS * ${#TESTS[@]} * ${#THREADS[@]})) runs in $RESULTS (flashtune ingest \\"$RESULTS\\")"
"""


def emit(plan: OltpPlan, inputs: Mapping[str, Any]) -> str:
    return (
        _head(plan, inputs) + _settings(plan) + _checks(plan) + _TEARDOWN + _STORAGE + _database(plan) + _RUNS
    )

"""Every MDS rank of the compiled scratch file system serves load, on real Ceph 16.2.15: with three MDS daemons in
the hardware file, pools.sh sets max_mds 2 and makes the subvolume; with the ephemeral distributed pin pools.sh
tells the user to set on the mounted folder, jobs that each write in their own folder under it are served by
both active ranks (each rank's own request counter, `ceph tell mds.NAME perf dump mds_server`)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from pathlib import Path

import pytest

from flashtune.compile import CompileRequest, compile_bundle
from support.cephlab import CephLab

pytestmark = [pytest.mark.ceph, pytest.mark.slow]

SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's python3-cephfs (libcephfs) lives there, not in the venv

HARDWARE = """name: lab
node:
  cores: 8
  ram_gib: 64
  nics: [{count: 1, speed_gbps: 25}]
  data_devices:
    - {count: 1, type: nvme, size_gb: 1000}
cluster: {nodes: 3, clients: 1, mds_daemons: 3}
"""

# a client: `pin` does what pools.sh says (the pin on the folder it mounts) and makes one folder per job directly
# under it; `files` is the jobs, each creating files in its own folder
JOBS = """
import os, sys, cephfs
fs = cephfs.LibCephFS(conffile=os.environ["CEPH_CONF"])
fs.mount(filesystem_name=sys.argv[1].encode())
root, jobs, files = sys.argv[2].encode(), int(sys.argv[4]), int(sys.argv[5])
if sys.argv[3] == "pin":
    fs.setxattr(root, "ceph.dir.pin.distributed", b"1", 0)
    print(fs.getxattr(root, "ceph.dir.pin.distributed").decode())
    for job in range(jobs):
        fs.mkdir(root + b"/job%d" % job, 0o755)
else:
    for job in range(jobs):
        for n in range(files):
            fd = fs.open(root + b"/job%d/file%d" % (job, n), "w", 0o644)
            fs.write(fd, b"x" * 4096, 0)
            fs.close(fd)
fs.unmount()
"""


def _pinned_subtrees(lab: CephLab, name: str, rank: int) -> int:
    """How many subtrees MDS `name` holds as authority (rank) by an ephemeral distributed pin."""
    out = lab.run("ceph", "tell", f"mds.{name}", "get", "subtrees", timeout=60).stdout
    return sum(1 for t in json.loads(out) if t.get("distributed_ephemeral_pin") and t["auth_first"] == rank)


def _active(lab: CephLab, fs: str) -> dict[int, str]:
    """rank -> name of the MDS holding it, for the ranks that are up:active."""
    info = lab.ceph("fs", "get", fs)["mdsmap"]["info"].values()
    return {int(m["rank"]): str(m["name"]) for m in info if m["state"] == "up:active"}


def _requests(lab: CephLab, name: str) -> int:
    out = lab.run("ceph", "tell", f"mds.{name}", "perf", "dump", "mds_server", timeout=60).stdout
    return int(json.loads(out)["mds_server"]["handle_client_request"])


def test_every_active_mds_rank_serves_the_jobs_folders(ceph_lab: CephLab, tmp_path: Path) -> None:
    hw = tmp_path / "hw.yaml"
    hw.write_text(HARDWARE)
    bundle = compile_bundle(
        CompileRequest(workload="scratch", hardware_file=hw, ceph_release="pacific", replication=3)
    )
    text = bundle.files["pools.sh"]
    assert "ceph fs set scratch max_mds 2" in text and "--placement=3" in text
    assert "ceph.dir.pin.distributed -v 1" in text
    assert bundle.shape["mds_daemons"] == 3 and bundle.shape["max_mds"] == 2
    assert "2 active rank(s)" in bundle.files["explain.md"]
    script = tmp_path / "pools.sh"
    script.write_text(text)
    pools = [p["name"] for p in bundle.shape["pools"]]
    before = {p["pool_name"] for p in ceph_lab.ceph("osd", "pool", "ls", "detail")}
    assert not before & set(pools), before
    ceph_lab.ceph("config", "set", "mon", "mon_max_pg_per_osd", "2000")
    for name in ("r1", "r2"):  # the lab's MDS a serves its own file system; these take the two ranks
        ceph_lab.start_mds(name)
    try:
        r = ceph_lab.run("sh", str(script), check=False, timeout=600)
        assert r.returncode == 0, (r.stdout, r.stderr)
        assert ceph_lab.ceph("fs", "get", "scratch")["mdsmap"]["max_mds"] == 2
        deadline = time.monotonic() + 180
        while len(_active(ceph_lab, "scratch")) < 2 and time.monotonic() < deadline:
            time.sleep(2)
        ranks = _active(ceph_lab, "scratch")
        assert sorted(ranks) == [0, 1], ranks
        path = ceph_lab.run("ceph", "fs", "subvolume", "getpath", "scratch", "scratch").stdout.strip()
        assert f"mount this path: {path}" in r.stdout
        w = ceph_lab.run(SYSTEM_PYTHON, "-c", JOBS, "scratch", path, "pin", "16", "0", timeout=300)
        assert w.stdout.strip() == "1"
        # the MDS hands each new folder to its rank on its next balancer tick (seconds)
        deadline = time.monotonic() + 120
        while _pinned_subtrees(ceph_lab, ranks[1], 1) == 0 and time.monotonic() < deadline:
            time.sleep(2)
        start = {rank: _requests(ceph_lab, name) for rank, name in ranks.items()}
        ceph_lab.run(SYSTEM_PYTHON, "-c", JOBS, "scratch", path, "files", "16", "20", timeout=300)
        served = {rank: _requests(ceph_lab, name) - start[rank] for rank, name in ranks.items()}
        print(f"client requests per rank: {served}")
        # 16 folders of 20 files: 320 creates; a folder pinned to a rank is served by it, so each rank holding
        # a folder serves at least its 20 creates (all 16 hashed to one rank: 2 in 65536)
        assert sum(served.values()) >= 16 * 20, served
        assert all(n >= 20 for n in served.values()), served
    finally:
        # every step runs whatever the one before did: a step left out leaves the session cluster's later tests
        # a file system, pools and HEALTH_WARN (TOO_MANY_PGS), and prove refuses a warning cluster. No
        # `fs subvolume rm`: it goes through the manager's volumes module, which once took over 120 s here;
        # removing the file system and its pools removes the subvolume too
        _quietly(ceph_lab, "ceph", "fs", "fail", "scratch")
        _quietly(ceph_lab, "ceph", "fs", "rm", "scratch", "--yes-i-really-mean-it")
        for pool in pools:
            if pool not in before:
                _quietly(
                    ceph_lab, "ceph", "osd", "pool", "delete", pool, pool, "--yes-i-really-really-mean-it"
                )
        _quietly(ceph_lab, "ceph", "config", "rm", "mon", "mon_max_pg_per_osd")


def _quietly(lab: CephLab, *cmd: str) -> None:
    """A clean-up step that neither fails nor stops the next one (a Ceph command may hang past its timeout)."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        lab.run(*cmd, check=False, timeout=120)

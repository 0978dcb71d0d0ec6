"""The compiled application-level run (bench/sysbench-oltp.sh) end to end: the real script, at --bench-scale smoke,
against the session's real Ceph 16.2.15 cluster, with the rbd-fuse + loop-device method (this machine has no
rbd or nbd kernel module, but loop devices and ext4 mounts work as root), real MariaDB 10.11 on the mounted
image and real sysbench; `flashtune ingest` must read every run with the values sysbench printed, and the
script must leave no server, mount, loop device, FUSE mount or image behind, also when it fails half-way.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from flashtune.compile import CompileRequest, compile_bundle
from flashtune.compile.profiles import last, read_profile
from flashtune.ingest import load
from support.cephlab import CephLab
from support.mariadb import MariaDB

pytestmark = [pytest.mark.ceph, pytest.mark.mariadb, pytest.mark.kernel, pytest.mark.slow]

POOL = "oltp-real"
IMAGE = "flashtune-oltp"
SCRIPT = "bench/sysbench-oltp.sh"


def _why_not() -> str | None:
    if os.geteuid() != 0:
        return "the script maps and mounts: it needs root"
    if not Path("/dev/loop-control").exists():
        return "no loop devices (/dev/loop-control)"
    for tool in ("rbd-fuse", "losetup", "fusermount", "mkfs.ext4", "sysbench", "mariadbd"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed: run scripts/install-system-deps.sh"
    return None


@pytest.fixture(scope="module")
def lab(ceph_lab: CephLab) -> Iterator[CephLab]:
    why = _why_not()
    if why:
        pytest.skip(why)
    ceph_lab.ceph("osd", "pool", "create", POOL, "8", "8")
    ceph_lab.run("rbd", "pool", "init", POOL)
    try:
        yield ceph_lab
    finally:
        ceph_lab.run("rbd", "rm", "--no-progress", f"{POOL}/{IMAGE}", check=False)
        ceph_lab.run("ceph", "osd", "pool", "rm", POOL, POOL, "--yes-i-really-really-mean-it", check=False)


def _compile(out: Path) -> Path:
    bundle = compile_bundle(CompileRequest(workload="mysql", tier="tco", bench_scale="smoke"))
    for name, text in bundle.files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text)
    return out / SCRIPT


def _env(lab: CephLab, work: Path, **env: str) -> dict[str, str]:
    return {
        **lab.env,
        "MAP_METHOD": "fuse",
        "POOL": POOL,
        "CEPH_CONF": str(lab.conf_path),
        "WORKDIR": str(work),
        "DB_USER": "root",
        **env,
    }


def _run(script: Path, lab: CephLab, work: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(script), *args], env=_env(lab, work, **env), capture_output=True, text=True, timeout=900
    )


def _leftovers(lab: CephLab, work: Path) -> list[str]:
    """What a run left behind: mounts under its work folder, loop devices, the image."""
    found = []
    mounts = Path("/proc/mounts").read_text()
    found += [line for line in mounts.splitlines() if str(work) in line]
    loops = subprocess.run(
        ["losetup", "-l", "-n", "-O", "NAME,BACK-FILE"], capture_output=True, text=True
    ).stdout
    found += [line for line in loops.splitlines() if str(work) in line]
    images = lab.run("rbd", "ls", POOL).stdout.split()
    found += [f"image {i}" for i in images if i == IMAGE]
    return found


def _force_clean(lab: CephLab, work: Path) -> None:
    """The test's own safety net (the script should have done all this)."""
    pid = work / "run" / "mysqld.pid"
    if pid.exists() and Path(f"/proc/{pid.read_text().strip()}").exists():
        subprocess.run(["kill", "-9", pid.read_text().strip()], check=False)
        time.sleep(1)
    for line in reversed(Path("/proc/mounts").read_text().splitlines()):
        if str(work) in line:
            subprocess.run(["umount", "-l", line.split()[1]], check=False)
    loops = subprocess.run(
        ["losetup", "-l", "-n", "-O", "NAME,BACK-FILE"], capture_output=True, text=True
    ).stdout
    for line in loops.splitlines():
        if str(work) in line:
            subprocess.run(["losetup", "-d", line.split()[0]], check=False)
    lab.run("rbd", "rm", "--no-progress", f"{POOL}/{IMAGE}", check=False)


def _summary(text: str) -> dict[str, float]:
    def num(pattern: str) -> float:
        m = re.search(pattern, text)
        assert m, f"sysbench printed no {pattern!r}:\n{text[-1500:]}"
        return float(m.group(1))

    return {
        "tps": num(r"transactions:\s+\d+\s+\(([\d.]+) per sec"),
        "qps": num(r"queries:\s+\d+\s+\(([\d.]+) per sec"),
        "lat_avg": num(r"avg:\s+([\d.]+)"),
        "lat_p95": num(r"95th percentile:\s+([\d.]+)"),
        "threads": num(r"Number of threads:\s+(\d+)"),
    }


def _one(rows: pd.DataFrame, metric: str, stat: str) -> float:
    """The one whole-run value of a metric (op total) ingest gives for a run."""
    got = rows[(rows["metric"] == metric) & (rows["stat"] == stat) & (rows["op"] == "total")]
    assert len(got) == 1, (metric, stat, got)
    return float(got["value"].iloc[0])


def test_smoke_run_on_rbd_fuse_is_ingested_and_cleaned_up(lab: CephLab, tmp_path: Path) -> None:
    script = _compile(tmp_path / "out")
    work = tmp_path / "work"
    try:
        r = _run(script, lab, work)
        assert r.returncode == 0, f"stdout:\n{r.stdout[-3000:]}\nstderr:\n{r.stderr[-5000:]}"
        assert "mapped" in r.stderr and "(fuse)" in r.stderr
        assert _leftovers(lab, work) == []
    finally:
        _force_clean(lab, work)
    results = work / "results"
    files = sorted(results.glob("*.txt"))
    # 3 iterations x 3 tests x 2 thread counts, each its own file; warm-up runs are kept apart (logs/)
    assert len(files) == 18, [f.name for f in files]
    assert {f.name.split("-")[0] for f in files} == {"oltp_read_write", "oltp_read_only", "oltp_write_only"}
    assert len(list((work / "logs").glob("warmup-*.txt"))) == 18
    df = load(results)
    for f in files:
        printed = _summary(f.read_text())
        print(f"{f.name}: {printed}")  # the measured numbers, for the run's report (pytest -s)
        rows = df[df["source"].astype(str).str.endswith(f.name) & df["time_s"].isna()]
        assert not rows.empty, f"ingest read nothing from {f.name}"
        assert set(rows["test"]) == {f.name.split("-")[0]} and set(rows["threads"]) == {printed["threads"]}
        assert set(rows["run"]) == {f.stem.rsplit("iter", 1)[1]}  # the iteration, from the file name

        assert _one(rows, "tps", "mean") == pytest.approx(printed["tps"], abs=0.01), f.name
        assert _one(rows, "qps", "mean") == pytest.approx(printed["qps"], abs=0.01), f.name
        assert _one(rows, "latency", "mean") == pytest.approx(printed["lat_avg"], abs=0.01), f.name
        assert _one(rows, "latency", "p95") == pytest.approx(printed["lat_p95"], abs=0.01), f.name
        assert printed["tps"] > 0, f.name
        # time-based: sysbench ran the compiled 3 s and printed an interval line every second
        total = float(re.search(r"total time:\s+([\d.]+)s", f.read_text()).group(1))  # type: ignore[union-attr]
        assert 2.9 <= total <= 6, (f.name, total)
        assert re.search(r"^\[ 1s \] thds:", f.read_text(), re.M), f.name


def test_a_failed_run_leaves_nothing_behind(lab: CephLab, tmp_path: Path) -> None:
    """The server cannot start (an option MariaDB refuses): the script fails after it has created, mapped and
    mounted the image, and its trap must undo all of it."""
    script = _compile(tmp_path / "out")
    bad = tmp_path / "bad.cnf"
    bad.write_text("[mysqld]\nno_such_option_flashtune = 1\n")
    work = tmp_path / "work"
    try:
        r = _run(script, lab, work, MYCNF=str(bad))
        assert r.returncode != 0
        assert "mapped" in r.stderr and "cleaned up" in r.stderr, r.stderr[-3000:]
        assert _leftovers(lab, work) == []
    finally:
        _force_clean(lab, work)


def test_a_killed_run_is_undone_by_cleanup(lab: CephLab, tmp_path: Path) -> None:
    """SIGKILL (no trap runs) in the middle of the measured runs leaves the server, the mount, the loop device,
    the FUSE mount and the image; a new run refuses the image as a killed run's; `cleanup` undoes it all."""
    script = _compile(tmp_path / "out")
    work = tmp_path / "work"
    log = (tmp_path / "killed.log").open("w")
    proc = subprocess.Popen(["bash", str(script)], env=_env(lab, work), stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 600
        while not list((work / "results").glob("*.txt")):
            assert proc.poll() is None, (tmp_path / "killed.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "no measured run finished in 600 s"
            time.sleep(0.5)
        proc.kill()
        proc.wait()
        pid = int((work / "run" / "mysqld.pid").read_text())
        left = _leftovers(lab, work)
        assert (
            any("mnt" in x for x in left) and any("loop" in x for x in left) and f"image {IMAGE}" in left
        ), left
        again = _run(script, lab, work, RESULTS=str(tmp_path / "other"))
        assert again.returncode == 1 and "killed run" in again.stderr, again.stderr[-2000:]
        r = _run(script, lab, work, "cleanup")
        assert r.returncode == 0, r.stderr[-3000:]
        assert _leftovers(lab, work) == []
        assert not Path(f"/proc/{pid}").exists(), "the killed run's server still runs"
    finally:
        log.close()
        if proc.poll() is None:
            proc.kill()
        _force_clean(lab, work)


def test_the_map_alloc_size_is_bluestores_allocation_unit(lab: CephLab) -> None:
    """krbd's alloc_size (discards below it are dropped) is set to what the OSDs allocate in."""
    b = compile_bundle(CompileRequest(workload="mysql", tier="iops"))
    assert b.oltp is not None
    (alloc,) = [c.option.split("=")[1] for c in b.oltp.map_options if c.option.startswith("alloc_size=")]
    for key in ("bluestore_min_alloc_size_ssd", "bluestore_min_alloc_size_hdd"):
        assert lab.run("ceph", "config", "get", "osd", key).stdout.strip() == alloc, key


def test_an_existing_image_is_refused_and_kept(lab: CephLab, tmp_path: Path) -> None:
    script = _compile(tmp_path / "out")
    lab.run("rbd", "create", "--size", "64", f"{POOL}/{IMAGE}")
    try:
        r = _run(script, lab, tmp_path / "work")
        assert r.returncode == 1 and "exists" in r.stderr, r.stderr[-2000:]
        assert IMAGE in lab.run("rbd", "ls", POOL).stdout.split()
    finally:
        lab.run("rbd", "rm", "--no-progress", f"{POOL}/{IMAGE}", check=False)


def test_row_bytes_is_a_lower_bound_of_a_real_sbtest_row(mariadb_server: MariaDB, tmp_path: Path) -> None:
    """The data-set rule counts rows at the profile's row_bytes: a real sysbench row must take at least that
    much in InnoDB, or the data set would be smaller than the rule says."""
    plan = last([read_profile("workload-mysql")], "benchmark")
    row_bytes = int(plan["application"]["row_bytes"])
    rows = 100000
    opts = mariadb_server.sysbench_options(1, rows)
    sb = ["sysbench", "oltp_read_write", *opts]
    subprocess.run([*sb, "cleanup"], capture_output=True, timeout=120)
    subprocess.run([*sb, "prepare"], capture_output=True, check=True, timeout=300)
    try:
        mariadb_server.sql("ANALYZE TABLE sbtest.sbtest1")
        ((data, index),) = mariadb_server.sql(
            "SELECT data_length, index_length FROM information_schema.tables "
            "WHERE table_schema = 'sbtest' AND table_name = 'sbtest1'"
        )
        per_row = (int(data) + int(index)) / rows
        print(f"a sbtest row takes {per_row:.0f} B in InnoDB (data {data}, index {index}, {rows} rows)")
        assert per_row >= row_bytes, f"a sbtest row takes {per_row:.0f} B, the rule assumes {row_bytes}"
        assert per_row < 2 * row_bytes or math.isnan(per_row), (
            f"row_bytes {row_bytes} far below {per_row:.0f}"
        )
    finally:
        subprocess.run([*sb, "cleanup"], capture_output=True, timeout=120)

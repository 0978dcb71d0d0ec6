"""`flashtune prove` on real Ceph 16.2.15 (issue 24): the whole A/B loop, its restore, and its refusals.

- `--lab` boots its own loopback cluster and runs the loop: the report has >= 3 samples per arm from the
  tools' real output (read back here with the ingest parsers), and the config database ends as it began;
- on the session's cluster (`ceph_lab`, through --conf as an operator would reach it): a SIGINT in the middle
  of arm B, and a SIGKILL followed by `--restore`, both end with `ceph config dump` byte-identical to the dump
  saved before, and the test pool gone;
- HEALTH_ERR refuses (made with `ceph osd set-full-ratio 0.99`: OSD_OUT_OF_ORDER_FULL, harmless and undone),
  HEALTH_WARN refuses unless --allow-warn;
- a setting the release lacks (osd_op_threads, gone since Luminous) is reported and never set; a setting read
  only at daemon start is left out with a note;
- the scratch workload's probes run fio (psync and libaio) on a file of the lab's CephFS mounted with ceph-fuse,
  mounted per arm and always unmounted, its folder removed, also after a SIGINT.
Durations are short (2-3 s samples): these prove the mechanism, not a tuning result.
"""

from __future__ import annotations

import json
import os
import pty
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from flashtune.ingest import load
from flashtune.prove import cephfs
from flashtune.prove.cluster import Cluster
from support.cephlab import CephLab
from support.proving import dump_text, finish, journal, prove, until_arm_b, wait_for

pytestmark = [pytest.mark.ceph, pytest.mark.slow]

# A compiled folder's ceph-config.sh, small so that arm switches are quick: runtime keys (one of them already
# set in the cluster to another value, so the restore has something to put back; one that the lab's own
# ceph.conf sets, which a daemon then takes from its file instead), one key the release lacks, and one read
# only at daemon start.
SCRIPT = """#!/usr/bin/env bash
set -euo pipefail
ceph config set osd osd_recovery_op_priority 1
ceph config set client objecter_inflight_ops 10240
ceph config set global osd_pool_default_pg_autoscale_mode warn
ceph config set osd osd_op_threads 8
ceph config set osd osd_op_num_shards 8
"""


def test_prove_lab_runs_the_whole_loop_and_reports_from_real_output(tmp_path: Path) -> None:
    out = tmp_path / "prove"
    screen, terminal = pty.openpty()  # stderr is a terminal here: prove shows its progress
    seen: list[bytes] = []

    def read() -> None:
        while True:
            try:
                chunk = os.read(screen, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            seen.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    p = prove(
        "--lab",
        "--out",
        str(out),
        "--workload",
        "block",
        "--repeat",
        "3",
        "--seconds",
        "2",
        "--warmup",
        "1",
        "--image-mib",
        "128",
        "--probe",
        "rbd-randread-4k",
        "--probe",
        "rados-write-4k",
        stderr=terminal,
    )
    os.close(terminal)  # the child holds it now; the reader sees the end when the child exits
    code, _stdout, _ = finish(p, timeout=900)
    reader.join(timeout=30)
    stderr = b"".join(seen).decode(errors="replace")
    assert code == 0, stderr[-3000:]
    # progress on a terminal: the case, the arm and the time left
    assert "rbd-randread-4k: arm B 3/3" in stderr and "s left" in stderr
    report = (out / "report.md").read_text()
    assert (
        "**Lab run.**" in report
        and "say nothing about what the compiled settings do on real hardware" in report
    )
    # every sample is the tool's own output, read back with the ingest parsers; 3 per arm and case, and the
    # report's medians are theirs
    for case, op in (("rbd-randread-4k", "read"), ("rados-write-4k", "write")):
        row = next(line for line in report.splitlines() if line.startswith(f"| {case} | ") and "CI" in line)
        for arm in "AB":
            files = sorted((out / "raw" / case).glob(f"{arm}*.json"))
            assert len(files) == 3, files
            values = []
            for f in files:
                df = load(f)
                iops = df[(df.metric == "iops") & (df.stat == "mean") & df.time_s.isna() & (df.op == op)]
                values.append(float(iops.value.iloc[0]))
            median = statistics.median(values)
            assert median > 0
            assert (f"{median:,.0f}" if median >= 100 else f"{median:,.1f}") in row
        assert "3 / 3" in row
        assert any(v in row for v in ("better", "no detectable difference", "worse"))
    csv = (out / "results.csv").read_text().splitlines()
    assert csv[0].startswith("source,tool,format,run,test,workload,op")
    runs = {line.split(",")[3] for line in csv[1:]}
    assert {f"rbd-randread-4k/{a}{i}" for a in "AB" for i in (1, 2, 3)} <= runs
    assert (out / "chart.svg").read_text().startswith("<svg")
    # the settings that differed are the compiled ceph-config.sh lines, and the arms really alternated
    assert "| osd | `osd_recovery_op_priority` | (default) | 1 |" in report
    arms = [e["arm"] for e in journal(out) if e["op"] == "arm"]
    assert arms == ["A", "B"] * 3
    # restored: the config database byte-identical to the dump saved before the first change
    assert (out / "config-after.json").read_bytes() == (out / "config-before.json").read_bytes()
    assert "byte-identical" in report and "predicted ceiling" in report


@pytest.fixture
def compiled(tmp_path: Path) -> Path:
    folder = tmp_path / "compiled"
    folder.mkdir()
    (folder / "ceph-config.sh").write_text(SCRIPT)
    return folder


@pytest.fixture
def lab_with_a_value(ceph_lab: CephLab) -> Iterator[CephLab]:
    """The session's cluster with one key already set (to 2; arm B sets 1): the restore must put 2 back."""
    ceph_lab.run("ceph", "config", "set", "osd", "osd_recovery_op_priority", "2")
    yield ceph_lab
    ceph_lab.run("ceph", "config", "rm", "osd", "osd_recovery_op_priority")


def _start_in_arm_b(lab: CephLab, compiled: Path, out: Path) -> subprocess.Popen[str]:
    p = prove(
        "--out",
        str(out),
        "--compiled",
        str(compiled),
        "--repeat",
        "3",
        "--seconds",
        "10",
        "--warmup",
        "0",
        "--probe",
        "rados-write-4k",
        conf=lab.conf_path,
    )
    until_arm_b(p, out)
    time.sleep(1)  # into arm B's sample
    return p


def test_sigint_in_arm_b_restores_the_config_database(
    lab_with_a_value: CephLab, compiled: Path, tmp_path: Path
) -> None:
    lab = lab_with_a_value
    before = dump_text(lab)
    out = tmp_path / "prove"
    p = _start_in_arm_b(lab, compiled, out)
    assert lab.ceph("config", "get", "osd", "osd_recovery_op_priority") == 1  # arm B is on
    p.send_signal(signal.SIGINT)
    code, _stdout, stderr = finish(p)
    assert code == 130, stderr
    assert "byte-identical" in stderr
    assert "s left" not in stderr  # no progress lines when stderr is not a terminal
    assert dump_text(lab) == before == (out / "config-before.json").read_text()
    assert not [x for x in lab.ceph("osd", "pool", "ls") if x.startswith("flashtune-prove-")]
    report = (out / "report.md").read_text()
    assert "did not finish: interrupted" in report
    # the key the release lacks was reported, never set; the startup-only key was left out
    assert not [e for e in journal(out) if e.get("key") in ("osd_op_threads", "osd_op_num_shards")]
    assert (
        "| osd | `osd_op_threads` | 8 | **not applied**: the running release has no such option |" in report
    )
    assert "`osd_op_num_shards`" in report and "read only at daemon start" in report
    # a daemon whose local ceph.conf sets a key does not take arm B's value: the report says so
    assert "takes `osd_pool_default_pg_autoscale_mode` = off from its file, not the config database" in report


def test_sigkill_then_restore_puts_everything_back(
    lab_with_a_value: CephLab, compiled: Path, tmp_path: Path
) -> None:
    lab = lab_with_a_value
    before = dump_text(lab)
    out = tmp_path / "prove"
    p = _start_in_arm_b(lab, compiled, out)
    p.kill()
    p.communicate()
    assert dump_text(lab) != before  # the crash left arm B's values behind
    assert [x for x in lab.ceph("osd", "pool", "ls") if x.startswith("flashtune-prove-")]
    # a new run into that folder would overwrite the dump the restore needs: refused
    saved = (out / "config-before.json").read_bytes()
    again = prove("--out", str(out), "--force", "--compiled", str(compiled), "--dry-run", conf=lab.conf_path)
    code, _, stderr = finish(again)
    assert code == 2 and "never restored" in stderr and f"--restore {out}" in stderr
    assert (out / "config-before.json").read_bytes() == saved
    r = prove("--restore", str(out), conf=lab.conf_path)
    code, stdout, stderr = finish(r)
    assert code == 0, stderr
    assert "byte-identical" in stdout
    assert dump_text(lab) == before
    assert not [x for x in lab.ceph("osd", "pool", "ls") if x.startswith("flashtune-prove-")]
    # a second restore finds nothing to do and says so again
    code, stdout, _ = finish(prove("--restore", str(out), conf=lab.conf_path))
    assert code == 0 and "byte-identical" in stdout
    # once restored, a new run may use the folder: its files are replaced, each in one step
    again = prove("--out", str(out), "--force", "--compiled", str(compiled), "--dry-run", conf=lab.conf_path)
    code, _, stderr = finish(again)
    assert code == 0, stderr
    assert (out / "config-before.json").read_text() == dump_text(lab) and not list(out.glob(".*.tmp"))


def _wait_health(lab: CephLab, status: str) -> None:
    wait_for(status, lambda: lab.ceph("health")["status"] == status, 60)


def test_health_err_refuses_and_warn_needs_consent(ceph_lab: CephLab, compiled: Path, tmp_path: Path) -> None:
    before = dump_text(ceph_lab)
    full = ceph_lab.ceph("osd", "dump")["full_ratio"]
    _wait_health(ceph_lab, "HEALTH_OK")
    try:
        ceph_lab.run(
            "ceph", "osd", "set-full-ratio", "0.99"
        )  # above the failsafe 0.97: OSD_OUT_OF_ORDER_FULL
        _wait_health(ceph_lab, "HEALTH_ERR")
        code, _, stderr = finish(
            prove("--out", str(tmp_path / "err"), "--compiled", str(compiled), conf=ceph_lab.conf_path)
        )
        assert code == 2 and "HEALTH_ERR" in stderr and "OSD_OUT_OF_ORDER_FULL" in stderr
        assert "Traceback" not in stderr
        assert not (tmp_path / "err" / "journal.jsonl").exists()
    finally:
        ceph_lab.run("ceph", "osd", "set-full-ratio", f"{full:.2f}")
    try:
        ceph_lab.run("ceph", "osd", "set", "noout")
        _wait_health(ceph_lab, "HEALTH_WARN")
        args = ("--compiled", str(compiled), "--dry-run")
        code, _, stderr = finish(prove("--out", str(tmp_path / "warn"), *args, conf=ceph_lab.conf_path))
        assert code == 2 and "HEALTH_WARN" in stderr and "--allow-warn" in stderr
        code, stdout, stderr = finish(
            prove("--out", str(tmp_path / "warn2"), *args, "--allow-warn", conf=ceph_lab.conf_path)
        )
        assert code == 0, stderr
        assert "dry run: nothing was changed" in stdout
        assert "NOT applied: the running release has no such option" in stdout and "osd_op_threads" in stdout
    finally:
        ceph_lab.run("ceph", "osd", "unset", "noout")
    assert dump_text(ceph_lab) == before


def test_lab_ports_in_use_are_a_clean_error(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = ("--lab", "--lab-ports", f"{port},{port + 1},{port + 2}", "--workload", "block")
        code, _, stderr = finish(prove("--out", str(tmp_path / "p"), *args), timeout=120)
    assert code == 2 and "Traceback" not in stderr, stderr
    assert f"127.0.0.1:{port} is in use" in stderr and "hint: give other free ports" in stderr, stderr


# Restarts the session cluster's OSDs (what `ceph orch restart osd` does on a cephadm cluster): the command an
# operator gives with --restart-command.
RESTART_OSDS = """
import sys
import threading
from pathlib import Path

from flashtune.lab import CephLab

lab = CephLab(Path(sys.argv[1]), osds=3)
lab._stop("osd.0", "osd.1", "osd.2")
lab._start_osds()
"""


def test_a_start_time_setting_is_proved_with_consent_to_restart(
    ceph_lab: CephLab, compiled: Path, tmp_path: Path
) -> None:
    before = dump_text(ceph_lab)
    script = tmp_path / "restart_osds.py"
    script.write_text(RESTART_OSDS)
    out = tmp_path / "prove"
    p = prove(
        "--out",
        str(out),
        "--compiled",
        str(compiled),
        "--repeat",
        "3",
        "--seconds",
        "2",
        "--warmup",
        "0",
        "--probe",
        "rados-write-4k",
        "--restart-command",
        f"{sys.executable} {script} {ceph_lab.root}",
        conf=ceph_lab.conf_path,
    )
    code, _, stderr = finish(p, timeout=1200)
    assert code == 0, stderr[-3000:]
    report = (out / "report.md").read_text()
    assert "| osd | `osd_op_num_shards` | (default) | 8 |" in report
    ops = journal(out)
    # restarted at every switch after the first arm (B A B A B), and once more after the restore
    assert [e["op"] for e in ops].count("restart") == 6
    assert any(e["op"] == "daemons-restarted" for e in ops)
    # the OSDs really ran with the start-time value in arm B only
    running = [(e["arm"], e["values"]["osd_op_num_shards"]) for e in ops if e["op"] == "running"]
    assert running == [("B", "8"), ("A", None), ("B", "8"), ("A", None), ("B", "8")]
    assert dump_text(ceph_lab) == before
    assert ceph_lab.daemon("osd.0", "config", "get", "osd_op_num_shards") == {"osd_op_num_shards": "0"}
    assert "restarted once more after the restore" in report


def _fs_root(lab: CephLab, tmp_path: Path) -> list[str]:
    """What the root of the lab's CephFS holds, seen through a ceph-fuse mount of our own."""
    point = tmp_path / "check-mnt"
    cephfs.mount(Cluster(conf=str(lab.conf_path)), point, "labfs")
    try:
        return sorted(x.name for x in point.iterdir())
    finally:
        cephfs.unmount(point)


def _mounts() -> str:
    return Path("/proc/self/mounts").read_text()


def test_scratch_probes_run_fio_on_cephfs_mounted_with_ceph_fuse(
    ceph_lab: CephLab, compiled: Path, tmp_path: Path
) -> None:
    before = dump_text(ceph_lab)
    out = tmp_path / "prove"
    args = ["--out", str(out), "--compiled", str(compiled), "--workload", "scratch", "--file-mib", "32"]
    p = prove(
        *args,
        *("--repeat", "3", "--seconds", "2", "--warmup", "0"),
        *("--probe", "cephfs-read-1m", "--probe", "cephfs-randwrite-4k"),
        conf=ceph_lab.conf_path,
    )
    code, stdout, stderr = finish(p, timeout=900)
    assert code == 0, stderr[-3000:]
    assert "mounts CephFS 'labfs' with ceph-fuse" in stdout
    # every sample is fio's own JSON from a file on the ceph-fuse mount, read back with the ingest parsers
    for case, op, engine in (("cephfs-read-1m", "read", "psync"), ("cephfs-randwrite-4k", "write", "libaio")):
        for arm in "AB":
            files = sorted((out / "raw" / case).glob(f"{arm}*.json"))
            assert len(files) == 3, files
            for f in files:
                doc = json.loads(f.read_text())
                options = doc["jobs"][0]["job options"]
                assert options["ioengine"] == engine and options["directory"].startswith(
                    "/tmp/flashtune-prove-mnt-"
                )
                df = load(f)
                assert (
                    float(
                        df[
                            (df.metric == "iops") & (df.stat == "mean") & df.time_s.isna() & (df.op == op)
                        ].value.iloc[0]
                    )
                    > 0
                )
    ops = journal(out)
    # mounted for the prefill, afresh in each arm (after the arm's settings are set) and by the restore to remove
    # the run's folder; every mount unmounted
    names = [e["op"] for e in ops]
    assert names.count("mount") == 1 + 6 + 1 == names.count("unmounted")
    assert names.index("folder-removed") > names.index("restore-begin")
    point = next(str(e["path"]) for e in ops if e["op"] == "mount")
    assert point not in _mounts() and not Path(point).exists()
    assert (out / "config-after.json").read_bytes() == (out / "config-before.json").read_bytes()
    assert dump_text(ceph_lab) == before
    assert not [x for x in _fs_root(ceph_lab, tmp_path) if x.startswith("flashtune-prove-")]
    report = (out / "report.md").read_text()
    assert "ceph-fuse afresh in each arm" in report and "| cephfs-randwrite-4k | " in report


def test_sigint_unmounts_the_cephfs_and_removes_its_folder(
    ceph_lab: CephLab, compiled: Path, tmp_path: Path
) -> None:
    before = dump_text(ceph_lab)
    out = tmp_path / "prove"
    p = prove(
        *("--out", str(out), "--compiled", str(compiled), "--workload", "scratch", "--file-mib", "32"),
        *("--repeat", "3", "--seconds", "20", "--warmup", "0", "--probe", "cephfs-write-1m"),
        conf=ceph_lab.conf_path,
    )
    until_arm_b(p, out)
    point = next(str(e["path"]) for e in journal(out) if e["op"] == "mount")
    time.sleep(1)  # fio is writing to the mounted file system now
    assert point in _mounts()
    p.send_signal(signal.SIGINT)
    code, _, stderr = finish(p)
    assert code == 130, stderr
    assert "the CephFS test folder removed and ceph-fuse unmounted" in stderr
    assert point not in _mounts() and not Path(point).exists()
    assert dump_text(ceph_lab) == before
    assert not [x for x in _fs_root(ceph_lab, tmp_path) if x.startswith("flashtune-prove-")]

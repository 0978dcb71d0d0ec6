"""`flashtune prove --cbt` on real Ceph 16.2.15 with the real CBT (issue 24: "the benchmark is the compiled CBT
plan's cases, through CBT when it is installed").

The session's loopback cluster is reached as an operator reaches theirs (--conf); prove compiles the block
workload for the lab's hardware file at --bench-scale smoke (fio 2 s after a 1 s ramp) and runs two cases of its
cbt.yaml (4k-randwrite-qd16, 4k-randread-qd16: one CBT run per arm) through the shared CBT tree in every arm of
A B A B A B. Checked: the report's per-case rows hold 3 samples per arm, each sample is
the IOPS fio printed in that arm's CBT archive (read here straight from fio's JSON); CBT created its pools in
the first arm only (journaled before) and reused them after; the config database ends byte-identical to the dump
taken before, and the CBT pools are gone. Progress on a terminal names the case, the arm and the time left.
"""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flashtune.yamlio import load_yaml
from support import cbtlab
from support.cephlab import CephLab

pytestmark = [pytest.mark.ceph, pytest.mark.slow]

CASES = ("4k-randwrite-qd16", "4k-randread-qd16")
OUTPUT = re.compile(r"^output\.\d+\.localhost$")  # fio's stdout per volume, as CBT copies it from the client


@pytest.fixture(scope="module")
def cbt(shared: Path) -> Path:
    return cbtlab.checkout(shared)


@pytest.fixture
def lab(ceph_lab: CephLab) -> Iterator[CephLab]:
    """Room for the plan's 128-PG pools beside the lab's own (3 OSDs); set before prove saves its dump."""
    ceph_lab.run("ceph", "config", "set", "mon", "mon_max_pg_per_osd", "1000")
    try:
        yield ceph_lab
    finally:
        ceph_lab.run("ceph", "config", "rm", "mon", "mon_max_pg_per_osd", check=False)


def _run_on_a_terminal(args: list[str], conf: Path, timeout: float) -> tuple[int, str, str]:
    """prove with stderr on a pseudo-terminal (so it shows progress); (exit code, stdout, stderr)."""
    screen, terminal = pty.openpty()
    seen: list[bytes] = []

    def read() -> None:
        while True:
            try:
                chunk = os.read(screen, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen.append(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    env = dict(os.environ, CEPH_CONF=str(conf))
    env.pop("CEPH_ARGS", None)
    p = subprocess.Popen(
        [sys.executable, "-m", "flashtune.cli.main", "prove", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=terminal,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    os.close(terminal)
    out, _ = p.communicate(timeout=timeout)
    reader.join(timeout=30)
    return p.returncode, out, b"".join(seen).decode(errors="replace")


def _fio_iops(archive: Path) -> dict[str, list[float]]:
    """Per case of an archive, per CBT iteration: fio's read + write IOPS summed over its output files, read
    from fio's own JSON (not through flashtune)."""
    out: dict[str, list[float]] = {}
    for cfg_path in sorted(archive.glob("results/*/id-*/benchmark_config.yaml")):
        cfg = load_yaml(cfg_path)["cluster"]
        total = 0.0
        files = sorted(f for f in cfg_path.parent.iterdir() if OUTPUT.match(f.name))
        assert len(files) == cfg["volumes_per_client"], files
        for f in files:
            text = f.read_text()
            doc: dict[str, Any] = json.loads(text[text.index("{") :])
            total += sum(j["read"]["iops"] + j["write"]["iops"] for j in doc["jobs"])
        out.setdefault(f"{cfg['op_size'] // 1024}k-{cfg['mode']}-qd{cfg['iodepth']}", []).append(total)
    return out


def test_prove_cbt_runs_the_compiled_block_cases_in_real_cbt_and_restores(
    cbt: Path, lab: CephLab, tmp_path: Path
) -> None:
    hw = tmp_path / "cephlab.yaml"
    hw.write_text(cbtlab.LAB_HARDWARE)
    dump_before = lab.run("ceph", "config", "dump", "-f", "json").stdout
    pools_before = lab.ceph("osd", "pool", "ls")
    out = tmp_path / "prove"
    args = ["--hardware", str(hw), "--workload", "block", "--bench-scale", "smoke", "--cbt", str(cbt)]
    args += ["--repeat", "3", "--allow-warn"]
    for case in CASES:
        args += ["--case", case]

    # --dry-run prints the plans CBT would run, and changes nothing
    code, stdout, stderr = _run_on_a_terminal(
        ["--out", str(tmp_path / "dry"), *args, "--dry-run"], lab.conf_path, 300
    )
    assert code == 0, stderr[-3000:]
    assert "--- cbt.yaml (4k-randwrite-qd16, 4k-randread-qd16)" in stdout
    assert "poolname: flashtune-prove-" in stdout and "use_existing: true" in stdout
    assert "dry run: nothing was changed" in stdout
    assert lab.ceph("osd", "pool", "ls") == pools_before

    code, stdout, stderr = _run_on_a_terminal(["--out", str(out), *args], lab.conf_path, 1200)
    assert code == 0, (stdout + stderr)[-4000:]
    assert (
        "4k-randwrite-qd16: arm B 3/3" in stderr
        and "4k-randread-qd16: arm A 1/3 (CBT)" in stderr
        and "s left" in stderr
    )

    # the cluster as it was: the config database byte for byte, and no CBT pool left
    assert lab.run("ceph", "config", "dump", "-f", "json").stdout == dump_before
    assert lab.ceph("osd", "pool", "ls") == pools_before

    entries = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()]
    ops = [e["op"] for e in entries]
    runs = [e for e in entries if e["op"] == "cbt"]
    assert [(e["arm"], e["index"]) for e in runs] == [(a, i) for i in (1, 2, 3) for a in "AB"]
    # CBT's pools are journaled before the run that creates them (the first arm), and only there
    created = [e for e in entries if e["op"] == "pool"]
    assert {e["by"] for e in created} == {"cbt"} and len(created) == 1
    assert all(e["name"].startswith("flashtune-prove-") for e in created)
    for i, e in enumerate(entries):
        if e["op"] == "pool":
            creating = next(x for x in entries[i:] if x["op"] == "cbt")
            assert creating["plan"] == e["plan"] and creating["reuse"] is False and creating["arm"] == "A"
    assert [e["reuse"] for e in runs] == [False] + [True] * 5
    for e in runs:
        assert e["cases"] == list(CASES)
        archive = out / e["archive"]
        for cfg_path in archive.glob("results/*/id-*/benchmark_config.yaml"):
            cfg = load_yaml(cfg_path)["cluster"]
            assert (
                cfg["poolname"].startswith("flashtune-prove-") and cfg["use_existing_volumes"] is e["reuse"]
            )
    assert ops[-1] == "restored" and entries[-1]["identical"] is True

    # one sample per case and arm run, and it is the IOPS fio printed in that arm run's archive
    samples = [e for e in entries if e["op"] == "sample"]
    assert len(samples) == 2 * 3 * len(CASES)
    for s in samples:
        (fio,) = _fio_iops(out / s["file"])[s["case"]]  # one CBT iteration per arm run
        assert s["iterations"] == [pytest.approx(fio, rel=1e-6)] and s["value"] == pytest.approx(
            fio, rel=1e-6
        )

    report = (out / "report.md").read_text()
    for case in CASES:
        row = next(line for line in report.splitlines() if line.startswith(f"| {case} | ") and "CI" in line)
        assert "3 / 3" in row
        for arm in "AB":
            values = [s["value"] for s in samples if s["case"] == case and s["arm"] == arm]
            median = statistics.median(values)
            assert (f"{median:,.0f}" if median >= 100 else f"{median:,.1f}") in row
        assert any(v in row for v in ("better", "no detectable difference", "worse"))
    assert "samples: ONE per case and arm run (3 per arm)" in report
    assert "## CBT cases" in report and "byte-identical" in report
    assert "predicted ceiling" in report
    csv = (out / "results.csv").read_text().splitlines()
    assert {f"4k-randread-qd16/{a}{i}/0" for a in "AB" for i in (1, 2, 3)} <= {
        line.split(",")[3] for line in csv[1:]
    }


def test_sigint_while_cbt_runs_ends_cbt_and_its_fio_and_restores(
    cbt: Path, lab: CephLab, tmp_path: Path
) -> None:
    """Ctrl-C in arm B while CBT drives fio: CBT and every fio it started end (its process group), the pool
    CBT created is deleted and the config database is byte-identical to the dump taken before."""
    hw = tmp_path / "cephlab.yaml"
    hw.write_text(cbtlab.LAB_HARDWARE)
    dump_before = lab.run("ceph", "config", "dump", "-f", "json").stdout
    pools_before = lab.ceph("osd", "pool", "ls")
    out = tmp_path / "prove"
    env = dict(os.environ, CEPH_CONF=str(lab.conf_path))
    env.pop("CEPH_ARGS", None)
    args = ["--out", str(out), "--hardware", str(hw), "--workload", "block", "--bench-scale", "smoke"]
    args += ["--cbt", str(cbt), "--case", "4k-randwrite-qd16", "--repeat", "3", "--allow-warn"]
    p = subprocess.Popen(
        [sys.executable, "-m", "flashtune.cli.main", "prove", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    journal = out / "journal.jsonl"

    def fio_running() -> bool:
        if not journal.exists():
            return False
        entries = [json.loads(x) for x in journal.read_text().splitlines() if x.strip().endswith("}")]
        in_b = any(e["op"] == "cbt" and e["arm"] == "B" for e in entries)
        pool = next((e["name"] for e in entries if e["op"] == "pool"), "")
        return in_b and _pids(f"--pool={pool}") != []

    deadline = time.monotonic() + 600
    while not fio_running():
        assert p.poll() is None, p.communicate()[1][-3000:]
        assert time.monotonic() < deadline, "CBT's fio never started in arm B"
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    _, stderr = p.communicate(timeout=600)
    assert p.returncode == 130, stderr[-3000:]
    entries = [json.loads(x) for x in journal.read_text().splitlines()]
    pool = next(e["name"] for e in entries if e["op"] == "pool")
    assert _pids(f"--pool={pool}") == [] and _pids(str(out / "cbt")) == []  # no fio, no CBT left
    assert entries[-1]["op"] == "restored" and entries[-1]["identical"] is True
    assert lab.run("ceph", "config", "dump", "-f", "json").stdout == dump_before
    assert lab.ceph("osd", "pool", "ls") == pools_before


def _pids(text: str) -> list[int]:
    """Processes whose command line holds `text` (other than this test's own)."""
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmd:
            out.append(int(proc.name))
    return out

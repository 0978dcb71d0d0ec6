"""Run a real flashtune CLI as a child process under limits, and the contract every hostile case checks.

The child gets RLIMIT_AS (memory), RLIMIT_CPU and optionally RLIMIT_FSIZE; the wall time and the child's own
peak RSS come back with its output. The child is started by a small launcher (launch.py), which reports the peak:
measured from the test process itself, it would include the pytest worker's own pages (see launch.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "hostile"  # the hostile inputs, kept as files
FIO_JSON = REPO / "tests" / "corpus" / "fio-json" / "fio-3.1-HPDL380G8-H420i-Crucial-MX200_randread-1-1.json"
LAUNCHER = Path(__file__).with_name("launch.py")
ERROR = re.compile(r"^(\S[^\n]*?: )?error:? ")
MiB = 1 << 20


class Run:
    def __init__(self, rc: int, out: str, err: str, seconds: float, peak_mib: float) -> None:
        self.rc, self.out, self.err, self.seconds, self.peak_mib = rc, out, err, seconds, peak_mib

    def message(self) -> str:
        return next((ln for ln in self.err.splitlines() if ERROR.match(ln)), "")


def child_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(REPO / "compiler")}
    env.pop("FLASHTUNE_DATA", None)
    env.update(extra)
    return env


def run(
    module: str,
    *args: str | Path,
    cwd: Path,
    mem_mib: int = 1024,
    fsize: int | None = None,
    umask: int | None = None,
    stdin: int | IO[bytes] | None = subprocess.DEVNULL,
    stdout: int | IO[bytes] | None = subprocess.PIPE,
    close_stdout: bool = False,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> Run:
    """The command in a child with RLIMIT_AS, RLIMIT_CPU (and RLIMIT_FSIZE); wall time and its peak RSS.
    `stdout` may be a file (e.g. /dev/full) or subprocess.DEVNULL, or it is closed (close_stdout)."""
    rlimits = {"RLIMIT_AS": mem_mib * MiB, "RLIMIT_CPU": 60}
    if fsize is not None:
        rlimits["RLIMIT_FSIZE"] = fsize
    spec = {
        "rlimits": rlimits,
        "ignore_sigxfsz": fsize is not None,
        "umask": umask,
        "close_stdout": close_stdout,
    }
    command = [sys.executable, "-m", module, *map(str, args)]
    report_r, report_w = os.pipe()
    t0 = time.perf_counter()
    try:
        p = subprocess.Popen(
            [sys.executable, "-S", str(LAUNCHER), json.dumps(spec), str(report_w), *command],
            cwd=cwd,
            env=env or child_env(),
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            pass_fds=(report_w,),
        )
    finally:
        os.close(report_w)
    with os.fdopen(report_r, "rb") as report:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.terminate()  # the launcher passes it on to the command
            out, err = p.communicate()
            pytest.fail(f"{module} {args} did not finish in {timeout} s (hung?)\n{err[-2000:]!r}")
        seconds = time.perf_counter() - t0
        peak_kib = report.read()
    peak = int(peak_kib) / 1024 if peak_kib else float("nan")
    text_out = (out or b"").decode("utf-8", "replace")
    return Run(p.returncode, text_out, err.decode("utf-8", "replace"), seconds, peak)


def compile_config(*args: str | Path, cwd: Path, **limits: Any) -> Run:
    """compile-config in a child (run's limits): the block workload, on the iops tier unless the arguments
    name a tier, hardware or fleet."""
    given = {str(a) for a in args}
    tier = () if given & {"--tier", "--hardware", "--fleet"} else ("--tier", "iops")
    workload = () if "--workload" in given else ("--workload", "block")
    return run("flashtune.cli.compile", *tier, *workload, *args, cwd=cwd, **limits)


def ingest(*args: str | Path, cwd: Path, mem_mib: int = 3072, **limits: Any) -> Run:
    """flashtune ingest in a child (run's limits; pandas and numpy need more address space than the rest)."""
    return run("flashtune.cli.main", "ingest", *args, cwd=cwd, mem_mib=mem_mib, **limits)


def check(r: Run, *, rc: int | tuple[int, ...] = 2, where: str | None = None, says: str = "") -> None:
    """The contract: expected exit code, no traceback, one error line (with file:line) and hints only."""
    codes = rc if isinstance(rc, tuple) else (rc,)
    assert r.rc in codes, (r.rc, r.err[-3000:])
    assert "Traceback" not in r.err and "Traceback" not in r.out, r.err[-3000:]
    if r.rc == 2:
        assert r.message(), r.err
        if where is not None:
            assert r.message().startswith(where), (where, r.err)
        assert says in r.err, (says, r.err)
    assert r.seconds < 60, r.seconds


def no_temp_left(folder: Path) -> None:
    assert not [
        p
        for p in folder.iterdir()
        if p.name.startswith(".") and (".tmp" in p.name or p.name.endswith(".old"))
    ], sorted(p.name for p in folder.iterdir())


def snapshot_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}

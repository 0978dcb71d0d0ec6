"""Run the real `flashtune prove` as a child process and read what it leaves: the helpers the prove tests share
(tests/real/test_prove_real.py, test_prove_s3_real.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from support.cephlab import CephLab


def prove(*args: str, conf: Path | None = None, **kw: object) -> subprocess.Popen[str]:
    """`flashtune prove ARGS` started, with CEPH_CONF pointing at `conf`; stdout and stderr piped."""
    env = dict(os.environ)
    env.pop("CEPH_ARGS", None)
    if conf is not None:
        env["CEPH_CONF"] = str(conf)
    # a test run started in the background (as CI may start it) hands SIGINT down ignored: the child gets
    # the default back, or the SIGINT tests would wait for a run that never hears them
    options: dict[str, object] = {
        "stdout": subprocess.PIPE,
        "stderr": subprocess.PIPE,
        "preexec_fn": _sigint_default,
        **kw,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "flashtune.cli.main", "prove", *args],
        env=env,
        text=True,
        **options,  # type: ignore[call-overload]
    )


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def finish(p: subprocess.Popen[str], timeout: float = 600) -> tuple[int, str, str]:
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


def journal(folder: Path) -> list[dict[str, object]]:
    """The run's journal entries (a line cut short by a kill is left out)."""
    path = folder / "journal.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip().endswith("}")]


def wait_for(what: str, ok: Callable[[], object], timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ok():
            return
        time.sleep(0.2)
    pytest.fail(f"{what} not seen in {timeout} s")


def until_arm_b(p: subprocess.Popen[str], out: Path) -> None:
    """Wait until the run in `out` has measured in arm B, and require it to be still running."""
    wait_for(
        "arm B's measurement in the journal",
        lambda: any(e["op"] == "measure" and e["arm"] == "B" for e in journal(out)) or p.poll() is not None,
    )
    assert p.poll() is None, p.communicate()


def dump_text(lab: CephLab) -> str:
    return lab.run("ceph", "config", "dump", "-f", "json").stdout

"""Nothing the user gave is lost: an output never replaces one of the run's own inputs, and a signal during a
write leaves one complete output (the earlier or the new one) and no hidden temporary folder.

Each case runs the real CLI in a child process under memory and time limits (tests/support/hostile.py).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from support.hostile import (
    FIO_JSON,
    REPO,
    check,
    child_env,
    compile_config,
    ingest,
    no_temp_left,
    snapshot_of,
)


def _earlier_output(tmp: Path) -> Path:
    out = tmp / "o"
    check(compile_config("--out", out, cwd=tmp), rc=0)
    return out


def test_force_never_replaces_a_folder_holding_the_hardware_file(tmp_path: Path) -> None:
    out = _earlier_output(tmp_path)
    hw = out / "my-nodes.yaml"
    hw.write_bytes((REPO / "data" / "tiers" / "iops.yaml").read_bytes())
    before = snapshot_of(out)
    for force in ((), ("--force",)):
        r = compile_config("--hardware", hw, "--out", out, *force, cwd=tmp_path)
        check(r, where=f"{out}: error", says=str(hw))
        assert "would replace an input" in r.message(), r.err
    assert snapshot_of(out) == before
    no_temp_left(tmp_path)


def test_force_never_replaces_a_folder_holding_the_against_dump(tmp_path: Path) -> None:
    out = _earlier_output(tmp_path)
    dump = out / "live.json"
    dump.write_text('[{"section": "global", "name": "osd_pool_default_size", "value": "3"}]\n')
    r = compile_config("--against", dump, "--out", out, "--force", cwd=tmp_path)
    check(r, where=f"{out}: error", says=str(dump))
    assert dump.exists()


def test_the_hardware_file_given_as_the_output_folder_by_another_name(tmp_path: Path) -> None:
    """A symlinked name of the output folder, holding the input: refused by resolved path."""
    out = _earlier_output(tmp_path)
    hw = out / "hw.yaml"
    hw.write_bytes((REPO / "data" / "tiers" / "iops.yaml").read_bytes())
    (tmp_path / "alias").symlink_to(out)
    r = compile_config("--hardware", tmp_path / "alias" / "hw.yaml", "--out", out, "--force", cwd=tmp_path)
    check(r, where=f"{out}: error", says="would replace an input")
    assert hw.exists()


def test_a_fleet_group_hardware_file_inside_the_output(tmp_path: Path) -> None:
    out = _earlier_output(tmp_path)
    (out / "nvme.yaml").write_bytes((REPO / "data" / "tiers" / "iops.yaml").read_bytes())
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(
        "groups:\n"
        "  - {name: nvme, hardware: o/nvme.yaml, hosts: 'node[01-04]'}\n"
        "  - {name: tco, tier: tco, hosts: 'node[05-08]'}\n"
    )
    r = compile_config("--fleet", fleet, "--out", out, "--force", cwd=tmp_path)
    check(r, where=f"{out}: error", says="nvme.yaml")
    assert (out / "nvme.yaml").exists()


@pytest.mark.parametrize("how", ["same name", "another spelling", "hard link"])
def test_ingest_never_replaces_its_own_input(tmp_path: Path, how: str) -> None:
    raw = tmp_path / "run.json"
    raw.write_bytes(FIO_JSON.read_bytes())
    before = raw.read_bytes()
    out = {"same name": raw, "another spelling": tmp_path / "." / "x" / ".." / "run.json"}.get(how)
    if how == "another spelling":
        (tmp_path / "x").mkdir()
    if out is None:
        out = tmp_path / "link.csv"
        os.link(raw, out)
    r = ingest(raw, "--out", out, "--force", cwd=tmp_path)
    check(r, says="would replace an input")
    assert str(raw) in r.err
    assert raw.read_bytes() == before


# --- signals during a write ----------------------------------------------------------------------------

# The real compile-config, with fileio's file writer (or its folder swap) sending the process a SIGTERM at
# one chosen moment: the same as a `kill` arriving then, without racing the clock.
_AT_FILE = """
import os, signal, sys
from flashtune import fileio
n = int(sys.argv[1]); real = fileio._write_new; seen = [0]
def write_new(path, data, *, sync):
    seen[0] += 1
    if seen[0] == n:
        os.kill(os.getpid(), signal.SIGTERM)
    return real(path, data, sync=sync)
fileio._write_new = write_new
from flashtune.cli import compile as c
sys.exit(c.main(sys.argv[2:]))
"""
_AT_SWAP = """
import os, signal, sys
from flashtune import fileio
real = fileio._exchange
def exchange(a, b):
    os.kill(os.getpid(), signal.SIGTERM)  # held back until the swap is done
    return real(a, b)
fileio._exchange = exchange
from flashtune.cli import compile as c
sys.exit(c.main(sys.argv[2:]))
"""


def _killed_compile(tmp: Path, script: str, n: int, out: Path) -> subprocess.CompletedProcess[str]:
    args = ["--tier", "tco", "--workload", "block", "--out", str(out), "--force"]
    return subprocess.run(
        [sys.executable, "-c", script, str(n), *args],
        cwd=tmp,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("n", [1, 3, 12])
def test_sigterm_while_writing_leaves_the_earlier_output_and_no_temp(tmp_path: Path, n: int) -> None:
    out = _earlier_output(tmp_path)
    before = snapshot_of(out)
    p = _killed_compile(tmp_path, _AT_FILE, n, out)
    assert p.returncode == 128 + signal.SIGTERM, p.stderr
    assert "Traceback" not in p.stderr, p.stderr
    assert snapshot_of(out) == before  # iops, not the tco that was being written
    no_temp_left(tmp_path)


def test_sigterm_during_the_swap_finishes_it_and_removes_the_earlier_folder(tmp_path: Path) -> None:
    out = _earlier_output(tmp_path)
    p = _killed_compile(tmp_path, _AT_SWAP, 0, out)
    assert p.returncode == 128 + signal.SIGTERM, p.stderr
    assert "tco" in (out / "manifest.json").read_text()  # the new output is whole and in place
    no_temp_left(tmp_path)


def test_sigterm_while_ingest_writes_leaves_no_temp_file(tmp_path: Path) -> None:
    script = """
import os, signal, sys
from flashtune import fileio
real = fileio._write_new
def write_new(path, data, *, sync):
    real(path, data, sync=sync)
    os.kill(os.getpid(), signal.SIGTERM)
fileio._write_new = write_new
from flashtune.cli import main as m
sys.exit(m.main(sys.argv[1:]))
"""
    out = tmp_path / "rows.csv"
    out.write_text("earlier\n")
    p = subprocess.run(
        [sys.executable, "-c", script, "ingest", str(FIO_JSON), "--out", str(out), "--force"],
        cwd=tmp_path,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 128 + signal.SIGTERM, p.stderr
    assert out.read_text() == "earlier\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["rows.csv"]


def test_a_cleanup_that_fails_says_where_the_temporary_folder_is(tmp_path: Path) -> None:
    """The write fails, and removing its temporary folder fails too (as on a file system gone read-only): one
    error line for the write, one warning naming the folder left behind, no traceback."""
    script = """
import sys
from flashtune import fileio
def fail(path, data, *, sync):
    if path.name == "ceph.conf":
        raise OSError(30, "Read-only file system")
    with open(path, "wb") as f:
        f.write(data)
def rmtree(path, ignore_errors=False):
    raise OSError(30, "Read-only file system")
fileio._write_new = fail
fileio.shutil.rmtree = rmtree  # (this child process only)
from flashtune.cli import compile as c
sys.exit(c.main(sys.argv[1:]))
"""
    out = tmp_path / "o"
    p = subprocess.run(
        [sys.executable, "-c", script, "--tier", "tco", "--workload", "block", "--out", str(out)],
        cwd=tmp_path,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr, p.stderr
    left = [x for x in tmp_path.iterdir() if x.name.startswith(".o.")]
    assert len(left) == 1, p.stderr
    assert f"{left[0]}: warning: could not remove" in p.stderr, p.stderr
    assert f"{out}: error: cannot write the output folder: read-only file system" in p.stderr

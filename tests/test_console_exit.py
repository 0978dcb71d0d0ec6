"""The installed commands end without the interpreter's teardown, and nothing a user sees changes.

pyproject.toml's console scripts call `console()` (main(), then flashtune.cli.common.exit_now) instead of
main(). Each test runs a console script as pip writes it, in a new process, next to the same script calling
main() (the ordinary exit: the reference), and compares what comes out: stdout through a pipe or into a file,
stderr, exit codes, a broken pipe, a full disk, a closed stdout; with Python's stdout buffered (a user's
default) and unbuffered (PYTHONUNBUFFERED, which some shells and CI set).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SCRIPTS: dict[str, str] = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
COMPILE = ["--tier", "iops", "--workload", "mysql"]


def _script(tmp: Path, name: str, *, entry: str | None = None, before: str = "") -> Path:
    """The console script pip generates for `name` (same text), or one calling `entry` of its module instead."""
    module, func = SCRIPTS[name].split(":")
    path = tmp / f"{name}-{entry or func}"
    path.write_text(
        f"#!{sys.executable}\nimport sys\n{before}from {module} import {entry or func}\n"
        f"if __name__ == '__main__':\n    sys.argv[0] = sys.argv[0].removesuffix('.exe')\n"
        f"    sys.exit({entry or func}())\n"
    )
    path.chmod(0o755)
    return path


def _env(*, buffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


def _run(cmd: list[str | Path], **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], text=True, timeout=120, check=False, **kw)


def test_the_installed_commands_call_the_entries_pyproject_names() -> None:
    # a stale .venv/bin script (written before pyproject changed) would still work, only slower: say so
    for name, target in SCRIPTS.items():
        module, func = target.split(":")
        assert func == "console", f"{name}: the console script should end without teardown (console())"
        text = (BIN / name).read_text()
        assert f"from {module} import {func}" in text, f"{BIN / name} is stale: run `pip install -e .`"


def test_the_console_entry_skips_teardown_and_main_does_not(tmp_path: Path) -> None:
    # an object that says when it is freed: the interpreter's teardown frees it, os._exit does not
    probe = (
        "class Probe:\n    def __del__(self):\n        sys.stderr.write('torn down\\n')\nprobe = Probe()\n"
    )
    fast = _script(tmp_path, "compile-config", before=probe)
    ordinary = _script(tmp_path, "compile-config", entry="main", before=probe)
    r = _run([fast, *COMPILE, "--out", tmp_path / "a"], capture_output=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert (tmp_path / "a" / "manifest.json").is_file()
    r = _run([ordinary, *COMPILE, "--out", tmp_path / "b"], capture_output=True)
    assert r.returncode == 0 and r.stderr == "torn down\n", r.stderr


def test_the_collector_stays_off_to_the_end(tmp_path: Path) -> None:
    # compile-config's console entry leaves the garbage collector off: turned back on, its first pass would
    # scan every object the compile made just before the process ends
    spy = (
        "import gc, os\nimport flashtune.cli.common as c\nexit_now = c.exit_now\n"
        "def spy(code):\n    os.write(2, b'collector on\\n' if gc.isenabled() else b'collector off\\n')\n"
        "    exit_now(code)\n"
        "c.exit_now = spy\n"
    )
    r = _run(
        [_script(tmp_path, "compile-config", before=spy), *COMPILE, "--out", tmp_path / "o"],
        capture_output=True,
    )
    assert r.returncode == 0 and r.stderr == "collector off\n", r.stderr
    # main() called in a process that goes on leaves the collector as it found it
    from flashtune.cli.compile import main

    assert gc.isenabled() and main([*COMPILE, "--out", str(tmp_path / "p")]) == 0 and gc.isenabled()


def test_atexit_handlers_still_run(tmp_path: Path) -> None:
    # something registered to run at exit (coverage, ingest's worker pool) gets the ordinary exit
    fast = _script(tmp_path, "compile-config", before="import atexit\natexit.register(print, 'atexit ran')\n")
    r = _run([fast, *COMPILE, "--out", tmp_path / "o"], capture_output=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.endswith("atexit ran\n") and str(tmp_path / "o" / "ceph.conf") in r.stdout


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("into", ["pipe", "file"])
def test_output_is_complete_piped_or_redirected(tmp_path: Path, buffered: bool, into: str) -> None:
    outputs = []
    for entry in ("console", "main"):
        out = tmp_path / f"o-{entry}"
        cmd = [_script(tmp_path, "compile-config", entry=entry), *COMPILE, "--out", out, "--explain"]
        if into == "pipe":
            r = _run(cmd, capture_output=True, env=_env(buffered=buffered))
            stdout = r.stdout
        else:
            with (tmp_path / f"stdout-{entry}").open("w") as f:
                r = _run(cmd, stdout=f, stderr=subprocess.PIPE, env=_env(buffered=buffered))
            stdout = (tmp_path / f"stdout-{entry}").read_text()
        assert r.returncode == 0, r.stderr
        # the list of written files, then explain.md (27 kB: more than one buffer's worth), all of it
        explain = (out / "explain.md").read_text()
        assert len(explain) > 8192 and stdout.endswith("\n" + explain + "\n")
        listed = stdout[: -len(explain) - 1].split()
        assert sorted(listed) == sorted(str(p) for p in out.rglob("*") if p.is_file() and p.name[0] != ".")
        outputs.append(stdout.replace(str(out), "OUT"))
    assert outputs[0] == outputs[1]


def test_json_output_is_complete_through_a_pipe(tmp_path: Path) -> None:
    fast = _script(tmp_path, "compile-config")
    r = _run([fast, *COMPILE, "--out", tmp_path / "o", "--format", "json"], capture_output=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)  # the whole document: a truncated one would not parse
    assert doc["manifest"] == json.loads((tmp_path / "o" / "manifest.json").read_text())


def _broken_pipe(cmd: list[str | Path], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    read, write = os.pipe()
    os.close(read)  # nobody reads: writing to it fails with EPIPE
    try:
        return _run(cmd, stdout=write, stderr=subprocess.PIPE, env=env)
    finally:
        os.close(write)


def _full_disk(cmd: list[str | Path], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    with open("/dev/full", "w") as full:  # every write fails with ENOSPC
        return _run(cmd, stdout=full, stderr=subprocess.PIPE, env=env)


def _closed(cmd: list[str | Path], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return _run(cmd, stderr=subprocess.PIPE, env=env, preexec_fn=lambda: os.close(1))


def _frameless(stderr: str) -> str:
    """stderr without a traceback's frames (the console entry adds one); the exception lines stay."""
    return "".join(line for line in stderr.splitlines(True) if not line.startswith(("  ", "Traceback")))


Stdout = Callable[[list[str | Path], dict[str, str]], subprocess.CompletedProcess[str]]


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("stdout", [_broken_pipe, _full_disk, _closed], ids=["broken-pipe", "full", "closed"])
def test_a_failing_stdout_ends_as_it_did(tmp_path: Path, stdout: Stdout, buffered: bool) -> None:
    seen = []
    for entry in ("console", "main"):
        out = tmp_path / f"o-{entry}"
        r = stdout(
            [_script(tmp_path, "compile-config", entry=entry), *COMPILE, "--out", out],
            _env(buffered=buffered),
        )
        assert (out / "manifest.json").is_file()  # the files are written whatever happens to stdout
        seen.append((r.returncode, _frameless(r.stderr)))
    assert seen[0] == seen[1]
    if stdout is _broken_pipe and buffered:  # Python's own report when the last flush fails
        assert seen[0] == (120, seen[0][1]) and "BrokenPipeError" in seen[0][1]


@pytest.mark.parametrize(
    ("name", "args", "code"),
    [
        ("compile-config", COMPILE, 0),
        ("compile-config", ["--tier", "iops", "--workload", "nope"], 2),  # argparse
        ("compile-config", [*COMPILE, "--ec", "1+1"], 2),  # a UsageError
        ("lint-config", ["ceph.conf"], 1),  # error-level findings
        ("lint-config", ["no-such-file.conf"], 2),  # unreadable input
        ("flashtune", ["knob", "osd_memory_target"], 0),
        ("flashtune", ["knob", "osd_memory_targt"], 2),  # with a suggestion
        ("flashtune", [], 2),  # prints the help
    ],
)
def test_exit_codes_and_messages_are_unchanged(tmp_path: Path, name: str, args: list[str], code: int) -> None:
    (tmp_path / "ceph.conf").write_text("[osd]\nbluestore_cache_size = banana\n")
    seen = []
    for entry in ("console", "main"):
        extra = ["--out", f"o-{entry}"] if name == "compile-config" else []
        r = _run([_script(tmp_path, name, entry=entry), *args, *extra], capture_output=True, cwd=tmp_path)
        seen.append((r.returncode, r.stdout.replace(f"o-{entry}", "OUT"), r.stderr))
    assert seen[0] == seen[1]
    assert seen[0][0] == code and "Traceback" not in seen[0][2], seen[0]

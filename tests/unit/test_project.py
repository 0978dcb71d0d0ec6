"""The project's skeleton: packaging, the two README commands, CI wiring, the CLI contract."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[; ]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_cli_needs_only_a_yaml_parser_and_the_rest_are_extras() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert {_name(r) for r in project["dependencies"]} == {"pyyaml"}
    extras = project["optional-dependencies"]
    names = {k: {_name(r) for r in v} for k, v in extras.items()}
    assert {"pandas", "numpy"} <= names["ingest"]
    assert {"jupyterlab", "altair", "papermill"} <= names["notebooks"]
    assert "jupyter-book" in names["book"] and "flashtune" in names["book"]  # book = notebooks + jupyter-book
    test = {r.replace(" ", "") for r in extras["test"]}
    assert "flashtune[ingest,notebooks,book,s3]" in test  # make test installs everything
    assert names["s3"] == {"boto3"}  # flashtune prove's S3 probes
    assert {"pytest", "ruamel.yaml", "pyparsing", "nbval"} <= names["test"]
    # environment.yml (conda, Binder) installs this checkout with every extra instead of restating the lists
    env = YAML(typ="safe").load((REPO / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert pip == ["-e .[test]"]


def test_ci_runs_the_readme_test_command() -> None:
    readme = (REPO / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", readme, re.S)
    assert block, "README has no command block"
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.strip()]
    assert commands == ["make run", "make test"]
    ci = (REPO / ".ci" / "run").read_text()
    assert "make test" in ci.split("\n", 2)[-1]


def test_compile_config_writes_the_four_files(tmp_path: Path) -> None:
    out = tmp_path / "o"
    r = subprocess.run(
        [BIN / "compile-config", "--tier", "iops", "--workload", "mysql", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    written = {Path(line).name for line in r.stdout.split()}
    assert written >= {"ceph.conf", "sysctl.conf", "my.cnf", "cbt.yaml"}  # + OS files, explain.md, manifest
    assert "[global]" in (out / "ceph.conf").read_text()
    # a second run refuses to clobber, and leaves the files as they were
    before = (out / "ceph.conf").read_bytes()
    r2 = subprocess.run(
        [BIN / "compile-config", "--tier", "iops", "--workload", "mysql", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert r2.returncode == 2
    assert "--force" in r2.stderr and "Traceback" not in r2.stderr
    assert (out / "ceph.conf").read_bytes() == before


def test_compile_config_does_not_import_the_notebook_stack() -> None:
    code = (
        "import sys; from flashtune.cli import compile as c; "
        "bad=[m for m in ('pandas','altair','jupyter_core','nbformat','IPython') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == ""


def test_bad_hardware_file_gives_file_line_and_no_traceback(tmp_path: Path) -> None:
    hw = tmp_path / "hw.yaml"
    hw.write_text("name: mine\nnode:\n  cores: many\n  ram_gib: 64\n  nics: [{count: 1, speed_gbps: 25}]\n")
    r = subprocess.run(
        [BIN / "compile-config", "--hardware", str(hw), "--workload", "block", "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2
    assert f"{hw}:3" in r.stderr and "hint:" in r.stderr
    assert "Traceback" not in r.stderr


def test_nothing_in_the_repository_points_at_the_original_sources_folder() -> None:
    """A user's clone and a pip install have no folder beside the repository: nothing may refer to one."""
    needles = ("../" + "shared", 'parent / "' + 'shared"')  # split: this file must not match itself
    files = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    pointing = []
    for name in files:
        try:
            text = (REPO / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        found = [n for n in needles if n in text.replace("'", '"')]
        the_fixture = name == "tests/conftest.py" and found == [needles[1]]  # the `shared` fixture may look
        if found and not the_fixture:
            pointing.append(name)
    assert pointing == []


def test_python_sources_are_left_to_the_formatter() -> None:
    """No hand-packed lines hidden from `ruff format`: no skip/off markers, and the formatter changes nothing."""
    marker = re.compile(r"#\s*fmt:\s*(skip|off)\b")
    files = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    marked = [n for n in files if marker.search((REPO / n).read_text(encoding="utf-8"))]
    assert marked == []
    check = subprocess.run(
        [str(BIN / "ruff"), "format", "--check", "compiler", "tests", "bench", "scripts", "notebooks"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr


# The installed commands as pip writes them (console scripts calling each CLI's main()): what a user runs.
SCRIPTS: dict[str, str] = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
COMPILE = ["--tier", "iops", "--workload", "mysql"]


def _env(*, buffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:  # some shells and CI set it
        env["PYTHONUNBUFFERED"] = "1"
    return env


def _run(cmd: list[str | Path], **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], text=True, timeout=120, check=False, **kw)


def test_the_installed_commands_call_each_cli_main() -> None:
    for name, target in SCRIPTS.items():
        module, func = target.split(":")
        assert func == "main", name
        text = (BIN / name).read_text()  # a stale .venv/bin script would run an entry that is gone
        assert f"from {module} import {func}" in text, f"{BIN / name} is stale: run `pip install -e .`"


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("into", ["pipe", "file"])
def test_output_is_complete_piped_or_redirected(tmp_path: Path, buffered: bool, into: str) -> None:
    out = tmp_path / "o"
    cmd = [BIN / "compile-config", *COMPILE, "--out", out, "--explain"]
    if into == "pipe":
        r = _run(cmd, capture_output=True, env=_env(buffered=buffered))
        stdout = r.stdout
    else:
        with (tmp_path / "stdout").open("w") as f:
            r = _run(cmd, stdout=f, stderr=subprocess.PIPE, env=_env(buffered=buffered))
        stdout = (tmp_path / "stdout").read_text()
    assert r.returncode == 0, r.stderr
    # the list of written files, then explain.md (more than one buffer's worth), all of it
    explain = (out / "explain.md").read_text()
    assert len(explain) > 8192 and stdout.endswith("\n" + explain + "\n")
    listed = stdout[: -len(explain) - 1].split()
    assert sorted(listed) == sorted(str(p) for p in out.rglob("*") if p.is_file() and p.name[0] != ".")


def test_json_output_is_complete_through_a_pipe(tmp_path: Path) -> None:
    r = _run(
        [BIN / "compile-config", *COMPILE, "--out", tmp_path / "o", "--format", "json"], capture_output=True
    )
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


Stdout = Callable[[list[str | Path], dict[str, str]], subprocess.CompletedProcess[str]]
STDOUT_MESSAGES = {
    _broken_pipe: "",  # the reader went away (`| head`): nothing to tell it
    _full_disk: "error: cannot write the output: No space left on device\n",
    _closed: "error: cannot write the output: standard output is closed\n",
}


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("stdout", list(STDOUT_MESSAGES), ids=["broken-pipe", "full", "closed"])
@pytest.mark.parametrize("name", ["compile-config", "flashtune"])
def test_output_that_cannot_be_written_fails_in_one_line(
    tmp_path: Path, stdout: Stdout, buffered: bool, name: str
) -> None:
    out = tmp_path / "o"
    args = [*COMPILE, "--out", out] if name == "compile-config" else ["knob", "osd_memory_target"]
    r = stdout([BIN / name, *args], _env(buffered=buffered))
    assert (r.returncode, r.stderr) == (2, STDOUT_MESSAGES[stdout])
    if name == "compile-config":
        assert (out / "manifest.json").is_file()  # the files are written whatever happens to stdout


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
def test_exit_codes_and_no_traceback(tmp_path: Path, name: str, args: list[str], code: int) -> None:
    (tmp_path / "ceph.conf").write_text("[osd]\nbluestore_cache_size = banana\n")
    extra = ["--out", "o"] if name == "compile-config" else []
    r = _run([BIN / name, *args, *extra], capture_output=True, cwd=tmp_path)
    assert r.returncode == code and "Traceback" not in r.stderr, r.stderr
    if code == 2 and args:
        assert "error:" in r.stderr and ("hint:" in r.stderr or "fix:" in r.stderr), r.stderr


def test_the_unit_tier_needs_no_real_program() -> None:
    """`make check` runs tests/unit alone, so a test there must not start a daemon or a real program: those
    carry a marker and live in tests/real/ (or tests/notebooks/, tests/book/)."""
    tests = REPO / "tests"
    assert not list(tests.glob("test_*.py")), "a test file outside the tier folders"
    real = re.compile(r"pytest\.mark\.(ceph|mariadb|kernel|fio|browser)\b|\b(ceph_lab|mariadb_server)\b")
    for path in sorted((tests / "unit").glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        assert not real.search(path.read_text()), f"{path.name} uses a real component: move it to tests/real/"
    make = (REPO / "Makefile").read_text()
    check = make[make.index("\ncheck:") :].split("\n\n")[0]
    assert "pytest tests/unit" in check and "mypy" in check and "ruff format --check" in check

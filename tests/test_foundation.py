"""The project's skeleton: packaging, the two README commands, CI wiring, the CLI contract."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[1]
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
    assert "flashtune[ingest,notebooks,book]" in test  # make test installs everything
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

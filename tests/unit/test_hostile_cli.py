"""A user is never left guessing by the command line itself: output that cannot be written (a full disk, a
closed standard output) is one error and exit 2 in every command, --help and --version included; the CLIs
agree (--version on each, the same choices for the same option); `-` is standard input or output where it
makes sense and a refusal elsewhere, never a file called `-`. Each case runs the real CLI in a child process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.hostile import FIO_JSON, REPO, check, child_env, ingest, run

TIER = REPO / "data" / "tiers" / "iops.yaml"

COMMANDS = {
    "compile": ("flashtune.cli.compile", "--tier", "iops", "--workload", "block", "--out", "{tmp}/o"),
    "compile --help": ("flashtune.cli.compile", "--help"),
    "compile --version": ("flashtune.cli.compile", "--version"),
    "lint": ("flashtune.cli.lint", str(TIER)),
    "lint --help": ("flashtune.cli.lint", "--help"),
    "lint --version": ("flashtune.cli.lint", "--version"),
    "knob": ("flashtune.cli.main", "knob", "osd_op_num_shards"),
    "knob --help": ("flashtune.cli.main", "knob", "--help"),
    "flashtune --version": ("flashtune.cli.main", "--version"),
    "ingest": ("flashtune.cli.main", "ingest", str(FIO_JSON)),
    "ingest --out -": ("flashtune.cli.main", "ingest", str(FIO_JSON), "--out", "-"),
    "envelope": ("flashtune.cli.main", "envelope"),
    "envelope --validation": ("flashtune.cli.main", "envelope", "--validation"),
}


@pytest.mark.parametrize("where", ["/dev/full", "closed"])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_output_that_cannot_be_written_is_one_error_in_every_command(
    tmp_path: Path, name: str, where: str
) -> None:
    module, *args = COMMANDS[name]
    args = [a.format(tmp=tmp_path) for a in args]
    if where == "closed":
        r = run(module, *args, cwd=tmp_path, mem_mib=3072, stdout=None, close_stdout=True)
        says = "standard output is closed"
    else:
        with open("/dev/full", "wb") as full:
            r = run(module, *args, cwd=tmp_path, mem_mib=3072, stdout=full)
        says = "No space left on device"
    check(r, rc=2, says=f"error: cannot write the output: {says}")
    assert "Exception ignored" not in r.err, r.err


@pytest.mark.parametrize(
    ("module", "prog"),
    [
        ("flashtune.cli.compile", "compile-config"),
        ("flashtune.cli.lint", "lint-config"),
        ("flashtune.cli.main", "flashtune"),
    ],
)
def test_every_cli_has_version(tmp_path: Path, module: str, prog: str) -> None:
    from flashtune import __version__

    r = run(module, "--version", cwd=tmp_path)
    check(r, rc=0)
    assert r.out == f"{prog} {__version__}\n"


def _choices(module: str, *sub: str, option: str) -> list[str]:
    """The choices an option's --help lists ({a,b,c})."""
    r = run(module, *sub, "--help", cwd=REPO, env=child_env(COLUMNS="400"))
    check(r, rc=0)
    import re

    m = re.search(rf"{re.escape(option)} \{{([^}}]+)\}}", r.out)
    assert m, (option, r.out[:2000])
    return m.group(1).split(",")


def test_the_same_option_has_the_same_choices_in_every_command() -> None:
    tiers = _choices("flashtune.cli.compile", option="--tier")
    assert tiers == _choices("flashtune.cli.main", "envelope", option="--tier")
    assert tiers == _choices("flashtune.cli.main", "prove", option="--tier")
    assert _choices("flashtune.cli.compile", option="--workload") == _choices(
        "flashtune.cli.main", "prove", option="--workload"
    )
    assert _choices("flashtune.cli.compile", option="--ceph-release") == _choices(
        "flashtune.cli.main", "prove", option="--ceph-release"
    )
    for module, *sub in (
        ("flashtune.cli.compile",),
        ("flashtune.cli.lint",),
        ("flashtune.cli.main", "knob"),
        ("flashtune.cli.main", "envelope"),
        ("flashtune.cli.main", "ingest"),
    ):
        assert {"text", "json"} <= set(_choices(module, *sub, option="--format")), (module, sub)


def test_ingest_names_its_input_kind_as_lint_config_does() -> None:
    """--kind is what wrote (or what is) the input in lint-config and ingest; --format is what to print. Its
    choices are the readers' own kinds (ingest.sniff.FORMATS, 'directory' aside)."""
    from flashtune.cli.ingest import KINDS
    from flashtune.ingest.sniff import FORMATS

    assert _choices("flashtune.cli.main", "ingest", option="--kind") == list(KINDS)
    assert set(KINDS) == set(FORMATS) - {"directory"}
    assert _choices("flashtune.cli.lint", option="--kind")


def test_ingest_reads_standard_input(tmp_path: Path) -> None:
    """`flashtune ingest -` reads one result from standard input, named <stdin> in rows and messages, in
    both print formats; an old `--format fio-json` is told about --kind; - twice is refused."""
    with FIO_JSON.open("rb") as f:
        r = ingest("-", "--out", "-", cwd=tmp_path, stdin=f)
    check(r, rc=0)
    assert r.out.startswith("source,tool,format,") and r.out.count("\n<stdin>,fio,") == 42, r.out[:500]
    assert "standard output: 42 rows" in r.err
    with FIO_JSON.open("rb") as f:
        r = ingest("--format", "json", "-", cwd=tmp_path, stdin=f)
    check(r, rc=0)
    doc = json.loads(r.out)
    assert doc["rows"] == 42 and doc["sources"] == [{"source": "<stdin>", "format": "fio-json", "rows": 42}]
    with FIO_JSON.open("rb") as f:
        r = ingest("--kind", "ior", "-", cwd=tmp_path, stdin=f)
    check(r, where="<stdin>:1: error: this is not IOR output")
    r = ingest("--format", "fio-json", FIO_JSON, cwd=tmp_path)
    check(r, says="pass --kind fio-json (--format is what to print: text or json)")
    r = ingest("-", "-", cwd=tmp_path)
    check(r, says="standard input (-) is named more than once")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args",
    [
        ("flashtune.cli.compile", "--tier", "iops", "--workload", "block", "--out", "-"),
        ("flashtune.cli.compile", "--workload", "block", "--hardware", "-", "--out", "o"),
        ("flashtune.cli.compile", "--tier", "iops", "--workload", "block", "--against", "-", "--out", "o"),
        ("flashtune.cli.main", "envelope", "--hardware", "-"),
        ("flashtune.cli.main", "envelope", "--results", "-"),
        ("flashtune.cli.main", "prove", "--out", "-", "--dry-run"),
    ],
)
def test_dash_is_refused_where_standard_input_or_output_makes_no_sense(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    module, *rest = args
    r = run(module, *rest, cwd=tmp_path, mem_mib=3072)
    check(r, says="'-' (standard input or output) is not taken here")
    assert not (tmp_path / "-").exists() and not (tmp_path / "o").exists()


def test_dash_is_standard_output_for_ingest_and_standard_input_for_lint(tmp_path: Path) -> None:
    r = ingest(FIO_JSON, "--out", "-", cwd=tmp_path)
    check(r, rc=0)
    assert r.out.startswith("source,tool,format,") and r.out.count("\n") == 43
    assert "standard output: 42 rows" in r.err
    assert not (tmp_path / "-").exists()
    p = subprocess.run(
        [sys.executable, "-m", "flashtune.cli.lint", "--kind", "sysctl.conf", "-"],
        input="vm.swappiness = banana\n",
        capture_output=True,
        text=True,
        env=child_env(),
        cwd=tmp_path,
    )
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert p.stdout.startswith("<stdin>:1:"), p.stdout

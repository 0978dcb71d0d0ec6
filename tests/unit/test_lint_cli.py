"""lint-config as a user runs it: output format, JSON, exit codes, bad input (never a traceback)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from flashtune.yamlio import load_yaml
from support.linting import lint_cli

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "tests" / "fixtures" / "seed-configs"


def test_text_output_and_exit_1_on_errors() -> None:
    r = lint_cli(SEEDS / "000-kernel-sysctl.conf")
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    first = lines[0].split(" ", 3)
    path, line, col = first[0].rstrip(":").rsplit(":", 2)
    assert Path(path).name == "000-kernel-sysctl.conf" and int(line) >= 1 and int(col) >= 1
    assert first[1] in ("error", "warning", "info") and first[2].startswith("FT")
    assert lines[1].startswith("  fix: ")
    assert "Traceback" not in r.stderr


def test_json_output_fields() -> None:
    r = lint_cli("--format", "json", SEEDS / "000-my.cnf")
    assert r.returncode == 1
    items = json.loads(r.stdout)
    assert {"file", "line", "column", "severity", "code", "key", "message", "suggestion"} <= set(items[0])
    assert any(i["key"] == "innodb_checksums" and i["severity"] == "error" for i in items)


def test_clean_file_exits_0(tmp_path: Path) -> None:
    p = tmp_path / "ceph.conf"
    p.write_text(
        "[global]\nfsid = 35b08d01-b688-4b9a-947b-bc2e25719370\nmon_host = 127.0.0.1\n[osd]\nosd_memory_target = 8G\n"
    )
    r = lint_cli(p)
    assert (r.returncode, r.stdout) == (0, "")


def test_warnings_only_exit_0(tmp_path: Path) -> None:
    p = tmp_path / "90-ceph.conf"
    p.write_text("net.ipv4.ip_local_port_range = 1024 65000\n")
    r = lint_cli("--kind", "sysctl.conf", p)
    assert r.returncode == 0 and "FT605" in r.stdout


def test_options_change_the_verdict(tmp_path: Path) -> None:
    p = tmp_path / "x.conf"
    p.write_text("[osd]\nosd_op_threads = 8\n")
    assert lint_cli("--kind", "ceph.conf", "--ceph-release", "tentacle", p).returncode == 1
    assert lint_cli("--kind", "ceph.conf", "--ceph-release", "jewel", p).returncode == 0
    q = tmp_path / "my.cnf"
    q.write_text("[mysqld]\nquery_cache_size = 16M\n")
    assert lint_cli("--mysql", "mariadb-10.11", q).returncode == 0
    assert lint_cli("--mysql", "mysql-8.0", q).returncode == 1


def _bad_inputs(tmp: Path) -> dict[str, Path]:
    files = {
        "missing": tmp / "nope.conf",
        "non-utf8": tmp / "latin1.conf",
        "binary": tmp / "blob.conf",
        "directory": tmp,
    }
    files["non-utf8"].write_bytes(b"[global]\nfoo = caf\xe9\n")
    files["binary"].write_bytes(b"\x7fELF\x00\x01\x02")
    return files


@pytest.mark.parametrize("case", ["missing", "non-utf8", "binary", "directory"])
def test_unreadable_input_exits_2_with_a_message(case: str, tmp_path: Path) -> None:
    path = _bad_inputs(tmp_path)[case]
    r = lint_cli("--kind", "ceph.conf", path)
    assert r.returncode == 2
    assert "error:" in r.stderr and "Traceback" not in r.stderr


def test_usage_errors_exit_2() -> None:
    assert lint_cli().returncode == 2
    assert lint_cli("--ceph-release", "argonaut", "x").returncode == 2
    r = lint_cli("--kind", "nginx", "x")
    assert r.returncode == 2 and "hint" in r.stderr


def test_unknown_kind_cannot_be_guessed(tmp_path: Path) -> None:
    p = tmp_path / "settings.txt"
    p.write_text("hello world\n")
    r = lint_cli(p)
    assert r.returncode == 2 and "--kind" in r.stderr


def test_empty_and_syntax_broken_files(tmp_path: Path) -> None:
    e = tmp_path / "empty.conf"
    e.write_text("")
    assert lint_cli("--kind", "ceph.conf", e).returncode == 0
    y = tmp_path / "plan.yaml"
    y.write_text("")
    r = lint_cli(y)
    assert r.returncode == 1 and "FT701" in r.stdout
    b = tmp_path / "ceph.conf"
    b.write_text("[global\nfoo = 1\n")
    r = lint_cli(b)
    assert r.returncode == 1 and ":1:" in r.stdout and "FT001" in r.stdout


@pytest.mark.slow
def test_huge_and_deeply_nested_inputs(tmp_path: Path) -> None:
    huge = tmp_path / "huge.conf"
    with huge.open("wb") as f:  # just over the 64 MiB read limit, written sparsely
        f.truncate(64 * 1024 * 1024 + 1)
    r = lint_cli("--kind", "ceph.conf", huge)
    assert r.returncode == 2 and "bytes" in r.stderr
    deep = tmp_path / "deep.yaml"
    deep.write_text("a: " + "[" * 20000 + "]" * 20000 + "\n")
    r = lint_cli(deep)
    assert r.returncode == 1 and "FT001" in r.stdout and "Traceback" not in r.stderr


def test_cli_does_not_import_the_notebook_stack() -> None:
    code = (
        "import sys; from flashtune.cli.lint import main; "
        f"rc = main(['--kind', 'ceph.conf', {str(SEEDS / '000-sample-ceph.conf')!r}]); "
        "heavy = sorted(m for m in ('pandas', 'altair', 'jupyter_core', 'nbformat', 'numpy') if m in sys.modules); "
        "print('HEAVY', heavy)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert "HEAVY []" in r.stdout, r.stdout[-300:] + r.stderr[-300:]


def test_repeated_findings_are_grouped(tmp_path: Path) -> None:
    for i in range(4):
        (tmp_path / f"ceph{i}.conf").write_text("[osd]\nfilestore_max_sync_interval = 10\n")
    r = lint_cli(*sorted(tmp_path.glob("*.conf")))
    assert len([ln for ln in r.stdout.splitlines() if "FT401" in ln]) == 1
    assert "same in 3 more place(s)" in r.stdout
    r = lint_cli("--no-group", *sorted(tmp_path.glob("*.conf")))
    assert len([ln for ln in r.stdout.splitlines() if "FT401" in ln]) == 4


def test_ci_formats(tmp_path: Path) -> None:
    p = tmp_path / "ceph.conf"
    p.write_text("[osd]\nosd_max_backfill = 1\n")
    log = json.loads(lint_cli("--format", "sarif", p).stdout)
    assert log["version"] == "2.1.0" and log["runs"][0]["results"][0]["ruleId"] == "FT101"
    line = lint_cli("--format", "github", p).stdout.strip()
    assert re.fullmatch(rf"::error file={re.escape(str(p))},line=2,col=1,title=FT101 unknown-key::.*", line)


def test_pre_commit_hook() -> None:
    hooks = load_yaml(REPO / ".pre-commit-hooks.yaml")
    hook = hooks[0]
    assert hook["id"] == "lint-config" and hook["entry"] == "lint-config"
    pattern = re.compile(hook["files"])
    for name in ("etc/ceph/ceph.conf", "my.cnf", "etc/sysctl.d/90-ceph.conf", "cbt-plan.yaml"):
        assert pattern.search(name), name
    assert not pattern.search("README.md")

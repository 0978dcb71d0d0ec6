"""JSON that is valid but hostile (nested 100,000 deep, a 5,000-digit integer, millions of values) in every
command that reads JSON: one clean `file:line:col: error` each, no traceback, memory bounded.

The inputs are kept in tests/fixtures/hostile/; each command runs as a child process under limits.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.hostile import FIXTURES, check, compile_config, ingest, run

CASES = {
    "deep": ("nested more than 500 levels deep", "ceph-dump-deep.json", "fio-deep.json"),
    "digits": ("an integer of 5000 digits", "ceph-dump-5000-digits.json", "fio-5000-digits.json"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_lint_config_reads_hostile_json_cleanly(tmp_path: Path, case: str) -> None:
    says, dump, _ = CASES[case]
    for kind in ((), ("--kind", "ceph-config.json")):  # detected from content, and named
        r = run("flashtune.cli.lint", *kind, FIXTURES / dump, cwd=tmp_path, mem_mib=512)
        check(r, where=f"{FIXTURES / dump}: error", says=says)


@pytest.mark.parametrize("case", list(CASES))
def test_compile_config_against_hostile_json(tmp_path: Path, case: str) -> None:
    says, dump, _ = CASES[case]
    out = tmp_path / "o"
    r = compile_config("--against", FIXTURES / dump, "--out", out, cwd=tmp_path, mem_mib=512)
    check(r, where=f"{FIXTURES / dump}:1:", says=says)
    assert not out.exists()


@pytest.mark.parametrize("case", list(CASES))
def test_ingest_reads_hostile_fio_json_cleanly(tmp_path: Path, case: str) -> None:
    says, _, fio = CASES[case]
    r = ingest(FIXTURES / fio, cwd=tmp_path)
    check(r, where=f"{FIXTURES / fio}:3:", says=says)
    assert "0 input(s) read, 0 skipped, 1 bad" in r.out


def test_a_hostile_manifest_in_the_output_folder(tmp_path: Path) -> None:
    """--force asks whether the folder is an earlier output by reading its manifest.json: the user's file."""
    out = tmp_path / "o"
    out.mkdir()
    (out / "manifest.json").write_bytes((FIXTURES / "fio-deep.json").read_bytes())
    r = compile_config("--out", out, "--force", cwd=tmp_path)
    check(r, where=f"{out}: error", says="not a flashtune output folder")


def test_millions_of_values_are_refused_before_decoding(tmp_path: Path) -> None:
    """64 MiB less a little of `[],`: 22 million lists, over a GiB decoded; refused at the count."""
    f = tmp_path / "dump.json"
    n = (64 * (1 << 20) - 16) // 3
    f.write_text("[" + "[]," * (n - 1) + "[]]")
    r = run("flashtune.cli.lint", "--kind", "ceph-config.json", f, cwd=tmp_path, mem_mib=768)
    check(r, where=f"{f}: error", says="JSON values")
    assert r.peak_mib < 400, r.peak_mib

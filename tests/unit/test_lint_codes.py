"""The lint codes table (data/lint/codes.yaml): each code's failing example reports it, its passing example
does not, every code the linter can emit is in the table and every code in the table is emitted somewhere."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from flashtune.cli.lint import lint_paths
from flashtune.lint import lint_text
from flashtune.lint.codes import lint_codes
from flashtune.lint.findings import Finding
from flashtune.releases import DEFAULT_CEPH_RELEASE

REPO = Path(__file__).resolve().parents[2]
CODES = lint_codes()


def run_example(ex: dict[str, Any], tmp_path: Path) -> list[Finding]:
    release = str(ex.get("ceph_release", DEFAULT_CEPH_RELEASE))
    flavour = ex.get("mysql_flavour")
    context = dict(ex.get("context") or {})
    if "raw" in ex or ex.get("detect"):
        path = tmp_path / str(ex.get("name", "input.conf"))
        if "raw" in ex:
            path.write_bytes(str(ex["raw"]).encode("latin-1"))
        else:
            path.write_text(str(ex["text"]), encoding="utf-8")
        kind = None if ex.get("detect") else str(ex["kind"])
        return lint_paths([str(path)], kind, ceph_release=release, mysql_flavour=flavour, context=context)
    return lint_text(
        str(ex["text"]), str(ex["kind"]), ceph_release=release, mysql_flavour=flavour, context=context
    )


@pytest.mark.parametrize("code", sorted(CODES))
def test_code_examples(code: str, tmp_path: Path) -> None:
    row = CODES[code]
    assert row.summary and row.doc and row.severity in ("error", "warning", "info")
    (tmp_path / "fail").mkdir()
    (tmp_path / "pass").mkdir()
    bad = run_example(row.fail, tmp_path / "fail")
    assert code in {f.code for f in bad}, f"{code}: failing example not reported: {bad}"
    hit = [f for f in bad if f.code == code]
    assert any(f.severity == row.severity for f in hit), (
        f"{code}: default severity {row.severity} not seen: {hit}"
    )
    good = run_example(row.passing, tmp_path / "pass")
    assert code not in {f.code for f in good}, f"{code}: passing example reported: {good}"


def emitted_codes() -> set[str]:
    """Codes written in the linter's source (a code only in the table would be declared but never emitted)."""
    found: set[str] = set()
    for path in [
        *(REPO / "compiler" / "flashtune" / "lint").glob("*.py"),
        REPO / "compiler/flashtune/cli/lint.py",
    ]:
        found |= set(re.findall(r'"(FT\d{3})"', path.read_text(encoding="utf-8")))
    rules = (REPO / "data" / "lint" / "rules.yaml").read_text(encoding="utf-8")
    found |= set(re.findall(r"code: (FT\d{3})", rules))  # codes the value_rules emit
    return found


def test_every_code_is_in_the_table_and_emitted() -> None:
    emitted = emitted_codes()
    assert emitted - set(CODES) == set(), "codes emitted but missing from the table"
    assert set(CODES) - emitted == set(), "codes in the table that nothing emits"


def test_book_page_lists_every_code() -> None:
    sys.path.insert(0, str(REPO / "scripts"))
    from bookgen import lint_pages

    page = lint_pages.page()
    for code, row in CODES.items():
        assert f"## {code} {row.name}" in page
        assert row.fail.get("text", "").split("\n")[0] in page

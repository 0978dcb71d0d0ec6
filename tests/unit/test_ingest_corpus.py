"""The real-output corpus (tests/corpus/manifest.yaml): every file is ingested and 2-3 of its numbers, read
from the raw file by hand (regexes/json over the raw text, see the manifest), must come back exactly, in
the schema's units. Files the tool version cannot give numbers for must be refused with a clear message.

`python tests/unit/test_ingest_corpus.py` prints the corpus table (tool x version: parsed right / refused / wrong).
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from flashtune.errors import FlashtuneError
from flashtune.ingest import COLUMN_NAMES, load

CORPUS = Path(__file__).parents[1] / "corpus"
MANIFEST = yaml.safe_load((CORPUS / "manifest.yaml").read_text())["files"]


def _select(df: Any, where: dict[str, Any]) -> Any:
    rows = df
    for col, want in where.items():
        if col == "time_s" and want is None:
            rows = rows[rows["time_s"].isna()]
        elif col == "time_s" and want == "set":
            rows = rows[rows["time_s"].notna()]
        else:
            rows = rows[rows[col] == want]
    return rows


def check_file(entry: dict[str, Any]) -> str:
    """'parsed', 'refused' or a description of what is wrong."""
    path = CORPUS / entry["file"]
    try:
        df = load(path)
    except FlashtuneError as e:
        if entry["expect"] != "refused":
            return f"wrong: refused ({e})"
        if e.file is None or not e.suggestion:
            return f"wrong: refusal without file or hint ({e})"
        missing = [c["error_contains"] for c in entry["checks"] if c["error_contains"] not in str(e)]
        return f"wrong: refusal does not say {missing}: {e}" if missing else "refused"
    if entry["expect"] == "refused":
        return "wrong: parsed, expected a refusal"
    if tuple(df.columns) != COLUMN_NAMES:
        return "wrong: columns differ from the schema"
    for c in entry["checks"]:
        if "unit_basis_contains" in c:
            bases = {str(b) for b in df["unit_basis"].dropna()}
            if not any(c["unit_basis_contains"] in b for b in bases):
                return f"wrong: unit_basis {bases} lacks {c['unit_basis_contains']!r}"
            continue
        if "na_columns" in c:
            known = [col for col in c["na_columns"] if df[col].notna().any()]
            if known:
                return f"wrong: the file does not say {known}, yet they have values"
            continue
        if "absent" in c:
            if len(_select(df, c["absent"])):
                return f"wrong: rows present for {c['absent']}"
            continue
        if "count_where" in c:
            n = len(_select(df, c["count_where"]))
            if n != c["equals"]:
                return f"wrong: {n} rows for {c['count_where']}, expected {c['equals']}"
            continue
        rows = _select(df, c["where"])
        col = c.get("column", "value")
        got = sorted({float(v) for v in rows[col].dropna()})
        if len(got) != 1:
            return f"wrong: {len(got)} distinct {col} for {c['where']}: {got[:5]}"
        if not math.isclose(got[0], float(c["value"]), rel_tol=c.get("rel", 1e-12), abs_tol=1e-12):
            return f"wrong: {col} {got[0]} for {c['where']}, expected {c['value']}"
    return "parsed"


def test_corpus_is_big_and_sourced() -> None:
    assert len(MANIFEST) >= 60
    for e in MANIFEST:
        assert (CORPUS / e["file"]).exists(), e["file"]
        assert e["repo"] and e["path"] and e["commit"], e["file"]
        assert e["checks"], f"{e['file']}: no hand-verified values"
        assert e["expect"] == "refused" or sum("where" in c or "count_where" in c for c in e["checks"]) >= 2
    tools = Counter(e["tool"] for e in MANIFEST)
    assert set(tools) == {"fio", "ior", "iozone", "sysbench", "rados-bench", "cbt", "s3-probe"}


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["file"] for e in MANIFEST])
def test_corpus_file(entry: dict[str, Any]) -> None:
    result = check_file(entry)
    assert result == entry["expect"], result


def table() -> str:
    cells: dict[tuple[str, str], Counter[str]] = {}
    for e in MANIFEST:
        r = check_file(e)
        cells.setdefault((e["tool"], str(e["version"])), Counter())[
            "wrong" if r.startswith("wrong") else r
        ] += 1
    lines = ["| tool | version | parsed right | clear refusal | wrong |", "| --- | --- | --- | --- | --- |"]
    for (tool, ver), c in sorted(cells.items()):
        lines.append(f"| {tool} | {ver} | {c['parsed']} | {c['refused']} | {c['wrong']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(table() + "\n")


def test_corpus_directory_walk() -> None:
    """The whole corpus as one directory: every result file is read, the README (which quotes tool output
    in prose) and the manifest are skipped, and only the files expected to be refused are errors."""
    from flashtune.ingest import collect

    got = collect([CORPUS])
    refused = {str(CORPUS / e["file"]) for e in MANIFEST if e["expect"] == "refused"}
    assert {e.file for e in got.errors} == refused
    assert {Path(s.path).name for s in got.skipped} == {"README.md", "manifest.yaml"}
    read = set(got.frame["source"])
    for e in MANIFEST:
        path = CORPUS / e["file"]
        if e["expect"] == "parsed":
            assert any(s == str(path) or s.startswith(f"{path}/") for s in read), e["file"]

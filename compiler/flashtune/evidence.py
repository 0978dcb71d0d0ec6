"""Evidence references ("<resource>/<id>") and the seed place each resolves to, for compile-config.

compile-config checks every reference a profile gives and lists, in manifest.json, where each one points in
the seeds. The data snapshot's build checks the whole data package (flashtune.datapackage: every table against
its schema) and writes each resource's row ids with their seed places to checked/evidence.json; a reference is
resolved from that.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from flashtune.datapackage import checked_tables
from flashtune.paths import data_dir, read_checked

# checked/evidence.json: resource name -> {row id: its PLACE cells in that order, "" where empty}
EVIDENCE = "evidence.json"
# The columns of a row that say where in the seeds it comes from (manifest.json lists the non-empty ones).
PLACE = ("seed_file", "section", "locator", "line_start", "line_end")


def place(ref: str) -> dict[str, str] | None:
    """The seed place of the row an evidence reference names (its non-empty PLACE cells; {} for a row
    without one), or None if it names no row."""
    resource, sep, row_id = ref.partition("/")
    rows = _places(data_dir()).get(resource) if sep and row_id else None
    cells = rows.get(row_id) if rows is not None else None
    return None if cells is None else {k: v for k, v in zip(PLACE, cells, strict=True) if v}


@cache
def _places(root: str) -> dict[str, dict[str, list[str]]]:
    """Every resource's row ids and their PLACE cells, for the data in use (root: its folder)."""
    places: dict[str, dict[str, list[str]]] = read_checked(EVIDENCE, checked_evidence)
    return places


def checked_evidence(folder: Path, label: str) -> dict[str, Any]:
    """Every table of the data package in folder, checked (raises DataError on the first problem), as the
    row ids of each resource with their PLACE cells: what the snapshot's build writes to checked/evidence.json.
    (The tables name their own files in messages: `label` is not needed.)"""
    return {
        name: {r["id"]: [r.get(k) or "" for k in PLACE] for r in rows if r.get("id")}
        for name, rows in checked_tables(folder).items()
    }

"""Evidence references ("<resource>/<id>") and the seed place each resolves to, for compile-config.

compile-config checks every reference a profile gives and lists, in manifest.json, where each one points in
the seeds. Asking flashtune.datapackage for that reads the package descriptor and validates whole tables
against their schemas (~10M instructions of a cold compile), yet the answer is fixed once the data snapshot is
built. So after the whole data package has passed every check, EVIDENCE_INDEX (a digest, flashtune.digests)
records each resource's row ids with their seed places, for the data it was checked with (datapackage.json
and tables/); while that matches, a reference is resolved from its resource's part. Without a matching index
(data read through FLASHTUNE_DATA, a read-only snapshot) flashtune.datapackage answers, checking tables as it
reads.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from flashtune import digests
from flashtune.pathnames import StrPath
from flashtune.paths import SNAPSHOT_DIR, compiled, data_dir

# Parts: resource name -> {row id: its PLACE cells in that order, "" where empty}.
EVIDENCE_INDEX = "evidence.index.jsonl"
# The columns of a row that say where in the seeds it comes from (manifest.json lists the non-empty ones).
PLACE = ("seed_file", "section", "locator", "line_start", "line_end")
_FORMAT = 2  # of the parts: change it when they change


def place(ref: str) -> dict[str, str] | None:
    """The seed place of the row an evidence reference names (its non-empty PLACE cells; {} for a row
    without one), or None if it names no row. A broken data file raises DataError."""
    root = data_dir()
    if _index(root) is None:
        from flashtune.datapackage import resolve

        row = resolve(ref)
        return None if row is None else {k: row[k] for k in PLACE if row.get(k)}
    resource, sep, row_id = ref.partition("/")
    rows = _rows(root, resource) if sep and row_id else None
    cells = rows.get(row_id) if rows is not None else None
    return None if cells is None else {k: v for k, v in zip(PLACE, cells, strict=True) if v}


@cache
def _rows(root: str, resource: str) -> dict[str, list[str]] | None:
    """A resource's row ids and their PLACE cells, from its part of the index (None: no such resource)."""
    index = _index(root)
    rows: dict[str, list[str]] | None = digests.part(index, resource) if index is not None else None
    return rows


def _stamps(snapshot: StrPath) -> dict[str, Any] | None:
    return digests.stamps(
        snapshot, ("datapackage.json", "tables/"), ("evidence.py", "datapackage.py"), _FORMAT
    )


@cache
def _index(root: str) -> digests.Digest | None:
    """The index for the data in root, else None (then flashtune.datapackage answers). A missing or stale
    index of the package's own snapshot (a source checkout) is written first."""
    if compiled(os.path.join(root, "datapackage.json")) is None:  # FLASHTUNE_DATA: the files as they are
        return None
    return digests.read_or_write(
        EVIDENCE_INDEX, _stamps(SNAPSHOT_DIR), lambda: write_index(SNAPSHOT_DIR, root)
    )


def write_index(snapshot: StrPath, source: StrPath | None = None) -> bool:
    """Check the snapshot's whole data package (raises DataError on the first problem), then write
    EVIDENCE_INDEX for it; False if the snapshot cannot be written (every compile then asks datapackage).
    source: the folder the snapshot mirrors (a checkout's data/), which error messages then name."""
    from flashtune.datapackage import checked_tables

    stamps = _stamps(snapshot)
    if stamps is None:
        return False
    tables = checked_tables(os.fspath(source or snapshot))
    parts = {
        name: {r["id"]: [r.get(k) or "" for k in PLACE] for r in rows if r.get("id")}
        for name, rows in tables.items()
    }
    return digests.write(os.path.join(snapshot, EVIDENCE_INDEX), stamps, parts)

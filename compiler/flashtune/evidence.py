"""Evidence references ("<resource>/<id>") and the seed place each resolves to, for compile-config.

compile-config checks every reference a profile gives and lists, in manifest.json, where each one points in
the seeds. Asking flashtune.datapackage for that reads the package descriptor and validates whole tables
against their schemas (~10M instructions of a cold compile), yet the answer is fixed once the data snapshot is
built. So after the whole data package has passed every check, EVIDENCE_INDEX records each resource's row ids
with their seed places, for the data it was checked with (the snapshot's CRCs of datapackage.json and
tables/); while those match, a reference is resolved from one line of it. Without a matching index (data
read through FLASHTUNE_DATA, a read-only snapshot) flashtune.datapackage answers, checking tables as it reads.
"""

from __future__ import annotations

import json
import os
from functools import cache

from flashtune.pathnames import StrPath
from flashtune.paths import SNAPSHOT_DIR, SOURCE_DATA, compiled, data_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Line 1: {"stamps": ..., "resources": {name: [start, end]}}, text[start:end] (after line 1) being that
# resource's {row id: its seed place}, one resource a line.
EVIDENCE_INDEX = "evidence.index.jsonl"
# The columns of a row that say where in the seeds it comes from (manifest.json lists the non-empty ones).
PLACE = ("seed_file", "section", "locator", "line_start", "line_end")
_FORMAT = 1


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
    return None if rows is None else rows.get(row_id)


@cache
def _rows(root: str, resource: str) -> dict[str, dict[str, str]] | None:
    """A resource's row ids and seed places, from its line of the index (None: no such resource)."""
    index = _index(root)
    span = index[1].get(resource) if index is not None else None
    if index is None or span is None:
        return None
    rows: dict[str, dict[str, str]] = json.loads(index[0][span[0] : span[1]])
    return rows


def _stamps(snapshot: StrPath) -> dict[str, Any] | None:
    """The data the index must have been written for: the snapshot's CRCs of the data package's files, the
    flashtune version, the index format and, for a source checkout's own snapshot, the checking code's size
    and mtime (it changes there without a new version)."""
    from flashtune import __version__
    from flashtune.snapshot import read_index

    index = read_index(snapshot)
    if index is None:
        return None
    files = {
        rel: stamp[2]
        for rel, stamp in index.get("sources", {}).items()
        if rel == "datapackage.json" or rel.startswith("tables/")
    }
    code: list[Any] = [_FORMAT]
    if os.fspath(snapshot) == SNAPSHOT_DIR and data_dir() == SOURCE_DATA:
        here = os.path.dirname(__file__)
        for name in ("evidence.py", "datapackage.py"):
            st = os.stat(os.path.join(here, name))
            code.append([st.st_size, st.st_mtime_ns])
    return {"flashtune": __version__, "files": files, "code": code}


@cache
def _index(root: str) -> tuple[str, dict[str, list[int]]] | None:
    """(text after the header, resource -> span) of a matching index for the data in root, else None (then
    flashtune.datapackage answers). A missing or stale index (a source checkout) is written first."""
    if compiled(os.path.join(root, "datapackage.json")) is None:  # FLASHTUNE_DATA: the files as they are
        return None
    stamps = _stamps(SNAPSHOT_DIR)
    if stamps is None:
        return None
    found = _read(SNAPSHOT_DIR, stamps)
    if found is None and os.access(SNAPSHOT_DIR, os.W_OK) and write_index(SNAPSHOT_DIR, root):
        found = _read(SNAPSHOT_DIR, stamps)
    return found


def _read(snapshot: str, stamps: dict[str, Any]) -> tuple[str, dict[str, list[int]]] | None:
    try:
        with open(os.path.join(snapshot, EVIDENCE_INDEX), encoding="utf-8") as f:
            text = f.read()
        end = text.index("\n")
        head = json.loads(text[:end])
    except (OSError, ValueError):
        return None
    if (
        not isinstance(head, dict)
        or head.get("stamps") != stamps
        or not isinstance(head.get("resources"), dict)
    ):
        return None
    return text[end + 1 :], head["resources"]


def write_index(snapshot: StrPath, source: StrPath | None = None) -> bool:
    """Check the snapshot's whole data package (raises DataError on the first problem), then write
    EVIDENCE_INDEX for it; False if the snapshot cannot be written (every compile then asks datapackage).
    source: the folder the snapshot mirrors (a checkout's data/), which error messages then name."""
    from flashtune.datapackage import checked_tables

    stamps = _stamps(snapshot)
    if stamps is None:
        return False
    tables = checked_tables(os.fspath(source or snapshot))
    spans: dict[str, list[int]] = {}
    lines: list[str] = []
    pos = 0
    for name, rows in tables.items():
        line = json.dumps(
            {r["id"]: {k: r[k] for k in PLACE if r.get(k)} for r in rows if r.get("id")},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        spans[name] = [pos, pos + len(line)]
        lines.append(line)
        pos += len(line) + 1
    text = "\n".join([json.dumps({"stamps": stamps, "resources": spans}, sort_keys=True), *lines]) + "\n"
    path = os.path.join(snapshot, EVIDENCE_INDEX)
    tmp = os.path.join(snapshot, f".{EVIDENCE_INDEX}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        import contextlib  # here: only a failed write needs it, and it costs every CLI start-up

        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        return False
    return True

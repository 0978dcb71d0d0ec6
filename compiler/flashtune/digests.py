"""Digests in the data snapshot: what a kind of data file yields once it has passed every check, stored so that
compile-config neither re-reads nor re-checks those files (flashtune.evidence, flashtune.compile.profiles).

A digest file is JSON lines: line 1 is the header, {"stamps": ..., "parts": {key: [start, end]}}, and each
following line one part (text[start:end] of the text after line 1), decoded only when that part is asked for.
The stamps say what it was made from: the snapshot's CRCs of the source files, the flashtune version, the
digest's format and, for a source checkout's own snapshot (where code changes without a new version), the size
and mtime of the modules that check and digest the files. A digest whose stamps differ is not used: it is
written afresh (after every check passed) or the files are read as they are.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from flashtune.pathnames import StrPath
from flashtune.paths import SNAPSHOT_DIR, SOURCE_DATA, data_dir

Digest = tuple[str, dict[str, list[int]]]  # the text after the header, and each part's span in it


def stamps(
    snapshot: StrPath, sources: tuple[str, ...], code: tuple[str, ...], fmt: int
) -> dict[str, Any] | None:
    """What a digest of the snapshot's files named `sources` (a name, or a folder ending in '/') must have
    been made from; `code`: the flashtune modules (paths in the package) that check and digest them. None:
    the snapshot has no index."""
    from flashtune import __version__
    from flashtune.snapshot import read_index

    index = read_index(snapshot)
    if index is None:
        return None
    folders = tuple(s for s in sources if s.endswith("/"))
    files = {
        rel: stamp[2]
        for rel, stamp in index.get("sources", {}).items()
        if rel in sources or rel.startswith(folders)
    }
    made_by: list[Any] = [fmt]
    if os.fspath(snapshot) == os.fspath(SNAPSHOT_DIR) and data_dir() == SOURCE_DATA:
        package = os.path.dirname(__file__)
        for name in code:
            st = os.stat(os.path.join(package, name))
            made_by.append([st.st_size, st.st_mtime_ns])
    return {"flashtune": __version__, "files": files, "code": made_by}


def read(path: StrPath, want: dict[str, Any]) -> Digest | None:
    """The digest file at path, if it was made for `want` (its stamps); else None."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        end = text.index("\n")
        head = json.loads(text[:end])
    except (OSError, ValueError):
        return None
    if not isinstance(head, dict) or head.get("stamps") != want or not isinstance(head.get("parts"), dict):
        return None
    return text[end + 1 :], head["parts"]


def read_or_write(name: str, want: dict[str, Any] | None, write_it: Callable[[], bool]) -> Digest | None:
    """The package snapshot's digest `name` for these stamps. In a source checkout a missing or stale one is
    written first by write_it (which checks the files and says whether it wrote); None where it cannot be."""
    if want is None:
        return None
    path = os.path.join(SNAPSHOT_DIR, name)
    found = read(path, want)
    if found is None and os.access(SNAPSHOT_DIR, os.W_OK) and write_it():
        found = read(path, want)
    return found


def part(digest: Digest, key: str) -> Any:
    """One part of a digest, decoded (None if it has no such part)."""
    text, spans = digest
    span = spans.get(key)
    return None if span is None else json.loads(text[span[0] : span[1]])


def write(path: StrPath, made_from: dict[str, Any], parts: dict[str, Any]) -> bool:
    """Write a digest of `parts` (key -> JSON-ready value); False if it cannot be written."""
    spans: dict[str, list[int]] = {}
    lines: list[str] = []
    pos = 0
    for key, value in parts.items():
        line = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        spans[key] = [pos, pos + len(line)]
        lines.append(line)
        pos += len(line) + 1
    head = json.dumps({"stamps": made_from, "parts": spans}, sort_keys=True)
    folder, name = os.path.split(os.fspath(path))
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join([head, *lines]) + "\n")
        os.replace(tmp, path)
    except OSError:
        if os.path.exists(tmp):
            os.unlink(tmp)
        return False
    return True

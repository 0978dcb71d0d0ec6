"""The data snapshot: data/ compiled to checked JSON when the package is built, which is what the CLIs read.

data/*.yaml is the authoring format (comments, anchors, readable diffs). Like Ceph's y2c.py, which turns its
options YAML into C++ at build time, the build writes flashtune/_data, a mirror of data/ under the same names:
each YAML file as JSON (the tree with the line and column of every mapping, key and list item, so errors still
name a line; yamlio.decode reads it), every other file as it is. The checks that need whole folders run here,
once: the catalog (every knob, and the references between knobs), every profile layer, the data package (every
table against its schema). A bad file fails the build with its file and line, and nothing is written. What the
checks yield is written to checked/ (read by paths.read_checked), and index.json holds the snapshot's one
stamp: flashtune's version and the CRC-32 of every data file (paths.stamp).

Who builds it: the wheel build (setup.py), and in a source checkout `make snapshot` (`python -m
flashtune.snapshot`; `--check` only says whether it matches data/). Nothing writes it at run time: a checkout
whose data/ changed since reads data/ itself, with the same checks, until the next build.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flashtune import datapackage, evidence, paths
from flashtune.catalog import store
from flashtune.compile import profiles
from flashtune.errors import FlashtuneError
from flashtune.yamlio import LINES_KEY, MAP_KEY, SEQ_KEY, parse_yaml

# checked/<name>: what each whole-folder check yields, made from (data folder, how messages name it)
CHECKED: dict[str, Callable[[Path, str], Any]] = {
    store.KNOBS: store.checked_knobs,
    profiles.PROFILES: profiles.checked_profiles,
    evidence.EVIDENCE: evidence.checked_evidence,
}


def _where(lc: Any, key: Any) -> tuple[int, int]:
    """(line, col) of a key (or item index) of a loaded node; (0, 0) for a node made in code."""
    return lc.key(key) if lc is not None else (0, 0)


def encode(node: Any) -> Any:
    """A tree from yamlio (YDict/YList with lines) as JSON-ready data that yamlio.decode reads back."""
    lc = getattr(node, "lc", None)
    head = [lc.line, lc.col] if lc is not None else [0, 0]
    if isinstance(node, dict):
        if all(isinstance(k, str) for k in node):
            out = {k: encode(v) for k, v in node.items()}
            out[LINES_KEY] = [*head, [x for k in node for x in _where(lc, k)]]
            return out
        flat: list[Any] = []  # keys JSON objects cannot hold (numbers, booleans, null)
        for k, v in node.items():
            flat += [k, encode(v), *_where(lc, k)]
        return {MAP_KEY: [*head, flat]}
    if isinstance(node, list):
        where = [x for i in range(len(node)) for x in _where(lc, i)]
        return {SEQ_KEY: [*head, [encode(v) for v in node], where]}
    return node


def compile_yaml(text: str, label: str) -> str:
    """A YAML text's compiled form: one line of JSON (see encode)."""
    return json.dumps(encode(parse_yaml(text, label)), ensure_ascii=False, separators=(",", ":"))


def compile_file(rel: str, path: str | Path) -> bytes:
    """One data file's content in the snapshot (under the same name)."""
    if rel.endswith((".yaml", ".yml")):
        return compile_yaml(Path(path).read_text(encoding="utf-8"), f"data/{rel}").encode()
    return Path(path).read_bytes()


def _json(value: Any) -> bytes:
    return json.dumps(
        value, ensure_ascii=False, separators=(",", ":")
    ).encode()  # order kept: it is meaningful


def build(data: str | Path, out: str | Path) -> None:
    """Write the snapshot of the data folder `data` to `out`, replacing it. Every file is compiled and every
    check run before anything is written: a DataError (file:line) leaves `out` as it was."""
    root = Path(data)
    datapackage.clear_cache()  # the tables as they are now, not as this process read them before
    files = {rel: compile_file(rel, path) for rel, path in paths.source_files(root)}
    files.update({f"{paths.CHECKED}/{name}": _json(make(root, "data")) for name, make in CHECKED.items()})
    files[paths.STAMP] = json.dumps(paths.stamp(root), indent=0, sort_keys=True).encode()
    target = Path(out).absolute()
    staging = target.with_name(f"{target.name}.{os.getpid()}.new")
    try:
        for rel, content in files.items():
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            (staging / rel).write_bytes(content)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    old = target.with_name(f"{target.name}.{os.getpid()}.old")
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def matches(data: str | Path, out: str | Path) -> bool:
    """Was the snapshot in `out` built from the data in `data` as it is now (and by this version)?"""
    return paths.read_stamp(out) == paths.stamp(data)


def main(argv: list[str] | None = None) -> int:
    """`python -m flashtune.snapshot [--check]`: build (or only check) the snapshot of a source checkout."""
    args = sys.argv[1:] if argv is None else argv
    if "--check" in args:
        if matches(paths.SOURCE_DATA, paths.SNAPSHOT_DIR):
            return 0
        print(f"{paths.SNAPSHOT_DIR}: not built from data/ as it is now (make snapshot)", file=sys.stderr)
        return 1
    try:
        build(paths.SOURCE_DATA, paths.SNAPSHOT_DIR)
    except FlashtuneError as e:
        print(str(e), file=sys.stderr)
        return e.exit_code
    print(f"wrote {paths.SNAPSHOT_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

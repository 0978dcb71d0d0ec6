"""The data snapshot: data/ compiled to JSON at build time, which is all the CLIs read at run time.

data/*.yaml is the authoring format (comments, anchors, readable diffs). Parsing YAML costs the CLIs more
than the rest of their work, so, like Ceph's y2c turning options YAML into C++ at build time, a build step
writes `flashtune/_data/`, a mirror of data/ under the same names: every YAML file holds JSON instead (the
same tree, with the line and column of every mapping, key and list item so errors can still name a line;
yamlio.load_yaml decodes it when the path is in the snapshot; a second line holds the tree without lines,
which yamlio.load_plain reads for data that is only looked up), every other file is copied as it is, and
`index.json` records the format and each source's size, mtime and CRC-32. Code that reads data through
paths.data_dir() and yamlio.load_yaml works the same on data/ and on the snapshot.

Who builds it:
- the wheel build (setup.py's build_py step), from the sdist's data/; nothing is rebuilt after install;
- a source checkout, lazily, like Python's .pyc files: `ensure()` compares data/ with index.json (sizes
  and mtimes; the CRC settles a changed mtime) and rewrites what changed, file by file, each file atomically.
  `make snapshot` (python -m flashtune.snapshot) does the same explicitly; `--check` only reports.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import Any

from flashtune.pathnames import StrPath
from flashtune.yamlio import Lines, YDict, YList

FORMAT = 3  # 3: a second line with the tree as plain JSON
INDEX = "index.json"
# Reserved keys no YAML data key can be (they start with a control character, which YAML keys cannot hold)
_LC = "\u0001"  # in a mapping: [line, col, [key1 line, key1 col, key2 line, ...]]
_MAP = "\u0001m"  # a mapping with keys JSON objects cannot hold (numbers, booleans, null)
_SEQ = "\u0001s"  # a list: [line, col, [items], [item1 line, item1 col, ...]]

Stamp = list[int]  # [size, mtime_ns, crc32]


# --- encoding: YAML tree with lines <-> JSON ------------------------------------------------------------


def _where(lc: Any, key: Any) -> tuple[int, int]:
    try:
        return lc.key(key) if lc is not None else (0, 0)
    except KeyError:
        return 0, 0


def encode(node: Any) -> Any:
    """A tree from yamlio (YDict/YList with lines) as JSON-ready data."""
    if isinstance(node, dict):
        lc = getattr(node, "lc", None)
        head = [lc.line, lc.col] if lc is not None else [0, 0]
        if all(isinstance(k, str) and not k.startswith("\u0001") for k in node):
            out = {k: encode(v) for k, v in node.items()}
            out[_LC] = [*head, [x for k in node for x in _where(lc, k)]]
            return out
        flat: list[Any] = []
        for k, v in node.items():
            flat += [k, encode(v), *_where(lc, k)]
        return {_MAP: [*head, flat]}
    if isinstance(node, list):
        lc = getattr(node, "lc", None)
        head = [lc.line, lc.col] if lc is not None else [0, 0]
        return {
            _SEQ: [*head, [encode(v) for v in node], [x for i in range(len(node)) for x in _where(lc, i)]]
        }
    return node


def _hook(obj: dict[str, Any]) -> Any:
    raw = obj.pop(_LC, None)
    if raw is not None:  # the common case: positions stay a flat list until a line is asked for
        out = YDict(obj)
        out._raw = raw
        return out
    body = obj.get(_SEQ)
    if body is not None:
        lst = YList(body[2])
        lst._raw = (body[0], body[1], body[3])
        return lst
    body = obj.get(_MAP)
    if body is not None:
        flat = body[2]
        m = YDict()
        keys: dict[Any, tuple[int, int]] = {}
        for i in range(0, len(flat), 4):
            m[flat[i]] = flat[i + 1]
            keys[flat[i]] = (flat[i + 2], flat[i + 3])
        m.lc = Lines(body[0], body[1], keys)
        return m
    return obj


_DECODER = json.JSONDecoder(object_hook=_hook)  # one for every file and knob (json.loads makes one per call)


def decode(text: str) -> Any:
    """A compiled YAML file's tree with its lines (YDict/YList), from the file's first line."""
    end = text.find("\n")
    return _DECODER.decode(text if end < 0 else text[:end])


def decode_plain(text: str) -> Any:
    """The same tree as plain dicts and lists, without lines: from the file's second line, which json reads
    without a hook and without the positions (several times faster than decode); where JSON cannot hold the
    tree as plain values (keys that are not strings) there is no second line, and decode reads the first."""
    end = text.find("\n")
    return json.loads(text[end + 1 :]) if end >= 0 else decode(text)


def _plain_keys(node: Any) -> bool:
    """Are all mapping keys in the tree strings (so json.dumps keeps them as they are)?"""
    if isinstance(node, dict):
        return all(isinstance(k, str) and _plain_keys(v) for k, v in node.items())
    if isinstance(node, list):
        return all(_plain_keys(v) for v in node)
    return True


# --- building ----------------------------------------------------------------------------------------------


def _entries(folder: str, prefix: str = "") -> Iterator[tuple[str, os.DirEntry[str]]]:
    """(name relative to the data folder, directory entry) of every source file, in os.walk's order: a
    folder's files by name, then its subfolders by name. Plain strings and scandir, no Path objects: a
    source checkout runs this check on every CLI start."""
    with os.scandir(folder) as it:
        entries = sorted(it, key=lambda e: e.name)
    subdirs = []
    for e in entries:
        if e.is_dir():
            if not e.name.startswith((".", "__")) and not e.is_symlink():  # os.walk does not follow links
                subdirs.append(e)
        elif not e.name.startswith((".", "#")) and not e.name.endswith(("~", ".pyc")):
            yield prefix + e.name, e
    for d in subdirs:
        yield from _entries(d.path, f"{prefix}{d.name}/")


def _sources(data: StrPath) -> Iterator[tuple[str, str]]:
    for rel, entry in _entries(os.fspath(data)):
        yield rel, entry.path


def _crc(path: StrPath) -> int:
    import zlib  # here: only a changed source needs it, and it costs every CLI start-up

    with open(path, "rb") as f:
        return zlib.crc32(f.read())


def _stamp(path: StrPath) -> Stamp:
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns, _crc(path)]


def compile_yaml(source: str, label: str) -> str:
    """A YAML text's compiled form: the tree with its lines (decode), then, where JSON holds it as plain values,
    a second line without them (decode_plain); json.dumps writes no line break of its own."""
    from flashtune.yamlio import parse_yaml

    tree = parse_yaml(source, label)
    text = json.dumps(encode(tree), ensure_ascii=False, separators=(",", ":"))
    if _plain_keys(tree):
        text += "\n" + json.dumps(tree, ensure_ascii=False, separators=(",", ":"))
    return text


def compile_file(rel: str, path: StrPath) -> tuple[str, bytes]:
    """One data file -> (name in the snapshot, content)."""
    if rel.endswith((".yaml", ".yml")):
        with open(path, encoding="utf-8") as text:
            return rel, compile_yaml(text.read(), f"data/{rel}").encode()
    with open(path, "rb") as f:
        return rel, f.read()


def _write(path: str, content: bytes) -> None:
    folder, name = os.path.split(path)
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(content)
    os.replace(tmp, path)


# The package's own snapshot's index (paths.SNAPSHOT_DIR), read once per process: the catalog, the evidence
# index and the envelope's stored fit each compare their stamps with it. Writing it here forgets it.
_SHIPPED: dict[str, dict[str, Any] | None] = {}


def read_index(out: StrPath) -> dict[str, Any] | None:
    """The snapshot's index.json (None: missing, unreadable or of another format); do not change it."""
    from flashtune.paths import SNAPSHOT_DIR

    key = os.fspath(out)
    shipped = key == os.fspath(SNAPSHOT_DIR)
    if shipped and key in _SHIPPED:
        return _SHIPPED[key]
    index: dict[str, Any] | None = None
    try:
        with open(os.path.join(out, INDEX), encoding="utf-8") as f:
            doc = json.loads(f.read())
        if isinstance(doc, dict) and doc.get("format") == FORMAT:
            index = doc
    except (OSError, ValueError):
        pass
    if shipped:
        _SHIPPED[key] = index
    return index


def stale(data: StrPath, out: StrPath) -> tuple[list[str], dict[str, Stamp], bool]:
    """Sources whose snapshot is missing or out of date (or deleted), the current stamps of all sources,
    and whether index.json needs rewriting (a changed mtime with unchanged content counts)."""
    index = read_index(out) or {"sources": {}}
    old: dict[str, Stamp] = index.get("sources", {})
    now: dict[str, Stamp] = {}
    changed: list[str] = []
    for rel, entry in _entries(os.fspath(data)):
        st = entry.stat()
        prev = old.get(rel)
        if prev is not None and prev[0] == st.st_size and prev[1] == st.st_mtime_ns:
            now[rel] = prev
            continue
        stamp = [st.st_size, st.st_mtime_ns, _crc(entry.path)]
        now[rel] = stamp
        if prev is None or prev[0] != stamp[0] or prev[2] != stamp[2]:
            changed.append(rel)
    changed += sorted(set(old) - set(now))
    return changed, now, now != old


def _write_index(out: StrPath, stamps: dict[str, Stamp]) -> None:
    _SHIPPED.pop(os.fspath(out), None)
    _write(
        os.path.join(out, INDEX),
        json.dumps({"format": FORMAT, "sources": stamps}, indent=0, sort_keys=True).encode(),
    )


def build(data: StrPath, out: StrPath) -> list[str]:
    """Bring the snapshot of `data` in `out` up to date, file by file; returns the sources it compiled."""
    changed, now, index_differs = stale(data, out)
    for rel in changed:
        if rel in now:
            name, content = compile_file(rel, os.path.join(data, rel))
            _write(os.path.join(out, name), content)
        else:  # the source was deleted
            import contextlib  # here: a source checkout runs build() on every CLI start

            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(out, rel))
    if changed or index_differs:
        _write_index(out, now)
    return changed


def build_fresh(data: StrPath, out: StrPath) -> None:
    """Write a complete snapshot into an empty or absent folder (the wheel build)."""
    now = {}
    for rel, path in _sources(data):
        name, content = compile_file(rel, path)
        _write(os.path.join(out, name), content)
        now[rel] = _stamp(path)
    _write_index(out, now)


# --- run time ----------------------------------------------------------------------------------------------


def ensure(data: StrPath, out: StrPath) -> bool:
    """Bring the snapshot up to date with the data/ beside it (a source checkout); False if it cannot be
    written (read-only checkout: the caller reads data/ itself)."""
    try:
        build(data, out)
    except OSError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """`python -m flashtune.snapshot [--check]`: rebuild (or only check) the snapshot of a source checkout."""
    from flashtune.errors import FlashtuneError
    from flashtune.paths import SNAPSHOT_DIR, SOURCE_DATA

    args = sys.argv[1:] if argv is None else argv
    try:
        if "--check" in args:
            changed, _, _ = stale(SOURCE_DATA, SNAPSHOT_DIR)
            for rel in changed:
                print(f"stale: data/{rel}")
            return 1 if changed else 0
        for rel in build(SOURCE_DATA, SNAPSHOT_DIR):
            print(f"compiled data/{rel}")
    except FlashtuneError as e:
        print(str(e), file=sys.stderr)
        return e.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())

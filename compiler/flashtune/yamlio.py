"""One place that reads flashtune's YAML data files, with file:line in every error.

Parsing YAML with ruamel is slow (about 0.8 s for the knob catalog), and the CLIs must start fast, so a
parsed file is cached like a .pyc: plain dicts/lists that still know their line numbers (line_of works on
them), pickled under ~/.cache/flashtune/yaml (FLASHTUNE_CACHE_DIR; "off" disables) and reused while the
file's mtime and size are unchanged. ruamel is only imported on a cache miss.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import Any

from flashtune.errors import DataError
from flashtune.fileio import read_text

_CACHE_VERSION = 1


class Lines:
    """Line/column facts of a loaded mapping or sequence (0-based, like ruamel's `lc`)."""

    __slots__ = ("col", "keys", "line")

    def __init__(self, line: int, col: int, keys: dict[Any, tuple[int, int]]) -> None:
        self.line, self.col, self.keys = line, col, keys

    def key(self, k: Any) -> tuple[int, int]:
        return self.keys[k]

    def item(self, i: int) -> tuple[int, int]:
        return self.keys[i]

    def __getstate__(self) -> tuple[int, int, dict[Any, tuple[int, int]]]:
        return (self.line, self.col, self.keys)

    def __setstate__(self, state: tuple[int, int, dict[Any, tuple[int, int]]]) -> None:
        self.line, self.col, self.keys = state


class YDict(dict[Any, Any]):
    """A mapping from a YAML file; `lc` gives its lines."""

    lc: Lines


class YList(list[Any]):
    """A sequence from a YAML file; `lc` gives its lines."""

    lc: Lines


def _plain(node: Any) -> Any:
    """ruamel's round-trip tree -> YDict/YList/builtin scalars, keeping line numbers."""
    lc = getattr(node, "lc", None)
    if isinstance(node, dict):
        out = YDict((_plain(k), _plain(v)) for k, v in node.items())
        keys = {}
        for k in node:
            try:
                pos = lc.key(k) if lc is not None else None
            except (KeyError, TypeError, AttributeError):
                pos = None
            if pos:
                keys[_plain(k)] = (int(pos[0]), int(pos[1]))
        out.lc = Lines(int(getattr(lc, "line", 0) or 0), int(getattr(lc, "col", 0) or 0), keys)
        return out
    if isinstance(node, list):
        lst = YList(_plain(v) for v in node)
        items = {}
        for i in range(len(node)):
            try:
                pos = lc.item(i) if lc is not None else None
            except (KeyError, TypeError, AttributeError, IndexError):
                pos = None
            if pos:
                items[i] = (int(pos[0]), int(pos[1]))
        lst.lc = Lines(int(getattr(lc, "line", 0) or 0), int(getattr(lc, "col", 0) or 0), items)
        return lst
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, str):
        return str(node)
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    return node


def _cache_file(path: Path) -> Path | None:
    root = os.environ.get("FLASHTUNE_CACHE_DIR") or str(Path.home() / ".cache" / "flashtune" / "yaml")
    if root == "off":
        return None
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()
    return Path(root) / f"{digest}.pickle"


def _parse(path: Path) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    text = read_text(path)
    yaml = YAML(typ="rt")
    try:
        return yaml.load(text)
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise DataError(
            f"YAML syntax error: {e.problem or e.context}",
            file=str(path),
            line=(mark.line + 1) if mark else None,
            column=(mark.column + 1) if mark else None,
            suggestion="fix the YAML syntax (indentation, quoting, ':' after keys)",
        ) from None
    except YAMLError as e:
        raise DataError(f"YAML error: {e}", file=str(path)) from None


def load_yaml(path: Path) -> Any:
    """Parse a YAML file safely; mappings and sequences keep their line numbers (see line_of)."""
    path = Path(path)
    cache = _cache_file(path)
    try:
        st = path.stat()
        stamp = (_CACHE_VERSION, st.st_mtime_ns, st.st_size)
    except OSError:
        cache, stamp = None, (0, 0, 0)  # read_text reports the problem
    if cache is not None:
        try:
            with cache.open("rb") as f:
                saved_stamp, tree = pickle.load(f)
            if saved_stamp == stamp:
                return tree
        except Exception:  # missing, stale or unreadable cache: parse again
            pass
    tree = _plain(_parse(path))
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            with tmp.open("wb") as f:
                pickle.dump((stamp, tree), f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, cache)
        except OSError:
            pass
    return tree


def line_of(node: Any, key: Any = None) -> int | None:
    """1-based line of a mapping (or of one key in it) loaded by load_yaml, if known."""
    lc = getattr(node, "lc", None)
    if lc is None:
        return None
    try:
        if key is not None:
            return int(lc.key(key)[0]) + 1
        return int(lc.line) + 1
    except (KeyError, TypeError, AttributeError):
        return None

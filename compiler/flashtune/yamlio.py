"""Reading YAML safely and within bounds, with file:line in every error.

Two callers need YAML at run time: a user's hardware file (`compile-config --hardware`) and a CBT test plan
given to `lint-config`. The shipped data/ is compiled to JSON at build time (flashtune.snapshot) and read
without any YAML parser; this module also does that compilation.

Parsing uses PyYAML's event stream (libyaml's C parser where the wheel has it) and builds the tree here, not
with PyYAML's composer, because that composer recurses once per nesting level (libyaml's C composer crashes
the interpreter on a few thousand levels) and because an alias must be counted when it is expanded: a file of
a few hundred bytes whose anchors refer to each other ("billion laughs") expands to billions of nodes.
Every document is checked against two bounds while it is read: nesting depth and expanded node count.

Two schemas:
- "core" (YAML 1.2 core schema, as the authoring tools treat data/): `on`, `no`, `0755`, `1:30` stay strings,
  duplicate keys are an error. Used for data/ and hardware files.
- "cbt" (YAML 1.1, PyYAML's safe schema, which CBT itself loads its plans with): `on` is true; a repeated
  key is kept as a separate entry for the linter to report.
"""

from __future__ import annotations

import math
import re
from typing import Any

from yaml.nodes import Node

from flashtune.errors import DataError, position
from flashtune.fileio import read_text
from flashtune.pathnames import StrPath
from flashtune.paths import compiled

MAX_DEPTH = 64  # data files and test plans are 4-8 levels deep
MAX_NODES = 200_000  # expanded (aliases counted each time they are used); data/knobs/ceph.yaml has ~25,000


class Lines:
    """Line/column facts of a loaded mapping or sequence (0-based): the node's own and each key's/item's."""

    __slots__ = ("col", "keys", "line")

    def __init__(self, line: int, col: int, keys: dict[Any, tuple[int, int]]) -> None:
        self.line, self.col, self.keys = line, col, keys

    def key(self, k: Any) -> tuple[int, int]:
        return self.keys[k]

    def item(self, i: int) -> tuple[int, int]:
        return self.keys[i]


class _Positioned:
    """`lc` (the lines of a loaded YAML node) for YDict and YList: from the data snapshot the positions arrive
    as a flat list (`_raw`), turned into Lines only when a line is asked for: most loaded nodes never are."""

    __slots__ = ()  # the slots `_lc` and `_raw` are the subclasses' (a mixin's slots would clash with dict's)

    def _position_keys(self) -> list[Any]:
        raise NotImplementedError

    @property
    def lc(self) -> Lines:
        lc: Lines | None = getattr(self, "_lc", None)
        if lc is None:
            raw = getattr(self, "_raw", None)
            if raw is None:
                raise AttributeError("lc")
            pos = raw[2]
            keys = self._position_keys()
            lc = Lines(raw[0], raw[1], {k: (pos[2 * i], pos[2 * i + 1]) for i, k in enumerate(keys)})
            setattr(self, "_lc", lc)  # noqa: B010 (a subclass slot)
        return lc

    @lc.setter
    def lc(self, value: Lines) -> None:
        setattr(self, "_lc", value)  # noqa: B010 (a subclass slot)


# "Any" in quotes: this type is evaluated at run time, when typing is not imported (start-up cost)
class YDict(_Positioned, dict[Any, Any]):
    """A mapping from a YAML file; `lc` gives its lines (keys in file order)."""

    __slots__ = ("_lc", "_raw")
    _lc: Lines | None
    _raw: Any

    def _position_keys(self) -> list[Any]:
        return list(self)


class YList(_Positioned, list[Any]):
    """A sequence from a YAML file; `lc` gives its lines (by index)."""

    __slots__ = ("_lc", "_raw")
    _lc: Lines | None
    _raw: Any

    def _position_keys(self) -> list[Any]:
        return list(range(len(self)))


def _loader_class(schema: str) -> Any:
    import yaml  # imported only when a YAML file is really read (about 20 ms of start-up)

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _error(message: str, filename: str, mark: Any, hint: str | None = None) -> DataError:
    """A DataError at a YAML mark (0-based line/column) or, without one, at the file."""
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
    return DataError(message, file=filename, line=line, column=col, suggestion=hint)


def compose(
    text: str,
    filename: str = "<string>",
    *,
    schema: str = "core",
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_NODES,
) -> Node | None:
    """One YAML document as PyYAML nodes (marks kept); a second document is an error."""
    roots = compose_all(text, filename, schema=schema, max_depth=max_depth, max_nodes=max_nodes, single=True)
    return roots[0] if roots else None


def compose_all(
    text: str,
    filename: str = "<string>",
    *,
    schema: str = "core",
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_NODES,
    single: bool = False,
) -> list[Node]:
    """Every YAML document as PyYAML nodes (marks kept), refusing deep nesting and alias blow-up.

    Aliases point at the anchored node itself, as in PyYAML; the returned graph is small, and the bounds
    (over the whole file) guarantee that walking it with aliases expanded visits at most `max_nodes` nodes.
    """
    import yaml
    from yaml.events import (
        AliasEvent,
        CollectionStartEvent,
        DocumentStartEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        StreamEndEvent,
    )
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    loader = _loader_class(schema)(text)
    anchors: dict[str, Node] = {}
    size: dict[int, int] = {}  # id(anchored node) -> its expanded size, once the node is complete
    stack: list[tuple[Node, list[Node], int, str | None]] = []  # open collection, pending key, start, anchor
    total = 0  # nodes read so far, aliases expanded
    roots: list[Node] = []
    documents = 0

    def fail(message: str, mark: Any, hint: str) -> DataError:
        return _error(message, filename, mark, hint)

    def bump(weight: int, mark: Any) -> None:
        nonlocal total
        total += weight
        if total > max_nodes:
            raise fail(
                f"YAML expands to more than {max_nodes} nodes (aliases counted each time they are used)",
                mark,
                "write the values out, or use fewer nested aliases (a 'billion laughs' file?)",
            )

    def attach(node: Node) -> None:
        if not stack:
            roots.append(node)
            return
        parent, pending = stack[-1][0], stack[-1][1]
        if isinstance(parent, SequenceNode):
            parent.value.append(node)
        elif pending:
            parent.value.append((pending.pop(), node))
        else:
            pending.append(node)

    try:
        while True:
            event = loader.get_event()
            if isinstance(event, StreamEndEvent):
                break
            if isinstance(event, DocumentStartEvent):
                documents += 1
                if single and documents > 1:
                    raise fail(
                        "more than one YAML document ('---') in the file",
                        event.start_mark,
                        "keep one document per file",
                    )
            elif isinstance(event, AliasEvent):
                target = anchors.get(event.anchor)
                if target is None:
                    raise fail(
                        f"alias *{event.anchor} names no anchor defined before it",
                        event.start_mark,
                        f"define '&{event.anchor}' before using '*{event.anchor}'",
                    )
                if id(target) not in size:
                    raise fail(
                        f"alias *{event.anchor} refers to a node that contains it",
                        event.start_mark,
                        "a YAML value cannot contain itself",
                    )
                bump(size[id(target)], event.start_mark)
                attach(target)
            elif isinstance(event, ScalarEvent):
                explicit = event.tag not in (None, "!")
                tag = event.tag if explicit else loader.resolve(ScalarNode, event.value, event.implicit)
                node: Node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
                node.plain = bool(event.implicit[0]) and not explicit  # type: ignore[attr-defined]
                bump(1, event.start_mark)
                if event.anchor is not None:
                    anchors[event.anchor] = node
                    size[id(node)] = 1
                attach(node)
            elif isinstance(event, CollectionStartEvent):
                if len(stack) >= max_depth:
                    raise fail(
                        f"YAML nested more than {max_depth} levels deep",
                        event.start_mark,
                        "a flashtune input needs only a few levels",
                    )
                is_map = isinstance(event, MappingStartEvent)
                default = "tag:yaml.org,2002:map" if is_map else "tag:yaml.org,2002:seq"
                tag = event.tag if event.tag not in (None, "!") else default
                if tag != default:  # e.g. !!python/object/apply: refused, as a safe loader does
                    raise fail(
                        f"YAML tag {tag!r} is not supported here",
                        event.start_mark,
                        "write plain mappings and lists",
                    )
                cls = MappingNode if is_map else SequenceNode
                node = cls(tag, [], event.start_mark, None, flow_style=event.flow_style)
                if event.anchor is not None:
                    anchors[event.anchor] = node  # no size until complete: an alias to it inside is recursive
                stack.append((node, [], total, event.anchor))
                bump(1, event.start_mark)
            elif isinstance(event, (MappingEndEvent, SequenceEndEvent)):
                node, _pending, start, anchor = stack.pop()
                node.end_mark = event.end_mark
                if anchor is not None and anchors.get(anchor) is node:
                    size[id(node)] = total - start
                attach(node)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise _error(
            f"YAML syntax error: {e.problem or e.context}",
            filename,
            mark,
            _syntax_hint(str(e.problem or e.context)),
        ) from None
    except yaml.reader.ReaderError as e:  # a character YAML does not allow (control characters, ...)
        line, col = position(text, e.position)
        ch = e.character if isinstance(e.character, int) else ord(str(e.character)[:1] or "?")
        raise DataError(
            f"character U+{ch:04X} is not allowed in YAML",
            file=filename,
            line=line,
            column=col,
            suggestion="remove it or write it as an escape in a double-quoted string",
        ) from None
    except yaml.YAMLError as e:
        raise DataError(f"YAML error: {e}"[:300], file=filename, suggestion="fix the YAML syntax") from None
    finally:
        loader.dispose()
    return roots


def _syntax_hint(problem: str) -> str:
    if "mapping values are not allowed" in problem:
        return (
            "this line is indented deeper than the key above it, which already has a value; "
            "indent both under the same parent"
        )
    if "found character '\\t'" in problem:
        return "YAML indents with spaces, not tabs"
    return "fix the YAML syntax (indentation, quoting, ':' after keys)"


# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution) for plain scalars; patterns, not
# compiled ones: re compiles (and caches) them on first use, which reading the data snapshot never reaches
_NULL = r"(?:~|null|Null|NULL)?"
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = r"[-+]?[0-9]+"
_INT_OCT = r"0o[0-7]+"
_INT_HEX = r"0x[0-9a-fA-F]+"
_FLOAT = r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
_INF = r"([-+]?)\.(?:inf|Inf|INF)"
_NAN = r"\.(?:nan|NaN|NAN)"
_CORE_TAGS = {"str", "int", "float", "bool", "null"}


def _core_scalar(node: Any, filename: str) -> Any:
    v: str = node.value
    if getattr(node, "plain", False):
        if re.fullmatch(_NULL, v):
            return None
        if v in _BOOL:
            return _BOOL[v]
        if re.fullmatch(_INT, v):
            return int(v)
        if re.fullmatch(_INT_OCT, v):
            return int(v[2:], 8)
        if re.fullmatch(_INT_HEX, v):
            return int(v[2:], 16)
        if re.fullmatch(_FLOAT, v):
            return float(v)
        if m := re.fullmatch(_INF, v):
            return -math.inf if m.group(1) == "-" else math.inf
        if re.fullmatch(_NAN, v):
            return math.nan
        return v
    tag = str(node.tag).removeprefix("tag:yaml.org,2002:")
    if tag == "str" or node.tag == "tag:yaml.org,2002:str":
        return v
    if tag not in _CORE_TAGS:
        raise _error(
            f"YAML tag {node.tag!r} is not supported here",
            filename,
            node.start_mark,
            "write plain values (strings, numbers, true/false, null)",
        )
    plain = type("Plain", (), {"value": v, "plain": True})()
    out = _core_scalar(plain, filename)
    want = {"int": int, "float": float, "bool": bool, "null": type(None)}[tag]
    if tag == "float" and isinstance(out, int) and not isinstance(out, bool):
        out = float(out)
    if not isinstance(out, want) or (tag == "int" and isinstance(out, bool)):
        raise _error(f"{v!r} is not a valid !!{tag}", filename, node.start_mark)
    return out


def to_tree(node: Node | None, filename: str) -> Any:
    """Core-schema nodes -> YDict/YList/scalars that remember their lines; a repeated key is an error."""
    from yaml.nodes import MappingNode, SequenceNode

    if node is None:
        return None
    if isinstance(node, MappingNode):
        out = YDict()
        keys: dict[Any, tuple[int, int]] = {}
        for knode, vnode in node.value:
            if isinstance(knode, (MappingNode, SequenceNode)):
                raise _error(
                    "a mapping key must be a plain value, not a list or mapping", filename, knode.start_mark
                )
            key = _core_scalar(knode, filename)
            if key in keys:
                raise _error(
                    f"duplicate key {key!r} (first on line {keys[key][0] + 1})",
                    filename,
                    knode.start_mark,
                    "merge the two entries",
                )
            keys[key] = (knode.start_mark.line, knode.start_mark.column)
            out[key] = to_tree(vnode, filename)
        out.lc = Lines(node.start_mark.line, node.start_mark.column, keys)
        return out
    if isinstance(node, SequenceNode):
        lst = YList(to_tree(v, filename) for v in node.value)
        lst.lc = Lines(
            node.start_mark.line,
            node.start_mark.column,
            {i: (v.start_mark.line, v.start_mark.column) for i, v in enumerate(node.value)},
        )
        return lst
    return _core_scalar(node, filename)


def parse_yaml(text: str, filename: str = "<string>") -> Any:
    """A YAML document (core schema) as YDict/YList/scalars with line numbers (see line_of)."""
    return to_tree(compose(text, filename, schema="core"), filename)


def load_yaml(path: StrPath) -> Any:
    """Read and parse a YAML file (core schema); every failure is a DataError naming file:line.

    A data file (see flashtune.paths) is read from its compiled form in the snapshot: JSON, no YAML parser.
    """
    snap = compiled(path)
    if snap is not None:
        from flashtune.snapshot import decode

        return decode(read_text(snap))
    return parse_yaml(read_text(path), str(path))


def load_plain(path: StrPath) -> Any:
    """What load_yaml returns, for data only looked up (no line numbers needed): from the snapshot, plain
    dicts and lists read several times faster (snapshot.decode_plain); elsewhere the YAML file parsed."""
    snap = compiled(path)
    if snap is not None:
        from flashtune.snapshot import decode_plain

        return decode_plain(read_text(snap))
    return parse_yaml(read_text(path), str(path))


def line_of(node: Any, key: Any = None) -> int | None:
    """1-based line of a mapping (or of one key in it) loaded by load_yaml, if known."""
    raw = getattr(node, "_raw", None) if key is None else None
    if raw is not None and getattr(node, "_lc", None) is None:  # own line: no need to build every key's
        return int(raw[0]) + 1
    lc = getattr(node, "lc", None)
    if lc is None:
        return None
    try:
        if key is not None:
            return int(lc.key(key)[0]) + 1
        return int(lc.line) + 1
    except (KeyError, TypeError, AttributeError):
        return None

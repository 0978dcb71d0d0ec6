"""Reading YAML safely and within bounds, with file:line in every error.

Two callers need YAML at run time: a user's hardware file (`compile-config --hardware`) and a CBT test plan
given to `lint-config`. The shipped data/ is compiled to JSON when the package is built (flashtune.snapshot),
and load_yaml reads a data file from that form (decode) while the snapshot is in use (flashtune.paths).

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

import json
import math
import re
from pathlib import Path
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    CollectionStartEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from flashtune.errors import DataError, position
from flashtune.fileio import read_text
from flashtune.paths import compiled, data_path

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


class YDict(dict[Any, Any]):
    """A mapping from a YAML file; `lc` gives its lines (keys in file order)."""

    lc: Lines


class YList(list[Any]):
    """A sequence from a YAML file; `lc` gives its lines (by index)."""

    lc: Lines


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
    `schema` is resolved later (to_tree, or the CBT linter): both read the same event stream.
    """
    loader = _LOADER(text)
    try:
        return _Composer(loader, filename, max_depth, max_nodes, single).run()
    except yaml.MarkedYAMLError as e:
        problem = str(e.problem or e.context)
        mark = e.problem_mark or e.context_mark
        odd = _lookalike(text, mark)
        if odd is not None:  # libyaml names the line after a no-break space, with a hint about ':'
            at_line, at_col, odd_ch = odd
            raise DataError(
                f"YAML syntax error: {problem}: U+{ord(odd_ch):04X} ({LOOKALIKES[odd_ch]}) here is not what YAML "
                "reads as a space or ':'",
                file=filename,
                line=at_line,
                column=at_col,
                suggestion="retype it as a plain space or ':'",
            ) from None
        raise _error(f"YAML syntax error: {problem}", filename, mark, _syntax_hint(problem)) from None
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


# libyaml's C parser where PyYAML has it (only its event stream is used: see the module's doc)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"


class _Open:
    """A collection being read: its node, a key waiting for its value, where the node count stood when it
    began and its anchor."""

    __slots__ = ("anchor", "node", "pending", "start")

    def __init__(self, node: Node, start: int, anchor: str | None) -> None:
        self.node, self.start, self.anchor = node, start, anchor
        self.pending: list[Node] = []


class _Composer:
    """Builds the nodes of compose_all from the parser's events, one handler per kind of event, counting
    every node (an alias as the size of what it names) and the nesting depth."""

    def __init__(self, loader: Any, filename: str, max_depth: int, max_nodes: int, single: bool) -> None:
        self.loader, self.filename = loader, filename
        self.max_depth, self.max_nodes, self.single = max_depth, max_nodes, single
        self.anchors: dict[str, Node] = {}
        self.size: dict[int, int] = {}  # id(anchored node) -> its expanded size, once the node is complete
        self.stack: list[_Open] = []
        self.total = 0  # nodes read so far, aliases expanded
        self.roots: list[Node] = []
        self.documents = 0
        self.handlers: dict[type, Any] = {
            DocumentStartEvent: self.document_start,
            AliasEvent: self.alias,
            ScalarEvent: self.scalar,
            MappingStartEvent: self.collection_start,
            SequenceStartEvent: self.collection_start,
            MappingEndEvent: self.collection_end,
            SequenceEndEvent: self.collection_end,
        }

    def run(self) -> list[Node]:
        while not isinstance(event := self.loader.get_event(), StreamEndEvent):
            handler = self.handlers.get(type(event))
            if handler is not None:  # stream start, document end: nothing to do
                handler(event)
        return self.roots

    def fail(self, message: str, mark: Any, hint: str) -> DataError:
        return _error(message, self.filename, mark, hint)

    def count(self, weight: int, mark: Any) -> None:
        self.total += weight
        if self.total > self.max_nodes:
            raise self.fail(
                f"YAML expands to more than {self.max_nodes} nodes (aliases counted each time they are used)",
                mark,
                "write the values out, or use fewer nested aliases (a 'billion laughs' file?)",
            )

    def attach(self, node: Node) -> None:
        """Put a complete node where it belongs: a document's root, a list item, a key or a key's value."""
        if not self.stack:
            self.roots.append(node)
            return
        parent = self.stack[-1]
        if isinstance(parent.node, SequenceNode):
            parent.node.value.append(node)
        elif parent.pending:
            parent.node.value.append((parent.pending.pop(), node))
        else:
            parent.pending.append(node)

    def document_start(self, event: DocumentStartEvent) -> None:
        self.documents += 1
        if self.single and self.documents > 1:
            raise self.fail(
                "more than one YAML document ('---') in the file",
                event.start_mark,
                "keep one document per file",
            )

    def alias(self, event: AliasEvent) -> None:
        target = self.anchors.get(str(event.anchor))
        if target is None:
            raise self.fail(
                f"alias *{event.anchor} names no anchor defined before it",
                event.start_mark,
                f"define '&{event.anchor}' before using '*{event.anchor}'",
            )
        if id(target) not in self.size:
            raise self.fail(
                f"alias *{event.anchor} refers to a node that contains it",
                event.start_mark,
                "a YAML value cannot contain itself",
            )
        self.count(self.size[id(target)], event.start_mark)
        self.attach(target)

    def scalar(self, event: ScalarEvent) -> None:
        explicit = event.tag not in (None, "!")
        tag = event.tag if explicit else self.loader.resolve(ScalarNode, event.value, event.implicit)
        node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
        node.plain = bool(event.implicit[0]) and not explicit  # type: ignore[attr-defined]
        self.count(1, event.start_mark)
        if event.anchor is not None:
            self.anchors[event.anchor] = node
            self.size[id(node)] = 1
        self.attach(node)

    def collection_start(self, event: CollectionStartEvent) -> None:
        if len(self.stack) >= self.max_depth:
            raise self.fail(
                f"YAML nested more than {self.max_depth} levels deep",
                event.start_mark,
                "a flashtune input needs only a few levels",
            )
        is_map = isinstance(event, MappingStartEvent)
        default = _MAP_TAG if is_map else _SEQ_TAG
        tag = event.tag if event.tag not in (None, "!") else default
        if tag != default:  # e.g. !!python/object/apply: refused, as a safe loader does
            raise self.fail(
                f"YAML tag {tag!r} is not supported here", event.start_mark, "write plain mappings and lists"
            )
        cls = MappingNode if is_map else SequenceNode
        node = cls(tag, [], event.start_mark, None, flow_style=event.flow_style)
        if event.anchor is not None:
            self.anchors[event.anchor] = node  # no size until complete: an alias to it inside is recursive
        self.stack.append(_Open(node, self.total, event.anchor))
        self.count(1, event.start_mark)

    def collection_end(self, event: MappingEndEvent | SequenceEndEvent) -> None:
        done = self.stack.pop()
        done.node.end_mark = event.end_mark
        if done.anchor is not None and self.anchors.get(done.anchor) is done.node:
            self.size[id(done.node)] = self.total - done.start
        self.attach(done.node)


# Characters that look like a space or a colon and are neither to YAML (pasted from a document or typed on a
# keyboard in another layout): a syntax error near one is named at it
LOOKALIKES = {
    "\u00a0": "no-break space",
    "\u2002": "en space",
    "\u2003": "em space",
    "\u2007": "figure space",
    "\u2009": "thin space",
    "\u202f": "narrow no-break space",
    "\u3000": "ideographic space",
    "\uff1a": "fullwidth colon",
}


def _lookalike(text: str, mark: Any) -> tuple[int, int, str] | None:
    """(1-based line, column, character) of the first LOOKALIKES character where YAML needs a space or a
    colon (a colon look-alike, one right after ':', or one in a line's indentation) on the error's line or the
    two before it, if any: one inside a value's text is that text's own."""
    if mark is None:
        return None
    lines = text.split("\n")
    for i in range(max(0, mark.line - 2), min(len(lines), mark.line + 1)):
        for j, ch in enumerate(lines[i]):
            before = lines[i][:j]
            if ch in LOOKALIKES and (
                ch == "\uff1a" or before.endswith(":") or not before.strip(" " + "".join(LOOKALIKES))
            ):
                return i + 1, j + 1, ch
    return None


def _syntax_hint(problem: str) -> str:
    if "mapping values are not allowed" in problem:
        return (
            "this line is indented deeper than the key above it, which already has a value; "
            "indent both under the same parent"
        )
    if "found character '\\t'" in problem:
        return "YAML indents with spaces, not tabs"
    return "fix the YAML syntax (indentation, quoting, ':' after keys)"


# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution) for plain scalars
_NULL = re.compile(r"(?:~|null|Null|NULL)?")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+")
_INT_OCT = re.compile(r"0o[0-7]+")
_INT_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF = re.compile(r"([-+]?)\.(?:inf|Inf|INF)")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)")
_CORE_TAGS = {"str", "int", "float", "bool", "null"}


def _whole(v: str, node: Any, filename: str) -> int:
    """A plain decimal integer; one longer than Python converts (sys.get_int_max_str_digits, 4300 digits) is
    an error at its line, not a ValueError."""
    try:
        return int(v)
    except ValueError:
        raise _error(
            f"a number of {len(v.lstrip('+-'))} digits is longer than any value flashtune reads",
            filename,
            getattr(node, "start_mark", None),
            "check the number (a pasted run of digits?)",
        ) from None


def _core_scalar(node: Any, filename: str) -> Any:
    v: str = node.value
    if getattr(node, "plain", False):
        if _NULL.fullmatch(v):
            return None
        if v in _BOOL:
            return _BOOL[v]
        if _INT.fullmatch(v):
            return _whole(v, node, filename)
        if _INT_OCT.fullmatch(v):
            return int(v[2:], 8)
        if _INT_HEX.fullmatch(v):
            return int(v[2:], 16)
        if _FLOAT.fullmatch(v):
            return float(v)
        if m := _INF.fullmatch(v):
            return -math.inf if m.group(1) == "-" else math.inf
        if _NAN.fullmatch(v):
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
    plain = type("Plain", (), {"value": v, "plain": True, "start_mark": node.start_mark})()
    out = _core_scalar(plain, filename)
    want = {"int": int, "float": float, "bool": bool, "null": type(None)}[tag]
    if tag == "float" and isinstance(out, int) and not isinstance(out, bool):
        out = float(out)
    if not isinstance(out, want) or (tag == "int" and isinstance(out, bool)):
        raise _error(f"{v!r} is not a valid !!{tag}", filename, node.start_mark)
    return out


def to_tree(node: Node | None, filename: str) -> Any:
    """Core-schema nodes -> YDict/YList/scalars that remember their lines; a repeated key is an error."""
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
            if key == "<<" and getattr(knode, "plain", False):  # was 'unknown field' or a key named '<<'
                raise _error(
                    "a YAML merge key ('<<: *anchor') is YAML 1.1 and not read here",
                    filename,
                    knode.start_mark,
                    "write the fields out (an alias of a whole value, 'key: *anchor', is fine)",
                )
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


def load_yaml(path: str | Path) -> Any:
    """Read and parse a YAML file (core schema); every failure is a DataError naming file:line.

    A data file is read from its compiled form in the data snapshot while it is in use (flashtune.paths):
    JSON, no YAML parser.
    """
    snap = compiled(path)
    if snap is not None:
        return decode(read_text(snap))
    return parse_yaml(read_text(path), str(path))


def load_data(rel: str) -> Any:
    """One YAML file of the data (e.g. "profiles/base.yaml") as YDict/YList/scalars with line numbers."""
    return load_yaml(data_path(rel))


# --- the data snapshot's form of a YAML file: JSON with the line of every mapping, key and item ----------
# Reserved keys no YAML data key can be (they start with a control character, which YAML keys cannot hold)
LINES_KEY = "\u0001"  # in a mapping: [line, col, [key1 line, key1 col, key2 line, ...]]
MAP_KEY = "\u0001m"  # a mapping with keys JSON objects cannot hold (numbers, booleans, null)
SEQ_KEY = "\u0001s"  # a list: [line, col, [items], [item1 line, item1 col, ...]]


def _pairs(flat: list[int]) -> list[tuple[int, int]]:
    return list(zip(flat[::2], flat[1::2], strict=True))


def _from_json(obj: dict[str, Any]) -> Any:
    """json's object hook: a mapping or list written by flashtune.snapshot.encode, with its lines."""
    if LINES_KEY in obj:
        line, col, flat = obj.pop(LINES_KEY)
        mapping = YDict(obj)
        mapping.lc = Lines(line, col, dict(zip(mapping, _pairs(flat), strict=True)))
        return mapping
    if SEQ_KEY in obj:
        line, col, items, flat = obj[SEQ_KEY]
        seq = YList(items)
        seq.lc = Lines(line, col, dict(enumerate(_pairs(flat))))
        return seq
    if MAP_KEY in obj:
        line, col, flat = obj[MAP_KEY]
        mapping = YDict()
        keys: dict[Any, tuple[int, int]] = {}
        for i in range(0, len(flat), 4):
            mapping[flat[i]] = flat[i + 1]
            keys[flat[i]] = (flat[i + 2], flat[i + 3])
        mapping.lc = Lines(line, col, keys)
        return mapping
    return obj


def decode(text: str) -> Any:
    """A compiled YAML file's tree (flashtune.snapshot.encode) as YDict/YList/scalars with its lines."""
    return json.loads(text, object_hook=_from_json)


def line_of(node: Any, key: Any = None) -> int | None:
    """1-based line of a mapping (or of one key in it) loaded by load_yaml, if known."""
    lc = getattr(node, "lc", None)
    if lc is None:
        return None
    try:
        return int(lc.key(key)[0]) + 1 if key is not None else int(lc.line) + 1
    except (KeyError, TypeError):
        return None


def top_mapping(path: str | Path, name: str, shape: str) -> dict[Any, Any]:
    """Data file `path`'s top-level mapping `name`, else a DataError at its line (the file's first where the
    key is absent) saying it needs `name:` of that `shape`."""
    doc = load_yaml(path)
    entry = doc.get(name) if isinstance(doc, dict) else None
    if not isinstance(entry, dict):
        line = line_of(doc, name) if isinstance(doc, dict) else None
        raise DataError(f"{Path(path).name} needs {name}: {shape}", file=str(path), line=line or 1)
    return entry

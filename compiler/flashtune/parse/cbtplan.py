"""A CBT plan flashtune wrote itself, as a ConfDoc, without a YAML parser.

compile-config lints every file it emits. For the CBT plans it has the documents it emitted (Bundle.plans)
and the text (emit.cbt writes one key per line, in the document's order); this places each key on its line,
so the linter gets what parse.cbtyaml would give without importing a YAML library at start-up. Where a key
is not found where the writer puts it, `from_plan` returns None and the caller parses the text instead.
That the text reads back as the same document is checked by the test suite with the real parser.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from flashtune.parse.confdoc import ConfDoc, Entry


def _plain(value: Any) -> Any:
    """The document as a YAML loader returns it: tuples are lists."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def from_plan(plan: Mapping[str, Any], text: str, filename: str) -> ConfDoc | None:
    data = _plain(plan)  # walked below: each entry's node is its part of this one copy
    lines = text.splitlines()
    doc = ConfDoc(kind="cbt.yaml", filename=filename)
    pos = 0

    def place(key: Any) -> tuple[int, int, str] | None:
        nonlocal pos
        bare = f"{key}:"
        quoted = ""  # the key as a JSON string, made only when a line starts with a quote
        while pos < len(lines):
            line = lines[pos]
            body = line.lstrip(" ")
            if body.startswith("- "):
                body = body[2:].lstrip(" ")
            pos += 1
            if body.startswith(bare):
                spelt = bare
            elif body.startswith('"'):
                quoted = quoted or f"{json.dumps(str(key))}:"
                spelt = quoted
            else:
                continue
            if body.startswith(spelt) and not line.lstrip().startswith("#"):
                col = len(line) - len(body)
                return pos, col + 1, body[len(spelt) :].strip()
        return None

    def walk(node: Any, path: str) -> bool:
        if isinstance(node, dict):
            for key, value in node.items():
                spot = place(key)
                if spot is None:
                    return False
                line, col, rest = spot
                shown = rest if rest and not isinstance(value, dict) else None
                doc.entries.append(
                    Entry(
                        path, str(key), str(key), shown, line, col, line, col + len(str(key)) + 2, node=value
                    )
                )
                if not walk(value, f"{path}.{key}" if path else str(key)):
                    return False
        elif isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, dict) and not walk(item, f"{path}[{i}]"):
                    return False
        return True

    if not walk(data, ""):
        return None
    doc.data = data
    doc.line_count = len(lines)
    return doc

"""Ceph's config database as JSON: `ceph config dump --format json` and `ceph config show WHO --format json`.

Since Mimic most options live in the monitors' database rather than ceph.conf; both commands print a JSON list
(dump: {section, name, value, level, mask, ...}; show: {name, value, source, ...}). Each item becomes an Entry
in its section (dump) or in the daemon's section (show: taken from a `who` the caller knows, else "global"),
so the ceph.conf rules run on it unchanged. Positions are those of the item's "name" in the JSON text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flashtune import userjson
from flashtune.errors import position
from flashtune.parse.confdoc import ConfDoc, ConfSyntaxError, Entry

_NAME = re.compile(r'"name"\s*:\s*"')
_WHO = re.compile(r"\b((?:osd|mon|mgr|mds|client)(?:\.[\w.-]+)?)\.json$")


def parse(text: str, filename: str = "<string>", *, recover: bool = False) -> ConfDoc:
    del recover  # JSON has no line to skip: a syntax error makes the whole document unusable
    doc = ConfDoc(kind="ceph-config.json", filename=filename)
    try:
        data: Any = userjson.parse(text, file=filename)
    except json.JSONDecodeError as e:
        raise ConfSyntaxError(
            f"JSON syntax error: {e.msg}",
            file=filename,
            line=e.lineno,
            column=e.colno,
            suggestion="pass the output of `ceph config dump --format json` as it is",
        ) from None
    every_option = isinstance(data, dict)
    if every_option:  # `ceph daemon X config show`: {name: value} for every option, defaults included
        data = [{"name": k, "value": v} for k, v in data.items()]
    if not isinstance(data, list) or not all(isinstance(x, dict) and "name" in x for x in data):
        raise ConfSyntaxError(
            'not Ceph config JSON: expected a list of objects with a "name"',
            file=filename,
            line=1,
            column=1,
            suggestion="use `ceph config dump --format json` or `ceph config show WHO --format json`",
        )
    who = _WHO.search(filename)
    default_section = who[1] if who else "global"
    shown = data[0]["value"] if every_option and data and data[0]["name"] == "name" else None
    if isinstance(shown, str) and "." in shown:  # config show starts with the daemon's own name
        default_section = shown
    positions = _key_positions(text, data) if every_option else [m.start() for m in _NAME.finditer(text)]
    for i, item in enumerate(data):
        offset = positions[i] if i < len(positions) else 0
        line, col = position(text, offset)
        value = item.get("value")
        section = str(item.get("section") or default_section)
        mask = item.get("mask")
        flags: tuple[str, ...] = (f"mask:{mask}",) if mask else ()
        if item.get("source"):
            flags += (f"source:{item['source']}",)
        if every_option:
            flags += ("every-option",)
        doc.entries.append(
            Entry(
                section,
                str(item["name"]),
                str(item["name"]),
                None if value is None else str(value),
                line,
                col,
                line,
                col,
                flags=flags,
            )
        )
    doc.line_count = text.count("\n") + 1
    return doc


def _key_positions(text: str, items: list[dict[str, Any]]) -> list[int]:
    """Where each key of a {name: value} object starts, in order (json.loads keeps the text's order)."""
    out, at = [], 0
    for item in items:
        found = text.find(json.dumps(item["name"]) + ":", at)
        if found < 0:
            found = text.find(json.dumps(item["name"]), at)
        out.append(max(found, 0))
        at = max(found, at)
    return out


def render(doc: ConfDoc) -> str:
    """The entries as a `ceph config dump`-style JSON list."""
    items = [{"section": e.section, "name": e.key, "value": e.value} for e in doc.entries]
    return json.dumps(items, indent=1) + "\n"

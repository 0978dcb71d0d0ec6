"""The knob vocabulary, read from data/knobs/knob.schema.json: its fields, the allowed values of each
enumerated field and what every field and value means.

The schema is the single source: the model's value sets, the loader's field checks, the knob card, the
book's knob reference and the dependency facts all read them here instead of restating them. An
enumerated value is written in the schema as `oneOf: [{const: VALUE, description: MEANING}, ...]`.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from flashtune.paths import knobs_dir

SCHEMA_FILE = "knob.schema.json"


@cache
def schema() -> dict[str, Any]:
    with open(knobs_dir() / SCHEMA_FILE, encoding="utf-8") as f:
        data: dict[str, Any] = json.loads(f.read())
    return data


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _resolve(schema()["$defs"][ref.removeprefix("#/$defs/")])
    return node


def _object(name: str) -> dict[str, Any]:
    """A record of the schema: 'knob' (default), 'unsafe', 'gone', 'deadWhen', ..."""
    return _resolve(schema()["$defs"][name])


def _node(path: str) -> dict[str, Any]:
    """'type' -> the knob's type field; 'deadWhen.kind' -> a field of another record; 'release' -> a $def."""
    record, _, field = path.rpartition(".")
    props = _object(record or "knob")["properties"]
    if field in props:
        return _resolve(props[field])
    return _resolve(schema()["$defs"][field])


def _choices(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The oneOf-const list of a node, looking through arrays, maps and property-name sets."""
    own = [c for c in node.get("oneOf", []) if "const" in c]
    if own:
        return own
    for key in ("items", "propertyNames", "additionalProperties"):
        inner = node.get(key)
        found = _choices(_resolve(inner)) if isinstance(inner, dict) else []
        if found:
            return found
    return []


def meanings(path: str) -> dict[str, str]:
    """Allowed value -> meaning, in schema order, e.g. meanings('effect')['restart']."""
    found = {str(c["const"]): str(c.get("description", "")) for c in _choices(_node(path))}
    if not found:
        raise KeyError(f"{path} is not an enumerated field of {SCHEMA_FILE}")
    return found


def values(path: str) -> tuple[str, ...]:
    """The allowed values of an enumerated field, in schema order."""
    return tuple(meanings(path))


def fields(record: str = "knob") -> dict[str, str]:
    """Field -> meaning of a record, in schema order."""
    props = _object(record)["properties"]
    return {
        name: str(node.get("description") or _resolve(node).get("description", ""))
        for name, node in props.items()
    }


def required(record: str = "knob") -> tuple[str, ...]:
    return tuple(_object(record).get("required", ()))

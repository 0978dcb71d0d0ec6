"""CBT YAML emitter: a CBT test-plan document (cluster, client_endpoints, benchmarks) as block YAML.

A small writer of its own: CBT plans are only mappings, lists of scalars and scalars, and importing a
YAML library would cost the CLI more start-up time than the whole compile.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from flashtune.emit.common import header

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"
_PLAIN_CHARS = _LETTERS + _DIGITS + "_./+-"
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "none", "~", "y", "n"}


def plain(s: str) -> bool:
    """May s be written unquoted? Letters, digits and _./+- only, starting with a letter or _./, or with digits
    then a letter (so never a number). String methods, not a regular expression: start-up
    (tests/test_str_scanners.py checks it against the pattern it replaced)."""
    if not s or s.strip(_PLAIN_CHARS):
        return False
    if s[0] in _LETTERS or s[0] in "_./":
        return True
    rest = s.lstrip(_DIGITS)
    return rest != s and rest != "" and rest[0] in _LETTERS


def scalar(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    s = str(v)
    if plain(s) and s.lower() not in _RESERVED:
        return s
    return json.dumps(s)  # a JSON string is a valid double-quoted YAML scalar


def _lines(node: Mapping[str, Any], indent: int) -> list[str]:
    pad = "  " * indent
    out: list[str] = []
    for k, v in node.items():
        key = scalar(k)
        if isinstance(v, Mapping):
            if v:
                out.append(f"{pad}{key}:\n")
                out.extend(_lines(v, indent + 1))
            else:
                out.append(f"{pad}{key}: {{}}\n")
        elif isinstance(v, (list, tuple)):
            if all(not isinstance(x, (Mapping, list, tuple)) for x in v):
                out.append(f"{pad}{key}: [{', '.join(scalar(x) for x in v)}]\n")
            else:
                out.append(f"{pad}{key}:\n")
                for x in v:
                    sub = _lines(x, indent + 2) if isinstance(x, Mapping) else [f"{pad}    {scalar(x)}\n"]
                    out.append(f"{pad}  - {sub[0].lstrip()}")
                    out.extend(sub[1:])
        else:
            out.append(f"{pad}{key}: {scalar(v)}\n")
    return out


def dump(doc: Mapping[str, Any]) -> str:
    return "".join(_lines(doc, 0))


def emit(doc: Mapping[str, Any], inputs: Mapping[str, Any], note: str = "") -> str:
    lead = header("#", inputs)
    if note:
        lead += "".join(f"# {line}\n" for line in note.splitlines())
    return lead + dump(doc)

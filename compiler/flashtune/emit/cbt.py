"""CBT YAML emitter: a CBT test-plan document (cluster, client_endpoints, benchmarks) as block YAML.

A small writer of its own: CBT plans are only mappings, lists of scalars and scalars, and the layout written
(block style, keys in the plan's order, strings quoted only where YAML would read them as something else)
stays the same from one PyYAML version to the next.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from flashtune.emit.common import header

# a string written unquoted: starting with a letter or _./, or digits then a letter (so never a number)
_PLAIN = re.compile(r"[A-Za-z_./][A-Za-z0-9_./+-]*|[0-9]+[A-Za-z][A-Za-z0-9_./+-]*")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "none", "~", "y", "n"}


def plain(s: str) -> bool:
    """May s be written unquoted? Letters, digits and _./+- only, starting with a letter or _./, or with digits
    then a letter (so never a number)."""
    return _PLAIN.fullmatch(s) is not None


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

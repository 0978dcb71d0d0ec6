"""Small MyST Markdown writers: code spans, tables and labels that survive any text we put in them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

_LABEL_BAD = re.compile(r"[^a-z0-9-]+")  # Sphinx turns "_" into "-" in HTML ids anyway


def code(text: object) -> str:
    """An inline code span that may itself contain backticks."""
    s = str(text)
    fence = "`"
    while fence in s:
        fence += "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def cell(text: object) -> str:
    """Text safe inside a table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def label(*parts: str) -> str:
    """A Sphinx label built from parts: lower case, [a-z0-9-] only, so it equals the HTML id."""
    return _LABEL_BAD.sub("-", "-".join(parts).lower()).strip("-")


def ref(text: str, target: str) -> str:
    """A cross-reference to a label anywhere in the book (nitpicky builds fail on a dangling one)."""
    safe = text.replace("<", "\\<").replace("`", "")
    return f"{{ref}}`{safe} <{target}>`"


def value(v: Any) -> str:
    """A default or limit as the reader would write it in a config file."""
    if v is None:
        return "(unset)"
    if isinstance(v, bool):
        return code("true" if v else "false")
    if isinstance(v, float) and v.is_integer():
        return code(int(v))
    if isinstance(v, list | tuple):
        return ", ".join(code(x) for x in v) or "(empty)"
    if isinstance(v, dict):
        return ", ".join(f"{k}={code(x)}" for k, x in v.items())
    return code(v) if str(v) != "" else '`""`'


def plain(text: str) -> str:
    """Prose from data files, shown as written: roles, substitutions and raw HTML ("<id>") are escaped."""
    return text.replace("{", "\\{").replace("$", "\\$").replace("<", "\\<").strip()

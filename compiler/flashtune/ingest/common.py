"""Helpers the tool parsers share: reading an output file, locating a problem, parsing sizes."""

from __future__ import annotations

import re
from pathlib import Path

from flashtune.errors import FlashtuneError
from flashtune.fileio import read_text

# Benchmark outputs can be big (fio json+ with many jobs), but text summaries are never near this.
MAX_TEXT_BYTES = 256 * 1024 * 1024

_SIZE = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[kmgtpe]?)(?P<ib>i?)(?P<b>b?)(?:ytes?)?\s*$", re.I)
_POW = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6}


def read_output(path: Path) -> str:
    """A tool's text output, decoded, with flashtune's usual errors for missing/binary files."""
    return read_text(path, max_bytes=MAX_TEXT_BYTES)


def line_of_offset(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, max(0, offset)) + 1


def last_line(text: str) -> int:
    """Line number of the last non-blank line: where a cut-off output stops."""
    return line_of_offset(text, len(text.rstrip()))


def bad_input(
    path: Path | str, message: str, *, line: int | None = None, hint: str | None = None
) -> FlashtuneError:
    return FlashtuneError(message, file=str(path), line=line, suggestion=hint)


def parse_size(text: str, *, binary: bool = True) -> int | None:
    """'4k', '64KiB', '1 MiB', '128g', '262144 bytes', '4096' -> bytes (k = 1024, as fio and IOR mean it).

    Returns None for anything that is not a single size (ranges, splits, empty).
    """
    m = _SIZE.match(text or "")
    if not m:
        return None
    base = 1024 if binary or m.group("ib") else 1000
    size: float = float(m.group("num")) * base ** _POW[m.group("unit").lower()]
    return round(size)


def as_int(value: object) -> int | None:
    """A count from JSON/text (int, '16', '16.0'), or None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        f = float(str(value).strip())
    except ValueError:
        return None
    return int(f) if f == f else None  # NaN -> None


def as_float(value: object) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(str(value).strip())
    except ValueError:
        return None

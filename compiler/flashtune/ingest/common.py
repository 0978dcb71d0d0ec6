"""Helpers the tool parsers share: reading an output file, locating a problem, parsing sizes."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashtune.errors import FlashtuneError
from flashtune.fileio import read_text
from flashtune.units import IEC, SI

if TYPE_CHECKING:
    import pandas as pd

# Benchmark outputs can be big (fio json+ with many jobs), but text summaries are never near this.
MAX_TEXT_BYTES = 256 * 1024 * 1024

_SIZE = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[kmgtpe]?)(?P<ib>i?)(?P<b>b?)(?:ytes?)?\s*$", re.I)


def read_output(path: Path) -> str:
    """A tool's text output, decoded, with flashtune's usual errors for missing/binary files."""
    return read_text(path, max_bytes=MAX_TEXT_BYTES)


def read_tool_output(path: Path, looks_like: Callable[[str], bool], tool: str, hint: str) -> str:
    """A tool's output, refused at line 1 when it is not that tool's (e.g. the wrong file was passed)."""
    text = read_output(path)
    if not looks_like(text):
        raise bad_input(path, f"this is not {tool} output", line=1, hint=hint)
    return text


def results_frame(path: Path, rows: Iterable[Mapping[str, Any]], fmt: str, *, line: int | None, problem: str,
                  hint: str) -> pd.DataFrame:  # fmt: skip
    """The parsed rows as a schema frame tagged with its format; no rows means a cut-off or failed run."""
    from flashtune.ingest.schema import to_frame  # pandas: only once there is something to build

    rows = list(rows)
    if not rows:
        raise bad_input(path, problem, line=line, hint=hint)
    df = to_frame(rows)
    df["format"] = fmt
    return df


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
    table = IEC if binary or m.group("ib") else SI
    return round(float(m.group("num")) * table[m.group("unit").lower()])


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

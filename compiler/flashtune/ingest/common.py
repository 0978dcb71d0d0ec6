"""Helpers the tool parsers share: reading an output file, locating a problem, parsing sizes."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from flashtune.errors import FlashtuneError, position
from flashtune.ingest.schema import to_frame
from flashtune.ingest.textio import decode, strip_line_prefixes
from flashtune.units import IEC, SI

# Benchmark outputs can be big (fio json+ with many jobs), but text summaries are never near this.
MAX_TEXT_BYTES = 256 * 1024 * 1024

_SIZE = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[kmgtpe]?)(?P<ib>i?)(?P<b>b?)(?:ytes?)?\s*$", re.I)


# What was done to read a file (decompressed, decoded as UTF-16, prefixes removed): (file, note) pairs
# collected while loading, for the CLI to print; flashtune.ingest.load_many drains them.
NOTES: list[tuple[str, str]] = []


def note(path: Path | str, message: str) -> None:
    NOTES.append((str(path), message))


def take_notes() -> list[tuple[str, str]]:
    out = list(NOTES)
    NOTES.clear()
    return out


def read_bytes(path: Path, limit: int = MAX_TEXT_BYTES) -> bytes:
    try:
        if path.is_dir():
            raise bad_input(path, "is a directory, not a file", hint="pass a file path")
        size = path.stat().st_size
        if size > limit:
            raise bad_input(
                path,
                f"file is {size} bytes, more than the {limit} bytes read as a text report",
                hint="fio logs are streamed: keep their name PREFIX_clat.N.log so they are recognised",
            )
        return path.read_bytes()
    except FileNotFoundError:
        raise bad_input(path, "no such file", hint="check the path") from None
    except PermissionError:
        raise bad_input(path, "permission denied", hint="check the file's permissions") from None
    except OSError as e:
        raise bad_input(path, f"cannot read: {e.strerror}") from None


def read_output(path: Path) -> str:
    """A tool's text output, decoded (gzip, BOM, UTF-16, stray Latin-1 bytes handled and noted), with
    launcher prefixes (`CPU 3: `, `host: `) removed; clear errors for missing, empty or binary files."""

    raw = read_bytes(path)
    if not raw.strip():
        raise bad_input(path, "file is empty", line=1, hint="the benchmark wrote nothing; re-run it")
    got = decode(raw, path, limit=MAX_TEXT_BYTES)
    for n in got.notes:
        note(path, n)
    text, stripped = strip_line_prefixes(got.text)
    if stripped:
        note(path, stripped)
    return text.lstrip("\ufeff")


def read_tool_output(path: Path, looks_like: Callable[[str], bool], tool: str, hint: str) -> str:
    """A tool's output, refused at line 1 when it is not that tool's (e.g. the wrong file was passed)."""
    text = read_output(path)
    if not looks_like(text):
        raise bad_input(path, f"this is not {tool} output", line=1, hint=hint)
    return text


def results_frame(
    path: Path, rows: Iterable[Mapping[str, Any]], fmt: str, *, line: int | None, problem: str, hint: str
) -> pd.DataFrame:
    """The parsed rows as a schema frame tagged with its format; no rows means a cut-off or failed run."""

    rows = list(rows)
    if not rows:
        raise bad_input(path, problem, line=line, hint=hint)
    df = to_frame(rows)
    df["format"] = fmt
    return df


def line_of_offset(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return position(text, offset)[0]


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

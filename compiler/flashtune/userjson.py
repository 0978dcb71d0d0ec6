"""The one reader for JSON that users give flashtune (lint input, `ceph config dump` files, `--against`, fio,
IOR and sysbench JSON, an output folder's manifest.json), built on the standard library's json with limits.

The stdlib decoder alone turns hostile but valid JSON into tracebacks or huge memory: nesting a few
thousand deep raises RecursionError, an integer of more than 4,300 digits ValueError, and 64 MiB of `[],`
becomes 21 million lists (well over a GiB). Here:
- nesting deeper than Python's decoder can follow is an error naming the line and column where it goes past
  MAX_DEPTH levels;
- an integer longer than MAX_INT_DIGITS digits is an error with its line and column (no program flashtune
  reads prints one; a shorter one would overflow every float and int64 it is compared with);
- a text with more than MAX_ITEMS values is refused before it is decoded (counted from the text: every
  value but the first follows a `,` or opens or starts a container), which bounds memory by the count
  rather than only by the bytes.
Values come back as `object`: what users give must be checked before it is used. Syntax errors stay
json.JSONDecodeError, so each reader keeps its own words for them (`loads` turns them into
a FlashtuneError with the line and column for readers that have none).
"""

from __future__ import annotations

import json
import re

from flashtune.errors import DataError, position

MAX_DEPTH = 500
MAX_INT_DIGITS = 300
MAX_ITEMS = 5_000_000

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)
_LONG_INT = re.compile(rf"-?\d{{{MAX_INT_DIGITS + 1},}}")


class _IntTooLong(ValueError):
    pass


def _int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS + 1:  # (+1: a minus sign)
        raise _IntTooLong(text)
    return int(text)


_DECODER = json.JSONDecoder(parse_int=_int)


def _deep_at(text: str, start: int) -> int:
    """Offset of the bracket that takes the nesting past MAX_DEPTH (strings skipped); -1 if none."""
    depth = 0
    for m in _TOKEN.finditer(text, start):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return m.start()
        elif c in "]}":
            depth -= 1
            if depth <= 0:
                return -1
    return -1


def _refuse(text: str, offset: int, message: str, file: str, hint: str) -> DataError:
    line, column = position(text, offset)
    return DataError(message, file=file, line=line, column=column, suggestion=hint)


def check_size(text: str, *, file: str) -> None:
    """Refuse a text holding more than MAX_ITEMS JSON values (an upper bound counted in C, before decoding).
    decode() leaves this to its caller, who reads several values from one text; loads() does it."""
    items = text.count(",") + text.count("[") + text.count("{")
    if items > MAX_ITEMS:
        raise DataError(
            f"holds more than {MAX_ITEMS:,} JSON values (about {items:,}); flashtune does not read it",
            file=file,
            suggestion="pass the benchmark's or the tool's own JSON output, not a file built around it",
        )


def decode(text: str, start: int = 0, *, file: str) -> tuple[object, int]:
    """The JSON value that begins at `start` (json.JSONDecoder.raw_decode, limited) and where it ends.
    Raises json.JSONDecodeError for a syntax error, DataError (file:line:col) past the depth or digit limit.
    Call check_size(text) once first."""
    try:
        return _DECODER.raw_decode(text, start)
    except RecursionError:
        at = _deep_at(text, start)
        raise _refuse(
            text,
            max(at, start),
            f"JSON is nested more than {MAX_DEPTH} levels deep",
            file,
            "no tool flashtune reads writes JSON this deep; check that it is the file you meant",
        ) from None
    except _IntTooLong as e:
        m = _LONG_INT.search(text, start)
        raise _refuse(
            text,
            m.start() if m else start,
            f"JSON holds an integer of {len(str(e).lstrip('-'))} digits (at most {MAX_INT_DIGITS} are read)",
            file,
            "no measurement or setting is that long; check that it is the file you meant",
        ) from None


def parse(text: str, *, file: str) -> object:
    """A whole JSON document, limited: json.loads with the limits (a syntax error, or text after the value,
    stays json.JSONDecodeError for the caller's own message; a limit is a DataError)."""
    check_size(text, file=file)
    start = len(text) - len(text.lstrip())
    doc, end = decode(text, start, file=file)
    if text[end:].strip():
        raise json.JSONDecodeError("Extra data", text, end + len(text[end:]) - len(text[end:].lstrip()))
    return doc


def loads(text: str, *, file: str, what: str = "JSON") -> object:
    """A whole JSON document, limited; every failure (syntax too) a DataError with file:line:col."""
    try:
        doc = parse(text, file=file)
    except json.JSONDecodeError as e:
        raise DataError(
            f"not valid {what}: {e.msg}",
            file=file,
            line=e.lineno,
            column=e.colno,
            suggestion="pass the file as the tool wrote it (a cut-off file ends before its brackets close)",
        ) from None
    return doc

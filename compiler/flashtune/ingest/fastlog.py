"""Vectorised numpy reader for fio logs: whole byte blocks parsed at once, no per-line Python objects.

fio writes every log line as `time, value, ddir, bs[, offset], prio\\n` with plain non-negative integers
separated by ", ". A block of such lines is parsed with a handful of numpy passes over its bytes:

* checks: no byte above '9'; the bytes below '0' (one flatnonzero) are exactly ", " x (fields - 1) + "\\n"
  (or "\\r\\n") per line, fields counted on the file's first line; two such bytes are adjacent only as
  ", " or "\\r\\n". Together these prove every field is a run of 1+ digits;
* the positions of those bytes give each field's end and length;
* each wanted field (<= 18 digits) is read as little-endian 8-byte words ending at the field end (an
  unaligned strided uint64 view of the block, so one gather per word), bytes before the field are
  masked off, and the 8 ASCII digits are combined in 3 multiply-shift steps (the SWAR "parse eight
  digits" trick), all on uint64 arrays.

Anything else (blank lines inside a block, signs, other spacing, more than 18 digits, ...) makes
`parse_block` return None and the caller hands that block to pandas' C parser, the reference reader,
which gives the same numbers for valid lines and the exact line of a bad one. So the fast path never
changes a result; it only skips work for the lines fio really writes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

import numpy as np

PAD = 8  # bytes kept in front of every block so an 8-byte word can end at any field end
BLOCK_BYTES = 1024 * 1024  # ~42 k lines: numpy temporaries stay in the CPU caches (4 MiB blocks: -25 %)
MAX_DIGITS = 18  # two or three 8-digit words; longer numbers go to the reference parser
_ZERO8 = 0x3030303030303030
_PADDING = b"0" * PAD

# MASK[L]: keep the top L bytes of a little-endian word (the L digits that end the word)
_MASK = np.array([((1 << (8 * L)) - 1) << (8 * (8 - L)) for L in range(9)], dtype=np.uint64)
_SUB = _MASK & np.uint64(_ZERO8)


def _eight(words: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Decimal value of the last `length` (0..8) ASCII digits of each little-endian uint64 word."""
    x: np.ndarray = words - _SUB[length]  # '0' -> 0 in the field's bytes (no borrow: they are digits)
    x &= _MASK[length]  # the bytes before the field -> 0 (leading zeros)
    # pairs of digits, then groups of 4, then all 8: x = x * 10^k + (x >> 8k), keeping the low lanes
    for mul, shift, keep in (
        (10, 8, 0x00FF00FF00FF00FF),
        (100, 16, 0x0000FFFF0000FFFF),
        (10000, 32, 0xFFFFFFFF),
    ):
        y = x >> np.uint64(shift)
        x *= np.uint64(mul)
        x += y
        x &= np.uint64(keep)
    return x


def _field(words: np.ndarray, end: np.ndarray, length: np.ndarray) -> np.ndarray | None:
    """int64 value of the digit fields ending (exclusive) at `end` byte offsets, `length` digits long."""
    top = int(length.max())
    if top > MAX_DIGITS:
        return None
    if top <= 8:
        return _eight(words[end - 8], length).view(np.int64)
    n8 = np.minimum(length, 8)
    val = _eight(words[end - 8], n8)
    rest = length - n8
    # a shorter field near the block start would index before it: its extra words are masked to 0 anyway
    if top <= 16:
        val += _eight(words[np.maximum(end - 16, 0)], rest) * np.uint64(10**8)
        return val.view(np.int64)
    n16 = np.minimum(rest, 8)
    val += _eight(words[np.maximum(end - 16, 0)], n16) * np.uint64(10**8)
    val += _eight(words[np.maximum(end - 24, 0)], rest - n16) * np.uint64(10**16)
    return val.view(np.int64)


def count_fields(first_line: bytes) -> int:
    """Fields on a fio log line (the file's first line fixes it, as it does for pandas)."""
    return first_line.count(b",") + 1


_TILES: dict[bytes, np.ndarray] = {}


def _tiles(row: bytes, n: int) -> np.ndarray:
    """The non-digit bytes of n valid lines, in order."""
    have = _TILES.get(row)
    if have is None or len(have) < n * len(row):
        have = _TILES[row] = np.tile(np.frombuffer(row, np.uint8), max(n, 1 << 16))
    return have[: n * len(row)]


def parse_block(
    buf: bytearray, nfields: int, *, with_bs: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Parse buf[PAD:] (whole lines, ending with a newline) into (time, value, ddir int8, bs) arrays.

    Returns None if any line is not in fio's exact layout (the caller then uses the reference parser).
    """
    if nfields < 4 or len(buf) <= PAD or buf[-1] != 0x0A:
        return None
    a = np.frombuffer(buf, dtype=np.uint8)
    if a.max() > 0x39:  # above '9': letters, '.', ... never in a fio log
        return None
    # every byte below '0' (separators, spaces, signs, '.', ...) in order; digits fill the gaps
    low = a < 0x30
    nd = np.flatnonzero(low)
    crlf = len(nd) > 2 * nfields - 1 and a[nd[2 * nfields - 2]] == 0x0D
    row = b", " * (nfields - 1) + (b"\r\n" if crlf else b"\n")
    m = len(row)
    n, odd = divmod(len(nd), m)
    if odd or n == 0 or nd[0] <= PAD:  # first field of the first line is empty
        return None
    if not np.array_equal(a[nd], _tiles(row, n)):
        return None
    # two non-digits in a row only as ', ' (and '\r\n'): no field is empty, no field has a space inside
    pairs = low[:-1] & low[1:]
    ahead = a[:-1] == 0x2C
    if crlf:
        ahead |= a[:-1] == 0x0D
    if not np.array_equal(pairs, ahead):
        return None
    r = nd.reshape(n, m)
    words = np.ndarray(shape=(len(buf) - 7,), dtype="<u8", buffer=buf, offset=0, strides=(1,))
    end0 = r[:, 0]
    start0 = np.empty(n, dtype=np.int64)
    start0[0] = PAD
    start0[1:] = r[:-1, m - 1] + 1
    t = _field(words, end0, end0 - start0)
    end1 = r[:, 2]
    v = _field(words, end1, end1 - r[:, 1] - 1)
    if t is None or v is None:
        return None
    end2 = r[:, 4]
    if not (end2 - r[:, 3] == 2).all():
        return None  # ddir is one digit (0/1/2) in fio; anything else goes to the reference parser
    d = (a[end2 - 1] - 0x30).view(np.int8)
    if with_bs:
        end3 = r[:, 6]
        bs = _field(words, end3, end3 - r[:, 5] - 1)
        if bs is None:
            return None
    else:
        bs = np.zeros(0, np.int64)
    return t, v, d, bs


def iter_blocks(f: IO[bytes], block_bytes: int = BLOCK_BYTES, end: int | None = None) -> Iterator[bytearray]:
    """Yield blocks of whole lines read from f's position up to `end` (or EOF), PAD '0's in front.

    Only the last block can lack a final newline, and only if the file does.
    """
    rest = b""
    pos = f.tell()
    while True:
        want = block_bytes if end is None else min(block_bytes, end - pos)
        data = f.read(want) if want > 0 else b""
        pos += len(data)
        if not data:
            if rest:
                yield bytearray(_PADDING) + rest
            return
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest += data
            continue
        buf = bytearray(PAD + len(rest) + cut)
        buf[:PAD] = _PADDING
        buf[PAD : PAD + len(rest)] = rest
        buf[PAD + len(rest) :] = memoryview(data)[:cut]
        rest = data[cut:]
        yield buf

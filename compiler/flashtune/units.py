"""Unit multipliers shared by every parser that reads sizes (Ceph, MySQL, benchmark outputs) and durations.

Each tool decides which table its suffixes mean (Ceph sizes and MySQL numbers: IEC; Ceph int options: SI);
the tables themselves live only here.
"""

from __future__ import annotations

# size suffix (lower case) -> bytes, powers of 1024
IEC: dict[str, int] = {
    "": 1,
    "k": 1 << 10,
    "m": 1 << 20,
    "g": 1 << 30,
    "t": 1 << 40,
    "p": 1 << 50,
    "e": 1 << 60,
}
# the same suffixes as powers of 1000
SI: dict[str, int] = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "p": 10**15, "e": 10**18}
# duration suffix -> seconds
SECONDS: dict[str, int] = {
    "": 1,
    "s": 1,
    "sec": 1,
    "m": 60,
    "min": 60,
    "h": 3600,
    "hr": 3600,
    "d": 86400,
    "day": 86400,
    "week": 7 * 86400,
}


def lead_int(text: str, signs: str = "+-") -> tuple[str, str] | None:
    """(the integer text starts with, the rest): an optional sign from `signs`, then a run of decimal digits
    (any Unicode decimal digit, like int() and the regular expression \\d), or None without digits.

    A string scan rather than a regular expression: compiling one pattern costs more of a CLI's start-up
    than all the values it reads (tests/test_units.py checks it against the patterns it replaced).
    """
    start = 1 if text[:1] and text[0] in signs else 0
    end = start
    n = len(text)
    while end < n and text[end].isdecimal():
        end += 1
    return (text[:end], text[end:]) if end > start else None

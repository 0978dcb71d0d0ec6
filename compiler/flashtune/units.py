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

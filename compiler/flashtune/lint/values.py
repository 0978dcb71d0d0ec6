"""Typed reading of config values as each consumer reads them (Ceph option types, MySQL sizes, sysctl ints).

Each parser returns the number (for range checks) or raises ValueError with a short reason.
"""

from __future__ import annotations

import re
import uuid

from flashtune.units import IEC as _IEC
from flashtune.units import SECONDS
from flashtune.units import SI as _SI

# Ceph's strict_iec_cast (sizes) and strict_si_cast (integers), src/common/strtol.cc, as ceph-conf 16.2.15 reads
# them (tests/real/test_lint_cephconf_real.py probes every form): upper-case prefixes only; a size's unit is at most two
# characters of which only the first counts ("1KB", "1Ki", even "1Kx" are 1024; "1KiB", "64k", "1 K" fall back
# to the default), "Bi" is refused; integers take one SI prefix (1K = 1000) and nothing after it.
_CEPH_INT = re.compile(r"([+-]?\d+)([KMGTPE]?)")
_CEPH_SIZE = re.compile(r"\+?(\d+)(?:([KMGTPEB])(.?))?")
_CEPH_DURATION = re.compile(r"(\d+)\s*([a-z]*)", re.IGNORECASE)
# MySQL/MariaDB: one suffix letter, either case, and whatever follows it is ignored
_MYSQL_NUMBER = re.compile(r"([+-]?\d+)(?:([kmgtpe]).*)?", re.IGNORECASE | re.DOTALL)
_INTEGER = re.compile(r"[+-]?\d+")
_DURATION = {k: v for k, v in SECONDS.items() if k != "week"}  # Ceph's duration parser has no weeks
INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1
# Ceph's booleans (Option::parse_value, src/common/options.cc, as ceph-conf 16.2.15 reads them): true or false in
# any case, or a whole number (non-zero is true); yes/no/on/off are refused and the option keeps its default
CEPH_BOOLS = {"true": True, "false": False}
MYSQL_BOOLS = {
    "on": True,
    "off": False,
    "true": True,
    "false": False,
    "1": True,
    "0": False,
    "yes": True,
    "no": False,
}


def ceph_value(type_: str, text: str) -> float | int | bool | None:
    """Parse text as Ceph's option type; the number for numeric types, None where there is nothing to compare."""
    t = text.strip()
    if type_ in ("int", "uint"):
        m = _CEPH_INT.fullmatch(t)
        if m is None:
            raise ValueError(f"{t!r} is not an integer Ceph reads (digits, then at most one of K M G T P E)")
        v = int(m[1]) * _SI[m[2].lower()]
        if type_ == "uint" and v < 0:
            raise ValueError(f"{t!r} is negative but the option is unsigned")
        if v > (UINT64_MAX if type_ == "uint" else INT64_MAX) or v < -INT64_MAX - 1:
            raise ValueError(f"{t!r} does not fit in 64 bits")
        return v
    if type_ == "size":
        m = _CEPH_SIZE.fullmatch(t)
        if m is None or (m[2] == "B" and m[3] == "i"):
            raise ValueError(
                f"{t!r} is not a size Ceph reads (digits, then an optional upper-case K/M/G/T/P/E, "
                "optionally followed by i or B; no blank, no KiB)"
            )
        v = int(m[1]) * _IEC[(m[2] or "").lower().replace("b", "")]
        if v > UINT64_MAX:
            raise ValueError(f"{t!r} does not fit in 64 bits")
        return v
    if type_ in ("secs", "millisecs"):
        d = _CEPH_DURATION.fullmatch(t)
        if not d or (d[2].lower() not in _DURATION and not (type_ == "millisecs" and d[2].lower() == "ms")):
            raise ValueError(f"{t!r} is not a duration")
        return int(d[1])
    if type_ == "float":
        try:
            f = float(t)
        except ValueError:
            raise ValueError(f"{t!r} is not a number") from None
        if f != f or f in (float("inf"), float("-inf")):
            raise ValueError(f"{t!r} is not a finite number")
        return f
    if type_ == "bool":
        if t.lower() in CEPH_BOOLS:
            return CEPH_BOOLS[t.lower()]
        if _INTEGER.fullmatch(t) and abs(int(t)) <= INT64_MAX:
            return int(t) != 0
        raise ValueError(f"{t!r} is not a boolean Ceph reads (true/false or a number; not yes/no/on/off)")
    if type_ == "uuid":
        try:
            uuid.UUID(t)
        except ValueError:
            raise ValueError(f"{t!r} is not a UUID") from None
        return None
    return None


def mysql_value(type_: str, text: str) -> float | int | bool | None:
    """MySQL/MariaDB option values: K/M/G/T/P/E suffixes are powers of 1024 for every numeric option. The
    servers' eval_num_suffix (my_getopt.c) reads one suffix letter, either case, and ignores what follows it
    ("2GB" is 2G), but refuses any other character after the digits ("1 G", "1.5G", "0x10")."""
    t = text.strip()
    if type_ in ("int", "uint", "size"):
        m = _MYSQL_NUMBER.fullmatch(t)
        if m is None:
            raise ValueError(f"{t!r} is not a number (digits with an optional K/M/G suffix)")
        v = int(m[1]) * _IEC[(m[2] or "").lower()]
        if type_ != "int" and v < 0:
            raise ValueError(f"{t!r} is negative")
        return v
    if type_ == "float":
        try:
            return float(t)
        except ValueError:
            raise ValueError(f"{t!r} is not a number") from None
    if type_ == "bool":
        if t.lower() not in MYSQL_BOOLS:
            raise ValueError(f"{t!r} is not a boolean (ON/OFF)")
        return MYSQL_BOOLS[t.lower()]
    return None


def sysctl_value(type_: str, text: str) -> float | int | bool | None:
    """sysctl values: integers (first of a multi-value entry is compared), or free strings."""
    parts = text.split()
    if type_ in ("int", "uint", "size", "secs", "millisecs", "bool"):
        if not parts:
            raise ValueError("empty value")
        for p in parts:
            if not _INTEGER.fullmatch(p):
                raise ValueError(f"{p!r} is not an integer")
        return int(parts[0]) if len(parts) == 1 else None
    return None

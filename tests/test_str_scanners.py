"""The string-method scanners that replaced regular expressions on the compile path (compiling one pattern costs
compile-config's start-up about as much as a small module import) accept exactly what the patterns did.

Each scanner is compared with its former pattern on every single character, on hand-picked edge cases and on
many random strings over an alphabet of the characters the pattern treats specially.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from typing import Any

import pytest

from flashtune.catalog.model import _words
from flashtune.emit.cbt import plain
from flashtune.lint.sysctl import _forms, is_glob
from flashtune.lint.values import ceph_value, mysql_value, sysctl_value
from flashtune.parse.cephconf import simple_key_line
from flashtune.units import IEC, SI, lead_int

# Characters every pattern below cares about, plus look-alikes: Unicode digits (\d matches them), the Kelvin sign
# (re.IGNORECASE matches it to k), blanks of every kind, separators, a dotless i, letters that case-fold oddly.
_TRICKY = "0123456789+-.,;:=#[]*?_/ \t\r\f\v\x1c\n\u00a0\u2003\u0663\uff11\u212a\u0130\u0131\u017fkKmMgGtTpPeEbBiIsx"
# Single characters: all of ASCII and every other character a Unicode rule could treat unlike a plain letter
# (digits and numerals, blanks, characters that change case).
_ALL_CHARS = [
    c
    for c in map(chr, range(sys.maxunicode + 1))
    if c.isascii() or c.isnumeric() or c.isspace() or c.lower() != c or c.upper() != c
]


def _random_strings(n: int, alphabet: str = _TRICKY, longest: int = 8, seed: int = 12) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest))) for _ in range(n)]


def _outcome(f: Callable[[str], Any], s: str) -> Any:
    try:
        return ("ok", f(s))
    except ValueError:
        return ("refused",)


# --- units.lead_int and the value readers built on it ----------------------------------------------------------


def _lead_int_by_re(s: str, signs: str) -> tuple[str, str] | None:
    m = re.match(rf"[{re.escape(signs)}]?\d+", s)
    return (m[0], s[m.end() :]) if m else None


@pytest.mark.parametrize("signs", ["+-", "+"])
def test_lead_int_agrees_with_an_optional_sign_and_digits(signs: str) -> None:
    cases = [*_random_strings(20000), *(c + "5" for c in _ALL_CHARS), *_ALL_CHARS]
    for s in cases:
        assert lead_int(s, signs) == _lead_int_by_re(s, signs), repr(s)


def _ceph_int_by_re(text: str) -> int:
    t = text.strip()
    m = re.match(r"^([+-]?\d+)([KMGTPE]?)$", t)
    if not m:
        raise ValueError
    v = int(m[1]) * SI[m[2].lower()]
    if v > (1 << 63) - 1 or v < -(1 << 63):
        raise ValueError
    return v


def _ceph_size_by_re(text: str) -> int:
    t = text.strip()
    m = re.match(r"^\+?(\d+)(?:([KMGTPEB])(.?))?$", t)
    if not m or (m[2] == "B" and m[3] == "i"):
        raise ValueError
    v = int(m[1]) * IEC[(m[2] or "").lower().replace("b", "")]
    if v > (1 << 64) - 1:
        raise ValueError
    return v


def _mysql_int_by_re(text: str) -> int:
    t = text.strip()
    m = re.match(r"^([+-]?\d+)(?:([kmgtpe]).*)?$", t, re.I | re.S)
    if not m:
        raise ValueError
    return int(m[1]) * IEC[(m[2] or "").lower()]


def _sysctl_int_by_re(t: str) -> int | None:
    parts = t.split()
    if not parts:
        raise ValueError
    for p in parts:
        if not re.match(r"^[+-]?\d+$", p):
            raise ValueError
    return int(parts[0]) if len(parts) == 1 else None


_VALUES = [
    *_random_strings(30000),
    *("12" + c for c in _ALL_CHARS),
    *("12K" + c for c in _ALL_CHARS),
    *("12" + c + "x" for c in "KMGTPEBkmgtpeb\u212a"),
    "",
    "+",
    "-",
    "+-1",
    "--1",
    "1Bi",
    "1KiB",
    "1Ki",
    "1KB",
    "64k",
    "\u0663\u0663",
    "18446744073709551616",
    "18446744073709551615",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
]


@pytest.mark.parametrize(
    ("ours", "pattern"),
    [
        (lambda t: ceph_value("int", t), _ceph_int_by_re),
        (lambda t: ceph_value("size", t), _ceph_size_by_re),
        (lambda t: mysql_value("int", t), _mysql_int_by_re),
    ],
    ids=["ceph-int", "ceph-size", "mysql-int"],
)
def test_value_readers_agree_with_their_former_patterns(
    ours: Callable[[str], Any], pattern: Callable[[str], Any]
) -> None:
    for t in _VALUES:
        assert _outcome(ours, t) == _outcome(pattern, t), repr(t)


def test_sysctl_integers_agree_with_the_former_pattern() -> None:
    for t in [*_VALUES, *_random_strings(5000)]:
        assert _outcome(lambda v: sysctl_value("int", v), t) == _outcome(_sysctl_int_by_re, t), repr(t)


def test_mysql_suffixes_follow_the_server_in_either_case() -> None:
    assert mysql_value("size", "2GB") == 2 << 30
    assert mysql_value("size", "2g") == 2 << 30
    assert mysql_value("int", "-3k") == -3 << 10
    with pytest.raises(ValueError):
        mysql_value("size", "1 G")
    with pytest.raises(ValueError):
        mysql_value("size", "0x10")


# --- ceph.conf key lines ---------------------------------------------------------------------------------------

_KEY_LINE = re.compile(
    r"([ \t]*)([^=#;\[ \t\r\f\v](?:[^=#;\[]*[^=#;\[ \t\r\f\v])?)[ \t\r\f\v]*(=)[ \t\r\f\v]*([^#;]*?)[ \t\r\f\v]*(?:[#;].*)?\Z"
)


def _key_line_by_re(line: str) -> tuple[str, int, str, int] | None:
    m = _KEY_LINE.match(line)
    if m is None:
        return None
    return m[2], m.start(2) + 1, m[4], m.start(4) + 1 if m[4] else m.end(3) + 1


def test_ceph_key_lines_agree_with_the_former_pattern() -> None:
    alphabet = "ab =#;[] \t\r\f\v\\x"
    lines = [
        *_random_strings(40000, alphabet, 12),
        "osd_memory_target = 4G",
        "  osd memory target\t=  4G  # four",
        "key = a=b ; c",
        "key =",
        "key =   # nothing",
        " = v",
        "  [osd] = 1",
        "\fkey = v",
        "a[b = c",
        "k = v\v",
    ]
    for line in lines:
        assert simple_key_line(line) == _key_line_by_re(line), repr(line)


# --- sysctl key forms, globs; YAML plain scalars; catalog value words ------------------------------------------


def _forms_by_re(key: str) -> tuple[str, ...]:
    m = re.match(r"^(net\.ipv[46]\.(?:conf|neigh)|net\.mpls\.conf)\.([^.]+)\.(.+)$", key)
    return (key, f"{m[1]}.*.{m[3]}") if m else (key,)


def test_sysctl_per_device_forms_agree_with_the_former_pattern() -> None:
    heads = ["net.ipv4.conf.", "net.ipv6.neigh.", "net.mpls.conf.", "net.ipv5.conf.", "net.ipv4.route.", ""]
    keys = [h + s for h in heads for s in _random_strings(3000, "ab.*?[\u0131 ", 6)]
    keys += ["net.ipv4.conf.all.rp_filter", "net.ipv4.conf..x", "net.ipv4.conf.eth0.", "net.ipv6.conf.lo.a.b"]
    for key in keys:
        assert _forms(key) == _forms_by_re(key), repr(key)
        assert is_glob(key) == bool(re.search(r"[*?\[]", key)), repr(key)


def test_plain_yaml_scalars_agree_with_the_former_pattern() -> None:
    pattern = re.compile(r"[A-Za-z_./][A-Za-z0-9_./+-]*|[0-9]+[A-Za-z][A-Za-z0-9_./+-]*")
    alphabet = "aZ09_./+- :#\u00e9\u0663\u212a"
    for s in [*_random_strings(40000, alphabet, 6), *_ALL_CHARS, *("1" + c for c in _ALL_CHARS)]:
        assert plain(s) == bool(pattern.fullmatch(s)), repr(s)


def test_value_words_agree_with_the_former_split() -> None:
    alphabet = "ab ,;\t\n\x1c\u00a0\u2003"
    for v in [*_random_strings(40000, alphabet, 7), *_ALL_CHARS]:
        assert _words(v) == re.split(r"[\s,;]+", v), repr(v)


def test_sysctl_name_lists_skip_blank_and_comment_lines() -> None:
    from flashtune.lint.sysctl import name_list

    texts = [
        "# header\n# by a script\na.b\nc.d\n\n#x\ne.f",
        "a\n#a\n#a\n##\n#\nb\n",
        "#only",
        "",
        "\n\n",
        *_random_strings(5000, "ab#\n ", 10),
    ]
    for text in texts:
        by_line = frozenset(ln for ln in text.split("\n") if ln and not ln.startswith("#"))
        assert name_list(text) == by_line, repr(text)

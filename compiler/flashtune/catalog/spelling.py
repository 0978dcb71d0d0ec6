"""How each config file spells a knob's name: the one implementation parsers, the catalog look-up,
the linter and the compiler's validation share.

- ceph.conf: spaces (and runs of them) are '_' (src/common/ConfUtils.cc normalize_key_name); case and '-'
  are NOT folded, so `osd-op-threads` is a different, unknown key.
- my.cnf: '-' and '_' are the same; a `loose-` prefix makes an unknown option a warning only;
  booleans also take `skip-`/`disable-` (off) and `enable-` (on) prefixes (mysys/my_getopt.c).
- sysctl.conf: '/' may separate the levels instead of '.' (procps sysctl.c).
"""

from __future__ import annotations

from collections.abc import Callable

MYSQL_BOOL_PREFIXES = ("skip_", "disable_", "enable_")


def ceph_key(raw: str) -> str:
    """ceph.conf: whitespace runs inside a key are underscores."""
    return "_".join(raw.split())


def mysql_key(raw: str) -> tuple[str, bool]:
    """my.cnf: (canonical name with '_', loose?) — dashes are underscores, a `loose-` prefix is dropped."""
    key = raw.replace("-", "_")
    loose = key.lower().startswith("loose_")
    return (key[6:] if loose else key), loose


def mysql_option(name: str, known: Callable[[str], bool]) -> tuple[str, bool]:
    """(option, negated) for a canonical my.cnf name: `skip_x`/`disable_x`/`enable_x` mean boolean x when
    the name itself is not an option but x is (so skip_name_resolve stays itself)."""
    if known(name):
        return name, False
    for prefix in MYSQL_BOOL_PREFIXES:
        if name.startswith(prefix) and known(name[len(prefix) :]):
            return name[len(prefix) :], prefix != "enable_"
    return name, False


def sysctl_key(raw: str) -> str:
    """sysctl.conf: 'net/ipv4/tcp_syncookies' is net.ipv4.tcp_syncookies (a '.' inside a level stays)."""
    key = raw.strip()
    if "/" in key:
        key = key.replace(".", "\x00").replace("/", ".").replace("\x00", "/")
    return key


def candidates(key: str, domain: str | None) -> list[str]:
    """Names a key as written in a config file may mean, most literal first (domain None: any file)."""
    raw = key.strip()
    out = [raw]
    if domain in (None, "ceph"):
        out.append(ceph_key(raw.replace("_", " ")))
    if domain in (None, "mysql"):
        name, _ = mysql_key(raw.lower())
        out.append(name)
    if domain in (None, "sysctl"):
        out.append(sysctl_key(raw))
    return list(dict.fromkeys(out))

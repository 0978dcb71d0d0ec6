"""Every option name a release knows (data/ceph-option-names/, data/mysql-option-names/): the full lists
behind "unknown option" and "removed after <release>", for names the knob catalog does not describe."""

from __future__ import annotations

from functools import cache

from flashtune.fileio import read_text
from flashtune.paths import data_path
from flashtune.releases import CEPH_RELEASES

FOLDERS = {"ceph": "ceph-option-names", "mysql": "mysql-option-names"}


@cache
def option_names(domain: str, release: str) -> frozenset[str] | None:
    """All option names of a Ceph release / MySQL flavour, or None where flashtune has no list (e.g. jewel)."""
    path = data_path(f"{FOLDERS[domain]}/{release}.txt")
    if not path.is_file():
        return None
    return frozenset({s for s in map(str.strip, read_text(path).splitlines()) if s and s[0] != "#"})


def ceph_option_names(release: str) -> frozenset[str] | None:
    return option_names("ceph", release)


def mysql_option_names(flavour: str) -> frozenset[str] | None:
    return option_names("mysql", flavour)


@cache
def mysql_option_minimums(flavour: str) -> dict[str, int]:
    """name -> the smallest value the server takes (data/mysql-option-minimums/; a lower one it raises, with a
    warning); empty where flashtune has no list for the flavour."""
    return {name: low for name, (low, _) in _numeric_options(flavour).items() if low > 0}


def mysql_negative_values(flavour: str) -> dict[str, str]:
    """name -> what the server does with a negative value (data/mysql-option-minimums/): 'stops' (it refuses
    to start), 'plugin-off' (it does not load the option's plugin) or 'takes'."""
    return {name: action for name, (_, action) in _numeric_options(flavour).items()}


@cache
def _numeric_options(flavour: str) -> dict[str, tuple[int, str]]:
    path = data_path(f"mysql-option-minimums/{flavour}.txt")
    if not path.is_file():
        return {}
    rows = (ln.split() for ln in read_text(path).splitlines() if ln.strip() and ln[0] != "#")
    return {name: (int(low), action) for name, low, action in rows}


@cache
def all_ceph_option_names() -> frozenset[str]:
    """Names any listed Ceph release knows."""
    out: set[str] = set()
    for release in sorted(p.stem for p in data_path(FOLDERS["ceph"]).glob("*.txt")):
        out |= option_names("ceph", release) or frozenset()
    return frozenset(out)


@cache
def _last_releases() -> dict[str, str]:
    """option name -> the newest release whose list has it (one dict look-up per unknown key)."""

    out: dict[str, str] = {}
    for rel in CEPH_RELEASES:
        for name in option_names("ceph", rel) or ():
            out[name] = rel
    return out


def last_ceph_release_with(name: str) -> str | None:
    """The newest listed Ceph release that knows name (None if no list has it)."""
    return _last_releases().get(name)

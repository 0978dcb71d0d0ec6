"""Release warnings from data/releases/lifecycle.yaml: a Ceph release or database flavour at or near its end of
life, and point releases known to be bad. Compared with the table's own `as_of` day, so a compile gives the same
files whenever it runs."""

from __future__ import annotations

from datetime import date, timedelta
from functools import cache
from typing import Any

from flashtune.paths import data_path
from flashtune.yamlio import load_yaml


@cache
def lifecycle() -> dict[str, Any]:
    doc: dict[str, Any] = load_yaml(data_path("releases/lifecycle.yaml"))
    return doc


def _eol(name: str, fact: dict[str, Any], as_of: date, soon: timedelta) -> str | None:
    eol = date.fromisoformat(str(fact["eol"]))
    if eol <= as_of:
        return (
            f"{name} reached end of life on {eol} (no more fixes, security ones included; checked {as_of}): "
            f"plan the upgrade ({fact['source']})"
        )
    if eol - as_of <= soon:
        kind = "estimated " if fact.get("estimated") else ""
        return f"{name} reaches its {kind}end of life on {eol} (checked {as_of}) ({fact['source']})"
    return None


def release_warnings(ceph_release: str, flavour: str | None, *, ec_optimizations: bool = False) -> list[str]:
    """The warnings for this Ceph release (and the database flavour, for the mysql workload)."""
    doc = lifecycle()
    as_of = date.fromisoformat(str(doc["as_of"]))
    soon = timedelta(days=int(doc["warn_before_days"]))
    out: list[str] = []
    fact = doc["ceph"].get(ceph_release)
    if fact is not None:
        w = _eol(f"Ceph {ceph_release.capitalize()}", fact, as_of, soon)
        if w:
            out.append(w)
    for bad in doc["known_bad"]:
        if bad["release"] != ceph_release or (bad.get("when") == "ec_optimizations" and not ec_optimizations):
            continue
        fixed = f"; run {bad['fixed_in']} or later" if bad.get("fixed_in") else ""
        out.append(f"Ceph {bad['versions']}: {bad['what']}{fixed} ({bad['source']})")
    if flavour is not None and flavour in doc["mysql"]:
        w = _eol(flavour, doc["mysql"][flavour], as_of, soon)
        if w:
            out.append(w)
    return out

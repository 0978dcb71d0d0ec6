"""The linter's data: rules (data/lint/rules.yaml), the CBT schema and per-release option-name lists."""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from flashtune.fileio import read_text
from flashtune.paths import data_dir
from flashtune.yamlio import load_yaml


@lru_cache(maxsize=1)
def rules() -> dict[str, Any]:
    doc = load_yaml(data_dir() / "lint" / "rules.yaml")
    return dict(doc)


@lru_cache(maxsize=1)
def cbt_schema() -> dict[str, Any]:
    doc = load_yaml(data_dir() / "cbt" / "schema.yaml")
    return dict(doc)


def _names(path: Path) -> frozenset[str]:
    if not path.is_file():
        return frozenset()
    return frozenset(
        s for s in (line.strip() for line in read_text(path).splitlines()) if s and not s.startswith("#")
    )


@cache
def ceph_option_names(release: str) -> frozenset[str] | None:
    """All option names of a release, or None where flashtune has no list (jewel and other old releases)."""
    path = data_dir() / "ceph-option-names" / f"{release}.txt"
    return _names(path) if path.is_file() else None


@lru_cache(maxsize=1)
def all_ceph_option_names() -> frozenset[str]:
    folder = data_dir() / "ceph-option-names"
    out: set[str] = set()
    for p in sorted(folder.glob("*.txt")):
        out |= _names(p)
    return frozenset(out)


@cache
def mysql_option_names(flavour: str) -> frozenset[str] | None:
    path = data_dir() / "mysql-option-names" / f"{flavour}.txt"
    return _names(path) if path.is_file() else None

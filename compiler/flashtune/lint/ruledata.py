"""The linter's data: rules (data/lint/rules.yaml) and the CBT schema (option-name lists: flashtune.catalog.names)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

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

"""The linter's data: rules (data/lint/rules.yaml), codes (data/lint/codes.yaml) and the CBT schema (option-name lists: flashtune.catalog.names)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from flashtune.yamlio import load_data


@lru_cache(maxsize=1)
def rules() -> dict[str, Any]:
    doc = load_data("lint/rules.yaml")
    return dict(doc)


@lru_cache(maxsize=1)
def cbt_schema() -> dict[str, Any]:
    doc = load_data("cbt/schema.yaml")
    return dict(doc)


@lru_cache(maxsize=1)
def codes() -> list[dict[str, Any]]:
    return list(load_data("lint/codes.yaml")["codes"])

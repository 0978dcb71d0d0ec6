"""The lint corpus of public configs (tests/fixtures/lint-corpus/, provenance in manifest.yaml)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flashtune.yamlio import load_yaml

CORPUS = Path(__file__).parents[1] / "fixtures" / "lint-corpus"


MANIFEST: list[dict[str, Any]] = list(load_yaml(CORPUS / "manifest.yaml")["files"])


def by_kind(kind: str) -> list[dict[str, Any]]:
    return [m for m in MANIFEST if m["kind"] == kind]

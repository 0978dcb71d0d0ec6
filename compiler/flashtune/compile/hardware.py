"""Hardware for the compiler: the shipped tiers (data/tiers/) or the user's own file, read by the one reader
(flashtune/hardware_file.py) with the `layout:` override checked against the layout data."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flashtune.compile.layout import check_override
from flashtune.hardware_file import read_hardware, tier_doc, tier_names
from flashtune.model import Hardware
from flashtune.pathnames import StrPath
from flashtune.yamlio import load_yaml

__all__ = ["hardware_from", "load_hardware", "load_tier", "tier_names"]


def load_hardware(path: StrPath) -> Hardware:
    """A user's hardware file (YAML, same shape as data/tiers/*.yaml)."""
    return hardware_from(load_yaml(path), path)


def hardware_from(doc: Any, path: StrPath, *, tier: bool = False) -> Hardware:
    hw = read_hardware(doc, path, tier=tier)
    return replace(hw, layout=check_override(doc.get("layout"), str(path)))


def load_tier(name: str) -> Hardware:
    doc, path = tier_doc(name)
    return hardware_from(doc, path, tier=True)

"""Where flashtune's data lives.

The package is installed editable from the repository (see README), so data/ sits two levels above
this package. FLASHTUNE_DATA points elsewhere, e.g. for a relocated copy of the data package.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def data_dir() -> Path:
    env = os.environ.get("FLASHTUNE_DATA")
    return Path(env) if env else REPO_ROOT / "data"


def knobs_dir() -> Path:
    return data_dir() / "knobs"


def tiers_dir() -> Path:
    return data_dir() / "tiers"


def profiles_dir() -> Path:
    return data_dir() / "profiles"

"""Shared test fixtures."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))  # makes tests/support importable
from support.cephlab import ceph_lab  # session fixture: one real Ceph cluster
from support.mariadb import mariadb_server  # session fixture: a throwaway MariaDB

__all__ = ["ceph_lab", "mariadb_server"]

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

# In CI (CI=true) every property test runs the same examples: a case a random draw finds there would fail a
# submission for a defect older than it, and could not be reproduced. A developer's run keeps drawing new cases
# (and hypothesis prints the one it found); a found case is kept as an @example beside its test.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared() -> Path:
    """The original sources (seed documents, reference option schemas).

    A user's clone has no such folder beside it: tests that re-read the sources skip there, with the reason.
    CI has it and sets FLASHTUNE_REQUIRE_SHARED=1, which turns that skip into a failure.
    """
    if not SHARED.is_dir():
        why = f"the original sources ({SHARED.name}/ beside the repository) are absent"
        if os.environ.get("FLASHTUNE_REQUIRE_SHARED") == "1":
            pytest.fail(f"{why}, and FLASHTUNE_REQUIRE_SHARED=1 requires them")
        pytest.skip(f"{why}: this check re-reads them")
    return SHARED

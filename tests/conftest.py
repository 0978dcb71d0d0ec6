"""Shared test fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # makes tests/support importable
from support.cephlab import ceph_lab  # session fixture: one real Ceph cluster
from support.mariadb import mariadb_server  # session fixture: a throwaway MariaDB

__all__ = ["ceph_lab", "mariadb_server"]

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"{SHARED} is missing: the seeds and reference material must sit beside the repo")
    return SHARED

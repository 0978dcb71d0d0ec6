"""Catalog value rules against a real Ceph 16.2.15 daemon (its own module: the monitor of
test_catalog_real.py holds the same loopback ports while that module runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flashtune.catalog import load_catalog
from support.ceph_mon import start_failure, throwaway_mon


@pytest.mark.ceph
def test_a_removed_value_really_stops_a_16_2_15_daemon(tmp_path: Path) -> None:
    """ms_type: the catalog says 'simple' stopped working by pacific and the seeds' 'async' still works."""
    knob = load_catalog().get("ms_type", "ceph")
    assert knob is not None
    rule = knob.removed_value("simple")
    assert rule is not None and rule.removed == "pacific"
    code, err = start_failure(tmp_path / "simple", "ms_type = simple\n")
    assert code != 0 and "unrecognized ms_type" in err
    assert knob.removed_value("async") is None
    with throwaway_mon(tmp_path / "async", "ms_type = async\n") as m:
        assert '"async"' in m.run("ceph", "daemon", "mon.a", "config", "get", "ms_type")

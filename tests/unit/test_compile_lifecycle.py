"""Release facts are dated data (data/releases/lifecycle.yaml): a release or flavour at or near its end of life,
and known-bad point releases, give warnings in explain.md and manifest.json; explain.md's port statement is true
for every release compiled."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashtune.compile import CompileRequest, compile_bundle
from flashtune.compile.lifecycle import lifecycle, release_warnings
from flashtune.releases import MYSQL_FLAVOURS, SUPPORTED_CEPH_RELEASES

REPO = Path(__file__).resolve().parents[2]
MODERN = [r for r in SUPPORTED_CEPH_RELEASES if r != "jewel"]


def test_the_table_follows_its_schema_and_dates_every_release_and_flavour() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    doc = yaml.safe_load((REPO / "data" / "releases" / "lifecycle.yaml").read_text())
    schema = json.loads((REPO / "data" / "releases" / "lifecycle.schema.json").read_text())
    jsonschema.validate(doc, schema)
    assert set(doc["ceph"]) == set(SUPPORTED_CEPH_RELEASES)
    assert set(doc["mysql"]) == set(MYSQL_FLAVOURS)
    for fact in doc["ceph"].values():
        assert date.fromisoformat(fact["initial"]) < date.fromisoformat(fact["eol"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    release=st.sampled_from(MODERN),
    flavour=st.sampled_from(MYSQL_FLAVOURS),
    workload=st.sampled_from(["block", "mysql", "rgw", "scratch"]),
    tier=st.sampled_from(["iops", "standard", "tco"]),
)
def test_end_of_life_and_known_bad_releases_reach_explain_and_manifest(
    release: str, flavour: str, workload: str, tier: str
) -> None:
    doc = lifecycle()
    as_of = date.fromisoformat(doc["as_of"])
    b = compile_bundle(
        CompileRequest(workload=workload, tier=tier, ceph_release=release, mysql_flavour=flavour)
    )
    manifest = json.loads(b.files["manifest.json"])
    explain = b.files["explain.md"]
    ended = date.fromisoformat(doc["ceph"][release]["eol"]) <= as_of
    said = [
        w for w in manifest["warnings"] if w.startswith(f"Ceph {release.capitalize()} reached end of life")
    ]
    assert bool(said) == ended, manifest["warnings"]
    for w in release_warnings(release, flavour if workload == "mysql" else None):
        assert w in manifest["warnings"] and f"- {w}" in explain
    db_ended = date.fromisoformat(doc["mysql"][flavour]["eol"]) <= as_of
    db_said = any(w.startswith(f"{flavour} reached end of life") for w in manifest["warnings"])
    assert db_said == (db_ended and workload == "mysql")
    bad = [k for k in doc["known_bad"] if k["release"] == release and not k.get("when")]
    for k in bad:
        assert any(k["versions"] in w and k["source"] in w for w in manifest["warnings"])


def test_the_fastec_crash_warns_only_where_the_ec_optimisations_are_on(tmp_path: Path) -> None:
    hw = tmp_path / "hw.yaml"
    hw.write_text(
        "name: fast\nnode:\n  cores: 32\n  ram_gib: 256\n  nics: [{count: 2, speed_gbps: 100}]\n"
        "  data_devices:\n    - {count: 8, type: nvme, size_gb: 7680}\n"
        "cluster: {nodes: 8, clients: 2, ec_optimizations: true}\n"
    )
    on = compile_bundle(CompileRequest(workload="block", hardware_file=hw, ec=(4, 2)))
    off = compile_bundle(CompileRequest(workload="block", tier="iops", nodes=8, ec=(4, 2)))
    assert any("20.2.0" in w and "74813" in w for w in on.warnings)
    assert not any("20.2.0" in w for w in off.warnings)


def test_port_statements_hold_for_every_release(shared: Path) -> None:
    """explain.md and lint-config name the daemons' port range per release: ms_bind_port_max from the upstream
    option files (7300 on Pacific, 7568 from Quincy on)."""
    ranges: dict[str, int] = {}
    for folder in (shared / "reference" / "ceph-options").iterdir():
        if folder.is_dir():
            text = (folder / "global.yaml.in").read_text()
            m = re.search(r"- name: ms_bind_port_max\n(?:  .*\n)*?  default: (\d+)", text)
            assert m, folder
            ranges[folder.name.split("-")[0]] = int(m[1])
    pacific = json.loads((shared / "reference" / "ceph-options" / "pacific-16.2.15.json").read_text())
    items: Any = pacific.get("options", pacific) if isinstance(pacific, dict) else pacific
    entry = (
        items["ms_bind_port_max"]
        if isinstance(items, dict)
        else next(x for x in items if x.get("name") == "ms_bind_port_max")
    )
    ranges["pacific"] = int(entry["default"] if isinstance(entry, dict) else entry)
    assert ranges["pacific"] == 7300 and all(v == 7568 for k, v in ranges.items() if k != "pacific"), ranges
    rules = yaml.safe_load((REPO / "data" / "lint" / "rules.yaml").read_text())
    assert max(b for _, b in rules["sysctl"]["ceph_ports"]) == max(ranges.values())
    for release in MODERN:
        explain = compile_bundle(CompileRequest(workload="block", ceph_release=release)).files["explain.md"]
        line = next(ln for ln in explain.splitlines() if "net.ipv4.ip_local_port_range" in ln and "|" in ln)
        assert "6800-7300 on Pacific, 6800-7568 from Quincy on" in line
        m = re.search(r"`(\d+) \d+`", line)
        assert m and int(m[1]) > ranges.get(release, 7568)

"""Issue 26 class 5 (metadata on flash) and the Rook pool CRs: where flash data devices sit beside HDDs, the
omap-heavy pools go to the flash device class and the data pools to the HDDs, in pools.sh, the EC profile and
Rook's CRs; without flash OSDs no class rule is emitted (a rule for an absent class maps no OSD)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from flashtune.compile.pipeline import WORKLOADS, CompileRequest, compile_bundle

REPO = Path(__file__).resolve().parents[2]
CRDS = json.loads((REPO / "tests" / "fixtures" / "rook" / "pool-crds-v1.spec.json").read_text())
MIXED = """name: mixed
node:
  cores: 16
  ram_gib: 192
  nics: [{count: 2, speed_gbps: 25}]
  data_devices:
    - {count: 12, type: hdd, size_gb: 16000}
    - {count: 2, type: nvme, size_gb: 3840}
  db_devices:
    - {count: 2, type: nvme, size_gb: 1600}
cluster: {nodes: 6, clients: 2}
"""


def _mixed(tmp_path: Path, workload: str, **kw: Any) -> Any:
    hw = tmp_path / "mixed.yaml"
    hw.write_text(MIXED)
    return compile_bundle(CompileRequest(workload=workload, tier=None, hardware_file=hw, **kw))


@pytest.mark.parametrize("workload", WORKLOADS)
def test_omap_pools_go_to_flash_and_data_to_the_hdds(tmp_path: Path, workload: str) -> None:
    b = _mixed(tmp_path, workload, ec=(4, 1))
    script = b.files["pools.sh"]
    assert b.shape["flash_class"] == "nvme"
    for p in b.shape["pools"]:
        omap = bool(p.get("metadata") or p.get("ec_data_pool"))
        assert p["device_class"] == ("nvme" if omap else "hdd"), p
        if p["type"] == "replicated":
            assert (
                f"ceph osd pool set {p['name']} crush_rule flashtune-replicated-{p['device_class']}" in script
            )
    assert "crush-device-class=hdd" in script  # EC chunks on the HDDs
    assert "ceph osd crush rule create-replicated flashtune-replicated-nvme default host nvme" in script
    mgr = ".mgr" if b.request.ceph_release != "pacific" else "device_health_metrics"
    assert f"ceph osd pool set {mgr} crush_rule flashtune-replicated-nvme" in script
    if workload == "rgw":  # RGW's own pools, made at its first start: pools.sh moves them when run again
        assert "ceph osd pool set default.rgw.log crush_rule flashtune-replicated-nvme" in script
    # each class's pools share that class's OSDs, as the autoscaler budgets each CRUSH root
    osds = b.shape["class_osds"]
    assert osds == {"hdd": 72, "nvme": 12}
    for p in b.shape["pools"]:
        width = p.get("size") or 5
        assert p["pg_num"] * width / osds[p["device_class"]] <= b.shape["pg_max_per_osd"], p
    assert "placed on the `nvme` device class" in b.files["explain.md"]
    # the rule's failure domain and class make the same pools in the Rook form
    rook = list(yaml.safe_load_all(b.files["rook/pools.yaml"]))
    classes = {d["spec"].get("deviceClass") for d in rook if "deviceClass" in d["spec"]}
    nested = [v for d in rook for v in d["spec"].values() if isinstance(v, dict) and "deviceClass" in v]
    nested += [x for d in rook for x in d["spec"].get("dataPools", [])]
    assert classes | {v["deviceClass"] for v in nested} == {"nvme", "hdd"}


def test_cephadm_makes_the_flash_data_devices_osds_of_their_own_class(tmp_path: Path) -> None:
    specs = list(yaml.safe_load_all(_mixed(tmp_path, "rgw").files["cephadm/osd-spec.yaml"]))
    assert [s["spec"]["crush_device_class"] for s in specs] == ["hdd", "nvme"]
    hdd, nvme = (s["spec"] for s in specs)
    # the NVMe DB devices and the NVMe data devices are both non-rotational: told apart by size (+-10 %)
    assert hdd["db_devices"] == {"rotational": 0, "size": "1440GB:1761GB"}
    assert nvme["data_devices"] == {"rotational": 0, "size": "3456GB:4225GB"} and "db_devices" not in nvme


def test_pacific_names_the_managers_pool_as_pacific_does(tmp_path: Path) -> None:
    b = _mixed(tmp_path, "block", ceph_release="pacific")
    assert b.shape["flash_pools"][0] == "device_health_metrics"


@pytest.mark.parametrize("tier", ["iops", "tco", "standard"])
def test_no_class_rule_without_flash_osds(tier: str) -> None:
    # standard: HDD OSDs with NVMe block.db: the NVMe holds RocksDB (where the index and metadata omap lives),
    # not OSDs, so a rule for the nvme class would map no OSD
    for workload in WORKLOADS:
        b = compile_bundle(CompileRequest(workload=workload, tier=tier, ec=(4, 2), nodes=7))
        assert not b.shape["crush_rules"] and "crush_rule" not in b.files["pools.sh"]
        assert "crush-device-class" not in b.files["pools.sh"]
        assert all("device_class" not in p for p in b.shape["pools"])


def _keys_exist(value: Any, schema: dict[str, Any], where: str) -> None:
    if schema.get("x-kubernetes-preserve-unknown-fields") and "properties" not in schema:
        return
    if isinstance(value, dict):
        props = schema.get("properties")
        if props is None:
            assert "additionalProperties" in schema, where
            return
        for k, v in value.items():
            assert k in props, f"{where}.{k} is not a field of the CRD"
            _keys_exist(v, props[k], f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _keys_exist(v, schema.get("items", {}), f"{where}[{i}]")
    else:
        want = {"string": str, "integer": int, "boolean": bool}.get(str(schema.get("type")))
        assert want is None or isinstance(value, want), (where, value, schema)


@pytest.mark.parametrize("ec", [None, (4, 2)])
@pytest.mark.parametrize("workload", WORKLOADS)
def test_rook_pool_crs_use_the_crds_fields_and_pools_sh_s_shares(
    workload: str, ec: Any, tmp_path: Path
) -> None:
    b = compile_bundle(CompileRequest(workload=workload, tier="iops", ec=ec, nodes=7 if ec else None))
    docs = list(yaml.safe_load_all(b.files["rook/pools.yaml"]))
    kinds = {
        "block": "CephBlockPool",
        "mysql": "CephBlockPool",
        "rgw": "CephObjectStore",
        "scratch": "CephFilesystem",
    }
    assert {d["kind"] for d in docs} == {kinds[workload]}
    for d in docs:
        _keys_exist(d["spec"], CRDS[d["kind"]], d["kind"])
        assert d["metadata"]["namespace"] == "rook-ceph"
    text = b.files["rook/pools.yaml"]
    for p in b.shape["pools"]:  # every pool's share reaches Rook as the autoscaler hint
        assert f'target_size_ratio: "{p["share"]:g}"' in text
    if ec:
        assert "dataChunks: 4" in text and "codingChunks: 2" in text
    mixed = list(yaml.safe_load_all(_mixed(tmp_path, workload, ec=ec).files["rook/pools.yaml"]))
    for d in mixed:
        _keys_exist(d["spec"], CRDS[d["kind"]], d["kind"])
    assert any(d["metadata"]["name"] == "builtin-mgr" and d["spec"]["name"] == ".mgr" for d in mixed)

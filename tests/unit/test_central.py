"""Central config, orchestrator outputs and --against plans, without daemons (the real cluster: test_central_real).

cephadm specs are validated by cephadm's own ServiceSpec/DriveGroupSpec (python3-ceph-common from the Debian
Ceph 16.2.15 packages); the Rook snippet against the CephCluster CRD's openAPIV3Schema (a subset kept in
tests/fixtures/rook/, with its source commit).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from flashtune.compile import CompileRequest, central, compile_bundle, fleet, plan
from flashtune.compile.pipeline import WORKLOADS
from flashtune.emit import cephcentral, rook
from flashtune.errors import FlashtuneError
from flashtune.hardware import tier_names
from flashtune.model import Setting
from flashtune.parse import parse_text
from flashtune.placement import companion_keys
from flashtune.yamlio import load_yaml

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def bundles() -> dict[tuple[str, str], Any]:
    return {
        (t, w): compile_bundle(CompileRequest(workload=w, tier=t, ceph_release="pacific"))
        for t in tier_names()
        for w in WORKLOADS
    }


def setting(section: str, key: str, value: Any) -> Setting:
    return Setting(file="ceph.conf", section=section, key=key, value=value, rule="test")


def test_deploy_facts_match_their_schema() -> None:
    schema = json.loads((REPO / "data" / "deploy.schema.json").read_text())
    jsonschema.validate(load_yaml(REPO / "data" / "deploy.yaml"), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {**load_yaml(REPO / "data" / "deploy.yaml"), "device_class": {"ssd": "x"}}, schema
        )


def test_local_only_keys_follow_the_option_flags_and_rgw_keys_narrow_to_client_rgw() -> None:
    cfg = central.split(
        [
            setting("global", "mon_host", "[v2:10.0.0.1:3300]"),
            setting("global", "fsid", "1-2"),
            setting("global", "debug_osd", "0/0"),
            setting("client", "rgw_thread_pool_size", 256),
            setting("client", "objecter_inflight_ops", 10240),
            setting("osd", "osd_memory_target", 1),
            setting("mds", "mds_cache_memory_limit", 2),
        ]
    )
    assert {(x.section, x.key) for x in cfg.local} == {("global", "mon_host"), ("global", "fsid")}
    assert all("no_mon_update" in x.why for x in cfg.local)  # the catalog flag, with its reason from data
    assert {(v.target, v.key) for v in cfg.values} == {
        ("global", "debug_osd"),
        ("client.rgw", "rgw_thread_pool_size"),
        ("client", "objecter_inflight_ops"),
        ("osd", "osd_memory_target"),
        ("osd", "osd_memory_target_autotune"),  # beside it, or cephadm's per-host autotune targets win
        ("mds", "mds_cache_memory_limit"),
    }
    minimal = parse_text(cephcentral.emit_minimal(cfg.local, {}), "ceph.conf")
    assert {(e.section, e.key) for e in minimal.entries} == {("global", "mon_host"), ("global", "fsid")}
    explain = cephcentral.explain_section(cfg)
    assert "| global | `mon_host` |" in explain and "ceph.conf | `no_mon_update`" in explain


def test_every_compiled_key_is_in_the_script_and_the_assimilate_file_once(bundles: dict[Any, Any]) -> None:
    for (tier, workload), b in bundles.items():
        conf = {(e.section, e.key): e.value for e in parse_text(b.files["ceph.conf"], "ceph.conf").entries}
        script = [
            shlex.split(x) for x in b.files["ceph-config.sh"].splitlines() if x.startswith("ceph config set")
        ]
        # the script adds what data/deploy.yaml pairs with a compiled key for cephadm clusters
        assert ["ceph", "config", "set", "osd", "osd_memory_target_autotune", "false"] in script
        script = [x for x in script if x[4] not in companion_keys()]
        assert sorted(k for _, _, _, _, k, _ in script) == sorted(k for _, k in conf), (tier, workload)
        for _, _, _, who, key, value in script:
            section = next(s for s, k in conf if k == key)
            assert conf[(section, key)] == value
            assert who == section or (section, who) == ("client", "client.rgw"), (key, who)
        assim = {
            (e.section, e.key): e.value
            for e in parse_text(b.files["ceph-assimilate.conf"], "ceph.conf").entries
        }
        assert {k: v for k, v in assim.items() if k[1] not in companion_keys()} == {
            (who, key): value for _, _, _, who, key, value in script
        }
        assert assim[("osd", "osd_memory_target_autotune")] == "false"
        assert "config db" in b.files["explain.md"]


@pytest.mark.parametrize(
    ("type_", "a", "b", "same"),
    [
        ("size", "4G", "4294967296", True),
        ("size", "4G", "4M", False),
        ("bool", "true", "1", True),
        ("bool", "yes", "false", False),
        ("float", "1.0", "1", True),
        ("uint", "10240", "10240", True),
        ("uint", "10240", "1024", False),
        (None, "2.000000", "2", True),  # a key the catalog lacks: Ceph prints floats with six decimals
        (None, "0/0", "0/5", False),
        ("str", "0/0", " 0/0 ", True),
        ("str", "beast  port=80", "beast port=80", True),
    ],
)
def test_values_compare_canonically(type_: str, a: str, b: str, same: bool) -> None:
    assert (central.canonical(a, type_) == central.canonical(b, type_)) is same


def _dump(entries: list[tuple[str, str, str]]) -> list[dict[str, str]]:
    out = []
    for target, key, value in entries:
        who, _, mask = target.partition("/")
        out.append({"section": who, "name": key, "value": value, "mask": mask})
    return out


def _apply(dump: list[dict[str, str]], commands: list[str]) -> list[dict[str, str]]:
    """What `ceph config set/rm` would leave in the database (for checking the delta is complete)."""
    state = {
        (f"{e['section']}/{e['mask']}" if e["mask"] else e["section"], e["name"]): e["value"] for e in dump
    }
    for c in commands:
        words = shlex.split(c)
        if words[:3] == ["ceph", "config", "set"]:
            state[(words[3], words[4])] = words[5]
        elif words[:3] == ["ceph", "config", "rm"]:
            del state[(words[3], words[4])]
    return _dump([(t, k, v) for (t, k), v in state.items()])


def test_plan_reports_every_kind_per_daemon_and_the_delta_reaches_the_compiled_state(tmp_path: Path) -> None:
    cfg = central.split(
        [
            setting("osd", "osd_memory_target", 7516192768),
            setting("global", "debug_osd", "0/0"),
            setting("client", "rgw_thread_pool_size", 256),
            setting("mds", "mds_cache_memory_limit", 2),
        ]
    )
    live = _dump(
        [
            ("osd", "osd_memory_target", "7G"),  # the same value, spelt differently
            ("global", "debug_osd", "1/5"),  # changed
            ("osd/host:node7", "osd_memory_target", "4294967296"),  # a stale mask of a managed key
            ("mon", "mon_allow_pool_delete", "true"),
        ]
    )  # not ours: left alone
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(live))
    p = plan.diff(cfg, plan.read_live(path), str(path))
    # the cephadm autotuner's host value goes, and osd_memory_target_autotune = false keeps it from coming back
    assert p.count() == {"add": 3, "change": 1, "remove": 1, "same": 1} and p.unmanaged == 1
    report = plan.render(p)
    assert "[osd] 1 add, 0 change, 1 remove, 1 same" in report and "~ global debug_osd: 1/5 -> 0/0" in report
    commands = plan.delta_commands(p)
    assert len(commands) == 5 and not any("osd_memory_target 7516192768" in c for c in commands)
    path.write_text(json.dumps(_apply(live, commands)))
    after = plan.diff(cfg, plan.read_live(path), str(path))
    assert after.delta == [] and after.count()["same"] == 5 and after.unmanaged == 1


def test_plan_against_a_ceph_conf_moves_client_rgw_keys(tmp_path: Path) -> None:
    conf = tmp_path / "ceph.conf"
    conf.write_text("[global]\ndebug_osd = 0/0\n[client]\nrgw_thread_pool_size = 256\n")
    p = plan.diff(
        central.split([setting("client", "rgw_thread_pool_size", 256), setting("global", "debug_osd", "0")]),
        plan.read_live(conf),
        str(conf),
    )
    assert p.count() == {"add": 1, "change": 1, "remove": 1, "same": 0}
    assert any(
        c.startswith("# remove `rgw_thread_pool_size` from [client] in") for c in plan.delta_commands(p)
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[{"section": "osd", "name": "x", "value": ', "JSON syntax error"),
        ('[{"section": "osd"}]', "not Ceph config JSON"),
        ("[global\nkey = 1\n", ""),
    ],
)
def test_bad_against_files_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "live.json"
    path.write_text(text)
    with pytest.raises(FlashtuneError) as e:
        plan.read_live(path)
    assert str(path) in str(e.value) and message in str(e.value)
    r = subprocess.run(
        [
            str(BIN / "compile-config"),
            "--workload",
            "block",
            "--against",
            str(path),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
    )
    assert (
        r.returncode == 2
        and "Traceback" not in r.stderr
        and re.search(rf"{re.escape(str(path))}:\d+", r.stderr)
    )
    assert not (tmp_path / "out").exists()


# ---- Rook: the CephCluster CRD schema -----------------------------------------------------------------
def _closed(node: Any) -> Any:
    """Kubernetes drops unknown fields of a structural schema silently; treat them as errors here."""
    if isinstance(node, dict):
        out = {k: _closed(v) for k, v in node.items()}
        if (
            "properties" in out
            and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")
        ):
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [_closed(x) for x in node]
    return node


@pytest.fixture(scope="module")
def rook_schema() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(
        (REPO / "tests" / "fixtures" / "rook" / "cephcluster-v1.schema.json").read_text()
    )
    return doc


def _k8s_bytes(q: str) -> int:
    m = re.fullmatch(r"(\d+)(Ki|Mi|Gi)?", q)
    assert m, q
    return int(m[1]) * {None: 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}[m[2]]


def test_rook_snippet_matches_the_crd_and_the_memory_budget(
    rook_schema: dict[str, Any], bundles: dict[Any, Any]
) -> None:
    from ruamel.yaml import YAML

    schema = _closed({k: v for k, v in rook_schema.items() if not k.startswith("x-")})
    for (tier, workload), b in bundles.items():
        docs = list(YAML(typ="safe", pure=True).load_all(b.files[rook.NAME]))
        cluster = docs[0]
        jsonschema.validate(cluster, schema)
        spec = cluster["spec"]
        assert set(spec["storage"]["config"]) <= set(rook_schema["x-flashtune-storage-config-keys"]["keys"])
        # a DB device must be named, or useAllDevices makes it one more OSD of the data devices' class
        assert ("metadataDevice" in spec["storage"]["config"]) == bool(b.hardware.db_devices), tier
        (res,) = spec["resources"].values()
        target = b.shape["osd_memory_target"]
        assert _k8s_bytes(res["requests"]["memory"]) == target
        assert _k8s_bytes(res["limits"]["memory"]) >= target / 0.8
        # the node's OSD pods fit its RAM even at their limits (the layout budget keeps 20 % headroom)
        assert _k8s_bytes(res["limits"]["memory"]) * b.shape["osds_per_node"] <= b.hardware.ram_gib * (
            1 << 30
        )
        script = [
            shlex.split(x) for x in b.files["ceph-config.sh"].splitlines() if x.startswith("ceph config set")
        ]
        want = {(w, k): v for *_, w, k, v in script if k != "osd_memory_target" and k not in companion_keys()}
        assert {(w, k): v for w, kv in spec["cephConfig"].items() for k, v in kv.items()} == want, (
            tier,
            workload,
        )
    bad = docs[0] | {"spec": {**docs[0]["spec"], "cephConfg": {}}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    with pytest.raises(jsonschema.ValidationError):  # values must be strings
        jsonschema.validate(docs[0] | {"spec": {**docs[0]["spec"], "cephConfig": {"osd": {"x": 1}}}}, schema)


def test_fleet_rook_snippet_gives_every_host_its_memory_target(
    rook_schema: dict[str, Any], tmp_path: Path
) -> None:
    """Hosts of one class with different RAM: the class default in resources, the others per node."""
    from ruamel.yaml import YAML

    tier = (REPO / "data" / "tiers" / "iops.yaml").read_text()
    (tmp_path / "small.yaml").write_text(
        tier.replace("ram_gib: 128", "ram_gib: 96") + "hosts: 'small[1-2]'\n"
    )
    (tmp_path / "big.yaml").write_text(tier + "hosts: 'big[1-5]'\n")
    (tmp_path / "hdd.yaml").write_text(
        (REPO / "data" / "tiers" / "standard.yaml").read_text() + "hosts: [h1]\n"
    )
    groups = fleet.groups_from_hardware([tmp_path / n for n in ("small.yaml", "big.yaml", "hdd.yaml")])
    f = fleet.compile_fleet(groups, "block", "pacific")
    cluster = next(YAML(typ="safe", pure=True).load_all(fleet.outputs(f, {})[rook.NAME]))
    jsonschema.validate(cluster, _closed({k: v for k, v in rook_schema.items() if not k.startswith("x-")}))
    storage, resources = cluster["spec"]["storage"], cluster["spec"]["resources"]
    assert storage["useAllNodes"] is False
    per_node = {n["name"]: n for n in storage["nodes"]}
    for g in groups:
        want = int(f.bundles[g.name].shape["osd_memory_target"])
        for h in g.hosts:
            node = per_node[h]
            res = node.get("resources") or resources[f"osd-{node['config']['deviceClass']}"]
            assert _k8s_bytes(res["requests"]["memory"]) == want, (g.name, h)
    assert (
        "resources" in per_node["small1"] and "resources" not in per_node["big1"]
    )  # the class default: most hosts
    # only the HDD host has a DB device: only its node entry names it (else Rook makes it an OSD)
    assert per_node["h1"]["config"]["metadataDevice"] == "nvme0n1"
    assert "metadataDevice" not in per_node["big1"]["config"] and "metadataDevice" not in storage["config"]


def test_cli_against_writes_the_plan_and_only_the_delta(tmp_path: Path) -> None:
    out = tmp_path / "out"
    base = ["--tier", "iops", "--workload", "rgw", "--ceph-release", "pacific", "--out", str(out)]
    r = subprocess.run([str(BIN / "compile-config"), *base], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    script = [
        shlex.split(x) for x in (out / "ceph-config.sh").read_text().splitlines() if x.startswith("ceph ")
    ]
    live = [{"section": w, "name": k, "value": v, "mask": ""} for *_, w, k, v in script]
    live[0]["value"] = "changed"
    (tmp_path / "dump.json").write_text(json.dumps(live))
    r = subprocess.run(
        [
            str(BIN / "compile-config"),
            *base,
            "--force",
            "--against",
            str(tmp_path / "dump.json"),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["plan"].startswith(f"plan against {tmp_path / 'dump.json'}: 0 add, 1 change")
    delta = [x for x in (out / "ceph-config-delta.sh").read_text().splitlines() if x.startswith("ceph ")]
    assert delta == [shlex.join(script[0])]
    assert "~ " in (out / "plan.txt").read_text()

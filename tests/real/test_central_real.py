"""Central config on a real Ceph 16.2.15 cluster (tests/support/cephlab.py): the compiled `ceph config set`
script and the assimilate-conf file land at their intended scope, every daemon sees the values, and a plan
against the cluster's own `ceph config dump` shows the full delta before and nothing after.

The cluster is shared by the test session: every test hands the config database back as it found it.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flashtune.compile import CompileRequest, central, compile_bundle, fleet, plan
from flashtune.compile.pipeline import WORKLOADS
from flashtune.emit import cephadm, cephcentral
from flashtune.emit import fleet as emit_fleet
from flashtune.hardware import tier_names
from flashtune.model import CentralConfig, CentralValue, HostGroup, Setting
from flashtune.parse import parse_text
from support.cephlab import CephLab

pytestmark = [pytest.mark.ceph, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]
OSDS = ("osd.0", "osd.1", "osd.2")
SYSTEM_PYTHON = "/usr/bin/python3"  # the Debian Ceph packages install python-common there


def dump(lab: CephLab) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = lab.ceph("config", "dump") or []
    return entries


def scoped(entries: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    return {
        (f"{e['section']}/{e['mask']}" if e.get("mask") else e["section"], e["name"]): e["value"]
        for e in entries
    }


def run_script(lab: CephLab, text: str, path: Path) -> None:
    """Run a generated script; a key Ceph refuses fails the test with Ceph's own message."""
    path.write_text(text)
    r = lab.run("bash", str(path), check=False, timeout=600)
    if r.returncode != 0:
        pytest.fail(f"Ceph refused a generated command: {r.stderr.strip()}", pytrace=False)


@pytest.fixture
def config_db(ceph_lab: CephLab) -> Iterator[CephLab]:
    """The lab with its config database restored afterwards (what other tests found before us)."""
    before = scoped(dump(ceph_lab))
    yield ceph_lab
    now = scoped(dump(ceph_lab))
    for (target, key), value in now.items():
        if (target, key) not in before:
            ceph_lab.run("ceph", "config", "rm", target, key)
        elif before[(target, key)] != value:
            ceph_lab.run("ceph", "config", "set", target, key, before[(target, key)])
    for (target, key), value in before.items():
        if (target, key) not in now:
            ceph_lab.run("ceph", "config", "set", target, key, value)


def _shown(lab: CephLab, daemon: str) -> dict[str, tuple[str, str]]:
    """name -> (value, source) as the running daemon reports it (mgr view; rgw through its admin socket)."""
    if daemon.startswith("client.rgw"):
        return {k: (str(v["mon"]), "mon") for k, v in lab.config_diff(daemon).items() if "mon" in v}
    return {e["name"]: (str(e["value"]), e["source"]) for e in lab.ceph("config", "show", daemon)}


def daemons_for(v: CentralValue, lab: CephLab) -> list[str]:
    if v.who == "global":
        return [*OSDS, "mon.a", "client.rgw.gw", *(["mds.a"] if lab.mds else [])]
    return {
        "osd": list(OSDS),
        "mon": ["mon.a"],
        "mds": ["mds.a"] if lab.mds else [],
        "client.rgw": ["client.rgw.gw"],
        "client": ["client.rgw.gw"],
    }.get(v.who, [])


def assert_daemons_see(
    lab: CephLab,
    values: list[CentralValue],
    expect: dict[tuple[str, str], CentralValue] | None = None,
    timeout: float = 90,
) -> int:
    """Every value reaches every daemon of its scope, from the monitors. expect: (daemon, key) -> the value
    that must win there (masks). Daemons report their config to the mgr every few seconds: poll."""
    want: dict[tuple[str, str], CentralValue] = {}
    for v in values:
        if v.mask:
            continue
        for d in daemons_for(v, lab):
            want.setdefault((d, v.key), v)
    want.update(expect or {})
    deadline = time.monotonic() + timeout
    while True:
        shown = {d: _shown(lab, d) for d in {d for d, _ in want}}
        bad = []
        for (d, key), v in sorted(want.items(), key=lambda x: x[0]):
            got = shown[d].get(key)
            if (
                got is None
                or got[1] != "mon"
                or central.canonical(got[0], v.type) != central.canonical(v.value, v.type)
            ):
                bad.append(f"{d} {key}: wants {v.value} from {v.target}, shows {got}")
        if not bad:
            break
        if time.monotonic() > deadline:
            pytest.fail("daemons do not show the compiled values:\n" + "\n".join(bad))
        time.sleep(2)
    # keys for plain clients (rbd_*, client_*): what the monitors hand a client entity
    for v in values:
        if v.who == "client" and not v.mask:
            text = lab.run("ceph", "config", "get", "client.admin", v.key).stdout.strip()
            assert central.canonical(text, v.type) == central.canonical(v.value, v.type), (v.key, text)
    return len(want)


def plan_of(lab: CephLab, cfg: CentralConfig, path: Path) -> plan.Plan:
    path.write_text(json.dumps(dump(lab)))
    return plan.diff(cfg, plan.read_live(path), str(path))


RESULTS: dict[str, Any] = {}


@pytest.mark.parametrize("tier", tier_names())
@pytest.mark.parametrize("workload", WORKLOADS)
def test_script_lands_every_value_at_its_scope_and_the_plan_empties(
    config_db: CephLab, tmp_path: Path, tier: str, workload: str
) -> None:
    lab = config_db
    b = compile_bundle(CompileRequest(workload=workload, tier=tier, ceph_release="pacific"))
    cfg = central.split(b.settings)
    before = plan_of(lab, cfg, tmp_path / "before.json")
    assert before.count() == {"add": len(cfg.values), "change": 0, "remove": 0, "same": 0}, plan.render(
        before
    )
    t0 = time.monotonic()
    run_script(lab, b.files[cephcentral.SCRIPT_NAME], tmp_path / "ceph-config.sh")
    seconds = time.monotonic() - t0
    stored = scoped(dump(lab))
    for v in cfg.values:  # in the database at the intended scope (section + mask), with the value
        assert (v.target, v.key) in stored, f"{v.target} {v.key} not stored"
        assert central.canonical(stored[(v.target, v.key)], v.type) == central.canonical(v.value, v.type)
    checked = assert_daemons_see(lab, cfg.values)
    after = plan_of(lab, cfg, tmp_path / "after.json")
    assert after.delta == [] and after.count()["same"] == len(cfg.values), plan.render(after)
    if (tier, workload) == ("iops", "rgw"):  # running the script again changes nothing (idempotent)
        version = lab.ceph("config", "log", "1")[0]["version"]
        run_script(lab, b.files[cephcentral.SCRIPT_NAME], tmp_path / "again.sh")
        assert lab.ceph("config", "log", "1")[0]["version"] == version
    RESULTS[f"{tier}-{workload}"] = {
        "config_db": len(cfg.values),
        "ceph_conf": len(cfg.local),
        "daemon_checks": checked,
        "script_s": round(seconds, 1),
    }
    print(f"\n{tier}-{workload}: {RESULTS[f'{tier}-{workload}']}")


def test_assimilate_file_stores_the_same_values_and_hands_back_local_keys(
    config_db: CephLab, tmp_path: Path
) -> None:
    lab = config_db
    b = compile_bundle(CompileRequest(workload="rgw", tier="iops", ceph_release="pacific"))
    local = central.split(
        [Setting(file="ceph.conf", section="global", key="mon_host", value="[v2:10.9.9.9:3300]", rule="test")]
    )
    cfg = central.split(b.settings)
    cfg.local.extend(local.local)
    conf = tmp_path / "ceph-assimilate.conf"
    conf.write_text(cephcentral.emit_assimilate(cfg, {}))
    out = tmp_path / "ceph.minimal.conf"
    lab.run("ceph", "config", "assimilate-conf", "-i", str(conf), "-o", str(out))
    stored = scoped(dump(lab))
    for v in cfg.values:
        assert central.canonical(stored.get((v.target, v.key)), v.type) == central.canonical(
            v.value, v.type
        ), v.key
    # what Ceph hands back is exactly what flashtune keeps in the minimal ceph.conf
    handed_back = {(s, k) for s, k in _conf_keys(out.read_text())}
    assert handed_back == {(x.section, x.key) for x in cfg.local} == {("global", "mon_host")}
    assert plan_of(lab, cfg, tmp_path / "after.json").delta == []
    assert_daemons_see(lab, cfg.values)


def _conf_keys(text: str) -> list[tuple[str, str]]:

    return [(e.section, e.key) for e in parse_text(text, "ceph.conf").entries]


def test_a_key_ceph_refuses_fails_with_ceph_own_message(config_db: CephLab, tmp_path: Path) -> None:
    cfg = CentralConfig(values=[CentralValue("osd", "", "osd_not_an_option", "1")])
    with pytest.raises(pytest.fail.Exception) as e:
        run_script(config_db, cephcentral.emit_script(cfg, {}), tmp_path / "bad.sh")
    assert "unrecognized config option 'osd_not_an_option'" in str(e.value)
    cfg = CentralConfig(values=[CentralValue("global", "", "mon_host", "10.9.9.9")])
    with pytest.raises(pytest.fail.Exception) as e:
        run_script(config_db, cephcentral.emit_script(cfg, {}), tmp_path / "bad2.sh")
    assert "mon_host is special and cannot be stored by the mon" in str(e.value)  # why it stays local


@pytest.fixture(scope="module", autouse=True)
def _results() -> Iterator[None]:
    yield
    if RESULTS:
        Path("/tmp/flashtune-central-real.json").write_text(json.dumps(RESULTS, indent=1))


def _crush_host(lab: CephLab) -> str:
    tree = lab.ceph("osd", "tree")
    return str(next(n["name"] for n in tree["nodes"] if n["type"] == "host"))


def _set_class(lab: CephLab, osd: str, cls: str) -> None:
    lab.run("ceph", "osd", "crush", "rm-device-class", osd)
    lab.run("ceph", "osd", "crush", "set-device-class", cls, osd)


def test_fleet_class_and_host_masks_reach_the_right_osds(config_db: CephLab, tmp_path: Path) -> None:
    """A fleet plan on the lab: osd.2 becomes class nvme (the others stay hdd); then the lab's own host is a
    host group of its own. Every OSD must show the value its hardware group was compiled for."""
    lab = config_db
    host = _crush_host(lab)
    _set_class(lab, "osd.2", "nvme")
    try:
        groups = [
            HostGroup("nvme", tuple(f"n{i:02d}" for i in range(6)), tier="iops"),
            HostGroup("hdd", tuple(f"h{i:02d}" for i in range(3)), tier="standard"),
        ]
        f = fleet.compile_fleet(groups, "block", "pacific")
        want = {g.name: str(f.bundles[g.name].shape["osd_memory_target"]) for g in groups}
        assert want["nvme"] != want["hdd"]
        assert {v.target for v in f.config.values if v.key == "osd_memory_target"} == {"osd", "osd/class:hdd"}
        before = plan_of(lab, f.config, tmp_path / "b.json")
        assert before.count()["add"] == len(f.config.values) and not before.delta[0].current
        run_script(lab, emit_fleet.files(f, {})[cephcentral.SCRIPT_NAME], tmp_path / "fleet.sh")
        unmasked = [v for v in f.config.values if not v.mask]
        mem = {v.target: v for v in f.config.values if v.key == "osd_memory_target"}
        # every key the hdd class gets its own value of (osd_memory_target and what derives from it, such as
        # ms_dispatch_throttle_bytes) wins on osd.0 and osd.1; osd.2 keeps the plain osd value
        hdd = {(o, v.key): v for v in f.config.values if v.mask == "class:hdd" for o in ("osd.0", "osd.1")}
        assert_daemons_see(lab, unmasked, {**hdd, ("osd.2", "osd_memory_target"): mem["osd"]})
        assert plan_of(lab, f.config, tmp_path / "a.json").delta == []
        # the lab's host gets hardware of its own (less RAM): a host mask, reaching all three OSDs there
        small = REPO / "data" / "tiers" / "iops.yaml"
        (tmp_path / "small.yaml").write_text(
            small.read_text().replace("ram_gib: 128", "ram_gib: 96") + f"hosts: [{host}]\n"
        )
        (tmp_path / "big.yaml").write_text(small.read_text() + "hosts: 'big[01-05]'\n")
        f2 = fleet.compile_fleet(
            fleet.groups_from_hardware([tmp_path / "small.yaml", tmp_path / "big.yaml"]), "block", "pacific"
        )
        mem2 = {v.target: v for v in f2.config.values if v.key == "osd_memory_target"}
        assert set(mem2) == {"osd", f"osd/host:{host}"}
        p = plan_of(lab, f2.config, tmp_path / "b2.json")
        assert [c.kind for c in p.delta if c.key == "osd_memory_target"].count(
            "remove"
        ) == 1  # the class mask
        (tmp_path / "delta.sh").write_text(cephcentral.script(plan.delta_commands(p), {}, "delta"))
        run_script(lab, (tmp_path / "delta.sh").read_text(), tmp_path / "delta-run.sh")
        assert plan_of(lab, f2.config, tmp_path / "a2.json").delta == []
        assert_daemons_see(lab, [], {(o, "osd_memory_target"): mem2[f"osd/host:{host}"] for o in OSDS})
    finally:
        _set_class(lab, "osd.2", "hdd")


def _restart_osd(lab: CephLab, osd_id: int) -> None:
    lab._stop(f"osd.{osd_id}")
    lab.run("ceph-osd", "-i", str(osd_id), timeout=180)
    lab._wait("OSDs up", lab._osds_up, 180)


def test_startup_options_work_from_the_config_database_after_a_restart(config_db: CephLab) -> None:
    """Why `startup` keys go to the config database (data/deploy.yaml central_notes): a daemon reads the
    database before it starts, so the value is in effect after a restart, from the monitors."""
    lab = config_db
    key, value = "osd_op_num_shards_ssd", "4"
    cfg = central.split([Setting(file="ceph.conf", section="osd", key=key, value=value, rule="test")])
    assert not cfg.local and "startup" in cfg.values[0].note  # the catalog flag, with the note from data
    lab.run("ceph", "config", "set", "osd.0", key, value)
    try:
        _restart_osd(lab, 0)
        deadline = time.monotonic() + 60
        while _shown(lab, "osd.0").get(key) != (value, "mon"):
            assert time.monotonic() < deadline, _shown(lab, "osd.0").get(key)
            time.sleep(2)
        assert lab.daemon("osd.0", "config", "get", key)[key] == value  # what the running daemon uses
    finally:
        lab.run("ceph", "config", "rm", "osd.0", key)
        _restart_osd(lab, 0)


@pytest.mark.ceph
def test_cephadm_specs_pass_cephadm_own_validation(python_common: None) -> None:
    """cephadm's own ServiceSpec/DriveGroupSpec (python3-ceph-common of the Debian Ceph 16.2.15 packages) accepts
    every compiled spec, reads the fields as compiled, and refuses a misspelt one."""
    bundles = {
        (t, "block"): compile_bundle(CompileRequest(workload="block", tier=t, ceph_release="pacific"))
        for t in tier_names()
    }
    for tier in tier_names():
        b = bundles[(tier, "block")]
        r = cephadm_validate(b.files[cephadm.NAME])
        assert r.returncode == 0, r.stderr[-800:]
        got = json.loads(r.stdout)
        hw = b.hardware
        assert got["type"] == "DriveGroupSpec" and got["encrypted"] is False
        assert got["osds_per_device"] == b.shape["osds_per_device"] >= 1
        assert got["data"]["rotational"] == (1 if hw.data_type == "hdd" else 0)
        assert (got["db"] is not None) == bool(hw.db_devices)
    enc = compile_bundle(
        CompileRequest(workload="block", tier="iops", ceph_release="pacific", encrypted=True)
    )
    assert json.loads(cephadm_validate(enc.files[cephadm.NAME]).stdout)["encrypted"] is True
    fleet_specs = emit_fleet.files(
        fleet.compile_fleet(
            [HostGroup("n", ("n1", "n2"), tier="iops"), HostGroup("t", ("t1",), tier="tco")],
            "block",
            "pacific",
        ),
        {},
    )[cephadm.NAME]
    got = [json.loads(x) for x in cephadm_validate(fleet_specs).stdout.splitlines()]
    assert [g["class"] for g in got] == ["nvme", "ssd"] and got[1]["db"] is not None
    # the check can fail: cephadm refuses a misspelt field
    bad = cephadm_validate(
        bundles[("iops", "block")].files[cephadm.NAME].replace("osds_per_device", "osd_per_device")
    )
    assert bad.returncode != 0 and "osd_per_device" in bad.stderr


def cephadm_validate(text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SYSTEM_PYTHON, "-c", _VALIDATE], input=text, capture_output=True, text=True)


_VALIDATE = """
import json, sys, yaml
from ceph.deployment.service_spec import ServiceSpec
for doc in yaml.safe_load_all(sys.stdin):
    spec = ServiceSpec.from_json(doc)
    spec.validate()
    print(json.dumps({"type": type(spec).__name__, "osds_per_device": spec.osds_per_device,
                      "encrypted": spec.encrypted, "class": spec.crush_device_class,
                      "data": spec.data_devices.to_json(), "db": spec.db_devices.to_json() if spec.db_devices else None}))
"""


@pytest.fixture(scope="module")
def python_common() -> None:
    r = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import ceph.deployment.drive_group"], capture_output=True, text=True
    )
    if r.returncode != 0:
        pytest.skip(
            f"cephadm's python-common is not importable ({r.stderr.strip()[-120:]}): "
            "scripts/install-system-deps.sh installs python3-ceph-common"
        )

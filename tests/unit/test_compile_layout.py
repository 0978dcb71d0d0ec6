"""Node layout and memory budget, OSDs per device, erasure coding and pools: properties over random hardware
files, the shipped tiers and the format table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashtune.catalog import load_catalog
from flashtune.compile import CompileRequest, compile_bundle, formats, layout
from flashtune.compile.pipeline import WORKLOADS, cluster_shape, layer_names
from flashtune.compile.profiles import compose
from flashtune.emit import pools
from flashtune.errors import FlashtuneError
from flashtune.hardware import load_hardware, tier_names
from flashtune.model import GiB

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
MEM = layout.memory_rules()
MODERN = ["pacific", "quincy", "reef", "squid", "tentacle"]


def hardware_yaml(
    drives: int, kind: str, cores: int, ram: float, nodes: int, db: bool, ec_optimizations: bool = False
) -> str:
    size = {"nvme": 3840, "sata-ssd": 1920, "hdd": 8000}[kind]
    text = (
        f"name: random\nnode:\n  cores: {cores}\n  ram_gib: {ram}\n  nics: [{{count: 2, speed_gbps: 25}}]\n"
        f"  data_devices:\n    - {{count: {drives}, type: {kind}, size_gb: {size}}}\n"
    )
    if db and kind != "nvme":
        text += (
            f"  db_devices:\n    - {{count: 2, type: nvme, size_gb: {max(400, drives * size * 0.05):.0f}}}\n"
        )
    fast_ec = "  ec_optimizations: true\n" if ec_optimizations else ""
    return text + f"cluster:\n  nodes: {nodes}\n  clients: 2\n{fast_ec}"


def check_budget(shape: dict[str, Any], ram: float) -> None:
    """The two budget rules of data/layout/layout.yaml hold and no OSD gets less than the useful floor."""
    osd = shape["osd_memory_target"] * shape["osds_per_node"] / GiB
    others = sum(shape["daemons_gib"].values())
    assert shape["osd_memory_target"] >= MEM["osd_memory_target_floor_gib"] * GiB
    assert osd + others <= MEM["autotune_ratio"] * ram + 1e-6
    assert osd + others + shape["os_reserve_gib"] <= (1 - MEM["headroom"]) * ram + 1e-6


hardware = st.fixed_dictionaries(
    {
        "drives": st.integers(1, 64),
        "kind": st.sampled_from(["nvme", "sata-ssd", "hdd"]),
        "cores": st.integers(4, 256),
        "ram": st.integers(16, 2048),
        "nodes": st.integers(1, 100),
        "db": st.booleans(),
    }
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    hw=hardware,
    workload=st.sampled_from(WORKLOADS),
    release=st.sampled_from(MODERN),
    per_device=st.sampled_from([None, None, 1, 2, 4]),
)
def test_random_hardware_keeps_the_budget_a_spare_host_and_the_osds_per_device(
    tmp_path: Path, hw: dict[str, Any], workload: str, release: str, per_device: int | None
) -> None:
    path = tmp_path / "hw.yaml"
    path.write_text(hardware_yaml(**hw))
    hwd = load_hardware(path)
    req = CompileRequest(
        workload=workload, hardware_file=path, ceph_release=release, osds_per_device=per_device
    )
    try:
        shape = cluster_shape(req, hwd, compose(layer_names(req, hwd)), load_catalog())
    except FlashtuneError as e:
        assert e.exit_code in (1, 2) and e.suggestion, e
        too_many = per_device is not None and (hw["kind"] != "nvme" and per_device > 1)
        few_hosts = hw["nodes"] < 3 and "replicas need" in e.message  # 3 copies need 3 hosts
        assert too_many or few_hosts or "per OSD" in e.message or "block.db" in e.message, e.message
        return
    check_budget(shape, hw["ram"])
    if per_device is not None:
        assert shape["osds_per_device"] == per_device
    assert shape["osds_per_node"] == shape["osds_per_device"] * hw["drives"]
    ec = shape["ec"]
    if ec is not None:  # automatic choice: always a spare failure domain
        assert ec.value.k + ec.value.m + 1 <= shape["nodes"]
        assert ec.value.plugin == ("isa" if release == "tentacle" else "jerasure")
        assert ec.value.technique == "reed_sol_van"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hw=hardware, workload=st.sampled_from(WORKLOADS))
def test_random_hardware_compiles_or_refuses_cleanly(
    tmp_path: Path, hw: dict[str, Any], workload: str
) -> None:
    path = tmp_path / "hw.yaml"
    path.write_text(hardware_yaml(**hw))
    try:
        b = compile_bundle(CompileRequest(workload=workload, hardware_file=path))
    except FlashtuneError as e:
        assert e.exit_code in (1, 2) and "flashtune bug" not in (e.suggestion or ""), e
        return
    check_budget(b.shape, hw["ram"])
    m = json.loads(b.files["manifest.json"])
    assert sum(m["memory_budget_gib"].values()) <= (1 - MEM["headroom"]) * hw["ram"] + 0.01


@pytest.mark.parametrize("tier", tier_names())
@pytest.mark.parametrize("workload", WORKLOADS)
def test_shipped_tiers_stay_within_the_budget(tier: str, workload: str) -> None:
    b = compile_bundle(CompileRequest(workload=workload, tier=tier))
    check_budget(b.shape, b.hardware.ram_gib)
    explain = b.files["explain.md"]
    assert "## Node memory budget" in explain and "cephadm" in explain
    if workload == "scratch":  # the MDS is counted at 1.5 x its cache limit (8 GiB in workload-scratch)
        assert b.shape["daemons_gib"]["mds"] == 12.0
    if workload == "rgw":
        assert b.shape["daemons_gib"]["rgw"] == 4.0


def test_standard_scratch_no_longer_overcommits_ram() -> None:
    b = compile_bundle(CompileRequest(workload="scratch", tier="standard"))
    total = sum(gib for _, gib in b.memory_budget())
    assert total <= 0.8 * b.hardware.ram_gib  # was over 100 % once the MDS was counted
    assert any("block.db" in w and "4%" in w for w in b.warnings)  # 3.3 % per HDD OSD for CephFS


def test_too_little_ram_refuses_instead_of_going_below_the_floor(tmp_path: Path) -> None:
    hw = tmp_path / "hw.yaml"
    hw.write_text(hardware_yaml(drives=24, kind="hdd", cores=16, ram=32, nodes=5, db=False))
    r = subprocess.run(
        [
            str(BIN / "compile-config"),
            "--hardware",
            str(hw),
            "--workload",
            "scratch",
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "per OSD" in r.stderr and "hint:" in r.stderr and "placement" in r.stderr
    assert not (tmp_path / "o").exists()


def test_two_osds_per_nvme_fall_back_to_one_when_memory_is_short(tmp_path: Path) -> None:
    # 128 cores / 8 NVMe = 16 per device: two OSDs each by CPU, but 64 GiB cannot give 16 OSDs 2 GiB each
    hw = tmp_path / "hw.yaml"
    hw.write_text(hardware_yaml(drives=8, kind="nvme", cores=128, ram=48, nodes=5, db=False))
    b = compile_bundle(CompileRequest(workload="block", hardware_file=hw))
    assert b.shape["osds_per_device"] == 1 and "useful floor" in b.shape["osds_per_device_reason"]
    hw.write_text(hardware_yaml(drives=8, kind="nvme", cores=128, ram=256, nodes=5, db=False))
    assert compile_bundle(CompileRequest(workload="block", hardware_file=hw)).shape["osds_per_device"] == 2


def test_osds_per_device_cli_input(tmp_path: Path) -> None:
    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                str(BIN / "compile-config"),
                "--tier",
                "iops",
                "--workload",
                "block",
                "--format",
                "json",
                "--out",
                str(tmp_path / extra[-1]),
                *extra[:-1],
            ],
            capture_output=True,
            text=True,
        )

    r = run("--osds-per-device", "2", "a")
    assert r.returncode == 0, r.stderr
    cluster = json.loads(r.stdout)["manifest"]["cluster"]
    assert cluster["osds_per_device"] == 2 and cluster["osds_per_node"] == 8
    assert "(--osds-per-device)" in (tmp_path / "a" / "explain.md").read_text()
    for bad, folder in (("0", "b"), ("9", "c")):
        r = run("--osds-per-device", bad, folder)
        assert r.returncode == 2 and "--osds-per-device" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run(
        [
            str(BIN / "compile-config"),
            "--tier",
            "standard",
            "--workload",
            "block",
            "--osds-per-device",
            "2",
            "--out",
            str(tmp_path / "d"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "hdd" in r.stderr


def test_legacy_jewel_keeps_the_seeds_four_osds_per_nvme() -> None:
    b = compile_bundle(
        CompileRequest(workload="mysql", tier="iops", ceph_release="jewel", mysql_flavour="mysql-5.7")
    )
    assert b.shape["osds_per_device"] == 4 and b.shape["osds_per_node"] == 16
    assert "pools.sh" not in b.files  # the legacy mode reproduces the 2017 files only
    assert "## Node memory budget" not in b.files["explain.md"]  # FileStore: no osd_memory_target to budget
    mariadb = compile_bundle(CompileRequest(workload="mysql", tier="iops", ceph_release="jewel"))
    assert any(d["key"] == "innodb_page_cleaners" for d in mariadb.differences)
    assert not any(d["key"] == "innodb_page_cleaners" for d in b.differences)  # kept for mysql-5.7


def _osd_value(conf: str, key: str) -> int | None:
    """KEY's value in the [osd] or [global] section of a compiled ceph.conf (None when not set)."""
    section = ""
    for line in conf.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif section in ("global", "osd") and line.split("=")[0].strip() == key:
            return int(line.split("=", 1)[1])
    return None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hw=hardware, workload=st.sampled_from(WORKLOADS), release=st.sampled_from(MODERN))
def test_message_buffers_fit_inside_the_osd_memory_target_at_every_size(
    tmp_path: Path, hw: dict[str, Any], workload: str, release: str
) -> None:
    """The bytes of messages an OSD may hold (client messages in flight + undispatched messages) come out of
    osd_memory_target before the caches: at most a quarter of it, on the HDD tier's 2 GiB targets too, and
    the dispatch throttle never below Ceph's 100 MiB default nor above the Intel study's 1000 MiB."""
    path = tmp_path / "hw.yaml"
    path.write_text(hardware_yaml(**hw))
    try:
        b = compile_bundle(CompileRequest(workload=workload, hardware_file=path, ceph_release=release))
    except FlashtuneError as e:
        assert e.exit_code in (1, 2) and e.suggestion, e
        return
    conf = b.files["ceph.conf"]
    target = _osd_value(conf, "osd_memory_target") or 4 * GiB
    dispatch = _osd_value(conf, "ms_dispatch_throttle_bytes") or 100 * (1 << 20)
    cap = _osd_value(conf, "osd_client_message_size_cap") or 500 * (1 << 20)
    assert dispatch + cap <= target / 4, (dispatch, cap, target)
    assert 100 * (1 << 20) <= dispatch <= 1048576000 and cap <= 500 * (1 << 20)


def test_standard_tier_message_buffers_scale_to_its_small_osd_targets() -> None:
    b = compile_bundle(CompileRequest(workload="scratch", tier="standard"))
    conf = b.files["ceph.conf"]
    assert _osd_value(conf, "osd_memory_target") == 2 * GiB
    # 1000 MiB was half of this target; now 1/16 of it, and the 500 MiB client cap lowered to fit 25 %
    assert _osd_value(conf, "ms_dispatch_throttle_bytes") == 128 * (1 << 20)
    assert _osd_value(conf, "osd_client_message_size_cap") == 384 * (1 << 20)
    big = compile_bundle(CompileRequest(workload="block", tier="iops")).files["ceph.conf"]
    assert _osd_value(big, "ms_dispatch_throttle_bytes") == 1048576000
    assert _osd_value(big, "osd_client_message_size_cap") is None  # the default fits


def test_database_host_with_more_ram_than_the_osd_nodes_compiles() -> None:
    b = compile_bundle(CompileRequest(workload="mysql", tier="iops", db_ram_gib=200))
    assert "innodb_buffer_pool_size = 161061273600" in b.files["my.cnf"]  # 75 % of 200 GiB, 128 MiB chunks
    assert b.hardware.ram_gib == 128


def test_auto_ec_keeps_a_spare_host_and_pools_sh_creates_profile_and_pools() -> None:
    six = compile_bundle(CompileRequest(workload="rgw", tier="iops", nodes=6))
    assert six.shape["ec"] is None and "7 hosts" in six.shape["protection_reason"]  # 4+2 on 6 hosts: no spare
    b = compile_bundle(CompileRequest(workload="scratch", tier="iops", nodes=11, ceph_release="tentacle"))
    ec = b.shape["ec"].value
    assert (ec.k, ec.m, ec.plugin, ec.technique) == (8, 2, "isa", "reed_sol_van")
    script = b.files["pools.sh"]
    assert ec.set_command() in script and "stripe_unit=" not in script  # no EC optimisations: the default
    # 100 PGs/OSD x 44 OSDs x 0.9 of the ratios' sum 1.05 / 10 shards = 377: 256, the autoscaler's own target
    assert "ceph osd pool create cephfs_data_ec 256 256 erasure flashtune-isa-8-2" in script
    assert "ceph osd pool set cephfs_data_ec target_size_ratio 0.9" in script
    assert "allow_ec_overwrites true" in script
    # FastEC is offered as a commented opt-in line, never run by default (20.2.0 OSD crash)
    assert "\n# ceph osd pool set cephfs_data_ec allow_ec_optimizations true\n" in script
    assert not any(
        line.startswith("ceph ") and "allow_ec_optimizations" in line for line in script.splitlines()
    )
    assert "only seeds the default profile" in b.files["explain.md"]
    reef = compile_bundle(CompileRequest(workload="rgw", tier="iops", nodes=11, ceph_release="reef"))
    assert "plugin=jerasure technique=reed_sol_van" in reef.files["pools.sh"]
    assert "allow_ec_optimizations" not in reef.files["pools.sh"]  # a Tentacle flag
    assert "allow_ec_overwrites" not in reef.files["pools.sh"]  # RGW writes whole objects
    manual = compile_bundle(CompileRequest(workload="block", tier="iops", nodes=10, ec=(8, 2)))
    assert any("no spare host" in w for w in manual.warnings)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    hw=hardware,
    workload=st.sampled_from(WORKLOADS),
    release=st.sampled_from(MODERN),
    fast=st.booleans(),
    km=st.sampled_from([(2, 1), (4, 2), (8, 2)]),
)
def test_ec_stripe_unit_is_16k_only_where_the_ec_optimisations_are_on(
    tmp_path: Path, hw: dict[str, Any], workload: str, release: str, fast: bool, km: tuple[int, int]
) -> None:
    """A stripe unit is fixed when the profile is made: 16 KiB is upstream's choice for pools with Tentacle's
    EC optimisations; anywhere else (older releases, or the flag left off) the 4 KiB default stays, because a
    larger unit makes every partial write rewrite a larger stripe. The flag and the unit go together."""
    path = tmp_path / "hw.yaml"
    path.write_text(hardware_yaml(**{**hw, "nodes": max(hw["nodes"], sum(km) + 1)}, ec_optimizations=fast))
    try:
        b = compile_bundle(CompileRequest(workload=workload, hardware_file=path, ceph_release=release, ec=km))
    except FlashtuneError as e:
        assert e.exit_code in (1, 2) and e.suggestion, e
        return
    on = fast and release == "tentacle"
    script = b.files["pools.sh"]
    run = [ln for ln in script.splitlines() if not ln.startswith("#")]
    profile = next(ln for ln in run if "erasure-code-profile set" in ln)
    assert ("stripe_unit=16384" in profile) == on and ("stripe_unit=" in profile) == on, profile
    assert any("allow_ec_optimizations true" in ln for ln in run) == on
    conf = b.files["ceph.conf"] + b.files.get("ceph-config.sh", "")
    assert "osd_pool_erasure_code_stripe_unit" not in conf or on


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hw=hardware, release=st.sampled_from(MODERN))
def test_rgw_keeps_the_default_thread_pool_since_beast_needs_no_thread_per_connection(
    tmp_path: Path, hw: dict[str, Any], release: str
) -> None:
    """One reason, one value: the catalog says beast needs no thread per connection, so no node size raises
    rgw_thread_pool_size (a 64-core node used to get 1024)."""
    path = tmp_path / "hw.yaml"
    path.write_text(hardware_yaml(**hw))
    try:
        b = compile_bundle(CompileRequest(workload="rgw", hardware_file=path, ceph_release=release))
    except FlashtuneError as e:
        assert e.exit_code in (1, 2) and e.suggestion, e
        return
    assert "rgw_thread_pool_size" not in b.files["ceph.conf"]
    assert "rgw_thread_pool_size" not in b.files.get("ceph-config.sh", "")


@settings(max_examples=30, deadline=None)
@given(
    nodes=st.integers(3, 9),
    size=st.sampled_from([3, 4]),
    workload=st.sampled_from(["block", "mysql"]),
    release=st.sampled_from(MODERN),
)
def test_replicated_pools_without_a_spare_host_warn_as_ec_does(
    nodes: int, size: int, workload: str, release: str
) -> None:
    try:
        b = compile_bundle(
            CompileRequest(
                workload=workload, tier="iops", nodes=nodes, replication=size, ceph_release=release
            )
        )
    except FlashtuneError as e:
        assert nodes < size and e.suggestion, e
        return
    warned = [w for w in b.warnings if "leave no spare host" in w]
    assert bool(warned) == (nodes < size + 1), (nodes, size, b.warnings)
    manifest = json.loads(b.files["manifest.json"])
    assert all(w in manifest["warnings"] and w in b.files["explain.md"] for w in warned)


@settings(max_examples=20, deadline=None)
@given(db_ram=st.integers(2, 1024), tier=st.sampled_from(["iops", "standard", "tco"]))
def test_the_db_host_limit_covers_mariadbs_request_at_every_max_connections(db_ram: int, tier: str) -> None:
    from flashtune.emit import dbhost

    b = compile_bundle(CompileRequest(workload="mysql", tier=tier, db_ram_gib=db_ram))
    conns = next((int(s.value) for s in b.settings if s.file == "my.cnf" and s.key == "max_connections"), 151)
    if dbhost.wanted_files(conns) <= dbhost.DEBIAN_UNIT_LIMIT:  # Debian's unit already allows it: no file
        assert dbhost.PATH not in b.files
        return
    text = b.files[dbhost.PATH]
    limit = int(text.split("LimitNOFILE=")[1])
    assert limit >= dbhost.wanted_files(conns) and limit > dbhost.DEBIAN_UNIT_LIMIT and limit % 1024 == 0
    other = compile_bundle(CompileRequest(workload="mysql", tier=tier, mysql_flavour="mysql-8.4"))
    assert dbhost.PATH not in other.files  # measured for MariaDB only
    assert dbhost.PATH not in compile_bundle(CompileRequest(workload="block", tier=tier)).files


def test_pools_follow_the_protection() -> None:
    b = compile_bundle(CompileRequest(workload="block", tier="tco", replication=4))
    assert [(p["name"], p["type"], p["size"]) for p in b.shape["pools"]] == [("rbd", "replicated", 4)]
    pg = b.shape["pg_num"]  # 0.9 (CBT's pool) and the autoscaler's 1.0 for a lone pool round alike here
    assert pools.commands(b) == [
        f"ceph osd pool create rbd {pg} {pg} replicated",
        "ceph osd pool set rbd size 4",
        "ceph osd pool set rbd target_size_ratio 0.9",
        "rbd pool init rbd",
    ]


@pytest.mark.parametrize(
    ("protection", "says"),
    [
        ("{none: true, raid: [8, 2]}", "protection {none: true} keeps no copy"),  # was 3 replicas, unsaid
        ("{replicated: 1}", "replicated: 1: at least 2 copies are needed"),  # was '--replication must be'
        ("{replicated: 2}", "replicated: 2 keeps two copies"),
        ("{replicated: 7}", "7 replicas need 7 hosts"),
        (
            "{erasure: [4, 2]}",
            "erasure: [4, 2] needs at least 6 hosts as failure domains and the cluster has 5",
        ),
    ],
)
def test_a_hardware_files_protection_ceph_cannot_use_is_refused_at_its_line(
    tmp_path: Path, protection: str, says: str
) -> None:
    """A file's {none: true} compiled 3-replica pools without a word, and a file's replicated: 1 was refused as a
    --replication flag the user never passed, with no file:line."""
    hw = tmp_path / "hw.yaml"
    text = (
        (REPO / "data" / "tiers" / "iops.yaml")
        .read_text()
        .replace("  client_ram_gib: 32\n", f"  client_ram_gib: 32\n  protection: {protection}\n", 1)
    )
    hw.write_text(text)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("  protection:"))
    with pytest.raises(FlashtuneError) as e:
        compile_bundle(CompileRequest(workload="block", tier=None, hardware_file=hw))
    assert str(e.value).startswith(f"{hw}:{line}: error: {says}"), str(e.value)
    with pytest.raises(FlashtuneError, match=r"^error: --replication 1: at least 2 copies"):
        compile_bundle(CompileRequest(workload="block", tier="iops", replication=1))


@pytest.mark.parametrize(
    ("release", "target", "says"),
    [
        ("pacific", "tentacle", "pass --ceph-release pacific to compile for the cluster it describes"),
        ("nautilus", "tentacle", "compile-config has no nautilus settings"),
        ("pacific", "pacific", None),
    ],
)
def test_a_hardware_files_release_other_than_the_target_is_a_warning(
    tmp_path: Path, release: str, target: str, says: str | None
) -> None:
    """A file's release: pacific was compiled for tentacle (the --ceph-release default) without a word."""
    hw = tmp_path / "hw.yaml"
    hw.write_text(f"release: {release}\n" + (REPO / "data" / "tiers" / "iops.yaml").read_text())
    b = compile_bundle(CompileRequest(workload="block", tier=None, hardware_file=hw, ceph_release=target))
    found = [w for w in b.warnings if "the hardware file says release:" in w]
    assert (found == []) if says is None else (len(found) == 1 and says in found[0]), b.warnings


def test_hardware_file_layout_overrides_and_errors(tmp_path: Path) -> None:
    hw = tmp_path / "hw.yaml"
    base = hardware_yaml(drives=12, kind="hdd", cores=16, ram=64, nodes=5, db=False)
    hw.write_text(base + "layout:\n  placement: {all: [crash], scratch: []}\n  os_reserve_gib: 6\n")
    b = compile_bundle(CompileRequest(workload="scratch", hardware_file=hw))
    assert b.shape["daemons_gib"] == {"crash": 0.125} and b.shape["os_reserve_gib"] == 6
    hw.write_text(base + "layout:\n  placement: {all: [mon, nfs]}\n")
    r = subprocess.run(
        [
            str(BIN / "compile-config"),
            "--hardware",
            str(hw),
            "--workload",
            "block",
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and f"{hw}:" in r.stderr and "placement" in r.stderr


def test_the_format_table_names_every_emitted_file() -> None:
    b = compile_bundle(CompileRequest(workload="scratch", tier="iops"))
    assert set(b.files) == set(b.kinds)
    assert {formats.BY_KIND[k].kind for k in b.kinds.values()} >= {
        "ceph.conf",
        "pools.sh",
        "cbt.yaml",
        "explain.md",
    }
    for f in formats.FORMATS:
        assert f.stage in ("config", "plan", "report") and f.host in ("osd-node", "db-host", "client")
    assert (
        formats.domain_of("my.cnf") == "mysql"
        and formats.release_of("my.cnf", "reef", "mysql-8.4") == "mysql-8.4"
    )


def test_layout_data_matches_its_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from flashtune.yamlio import load_yaml

    schema = json.loads((REPO / "data" / "layout" / "layout.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(load_yaml(REPO / "data" / "layout" / "layout.yaml"))


def test_osds_per_nvme_count_the_cores_of_every_socket(tmp_path: Path) -> None:
    iops = compile_bundle(CompileRequest(workload="block", tier="iops"))
    assert "44 cores / 4 devices" in iops.shape["osds_per_device_reason"]  # 2 sockets x 22 cores (seed 000)
    hw = tmp_path / "hw.yaml"
    hw.write_text(
        hardware_yaml(drives=2, kind="nvme", cores=12, ram=128, nodes=5, db=False).replace(
            "  cores: 12\n", "  sockets: 2\n  cores: 12\n"
        )
    )
    assert compile_bundle(CompileRequest(workload="block", hardware_file=hw)).shape["osds_per_device"] == 2


@pytest.mark.parametrize("nodes", [3, 5, 7, 12])
def test_scratch_benchmark_file_system_pool_fits_a_small_cluster(tmp_path: Path, nodes: int) -> None:
    """CBT's cephfs endpoint creates the benchmark's pool itself, 1024 PGs unless it names a profile: more than
    mon_max_pg_per_osd lets a few OSDs hold. The compiled plans name one sized like the compiled pools (and the
    compile's own lint of the plan, FT606, refuses an oversized one)."""
    path = tmp_path / "hw.yaml"
    path.write_text(hardware_yaml(drives=1, kind="nvme", cores=16, ram=128, nodes=nodes, db=False))
    b = compile_bundle(CompileRequest(workload="scratch", hardware_file=path, ceph_release="pacific"))
    plans = [text for name, text in b.files.items() if name.startswith("cbt/")]
    assert plans
    want = b.shape["pg_num"] if b.shape["ec"] is None else b.shape["pg_num_ec"]
    for text in plans:
        assert "    pool_profile: cephfs\n" in text
        pg = int(text.split("    cephfs:\n      pg_size: ", 1)[1].split("\n", 1)[0])
        assert pg == want and pg * 3 / b.shape["osds"] <= 250


@pytest.mark.parametrize("daemons", [None, 1, 2, 3, 5])
@pytest.mark.parametrize("ec", [None, (2, 1)])
def test_scratch_mds_daemons_give_max_mds_and_a_folder_to_pin(
    tmp_path: Path, daemons: int | None, ec: tuple[int, int] | None
) -> None:
    """cluster.mds_daemons: all but one standby hold a rank (max_mds, at least 1); with several ranks pools.sh
    sets max_mds, makes the subvolume even without EC and prints the distributed pin for the mounted folder
    (tests/real/test_mds_ranks_real.py shows both ranks then serve the jobs' folders)."""
    hw = tmp_path / "hw.yaml"
    extra = "" if daemons is None else f"  mds_daemons: {daemons}\n"
    hw.write_text(hardware_yaml(drives=4, kind="nvme", cores=32, ram=256, nodes=5, db=False) + extra)
    b = compile_bundle(CompileRequest(workload="scratch", hardware_file=hw, ec=ec))
    n = 2 if daemons is None else daemons
    ranks = max(1, n - 1)
    assert (b.shape["mds_daemons"], b.shape["max_mds"]) == (n, ranks)
    assert b.cluster_facts()["max_mds"] == ranks
    lines = pools.commands(b)
    assert (
        f"if ceph orch status 2>/dev/null | grep -q cephadm; then ceph orch apply mds scratch --placement={n}; fi"
        in lines
    )
    assert (f"ceph fs set scratch max_mds {ranks}" in lines) is (ranks > 1)
    assert any(line.startswith("ceph fs subvolume create scratch scratch") for line in lines) is (
        ranks > 1 or ec is not None
    )
    pinned = [line for line in lines if "ceph.dir.pin.distributed -v 1" in line]
    assert len(pinned) == (ranks > 1)
    assert f"{ranks} active rank(s)" in b.files["explain.md"]
    assert any("no standby" in w for w in b.warnings) is (n == 1)


def test_more_mds_daemons_than_nodes_warn_and_a_bad_count_is_refused(tmp_path: Path) -> None:
    hw = tmp_path / "hw.yaml"
    base = hardware_yaml(drives=4, kind="nvme", cores=32, ram=256, nodes=3, db=False)
    hw.write_text(base + "  mds_daemons: 4\n")
    b = compile_bundle(CompileRequest(workload="scratch", hardware_file=hw))
    assert any("4 MDS daemons on 3 OSD nodes" in w for w in b.warnings)
    hw.write_text(base + "  mds_daemons: 1.5\n")
    with pytest.raises(FlashtuneError, match="mds_daemons"):
        load_hardware(hw)

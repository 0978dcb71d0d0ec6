"""Fleets: host groups compiled into one plan, shared values at the widest scope, masks only where hosts differ.

The real cluster check of class and host masks is in test_central_real.py.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashtune.compile import central, fleet
from flashtune.emit import fleet as emit_fleet
from flashtune.errors import FlashtuneError
from flashtune.model import CentralConfig, CentralValue, HostGroup
from flashtune.parse import parse_text
from flashtune.placement import placement

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def group(name: str, n: int, tier: str = "iops") -> HostGroup:
    return HostGroup(name, tuple(f"{name}{i:03d}" for i in range(n)), tier=tier)


def value_for(cfg: CentralConfig, key: str, *, osd_class: str, host: str) -> str | None:
    """What the monitors would hand an OSD of this class on this host (src/mon/ConfigMap.cc: the most
    precise matching scope wins: host mask, then class mask, then the unmasked osd, then global)."""
    found = {v.target: v.value for v in cfg.values if v.key == key}
    for target in (f"osd/host:{host}", f"global/host:{host}", f"osd/class:{osd_class}", "osd", "global"):
        if target in found:
            return found[target]
    return None


def test_host_ranges_and_bad_host_names() -> None:
    assert fleet.expand_hosts("node[008-011]", "f") == ["node008", "node009", "node010", "node011"]
    assert fleet.expand_hosts(["a1", "rack[1-2]x"], "f") == ["a1", "rack1x", "rack2x"]
    for bad in ("node[5-1]", "bad host", "x[1-999999]"):
        with pytest.raises(FlashtuneError):
            fleet.expand_hosts(bad, "f")


def test_mixed_device_classes_get_class_masks_and_everything_else_is_shared() -> None:
    f = fleet.compile_fleet(
        [group("n", 40), group("s", 30, "tco"), group("h", 30, "standard")], "block", "pacific"
    )
    masked = [v for v in f.config.values if v.mask]
    assert masked and all(v.mask.startswith("class:") and v.who == "osd" for v in masked)
    assert {d.key for d in f.decisions if d.scope not in ("shared", "clients")} == {v.key for v in masked}
    # rbd_cache = false only on NVMe (40 of 100 hosts): clients get one value, the one most hosts want (unset)
    cache = next(d for d in f.decisions if d.key == "rbd_cache")
    assert (cache.who, cache.scope, cache.entries, cache.values["n"]) == ("client", "clients", 0, "false")
    assert not [v for v in f.config.values if v.who == "client" and v.mask]
    # every host still gets exactly its own compile's value
    for g in f.groups:
        own = {v.key: v.value for v in central.split(f.bundles[g.name].settings).values if v.who == "osd"}
        cls = placement().device_class[f.bundles[g.name].hardware.data_type]
        for key, want in own.items():
            assert value_for(f.config, key, osd_class=cls, host=g.hosts[0]) == want, (g.name, key)
    # the widest value is the one most hosts want: nvme (40 hosts) is unmasked
    mem = {v.target: v.value for v in f.config.values if v.key == "osd_memory_target"}
    assert mem["osd"] == str(f.bundles["n"].shape["osd_memory_target"])


def test_same_class_different_hardware_gets_host_masks(tmp_path: Path) -> None:
    small = (REPO / "data" / "tiers" / "iops.yaml").read_text().replace("ram_gib: 128", "ram_gib: 96")
    (tmp_path / "small.yaml").write_text(small + "hosts: 'small[01-03]'\n")
    big = (REPO / "data" / "tiers" / "iops.yaml").read_text()
    (tmp_path / "big.yaml").write_text(big + "hosts: 'big[01-10]'\n")
    groups = fleet.groups_from_hardware([tmp_path / "small.yaml", tmp_path / "big.yaml"])
    f = fleet.compile_fleet(groups, "rgw", "pacific")
    host_masks = sorted(v.target for v in f.config.values if v.key == "osd_memory_target" and v.mask)
    assert host_masks == ["osd/host:small01", "osd/host:small02", "osd/host:small03"]
    for g in f.groups:
        want = str(f.bundles[g.name].shape["osd_memory_target"])
        assert all(
            value_for(f.config, "osd_memory_target", osd_class="nvme", host=h) == want for h in g.hosts
        )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "c", None]), st.sampled_from(["nvme", "ssd"]), st.integers(1, 5)
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(["osd", "global", "client.rgw"]),
)
def test_merge_gives_every_host_its_own_value(spec: list[tuple[str | None, str, int]], who: str) -> None:
    """Whatever the groups want, each host resolves to its group's value (or the default where unset)."""
    groups, configs, types = [], {}, {}
    for i, (val, dev, n) in enumerate(spec):
        name = f"g{i}"
        groups.append(HostGroup(name, tuple(f"{name}h{j}" for j in range(n)), tier="iops"))
        configs[name] = CentralConfig(values=[CentralValue(who, "", "debug_osd", val)] if val else [])
        types[name] = {"nvme": "nvme", "ssd": "sata-ssd"}[dev]
    if not any(c.values for c in configs.values()):
        return
    merged, _ = fleet.merge(groups, configs, "pacific", types)
    default = "1/5"  # debug_osd's default in the catalog
    for g in groups:
        cls = placement().device_class[types[g.name]]
        want = configs[g.name].values[0].value if configs[g.name].values else default
        for h in g.hosts:
            found = {v.target: v.value for v in merged.values}
            masks = (f"{who}/host:{h}", *([f"osd/class:{cls}"] if who == "osd" else []), who)
            got = next((found[t] for t in masks if t in found), default)  # nothing set: the default
            assert got == want, (g.name, h, merged.values)
    assert not any(
        v.mask.startswith("class:") for v in merged.values if v.who != "osd"
    )  # class masks reach OSDs only


def test_fleet_files_one_drop_in_per_group_and_cli(tmp_path: Path) -> None:
    (tmp_path / "fleet.yaml").write_text(
        "groups:\n"
        "  - {name: nvme, tier: iops, hosts: 'n[01-04]'}\n"
        "  - {name: hdd, tier: standard, hosts: [s1, s2]}\n"
    )
    groups = fleet.load_fleet(tmp_path / "fleet.yaml")
    f = fleet.compile_fleet(groups, "block", "pacific")
    files = fleet.outputs(f, {"fleet": "t"})
    for g in groups:  # every OS file of the group's compile, at the path it has on the host
        own = [n for n in f.bundles[g.name].files if n in emit_fleet.OS_FILES]
        assert "sysctl.conf" in own
        assert all(f"fleet/{g.name}/{emit_fleet.OS_FILES[n]}" in files for n in own)
    inv = files["fleet/inventory.ini"]
    assert "[nvme]\nn01\nn02\nn03\nn04\n" in inv and "[hdd]\ns1\ns2\n" in inv
    script = [shlex.split(x) for x in files["ceph-config.sh"].splitlines() if x.startswith("ceph config set")]
    assert len(script) == len(f.config.values) and any("/class:" in w[3] for w in script)
    specs = files["cephadm/osd-spec.yaml"].split("\n---\n")
    from ruamel.yaml import YAML

    docs = list(YAML(typ="safe", pure=True).load_all("\n---\n".join(specs)))
    assert [d["placement"]["hosts"] for d in docs] == [list(g.hosts) for g in groups]
    pools = files["pools.sh"]
    osds = sum(int(f.bundles[g.name].shape["osds_per_node"]) * len(g.hosts) for g in groups)
    assert f"osds={osds}" in pools and "ceph osd pool create" in pools
    # the CLI writes the same plan and refuses bad fleet files with file:line
    out = tmp_path / "out"
    r = subprocess.run(
        [
            str(BIN / "compile-config"),
            "--fleet",
            str(tmp_path / "fleet.yaml"),
            "--workload",
            "block",
            "--ceph-release",
            "pacific",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr

    def commands(text: str) -> list[str]:
        return [x for x in text.splitlines() if x.startswith("ceph ")]

    assert commands((out / "ceph-config.sh").read_text()) == commands(files["ceph-config.sh"])
    assert parse_text((out / "fleet/hdd/etc/sysctl.d/90-flashtune.conf").read_text(), "sysctl.conf").entries
    (tmp_path / "bad.yaml").write_text("groups:\n  - {name: x, tier: iops}\n")
    r = subprocess.run(
        [str(BIN / "compile-config"), "--fleet", str(tmp_path / "bad.yaml"), "--workload", "block"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and f"{tmp_path / 'bad.yaml'}:2" in r.stderr and "Traceback" not in r.stderr
    (tmp_path / "dup.yaml").write_text(
        "groups:\n  - {name: a, tier: iops, hosts: [h1]}\n  - {name: b, tier: tco, hosts: [h1]}\n"
    )
    with pytest.raises(FlashtuneError, match="host 'h1' is in groups 'a' and 'b'"):
        fleet.load_fleet(tmp_path / "dup.yaml")


def test_a_group_without_hosts_and_against_on_jewel_are_refused(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text("groups:\n  - {name: a, tier: iops, hosts: []}\n")
    with pytest.raises(FlashtuneError, match="group 'a' lists no hosts"):
        fleet.load_fleet(tmp_path / "empty.yaml")
    (tmp_path / "d.json").write_text("[]")
    r = subprocess.run(
        [
            str(BIN / "compile-config"),
            "--tier",
            "iops",
            "--workload",
            "mysql",
            "--ceph-release",
            "jewel",
            "--against",
            str(tmp_path / "d.json"),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "Jewel did not have" in r.stderr and not (tmp_path / "o").exists()


@pytest.mark.parametrize("spec", [None, [None], True, [True, "n1"], [1.5], [["n1"]], {"n1": 1}])
def test_a_host_that_is_not_a_name_is_refused(spec: object) -> None:
    """hosts: left empty was one host named 'None' (and true the host 'True'), compiled without a word."""
    with pytest.raises(FlashtuneError, match="is not a host name or range"):
        fleet.expand_hosts(spec, "f.yaml:3")
    assert fleet.expand_hosts([1, "n2"], "f.yaml:3") == ["1", "n2"]  # a number is its name


def test_a_host_listed_twice_in_one_group_is_named_as_such() -> None:
    """It read "host 'n2' is in groups 'a' and 'a'", as if two groups had one name."""
    with pytest.raises(FlashtuneError, match="host 'n2' is listed twice in group 'a'"):
        fleet._checked([HostGroup("a", ("n1", "n2", "n2"), tier="iops")], "f.yaml")
    with pytest.raises(FlashtuneError, match="host 'n1' is in groups 'a' and 'b'"):
        fleet._checked([HostGroup("a", ("n1",), tier="iops"), HostGroup("b", ("n1",), tier="iops")], "f.yaml")

"""The compiler's derivations: each a small pure function with properties that must hold for any input."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flashtune.compile import derive, derive_host, layout, pipeline
from flashtune.errors import DataError, UsageError

GiB, MiB, KiB = 1 << 30, 1 << 20, 1 << 10
MEM = layout.memory_rules()
PER_DEVICE = layout.osds_per_device_rules()
EC = layout.erasure_rules()
PG = {"target_per_osd": 100, "max_per_osd": 250}  # the catalog's pacific defaults (the pipeline reads them)


def is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


@given(osds=st.integers(1, 5000), size=st.integers(2, 14), share=st.floats(0.01, 1.0))
def test_pg_num_is_a_power_of_two_within_the_mon_limit(osds: int, size: int, share: float) -> None:
    n = derive.pg_num(osds, size, share, **PG).value
    assert is_pow2(n)
    assert n == 1 or n * size / osds <= PG["max_per_osd"]


def test_pg_num_matches_the_ceph_docs_example() -> None:
    # placement-groups.rst: 200 OSDs, size 3 -> 6667 -> 8192 (nearest power of two)
    assert derive.pg_num(200, 3, 1.0, **PG).value == 8192


def test_pg_num_halves_when_the_mon_would_refuse_the_pool() -> None:
    # 200 PGs/OSD target x 16 OSDs / size 2 = 1600 -> 2048, but 2048 x 2 / 16 = 256 > 250
    d = derive.pg_num(16, 2, 1.0, target_per_osd=200, max_per_osd=250)
    assert d.value == 1024 and "halved" in d.reason


@given(osds=st.integers(1, 2000), more=st.integers(1, 2000))
def test_pg_num_never_shrinks_when_osds_are_added(osds: int, more: int) -> None:
    assert derive.pg_num(osds + more, 3, 0.5, **PG).value >= derive.pg_num(osds, 3, 0.5, **PG).value


DAEMONS = {"mon": 2.0, "mgr": 4.0, "crash": 0.125}


@given(
    ram=st.floats(16, 2048),
    osds=st.integers(1, 64),
    mds=st.sampled_from([0.0, 6.0, 12.0]),
    os_gib=st.floats(0, 16),
)
def test_osd_memory_target_keeps_both_budget_rules_or_refuses(
    ram: float, osds: int, mds: float, os_gib: float
) -> None:
    daemons = {**DAEMONS, "mds": mds}
    others = sum(daemons.values())
    try:
        d = derive.osd_memory_target(ram, osds, daemons, os_gib, MEM)
    except DataError as e:
        left = min(0.7 * ram - others, 0.8 * ram - others - os_gib)
        assert left * GiB / osds < 2 * GiB and "fewer OSDs per device" in (e.suggestion or ""), e.message
        return
    osd_total = d.value * osds / GiB
    assert d.value % (256 * MiB) == 0 and d.value >= 2 * GiB
    assert osd_total + others <= 0.7 * ram + 1e-9  # cephadm's autotune rule
    assert osd_total + others + os_gib <= 0.8 * ram + 1e-9  # the hardware recommendations' 20 % headroom
    assert d.inputs["daemons_gib"] == daemons


def test_osd_memory_target_for_the_iops_tier() -> None:
    # 128 GiB, 4 NVMe OSDs, mon + mgr + crash on the node: (0.7 x 128 - 6.125) / 4 = 20.87 -> 20.75 GiB
    d = derive.osd_memory_target(128, 4, DAEMONS, 4, MEM)
    assert d.value == 83 * 256 * MiB and d.inputs["rule"] == "autotune"


def test_small_nodes_are_held_to_the_headroom_rule() -> None:
    # 24 GiB: 0.8 x 24 - 6.125 - 4 OS = 9.08 is stricter than 0.7 x 24 - 6.125 = 10.68
    d = derive.osd_memory_target(24, 2, DAEMONS, 4, MEM)
    assert d.inputs["rule"] == "headroom" and d.value == 18 * 256 * MiB


def test_too_little_ram_is_a_clear_error() -> None:
    with pytest.raises(DataError, match="per OSD"):
        derive.osd_memory_target(64, 12, {**DAEMONS, "mds": 12}, 4, MEM | {"osd_memory_target_floor_gib": 3})


@pytest.mark.parametrize(
    ("cores", "devices", "expected"),
    [(22, 4, 1), (48, 4, 2), (96, 10, 1), (128, 10, 2), (12, 1, 2), (11, 1, 1)],
)
def test_two_osds_per_nvme_only_with_cores_to_spare(cores: int, devices: int, expected: int) -> None:
    d = derive.osds_per_device("nvme", cores, devices, PER_DEVICE)
    assert d.value == expected
    assert d.value == 1 or cores / devices >= 2 * PER_DEVICE["cores_per_nvme_osd"]


@pytest.mark.parametrize("kind", ["hdd", "sata-ssd"])
def test_one_osd_per_sata_device(kind: str) -> None:
    assert derive.osds_per_device(kind, 64, 12, PER_DEVICE).value == 1
    with pytest.raises(UsageError, match="not possible"):
        derive.osds_per_device(kind, 64, 12, PER_DEVICE, requested=2)


def test_osds_per_device_input_is_checked_and_used() -> None:
    assert derive.osds_per_device("nvme", 8, 4, PER_DEVICE, requested=3).value == 3
    for bad in (0, 5):
        with pytest.raises(UsageError, match=r"1\.\.4"):
            derive.osds_per_device("nvme", 8, 4, PER_DEVICE, requested=bad)


@given(ram=st.floats(1, 4096))
def test_innodb_buffer_pool_is_whole_chunks_within_three_quarters_of_ram(ram: float) -> None:
    v = derive.innodb_buffer_pool_size(ram).value
    assert v % (128 * MiB) == 0
    assert v <= max(0.75 * ram * GiB, 128 * MiB)


@given(ram=st.floats(2, 4096), flavour=st.sampled_from(["mysql-5.7", "mysql-8.0"]))
def test_mysql_5_7_and_8_0_pools_are_whole_gib_so_their_8_instances_keep_the_size(
    ram: float, flavour: str
) -> None:
    # the server rounds a pool of 1 GiB or more up to 128 MiB chunks x 8 instances; a whole-GiB pool stays as set
    v = derive.innodb_buffer_pool_size(ram, flavour).value
    assert v % GiB == 0 and v <= max(0.75 * ram * GiB, 128 * MiB)


def test_small_database_hosts_give_half_their_ram_to_the_pool_as_innodb_dedicated_server_does() -> None:
    assert derive.innodb_buffer_pool_size(4).value == 2 * GiB
    assert derive.innodb_buffer_pool_size(8).value == 6 * GiB
    assert derive.innodb_buffer_pool_size(10, "mysql-8.0").value == 7 * GiB  # 7.5 GiB would become 8


@given(ram=st.floats(1, 4096), per=st.integers(256 << 10, 8 << 20))
def test_max_connections_fit_beside_the_pool_and_the_reserve(ram: float, per: int) -> None:
    pool = int(derive.innodb_buffer_pool_size(ram).value)
    d = derive_host.max_connections(ram, pool, per)
    if d.value == "":
        assert "151" in d.reason
        return
    assert 151 < int(d.value) <= 2000
    assert pool + int(d.value) * per + derive_host.db_reserve(ram) <= ram * GiB
    assert str(d.value) in d.reason


def test_max_connections_follow_the_flavours_per_connection_buffers() -> None:
    from flashtune.catalog import load_catalog

    cat = load_catalog()
    per = {
        f: derive_host.connection_bytes(cat, f)
        for f in ("mariadb-10.11", "mysql-5.7", "mysql-8.0", "mysql-8.4")
    }
    # MariaDB's 2 MiB sort buffer and MySQL 8's 1 MiB thread stack against 5.7's 256 KiB of each
    assert per["mariadb-10.11"] > per["mysql-8.0"] == per["mysql-8.4"] > per["mysql-5.7"]
    pool = 12 * GiB
    conns = {f: derive_host.max_connections(16, pool, b).value for f, b in per.items()}
    assert conns["mariadb-10.11"] < conns["mysql-8.0"] < conns["mysql-5.7"] <= 2000


@given(pool=st.integers(128 * MiB, 1024 * GiB))
def test_innodb_log_file_is_bounded_and_aligned(pool: int) -> None:
    v = derive_host.innodb_log_file_size(pool, 1).value
    assert 64 * MiB <= v <= 4 * GiB and v % MiB == 0
    assert v <= max(pool // 4, 64 * MiB)


@given(gbps=st.floats(1, 800))
def test_socket_buffers_cover_four_bdp_and_never_go_below_32mib(gbps: float) -> None:
    v = derive.socket_buffer_max(gbps).value
    assert is_pow2(v) and v >= 32 * MiB
    assert v >= 4 * gbps * 1e9 / 8 / 1000


def test_tcp_buffer_triples_end_at_the_socket_maximum() -> None:
    mx = derive.socket_buffer_max(100).value
    assert mx == 64 * MiB  # 4 x 12.5 MB = 50 MB -> next power of two
    assert derive.tcp_buffers(100, 87380).value == [4096, 87380, mx]


@given(gbps=st.floats(1, 400))
def test_netdev_backlog_scales_with_nic_speed(gbps: float) -> None:
    assert derive.netdev_max_backlog(gbps).value >= derive.netdev_max_backlog(gbps / 2).value >= 1000


@given(nodes=st.integers(7, 100), release=st.sampled_from(["pacific", "reef", "squid", "tentacle"]))
def test_auto_ec_leaves_a_spare_host_and_follows_the_release(nodes: int, release: str) -> None:
    p = derive.ec_profile(nodes, release, EC).value
    assert p.k + p.m + 1 <= nodes
    assert [p.k, p.m] in EC["layouts"] and p.failure_domain == "host"
    assert p.technique == "reed_sol_van"  # jerasure's other techniques are deprecated upstream
    assert p.plugin == ("isa" if release == "tentacle" else "jerasure")
    assert f"plugin={p.plugin} technique=reed_sol_van" in p.as_profile()


def test_ec_prefers_8_2_and_falls_back_to_4_2() -> None:
    assert (derive.ec_profile(11, "reef", EC).value.k, derive.ec_profile(11, "reef", EC).value.m) == (8, 2)
    assert (derive.ec_profile(10, "reef", EC).value.k, derive.ec_profile(10, "reef", EC).value.m) == (4, 2)
    assert (derive.ec_profile(7, "reef", EC).value.k, derive.ec_profile(7, "reef", EC).value.m) == (4, 2)


def test_requested_ec_without_a_spare_host_says_so() -> None:
    d = derive.ec_profile(10, "reef", EC, requested=(8, 2))
    assert (d.value.k, d.value.m) == (8, 2) and "no spare host" in d.reason


@pytest.mark.parametrize(("nodes", "requested"), [(6, None), (5, None), (12, (10, 4))])
def test_ec_profile_that_cannot_fit_is_an_error(nodes: int, requested: tuple[int, int] | None) -> None:
    with pytest.raises(DataError, match="needs at least"):
        derive.ec_profile(nodes, "reef", EC, requested=requested)


def test_ec_stripe_unit_is_16k_with_the_ec_optimisations_and_the_4k_default_without() -> None:
    assert derive.ec_stripe_unit(True).value == 16 * KiB
    assert derive.ec_stripe_unit(False).value == 4 * KiB  # the default: dropped as a no-op line
    assert derive.ec_profile(11, "tentacle", EC).value.stripe_unit == 0  # 0: not in the profile
    assert derive.ec_profile(11, "tentacle", EC, optimized=True).value.stripe_unit == 16 * KiB


@pytest.mark.parametrize(
    ("dev", "sched"), [("nvme", "none"), ("sata-ssd", "mq-deadline"), ("hdd", "mq-deadline")]
)
def test_scheduler_per_device_type(dev: str, sched: str) -> None:
    assert derive.io_scheduler(dev).value == sched


def test_read_ahead_is_large_for_streaming_and_small_for_random_flash() -> None:
    assert derive.read_ahead_kb("hdd", "block").value == 2048
    assert derive.read_ahead_kb("nvme", "scratch").value > derive.read_ahead_kb("nvme", "mysql").value == 128


def test_every_registered_derivation_gives_a_reason() -> None:
    ctx = {
        "ram_gib": 128,
        "cores": 22,
        "node_cores": 44,
        "nic_gbps": 40,
        "osds_per_node": 4,
        "osds": 20,
        "db_ram_gib": 32,
        "db_vcpus": 16,
        "db_connection_bytes": 3 << 20,
        "pool_size": 3,
        "pool_min_size": 2,
        "pool_reason": "3 replicas",
        "protection": "replication",
        "ec": derive.ec_profile(11, "tentacle", EC),
        "device_type": "nvme",
        "workload": "block",
        "memory": derive.osd_memory_target(128, 4, DAEMONS, 4, MEM),
        "osd_memory_target": derive.osd_memory_target(128, 4, DAEMONS, 4, MEM).value,
        "message_rules": MEM["messages"],
        "pg_num_derived": derive.pg_num(20, 3, 0.9, **PG),
    }
    for name, fn in pipeline.REGISTRY.items():
        d = fn(ctx)
        assert d.reason, name
        assert d.value is not None and not (isinstance(d.value, float) and math.isnan(d.value)), name

"""The compiler's derivations: each a small pure function with properties that must hold for any input."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flashtune.compile import derive
from flashtune.errors import DataError

GiB, MiB, KiB = 1 << 30, 1 << 20, 1 << 10


def is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


@given(osds=st.integers(1, 5000), size=st.integers(2, 14), share=st.floats(0.01, 1.0))
def test_pg_num_is_a_power_of_two_within_the_mon_limit(osds: int, size: int, share: float) -> None:
    n = derive.pg_num(osds, size, share).value
    assert is_pow2(n)
    assert n == 1 or n * size / osds <= derive.MON_MAX_PG_PER_OSD


def test_pg_num_matches_the_ceph_docs_example() -> None:
    # placement-groups.rst: 200 OSDs, size 3 -> 6667 -> 8192 (nearest power of two)
    assert derive.pg_num(200, 3, 1.0).value == 8192


def test_pg_num_halves_when_the_mon_would_refuse_the_pool() -> None:
    # 200 PGs/OSD target x 16 OSDs / size 2 = 1600 -> 2048, but 2048 x 2 / 16 = 256 > 250
    d = derive.pg_num(16, 2, 1.0, target_per_osd=200)
    assert d.value == 1024 and "halved" in d.reason


@given(osds=st.integers(1, 2000), more=st.integers(1, 2000))
def test_pg_num_never_shrinks_when_osds_are_added(osds: int, more: int) -> None:
    assert derive.pg_num(osds + more, 3, 0.5).value >= derive.pg_num(osds, 3, 0.5).value


@given(ram=st.floats(16, 2048), osds=st.integers(1, 64))
def test_osd_memory_target_fits_ram_after_the_reserve(ram: float, osds: int) -> None:
    reserve = max(8.0, ram / 8)
    try:
        d = derive.osd_memory_target(ram, osds)
    except DataError as e:
        assert (ram - reserve) * GiB / osds < 2 * GiB, e.message
        return
    assert d.value % (256 * MiB) == 0
    assert d.value >= 2 * GiB >= derive.OSD_MEMORY_MIN
    assert d.value * osds + reserve * GiB <= ram * GiB


def test_osd_memory_target_for_the_iops_tier() -> None:
    # 128 GiB, 16 OSDs (4 NVMe x 4): reserve 16 GiB -> 7 GiB each
    assert derive.osd_memory_target(128, 16).value == 7 * GiB


def test_too_little_ram_is_a_clear_error() -> None:
    with pytest.raises(DataError, match="per OSD"):
        derive.osd_memory_target(16, 12)


@pytest.mark.parametrize(("cores", "devices", "expected"), [(22, 4, 4), (8, 4, 2), (2, 4, 1), (64, 1, 4)])
def test_osds_per_nvme_device_keeps_a_core_per_osd(cores: int, devices: int, expected: int) -> None:
    d = derive.osds_per_device("nvme", cores, devices)
    assert d.value == expected
    assert d.value * devices <= max(cores, devices)


@pytest.mark.parametrize("kind", ["hdd", "sata-ssd"])
def test_one_osd_per_sata_device(kind: str) -> None:
    assert derive.osds_per_device(kind, 64, 12).value == 1


@given(ram=st.floats(1, 4096))
def test_innodb_buffer_pool_is_whole_chunks_within_three_quarters_of_ram(ram: float) -> None:
    v = derive.innodb_buffer_pool_size(ram).value
    assert v % (128 * MiB) == 0
    assert v <= max(0.75 * ram * GiB, 128 * MiB)


@given(pool=st.integers(128 * MiB, 1024 * GiB))
def test_innodb_log_file_is_bounded_and_aligned(pool: int) -> None:
    v = derive.innodb_log_file_size(pool).value
    assert 64 * MiB <= v <= 4 * GiB and v % (64 * MiB) == 0
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


@given(cores=st.integers(1, 512))
def test_rgw_threads_are_bounded_powers_of_two(cores: int) -> None:
    v = derive.rgw_thread_pool_size(cores).value
    assert is_pow2(v) and 256 <= v <= 1024


@given(nodes=st.integers(6, 100))
def test_ec_profile_fits_the_hosts_and_uses_cauchy_good(nodes: int) -> None:
    p = derive.ec_profile(nodes).value
    assert p.k + p.m <= nodes
    assert (p.k, p.m) in derive.EC_LAYOUTS
    assert p.technique == "cauchy_good" and p.failure_domain == "host"
    assert "technique=cauchy_good" in p.as_profile()


def test_ec_profile_prefers_8_2_and_falls_back_to_4_2() -> None:
    assert (derive.ec_profile(10).value.k, derive.ec_profile(10).value.m) == (8, 2)
    assert (derive.ec_profile(7).value.k, derive.ec_profile(7).value.m) == (4, 2)


@pytest.mark.parametrize(("nodes", "requested"), [(5, None), (12, (10, 4))])
def test_ec_profile_that_cannot_fit_is_an_error(nodes: int, requested: tuple[int, int] | None) -> None:
    with pytest.raises(DataError, match="needs at least"):
        derive.ec_profile(nodes, requested=requested)


@given(k=st.integers(1, 32))
def test_ec_stripe_unit_keeps_a_64k_stripe_in_4k_units(k: int) -> None:
    u = derive.ec_stripe_unit(k).value
    assert u % (4 * KiB) == 0 and u >= 4 * KiB
    assert u * k <= 64 * KiB or u == 4 * KiB


@pytest.mark.parametrize(("dev", "sched"), [("nvme", "none"), ("sata-ssd", "mq-deadline"), ("hdd", "mq-deadline")])
def test_scheduler_per_device_type(dev: str, sched: str) -> None:
    assert derive.io_scheduler(dev).value == sched


def test_read_ahead_is_large_for_streaming_and_small_for_random_flash() -> None:
    assert derive.read_ahead_kb("hdd", "block").value == 2048
    assert derive.read_ahead_kb("nvme", "scratch").value > derive.read_ahead_kb("nvme", "mysql").value == 128


def test_every_registered_derivation_gives_a_reason() -> None:
    ctx = {"ram_gib": 128, "cores": 22, "nic_gbps": 40, "osds_per_node": 16, "osds": 80, "db_ram_gib": 32,
           "pool_size": 3, "pool_min_size": 2, "pool_reason": "3 replicas", "protection": "replication",
           "ec": derive.ec_profile(10), "device_type": "nvme", "workload": "block"}  # fmt: skip
    for name, fn in derive.REGISTRY.items():
        d = fn(ctx)
        assert d.reason, name
        assert d.value is not None and not (isinstance(d.value, float) and math.isnan(d.value)), name

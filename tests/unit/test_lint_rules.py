"""Individual lint rules on small hand-written configs (each would fail if its rule broke)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashtune.lint import detect_kind, lint_text
from flashtune.lint.values import ceph_value, mysql_value


def codes(text: str, kind: str, **kw: object) -> list[tuple[str, str, str]]:
    return [(f.key, f.code, f.severity) for f in lint_text(text, kind, **kw)]  # type: ignore[arg-type]


def test_ceph_full_ratios_must_be_ordered() -> None:
    ok = "[global]\nmon_osd_nearfull_ratio = 0.8\nmon_osd_full_ratio = 0.96\n"
    assert codes(ok, "ceph.conf") == []
    bad = codes("[global]\nmon_osd_full_ratio = 0.8\n", "ceph.conf")  # below backfillfull's default 0.90
    assert ("mon_osd_full_ratio", "FT601", "error") in bad
    assert ("mon_osd_full_ratio", "FT601", "error") in codes("[mon]\nmon_osd_full_ratio = 7.5\n", "ceph.conf")


def test_ceph_min_size_and_size_one() -> None:
    assert ("osd_pool_default_min_size", "FT602", "error") in codes(
        "[global]\nosd_pool_default_size = 2\nosd_pool_default_min_size = 3\n", "ceph.conf"
    )
    assert codes("[global]\nosd_pool_default_size = 4\nosd_pool_default_min_size = 3\n", "ceph.conf") == []
    # 2 of 3 is what Ceph derives on its own (size - size/2): a line that does nothing (catalog dead_when)
    assert codes("[global]\nosd_pool_default_size = 3\nosd_pool_default_min_size = 2\n", "ceph.conf") == [
        ("osd_pool_default_min_size", "FT401", "warning")
    ]
    one = codes("[global]\nosd_pool_default_size = 1\n", "ceph.conf")
    assert ("osd_pool_default_size", "FT602", "warning") in one
    allowed = codes("[global]\nosd_pool_default_size = 1\nmon_allow_pool_size_one = true\n", "ceph.conf")
    assert [c for c in allowed if c[1] == "FT602"] == []


def test_ec_width_needs_failure_domain_count() -> None:
    text = "[global]\nosd_pool_default_erasure_code_profile = k=8 m=2 crush-failure-domain=host\n"
    assert [c for c in codes(text, "ceph.conf") if c[1] == "FT603"] == []  # unknown host count: no guess
    assert ("osd_pool_default_erasure_code_profile", "FT603", "error") in codes(
        text, "ceph.conf", context={"failure_domains": 6}
    )
    assert [c for c in codes(text, "ceph.conf", context={"failure_domains": 12}) if c[1] == "FT603"] == []


def test_ceph_key_spelling_sections_and_duplicates() -> None:
    got = codes("[osd]\nosd-max-backfills = 2\nOSD_MAX_SCRUBS = 1\n", "ceph.conf")
    assert [c[1] for c in got] == ["FT105", "FT105"]
    assert codes("[osd0]\nosd_max_backfills = 2\n", "ceph.conf") == [("osd0", "FT107", "warning")]
    dup = codes(
        "[osd]\nosd max backfills = 2\n[global]\nfsid = 35b08d01-b688-4b9a-947b-bc2e25719370\n"
        "[osd]\nosd_max_backfills = 3\n",
        "ceph.conf",
    )
    assert dup == [("osd_max_backfills", "FT301", "warning")]
    assert codes("[mon.a]\nmon addr = 192.168.0.1:6789\nhost = a\n", "ceph.conf") == []


def test_ceph_values_typed_against_the_catalog() -> None:
    bad = dict(
        (
            (k, c)
            for k, c, _ in codes(
                "[osd]\nosd_memory_target = 12banana\nosd_max_backfills = 99999999999999999999\nms_crc_data = maybe\n"
                "osd_op_num_threads_per_shard = -5\n",
                "ceph.conf",
            )
        )
    )
    assert bad == {
        "osd_memory_target": "FT201",
        "osd_max_backfills": "FT201",
        "ms_crc_data": "FT201",
        "osd_op_num_threads_per_shard": "FT202",
    }
    assert codes("[osd]\nosd_memory_target = 4G\nosd_max_backfills = 2\n", "ceph.conf") == []
    # metavariables are left to Ceph
    assert codes("[global]\nlog_file = /var/log/ceph/$cluster-$name.log\n", "ceph.conf") == []


def test_ceph_unknown_key_suggests_and_release_matters() -> None:
    f = lint_text("[osd]\nosd_heartbeat_grase = 20\n", "ceph.conf")
    assert f[0].code == "FT101" and "osd_heartbeat_grace" in f[0].suggestion
    assert codes("[osd]\nosd_heartbeat_grace = 20\n", "ceph.conf") == []  # known via the option-name list
    assert codes("[client]\nrgw_num_rados_handles = 8\n", "ceph.conf", ceph_release="pacific") == []
    assert [c[1] for c in codes("[client]\nrgw_num_rados_handles = 8\n", "ceph.conf")] == ["FT102"]


def test_filestore_knobs_depend_on_objectstore_and_release() -> None:
    text = "[osd]\nosd_objectstore = filestore\nfilestore_max_sync_interval = 10\n"
    assert codes(text, "ceph.conf", ceph_release="pacific") == []
    assert ("filestore_max_sync_interval", "FT401", "warning") in codes(
        text, "ceph.conf", ceph_release="reef"
    )
    assert ("filestore_max_sync_interval", "FT401", "warning") in codes(
        "[osd]\nfilestore_max_sync_interval = 10\n", "ceph.conf", ceph_release="pacific"
    )


def test_mycnf_rules() -> None:
    assert codes("[mysqld]\nskip-external-locking\nloose-innodb_checksums = 0\n", "my.cnf") == [
        ("innodb_checksums", "FT102", "warning")
    ]
    assert codes("[mysqld]\ninnodb_bufer_pool_size = 1G\n", "my.cnf")[0][1:] == ("FT101", "error")
    assert codes("[client]\nwhatever-client-option = 1\n", "my.cnf") == []  # client groups are not checked
    ram = {"ram_bytes": 24 << 30}
    assert ("innodb_buffer_pool_size", "FT604", "error") in codes(
        "[mysqld]\ninnodb_buffer_pool_size = 25G\n", "my.cnf", context=ram
    )
    assert ("innodb_buffer_pool_size", "FT604", "warning") in codes(
        "[mysqld]\ninnodb_buffer_pool_size = 22G\n", "my.cnf", context=ram
    )
    assert codes("[mysqld]\ninnodb_buffer_pool_size = 16G\n", "my.cnf", context=ram) == []


def test_sysctl_rules() -> None:
    assert codes("net.ipv4.tcp_tw_recycle = 1\n", "sysctl.conf") == [
        ("net.ipv4.tcp_tw_recycle", "FT102", "error")
    ]
    assert codes("-net.ipv4.tcp_tw_recycle = 1\n", "sysctl.conf") == [
        ("net.ipv4.tcp_tw_recycle", "FT102", "warning")
    ]
    assert codes("net.ipv4.ip_local_port_range = 32768 60999\n", "sysctl.conf") == []
    assert (
        codes(
            "net.ipv4.ip_local_port_range = 1024 65000\nnet.ipv4.ip_local_reserved_ports = 6800-7300\n",
            "sysctl.conf",
        )
        == []
    )
    assert codes("vm.swappiness 10\n", "sysctl.conf") == [("", "FT001", "error")]


CBT_OK = """cluster:
  user: u
  head: h
  clients: [c1]
  osds: [o1, o2]
  iterations: 3
  is_teuthology: true
  pool_profiles:
    rep: {pg_size: 128, pgp_size: 128, replication: 3}
benchmarks:
  librbdfio:
    time: 60
    time_based: true
    ramp: 10
    vol_size: 8192
    mode: [randwrite]
    iodepth: [16, 32]
    pool_profile: rep
"""


def test_cbt_clean_plan_and_iterations_trap() -> None:
    assert codes(CBT_OK, "cbt.yaml") == []
    no_iter = CBT_OK.replace("  iterations: 3\n", "")
    assert ("iterations", "FT701", "error") in codes(no_iter, "cbt.yaml")
    top = CBT_OK.replace("  iterations: 3\n", "") + "iterations: 3\n"  # loads, but CBT drops it
    got = codes(top, "cbt.yaml")
    assert ("iterations", "FT703", "error") in got and ("iterations", "FT701", "error") in got


def test_cbt_keys_modules_types_and_references() -> None:
    got = codes(
        CBT_OK.replace("mode: [randwrite]", "mode: [randwirte]")
        .replace("time: 60", "tiem: 60")
        .replace("pool_profile: rep", "pool_profile: 2rep")
        .replace("librbdfio:", "librbdfio:\n    iodepth: 1")
        .replace("vol_size: 8192", "vol_size: lots"),
        "cbt.yaml",
    )
    assert {(k, c) for k, c, _ in got} >= {
        ("mode", "FT203"),
        ("tiem", "FT702"),
        ("pool_profile", "FT704"),
        ("iodepth", "FT301"),
        ("vol_size", "FT201"),
    }
    assert ("radosbenchh", "FT702", "error") in codes(CBT_OK + "  radosbenchh: {}\n", "cbt.yaml")
    assert ("bogus", "FT702", "error") in codes("bogus: 1\n" + CBT_OK, "cbt.yaml")


def test_detect_kind() -> None:
    assert detect_kind("/etc/ceph/ceph.conf", "") == "ceph.conf"
    assert detect_kind("/etc/sysctl.d/90-x.conf", "") == "sysctl.conf"
    assert detect_kind("my.cnf", "") == "my.cnf"
    assert detect_kind("plan.yml", "") == "cbt.yaml"
    assert detect_kind("x.conf", "[osd]\nfoo = 1\n") == "ceph.conf"
    assert detect_kind("x.conf", "[mysqld]\nfoo = 1\n") == "my.cnf"
    assert detect_kind("x.conf", "vm.swappiness = 1\n") == "sysctl.conf"


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["ceph.conf", "my.cnf", "sysctl.conf", "cbt.yaml"]), st.binary(max_size=300))
def test_fuzz_lint_never_raises(kind: str, data: bytes) -> None:
    for f in lint_text(data.decode("utf-8", "replace"), kind):
        assert f.line >= 1 and f.column >= 1 and f.severity in ("error", "warning", "info")


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["global", "osd", "mon", "client"]),
            st.sampled_from(
                [
                    "osd_max_backfills",
                    "mon_osd_full_ratio",
                    "osd_pool_default_size",
                    "osd_pool_default_min_size",
                    "ms_type",
                    "osd_memory_target",
                    "filestore_max_sync_interval",
                    "auth_cluster_required",
                ]
            ),
            st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=8).filter(
                lambda v: not any(c in v for c in "#;\\\"'")
            ),
        ),
        max_size=8,
    )
)
def test_fuzz_known_keys_any_values(items: list[tuple[str, str, str]]) -> None:
    text = "".join(f"[{s}]\n{k} = {v}\n" for s, k, v in items)
    for f in lint_text(text, "ceph.conf"):
        assert f.code.startswith("FT") and f.message


CBT_POOLS = """cluster:
  osds: [a, b, c]
  osds_per_node: 2
  iterations: 3
  is_teuthology: true
  erasure_profiles:
    ec84: {erasure_k: 8, erasure_m: 4}
    ec21: {erasure_k: 2, erasure_m: 1}
  pool_profiles:
    big: {pg_size: 1024, replication: 3}
    fits: {pg_size: 256, replication: 3}
    wide: {pg_size: 16, replication: erasure, erasure_profile: ec84}
    unused: {pg_size: 4096, replication: 3}
client_endpoints:
  fs: {driver: cephfs-kernal}
monitoring_profiles:
  collectl: {}
  perff: {}
benchmarks:
  fio:
    client_endpoints: nope
    time_based: true
  radosbench:
    pool_profile: [big, fits, wide]
"""


def test_cbt_pools_ec_endpoints_and_monitoring() -> None:
    got = {(k, c) for k, c, _ in codes(CBT_POOLS, "cbt.yaml")}
    # 6 OSDs: EC 8+4 can never be placed (CBT fixes the failure domain to osd); 1024 PGs x 3 / 6 = 512 > 250;
    # `unused` and ec21 are never made into pools (no benchmark names them), so they fail nothing
    assert got == {
        ("ec84", "FT603"),
        ("pg_size", "FT606"),
        ("driver", "FT203"),
        ("perff", "FT702"),
        ("client_endpoints", "FT704"),
    }


def test_mysql_suffixes_follow_the_server_in_either_case() -> None:
    assert mysql_value("size", "2GB") == 2 << 30
    assert mysql_value("size", "2g") == 2 << 30
    assert mysql_value("int", "-3k") == -3 << 10
    with pytest.raises(ValueError):
        mysql_value("size", "1 G")
    with pytest.raises(ValueError):
        mysql_value("size", "0x10")


@pytest.mark.parametrize(
    ("type_", "text", "value"),
    [
        ("int", "5K", 5000),
        ("int", "-3", -3),
        ("size", "1Ki", 1024),
        ("size", "1KB", 1024),
        ("size", "+2M", 2 << 20),
        ("secs", "30 min", 30),
        ("millisecs", "5ms", 5),
    ],
)
def test_ceph_values_are_read_as_ceph_reads_them(type_: str, text: str, value: int) -> None:
    assert ceph_value(type_, text) == value


@pytest.mark.parametrize(
    ("type_", "text"),
    [("int", "5k"), ("int", "5KB"), ("size", "1Bi"), ("size", "1KiB"), ("size", "1 K"), ("size", "-1K")],
)
def test_ceph_refuses_what_ceph_refuses(type_: str, text: str) -> None:
    with pytest.raises(ValueError):
        ceph_value(type_, text)

"""Constructs from the second round of public configs (tests/fixtures/lint-corpus/, ids cbt-22.., ceph-33..,
mycnf-36.., sysctl-23..) that misled lint-config, each pinned by a small case.

CBT makes a pool only from a profile something names (ceph/cbt cluster/ceph.py `mkpool`, called by the benchmark
modules, the client endpoints and `make_rgw_pools`), and an undefined name gets an empty profile: 1024 PGs at the
cluster's default size. So a PG or size check belongs to the pools CBT makes, not to every profile written down."""

from __future__ import annotations

import pytest

from flashtune.lint import lint_text


def found(text: str, kind: str = "cbt.yaml") -> list[tuple[int, str, str]]:
    return [(f.line, f.code, f.key) for f in lint_text(text, kind)]


HEAD = "cluster:\n  iterations: 1\n  osds: [a, b, c]\n  osds_per_node: 1\n"


def test_a_profile_no_benchmark_names_makes_no_pool() -> None:
    """fio2.yaml / runtests.cache.yaml: the profiles written down are not the ones the benchmarks use."""
    plan = HEAD + (
        "  pool_profiles:\n"
        "    huge: {pg_size: 8192, replication: 2}\n"
        "    single: {pg_size: 8, replication: 1}\n"
        "  erasure_profiles:\n"
        "    wide: {erasure_k: 8, erasure_m: 4}\n"
        "benchmarks:\n"
        "  nullbench: {}\n"
    )
    assert found(plan) == []


def test_an_undefined_profile_is_cbts_default_of_1024_pgs() -> None:
    named = (
        HEAD
        + "  pool_profiles:\n    rbd2rep: {pg_size: 64}\nbenchmarks:\n  rbdfio:\n    pool_profile: 'rbd'\n"
    )
    got = found(named)
    assert (9, "FT704", "pool_profile") in got and (9, "FT606", "pg_size") in got
    [f] = [f for f in lint_text(named, "cbt.yaml") if f.code == "FT606"]
    assert "not defined" in f.message and "1024 PGs x 3 copies over 3 OSDs" in f.message
    assert f.suggestion.startswith("define rbd under cluster.pool_profiles")
    # no pool_profile at all: the module's own default name, 'default', which the plan does not define either
    unnamed = HEAD + "benchmarks:\n  radosbench:\n    time: 10\n"
    assert [(c, k) for _, c, k in found(unnamed)] == [("FT606", "pg_size")]
    # defining a small `default` profile is the fix
    fixed = HEAD + "  pool_profiles:\n    default: {pg_size: 128}\nbenchmarks:\n  radosbench:\n    time: 10\n"
    assert found(fixed) == []


def test_existing_volumes_make_no_pool() -> None:
    """runtests.bluestore_example.yaml: librbdfio with use_existing_volumes never calls mkpool."""
    plan = HEAD + (
        "  pool_profiles:\n    rbd: {pg_size: 4096}\n"
        "benchmarks:\n  librbdfio:\n    pool_profile: rbd\n    use_existing_volumes: true\n"
    )
    assert found(plan) == []
    assert ("FT606", "pg_size") in {(c, k) for _, c, k in found(plan.replace("true", "false"))}


def test_cache_profile_and_ec_profile_count_when_their_pool_is_made() -> None:
    plan = HEAD + (
        "  erasure_profiles:\n    ec42: {erasure_k: 4, erasure_m: 2}\n"
        "  pool_profiles:\n"
        "    base: {pg_size: 32, replication: 3, cache_profile: cache}\n"
        "    cache: {pg_size: 32, replication: 1}\n"
        "    ec: {pg_size: 16, replication: erasure, erasure_profile: ec42}\n"
        "benchmarks:\n  radosbench:\n    pool_profile: [base, ec]\n"
    )
    got = {(c, k) for _, c, k in found(plan)}
    assert got == {("FT602", "replication"), ("FT603", "ec42")}
    assert (
        found(
            plan.replace("[base, ec]", "fits").replace("    cache: {", "    fits: {pg_size: 8}\n    cache: {")
        )
        == []
    )


@pytest.mark.parametrize(("use_existing", "want"), [("False", {("FT606", "pg_size")}), ("True", set())])
def test_rgw_pools_are_made_when_cbt_builds_the_cluster(
    use_existing: str, want: set[tuple[str, str]]
) -> None:
    """test5.yaml: rgws with use_existing False: make_rgw_pools makes .rgw.root and the other roles, each from
    rgw_pools' profile or 'default'."""
    plan = (
        HEAD
        + f"  use_existing: {use_existing}\n  rgws: [a]\n"
        + (
            "  pool_profiles:\n    rgw: {pg_size: 32}\n"
            "  rgw_pools: {control: rgw, meta: rgw, log: rgw, buckets: rgw, buckets_data: rgw, buckets_index: rgw}\n"
            "benchmarks:\n  nullbench: {}\n"
        )
    )
    assert {(c, k) for _, c, k in found(plan)} == want
    # with every role named, nothing falls back to 'default'
    assert found(plan.replace("{control: rgw", "{root: rgw, control: rgw")) == []


def test_only_rados_client_endpoints_in_use_make_pools() -> None:
    plan = HEAD + (
        "client_endpoints:\n"
        "  s3ep: {driver: s3}\n"
        "  rbdep: {driver: librbd}\n"
        "benchmarks:\n  hsbench:\n    client_endpoints: s3ep\n"
    )
    assert found(plan) == []
    assert ("FT606", "pg_size") in {(c, k) for _, c, k in found(plan.replace("s3ep\n", "rbdep\n"))}


def test_keys_at_the_wrong_level_get_the_right_advice() -> None:
    """nvme-raw.yaml: `pdsh_ssh_args` under cluster (common.py reads settings.common) and `iterations` inside a
    benchmark (CBT sets each benchmark's `iteration` itself: suggesting that spelling would be wrong)."""
    plan = HEAD + '  pdsh_ssh_args: "-a -x -l%u %h"\nbenchmarks:\n  nullbench:\n    iterations: 3\n'
    tips = {f.key: f.suggestion for f in lint_text(plan, "cbt.yaml")}
    assert tips["pdsh_ssh_args"].startswith("move pdsh_ssh_args under a top-level 'common:'")
    assert "cluster.iterations" in tips["iterations"] and "iteration?" not in tips["iterations"]
    plan = "common:\n  pdsh_ssh_args: '-a'\n" + HEAD + "benchmarks:\n  nullbench: {}\n"
    assert found(plan) == []


def test_no_risk_reported_on_a_line_that_changes_nothing() -> None:
    """freeshellv2's ceph.conf: min_size 1 beside size 2 is what Ceph derives anyway (FT401); the risk is the
    size, reported on its own line. min_size 1 beside size 3 does change something and stays a risk."""
    two = "[global]\nosd pool default size = 2\nosd pool default min size = 1\n"
    assert {(ln, c) for ln, c, _ in found(two, "ceph.conf")} == {(2, "FT501"), (3, "FT401")}
    three = two.replace("size = 2", "size = 3")
    assert (3, "FT501") in {(ln, c) for ln, c, _ in found(three, "ceph.conf")}


SHOW = '{\n    "name": "osd.3",\n    "cluster": "ceph",\n    "filestore_max_sync_interval": "5.000000",\n    "osd_max_backfills": "1",\n    "rbd_cache_max_dirty_age": "2.500000",\n    "bdev_async_discard": "true"\n}\n'


def test_admin_socket_config_show_reports_only_what_differs_from_defaults() -> None:
    """hotsos's Octopus `ceph daemon osd.0 config show` (every option, no source): detected from content, placed
    in the daemon's section, and only values that are no release's default are linted (the real-daemon check
    against `config diff` is in test_lint_cephjson.py). 5.000000 is the float default 5, 2.500000 is not 1."""
    from flashtune.lint.detect import detect
    from flashtune.parse import parse_text

    assert detect("/tmp/ceph_daemon_osd.3_config_show", SHOW).kind == "ceph-config.json"
    doc = parse_text(SHOW, "ceph-config.json")
    assert {e.section for e in doc.entries} == {"osd.3"} and doc.entries[2].line == 4
    got = [(f.line, f.code, f.key) for f in lint_text(SHOW, "ceph-config.json", ceph_release="pacific")]
    assert got == [(6, "FT401", "rbd_cache_max_dirty_age")]
    # a `config show-with-defaults` list: items whose source is "default" were set by nobody
    listed = '[{"name": "filestore_max_sync_interval", "value": "9", "source": "default"}]'
    assert lint_text(listed, "ceph-config.json", ceph_release="pacific") == []
    assert lint_text(listed.replace('"default"', '"mon"'), "ceph-config.json", ceph_release="pacific")


def test_a_risky_knob_left_at_its_default_is_no_risk() -> None:
    """`config show` prints enable_experimental_unrecoverable_data_corrupting_features = '' (nothing enabled)."""
    knob = "enable experimental unrecoverable data corrupting features"
    assert found(f"[global]\n{knob} =\n", "ceph.conf") == []
    assert (2, "FT501") in {(ln, c) for ln, c, _ in found(f"[global]\n{knob} = bluestore\n", "ceph.conf")}


def test_float_values_compare_as_numbers() -> None:
    from flashtune.catalog.values import canon_value

    assert canon_value("1.000000", "float") == canon_value(1.0, "float") == "1"
    assert canon_value("0.500000", "float") == canon_value(0.5, "float")
    assert canon_value("abc", "float") == "abc"


def test_mysql_value_below_the_servers_minimum() -> None:
    """bitrixdock's my.cnf: binlog_cache_size = 0 (data/mysql-option-minimums/ from mariadbd itself)."""
    got = found("[mysqld]\nbinlog_cache_size=0\nconnect_timeout = 1\nbinlog_cache_size=4K\n", "my.cnf")
    assert got == [
        (2, "FT202", "binlog_cache_size"),
        (3, "FT202", "connect_timeout"),
        (4, "FT301", "binlog_cache_size"),
    ]
    assert found("[mysqld]\nbinlog_cache_size=32768\n", "my.cnf") == []

"""lint-config on CBT plans as public ones are written (tests/fixtures/lint-corpus/): CBT makes a pool only from a
profile something names (ceph/cbt cluster/ceph.py `mkpool`, called by the benchmark modules, the client endpoints
and `make_rgw_pools`), and an undefined name gets an empty profile: 1024 PGs at the cluster's default size. So a PG
or size check belongs to the pools CBT makes, not to every profile written down. Also: repeated benchmark blocks,
keys at the wrong level, multi-document plans and the monitor guard a size-1 pool needs."""

from __future__ import annotations

import pytest

from flashtune.lint import Finding
from flashtune.lint import lint_text as lint_any

# What a CBT plan measures (FT706-FT710: time_based, iterations, run loop, cache sizing, workloads) has its own
# tests (test_compile_benchmark.py, data/lint/codes.yaml examples); these plans are about pools and keys.
DESIGN = {"FT706", "FT707", "FT708", "FT709", "FT710"}


def lint_text(text: str, kind: str, **kw: str) -> list[Finding]:
    return [f for f in lint_any(text, kind, **kw) if f.code not in DESIGN]  # type: ignore[arg-type]


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


CBT_TWO_BLOCKS = """cluster:
  user: u
  head: h
  clients: [c1]
  osds: [o1, o2, o3]
  iterations: 1
  pool_profiles:
    rbd: {pg_size: 64, pgp_size: 64, replication: 3}
benchmarks:
  librbdfio:
    time: 300
    mode: [read]
    pool_profile: rbd
  librbdfio:
    time: 300
    mode: [randread]
    pool_profile: rbd
"""


def test_cbt_repeated_benchmark_block_is_one_finding_not_one_per_key() -> None:
    """ceph/ceph-tools' tiering plan repeats `librbdfio:` three times: YAML keeps the last block only. That is one
    duplicate per repeated block, not a duplicate for every key inside it."""
    got = [(f.line, f.key, f.code) for f in lint_text(CBT_TWO_BLOCKS, "cbt.yaml")]
    assert got == [(14, "librbdfio", "FT301")]
    [f] = lint_text(CBT_TWO_BLOCKS, "cbt.yaml")
    assert "replaces the whole block on line 10" in f.message
    # a key repeated inside one block is still a duplicate
    inner = CBT_TWO_BLOCKS.replace("    mode: [randread]\n", "    mode: [randread]\n    time: 60\n")
    assert (17, "time", "FT301") in [(f.line, f.key, f.code) for f in lint_text(inner, "cbt.yaml")]


CBT_SIZE_ONE = """cluster:
  user: u
  head: h
  clients: [c1]
  osds: [o1]
  osds_per_node: 1
  iterations: 1
  pool_profiles:
    one: {pg_size: 8, pgp_size: 8, replication: 1}
benchmarks:
  radosbench:
    pool_profile: one
"""


def test_cbt_replication_one_needs_the_monitor_guard() -> None:
    """ceph/cbt's own examples use `replication: 1`; CBT sets the size with --yes-i-really-mean-it and nothing
    else (cluster/ceph.py), which monitors from Octopus on refuse unless mon_allow_pool_size_one is true."""
    got = [(f.line, f.key, f.code, f.severity) for f in lint_text(CBT_SIZE_ONE, "cbt.yaml")]
    assert got == [(9, "replication", "FT602", "warning")]
    assert lint_text(CBT_SIZE_ONE, "cbt.yaml", ceph_release="jewel") == []
    assert lint_text(CBT_SIZE_ONE.replace("replication: 1", "replication: 3"), "cbt.yaml") == []


def test_multi_document_cbt_plan() -> None:
    text = "cluster:\n  iterations: 1\nbenchmarks:\n  radosbench:\n    thread: 4\n---\ncluster: {}\n"
    codes = {f.code for f in lint_text(text, "cbt.yaml")}
    assert codes == {"FT705", "FT702"}  # not a YAML syntax error; the first plan is still checked

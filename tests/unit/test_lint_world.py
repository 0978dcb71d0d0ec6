"""Constructs found in public configs (tests/fixtures/lint-corpus/) that broke or misled lint-config, each pinned by
a small case: systemd sysctl.d globs and `-key` exclusions, quoted sysctl values, upstream Ceph renames outside the
catalog, and kind detection by folder. procps' own dry run is the judge of what sysctl does with quotes."""

from __future__ import annotations

import pytest

from flashtune.lint import detect_kind, lint_text
from flashtune.parse import parse_text, render_text
from support.value_forms import SYSTEMD_RP_FILTER


def codes(text: str, kind: str, **kw: object) -> list[tuple[int, str, str, str]]:
    return [(f.line, f.key, f.code, f.severity) for f in lint_text(text, kind, **kw)]  # type: ignore[arg-type]


def test_sysctl_d_exclusion_line_is_an_entry_not_a_syntax_error() -> None:
    """systemd's own 50-default.conf: `-key` alone keeps glob patterns off that key (sysctl.d(5))."""
    doc = parse_text(SYSTEMD_RP_FILTER, "sysctl.conf")
    assert not doc.problems
    excl = doc.entries[2]
    assert (excl.key, excl.value, excl.column) == ("net.ipv4.conf.all.rp_filter", None, 2)
    assert "glob-exclude" in excl.flags
    assert parse_text(render_text(doc), "sysctl.conf").model() == doc.model()
    assert codes(SYSTEMD_RP_FILTER, "sysctl.conf") == []
    # without the '-' it is still a line sysctl skips, and a '-' line with blanks inside is no key either
    assert codes("net.ipv4.conf.all.rp_filter\n", "sysctl.conf") == [(1, "", "FT001", "error")]
    assert codes("-net.ipv4 .conf\n", "sysctl.conf") == [(1, "", "FT001", "error")]


def test_sysctl_glob_keys_are_matched_against_the_name_lists() -> None:
    assert (
        codes(
            "net.ipv4.conf.*.accept_source_route = 0\nnet.ipv4.tcp_*mem = 4096 87380 6291456\n", "sysctl.conf"
        )
        == []
    )
    got = codes("net.ipv4.conf.*.rp_filtre = 2\n", "sysctl.conf")
    assert got == [(1, "net.ipv4.conf.*.rp_filtre", "FT101", "warning")]


def test_sysctl_quoted_value_is_reported_and_the_inside_checked() -> None:
    got = codes('kernel.core_pattern = "/dev/null"\n', "sysctl.conf")
    assert got == [(1, "kernel.core_pattern", "FT204", "warning")]
    [f] = lint_text('kernel.core_pattern = "/dev/null"\n', "sysctl.conf")
    assert f.column == 23 and "write kernel.core_pattern = /dev/null" in f.suggestion
    assert codes("kernel.core_pattern = /dev/null\n", "sysctl.conf") == []
    # the value inside the quotes is still checked: tcp_tw_recycle is gone whatever its quoting
    assert ("net.ipv4.tcp_tw_recycle", "FT102") in {
        (k, c) for _, k, c, _ in codes("net.ipv4.tcp_tw_recycle = '1'\n", "sysctl.conf")
    }


@pytest.mark.parametrize(
    ("release", "want"),
    [("quincy", []), ("reef", [(2, "mon_cluster_log_file_level", "FT103", "error")])],
)
def test_ceph_upstream_rename_outside_the_catalog(
    release: str, want: list[tuple[int, str, str, str]]
) -> None:
    text = "[mon]\nmon cluster log file level = info\n"
    assert codes(text, "ceph.conf", ceph_release=release) == want
    if want:
        [f] = lint_text(text, "ceph.conf", ceph_release=release)
        assert f.suggestion == "mon_cluster_log_level = info"


def test_kind_from_any_sysctl_d_folder() -> None:
    for path in ("/usr/lib/sysctl.d/50-default.conf", "/run/sysctl.d/x.conf", "repo/sysctl.d/10-net.conf"):
        assert detect_kind(path, "") == "sysctl.conf", path


def test_ceph_size_spellings_from_public_configs_are_reported() -> None:
    for bad in ("64k", "1GiB", "128MiB", "1 G"):
        assert codes(f"[osd]\nbluestore_cache_size = {bad}\n", "ceph.conf") == [
            (2, "bluestore_cache_size", "FT201", "error")
        ], bad
    for good in ("64K", "4Ki", "1GB", "3G"):
        assert codes(f"[osd]\nbluestore_cache_size = {good}\n", "ceph.conf") == [], good


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


def test_mycnf_command_line_dashes_in_a_file() -> None:
    """`--max_connections = 200` in an option file: mariadbd 10.11 refuses '--max_connections' as an unknown
    variable; the fix is the name without the dashes."""
    [f] = lint_text("[mysqld]\n--max_connections = 200\n", "my.cnf")
    assert (f.code, f.severity) == ("FT101", "error")
    assert f.suggestion == "did you mean max_connections (without the leading '--')?"


VERSIONED = """[mysqld]
max_connections = 500

[mysqld-5.7]
query_cache_type = 0

[mysqld-8.0]
binlog_expire_logs_seconds = 604800
replica_parallel_workers = 4

[mariadb-10.6]
innodb_buffer_pool_instances = 4
"""


@pytest.mark.parametrize("flavour", ["mysql-5.7", "mysql-8.0", "mariadb-10.11"])
def test_mycnf_version_groups_are_checked_only_by_their_version(flavour: str) -> None:
    """A file for several servers keeps each version's options in its own group; a server reads only its own, so
    5.7-only options in [mysqld-5.7] are no finding for 8.0, nor 8.0's for MariaDB, nor [mariadb-10.6] for 10.11."""
    assert codes(VERSIONED, "my.cnf", mysql_flavour=flavour) == []
    # the same options in [mysqld], which every server reads, are findings for the servers that lack them
    flat = VERSIONED.replace("[mysqld-5.7]", "").replace("[mysqld-8.0]", "").replace("[mariadb-10.6]", "")
    assert codes(flat, "my.cnf", mysql_flavour=flavour) != []


def test_sysctl_name_without_its_prefix_gets_the_full_name() -> None:
    [f] = lint_text("ip_local_port_range = 9000 65500\n", "sysctl.conf")
    assert (f.code, f.suggestion) == ("FT101", "did you mean net.ipv4.ip_local_port_range?")


def test_config_dump_masks_are_separate_settings() -> None:
    """`ceph config dump --format json` lists one option several times under one section with different masks
    (host:..., class:ssd); each is its own setting. The same name and mask twice is still a duplicate."""
    item = '{"section": "osd", "name": "osd_memory_target", "value": "%s", "mask": "%s"}'
    dump = (
        "[\n"
        + ",\n".join(item % (v, m) for v, m in [("4G", "host:a"), ("8G", "host:b"), ("6G", "class:ssd")])
        + "\n]\n"
    )
    assert codes(dump, "ceph-config.json") == []
    again = dump.replace("host:b", "host:a")
    assert codes(again, "ceph-config.json") == [(3, "osd_memory_target", "FT301", "warning")]


def test_debug_subsystems_after_pacific_are_a_note_not_an_error() -> None:
    """Ceph makes debug_<subsystem> options from src/common/subsys.h, and flashtune's lists for Quincy on carry
    Pacific's subsystems only: `debug rgw_notification` (a later subsystem) must not be called an error there.
    On Pacific, whose list is ceph-conf's own, it is one (ceph-conf 16.2.15: 'option not found')."""
    text = "[client.rgw.a]\ndebug rgw_notification = 20\ndebug rgw = 20\n"
    assert codes(text, "ceph.conf", ceph_release="tentacle") == [
        (2, "debug_rgw_notification", "FT101", "info")
    ]
    assert codes(text, "ceph.conf", ceph_release="pacific") == [
        (2, "debug_rgw_notification", "FT101", "error")
    ]


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

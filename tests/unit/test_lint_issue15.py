"""lint-config on the shapes of file people really have (issue 15): each test would fail if its behaviour broke."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from flashtune.lint import lint_file, lint_text
from flashtune.yamlio import load_yaml

REPO = Path(__file__).resolve().parents[2]


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flashtune.cli.lint", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )


def test_custom_cluster_ceph_conf_is_linted_as_ceph_conf(tmp_path: Path) -> None:
    p = tmp_path / "backup.conf"  # /etc/ceph/<cluster>.conf
    p.write_text("[global]\nmon_host = 10.0.0.1\n[client.rgw.gw1]\nrgw_frontends = civetweb port=80\n")
    found = lint_file(p)
    assert [f.code for f in found] == ["FT003", "FT104"]
    assert "ceph.conf" in found[0].message and "[client.rgw.gw1]" in found[0].message
    r = cli(p)
    assert r.returncode == 1 and "FT104" in r.stdout


def test_list_options_are_not_duplicates_and_flags_repeat() -> None:
    text = (
        "[mysqld]\nplugin-load-add = server_audit\nplugin_load_add = ha_rocksdb\n"
        "performance-schema-instrument = 'wait/%=ON'\nperformance_schema_instrument = 'stage/%=ON'\n"
        "server_audit_logging = ON\nrocksdb_block_size = 16384\n"
    )
    assert lint_text(text, "my.cnf") == []  # plugin options of loaded plugins are not unknown either
    dup = lint_text("[mysqld]\nmax_connections = 100\nmax_connections = 200\n", "my.cnf")
    assert [f.code for f in dup] == ["FT301"]


def test_mysql8_file_is_checked_as_mysql() -> None:
    text = "[mysqld]\ninnodb_dedicated_server = ON\ndefault_authentication_plugin = mysql_native_password\n"
    found = lint_text(text, "my.cnf")
    assert [f.code for f in found] == ["FT003"] and "mysql-8.0" in found[0].message
    as_mariadb = lint_text(text, "my.cnf", mysql_flavour="mariadb-10.11")
    assert any("refuses to start" in f.message for f in as_mariadb)


def test_sysctl_unknown_keys_and_kernel_ranges() -> None:
    found = {
        f.key: f
        for f in lint_text(
            "vm.swapiness = 10\nnet.ipv4.tcp_nodelay = 1\nkernel.sched_migration_cost_ns = 5000000\n"
            "net.ipv4.conf.eth7.rp_filter = 1\nvm.swappiness = 10\n",
            "sysctl.conf",
        )
    }
    assert found["vm.swapiness"].code == "FT101" and "vm.swappiness" in found["vm.swapiness"].suggestion
    assert (
        found["net.ipv4.tcp_nodelay"].code == "FT101"
        and "did you mean" not in found["net.ipv4.tcp_nodelay"].suggestion
    )
    assert found["kernel.sched_migration_cost_ns"].code in ("FT102", "FT108")
    assert "5.13" in found["kernel.sched_migration_cost_ns"].message
    assert "net.ipv4.conf.eth7.rp_filter" not in found and "vm.swappiness" not in found


def test_ceph_mgr_module_options_and_every_syntax_error() -> None:
    assert (
        lint_text("[mgr]\nmgr/dashboard/ssl = false\nmgr/prometheus/server_port = 9283\n", "ceph.conf") == []
    )
    broken = "[global]\nfsid 35b08d01\n[osd\nosd_max_backfills = 2\n  [mon]\nmon_host = x\n"
    errors = [f for f in lint_text(broken, "ceph.conf") if f.code == "FT001"]
    assert [f.line for f in errors] == [2, 3, 5]


def test_multi_document_cbt_plan() -> None:
    text = "cluster:\n  iterations: 1\nbenchmarks:\n  radosbench:\n    thread: 4\n---\ncluster: {}\n"
    codes = {f.code for f in lint_text(text, "cbt.yaml")}
    assert codes == {"FT705", "FT702"}  # not a YAML syntax error; the first plan is still checked


def test_no_far_fetched_suggestions_across_kinds() -> None:
    # a my.cnf key read as ceph.conf: nothing to offer from Ceph's names
    f = lint_text("[client]\ninnodb_buffer_pool_size = 1G\nquery_cache_limit = 1M\n", "ceph.conf")
    assert [x.code for x in f] == ["FT101", "FT101"] and not any("did you mean" in x.suggestion for x in f)
    near = lint_text("[osd]\nosd_max_backfill = 1\n", "ceph.conf")
    assert "osd_max_backfills" in near[0].suggestion


def test_repeated_findings_are_grouped(tmp_path: Path) -> None:
    for i in range(4):
        (tmp_path / f"ceph{i}.conf").write_text("[osd]\nfilestore_max_sync_interval = 10\n")
    r = cli(*sorted(tmp_path.glob("*.conf")))
    assert len([ln for ln in r.stdout.splitlines() if "FT401" in ln]) == 1
    assert "same in 3 more place(s)" in r.stdout
    r = cli("--no-group", *sorted(tmp_path.glob("*.conf")))
    assert len([ln for ln in r.stdout.splitlines() if "FT401" in ln]) == 4


def test_ci_formats(tmp_path: Path) -> None:
    p = tmp_path / "ceph.conf"
    p.write_text("[osd]\nosd_max_backfill = 1\n")
    log = json.loads(cli("--format", "sarif", p).stdout)
    assert log["version"] == "2.1.0" and log["runs"][0]["results"][0]["ruleId"] == "FT101"
    line = cli("--format", "github", p).stdout.strip()
    assert re.fullmatch(rf"::error file={re.escape(str(p))},line=2,col=1,title=FT101 unknown-key::.*", line)


def test_pre_commit_hook() -> None:
    hooks = load_yaml(REPO / ".pre-commit-hooks.yaml")
    hook = hooks[0]
    assert hook["id"] == "lint-config" and hook["entry"] == "lint-config"
    pattern = re.compile(hook["files"])
    for name in ("etc/ceph/ceph.conf", "my.cnf", "etc/sysctl.d/90-ceph.conf", "cbt-plan.yaml"):
        assert pattern.search(name), name
    assert not pattern.search("README.md")

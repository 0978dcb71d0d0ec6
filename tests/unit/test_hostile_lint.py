"""Lint misses found on real and hand-written files, and knob cards that called a risky knob safe; each case
runs lint-config or `flashtune knob` as a child process (tests/support/hostile.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.hostile import FIXTURES, check, run


@pytest.mark.parametrize(
    ("text", "finding"),
    [
        ("[mysqld]\nskip-grant-tables\n", ":2:1: error FT502 skip_grant_tables = 'ON' is a security-risk"),
        (
            "[mysqld]\nskip_grant_tables = 1\n",
            ":2:21: error FT502 skip_grant_tables = '1' is a security-risk",
        ),
        (
            "[mysqld]\nskip-innodb-doublewrite\n",
            ":2:1: warning FT501 skip_innodb_doublewrite = 'OFF' is a durability-risk",
        ),
        (
            "[mysqld]\ninnodb_buffer_pool_size = <SIZE>\n",
            ":2:27: error FT205 innodb_buffer_pool_size = '<SIZE>'",
        ),
        ("[mysqld]\nbind_address = ${DB_ADDR}\n", ":2:16: error FT205 bind_address = '${DB_ADDR}'"),
    ],
)
def test_my_cnf_misses(tmp_path: Path, text: str, finding: str) -> None:
    f = tmp_path / "my.cnf"
    f.write_text(text)
    r = run("flashtune.cli.lint", "--kind", "my.cnf", f, cwd=tmp_path)
    check(r, rc=(0, 1))
    assert f"{f}{finding}" in r.out, r.out
    assert "FT201" not in r.out, r.out  # the placeholder says why; not also 'not a number'


@pytest.mark.parametrize(
    ("text", "finding"),
    [
        ("[global]\npublic_network = <YOUR-NETWORK>\n", ":2:18: error FT205"),
        ("[global]\nmon_host = {{ mon_ip }}\n", ":2:12: error FT205"),
        ("[osd]\nosd_op_num_shards = CHANGEME\n", ":2:21: error FT205"),
        ("[osd]\nms_crc_data = maybe\n", ":2:15: error FT201 ms_crc_data: 'maybe' is not a boolean"),
        # Ceph 16.2.15 refuses yes/no/on/off and keeps the default: 'off' leaves the CRCs on (measured with
        # ceph-conf in tests/real/test_lint_cephconf_real.py)
        ("[osd]\nms_crc_data = off\n", ":2:15: error FT201 ms_crc_data: 'off' is not a boolean Ceph reads"),
    ],
)
def test_ceph_conf_misses(tmp_path: Path, text: str, finding: str) -> None:
    f = tmp_path / "ceph.conf"
    f.write_text(text)
    r = run("flashtune.cli.lint", "--kind", "ceph.conf", f, cwd=tmp_path)
    check(r, rc=1)
    assert f"{f}{finding}" in r.out, r.out


def test_ceph_metavariables_are_not_placeholders(tmp_path: Path) -> None:
    f = tmp_path / "ceph.conf"
    f.write_text("[global]\nadmin_socket = $run_dir/$cluster-$name.asok\nkeyring = ${HOME}/keyring\n")
    r = run("flashtune.cli.lint", "--kind", "ceph.conf", f, cwd=tmp_path)
    assert "FT205" not in r.out, r.out


@pytest.mark.parametrize("knob", ["skip_grant_tables", "innodb_flush_log_at_trx_commit", "ms_crc_data"])
def test_a_knob_with_risky_values_is_never_called_safe(tmp_path: Path, knob: str) -> None:
    r = run("flashtune.cli.main", "knob", knob, cwd=tmp_path)
    check(r, rc=0)
    assert "no data or security is at stake" not in r.out, r.out
    assert "unsafe" in r.out


def _findings(r_out: str, name: str, code: str) -> dict[int, str]:
    """Line -> message of the findings with this code in one file of lint-config's text output."""
    found = {}
    for ln in r_out.splitlines():
        head, _, rest = ln.partition(f" {code} ")
        if rest and head.startswith(str(FIXTURES / name) + ":"):
            found[int(head.split(":")[1])] = rest
    return found


@pytest.mark.parametrize(
    ("name", "dead"),
    [
        (
            "my-dead-settings.cnf",
            {
                4: "innodb_io_capacity = 4000 is not what the program runs with: MariaDB 10.11 starts with "
                "innodb_io_capacity lowered to innodb_io_capacity_max",
                6: "query_cache_type = 0 is not what the program runs with: MariaDB 10.11 switches the query "
                "cache ON",
            },
        ),
        (
            "my-query-cache-no-memory.cnf",
            {3: "query_cache_type = ON does nothing here", 5: "query_cache_limit = 4M does nothing here"},
        ),
        ("my-live-settings.cnf", {}),
        (
            "ceph-dead-settings.conf",
            {
                7: "bluestore_cache_size = 4G is not what the program runs with: With bluestore_cache_autotune on",
                8: "bluestore_cache_size_ssd = 2G is not what the program runs with",
                15: "osd_recovery_sleep_ssd = 0.1 is not what the program runs with: Under the mClock scheduler",
                19: "osd_mclock_override_recovery_settings = true does nothing here: Only the mClock scheduler",
            },
        ),
    ],
)
def test_settings_made_dead_by_another_line_of_the_file(
    tmp_path: Path, name: str, dead: dict[int, str]
) -> None:
    """One table (the catalog's dead_when facts) and one check: each line another line overrides or makes
    useless is reported where it is, with what the program does instead; the control file has none, an
    [osd.N] section that turns the autotuner off keeps its own cache size, and Pacific (wpq by default) keeps
    its recovery sleep (and has no mClock override switch at all: that is FT101, not also dead)."""
    r = run("flashtune.cli.lint", FIXTURES / name, cwd=tmp_path)
    check(r, rc=(0, 1))
    found = _findings(r.out, name, "FT401")
    assert sorted(found) == sorted(dead), r.out
    for line, start in dead.items():
        assert found[line].startswith(start), (found[line], start)
        assert "(because " in found[line], found[line]  # the condition and the source are named
    if name.startswith("ceph"):
        r = run("flashtune.cli.lint", "--ceph-release", "pacific", FIXTURES / name, cwd=tmp_path)
        check(r, rc=1)
        assert sorted(_findings(r.out, name, "FT401")) == [7, 8], r.out
        assert _findings(r.out, name, "FT101")[19].startswith("osd_mclock_override_recovery_settings does no")


def test_mysql_flavour_decides_which_plugin_options_exist(tmp_path: Path) -> None:
    """server_audit_* without its plugin refuses MariaDB's start, loose- only warns, validate_password_* is
    MySQL's; rpl_semi_sync_master_* is built into MariaDB 10.11 but a plugin's option in MySQL 8.0."""
    name = "my-plugin-options.cnf"
    r = run("flashtune.cli.lint", FIXTURES / name, cwd=tmp_path)
    check(r, rc=1)
    found = _findings(r.out, name, "FT101")
    assert sorted(found) == [5, 6, 7], r.out
    assert found[5].startswith(
        "server_audit_logging is an option of the server_audit plugin, which this file does not load: "
        "mariadb-10.11 refuses to start"
    )
    assert "plugin_load_add = server_audit" in r.out
    assert "(loose-: the server only warns)" in found[6]
    assert found[7].startswith("validate_password_length is MySQL's password validation")
    r = run("flashtune.cli.lint", "--mysql", "mysql-8.0", FIXTURES / name, cwd=tmp_path)
    check(r, rc=1)
    assert _findings(r.out, name, "FT101")[8].startswith(
        "rpl_semi_sync_master_enabled is an option of the semisync_master.so plugin"
    ), r.out


def test_numbers_the_server_does_not_take_as_written(tmp_path: Path) -> None:
    """Below an option's minimum (innodb_* included, measured one option at a time): raised with a warning
    (FT202); negative where the server takes none: refused (FT201), with what the server then does."""
    r = run("flashtune.cli.lint", FIXTURES / "my-below-minimum.cnf", cwd=tmp_path)
    check(r, rc=0)
    below = _findings(r.out, "my-below-minimum.cnf", "FT202")
    assert sorted(below) == [4, 5, 6, 7], r.out
    assert below[4].startswith(
        "innodb_buffer_pool_size = 1M is below mariadb-10.11's minimum 2097152: the server"
    )
    r = run("flashtune.cli.lint", FIXTURES / "my-negative-values.cnf", cwd=tmp_path)
    check(r, rc=1)
    negative = _findings(r.out, "my-negative-values.cnf", "FT201")
    assert sorted(negative) == [4, 5, 6], r.out
    assert negative[5].endswith(
        "takes no negative number here ('Incorrect unsigned value'): the server refuses to start"
    )
    assert "does not load the plugin the option belongs to (InnoDB: it then stops" in negative[6]
    assert "FT202" not in r.out  # not also 'raised to the minimum': it is refused

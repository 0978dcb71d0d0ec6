"""lint-config on my.cnf files as public ones are written: options that may repeat, command-line dashes in a file,
version groups checked only by their version, MySQL 8 files, values below the server's minimum. mariadbd's own
reading is in tests/real/test_lint_mycnf_real.py."""

from __future__ import annotations

import pytest

from flashtune.lint import lint_text
from support.linting import codes_at, found


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
    assert codes_at(VERSIONED, "my.cnf", mysql_flavour=flavour) == []
    # the same options in [mysqld], which every server reads, are findings for the servers that lack them
    flat = VERSIONED.replace("[mysqld-5.7]", "").replace("[mysqld-8.0]", "").replace("[mariadb-10.6]", "")
    assert codes_at(flat, "my.cnf", mysql_flavour=flavour) != []


def test_mysql_value_below_the_servers_minimum() -> None:
    """bitrixdock's my.cnf: binlog_cache_size = 0 (data/mysql-option-minimums/ from mariadbd itself)."""
    got = found("[mysqld]\nbinlog_cache_size=0\nconnect_timeout = 1\nbinlog_cache_size=4K\n", "my.cnf")
    assert got == [
        (2, "FT202", "binlog_cache_size"),
        (3, "FT202", "connect_timeout"),
        (4, "FT301", "binlog_cache_size"),
    ]
    assert found("[mysqld]\nbinlog_cache_size=32768\n", "my.cnf") == []

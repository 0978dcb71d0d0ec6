"""The database host's own files: a systemd drop-in whose LimitNOFILE covers the descriptors MariaDB asks for at
the compiled max_connections.

At start MariaDB asks the kernel for max_connections + 2 x table_open_cache x table_open_cache_instances plus a
few fixed descriptors (sql/mysqld.cc, wanted_files); when the unit's limit is lower it logs "Could not increase
number of max_open_files" and shrinks table_open_cache. Measured on MariaDB 10.11 with its defaults
(table_open_cache 2000, 8 instances once the cache is that large): it asks for 32184 at 151 connections and 34033
at 2000, above the 32768 of Debian's mariadb.service (tests/real/test_compile_rules_real.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flashtune.emit.common import header

UNIT = "mariadb.service"
PATH = f"db-host/{UNIT}.d/flashtune-limits.conf"
TABLE_OPEN_CACHE = 2000  # MariaDB 10.11 default (mariadbd --help --verbose)
CACHE_INSTANCES = 8  # table_open_cache_instances default
FIXED = 33  # descriptors asked for beyond connections and table cache (measured: 34033 - 2000 - 32000)
DEBIAN_UNIT_LIMIT = 32768  # LimitNOFILE in Debian 12's mariadb.service


def wanted_files(max_connections: int) -> int:
    """The descriptors MariaDB 10.11 asks for at this max_connections with the default table cache."""
    return max_connections + 2 * TABLE_OPEN_CACHE * CACHE_INSTANCES + FIXED


def limit_nofile(max_connections: int) -> int:
    """What the unit should allow: the request rounded up to a multiple of 1024, never below Debian's limit."""
    return max(DEBIAN_UNIT_LIMIT, -(-wanted_files(max_connections) // 1024) * 1024)


def emit(max_connections: int, inputs: Mapping[str, Any]) -> str:
    want = wanted_files(max_connections)
    limit = limit_nofile(max_connections)
    return "".join(
        [
            header("#", inputs),
            f"# On the database host: /etc/systemd/system/{UNIT}.d/flashtune-limits.conf, then\n",
            f"#   systemctl daemon-reload && systemctl restart {UNIT.removesuffix('.service')}\n",
            f"# MariaDB 10.11 asks for {want} descriptors at max_connections = {max_connections} (connections +\n",
            f"# 2 x table_open_cache {TABLE_OPEN_CACHE} x {CACHE_INSTANCES} instances + {FIXED}); Debian's unit "
            f"allows {DEBIAN_UNIT_LIMIT},\n",
            '# and below the request MariaDB shrinks its table cache at start ("Could not increase number of\n',
            '# max_open_files" in the error log).\n',
            "[Service]\n",
            f"LimitNOFILE={limit}\n",
        ]
    )

"""Release orderings the catalog speaks about (Ceph releases, MySQL/MariaDB flavours)."""

from __future__ import annotations

# Ceph named releases in order; jewel is what the 2017 seeds ran, tentacle the newest we know.
CEPH_RELEASES: tuple[str, ...] = (
    "jewel",
    "kraken",
    "luminous",
    "mimic",
    "nautilus",
    "octopus",
    "pacific",
    "quincy",
    "reef",
    "squid",
    "tentacle",
)
# Releases flashtune compiles for (the others only appear in added/removed facts).
SUPPORTED_CEPH_RELEASES: tuple[str, ...] = ("jewel", "pacific", "quincy", "reef", "squid", "tentacle")
DEFAULT_CEPH_RELEASE = "tentacle"

MYSQL_FLAVOURS: tuple[str, ...] = ("mysql-5.7", "mysql-8.0", "mysql-8.4", "mariadb-10.11")
DEFAULT_MYSQL_FLAVOUR = "mariadb-10.11"


def ceph_index(release: str) -> int:
    try:
        return CEPH_RELEASES.index(release)
    except ValueError:
        raise ValueError(f"unknown Ceph release {release!r}; known: {', '.join(CEPH_RELEASES)}") from None

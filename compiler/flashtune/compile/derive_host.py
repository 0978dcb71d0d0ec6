"""Derivations for the hosts around Ceph: the OSD node's kernel reserve and the database server's my.cnf.

Same contract as flashtune.compile.derive: each returns a Derived whose reason names the emitted value.
flashtune.compile.pipeline joins their REGISTRY with derive's under the names the profiles use.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Callable
from typing import Any

from flashtune.compile.derive import GiB, MiB, innodb_buffer_pool_size
from flashtune.errors import DataError, UsageError
from flashtune.model import Derived

KiB_PER_GiB = 1 << 20
# vm.min_free_kbytes: the kernel's own value is sqrt(16 x RAM in KiB), capped at 256 MiB (mm/page_alloc.c,
# calculate_min_free_kbytes). OSD nodes allocate network buffers in atomic context at 25-100 Gbit/s; a 1 %
# reserve (at most 4 GiB) keeps those allocations from failing when the page cache fills RAM.
MIN_FREE_SHARE = 0.01
MIN_FREE_CAP_KIB = 4 * KiB_PER_GiB


def kernel_min_free_kbytes(ram_gib: float) -> int:
    """What the kernel sets on its own (mm/page_alloc.c: int_sqrt(lowmem_kbytes * 16), 128 KiB..256 MiB)."""
    return max(128, min(262144, math.isqrt(int(ram_gib * KiB_PER_GiB) * 16)))


def vm_min_free_kbytes(ram_gib: float) -> Derived:
    kernel = kernel_min_free_kbytes(ram_gib)
    value = max(kernel, min(MIN_FREE_CAP_KIB, int(ram_gib * KiB_PER_GiB * MIN_FREE_SHARE)))
    return Derived(
        value,
        f"1 % of the node's {ram_gib:g} GiB RAM, at most 4 GiB and never below the kernel's own "
        f"{kernel} KiB: {value} KiB ({value / KiB_PER_GiB:.2f} GiB kept free for atomic network and "
        "block allocations)",
        {"ram_gib": ram_gib},
    )


# Background flushing budget of InnoDB (pages/s) per OSD device class behind the RBD volume. The default 200 is
# sized for one spinning disk; MySQL 8.4 made 10000 its default for SSD-class storage. An RBD volume's write
# latency is a network round trip plus replication, so the flash tiers get less than a local SSD would.
IO_CAPACITY = {"nvme": 4000, "sata-ssd": 2000}
DISK_IO_CAPACITY = 200


def innodb_io_capacity(device_type: str) -> Derived:
    value = IO_CAPACITY.get(device_type)
    if value is None:
        return Derived(
            DISK_IO_CAPACITY,
            f"{DISK_IO_CAPACITY} pages/s for an RBD volume on {device_type} OSDs: disk-class storage, where "
            "MySQL 8.4's 10000 (sized for local SSDs) would flush faster than the disks write; a no-op where 200 "
            "is the default",
            {"device_type": device_type},
        )
    return Derived(
        value,
        f"{value} pages/s of background flushing for an RBD volume on {device_type} OSDs "
        "(the default 200 is sized for one spinning disk)",
        {"device_type": device_type},
    )


def innodb_io_capacity_8_4(device_type: str) -> Derived:
    """MySQL 8.4 defaults to 10000, sized for SSD-class storage: kept on flash, 200 on disk-backed volumes."""
    if device_type in IO_CAPACITY:
        return Derived(
            "",
            f"{device_type} OSDs: MySQL 8.4's default 10000 pages/s is sized for SSD-class storage and stays",
            {"device_type": device_type},
        )
    return innodb_io_capacity(device_type)


def innodb_io_capacity_max(device_type: str) -> Derived:
    cap = innodb_io_capacity(device_type)
    if device_type not in IO_CAPACITY:
        return Derived("", f"{device_type} OSDs: InnoDB derives max(2000, 2 x innodb_io_capacity) itself", {})
    value = 2 * int(cap.value)
    return Derived(
        value,
        f"twice innodb_io_capacity ({cap.value}): {value} pages/s when InnoDB falls behind",
        {"innodb_io_capacity": cap.value},
    )


def innodb_flush_neighbors(device_type: str) -> Derived:
    """0 on flash-backed volumes: neighbouring-page flushing only pays on spinning disks, and a guest often
    sees an RBD disk as rotational, so MariaDB and MySQL 5.7 (default 1) would do it. On HDD OSDs 1: combining
    adjacent pages (one RADOS object) saves disk writes there; a no-op where 1 is the default."""
    if device_type == "hdd":
        return Derived(
            1,
            "1 on HDD OSDs: flushing neighbouring pages together (they share a 4 MiB RADOS object) saves disk "
            "writes; MySQL 8.0/8.4 default to 0, MariaDB and 5.7 already to 1",
            {"device_type": device_type},
        )
    return Derived(
        0,
        f"0 on {device_type} OSDs: flash gains nothing from flushing neighbouring pages together, "
        "and a guest often sees an RBD disk as rotational, where MariaDB and MySQL 5.7 would do it",
        {"device_type": device_type},
    )


# Redo log of the servers without an automatic sizing of their own (MariaDB, MySQL 5.7): a quarter of the
# buffer pool, in 64 MiB steps, within 64 MiB..4 GiB (a larger log absorbs write bursts but lengthens crash
# recovery and is allocated in full on disk).
def redo_total(buffer_pool_bytes: int) -> int:
    return min(4 * GiB, max(64 * MiB, buffer_pool_bytes // 4 // (64 * MiB) * 64 * MiB))


# MySQL's own sizing for a host that runs nothing else (innodb_dedicated_server), which the compile's
# dedicated database host is; the buffer pool already follows it (derive.buffer_pool_share).
# MySQL 8.4: (logical processors / 2) GiB of redo, at most 16 GiB
# (https://dev.mysql.com/doc/refman/8.4/en/innodb-dedicated-server.html).
REDO_PER_VCPU_8_4 = GiB // 2
REDO_CAP_8_4 = 16 * GiB
# MySQL 8.0.30+: from the host's memory, with the buffer pool configured explicitly
# (https://dev.mysql.com/doc/refman/8.0/en/innodb-dedicated-server.html, "Automatically Configured Log File
# Size"): (upper bound of the band in GiB of RAM, factor on RAM in GiB, GiB per rounded unit); above the last
# band 128 GiB, the variable's maximum in 8.0.30-8.0.33. "round" is rounding half up.
REDO_BANDS_8_0 = ((2.0, 0.0, 0.0), (4.0, 0.5, 0.5), (32 / 3, 0.75, 0.5), (512 / 3, 0.5625, 1.0))
REDO_DEFAULT = 100 * MiB
REDO_TOP_8_0 = 128 * GiB


def _size(value: int) -> str:
    return f"{value // MiB} MiB" if value < GiB else f"{value / GiB:g} GiB"


def redo_8_0(ram_gib: float) -> tuple[int, str]:
    """MySQL 8.0's dedicated-server redo capacity and the band's rule in words."""
    for top, factor, unit in REDO_BANDS_8_0:
        if ram_gib <= top:
            if factor == 0.0:
                return REDO_DEFAULT, "up to 2 GiB of RAM: the 100 MiB default"
            n = math.floor(factor * ram_gib + 0.5)
            value = max(REDO_DEFAULT, int(n * unit * GiB))
            return value, f"round({factor:g} x {ram_gib:g} GiB of RAM) x {unit:g} GiB"
    return REDO_TOP_8_0, "above 170.66 GiB of RAM: 128 GiB"


def innodb_redo_log_capacity_8_0(ram_gib: float) -> Derived:
    value, rule = redo_8_0(ram_gib)
    if value == REDO_DEFAULT:
        return Derived("", f"{rule}: MySQL 8.0's own sizing keeps the default", {"db_ram_gib": ram_gib})
    return Derived(
        value,
        f"MySQL 8.0's own sizing for a dedicated host (innodb_dedicated_server, 8.0.30+), {rule}: "
        f"{_size(value)} of redo in total (a larger log absorbs longer write bursts before a checkpoint "
        "must flush pages)",
        {"db_ram_gib": ram_gib},
    )


def innodb_redo_log_capacity_8_4(vcpus: int) -> Derived:
    value = min(REDO_CAP_8_4, vcpus * REDO_PER_VCPU_8_4)
    return Derived(
        value,
        f"MySQL 8.4's own sizing for a dedicated host (innodb_dedicated_server): {vcpus} logical processors "
        f"/ 2 GiB, at most 16 GiB: {_size(value)} of redo in total (more processors commit more "
        "transactions at once; give the host's count with --db-vcpus or cluster.client_vcpus)",
        {"db_vcpus": vcpus},
    )


def innodb_log_file_size(buffer_pool_bytes: int, files: int) -> Derived:
    total = redo_total(buffer_pool_bytes)
    value = max(4 * MiB, total // files // MiB * MiB)
    each = f", {files} files of {value // MiB} MiB (innodb_log_files_in_group)" if files > 1 else ""
    return Derived(
        value,
        f"a quarter of the {buffer_pool_bytes / GiB:.2f} GiB buffer pool, within 64 MiB..4 GiB: "
        f"{total // MiB} MiB of redo in total{each}",
        {"innodb_buffer_pool_size": buffer_pool_bytes, "files": files},
        ("sources/guide-mycnf",),
    )


# Memory each connection may hold at once: its thread stack and one of each per-connection buffer, at the
# flavour's defaults (catalog). In-memory temporary tables are left out: MySQL 8 shares one TempTable pool
# (temptable_max_ram), and MariaDB/5.7 spill them to disk at tmp_table_size.
PER_CONNECTION = (
    "thread_stack",
    "sort_buffer_size",
    "join_buffer_size",
    "read_buffer_size",
    "read_rnd_buffer_size",
    "net_buffer_length",
    "binlog_cache_size",
)


# Kept beside the pool and the connections: the OS, the server's global caches (MariaDB's key and Aria
# caches, 128 MiB each; MySQL 8's TempTable pool up to 1 GiB; the log buffer) and the pool's page descriptors:
# a sixteenth of RAM, within 1..2 GiB.
def db_reserve(ram_gib: float) -> int:
    return int(min(2 * GiB, max(GiB, ram_gib * GiB / 16)))


# The connection fan-out the workload needs (sysbench-style clients); the seed's 50000 is capped by the
# open-files limit and could never get its buffers.
MAX_CONNECTIONS_CAP = 2000
MAX_CONNECTIONS_DEFAULT = 151


def connection_bytes(catalog: Any, flavour: str) -> int:
    """Worst-case memory of one connection in this flavour: the sum of PER_CONNECTION's defaults."""
    total = 0
    for name in PER_CONNECTION:
        knob = catalog.get(name, "mysql")
        default = knob.default_for(flavour) if knob is not None else None
        if default is None:
            raise DataError(
                f"the knob catalog has no {flavour} default for {name}",
                suggestion="add it to data/knobs/mysql.yaml",
            )
        total += int(default)
    return total


def max_connections(ram_gib: float, pool_bytes: int, per_connection: int) -> Derived:
    """As many connections as the RAM the buffer pool leaves can give their worst-case buffers to, after a
    reserve (db_reserve), at most MAX_CONNECTIONS_CAP; at or below the server's default 151 the default stays."""
    reserve = db_reserve(ram_gib)
    spare = int(ram_gib * GiB) - pool_bytes - reserve
    fit = max(0, spare // per_connection)
    value = min(MAX_CONNECTIONS_CAP, fit)
    budget = (
        f"{ram_gib:g} GiB RAM - {pool_bytes / GiB:.2f} GiB buffer pool - {reserve / GiB:.2f} GiB for the OS and "
        f"global caches leaves {max(spare, 0) / GiB:.2f} GiB, room for {fit} connections at "
        f"{per_connection / MiB:.2f} MiB each (thread stack and one of each per-connection buffer at their defaults)"
    )
    inputs = {"db_ram_gib": ram_gib, "innodb_buffer_pool_size": pool_bytes, "per_connection": per_connection}
    if value <= MAX_CONNECTIONS_DEFAULT:
        return Derived(
            "",
            f"{budget}; not above the server's default 151, which stays (keep concurrent connections lower, "
            "or give the host more RAM)",
            inputs,
        )
    capped = (
        f", capped at the {MAX_CONNECTIONS_CAP} the sysbench-style client fan-out needs"
        if fit > value
        else ""
    )
    return Derived(value, f"{budget}{capped}: {value} (default 151)", inputs)


# Servers that take a comma-separated list of listen addresses (MySQL 8.0.13+, WL#11652); MariaDB only from 11.x.
MULTI_ADDRESS = ("mysql-8.0", "mysql-8.4")


def bind_address(address: str, flavour: str = "mariadb-10.11") -> Derived:
    """The database's listen address(es), checked: never every interface unless opted in as unsafe."""
    parts = [a.strip() for a in address.split(",") if a.strip()]
    if len(parts) > 1 and flavour not in MULTI_ADDRESS:
        raise UsageError(
            f"--db-bind-address {address!r}: {flavour} listens on one address only",
            suggestion="give one address (several need MySQL 8.0.13 or later)",
        )
    local = True
    for a in parts or [""]:
        try:
            ip = ipaddress.ip_address(a)
        except ValueError:
            raise UsageError(
                f"--db-bind-address {address!r}: {a!r} is not an IP address",
                suggestion="give the database network's address, e.g. --db-bind-address 10.0.1.5",
            ) from None
        if ip.is_unspecified:
            raise UsageError(
                f"--db-bind-address {a} listens on every interface",
                suggestion="give the database network's address, or --allow-unsafe bind_address",
            )
        local = local and ip.is_loopback
    address = ",".join(parts)
    why = (
        "loopback only, the safe default: give the database network's address with --db-bind-address so the "
        "sysbench clients can connect"
        if local
        else f"the database network's address {address} (--db-bind-address)"
    )
    return Derived(
        address, f"listen on {why}; never on every interface by default", {"db_bind_address": address}
    )


def _pool(c: dict[str, Any]) -> int:
    return int(innodb_buffer_pool_size(c["db_ram_gib"], str(c.get("mysql_flavour") or "mariadb-10.11")).value)


REGISTRY: dict[str, Callable[[dict[str, Any]], Derived]] = {
    "vm_min_free_kbytes": lambda c: vm_min_free_kbytes(c["ram_gib"]),
    "innodb_io_capacity": lambda c: innodb_io_capacity(c["device_type"]),
    "innodb_io_capacity_8_4": lambda c: innodb_io_capacity_8_4(c["device_type"]),
    "innodb_io_capacity_max": lambda c: innodb_io_capacity_max(c["device_type"]),
    "innodb_flush_neighbors": lambda c: innodb_flush_neighbors(c["device_type"]),
    "innodb_redo_log_capacity_8_0": lambda c: innodb_redo_log_capacity_8_0(c["db_ram_gib"]),
    "innodb_redo_log_capacity_8_4": lambda c: innodb_redo_log_capacity_8_4(int(c["db_vcpus"])),
    "innodb_log_file_size": lambda c: innodb_log_file_size(_pool(c), 1),
    "innodb_log_file_size_two_files": lambda c: innodb_log_file_size(_pool(c), 2),
    "max_connections": lambda c: max_connections(c["db_ram_gib"], _pool(c), c["db_connection_bytes"]),
    "db_bind_address": lambda c: bind_address(
        str(c.get("db_bind_address") or "127.0.0.1"), str(c.get("mysql_flavour") or "mariadb-10.11")
    ),
}

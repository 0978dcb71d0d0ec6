"""Derivations: small pure functions that turn hardware and cluster shape into knob values.

Each returns a Derived: the value plus a one-sentence reason naming the inputs and any cap that applied
(the reason goes to explain.md and manifest.json). Profiles reference them by name:
`osd_memory_target: {derive: osd_memory_target}` (see REGISTRY at the bottom).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flashtune.errors import DataError

GiB = 1 << 30
MiB = 1 << 20
KiB = 1 << 10

# Ceph refuses an osd_memory_target below 896 MiB (schema min); under ~2 GiB BlueStore's cache thrashes.
OSD_MEMORY_MIN = 939524096
OSD_MEMORY_FLOOR = 2 * GiB
# pgcalc's target of PG replicas per OSD, and the mon's hard limit (mon_max_pg_per_osd, 250 since 12.2.9).
PG_TARGET_PER_OSD = 100
MON_MAX_PG_PER_OSD = 250
# EC layouts the seeds ran or recommended, best first: 000 recommends 8+2 / 10+4, 003 ran 4+2.
EC_LAYOUTS: tuple[tuple[int, int], ...] = ((8, 2), (10, 4), (4, 2))


@dataclass(frozen=True)
class Derived:
    value: Any
    reason: str
    inputs: dict[str, Any] = field(default_factory=dict)
    evidence: tuple[str, ...] = ()


def _pow2_floor(n: float) -> int:
    return 1 << max(0, math.floor(math.log2(max(n, 1))))


def _pow2_nearest(n: float) -> int:
    lo = _pow2_floor(n)
    return lo * 2 if n - lo > lo * 2 - n else lo


def osds_per_device(device_type: str, cores: int, devices: int) -> Derived:
    """OSDs per data device: 4 per NVMe device (seed 000: one OSD cannot drive an NVMe SSD; 4 partitions
    were optimal), limited so each OSD keeps at least one core; 1 for SATA SSDs and HDDs."""
    if device_type != "nvme":
        return Derived(1, f"one OSD per {device_type} device: a single OSD saturates it",
                       {"device_type": device_type})  # fmt: skip
    per = max(1, min(4, cores // max(devices, 1)))
    capped = " (capped so every OSD keeps a core)" if per < 4 else ""
    return Derived(per, f"{per} OSDs per NVMe device: one OSD cannot saturate an NVMe SSD and 4 partitions "
                   f"gave the lowest latency in the Intel study{capped}", {"cores": cores, "nvme_devices": devices},
                   ("sources/guide-nvme-partitions",))  # fmt: skip


def osd_memory_target(ram_gib: float, osds: int, *, reserve_gib: float | None = None) -> Derived:
    """RAM per OSD after a reserve for the OS, page cache of other daemons and recovery spikes.

    Reserve: the larger of 8 GiB and 12.5 % of RAM. Rounded down to 256 MiB.
    """
    if osds < 1:
        raise DataError("the hardware has no data devices, so no OSDs to size memory for",
                        suggestion="list data_devices in the hardware file")  # fmt: skip
    reserve = reserve_gib if reserve_gib is not None else max(8.0, ram_gib / 8)
    per = (ram_gib - reserve) * GiB / osds
    value = int(per // (256 * MiB)) * 256 * MiB
    if value < OSD_MEMORY_FLOOR:
        raise DataError(
            f"{ram_gib:g} GiB RAM leaves {per / GiB:.2f} GiB per OSD for {osds} OSDs "
            f"(after a {reserve:g} GiB reserve); BlueStore needs at least 2 GiB per OSD",
            suggestion="add RAM, or use fewer OSDs per device",
        )
    return Derived(value, f"({ram_gib:g} GiB RAM - {reserve:g} GiB reserve) / {osds} OSDs = "
                   f"{value / GiB:.2f} GiB per OSD, rounded down to 256 MiB",
                   {"ram_gib": ram_gib, "osds_per_node": osds, "reserve_gib": reserve})  # fmt: skip


def pg_num(osds: int, pool_size: int, share: float, *, target_per_osd: int = PG_TARGET_PER_OSD,
           max_per_osd: int = MON_MAX_PG_PER_OSD) -> Derived:  # fmt: skip
    """pgcalc: target PGs per OSD x OSDs x share of data / replicas, to the nearest power of two, then
    halved until the cluster stays within mon_max_pg_per_osd (pool creation fails above it)."""
    raw = target_per_osd * osds * share / pool_size
    n = max(_pow2_nearest(raw), 1)
    capped = ""
    while n > 1 and n * pool_size / osds > max_per_osd:
        n //= 2
        capped = f", halved to stay within {max_per_osd} PG replicas per OSD"
    return Derived(n, f"{target_per_osd} PGs/OSD x {osds} OSDs x {share:g} of the data / size {pool_size} = "
                   f"{raw:.0f}, nearest power of two {n}{capped}",
                   {"osds": osds, "pool_size": pool_size, "share": share})  # fmt: skip


def innodb_buffer_pool_size(ram_gib: float, *, share: float = 0.75) -> Derived:
    """InnoDB buffer pool for a dedicated database host: 75 % of RAM, in 128 MiB chunks (InnoDB's
    innodb_buffer_pool_chunk_size), at least 128 MiB."""
    value = max(1, int(ram_gib * GiB * share // (128 * MiB))) * 128 * MiB
    return Derived(value, f"{share:.0%} of the database host's {ram_gib:g} GiB RAM, in 128 MiB chunks: "
                   f"{value / GiB:.2f} GiB", {"db_ram_gib": ram_gib},
                   ("sources/guide-mycnf",))  # fmt: skip


def innodb_log_file_size(buffer_pool_bytes: int) -> Derived:
    """Redo log: a quarter of the buffer pool, in 64 MiB steps, between 64 MiB and the seed's 4 GiB (a
    larger log absorbs write bursts but lengthens crash recovery; InnoDB allocates it in full on disk)."""
    value = min(4 * GiB, max(64 * MiB, buffer_pool_bytes // 4 // (64 * MiB) * 64 * MiB))
    return Derived(value, f"a quarter of the {buffer_pool_bytes / GiB:.2f} GiB buffer pool, within 64 MiB..4 GiB: "
                   f"{value // MiB} MiB", {"innodb_buffer_pool_size": buffer_pool_bytes},
                   ("sources/guide-mycnf",))  # fmt: skip


def socket_buffer_max(nic_gbps: float, *, rtt_ms: float = 1.0) -> Derived:
    """Maximum socket buffer: 4 x the bandwidth-delay product of the fastest port at 1 ms RTT (room for
    a loaded data-centre path), as a power of two, at least 32 MiB (current kernels' own tcp_rmem maximum,
    so the file never lowers it)."""
    bdp = nic_gbps * 1e9 / 8 * rtt_ms / 1000
    value = max(32 * MiB, 1 << math.ceil(math.log2(4 * bdp)))
    return Derived(value, f"4 x bandwidth-delay product of {nic_gbps:g} Gbit/s at {rtt_ms:g} ms "
                   f"({bdp / MiB:.1f} MiB) as a power of two, at least 32 MiB: {value // MiB} MiB",
                   {"nic_gbps": nic_gbps, "rtt_ms": rtt_ms})  # fmt: skip


def tcp_buffers(nic_gbps: float, default: int) -> Derived:
    """tcp_rmem/tcp_wmem triples: the kernel's minimum and default (87380 read, 16384 write), the maximum
    from socket_buffer_max so TCP autotuning may grow a socket up to it."""
    mx = socket_buffer_max(nic_gbps)
    return Derived([4096, default, mx.value], f"min 4 KiB, default {default} B, max {mx.value // MiB} MiB "
                   f"({mx.reason})", mx.inputs)  # fmt: skip


def netdev_max_backlog(nic_gbps: float) -> Derived:
    """Packets queued per CPU before the stack drops them: 25000 per 10 Gbit/s (the seed's 300000 was for a
    4x10 + 40 GbE node), at least the kernel default 1000."""
    value = max(1000, int(25000 * nic_gbps / 10))
    return Derived(value, f"25000 packets per 10 Gbit/s of the fastest port ({nic_gbps:g} Gbit/s)",
                   {"nic_gbps": nic_gbps}, ("sources/guide-sample-sysctl",))  # fmt: skip


def rgw_thread_pool_size(cores: int) -> Derived:
    """RGW worker threads: 16 per core, as a power of two between 256 (the seed's gateway) and 1024."""
    value = min(1024, max(256, _pow2_nearest(16 * cores)))
    return Derived(value, f"16 threads per core x {cores} cores, power of two within 256..1024",
                   {"cores": cores}, ("sources/guide-rgw",))  # fmt: skip


@dataclass(frozen=True)
class ECProfile:
    k: int
    m: int
    technique: str
    failure_domain: str

    def as_profile(self) -> str:
        return (f"k={self.k} m={self.m} plugin=jerasure technique={self.technique} "
                f"crush-failure-domain={self.failure_domain}")  # fmt: skip


def ec_profile(nodes: int, *, requested: tuple[int, int] | None = None) -> Derived:
    """k+m that fits the failure domains: each of the k+m chunks on its own host. Prefers the seeds'
    layouts (8+2, 10+4, 4+2); Cauchy-good, because it beat Reed-Solomon by 33-45 % on writes (seed 003)."""
    layouts = [requested] if requested else list(EC_LAYOUTS)
    for k, m in layouts:
        if k + m <= nodes:
            p = ECProfile(k, m, "cauchy_good", "host")
            return Derived(p, f"{k}+{m} needs {k + m} hosts and the cluster has {nodes}; technique cauchy_good "
                           "(33-45 % faster writes than reed_sol_van in the SanDisk study)",
                           {"nodes": nodes}, ("sources/sandisk-ec-cauchy", "sources/guide-ec"))  # fmt: skip
    want = f"{requested[0]}+{requested[1]}" if requested else "4+2"
    raise DataError(f"erasure coding {want} needs at least {sum(requested or (4, 2))} hosts as failure "
                    f"domains, but --nodes is {nodes}",
                    suggestion="add nodes, choose a smaller k+m, or use --replication")  # fmt: skip


def ec_stripe_unit(k: int, *, stripe_width: int = 64 * KiB) -> Derived:
    """Per-chunk stripe unit so a full stripe is 64 KiB (seed 000: 64 KiB instead of 4 KiB cut OSD CPU by
    10 %+), in 4 KiB multiples."""
    unit = max(4 * KiB, (stripe_width // k) // (4 * KiB) * 4 * KiB)
    return Derived(unit, f"64 KiB full stripe / k={k} = {unit // KiB} KiB per chunk (4 KiB multiples)",
                   {"k": k}, ("sources/guide-ec",))  # fmt: skip


def read_ahead_kb(device_type: str, workload: str) -> Derived:
    """Block-device read-ahead: large for streaming on HDD (seed 000 measured +163 % sequential read at
    2048 vs 128 KiB), small for random-I/O flash where read-ahead only wastes bandwidth."""
    streaming = workload in ("scratch", "rgw")
    if device_type == "hdd" or streaming:
        return Derived(2048 if device_type == "hdd" else 1024,
                       "streaming reads benefit from read-ahead (seed: 128 -> 2048 KiB gave +163 % sequential read)",
                       {"device_type": device_type, "workload": workload}, ("sources/guide-readahead",))  # fmt: skip
    return Derived(128, "random small-block I/O on flash: keep the kernel default 128 KiB",
                   {"device_type": device_type, "workload": workload})  # fmt: skip


def io_scheduler(device_type: str) -> Derived:
    """blk-mq scheduler: none for NVMe (its own queues), mq-deadline for SATA SSD and HDD. The seed's cfq
    was removed from Linux in 5.0."""
    value = "none" if device_type == "nvme" else "mq-deadline"
    return Derived(value, f"{device_type}: {value} (cfq, which the 2017 guide named, is gone since Linux 5.0)",
                   {"device_type": device_type}, ("sources/guide-kernel",))  # fmt: skip


# ---- the registry profiles refer to ---------------------------------------------------------------

Context = dict[str, Any]  # keys filled by the pipeline: see pipeline._context
REGISTRY: dict[str, Callable[[Context], Derived]] = {
    "osd_memory_target": lambda c: osd_memory_target(c["ram_gib"], c["osds_per_node"]),
    "innodb_buffer_pool_size": lambda c: innodb_buffer_pool_size(c["db_ram_gib"]),
    "innodb_log_file_size": lambda c: innodb_log_file_size(innodb_buffer_pool_size(c["db_ram_gib"]).value),
    "ec_profile": lambda c: Derived(c["ec"].value.as_profile(), c["ec"].reason, c["ec"].inputs, c["ec"].evidence)
    if c["ec"] else Derived("", "replicated pools only", {}),
    "socket_buffer_max": lambda c: socket_buffer_max(c["nic_gbps"]),
    "tcp_rmem": lambda c: tcp_buffers(c["nic_gbps"], 87380),
    "tcp_wmem": lambda c: tcp_buffers(c["nic_gbps"], 16384),
    "netdev_max_backlog": lambda c: netdev_max_backlog(c["nic_gbps"]),
    "rgw_thread_pool_size": lambda c: rgw_thread_pool_size(c["cores"]),
    "pg_num_data": lambda c: pg_num(c["osds"], c["pool_size"], 0.9),
    "pool_size": lambda c: Derived(c["pool_size"], c["pool_reason"], {"protection": c["protection"]}),
    "pool_min_size": lambda c: Derived(c["pool_min_size"], "one less than size for replicas (writes continue "
                                       "with one copy missing); k+1 for erasure coding", {}),
    "ec_stripe_unit": lambda c: ec_stripe_unit(c["ec"].value.k) if c["ec"] else Derived(4096, "replicated", {}),
    "read_ahead_kb": lambda c: read_ahead_kb(c["device_type"], c["workload"]),
    "io_scheduler": lambda c: io_scheduler(c["device_type"]),
}

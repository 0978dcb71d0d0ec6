"""Derivations: small pure functions that turn hardware and cluster shape into knob values.

Each returns a Derived (flashtune.model): the value plus a one-sentence reason naming the inputs and any cap that applied
(the reason goes to explain.md and manifest.json). Profiles reference them by name:
`osd_memory_target: {derive: osd_memory_target}` (REGISTRY at the bottom; flashtune.compile.pipeline joins it
with the host-side derivations of derive_host).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from flashtune.catalog.knob import human_size
from flashtune.errors import DataError, UsageError
from flashtune.model import Derived, ECProfile, Shape
from flashtune.releases import ceph_index

GiB = 1 << 30
MiB = 1 << 20
KiB = 1 << 10


def _pow2_floor(n: float) -> int:
    return 1 << max(0, math.floor(math.log2(max(n, 1))))


def _pow2_nearest(n: float) -> int:
    lo = _pow2_floor(n)
    return lo * 2 if n - lo > lo * 2 - n else lo


def osds_per_device(
    device_type: str, cores: int, devices: int, rules: Mapping[str, Any], *, requested: int | None = None
) -> Derived:
    """OSDs per data device: the user's --osds-per-device if given (checked against the device type's
    maximum), else one, or `nvme_fast` (two) on NVMe when the node has `cores_per_nvme_osd` cores for each
    of those OSDs (the layout file's sources: the Reef OSDs-per-NVMe study, the 1 TiB/s cluster)."""
    limit = int(rules["max"].get(device_type, 1))
    if requested is not None:
        if not 1 <= requested <= limit:
            raise UsageError(
                f"--osds-per-device {requested} is not possible on {device_type} devices (1..{limit})",
                suggestion="several OSDs per SATA/SAS drive only contend for it; on NVMe use 1 or 2",
            )
        return Derived(
            requested,
            f"{requested} OSD(s) per {device_type} device (--osds-per-device)",
            {"device_type": device_type, "requested": requested},
        )
    per_core = float(rules["cores_per_nvme_osd"])
    fast = int(rules["nvme_fast"])
    inputs = {"device_type": device_type, "cores": cores, "devices": devices}
    if device_type != "nvme":
        return Derived(
            1, f"one OSD per {device_type} device: a second OSD would only contend for the drive", inputs
        )
    cores_per_device = cores / max(devices, 1)
    if cores_per_device >= fast * per_core:
        return Derived(
            fast,
            f"{fast} OSDs per NVMe device: {cores} cores / {devices} devices = "
            f"{cores_per_device:.1f} cores per device, enough for {fast} OSDs at {per_core:g} "
            "cores each (very fast drives with cores to spare)",
            inputs,
        )
    return Derived(
        1,
        f"one OSD per NVMe device: {cores} cores / {devices} devices = {cores_per_device:.1f} "
        f"cores per device, below the {fast * per_core:g} that {fast} OSDs of {per_core:g} cores "
        "would need (one OSD per NVMe is current guidance since Pacific)",
        inputs,
    )


def osd_memory_target(
    ram_gib: float,
    osds: int,
    daemons_gib: Mapping[str, float],
    os_reserve_gib: float,
    rules: Mapping[str, Any],
) -> Derived:
    """osd_memory_target from the node budget: what is left for OSDs under both rules of the layout file
    (cephadm's autotune ratio over the Ceph daemons; the hardware recommendations' headroom over everything),
    split among the node's OSDs, rounded down to 256 MiB. Below the useful floor it refuses (DataError)
    instead of emitting a value the OSD cannot keep."""
    if osds < 1:
        raise DataError(
            "the hardware has no data devices, so no OSDs to size memory for",
            suggestion="list data_devices in the hardware file",
        )
    others = sum(daemons_gib.values())
    ratio, headroom = float(rules["autotune_ratio"]), float(rules["headroom"])
    by_autotune = ratio * ram_gib - others
    by_headroom = (1 - headroom) * ram_gib - others - os_reserve_gib
    avail = min(by_autotune, by_headroom)
    rule = "autotune" if by_autotune <= by_headroom else "headroom"
    per = avail * GiB / osds
    value = int(max(per, 0) // (256 * MiB)) * 256 * MiB
    floor = float(rules["osd_memory_target_floor_gib"]) * GiB
    listing = ", ".join(f"{n} {g:g}" for n, g in daemons_gib.items()) or "none"
    inputs = {
        "ram_gib": ram_gib,
        "osds_per_node": osds,
        "daemons_gib": dict(daemons_gib),
        "os_reserve_gib": os_reserve_gib,
        "autotune_ratio": ratio,
        "headroom": headroom,
        "rule": rule,
    }
    if value < floor:
        raise DataError(
            f"{ram_gib:g} GiB RAM leaves {per / GiB:.2f} GiB per OSD for {osds} OSDs after the other daemons "
            f"({listing} GiB) and the {rule} rule; osd_memory_target below {floor / GiB:g} GiB is not "
            "recommended (the OSD cannot stay under it)",
            suggestion="use fewer OSDs per device (--osds-per-device 1), move daemons off the OSD nodes "
            "(layout: placement in the hardware file), or add RAM",
        )
    if rule == "autotune":
        how = f"{ratio:g} x {ram_gib:g} GiB RAM (cephadm's autotune ratio) - {others:g} GiB other daemons"
    else:
        how = (
            f"{1 - headroom:g} x {ram_gib:g} GiB RAM (20 % headroom) - {others:g} GiB other daemons - "
            f"{os_reserve_gib:.2f} GiB OS incl. vm.min_free_kbytes"
        )
    return Derived(
        value,
        f"({how}) / {osds} OSDs = {value / GiB:.2f} GiB per OSD, rounded down to 256 MiB; "
        f"other daemons on the node: {listing} GiB",
        inputs,
    )


def pg_num(osds: int, pool_size: int, share: float, *, target_per_osd: int, max_per_osd: int) -> Derived:
    """pgcalc: target PGs per OSD x OSDs x share of data / replicas, to the nearest power of two, then
    halved until the cluster stays within mon_max_pg_per_osd (pool creation fails above it). Both limits
    are the release's defaults from the catalog (mon_target_pg_per_osd, mon_max_pg_per_osd)."""
    raw = target_per_osd * osds * share / pool_size
    n = max(_pow2_nearest(raw), 1)
    capped = ""
    while n > 1 and n * pool_size / osds > max_per_osd:
        n //= 2
        capped = f", halved to stay within {max_per_osd} PG replicas per OSD"
    return Derived(
        n,
        f"{target_per_osd} PGs/OSD x {osds} OSDs x {share:g} of the data / size {pool_size} = "
        f"{raw:.0f}, nearest power of two {n}{capped}",
        {"osds": osds, "pool_size": pool_size, "share": share},
    )


def autoscaler_pg_nums(
    pools: list[tuple[int, float, float]], osds: int, *, target_per_osd: int, max_per_osd: int, floor: int
) -> list[int]:
    """The pg_num the PG autoscaler aims at for new pools that each have a target_size_ratio, in creation
    order: pools = [(size, target_size_ratio, pg_autoscale_bias)].

    Mirrors ceph/ceph src/pybind/mgr/pg_autoscaler/module.py (_calc_final_pg_target, first pass): each ratio
    is divided by the sum of the ratios (effective_target_ratio) and takes that share of the PG budget still
    left (target_per_osd x OSDs), so a pool created later shares what earlier ones left; the target is the
    PGs used / size x bias, rounded to the nearest power of two (ties up) and at least `floor` (PG_NUM_MIN).
    Then halved while the cluster would exceed mon_max_pg_per_osd, where pool creation fails."""
    total = sum(r for _, r, _ in pools) or 1.0
    left = target_per_osd * osds
    out: list[int] = []
    for size, ratio, bias in pools:
        used = ratio / total * left
        left -= int(used)
        raw = used / size * bias
        lo = _pow2_floor(raw)
        n = max(floor, lo * 2 if lo * 2 - raw <= raw - lo else lo)
        while n > 1 and n * size / osds > max_per_osd:
            n //= 2
        out.append(n)
    return out


# MySQL 5.7 and 8.0 split a pool of 1 GiB or more into 8 instances and round the pool up to a multiple of
# innodb_buffer_pool_chunk_size (128 MiB) x instances, i.e. to whole GiB (refman 8.0, innodb-buffer-pool-resize).
# MariaDB 10.5+ has one instance; MySQL 8.4 sizes instances from the host's cores, so only 128 MiB chunks apply.
WHOLE_GIB_POOL = ("mysql-5.7", "mysql-8.0")


def buffer_pool_share(ram_gib: float) -> float:
    """MySQL's own rule for a dedicated host (innodb_dedicated_server): 75 % above 4 GiB of RAM, 50 % from 1 to
    4 GiB, where the OS and the connections' buffers need a larger part."""
    return 0.75 if ram_gib > 4 else 0.5


def innodb_buffer_pool_size(ram_gib: float, flavour: str = "mariadb-10.11") -> Derived:
    """InnoDB buffer pool for a dedicated database host: 75 % of RAM (50 % up to 4 GiB), rounded down to what
    the server keeps as given (128 MiB chunks; whole GiB for MySQL 5.7/8.0's 8 instances), at least 128 MiB."""
    share = buffer_pool_share(ram_gib)
    step = GiB if flavour in WHOLE_GIB_POOL and ram_gib * share >= 1 else 128 * MiB
    value = max(128 * MiB, int(ram_gib * GiB * share // step) * step)
    unit = "whole GiB (8 instances x 128 MiB chunks)" if step == GiB else "128 MiB chunks"
    return Derived(
        value,
        f"{share:.0%} of the database host's {ram_gib:g} GiB RAM, in {unit}: {human_size(value)}",
        {"db_ram_gib": ram_gib},
        ("sources/guide-mycnf",),
    )


def socket_buffer_max(nic_gbps: float, *, rtt_ms: float = 1.0) -> Derived:
    """Maximum socket buffer: 4 x the bandwidth-delay product of the fastest port at 1 ms RTT (room for
    a loaded data-centre path), as a power of two, at least 32 MiB (current kernels' own tcp_rmem maximum,
    so the file never lowers it)."""
    bdp = nic_gbps * 1e9 / 8 * rtt_ms / 1000
    value = max(32 * MiB, 1 << math.ceil(math.log2(4 * bdp)))
    return Derived(
        value,
        f"4 x bandwidth-delay product of {nic_gbps:g} Gbit/s at {rtt_ms:g} ms "
        f"({bdp / MiB:.1f} MiB) as a power of two, at least 32 MiB: {value // MiB} MiB",
        {"nic_gbps": nic_gbps, "rtt_ms": rtt_ms},
    )


def tcp_buffers(nic_gbps: float, default: int) -> Derived:
    """tcp_rmem/tcp_wmem triples: the kernel's minimum and default (131072 read since Linux 4.20,
    16384 write: net/ipv4/tcp.c), the maximum
    from socket_buffer_max so TCP autotuning may grow a socket up to it."""
    mx = socket_buffer_max(nic_gbps)
    return Derived(
        [4096, default, mx.value],
        f"min 4 KiB, default {default} B, max {mx.value // MiB} MiB ({mx.reason})",
        mx.inputs,
    )


def netdev_max_backlog(nic_gbps: float) -> Derived:
    """Packets queued per CPU before the stack drops them: 25000 per 10 Gbit/s (the seed's 300000 was for a
    4x10 + 40 GbE node), at least the kernel default 1000."""
    value = max(1000, int(25000 * nic_gbps / 10))
    return Derived(
        value,
        f"25000 packets per 10 Gbit/s of the fastest port ({nic_gbps:g} Gbit/s): {value}",
        {"nic_gbps": nic_gbps},
        ("sources/guide-sample-sysctl",),
    )


def ec_plugin(release: str, rules: Mapping[str, Any]) -> dict[str, Any]:
    """The erasure-code plugin and technique for a release: the first `plugins` entry at or before it."""
    for entry in rules["plugins"]:
        if ceph_index(release) >= ceph_index(str(entry["from"])):
            return dict(entry)
    return dict(rules["plugins"][-1])


def ec_profile(
    nodes: int,
    release: str,
    rules: Mapping[str, Any],
    *,
    requested: tuple[int, int] | None = None,
    optimized: bool = False,
) -> Derived:
    """k+m for host failure domains. Chosen automatically, the first layout of the layout file whose k+m
    leaves `spare_hosts` hosts free (so a failed host's chunks can be rebuilt elsewhere); --ec K+M by hand
    needs k+m hosts and is told when nothing is spare. Plugin and technique follow the release."""
    spare = int(rules["spare_hosts"])
    plug = ec_plugin(release, rules)
    evidence = ("sources/sandisk-ec-throughput", "sources/guide-ec")
    if requested is not None:
        k, m = requested
        if k + m > nodes:
            raise DataError(
                f"erasure coding {k}+{m} needs at least {k + m} hosts as failure domains, but "
                f"--nodes is {nodes}",
                suggestion="add nodes, choose a smaller k+m, or use --replication",
            )
        free = nodes - k - m
        note = (
            f"; {free} spare host(s) to rebuild on"
            if free >= spare
            else "; WARNING: no spare host, so a failed host's chunks cannot be rebuilt until it returns"
        )
    else:
        fits = [(k, m) for k, m in rules["layouts"] if k + m + spare <= nodes]
        if not fits:
            k, m = min(rules["layouts"], key=lambda km: km[0] + km[1])
            raise DataError(
                f"erasure coding needs at least {k + m + spare} hosts ({k}+{m} and {spare} spare), "
                f"but --nodes is {nodes}",
                suggestion="add nodes, or use --replication",
            )
        k, m = fits[0]
        note = f", leaving {nodes - k - m} spare host(s) to rebuild a failed host's chunks on"
    p = ECProfile(
        k,
        m,
        str(plug["plugin"]),
        str(plug["technique"]),
        "host",
        stripe_unit=ec_stripe_unit(True).value if optimized else 0,  # 0: the default, not in the profile
    )
    return Derived(
        p,
        f"{k}+{m} on {nodes} hosts{note}; plugin {p.plugin} technique {p.technique} for "
        f"{release} ({plug.get('source', '')})",
        {"nodes": nodes, "release": release},
        evidence,
    )


def ec_stripe_unit(optimized: bool) -> Derived:
    """Bytes per data chunk: 16 KiB for a pool with Tentacle's EC optimisations (upstream's choice for them),
    else the default 4 KiB (0 in the profile: not set). Without the optimisations every partial write rewrites a
    whole stripe and pads small objects to it, so a larger unit only multiplies that work."""
    if optimized:
        return Derived(
            16 * KiB,
            "16 KiB per chunk: what Ceph picks for pools with allow_ec_optimizations (partial writes touch only "
            "the chunks they change)",
            {"ec_optimizations": True},
            ("sources/guide-ec",),
        )
    return Derived(
        4 * KiB,
        "the default 4 KiB: without allow_ec_optimizations a write rewrites the whole stripe and a small object "
        "is padded to it, so a larger unit (the 2017 guide's 64 KiB stripe, measured on append-only FileStore "
        "pools) multiplies small-write work",
        {"ec_optimizations": False},
        ("sources/guide-ec",),
    )


DISPATCH_DEFAULT = 100 * MiB  # ms_dispatch_throttle_bytes (ceph/ceph src/common/options/global.yaml.in)
CLIENT_CAP_DEFAULT = 500 * MiB  # osd_client_message_size_cap (src/common/options/osd.yaml.in)


def message_throttles(target: int, rules: Mapping[str, Any]) -> tuple[Derived, Derived]:
    """ms_dispatch_throttle_bytes and osd_client_message_size_cap for an OSD with this osd_memory_target: the
    bytes of messages it may hold sit inside the target, so together they stay within `share_of_target` of it
    (data/layout/layout.yaml memory.messages). Each is in whole MiB."""
    share, dshare = float(rules["share_of_target"]), float(rules["dispatch_share"])
    budget = int(target * share) // MiB * MiB
    dispatch = max(DISPATCH_DEFAULT, min(int(rules["dispatch_max"]), int(target * dshare) // MiB * MiB))
    cap = min(CLIENT_CAP_DEFAULT, max(budget - dispatch, 0) // MiB * MiB)
    inputs = {"osd_memory_target": target}
    d = Derived(
        dispatch,
        f"{dispatch // MiB} MiB: {dshare:.4g} of the {target / GiB:.2f} GiB osd_memory_target, at most the "
        f"{int(rules['dispatch_max']) // MiB} MiB the Intel study gave fast OSDs (default 100 MiB); with the "
        f"{cap // MiB} MiB client message cap {(dispatch + cap) // MiB} MiB of messages fit in "
        f"{share:.0%} of the target, the caches keep the rest",
        inputs,
        ("sources/guide-osd",),
    )
    c = Derived(
        cap,
        f"{cap // MiB} MiB: the 500 MiB default unless it and the {dispatch // MiB} MiB dispatch throttle "
        f"would pass {share:.0%} ({budget // MiB} MiB) of the {target / GiB:.2f} GiB osd_memory_target",
        inputs,
        (),
    )
    return d, c


def read_ahead_kb(device_type: str, workload: str) -> Derived:
    """Block-device read-ahead: large for streaming on HDD (seed 000 measured +163 % sequential read at
    2048 vs 128 KiB), small for random-I/O flash where read-ahead only wastes bandwidth."""
    streaming = workload in ("scratch", "rgw")
    if device_type == "hdd" or streaming:
        return Derived(
            2048 if device_type == "hdd" else 1024,
            "streaming reads benefit from read-ahead (seed: 128 -> 2048 KiB gave +163 % sequential read)",
            {"device_type": device_type, "workload": workload},
            ("sources/guide-readahead",),
        )
    return Derived(
        128,
        "random small-block I/O on flash: keep the kernel default 128 KiB",
        {"device_type": device_type, "workload": workload},
    )


def io_scheduler(device_type: str) -> Derived:
    """blk-mq scheduler: none for NVMe (its own queues), mq-deadline for SATA SSD and HDD. The seed's cfq
    was removed from Linux in 5.0."""
    value = "none" if device_type == "nvme" else "mq-deadline"
    return Derived(
        value,
        f"{device_type}: {value} (cfq, which the 2017 guide named, is gone since Linux 5.0)",
        {"device_type": device_type},
        ("sources/guide-kernel",),
    )


# ---- the registry profiles refer to ---------------------------------------------------------------
# Each reads the cluster shape (flashtune.compile.pipeline.cluster_shape); values the shape already derived
# (the node's memory budget, the EC profile, PG counts) are passed on, never recomputed.

REGISTRY: dict[str, Callable[[Shape], Derived]] = {
    "osd_memory_target": lambda c: c["memory"],
    "ms_dispatch_throttle_bytes": lambda c: message_throttles(c["osd_memory_target"], c["message_rules"])[0],
    "osd_client_message_size_cap": lambda c: message_throttles(c["osd_memory_target"], c["message_rules"])[1],
    "innodb_buffer_pool_size": lambda c: innodb_buffer_pool_size(
        c["db_ram_gib"], str(c.get("mysql_flavour") or "mariadb-10.11")
    ),
    "ec_profile": lambda c: (
        Derived(c["ec"].value.as_profile(), c["ec"].reason, c["ec"].inputs, c["ec"].evidence)
        if c["ec"]
        else Derived("", "replicated pools only", {})
    ),
    "socket_buffer_max": lambda c: socket_buffer_max(c["nic_gbps"]),
    "tcp_rmem": lambda c: tcp_buffers(c["nic_gbps"], 131072),
    "tcp_wmem": lambda c: tcp_buffers(c["nic_gbps"], 16384),
    "netdev_max_backlog": lambda c: netdev_max_backlog(c["nic_gbps"]),
    "pg_num_data": lambda c: c["pg_num_derived"],
    "pool_size": lambda c: Derived(c["pool_size"], c["pool_reason"], {"protection": c["protection"]}),
    "pool_min_size": lambda c: Derived(
        c["pool_min_size"],
        "one less than size for replicas (writes continue with one copy missing); k+1 for erasure coding",
        {},
    ),
    "read_ahead_kb": lambda c: read_ahead_kb(c["device_type"], c["workload"]),
    "io_scheduler": lambda c: io_scheduler(c["device_type"]),
}

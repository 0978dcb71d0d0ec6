"""How long the cluster takes to rebuild the copies of a failed OSD or host: an estimate for explain.md.

The figures are Ceph's own defaults (data/layout/layout.yaml `recovery`, with their sources): under the
mclock_scheduler (Quincy and later) each OSD has a sequential bandwidth capacity per device class and the
compiled profile reserves a share of it for recovery under full client load, while backfill, which moves the
copies once the failed OSD is marked out, runs as best effort up to the profile's limit when clients leave room.
Under wpq (Pacific) recovery is bounded by ops in flight and the HDD recovery sleep. The rebuild is spread over
the surviving OSDs (each rebuilt byte is read from the surviving copies or k chunks and written once) and is at
most as fast as the surviving nodes' cluster network can receive it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flashtune.compile.layout import layout_data
from flashtune.envelope.drives import figure
from flashtune.model import Bundle, Hardware

MiB = 1 << 20


@dataclass(frozen=True)
class Rebuild:
    """One failure case: what is lost, who rebuilds it and how fast."""

    case: str  # "one OSD" / "one host"
    lost_bytes: float
    osds: int  # OSDs that share the rebuild
    nodes: int  # nodes whose cluster network receives it
    io_per_byte: int  # device bytes read + written per rebuilt byte
    net_per_byte: int  # network bytes received per rebuilt byte
    busy_mib_s: float  # per OSD, clients keeping the cluster busy
    idle_mib_s: float  # per OSD, clients idle
    net_gbps: float  # per node
    possible: bool = True

    def io_seconds(self, rate_mib_s: float) -> float:
        return self.lost_bytes * self.io_per_byte / (self.osds * rate_mib_s * MiB)

    @property
    def net_seconds(self) -> float:
        return self.lost_bytes * self.net_per_byte / (self.nodes * self.net_gbps * 1e9 / 8)

    def seconds(self, busy: bool) -> float:
        return max(self.io_seconds(self.busy_mib_s if busy else self.idle_mib_s), self.net_seconds)


def rules() -> dict[str, Any]:
    return dict(layout_data()["recovery"])


def mclock_class(device_type: str) -> str:
    """mclock has two capacity figures: rotational (hdd) and everything else (ssd)."""
    return "hdd" if device_type == "hdd" else "ssd"


def rates(
    device_type: str, queue: str, profile: str | None, device_mb_s: float | None
) -> tuple[float, float, str]:
    """(busy, idle) MiB/s one OSD gives to recovery, and the arithmetic in words."""
    r = rules()
    cls = mclock_class(device_type)
    if queue == "wpq":
        w = r["wpq"]
        active, sleep = int(w["recovery_max_active"][cls]), float(w["recovery_sleep_s"][cls])
        bw = float(r["mclock"]["bandwidth_mib_s"][cls])
        cap = bw if device_mb_s is None else min(bw, device_mb_s * 1e6 / MiB)
        if sleep > 0:
            ops = active * int(r["object_bytes"]) / MiB / sleep
            rate = min(cap, ops)
            why = (
                f"wpq: {active} recovery ops of at most {int(r['object_bytes']) // MiB} MiB in flight, "
                f"each followed by osd_recovery_sleep_{cls} {sleep:g} s: {ops:g} MiB/s, at most the device's "
                f"{cap:.0f} MiB/s: {rate:.0f} MiB/s per OSD"
            )
        else:
            rate = cap
            why = f"wpq: no recovery sleep on {cls}: the device's {cap:.0f} MiB/s per OSD"
        return rate, rate, why
    m = r["mclock"]
    name = profile or str(m["default_profile"])
    bw = float(m["bandwidth_mib_s"][cls])
    res, lim = float(m["recovery_reservation"][name]), float(m["best_effort_limit"][name])
    device = ""
    if device_mb_s is not None and device_mb_s * 1e6 / MiB < bw:
        bw = device_mb_s * 1e6 / MiB
        device = " (the data device's own write rate, below mclock's figure)"
    why = (
        f"mclock {name}: {bw:.0f} MiB/s per OSD (osd_mclock_max_sequential_bandwidth_{cls}){device}; "
        f"{res:.0%} reserved for recovery under full client load, backfill up to {lim:.0%} when clients are idle"
    )
    return res * bw, lim * bw, why


def cluster_gbps(hw: Hardware) -> float:
    """The fastest port that carries replication traffic (role cluster or both) of one node."""
    ports = [n.speed_gbps for n in hw.nics if n.role in ("cluster", "both")] or [hw.nic_gbps]
    return max(ports)


def estimate(bundle: Bundle) -> dict[str, Any]:
    """The estimate for explain.md: the inputs, the per-OSD rate with its arithmetic, and one row per case."""
    hw, shape, req = bundle.hardware, bundle.shape, bundle.request
    keys = {(s.file, s.key): str(s.value) for s in bundle.settings}
    queue = keys.get(("ceph.conf", "osd_op_queue")) or ("wpq" if req.ceph_release == "pacific" else "mclock")
    profile = keys.get(("ceph.conf", "osd_mclock_profile")) if queue != "wpq" else None
    data = [g for g in hw.data_devices if g.type == hw.data_type]
    group = max(data, key=lambda g: g.count)
    per_device = int(shape["osds_per_device"])
    # the data device's sequential write rate (the hardware file's, else the drive catalog's or the type's)
    write_mb_s = figure(group, "write_mb_s")
    device_mb_s = write_mb_s / per_device
    busy, idle, why = rates(hw.data_type, queue, profile, device_mb_s)
    r = rules()
    fill = float(r["fill"])
    per_osd = group.size_gb * 1e9 / per_device * fill
    osds, per_node, nodes = int(shape["osds"]), int(shape["osds_per_node"]), int(shape["nodes"])
    ec = shape.get("ec")
    k = ec.value.k if ec is not None else 1
    width = ec.value.k + ec.value.m if ec is not None else int(shape["pool_size"])
    spare = nodes - width
    net = cluster_gbps(hw)

    def case(name: str, lost: float, survivors: int, possible: bool = True) -> Rebuild:
        return Rebuild(
            name, lost, max(1, survivors), max(1, nodes - 1), k + 1, k, busy, idle, net, possible=possible
        )

    cases = [
        case("one OSD", per_osd, osds - 1),
        case("one host", per_osd * per_node, osds - per_node, possible=spare >= 1),
    ]
    return {
        "queue": queue,
        "profile": profile,
        "rate_why": why,
        "fill": fill,
        "per_osd_bytes": per_osd,
        "device_class": mclock_class(hw.data_type),
        "device_type": hw.data_type,
        "k": k,
        "ec": ec is not None,
        "down_out_s": int(r["down_out_interval_s"]),
        "cases": cases,
        "source": f"{r['mclock']['source']}; {r['wpq']['source']}",
    }

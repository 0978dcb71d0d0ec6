"""The performance envelope: how far each resource of a cluster lets a client workload go.

Pure functions only. A `Cluster` (per-node resources and the cluster's shape) and a `Case` (what the clients
do) go in; `envelope()` gives, for every resource, the client IOPS at which that resource would be fully
busy. The smallest of them is the predicted ceiling, its resource the bottleneck, and the others' ratio to
it their headroom. Every per-I/O demand below follows from where the bytes of one client I/O go:

- media: each OSD operation occupies one drive for max(1 / IOPS, bytes / MB/s) of its data sheet;
- network: bytes on the client ports, on the storage nodes' public ports (to and from clients) and on
  their cluster ports (replica copies: size - 1 per write; EC: the chunks other OSDs store, (k+m-1)/k per
  write, and the k-1 chunks a primary gathers per read), in and out counted separately (full duplex);
- CPU: cycles per OSD operation (by object store: FileStore and BlueStore run different write and read
  paths) plus cycles per byte an OSD moves (media + network), calibrated in flashtune.envelope.calibrate
  from the published measurements.

FileStore writes every byte twice on the data drive when its journal shares that drive (journal first,
then the file system): the media term counts both writes, the CPU's per-op term one OSD operation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from flashtune.model import Protection as Protection  # re-exported: the model's callers build them

RESOURCES = ("media", "client network", "public network", "cluster network", "cpu")
# The bottleneck classes the published sources name (data/tables: 'nic_bandwidth', 'cpu', 'media').
RESOURCE_CLASS = {
    "media": "media",
    "client network": "network",
    "public network": "network",
    "cluster network": "network",
    "cpu": "cpu",
}
TIE = 0.01  # resources within 1 % of the smallest ceiling are named together
SMALL_READ_BYTES = 4096  # EC reads smaller than k x this touch one chunk only
OBJECTSTORES = ("bluestore", "filestore")


@dataclass(frozen=True)
class Drives:
    """A group of identical data devices in one storage node; None = the data sheet does not say."""

    count: int
    type: str
    read_iops: float | None
    write_iops: float | None
    read_mb_s: float | None
    write_mb_s: float | None
    model: str = ""

    def op_seconds(self, write: bool, size: float) -> float:
        """Drive time one operation of `size` bytes takes at the data sheet's ceilings."""
        iops = self.write_iops if write else self.read_iops
        mb_s = self.write_mb_s if write else self.read_mb_s
        t = 0.0
        if iops:
            t = max(t, 1.0 / iops)
        if mb_s:
            t = max(t, size / (mb_s * 1e6))
        return t


@dataclass(frozen=True)
class Cluster:
    """Per-node resources (all storage nodes alike) and the cluster's shape."""

    name: str
    nodes: int
    clients: int
    sockets: int
    cores: int  # per socket
    ghz: float
    drives: tuple[Drives, ...]
    public_gbps: float  # per storage node: ports carrying client traffic (all ports when not split)
    cluster_gbps: float  # per storage node: ports for replication; 0 = they share the public ports
    client_gbps: float  # per client node
    protection: Protection = field(default_factory=Protection)
    media_link_read_mb_s: float | None = None  # per node: HBA / enclosure limit of the media path
    media_link_write_mb_s: float | None = None
    media_link_iops: float | None = None
    gateways: int = 0  # object gateways between clients and OSDs (RGW); 0 = clients talk to OSDs
    gateway_gbps: float = 0.0
    software: str = "ceph"  # CPU costs are calibrated for Ceph OSDs only
    objectstore: str = "bluestore"  # selects the CPU cost per OSD operation
    # FileStore with its journal on the data drive: times each write lands there (constants.yaml), else 1
    media_writes: float = 1.0
    notes: tuple[str, ...] = ()

    @property
    def drive_count(self) -> int:
        return sum(g.count for g in self.drives)  # per node

    @property
    def cycles_per_s(self) -> float:
        return self.nodes * self.sockets * self.cores * self.ghz * 1e9


@dataclass(frozen=True)
class Case:
    """A client workload: block size in bytes and the share of reads (1.0 = reads only)."""

    name: str
    block_size: int
    read_fraction: float
    sequential: bool = False

    @property
    def op(self) -> str:
        return {1.0: "read", 0.0: "write"}.get(self.read_fraction, "mixed")


@dataclass(frozen=True)
class CpuCosts:
    """Cycles per OSD operation (per object store) and per byte an OSD moves, by direction; None = unknown.

    The per-byte costs (messenger copies and checksums, erasure coding) are shared by both object stores;
    the per-operation costs are the object store's transaction path and are kept apart.
    """

    read_op_filestore: float | None = None
    read_op_bluestore: float | None = None
    write_op_filestore: float | None = None
    write_op_bluestore: float | None = None
    read_byte: float | None = None
    write_byte: float | None = None

    def op(self, write: bool, objectstore: str) -> float | None:
        return getattr(self, f"{'write' if write else 'read'}_op_{objectstore}")  # type: ignore[no-any-return]

    def byte(self, write: bool) -> float | None:
        return self.write_byte if write else self.read_byte


@dataclass(frozen=True)
class Constants:
    """The calibrated constants of the model (network efficiency, message overhead, CPU costs)."""

    net_efficiency: float  # share of line rate that carries payload at saturation
    message_overhead_bytes: float  # protocol bytes per message on top of its payload
    cpu: CpuCosts = field(default_factory=CpuCosts)
    # constants fitted only from results limited by another resource: upper bounds on a cost, so the
    # ceiling they give is a lower bound
    bounds: tuple[str, ...] = ()


@dataclass(frozen=True)
class Demand:
    """What one client I/O in one direction costs each resource."""

    osd_ops: float  # OSD operations (media ops)
    drive_seconds: float  # on the slowest drive group, per drive
    media_bytes: float
    client_bytes: float  # on the client's (or gateway's) ports
    public_in: float  # per cluster, bytes into / out of the storage nodes' public ports
    public_out: float
    cluster_in: float
    cluster_out: float

    @property
    def osd_bytes(self) -> float:
        """Bytes the OSDs move: from/to media and through their network ports."""
        return self.media_bytes + self.public_in + self.public_out + self.cluster_in + self.cluster_out


def _media_ops(p: Protection, write: bool, size: float) -> list[tuple[float, float]]:
    """(number of OSD operations, bytes each) one client I/O of `size` bytes causes."""
    if p.kind == "erasure":
        if write:
            return [(p.k + p.m, size / p.k)]
        return [(p.k, size / p.k)] if size >= p.k * SMALL_READ_BYTES else [(1, size)]
    copies = p.size if (write and p.kind == "replicated") else 1
    return [(copies, size)]


def demand(c: Cluster, write: bool, size: float) -> Demand:
    p = c.protection
    ops = _media_ops(p, write, size)
    n_ops = sum(n for n, _ in ops)  # OSD operations (the CPU's per-op term)
    if p.raid:  # a RAID k+m LUN moves (k+m)/k of the data: parity written, parity chunks skipped on reads
        ops = [(n * (p.raid[0] + p.raid[1]) / p.raid[0], b) for n, b in ops]
        n_ops = sum(n for n, _ in ops)
    if write and c.media_writes != 1:  # FileStore: journal write + file-system write on the same drive
        ops = [(c.media_writes * n, b) for n, b in ops]
    media_bytes = sum(n * b for n, b in ops)
    slowest = max((max(g.op_seconds(write, b) for g in c.drives) * n for n, b in ops), default=0.0)
    if p.kind == "erasure":
        relay = (
            (p.k + p.m - 1) / p.k * size
            if write
            else ((p.k - 1) / p.k * size if size >= p.k * SMALL_READ_BYTES else 0.0)
        )
    elif p.kind == "replicated" and write:
        relay = (p.size - 1) * size
    else:
        relay = 0.0
    return Demand(
        osd_ops=n_ops,
        drive_seconds=slowest,
        media_bytes=media_bytes,
        client_bytes=size,
        public_in=size if write else 0.0,
        public_out=0.0 if write else size,
        cluster_in=relay,
        cluster_out=relay,
    )


def _per_io(case: Case, fn: object) -> float:
    """Mix a per-direction quantity by the case's read share."""
    assert callable(fn)
    r = case.read_fraction
    return (r * float(fn(False)) if r > 0 else 0.0) + ((1 - r) * float(fn(True)) if r < 1 else 0.0)


def _wire(nbytes: float, msgs: float, k: Constants) -> float:
    return nbytes + msgs * k.message_overhead_bytes if nbytes > 0 else 0.0


def _bps(gbps: float, k: Constants) -> float:
    return gbps * 1e9 / 8 * k.net_efficiency


def cpu_cycles(
    c: Cluster, case: Case, costs: CpuCosts, demands: dict[bool, Demand] | None = None
) -> float | None:
    """OSD cycles one client I/O costs; None when a needed constant is unknown or the software is not Ceph.
    demands: demand() per direction (write) for this cluster and case, where the caller has them already."""
    if c.software != "ceph":
        return None
    total = 0.0
    for write, share in ((False, case.read_fraction), (True, 1 - case.read_fraction)):
        if share <= 0:
            continue
        op, per_byte = costs.op(write, c.objectstore), costs.byte(write)
        if op is None or per_byte is None:
            return None
        d = demands[write] if demands is not None else demand(c, write, case.block_size)
        total += share * (d.osd_ops * op + d.osd_bytes * per_byte)
    return total


def ceilings(c: Cluster, case: Case, k: Constants) -> dict[str, float | None]:
    """Client IOPS at which each resource would be fully busy (None: not modelled or not used)."""
    b = case.block_size
    d = {w: demand(c, w, b) for w in (False, True)}

    def mix(get: object) -> float:
        assert callable(get)
        return _per_io(case, lambda w: get(d[w]))

    out: dict[str, float | None] = {}
    drive_s = mix(lambda x: x.drive_seconds)
    media = [c.nodes * c.drive_count / drive_s] if drive_s > 0 else []
    link = {False: c.media_link_read_mb_s, True: c.media_link_write_mb_s}
    link_s = _per_io(case, lambda w: d[w].media_bytes / (float(link[w] or 0) * 1e6) if link[w] else 0.0)
    if link_s > 0:
        media.append(c.nodes / link_s)
    if c.media_link_iops:
        media.append(c.nodes * c.media_link_iops / mix(lambda x: x.osd_ops))
    out["media"] = min(media) if media else None
    # client side: every client I/O is one request + one reply message on the client's ports
    client_wire = _wire(b, 1, k)
    client_side = [c.clients * _bps(c.client_gbps, k) / client_wire] if c.client_gbps else []
    if c.gateways:
        client_side.append(c.gateways * _bps(c.gateway_gbps, k) / client_wire)
    out["client network"] = min(client_side) if client_side else None
    ops = mix(lambda x: x.osd_ops)
    pub_in, pub_out = mix(lambda x: x.public_in), mix(lambda x: x.public_out)
    cl_in, cl_out = mix(lambda x: x.cluster_in), mix(lambda x: x.cluster_out)
    relay_msgs = max(ops - 1, 0)
    if c.cluster_gbps > 0:
        pub = max(_wire(pub_in, 1, k), _wire(pub_out, 1, k))
        out["public network"] = c.nodes * _bps(c.public_gbps, k) / pub if pub else None
        cl = max(_wire(cl_in, relay_msgs, k), _wire(cl_out, relay_msgs, k))
        out["cluster network"] = c.nodes * _bps(c.cluster_gbps, k) / cl if cl else None
    else:  # one set of ports carries both: the busier direction decides
        both = max(
            _wire(pub_in, 1, k) + _wire(cl_in, relay_msgs, k),
            _wire(pub_out, 1, k) + _wire(cl_out, relay_msgs, k),
        )
        out["public network"] = c.nodes * _bps(c.public_gbps, k) / both if both else None
        out["cluster network"] = None
    cycles = cpu_cycles(c, case, k.cpu, d)
    out["cpu"] = c.cycles_per_s / cycles if cycles else None
    return out


@dataclass(frozen=True)
class Envelope:
    """One case's result: the client IOPS ceiling of every resource and which of them limits."""

    case: Case
    ceilings: dict[str, float | None]  # client IOPS per resource
    limit: tuple[str, ...]  # the resource(s) with the smallest ceiling (ties within 1 %)
    iops: float

    @property
    def mb_s(self) -> float:
        """The predicted ceiling in MB/s (10^6 bytes per second)."""
        return self.iops * self.case.block_size / 1e6

    @property
    def bottleneck(self) -> str:
        return " = ".join(self.limit)

    @property
    def bottleneck_class(self) -> str:
        classes = dict.fromkeys(RESOURCE_CLASS[r] for r in self.limit)
        return "/".join(classes)

    def headroom(self) -> dict[str, float | None]:
        """How much further each resource could go than the bottleneck (0.25 = 25 % more)."""
        return {r: (v / self.iops - 1 if v else None) for r, v in self.ceilings.items()}

    def share(self, measured_iops: float) -> dict[str, float | None]:
        """The share of each resource's ceiling a measured result reached."""
        return {r: (measured_iops / v if v else None) for r, v in self.ceilings.items()}


def envelope(c: Cluster, case: Case, k: Constants) -> Envelope:
    ceil = ceilings(c, case, k)
    known = {r: v for r, v in ceil.items() if v is not None and math.isfinite(v)}
    if not known:
        return Envelope(case, ceil, (), math.inf)
    low = min(known.values())
    limit = tuple(r for r in RESOURCES if r in known and known[r] <= low * (1 + TIE))
    return Envelope(case, ceil, limit, low)


def with_protection(c: Cluster, p: Protection) -> Cluster:
    return replace(c, protection=p)


# The four cases every bundle gets a ceiling for.
STANDARD_CASES = (
    Case("4k randread", 4096, 1.0),
    Case("4k randwrite", 4096, 0.0),
    Case("seq read", 1 << 20, 1.0, sequential=True),
    Case("seq write", 1 << 20, 0.0, sequential=True),
)

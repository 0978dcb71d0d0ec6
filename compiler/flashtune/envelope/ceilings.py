"""The performance envelope: how far each resource of a cluster lets a client workload go.

Pure functions only. A `Cluster` (per-node resources and the cluster's shape) and a `Case` (what the clients
do) go in; `envelope()` gives, for every resource, the client IOPS at which that resource would be fully
busy. The smallest of them is the predicted ceiling, its resource the bottleneck, and the others' ratio to
it their headroom. Resources whose ceilings lie within TIE (1 %) of the smallest are named with it as equal
("media = public network"), others within CO_LIMIT (5 %, closer than the published figures are precise) as
co-limits ("media ~ cpu"); Envelope.limit lists them all. Every per-I/O demand below follows from where the
bytes of one client I/O go:

- media: each OSD operation occupies one drive for max(1 / IOPS, bytes / MB/s) of its data sheet;
- network: bytes on the client ports, on the storage nodes' public ports (to and from clients) and on
  their cluster ports (replica copies: size - 1 per write; EC: the chunks other OSDs store, (k+m-1)/k of the
  data per whole-stripe write, and the k-1 chunks a primary gathers per whole-stripe read; a sub-stripe I/O
  moves the shards it touches less the primary's own, _shard_groups), in and out counted separately (full
  duplex);
- CPU: cycles per OSD operation (by object store: FileStore and BlueStore run different write and read
  paths) plus cycles per byte an OSD moves (media + network), calibrated in flashtune.envelope.calibrate
  from the published measurements.

FileStore writes every byte twice on the data drive when its journal shares that drive (journal first,
then the file system): the media term counts both writes, the CPU's per-op term one OSD operation. BlueStore
does the same for a write it defers (WAL, then in place) when RocksDB's WAL shares the data drive: on flash
an overwrite smaller than its allocation unit (with 16 KiB units, flash OSDs created up to Nautilus 14.2.7,
every 4 KiB overwrite), on hard disks every write below 64 KiB (the unit up to Octopus, prefer_deferred_size
since Pacific): Cluster.deferred_below and deferred_below_hdd, from constants.yaml's bluestore_deferred_writes.

BlueStore-era terms (issue 25; sources in data/envelope/constants.yaml and data/tables/published_claims.csv):
- CPU costs by cost family (the object store and the release: FileStore, Jewel-era BlueStore, Luminous to
  Nautilus, Octopus/Pacific, Quincy and later), per OSD operation and per byte, by direction; a family no
  measurement calibrates borrows from the nearest one that has a value. The clock is what the cores run at
  (cpu_ghz_run, else the base clock), and the cores the OSDs can use are at most osd_max_cores per OSD.
- A per-node small-op ceiling ("osd node"): messages one node's OSDs handle per second at most (the
  messenger/threading wall), whatever the CPU; stated as replicated reads per node (2 messages each), so
  an I/O whose primary sends sub-operations to other OSDs (replica writes, EC strip reads and writes)
  costs the wall 4 more messages per sub-operation.
- Network efficiency by link class (the fastest port of a storage node: up to 10G, 25-56G, 100G and up).
- Erasure coding by release (data/envelope/constants.yaml ec_paths): up to Squid a read smaller than a stripe
  reads the whole stripe; from Tentacle (osd_ec_partial_reads) it reads only the data shards it touches, one
  stripe unit each, fast EC or not; a sub-stripe write reads and rewrites the whole stripe unless fast EC
  (opt-in per pool), which reads only the bytes asked and writes the data shards changed and the parities, reading
  those (a parity-delta write: m+1 reads and m+1 writes for one stripe unit) or the other data shards,
  whichever are fewer. It writes the primary's shard (data shard 0) too where its data lies elsewhere: the
  object info and the log entry, one more OSD operation on the primary for the CPU, no message and no data
  (primary_metadata_writes).
- An EC read costs the CPU one OSD operation more than the shards it reads: the primary handles the client's
  op (PrimaryLogPG::do_op, then ECBackend::objects_read_async) and sends a sub-read to every shard it reads,
  its own included as a message to itself (ceph/ceph src/osd/ECCommonL.cc, the pre-fast-EC code kept in
  Tentacle: ReadPipeline::objects_read_and_reconstruct wants all k data shards unless osd_ec_partial_reads,
  which came with Tentacle, ceph/ceph PR 55196, its Squid backport PR 58568 closed unmerged, and then those
  the read touches; do_read_op sends one MOSDECSubOpRead per shard); each shard OSD then runs
  ECBackend::handle_sub_read (a store read, a reply).
- EC overwrites keep their old data for rollback: every shard an overwrite writes first clones the extent it
  replaces into a rollback object of the log entry's version (ceph/ceph src/osd/ECTransaction.cc,
  generate_transactions: clone_range before encode_and_write; the clone is removed when the entry rolls
  forward). The CPU counts one more OSD operation, at the write cost, per shard written. Overwrites of EC pools
  need BlueStore (allow_ec_overwrites), so FileStore EC writes (appends) have none; benchmarks write to
  pre-filled images, so a BlueStore EC write is taken as an overwrite; an RGW PUT
  stores new objects and clones nothing.
- Co-location: clients and RGW daemons on the storage nodes share their NICs (a transfer between two
  daemons of one node never reaches the wire: (n-1)/n of them do; the same holds between OSDs when a PG is
  wider than the cluster has nodes, relay_wire_share). Co-located RGW daemons' cycles come out of the
  nodes' cores; co-located benchmark clients' (fio with librbd) do not: no client cost per I/O or per byte
  improved the out-of-study predictions (notes/history/envelope.md, 'Tried and not added').
- RGW as its own path: client -> gateway -> primary (each byte crosses the network twice before
  replication), gateway CPU per request and per byte, and the index updates of a PUT (3 round trips to
  the primary, each replicated).
Media and wire ceilings are hard bounds (data sheets, line rates); CPU and the per-node op ceiling are
estimates (calibrated constants): KIND says which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from flashtune.model import Protection as Protection  # re-exported: the model's callers build them

RESOURCES = ("media", "client network", "public network", "cluster network", "cpu", "osd node")
# The bottleneck classes the published sources name (data/tables: 'nic_bandwidth', 'cpu', 'media').
RESOURCE_CLASS = {
    "media": "media",
    "client network": "network",
    "public network": "network",
    "cluster network": "network",
    "cpu": "cpu",
    "osd node": "osd",
}
# A hard bound (data sheet, line rate) or an estimate (calibrated costs).
KIND = {
    "media": "bound",
    "client network": "bound",
    "public network": "bound",
    "cluster network": "bound",
    "cpu": "estimate",
    "osd node": "estimate",
}
# Ceph release -> CPU cost family (objectstore bluestore); FileStore is its own family.
RELEASE_FAMILY = {
    "jewel": "bluestore",
    "kraken": "bluestore",
    "luminous": "luminous",
    "mimic": "luminous",
    "nautilus": "luminous",
    "octopus": "pacific",
    "pacific": "pacific",
    "quincy": "quincy",
    "reef": "quincy",
    "squid": "quincy",
    "tentacle": "quincy",
}
MODERN_FAMILIES = ("luminous", "pacific", "quincy")  # oldest first: a missing cost borrows the nearest
DEFAULT_FAMILY = "quincy"  # a BlueStore cluster whose release is not given: today's releases
LINK_CLASSES = ("10g", "25-56g", "100g")


def link_class(gbps: float) -> str:
    """The link class of a port speed: up to 10 Gb/s, 25-56 Gb/s, 100 Gb/s and up."""
    if gbps <= 10:
        return "10g"
    return "25-56g" if gbps < 100 else "100g"


TIE = 0.01  # resources within 1 % of the smallest ceiling are named together as equal ("a = b")
# Co-limits ("a ~ b"): resources whose ceilings lie within 5 % of the smallest are named with it, for every pair
# of resources alike. Every ceiling rests on published figures printed to two or three significant figures
# (data-sheet IOPS such as 26K, results such as 2.2M or 495K that calibrate the CPU costs): rounding alone
# leaves each up to 2.5 % off (half a unit in the last digit of a two-figure number of 20 or more), so two
# ceilings from independent figures can be out of order by up to 5 % and the model cannot tell which limits.
CO_LIMIT = 0.05
SMALL_READ_BYTES = (
    4096  # EC stripe unit (osd_pool_erasure_code_stripe_unit default): I/O below k x this is sub-stripe
)
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
    # BlueStore with RocksDB's WAL on the data drive: writes smaller than this (bytes) are deferred and land
    # deferred_writes times there (constants.yaml); on flash drives deferred_below, on hard disks
    # deferred_below_hdd (each the larger of the class's min_alloc_size and prefer_deferred_size); 0 = none
    deferred_below: int = 0
    deferred_below_hdd: int = 0
    deferred_writes: float = 1.0
    notes: tuple[str, ...] = ()
    release: str = ""  # the Ceph release ("" = not given): selects the cost family and the EC paths
    osds_per_device: int = 1
    osd_cpu_cores: float | None = None  # a CPU limit per OSD (container), in physical cores
    colocated_clients: bool = False  # clients on the storage nodes: their traffic uses the nodes' ports
    colocated_gateways: int = 0  # RGW daemons per storage node
    client_network_gbps: float | None = None  # all clients together (an uplink)
    # fast EC in effect on the EC pool: the hardware file's ec_optimizations (allow_ec_optimizations) on a
    # release that has it (cluster.py, from constants.yaml's ec_paths)
    fast_ec: bool = False
    # without fast EC, a sub-stripe read reads only the data shards it touches (osd_ec_partial_reads, Tentacle)
    ec_partial_reads: bool = False
    # fastest single port of the public and cluster sides (the link class); 0: from the totals
    public_gbps_port: float = 0.0
    cluster_gbps_port: float = 0.0

    @property
    def drive_count(self) -> int:
        return sum(g.count for g in self.drives)  # per node

    @property
    def osds_per_node(self) -> int:
        return self.drive_count * self.osds_per_device

    @property
    def cycles_per_s(self) -> float:
        return self.nodes * self.sockets * self.cores * self.ghz * 1e9

    @property
    def family(self) -> str:
        """The CPU cost family: the object store, and for BlueStore the release group."""
        if self.objectstore == "filestore":
            return "filestore"
        return RELEASE_FAMILY.get(self.release, DEFAULT_FAMILY)

    @property
    def link(self) -> str:
        """Link class of the storage nodes' fastest port (network efficiency is fitted per class)."""
        return link_class(max(self.public_gbps_port, self.cluster_gbps_port) or self.public_gbps)

    @property
    def gateway_path(self) -> bool:
        """RGW requests go through gateways the model knows of (co-located or separate nodes)."""
        return self.colocated_gateways > 0 or self.gateways > 0


@dataclass(frozen=True)
class Case:
    """A client workload: block size in bytes and the share of reads (1.0 = reads only)."""

    name: str
    block_size: int
    read_fraction: float
    sequential: bool = False
    interface: str = "rbd"  # rbd (clients talk to OSDs) or rgw (through the object gateways)

    @property
    def op(self) -> str:
        return {1.0: "read", 0.0: "write"}.get(self.read_fraction, "mixed")


@dataclass(frozen=True)
class CpuCosts:
    """Cycles per OSD operation and per byte an OSD moves, by direction and cost family; None = unknown.

    Families: filestore and bluestore (the 2014-2017 studies: FileStore and Jewel's BlueStore, sharing the
    per-byte costs read_byte/write_byte), and the BlueStore-era luminous, pacific and quincy (each with its
    own per-op and per-byte costs; a missing one borrows from the nearest family that has it). rgw_*: cycles
    an RGW daemon spends per request and per byte it relays.
    """

    read_op_filestore: float | None = None
    read_op_bluestore: float | None = None
    write_op_filestore: float | None = None
    write_op_bluestore: float | None = None
    read_byte: float | None = None
    write_byte: float | None = None
    read_op_luminous: float | None = None
    write_op_luminous: float | None = None
    read_byte_luminous: float | None = None
    write_byte_luminous: float | None = None
    read_op_pacific: float | None = None
    write_op_pacific: float | None = None
    read_byte_pacific: float | None = None
    write_byte_pacific: float | None = None
    read_op_quincy: float | None = None
    write_op_quincy: float | None = None
    read_byte_quincy: float | None = None
    write_byte_quincy: float | None = None
    rgw_read_op: float | None = None
    rgw_write_op: float | None = None
    rgw_read_byte: float | None = None
    rgw_write_byte: float | None = None

    def _modern(self, name: str, family: str) -> float | None:
        """name_<family>, else the nearest BlueStore-era family's (newer first on a tie); per-byte costs last
        fall back to the 2014-2017 shared ones."""
        i = MODERN_FAMILIES.index(family)
        order = sorted(range(len(MODERN_FAMILIES)), key=lambda j: (abs(j - i), -j))
        for j in order:
            v = getattr(self, f"{name}_{MODERN_FAMILIES[j]}")
            if v is not None:
                return float(v)
        if name.endswith("_byte"):  # last resort: the 2014-2017 studies' shared per-byte cost
            legacy = getattr(self, name)
            return None if legacy is None else float(legacy)
        return None

    def op(self, write: bool, family: str) -> float | None:
        """Cycles per OSD operation; family: filestore, bluestore (Jewel era) or a BlueStore-era family."""
        direction = "write" if write else "read"
        if family in MODERN_FAMILIES:
            return self._modern(f"{direction}_op", family)
        return getattr(self, f"{direction}_op_{family}")  # type: ignore[no-any-return]

    def byte(self, write: bool, family: str = "filestore") -> float | None:
        direction = "write" if write else "read"
        if family in MODERN_FAMILIES:
            return self._modern(f"{direction}_byte", family)
        return self.write_byte if write else self.read_byte

    def rgw(self, write: bool) -> tuple[float, float] | None:
        """(cycles per request, per relayed byte) of an RGW daemon; None when not calibrated."""
        op, per_byte = (
            (self.rgw_write_op, self.rgw_write_byte) if write else (self.rgw_read_op, self.rgw_read_byte)
        )
        return None if op is None or per_byte is None else (op, per_byte)


@dataclass(frozen=True)
class Constants:
    """The calibrated constants of the model (network efficiency, message overhead, CPU costs) and the fixed,
    sourced ones of the BlueStore era (cores one OSD can use, the per-node small-op ceiling, RGW round trips)."""

    net_efficiency: float  # share of line rate that carries payload at saturation (pooled over link classes)
    message_overhead_bytes: float  # protocol bytes per message on top of its payload
    cpu: CpuCosts = field(default_factory=CpuCosts)
    # constants fitted only from results limited by another resource: upper bounds on a cost, so the
    # ceiling they give is a lower bound
    bounds: tuple[str, ...] = ()
    net_by_class: dict[str, float] = field(default_factory=dict)  # link class -> efficiency
    # link class -> efficiency of the storage nodes' ports under large replicated/EC writes (incast of client
    # data and replica copies); a class no write result calibrates uses its read efficiency
    net_write_by_class: dict[str, float] = field(default_factory=dict)
    osd_max_cores: float | None = None  # cores one OSD can keep busy (None: no limit)
    node_op_ceiling: float | None = None  # OSD operations per second one node's OSDs dispatch at most
    rgw_put_round_trips: float = 1.0  # RGW requests to the primary OSD per PUT (data + bucket index)
    # measured / predicted ratio range per resource class that the validation supports (class -> (lo, hi))
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)

    def efficiency(self, link: str, write_share: float = 0.0) -> float:
        """Payload share of line rate on a link class; write_share: the share of the traffic that is writes
        (the storage nodes' ports under writes reach their own efficiency where one is calibrated)."""
        read = self.net_by_class.get(link, self.net_efficiency)
        write = self.net_write_by_class.get(link, read)
        return (1 - write_share) * read + write_share * write


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
    read_ops: float = 0.0  # of osd_ops, the reads (an erasure-coded sub-stripe write reads first)
    # messages the OSDs handle (each one sent or received by an OSD counts once): the client's request and
    # reply at the primary, and 4 per operation the primary sends to another OSD (sub-op and its reply,
    # each sent by one OSD and received by another)
    osd_messages: float = 2.0
    gateway_requests: float = 0.0  # RGW requests (co-located gateways: their CPU is the nodes')
    gateway_bytes: float = 0.0  # client bytes an RGW relays
    rollback_clones: float = 0.0  # EC overwrites: the old extent cloned on every shard written (CPU only)

    @property
    def osd_bytes(self) -> float:
        """Bytes the OSDs move: from/to media and through their network ports."""
        return self.media_bytes + self.public_in + self.public_out + self.cluster_in + self.cluster_out


MESSAGES_PER_READ = 2.0  # a replicated read: the client's request in and the reply out, at the primary
FAST_EC_STRIPE_UNIT = 16384  # with fast EC the compiler sets 16 KiB (compile/derive.py ec_stripe_unit)


def stripe_unit(c: Cluster) -> int:
    """The EC pool's bytes per data chunk: 16 KiB with fast EC (as compiled), else the 4 KiB default."""
    return FAST_EC_STRIPE_UNIT if c.fast_ec else SMALL_READ_BYTES


def touched_shards(c: Cluster, size: float) -> int:
    """Data shards a read of `size` bytes (less than a stripe) lies on: its stripe units, at most k. The read is
    taken as aligned to its own size, so one of a unit or less lies on one shard; one of several units may
    cross into the next stripe (stripes_spanned) and still lies on that many distinct shards."""
    return min(c.protection.k, max(1, math.ceil(size / stripe_unit(c))))


def stripes_spanned(c: Cluster, size: float) -> float:
    """Stripes a sub-stripe I/O of `size` bytes covers, averaged over every offset aligned to its size: 1 where
    the size divides the stripe width (4 KiB on 4 KiB units always; 16 KiB on k = 4 or 8), more where it does
    not (16 KiB on 4 KiB units of k = 6: at 0, 16 and 32 KiB of a 48 KiB period, the middle one crosses a
    stripe boundary: 4/3). Without fast EC a shard reads whole stripes' units: ECUtilL.h/ECUtil.h
    stripe_info_t::offset_len_to_stripe_bounds and chunk_aligned_offset_len_to_chunk, used by ECCommonL.cc
    ReadPipeline::do_read_op for every shard read (and the Squid ECBackend.cc/ECCommon.cc), and by
    ECTransactionL.h get_write_plan for the head and tail stripes of a write."""
    width = c.protection.k * stripe_unit(c)
    block = int(size)
    if block <= 0 or block >= width:
        return 1.0
    positions = width // math.gcd(block, width)
    return sum(((j * block) % width + block - 1) // width + 1 for j in range(positions)) / positions


def _shard_groups(c: Cluster, write: bool, size: float) -> list[tuple[float, float, bool, float]]:
    """One client I/O's OSD operations in groups: (operations, bytes each, whether they write, the chance that
    one of them is on the primary's own shard).

    Replicas and whole EC stripes always include the primary's copy or shard. An EC group of d data shards of
    the k (parities are never on the primary, which holds shard 0, a data shard) includes it d/k of the time:
    a sub-stripe I/O lands on any of the stripe's data shards alike."""
    p = c.protection
    if p.kind == "erasure":
        unit = stripe_unit(c)
        if size >= p.k * unit:  # whole stripes: every data chunk (and parity on writes)
            return [(p.k + p.m, size / p.k, True, 1.0)] if write else [(p.k, size / p.k, False, 1.0)]
        if c.fast_ec:  # the bytes asked from the shards they lie on
            n = touched_shards(c, size)
            if not write:
                return [(n, size / n, False, n / p.k)]
            # ECTransaction.cc WritePlanObj: the n data shards and m parities are written; it reads either those
            # n + m (a parity-delta write) or the k - n data shards not written (conventional), a parity delta
            # only when it reads fewer shards (2+2: 1 read + 3 writes; 4+2 and wider: 3 + 3 for one stripe unit)
            written = (n + p.m, size / n, True, n / p.k)
            if p.k - n <= n + p.m:  # conventional: the other data shards
                reads = p.k - n
                return [(reads, size / n, False, reads / p.k), written] if reads else [written]
            return [(n + p.m, size / n, False, n / p.k), written]
        # without fast EC a shard reads and writes a stripe unit for every stripe the I/O covers
        spans = unit * stripes_spanned(c, size)
        if write:  # a sub-stripe write reads the stripe and writes it back (ECTransactionL.h get_write_plan)
            return [(p.k, spans, False, 1.0), (p.k + p.m, spans, True, 1.0)]
        # Tentacle's osd_ec_partial_reads: the touched shards (ECCommonL.cc
        # ReadPipeline::objects_read_and_reconstruct); up to Squid every data shard of the stripe
        n = touched_shards(c, size) if c.ec_partial_reads else p.k
        return [(n, spans, False, n / p.k)]
    copies = p.size if (write and p.kind == "replicated") else 1
    return [(copies, size, write, 1.0)]


def _media_ops(c: Cluster, write: bool, size: float) -> list[tuple[float, float, bool]]:
    """(number of OSD operations, bytes each, whether they write) one client I/O of `size` bytes causes."""
    return [(n, b, w) for n, b, w, _ in _shard_groups(c, write, size)]


def _deferred_writes(
    c: Cluster, ops: list[tuple[float, float, bool]], drive_type: str
) -> list[tuple[float, float, bool]]:
    """BlueStore with its WAL on the data drive: a write BlueStore defers (smaller than the drive class's
    limit, cluster.py) goes through the WAL first and in place later, so it lands c.deferred_writes times on
    a drive of that type (media only: one OSD operation for the CPU)."""
    below = c.deferred_below_hdd if drive_type == "hdd" else c.deferred_below
    return [(c.deferred_writes * n if w and b < below else n, b, w) for n, b, w in ops]


def primary_metadata_writes(c: Cluster, size: float) -> float:
    """OSD operations per client write that write only metadata: the primary's transaction when none of the
    write's data lands on its own shard. Every write writes the primary's shard: a replicated or whole-stripe
    write and a read-modify-write of the stripe always carry its data; a fast EC sub-stripe write that lies on
    other data shards still writes shard 0 (the primary's) with the object info and the log entry
    (ECTransaction.cc Generate: "All primary shards must always be written" marks shard 0 and the parities
    written unless the size changes, when all are; attr_updates sets every attribute on those shards and only
    the object info on the data shards written; ECCommon.cc RMWPipeline::cache_ready skips a shard only when
    its transaction is empty and applies the primary's own with handle_sub_write, no message). So the CPU
    counts one write operation on the primary for every write, with the data or without: 1 - d/k of a fast
    EC write of d data shards, the chance that shard 0 is not among them. No media term: the transaction has
    no data to write, only its RocksDB commit, which BlueStore's kv_sync_thread syncs with the others of its
    batch in one WAL write, as it does every data write's commit, which the model counts in no operation."""
    held = [h for _, _, w, h in _shard_groups(c, True, size) if w]
    return max(0.0, 1.0 - max(held, default=1.0))


def _remote_ops(c: Cluster, write: bool, size: float) -> float:
    """Of one client I/O's OSD operations, those on other OSDs than the primary (sub-ops): each group's
    operations less the one on the primary's own shard, where the group has it (_shard_groups). A read of one
    data shard of k is remote (k-1)/k of the time. The primary's sub-read of its own shard is a message to
    itself: ECCommonL.cc (Tentacle's legacy backend) and ECCommon.cc (fast EC, main) ReadPipeline::do_read_op
    send an MOSDECSubOpRead to every shard read (main reads its own directly only in a Crimson build; a 2025
    ECCommon.cc did so always, via handle_sub_read_n_reply), and OSD.cc OSDService::send_message_osd_cluster
    sends a message to its own OSD through the messenger's loopback connection: either way it reaches no wire
    and is not counted here."""
    return sum(n - held for n, _, _, held in _shard_groups(c, write, size))


def _relay(c: Cluster, write: bool, size: float) -> float:
    """Bytes between OSDs (the cluster network) per client I/O: replica copies, EC chunks: what the primary
    sends to, and gathers from, the copies and shards on other OSDs."""
    return sum((n - held) * b for n, b, _, held in _shard_groups(c, write, size))


def relay_wire_share(c: Cluster) -> float:
    """The share of the bytes between OSDs (replica copies, EC chunks) that crosses the nodes' ports.

    A placement group wider than the cluster has nodes (size, or k+m) cannot put each copy or chunk on its
    own node, so its failure domain is the OSD and its members land on any node: (n-1)/n of the transfers
    are between nodes, none on a single node. Otherwise (failure domain host) every member sits on another
    node than the primary's."""
    p = c.protection
    width = p.k + p.m if p.kind == "erasure" else (p.size if p.kind == "replicated" else 1)
    if width <= c.nodes:
        return 1.0
    return (c.nodes - 1) / c.nodes


def _front(c: Cluster, case_rgw: bool, write: bool, size: float) -> tuple[float, float, float]:
    """(bytes into, bytes out of the storage nodes' public ports, bytes on client ports) per client I/O.

    A transfer between two daemons of one node stays off the wire: with clients (or gateways) spread over
    n storage nodes, (n-1)/n of them cross it."""
    remote = (c.nodes - 1) / c.nodes if c.nodes > 1 else 0.0
    hops = [remote if c.colocated_clients else None]  # client <-> first daemon (None: an outside client)
    if case_rgw and c.colocated_gateways:
        hops.append(remote)  # gateway <-> primary OSD
    into = out = 0.0
    for h in hops:
        if h is None:  # an outside client: only the node side of the hop is on storage ports
            into, out = (into + size, out) if write else (into, out + size)
        else:
            into, out = into + h * size, out + h * size
    client = 0.0 if c.colocated_clients else size
    return into, out, client


def demand(c: Cluster, write: bool, size: float, interface: str = "rbd", round_trips: float = 1.0) -> Demand:
    """One client I/O's demand; interface rgw goes through co-located gateways where the cluster has them,
    and a PUT then makes `round_trips` requests to the primary (the data and the bucket index updates)."""
    p = c.protection
    ops = _media_ops(c, write, size)
    n_ops = sum(n for n, _, _ in ops)  # OSD operations (the CPU's per-op term)
    # an EC read is the client's op at the primary plus a sub-read on every shard it reads, the primary's own
    # shard included (sent to itself: ECCommonL.cc ReadPipeline::do_read_op), so one OSD op more than shards
    client_op = 1.0 if p.kind == "erasure" and not write else 0.0
    n_ops += client_op
    if p.raid:  # a RAID k+m LUN moves (k+m)/k of the data: parity written, parity chunks skipped on reads
        ops = [(n * (p.raid[0] + p.raid[1]) / p.raid[0], b, w) for n, b, w in ops]
        n_ops = sum(n for n, _, _ in ops)
    if write:  # the primary's own transaction where no data of the write lands on its shard (fast EC)
        n_ops += primary_metadata_writes(c, size)
    if write and c.media_writes != 1:  # FileStore: journal write + file-system write on the same drive
        ops = [(c.media_writes * n if w else n, b, w) for n, b, w in ops]
    # each drive group with the deferral of its own class (hard disks defer more); the media bytes are the
    # groups' mean weighted by drive count (a node of one drive class: that class's bytes)
    by_group = [(g, _deferred_writes(c, ops, g.type)) for g in c.drives]
    group_bytes = [(g.count, sum(n * b for n, b, _ in g_ops)) for g, g_ops in by_group]
    if len({b for _, b in group_bytes}) == 1:
        media_bytes = group_bytes[0][1]
    elif group_bytes:
        media_bytes = sum(k * b for k, b in group_bytes) / sum(k for k, _ in group_bytes)
    else:
        media_bytes = sum(n * b for n, b, _ in _deferred_writes(c, ops, ""))
    slowest = max(
        (sum(n * g.op_seconds(w, b) for n, b, w in g_ops) for g, g_ops in by_group),
        default=0.0,
    )
    read_ops = sum(n for n, _, w in ops if not w) + client_op
    messages = 2 + 4 * _remote_ops(c, write, size)
    rgw = interface == "rgw" and c.colocated_gateways > 0
    requests = 0.0
    clones = 0.0
    # an RGW PUT stores new RADOS objects (each upload its own head and tail objects), so no old extent is
    # there to clone; RBD and CephFS benchmarks overwrite pre-filled objects
    if write and p.kind == "erasure" and c.objectstore == "bluestore" and interface != "rgw":
        clones = sum(n for n, _, w in _media_ops(c, write, size) if w)
    if rgw:
        requests = 1.0
        if write:  # the bucket index: the other round trips to the primary, each replicated (3 copies)
            extra = 3 * max(round_trips - 1, 0)
            n_ops += extra
            messages += max(round_trips - 1, 0) * (2 + 4 * 2)
    into, out, client = _front(c, interface == "rgw", write, size)
    relay = _relay(c, write, size)
    return Demand(
        osd_ops=n_ops,
        drive_seconds=slowest,
        media_bytes=media_bytes,
        client_bytes=client,
        public_in=into,
        public_out=out,
        cluster_in=relay,
        cluster_out=relay,
        read_ops=read_ops,
        osd_messages=messages,
        gateway_requests=requests,
        gateway_bytes=size if rgw else 0.0,
        rollback_clones=clones,
    )


def _per_io(case: Case, fn: object) -> float:
    """Mix a per-direction quantity by the case's read share."""
    assert callable(fn)
    r = case.read_fraction
    return (r * float(fn(False)) if r > 0 else 0.0) + ((1 - r) * float(fn(True)) if r < 1 else 0.0)


def _wire(nbytes: float, msgs: float, k: Constants) -> float:
    return nbytes + msgs * k.message_overhead_bytes if nbytes > 0 else 0.0


def _bps(gbps: float, k: Constants, link: str = "", write_share: float = 0.0) -> float:
    return gbps * 1e9 / 8 * (k.efficiency(link, write_share) if link else k.net_efficiency)


def usable_cores(c: Cluster, k: Constants) -> float:
    """Cores per node the OSDs can keep busy: all of them, or osd_max_cores per OSD where that is fewer, or
    the CPU limit the set-up puts on each OSD (osd_cpu_cores: containers) where that is fewer still."""
    cores = float(c.sockets * c.cores)
    if k.osd_max_cores:
        cores = min(cores, c.osds_per_node * k.osd_max_cores)
    if c.osd_cpu_cores:
        cores = min(cores, c.osds_per_node * c.osd_cpu_cores)
    return cores


def cpu_cycles(
    c: Cluster, case: Case, costs: CpuCosts, demands: dict[bool, Demand] | None = None
) -> float | None:
    """OSD (and co-located RGW) cycles one client I/O costs; None when a needed constant is unknown or the
    software is not Ceph. demands: demand() per direction (write) for this cluster and case, where the
    caller has them already."""
    if c.software != "ceph":
        return None
    family = c.family
    total = 0.0
    for write, share in ((False, case.read_fraction), (True, 1 - case.read_fraction)):
        if share <= 0:
            continue
        d = demands[write] if demands is not None else demand(c, write, case.block_size, case.interface)
        per_byte = costs.byte(write, family)
        op_write = costs.op(True, family) if write and d.osd_ops > d.read_ops else 0.0
        op_read = costs.op(False, family) if d.read_ops else 0.0
        if per_byte is None or op_write is None or op_read is None:
            return None
        cycles = (d.osd_ops - d.read_ops + d.rollback_clones) * op_write + d.read_ops * op_read
        cycles += d.osd_bytes * per_byte
        if d.gateway_requests:
            rgw = costs.rgw(write)
            if rgw is None:
                return None
            cycles += d.gateway_requests * rgw[0] + d.gateway_bytes * rgw[1]
        total += share * cycles
    return total


def ceilings(c: Cluster, case: Case, k: Constants) -> dict[str, float | None]:
    """Client IOPS at which each resource would be fully busy (None: not modelled or not used)."""
    b = case.block_size
    d = {w: demand(c, w, b, case.interface, k.rgw_put_round_trips) for w in (False, True)}

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
    client_side = []
    if not c.colocated_clients:
        client_link = link_class(c.client_gbps) if c.client_gbps else c.link
        if c.client_gbps:
            client_side.append(c.clients * _bps(c.client_gbps, k, client_link) / client_wire)
        if c.client_network_gbps:
            client_side.append(_bps(c.client_network_gbps, k, client_link) / client_wire)
    if c.gateways:
        client_side.append(c.gateways * _bps(c.gateway_gbps, k) / client_wire)
    out["client network"] = min(client_side) if client_side else None
    ops = mix(lambda x: x.osd_ops)
    pub_in, pub_out = mix(lambda x: x.public_in), mix(lambda x: x.public_out)
    # the wire carries the inter-node share of the OSDs' transfers; the CPU (cpu_cycles) counts them all
    # (a transfer between two OSDs of one node still goes through both messengers)
    wire = relay_wire_share(c)
    cl_in, cl_out = wire * mix(lambda x: x.cluster_in), wire * mix(lambda x: x.cluster_out)
    relay_msgs = wire * max(ops - 1, 0)
    net = c.link
    ws = 1 - case.read_fraction  # the storage ports' write share
    if c.cluster_gbps > 0:
        pub = max(_wire(pub_in, 1, k), _wire(pub_out, 1, k))
        out["public network"] = c.nodes * _bps(c.public_gbps, k, net, ws) / pub if pub else None
        cl = max(_wire(cl_in, relay_msgs, k), _wire(cl_out, relay_msgs, k))
        out["cluster network"] = c.nodes * _bps(c.cluster_gbps, k, net, ws) / cl if cl else None
    else:  # one set of ports carries both: the busier direction decides
        both = max(
            _wire(pub_in, 1, k) + _wire(cl_in, relay_msgs, k),
            _wire(pub_out, 1, k) + _wire(cl_out, relay_msgs, k),
        )
        out["public network"] = c.nodes * _bps(c.public_gbps, k, net, ws) / both if both else None
        out["cluster network"] = None
    cycles = cpu_cycles(c, case, k.cpu, d)
    out["cpu"] = c.nodes * usable_cores(c, k) * c.ghz * 1e9 / cycles if cycles else None
    # the per-node wall is stated in replicated 4K reads per node (2 messages each at the primary); it is a
    # limit on the messages the OSDs handle, so an I/O costs it its messages over 2 read-equivalents
    modern = c.software == "ceph" and c.family in MODERN_FAMILIES
    msgs = mix(lambda x: x.osd_messages) / MESSAGES_PER_READ
    out["osd node"] = c.nodes * k.node_op_ceiling / msgs if (modern and k.node_op_ceiling and msgs) else None
    return out


@dataclass(frozen=True)
class Envelope:
    """One case's result: the client IOPS ceiling of every resource and which of them limits."""

    case: Case
    ceilings: dict[str, float | None]  # client IOPS per resource
    limit: tuple[str, ...]  # the resource(s) with the smallest ceiling (ties within 1 %, then co-limits)
    iops: float

    @property
    def mb_s(self) -> float:
        """The predicted ceiling in MB/s (10^6 bytes per second)."""
        return self.iops * self.case.block_size / 1e6

    @property
    def bottleneck(self) -> str:
        """The limiting resources: equal ones joined by ' = ', co-limits (within CO_LIMIT) by ' ~ '."""
        tied = [r for r in self.limit if _within(self.ceilings[r], self.iops, TIE)]
        rest = [r for r in self.limit if r not in tied]
        return " ~ ".join([" = ".join(tied), *rest]) if tied else " ~ ".join(rest)

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


def _within(value: float | None, low: float, band: float) -> bool:
    return value is not None and math.isfinite(value) and value <= low * (1 + band)


def envelope(c: Cluster, case: Case, k: Constants) -> Envelope:
    ceil = ceilings(c, case, k)
    known = {r: v for r, v in ceil.items() if v is not None and math.isfinite(v)}
    if not known:
        return Envelope(case, ceil, (), math.inf)
    low = min(known.values())
    tied = [r for r in RESOURCES if _within(ceil.get(r), low, TIE)]
    near = sorted(
        (r for r in RESOURCES if r not in tied and _within(ceil.get(r), low, CO_LIMIT)), key=known.__getitem__
    )
    return Envelope(case, ceil, (*tied, *near), low)


def with_protection(c: Cluster, p: Protection) -> Cluster:
    return replace(c, protection=p)


# The four cases every bundle gets a ceiling for.
STANDARD_CASES = (
    Case("4k randread", 4096, 1.0),
    Case("4k randwrite", 4096, 0.0),
    Case("seq read", 1 << 20, 1.0, sequential=True),
    Case("seq write", 1 << 20, 0.0, sequential=True),
)

"""The compiler's shared types: its inputs (CompileRequest, Hardware), the values it derives (Derived) and its
result (Setting, Bundle).

This module sits at the bottom floor of the compiler: the pipeline, the derivations, validate and every emitter
import these types from here, and it imports nothing of flashtune but the release defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashtune.releases import DEFAULT_CEPH_RELEASE, DEFAULT_MYSQL_FLAVOUR

GiB = 1 << 30


@dataclass(frozen=True)
class Derived:
    """A derived value with the one-sentence reason naming its inputs and any cap that applied."""

    value: Any
    reason: str
    inputs: dict[str, Any] = field(default_factory=dict)
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class DeviceGroup:
    """A group of identical devices in a storage node (data devices or block.db devices)."""

    count: int
    type: str  # hdd | sata-ssd | nvme
    size_gb: float
    model: str = ""
    # Data-sheet figures per drive (optional; the performance envelope reads them, None = not given)
    read_iops: float | None = None
    write_iops: float | None = None
    read_mb_s: float | None = None
    write_mb_s: float | None = None


@dataclass(frozen=True)
class Nic:
    """A group of identical network ports on a node; `role` says which Ceph network they carry."""

    count: int
    speed_gbps: float
    role: str = "both"  # public | cluster | both


@dataclass(frozen=True)
class MediaLink:
    """Per node: the HBA / enclosure limit of the path to the media (None = no limit stated)."""

    read_mb_s: float | None = None
    write_mb_s: float | None = None
    read_iops: float | None = None


@dataclass(frozen=True)
class Protection:
    """How the cluster keeps data: `replicated` (size copies), `erasure` (k+m chunks) or `none` (Lustre OSTs).
    `raid` is a RAID k+m inside the media (a LUN of k+m drives): it costs media time, no network."""

    kind: str = "replicated"
    size: int = 3
    k: int = 0
    m: int = 0
    raid: tuple[int, int] | None = None

    def label(self) -> str:
        base = {
            "replicated": f"{self.size} replica{'' if self.size == 1 else 's'}",
            "erasure": f"EC {self.k}+{self.m}",
            "none": "no replication",
        }
        text = base.get(self.kind, self.kind)
        return text + (f" (RAID {self.raid[0]}+{self.raid[1]} LUNs)" if self.raid else "")


@dataclass(frozen=True)
class Hardware:
    """One OSD node (all nodes alike) and the cluster shape's defaults, from data/tiers/ or the user's file."""

    name: str
    source: str
    cores: int  # per socket, as the data package's cpu_cores_per_socket (node_cores counts all sockets)
    ram_gib: float
    nics: tuple[Nic, ...]
    data_devices: tuple[DeviceGroup, ...]
    db_devices: tuple[DeviceGroup, ...]
    sockets: int = 1
    # cluster shape defaults (the CLI's --nodes/--clients override them)
    nodes: int = 3
    clients: int = 1
    client_ram_gib: float = 32.0
    client_vcpus: int = 8  # logical processors of a client node / the database host (sizes MySQL 8.4's redo)
    # the node's daemon layout (data/layout.yaml's defaults, overridden per tier or hardware file)
    layout: dict[str, Any] = field(default_factory=dict)
    tier: bool = False  # a shipped tier (data/tiers/), not the user's own file
    # Performance facts, all optional; only the performance envelope reads them (flashtune/hardware.py)
    cpu_ghz: float | None = None  # base clock
    media_link: MediaLink = field(default_factory=MediaLink)
    client_nic_gbps: float | None = None  # per client node
    gateways: int = 0  # object gateways between clients and OSDs (RGW)
    gateway_gbps: float = 0.0
    protection: Protection | None = None  # None: the file does not say
    software: str = "ceph"  # ceph | lustre
    objectstore: str | None = None  # bluestore | filestore; None: the file does not say
    release: str | None = None  # the Ceph release the OSDs run (selects the envelope's cost family)
    cpu_ghz_run: float | None = None  # the clock the cores really run at under load (None: cpu_ghz)
    osds_per_device: int = 1  # OSD daemons per data device
    osd_cpu_cores: float | None = None  # cores each OSD may use (a container CPU limit); None: no limit
    colocated_clients: bool = False  # the benchmark clients run on the storage nodes (shared NICs, cores)
    colocated_gateways: int = 0  # RGW daemons per storage node
    client_network_gbps: float | None = None  # all clients together: an uplink between them and the nodes
    ec_optimizations: bool = False  # fast EC (Tentacle's allow_ec_optimizations) on the pool
    mds_daemons: int | None = None  # MDS daemons of the scratch file system (None: layout.yaml's default)

    @property
    def node_cores(self) -> int:
        return self.cores * self.sockets

    @property
    def nic_gbps(self) -> float:
        """The fastest single port."""
        return max(n.speed_gbps for n in self.nics)

    @property
    def flash_beside_hdd(self) -> str | None:
        """The flash type of data devices on nodes whose main data devices are HDDs (None when there are none)."""
        if self.data_type != "hdd":
            return None
        flash = [g for g in self.data_devices if g.type != "hdd"]
        return max(flash, key=lambda g: g.count).type if flash else None

    @property
    def data_type(self) -> str:
        """The data devices' type (the largest group when mixed)."""
        if not self.data_devices:
            return "hdd"
        return max(self.data_devices, key=lambda g: g.count).type


@dataclass(frozen=True)
class ECProfile:
    """An erasure-code profile as `ceph osd erasure-code-profile set` takes it."""

    k: int
    m: int
    plugin: str
    technique: str
    failure_domain: str = "host"
    name: str = ""
    stripe_unit: int = 0  # bytes per data chunk (0: the cluster's osd_pool_erasure_code_stripe_unit)
    device_class: str = ""  # CRUSH device class the pool's chunks are placed on ("": every OSD)

    def as_profile(self) -> str:
        cls = f" crush-device-class={self.device_class}" if self.device_class else ""
        return (
            f"k={self.k} m={self.m} plugin={self.plugin} technique={self.technique} "
            f"crush-failure-domain={self.failure_domain}{cls}"
        )

    @property
    def profile_name(self) -> str:
        cls = f"-{self.device_class}" if self.device_class else ""
        return self.name or f"flashtune-{self.plugin}-{self.k}-{self.m}{cls}"

    def set_command(self) -> str:
        """The command that creates this profile on a running cluster (it fails rather than change an
        existing profile of the same name, which pools may already use)."""
        unit = f" stripe_unit={self.stripe_unit}" if self.stripe_unit else ""
        return f"ceph osd erasure-code-profile set {self.profile_name} {self.as_profile()}{unit}"


@dataclass(frozen=True)
class Choice:
    """One option the compiler chose for a command line (mkfs, mount, rbd map), and why."""

    option: str
    why: str


@dataclass(frozen=True)
class OltpPlan:
    """The application-level run of the mysql workload (bench/sysbench-oltp.sh): sysbench OLTP against the
    compiled my.cnf, on a file system on an RBD image in the compiled pool."""

    flavour: str
    server: str  # the server program (mariadbd, mysqld)
    client: str
    admin: str
    install: tuple[str, ...]  # the command that initialises a datadir, options after --defaults-file
    pool: str  # with an EC data pool, pools.sh made it the pool's rbd_default_data_pool
    image: str
    image_gib: int
    tables: int
    table_size: int
    tests: tuple[str, ...]
    threads: tuple[int, ...]
    iterations: int
    time: int
    warmup_time: int
    report_interval: int
    map_method: str  # krbd | nbd | fuse (the default; the script takes the others)
    map_options: tuple[Choice, ...]
    fs: str
    mkfs: dict[str, tuple[Choice, ...]]  # by file system
    mount: dict[str, tuple[Choice, ...]]
    server_overrides: dict[str, int]  # my.cnf sizes the scale replaces (smoke); empty at full scale
    scale: str
    sizing: Derived
    case_notes: dict[str, str]  # case -> what it answers and what it proves


@dataclass(frozen=True)
class CompileRequest:
    """What the user asked compile-config for: tier or hardware file, workload, release, flavour and options."""

    workload: str
    tier: str | None = "iops"
    hardware_file: str | Path | None = None  # a file name as given (str or Path)
    ceph_release: str = DEFAULT_CEPH_RELEASE
    mysql_flavour: str = DEFAULT_MYSQL_FLAVOUR
    allow_unsafe: frozenset[str] = frozenset()
    nodes: int | None = None
    clients: int | None = None
    replication: int | None = None
    ec: tuple[int, int] | None = None
    db_ram_gib: float | None = None  # RAM of the database host, its own machine (sizes my.cnf)
    db_vcpus: int | None = None  # logical processors of the database host (MySQL 8.4 sizes redo from them)
    osds_per_device: int | None = None  # OSDs per data device (default: derived from cores and drives)
    encrypted: bool = False  # cephadm/Rook OSDs on dm-crypt
    db_bind_address: str = (
        "127.0.0.1"  # where the database listens (my.cnf bind_address); never all interfaces
    )
    benchmarks: bool = True  # CBT plans (a fleet's host groups skip them: the fleet writes none)
    bench_scale: str = "full"  # CBT plan sizes and durations: full, or smoke (data/cbt/schema.yaml scales)
    cephfs_client: str = (
        "kernel"  # scratch plans mount with: kernel or fuse (data/cbt/schema.yaml cephfs_clients)
    )

    def echo(self) -> dict[str, Any]:
        """The inputs as the file headers and manifest echo them (unset ones left out)."""
        out: dict[str, Any] = {
            "tier": self.tier if self.hardware_file is None else None,
            "hardware": str(self.hardware_file) if self.hardware_file else None,
            "workload": self.workload,
            "ceph_release": self.ceph_release,
            "mysql_flavour": self.mysql_flavour if self.workload == "mysql" else None,
            "nodes": self.nodes,
            "clients": self.clients,
            "replication": self.replication,
            "ec": f"{self.ec[0]}+{self.ec[1]}" if self.ec else None,
            "db_ram_gib": self.db_ram_gib,
            "db_vcpus": self.db_vcpus,
            "osds_per_device": self.osds_per_device,
            "encrypted": True if self.encrypted else None,
            "db_bind_address": self.db_bind_address if self.workload == "mysql" else None,
            "allow_unsafe": ",".join(sorted(self.allow_unsafe)) or None,
            "bench_scale": self.bench_scale if self.bench_scale != "full" else None,
            "cephfs_client": self.cephfs_client if self.cephfs_client != "kernel" else None,
        }
        return {k: v for k, v in out.items() if v is not None}


@dataclass(frozen=True)
class Setting:
    """A value destined for one output file, and why it has that value."""

    file: str  # the output format's kind (see flashtune.compile.formats): ceph.conf | sysctl.conf | my.cnf | ...
    section: str  # ceph.conf section, my.cnf group; "" where the format has none
    key: str
    value: Any
    rule: str  # the profile layer or derivation that produced the value
    rationale: str = ""  # what the knob does (the catalog's text)
    why: str = ""  # why this value here (the profile's why: or the derivation's reason)
    evidence: tuple[str, ...] = ()
    safety: str = "safe"
    unsafe_opt_in: bool = False  # emitted only because the user passed --allow-unsafe
    notes: tuple[str, ...] = field(default_factory=tuple)
    inputs: dict[str, Any] = field(default_factory=dict)  # the derivation's inputs, echoed in the manifest
    release_facts: tuple[str, ...] = ()  # what the catalog says about this key in the target release


# Daemon types a config-database `who` can name (Ceph's entity types; src/mon/ConfigMap.cc parse_mask).
DAEMON_TYPES = ("global", "mon", "mgr", "osd", "mds", "client")


@dataclass(frozen=True)
class CentralValue:
    """One `ceph config set WHO[/MASK] KEY VALUE`."""

    who: str  # global | mon | osd | mds | client | client.rgw | osd.3 ...
    mask: str  # "" | class:nvme | host:node7
    key: str
    value: str  # as it is handed to Ceph
    type: str | None = None  # the option's Ceph type (for comparing values)
    note: str = ""  # e.g. "takes effect at the next restart"
    why: str = ""  # the rationale the compiler gave

    @property
    def target(self) -> str:
        return f"{self.who}/{self.mask}" if self.mask else self.who

    @property
    def daemon(self) -> str:
        return self.who.split(".", 1)[0]


@dataclass(frozen=True)
class LocalValue:
    """A key that only works from the local ceph.conf, and why."""

    section: str
    key: str
    value: str
    why: str


@dataclass
class CentralConfig:
    """The compiled Ceph settings split into config-database values and keys that stay in ceph.conf."""

    values: list[CentralValue] = field(default_factory=list)
    local: list[LocalValue] = field(default_factory=list)

    def by_target(self) -> dict[tuple[str, str], CentralValue]:
        return {(v.target, v.key): v for v in self.values}


# Cluster shape: what derivations read (hardware, nodes, OSDs, protection, pools, memory budget), filled by
# flashtune.compile.pipeline.cluster_shape. A plain mapping so profiles can name any of it by key.
Shape = dict[str, Any]

# Facts of the shape that explain.md and manifest.json show, in this order. (Not the shape's pg_num: that is
# the benchmark pool's, sized for one pool; the pools pools.sh makes have their own, in the pools table, and
# two numbers for one pool's PG count left readers guessing which one holds.)
SHAPE_FACTS = (
    "nodes",
    "clients",
    "osds_per_device",
    "osds_per_node",
    "osds",
    "protection",
    "protection_reason",
    "pool_size",
    "pool_min_size",
    "osd_memory_target",
    "db_ram_gib",
    "db_vcpus",
    "device_type",
    "mds_daemons",
    "max_mds",
)


@dataclass
class Bundle:
    """Everything one compile produced: settings with provenance, the files, and what was left out and why."""

    request: CompileRequest
    hardware: Hardware
    settings: list[Setting]
    files: dict[str, str] = field(default_factory=dict)  # output path -> text
    kinds: dict[str, str] = field(default_factory=dict)  # output path -> its format's kind
    plans: dict[str, dict[str, Any]] = field(default_factory=dict)  # CBT documents by output path
    layers: list[str] = field(default_factory=list)
    shape: Shape = field(default_factory=dict)
    derived: dict[str, Derived] = field(default_factory=dict)  # cluster-shape values (not file keys)
    omitted: list[dict[str, Any]] = field(default_factory=list)  # dropped settings and why
    differences: list[dict[str, Any]] = field(default_factory=list)  # legacy mode vs the seed
    cases: list[str] = field(default_factory=list)  # benchmark cases the CBT files run
    case_notes: dict[str, str] = field(
        default_factory=dict
    )  # case -> the question it answers, what it proves
    warnings: list[str] = field(default_factory=list)  # sizing concerns that did not stop the compile
    lint: dict[str, list[str]] = field(default_factory=dict)  # linter findings per emitted file
    legacy: bool = False
    envelope: dict[str, Any] = field(default_factory=dict)  # predicted ceilings (flashtune.envelope.bundle)
    # the ceph.conf settings split for the monitors' config database (flashtune.compile.deploy.central_config):
    # made when the first output that shows it is rendered, after which the settings no longer change
    central: CentralConfig | None = None
    oltp: OltpPlan | None = None  # the mysql workload's sysbench OLTP run (compile/oltp.py)

    def memory_budget(self) -> list[tuple[str, float]]:
        """The busiest OSD node's memory, item by item (GiB): OSDs, each other daemon, the OS reserve."""
        sh = self.shape
        if self.legacy or "osd_memory_target" not in sh:  # the 2017 FileStore setup sets no memory target
            return []
        rows = [
            (
                f"{sh['osds_per_node']} OSDs x osd_memory_target {sh['osd_memory_target'] / GiB:.2f}",
                sh["osds_per_node"] * sh["osd_memory_target"] / GiB,
            )
        ]
        rows += [(name, float(gib)) for name, gib in sh.get("daemons_gib", {}).items()]
        rows.append(("OS reserve", float(sh.get("os_reserve_gib", 0.0))))
        return rows

    def cluster_facts(self) -> dict[str, Any]:
        out = {k: self.shape[k] for k in SHAPE_FACTS if k in self.shape}
        ec = self.shape.get("ec")
        out["ec_profile"] = ec.value.as_profile() if ec else None
        return out


@dataclass(frozen=True)
class HostGroup:
    """Hosts of a fleet that share one hardware description (a shipped tier or a hardware file)."""

    name: str
    hosts: tuple[str, ...]
    tier: str | None = None
    hardware_file: Path | None = None

    @property
    def kind(self) -> str:
        return f"tier:{self.tier}" if self.hardware_file is None else f"file:{self.hardware_file.resolve()}"


@dataclass(frozen=True)
class Decision:
    """How one key was placed, for explain.md: the values per group and the scopes used."""

    who: str
    key: str
    values: dict[str, str | None]  # group -> value (None: the group does not set it)
    scope: str  # "shared" | "class" | "host" | "clients"
    entries: int


@dataclass
class Fleet:
    """Host groups with different hardware compiled into one central-config plan (flashtune.compile.fleet)."""

    groups: list[HostGroup]
    bundles: dict[str, Bundle]  # group name -> its compile
    config: CentralConfig
    decisions: list[Decision] = field(default_factory=list)

    @property
    def hosts(self) -> int:
        return sum(len(g.hosts) for g in self.groups)

"""Hardware -> envelope Cluster: the already-checked hardware file (flashtune/hardware.py, the one
reader of its fields, performance fields included) turned into the model's per-node resources.

Per-drive figures come from the file, else the drive catalog or the type defaults (envelope/drives.py,
data/envelope/devices.yaml; a note says when the type defaults stood in); a missing cpu_ghz is
DEFAULT_GHZ (with a note); NIC ports add up per role (public + both carry clients, cluster replication).
The object store is the one a compiled bundle's release deploys, else the file's, else BlueStore; a
FileStore node without db_devices keeps its journals on the data drives; a BlueStore node without them keeps
RocksDB and its WAL there (small overwrites deferred through the WAL land twice on the data drive).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from flashtune.catalog import load_catalog
from flashtune.envelope.ceilings import Cluster
from flashtune.envelope.drives import drives_of
from flashtune.errors import DataError
from flashtune.hardware import NIC_ROLES, number, read_hardware, tier_doc
from flashtune.model import Hardware, Protection
from flashtune.paths import data_path
from flashtune.releases import DEFAULT_CEPH_RELEASE
from flashtune.yamlio import line_of, load_yaml, top_mapping

DEFAULT_GHZ = 2.2  # the shipped tiers' Xeon E5 v4 base clocks are 2.2-2.6 GHz
DEFAULT_OBJECTSTORE = "bluestore"  # every release since Luminous deploys it by default
# the flags of an ec_paths.by_release entry. envelope.schema.json describes the same shape, but the schema is
# checked by the tests only (jsonschema is not a run-time dependency), so the reader checks it too, to stop a
# bad entry with its file:line; test_schema_and_reader_name_the_same_choices holds the two lists equal
EC_PATH_FLAGS = ("partial_reads", "fast_ec")


def envelope_dir() -> Path:
    return data_path("envelope")


def _constants_entry(name: str) -> tuple[dict[str, Any], str]:
    """constants.yaml's entry `name` (a mapping) and the file's path, for errors that name its lines."""
    path = str(envelope_dir() / "constants.yaml")
    return top_mapping(path, name, "{why, source, ...}"), path


def _write_multiple(name: str) -> tuple[float, dict[str, Any], str]:
    """constants.yaml's entry `name`, a write multiple: (its value, 1 to 10; the entry; the file's path)."""
    entry, path = _constants_entry(name)
    line = line_of(entry, "value") or line_of(entry)
    return number(entry.get("value"), name, path, line, minimum=1, inclusive=True, limit=10), entry, path


@cache
def filestore_journal_writes() -> float:
    """constants.yaml's filestore_journal_writes: a co-located FileStore journal's write multiple."""
    return _write_multiple("filestore_journal_writes")[0]


@cache
def bluestore_deferred_writes() -> tuple[float, dict[str, int], int]:
    """constants.yaml's bluestore_deferred_writes: (times a deferred small overwrite lands on a data drive
    that holds its own WAL, the flash min_alloc_size by release where it differed from today's, that of a
    release not listed: the knob catalog's default of bluestore_min_alloc_size_ssd, data/knobs/ceph.yaml)."""
    value, entry, path = _write_multiple("bluestore_deferred_writes")
    line = line_of(entry)
    table = entry.get("min_alloc_ssd_by_release")
    if not isinstance(table, dict):
        raise DataError(
            "bluestore_deferred_writes needs min_alloc_ssd_by_release: {release: bytes}", file=path, line=line
        )
    sizes = {
        str(r): int(number(v, f"min_alloc_ssd_by_release.{r}", path, line_of(table, r) or line, minimum=512))
        for r, v in table.items()
    }
    return value, sizes, _catalog_min_alloc_ssd()


def _catalog_min_alloc_ssd() -> int:
    """The knob catalog's bluestore_min_alloc_size_ssd default in the newest release (every release the
    catalog records has the same; the catalog's own checks hold it to the real programs)."""
    knob = load_catalog().get("bluestore_min_alloc_size_ssd", "ceph")
    default = knob.default_for(DEFAULT_CEPH_RELEASE) if knob is not None else None
    if not isinstance(default, int) or isinstance(default, bool):
        raise DataError(
            "the knob catalog needs bluestore_min_alloc_size_ssd with a default in bytes: the envelope takes "
            "the flash allocation unit of a release constants.yaml's min_alloc_ssd_by_release does not list "
            "from it",
            file=str(data_path("knobs") / "ceph.yaml"),
            line=1,
        )
    return default


@cache
def ec_paths() -> dict[str, dict[str, bool]]:
    """constants.yaml's ec_paths.by_release: release -> {partial_reads, fast_ec} (what the release's erasure
    coded pools do for I/O smaller than a stripe; a release not listed: whole-stripe reads, no fast EC)."""
    entry, path = _constants_entry("ec_paths")
    table = entry.get("by_release")
    if not isinstance(table, dict):
        raise DataError(
            "constants.yaml needs ec_paths.by_release: {release: {partial_reads: bool, fast_ec: bool}}",
            file=path,
            line=line_of(entry) or 1,
        )
    out: dict[str, dict[str, bool]] = {}
    for release, paths in table.items():
        flags = paths if isinstance(paths, dict) else {}
        if set(flags) != set(EC_PATH_FLAGS) or not all(isinstance(v, bool) for v in flags.values()):
            raise DataError(
                f"ec_paths.by_release.{release} needs partial_reads and fast_ec, each true or false",
                file=path,
                line=line_of(table, release) or 1,
            )
        out[str(release)] = {str(k): bool(v) for k, v in flags.items()}
    return out


def _ec_flags(hw: Hardware, release: str) -> tuple[bool, bool]:
    """(fast EC in effect, partial reads without it) for the hardware's EC pool on a release. The pool flag
    counts only on a release that has fast EC; a file that sets it without naming a release is taken at its
    word (the flag exists from the first release that has it)."""
    paths = ec_paths().get(release, {})
    fast = hw.ec_optimizations and (not release or paths.get("fast_ec", False))
    return fast, paths.get("partial_reads", False)


def _deferred(hw: Hardware, store: str, release: str) -> tuple[int, float]:
    """(write size below which a BlueStore overwrite is deferred, times it then lands on the data drive) for
    a node whose WAL shares the data drives (no db_devices); (0, 1.0) where nothing is written twice."""
    if store != "bluestore" or hw.db_devices:
        return 0, 1.0
    writes, sizes, default = bluestore_deferred_writes()
    return sizes.get(release, default), writes


def cluster_from(hw: Hardware, objectstore: str | None = None, release: str | None = None) -> Cluster:
    """The envelope's Cluster of a Hardware (the file's shape: nodes, clients, protection as written).

    objectstore, release: what a compiled release deploys (they win over the file's `objectstore:` and
    `release:`). The clock is the one the cores run at: cpu_ghz_run, else the base clock cpu_ghz."""
    store = objectstore or hw.objectstore or DEFAULT_OBJECTSTORE
    rel = release or hw.release or ""
    deferred_below, deferred_writes = _deferred(hw, store, rel)
    fast_ec, partial_reads = _ec_flags(hw, rel)
    total = dict.fromkeys(NIC_ROLES, 0.0)
    port = dict.fromkeys(NIC_ROLES, 0.0)
    for n in hw.nics:
        total[n.role] += n.count * n.speed_gbps
        port[n.role] = max(port[n.role], n.speed_gbps)
    notes = (
        []
        if hw.cpu_ghz is not None or hw.cpu_ghz_run is not None
        else [f"cpu_ghz not given: {DEFAULT_GHZ} GHz assumed"]
    )
    drives, drive_notes = drives_of(hw)
    return Cluster(
        name=hw.name,
        nodes=hw.nodes,
        clients=hw.clients,
        sockets=hw.sockets,
        cores=hw.cores,  # per socket in both models: the CPU ceiling counts sockets x cores
        ghz=hw.cpu_ghz_run or hw.cpu_ghz or DEFAULT_GHZ,
        drives=drives,
        public_gbps=total["public"] + total["both"],
        cluster_gbps=total["cluster"],  # 0: replication shares the public ports
        client_gbps=hw.client_nic_gbps or hw.nic_gbps,
        protection=hw.protection or Protection(),
        media_link_read_mb_s=hw.media_link.read_mb_s,
        media_link_write_mb_s=hw.media_link.write_mb_s,
        media_link_iops=hw.media_link.read_iops,
        gateways=hw.gateways,
        gateway_gbps=hw.gateway_gbps,
        software=hw.software,
        objectstore=store,
        media_writes=filestore_journal_writes() if store == "filestore" and not hw.db_devices else 1.0,
        notes=(*notes, *drive_notes),
        deferred_below=deferred_below,
        deferred_writes=deferred_writes,
        release=rel,
        osds_per_device=hw.osds_per_device,
        osd_cpu_cores=hw.osd_cpu_cores,
        colocated_clients=hw.colocated_clients,
        colocated_gateways=hw.colocated_gateways,
        client_network_gbps=hw.client_network_gbps,
        fast_ec=fast_ec,
        ec_partial_reads=partial_reads,
        public_gbps_port=max(port["public"], port["both"]),
        cluster_gbps_port=port["cluster"],
    )


def load_cluster(path: str | Path) -> Cluster:
    """A hardware file -> Cluster (DataError with file:line on bad input)."""
    return cluster_from(read_hardware(load_yaml(path), path))


def tier_cluster(name: str) -> Cluster:
    """A shipped tier (data/tiers/<name>.yaml) -> Cluster."""
    doc, path = tier_doc(name)
    return cluster_from(read_hardware(doc, path, tier=True))


def setups_dir() -> Path:
    return envelope_dir() / "setups"


@cache
def load_setup(name: str) -> Cluster:
    path = setups_dir() / f"{name}.yaml"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in setups_dir().glob("*.yaml")))
        raise DataError(f"unknown published setup {name!r}", suggestion=f"one of: {known}")
    return load_cluster(path)

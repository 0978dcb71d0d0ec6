"""Hardware -> envelope Cluster: the already-checked hardware file (flashtune/hardware.py, the one
reader of its fields, performance fields included) turned into the model's per-node resources.

Per-drive figures come from the file, else the drive catalog or the type defaults (envelope/drives.py,
data/envelope/devices.yaml; a note says when the type defaults stood in); a missing cpu_ghz is
DEFAULT_GHZ (with a note); NIC ports add up per role (public + both carry clients, cluster replication).
The object store is the one a compiled bundle's release deploys, else the file's, else BlueStore; a
FileStore node without db_devices keeps its journals on the data drives; a BlueStore node without them keeps
RocksDB and its WAL there (small overwrites deferred through the WAL land twice on the data drive; which
writes BlueStore defers depends on the drive class, hard disk or flash, and the release).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
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
from flashtune.releases import CEPH_RELEASES, DEFAULT_CEPH_RELEASE
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


# Ceph's own split of its per-media defaults (the _hdd and _ssd variants): a rotational data device takes
# the _hdd values, every other one (SATA SSD, NVMe) the _ssd ones (ceilings._deferred_writes picks by type)
DEVICE_CLASSES = ("hdd", "ssd")


@dataclass(frozen=True)
class DeferredWrites:
    """constants.yaml's bluestore_deferred_writes: which BlueStore writes go through the WAL first.

    A write smaller than the OSD's allocation unit (min_alloc_size) overwrites a unit in place, so BlueStore
    defers it; a write smaller than prefer_deferred_size is deferred by choice. Both are per device class
    and release: the tables list the releases whose default differed from today's; a release not listed
    takes today's (min_alloc_size: the knob catalog's default, data/knobs/ceph.yaml; prefer_deferred_size:
    constants.yaml's prefer_deferred)."""

    writes: float  # times a deferred write lands on a data drive that holds its own WAL
    min_alloc_by_release: dict[str, dict[str, int]]  # device class -> release -> bytes
    min_alloc_today: dict[str, int]  # device class -> the catalog's default
    prefer_deferred: dict[str, int]  # device class -> today's default
    prefer_deferred_by_release: dict[str, dict[str, int]]  # device class -> release -> bytes

    def min_alloc(self, cls: str, release: str) -> int:
        return self.min_alloc_by_release.get(cls, {}).get(release, self.min_alloc_today[cls])

    def prefer(self, cls: str, release: str) -> int:
        return self.prefer_deferred_by_release.get(cls, {}).get(release, self.prefer_deferred[cls])

    def below(self, cls: str, release: str) -> int:
        """Write size (bytes) below which a random overwrite on a drive of this class is deferred."""
        return max(self.min_alloc(cls, release), self.prefer(cls, release))


def _release(name: object, table: dict[str, Any], path: str, what: str) -> str:
    """A release key of a by-release table: a Ceph release name, or one error naming its line (a misspelt key
    would otherwise be a release that never matches, and its facts silently unused)."""
    if name in CEPH_RELEASES:
        return str(name)
    close = difflib.get_close_matches(str(name), CEPH_RELEASES, n=1)
    raise DataError(
        f"{what}: {name!r} is not a Ceph release",
        file=path,
        line=line_of(table, name) or line_of(table) or 1,
        suggestion=f"did you mean {close[0]}?" if close else f"use one of {', '.join(CEPH_RELEASES)}",
    )


def _class_table(entry: dict[str, Any], key: str, path: str, nested: bool) -> dict[str, Any]:
    """entry[key]: {hdd: ..., ssd: ...}, each a byte count (nested: {release: bytes})."""
    line = line_of(entry, key) or line_of(entry) or 1
    table = entry.get(key)
    shape = "{release: bytes}" if nested else "bytes"
    if not isinstance(table, dict) or not set(table) <= set(DEVICE_CLASSES):
        raise DataError(
            f"bluestore_deferred_writes.{key} needs {{hdd: {shape}, ssd: {shape}}}", file=path, line=line
        )
    out: dict[str, Any] = {}
    for cls, v in table.items():
        where = line_of(table, cls) or line
        if not nested:
            out[str(cls)] = int(number(v, f"{key}.{cls}", path, where, minimum=0, inclusive=True))
            continue
        if not isinstance(v, dict):
            raise DataError(f"bluestore_deferred_writes.{key}.{cls} needs {shape}", file=path, line=where)
        out[str(cls)] = {
            _release(r, v, path, f"bluestore_deferred_writes.{key}.{cls}"): int(
                number(b, f"{key}.{cls}.{r}", path, line_of(v, r) or where, minimum=0, inclusive=True)
            )
            for r, b in v.items()
        }
    return out


@cache
def bluestore_deferred_writes() -> DeferredWrites:
    """constants.yaml's bluestore_deferred_writes (with the knob catalog's min_alloc_size defaults)."""
    value, entry, path = _write_multiple("bluestore_deferred_writes")
    prefer = _class_table(entry, "prefer_deferred", path, nested=False)
    if set(prefer) != set(DEVICE_CLASSES):
        raise DataError(
            "bluestore_deferred_writes.prefer_deferred needs both hdd and ssd",
            file=path,
            line=line_of(entry, "prefer_deferred") or 1,
        )
    return DeferredWrites(
        writes=value,
        min_alloc_by_release=_class_table(entry, "min_alloc_by_release", path, nested=True),
        min_alloc_today={cls: _catalog_min_alloc(cls) for cls in DEVICE_CLASSES},
        prefer_deferred=prefer,
        prefer_deferred_by_release=_class_table(entry, "prefer_deferred_by_release", path, nested=True),
    )


def _catalog_min_alloc(cls: str) -> int:
    """The knob catalog's bluestore_min_alloc_size_<cls> default in the newest release (every release the
    catalog records has the same; the catalog's own checks hold it to the real programs)."""
    name = f"bluestore_min_alloc_size_{cls}"
    knob = load_catalog().get(name, "ceph")
    default = knob.default_for(DEFAULT_CEPH_RELEASE) if knob is not None else None
    if not isinstance(default, int) or isinstance(default, bool):
        raise DataError(
            f"the knob catalog needs {name} with a default in bytes: the envelope takes the allocation unit "
            "of a release constants.yaml's min_alloc_by_release does not list from it",
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
        out[_release(release, table, path, "ec_paths.by_release")] = {
            str(k): bool(v) for k, v in flags.items()
        }
    return out


def _ec_flags(hw: Hardware, release: str) -> tuple[bool, bool]:
    """(fast EC in effect, partial reads without it) for the hardware's EC pool on a release. The pool flag
    counts only on a release that has fast EC; a file that sets it without naming a release is taken at its
    word (the flag exists from the first release that has it)."""
    paths = ec_paths().get(release, {})
    fast = hw.ec_optimizations and (not release or paths.get("fast_ec", False))
    return fast, paths.get("partial_reads", False)


def _deferred(hw: Hardware, store: str, release: str) -> tuple[int, int, float]:
    """(write size below which a BlueStore overwrite is deferred on flash drives, the same on hard disks,
    times a deferred write then lands on the data drive) for a node whose WAL shares the data drives (no
    db_devices); (0, 0, 1.0) where nothing is written twice."""
    if store != "bluestore" or hw.db_devices:
        return 0, 0, 1.0
    rule = bluestore_deferred_writes()
    return rule.below("ssd", release), rule.below("hdd", release), rule.writes


def cluster_from(hw: Hardware, objectstore: str | None = None, release: str | None = None) -> Cluster:
    """The envelope's Cluster of a Hardware (the file's shape: nodes, clients, protection as written).

    objectstore, release: what a compiled release deploys (they win over the file's `objectstore:` and
    `release:`). The clock is the one the cores run at: cpu_ghz_run, else the base clock cpu_ghz."""
    store = objectstore or hw.objectstore or DEFAULT_OBJECTSTORE
    rel = release or hw.release or ""
    deferred_below, deferred_below_hdd, deferred_writes = _deferred(hw, store, rel)
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
        deferred_below_hdd=deferred_below_hdd,
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

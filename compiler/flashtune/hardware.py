"""The hardware file (data/tiers/*.yaml or the user's own): its fields, their checks and what they mean.

The one reader of that file, `layout:` override included. The compiler and the performance envelope
(envelope/cluster.py turns the Hardware into its Cluster) both read it here, so a field means the same and
fails the same way (one line with file:line) everywhere.

    name, source, description
    software: ceph | lustre                # default ceph (the envelope's CPU costs are Ceph's)
    objectstore: bluestore | filestore     # optional: the OSDs' store (the envelope's CPU cost per op)
    release: reef                          # optional: the Ceph release (the envelope's CPU cost family and
                                           # erasure-coded read/write paths)
    node:
      sockets: 2                           # default 1
      cores: 22                            # cores PER SOCKET (node_cores = cores x sockets)
      cpu_ghz: 2.2                         # base clock (optional; the envelope assumes a default)
      cpu_ghz_run: 2.9                     # the clock the cores run at under load (optional; default cpu_ghz)
      osds_per_device: 1                   # OSD daemons per data device (optional, default 1)
      osd_cpu_cores: 3.5                   # cores each OSD may use: a CPU limit on its container, in physical
                                           # cores (vCPUs / threads per core) (optional; default no limit)
      ram_gib: 128
      nics: [{count, speed_gbps, role}]    # count default 1; role: public, cluster or both (default both)
      data_devices: [{count, type, size_gb, model, read_iops, write_iops, read_mb_s, write_mb_s}]
                                           # figures not given: the model's in the drive catalog, else
                                           # the type's defaults (envelope/drives.py, with a note)
      db_devices: [{count, type, size_gb}]
      media_link: {read_mb_s, write_mb_s, read_iops}   # per node: HBA / enclosure limit (optional)
    cluster:
      nodes: 5, clients: 6, client_ram_gib: 32       # defaults 3, 1, 32
      client_vcpus: 16                     # logical processors of a client / the database host (default 8)
      client_nic_gbps: 10                  # per client node (optional)
      gateways: {count, nic_gbps}          # object gateways between clients and OSDs (optional)
      colocated: {clients: true, gateways: 2}   # clients on the storage nodes; RGW daemons per node (optional)
      client_network_gbps: 80              # all clients together (an uplink), optional
      ec_optimizations: true               # fast EC on the pool (Tentacle and later), optional
      mds_daemons: 3                       # scratch: MDS daemons (one standby, the rest active ranks), optional
      protection: {replicated: 3} | {erasure: [k, m]} | {none: true, raid: [k, m]}   # optional
    layout: {...}                          # the daemon layout override, checked by compile/layout.py

Descriptive fields (cpu, description, study; hosts in a fleet) are read by people only. Any other key is a
file:line error naming the closest field (FIELDS), so a misspelt one is never left at its default.

The file is described for JSON Schema in data/envelope/envelope.schema.json ($defs.hardware); the test of
that schema checks every tier and published set-up against it.
"""

from __future__ import annotations

import difflib
import math
import unicodedata
from collections.abc import Collection
from pathlib import Path
from typing import Any

from flashtune.errors import DataError
from flashtune.model import DeviceGroup, Hardware, MediaLink, Nic, Protection
from flashtune.paths import data_label, data_names, has_data
from flashtune.releases import CEPH_RELEASES as RELEASES  # a hardware file may name any of them
from flashtune.yamlio import line_of, load_data, load_yaml

DEVICE_TYPES = ("hdd", "sata-ssd", "nvme")
NIC_ROLES = ("both", "public", "cluster")
SOFTWARE = ("ceph", "lustre")
OBJECTSTORES = ("bluestore", "filestore")
DRIVE_FIGURES = ("read_iops", "write_iops", "read_mb_s", "write_mb_s")
# Upper bounds far beyond any real machine: a value past them is a typo or a unit mix-up (GB for TB, ...)
LIMITS = {
    "cores": 4096,
    "ram_gib": 65536,
    "speed_gbps": 3200,
    "count": 1024,
    "size_gb": 1_000_000,
    "sockets": 64,
    "nodes": 10_000,
    "clients": 10_000,
    "client_ram_gib": 65536,
    "client_vcpus": 4096,
    "cpu_ghz": 100,
    "cpu_ghz_run": 100,
    "osds_per_device": 64,
    "osd_cpu_cores": 1024,
    "gateways": 1024,
    "mds_daemons": 1024,
    "client_network_gbps": 1_000_000,
    "client_nic_gbps": 3200,
    "nic_gbps": 3200,
    "replicated": 1024,
    "read_iops": 1e9,
    "write_iops": 1e9,
    "read_mb_s": 1e7,
    "write_mb_s": 1e7,
}
# Lower bounds far below any real machine, for the figures a unit slip makes tiny (MHz read as GHz is caught
# above; 2.2 written 0.0022, GB/s where MB/s is asked): (floor, what the field is in)
FLOORS = {
    "cpu_ghz": (0.1, "GHz: 2.2 for a 2.2 GHz CPU"),
    "cpu_ghz_run": (0.1, "GHz: 2.2 for a 2.2 GHz CPU"),
    "speed_gbps": (0.01, "Gb/s: 25 for a 25GbE port"),
    "client_nic_gbps": (0.01, "Gb/s: 25 for a 25GbE port"),
    "client_network_gbps": (0.01, "Gb/s: 80 for an 80 Gb/s uplink"),
    "nic_gbps": (0.01, "Gb/s: 25 for a 25GbE port"),
    "read_mb_s": (20, "MB/s, 10^6 bytes per second: 3500 for 3.5 GB/s"),
    "write_mb_s": (20, "MB/s, 10^6 bytes per second: 3500 for 3.5 GB/s"),
    "read_iops": (10, "I/Os per second: 500000 for 500K"),
    "write_iops": (10, "I/Os per second: 500000 for 500K"),
    # a database host below 1 GiB is what compile-config's --db-ram-gib refuses too (it sized my.cnf's buffer
    # pool from 0.001 GiB without a word)
    "client_ram_gib": (1, "GiB: 32 for a 32 GiB host, as --db-ram-gib"),
    "ram_gib": (1, "GiB: 128 for a 128 GiB node"),
}
# Ceph refuses an erasure-code profile with fewer than 2 data chunks (ErasureCode::sanity_check_k_m: "k=1 must
# be >= 2"), as compile-config's --ec does
EC_MIN_K = 2
EC_MIN_K_WHY = "Ceph's erasure-code profiles need at least 2 data chunks (k=1 is refused: use replication)"
WHOLE = frozenset(
    {
        "cores",
        "count",
        "sockets",
        "nodes",
        "clients",
        "client_vcpus",
        "replicated",
        "osds_per_device",
        "gateways",
        "mds_daemons",
    }
)


# The fields each mapping of a hardware file may hold, descriptive ones included (cpu, description, study: read
# by people, not by flashtune). A key not listed is refused with its line: a misspelt field (`nodess:`,
# `colocated: {client: true}`, `rol: public`) would otherwise be left at its default without a word.
DEVICE_FIELDS = frozenset({"count", "type", "size_gb", "model", *DRIVE_FIGURES})
FIELDS: dict[str, frozenset[str]] = {
    "the file": frozenset(
        {
            "name",
            "source",
            "description",
            "study",
            "software",
            "objectstore",
            "release",
            "node",
            "cluster",
            "layout",
            "hosts",  # a hardware file in a fleet names its machines (compile/fleet.py)
        }
    ),
    "node": frozenset(
        {
            "cpu",
            "sockets",
            "cores",
            "cpu_ghz",
            "cpu_ghz_run",
            "osds_per_device",
            "osd_cpu_cores",
            "ram_gib",
            "nics",
            "data_devices",
            "db_devices",
            "media_link",
        }
    ),
    "node.nics": frozenset({"count", "speed_gbps", "role"}),
    "node.data_devices": DEVICE_FIELDS,
    "node.db_devices": DEVICE_FIELDS,
    "node.media_link": frozenset({"read_mb_s", "write_mb_s", "read_iops"}),
    "cluster": frozenset(
        {
            "nodes",
            "clients",
            "client_ram_gib",
            "client_vcpus",
            "client_nic_gbps",
            "gateways",
            "colocated",
            "client_network_gbps",
            "ec_optimizations",
            "mds_daemons",
            "protection",
        }
    ),
    "cluster.gateways": frozenset({"count", "nic_gbps"}),
    "cluster.colocated": frozenset({"clients", "gateways"}),
    "cluster.protection": frozenset({"replicated", "erasure", "none", "raid"}),
}


def _shown(value: Any, width: int = 80) -> str:
    """`value` as an error message shows it: its repr, cut short past `width` characters (a pasted megabyte
    was echoed whole, a one-line error a megabyte long)."""
    text = repr(value)
    return text if len(text) <= width else f"{text[: width - 20]}... ({len(text):,} characters)"


def _known_fields(mapping: Any, where: str, path: str | Path) -> None:
    """A DataError at the first key of `mapping` that FIELDS[where] does not list (with the closest known
    field as the hint); anything not a mapping is left to the field's own check."""
    if not isinstance(mapping, dict):
        return
    known = FIELDS[where]
    for key in mapping:
        if key not in known:
            close = difflib.get_close_matches(str(key), sorted(known), n=1)
            raise DataError(
                f"unknown field {_shown(key)} in {where}",
                file=str(path),
                line=line_of(mapping, key) or line_of(mapping),
                suggestion=f"did you mean {close[0]!r}?"
                if close
                else f"known fields: {', '.join(sorted(known))}",
            )


def _check_fields(doc: dict[str, Any], path: str | Path) -> None:
    """Every mapping of a hardware file holds only the fields FIELDS lists for it."""
    _known_fields(doc, "the file", path)
    node = doc.get("node")
    _known_fields(node, "node", path)
    if isinstance(node, dict):
        for group in ("nics", "data_devices", "db_devices"):
            items = node.get(group)
            for item in items if isinstance(items, list) else []:
                _known_fields(item, f"node.{group}", path)
        _known_fields(node.get("media_link"), "node.media_link", path)
    cluster = doc.get("cluster")
    _known_fields(cluster, "cluster", path)
    if isinstance(cluster, dict):
        for part in ("gateways", "colocated", "protection"):
            _known_fields(cluster.get(part), f"cluster.{part}", path)


def number(
    value: Any,
    key: str,
    where: str,
    line: int | None,
    *,
    minimum: float = 0,
    inclusive: bool = False,
    limit: float | None = None,
    name: str | None = None,
) -> float:
    """`value` of field `key` as a finite number above `minimum` (at or above it when `inclusive`), at most
    `limit` (default: LIMITS[key]), whole where the field counts things (WHOLE); else a DataError naming
    where:line; `name` is what the message calls it (default `key`). Every number a hardware file or a
    layout override holds goes through here."""
    limit = LIMITS.get(key) if limit is None else limit
    whole, floor = key in WHOLE, FLOORS.get(key)
    key = name or key
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DataError(
            f"'{key}' must be a number, got {_shown(value)}",
            file=where,
            line=line,
            suggestion=f"set {key}: <number>",
        )
    if isinstance(value, int) and abs(value) > 1e300:  # past any float: math and :g would overflow
        digits = int(abs(value).bit_length() * math.log10(2)) + 1
        raise DataError(
            f"'{key}' is a number of about {digits} digits: a typo or another unit?",
            file=where,
            line=line,
            suggestion=f"check {key}" + (f" (at most {limit:g})" if limit is not None else ""),
        )
    if not math.isfinite(value):
        raise DataError(
            f"'{key}' must be a finite number, got {value}",
            file=where,
            line=line,
            suggestion=f"set {key}: <number>",
        )
    if value < minimum or (value == minimum and not inclusive):
        what = f"at least {minimum:g}" if inclusive else f"greater than {minimum:g}"
        kind = "a positive number " if minimum == 0 and not inclusive else ""
        raise DataError(
            f"'{key}' must be {kind}({what}), got {value:g}"
            if kind
            else f"'{key}' must be {what}, got {value:g}",
            file=where,
            line=line,
            suggestion=f"give {key} a value {what}",
        )
    if limit is not None and value > limit:
        raise DataError(
            f"'{key}' is {value:g}, more than {limit:g}: a typo or another unit?",
            file=where,
            line=line,
            suggestion=f"check {key} (at most {limit:g})",
        )
    if floor is not None and 0 < value < floor[0]:
        raise DataError(
            f"'{key}' is {value:g}, less than {floor[0]:g}: a typo or another unit?",
            file=where,
            line=line,
            suggestion=f"check {key} ({floor[1]})",
        )
    if whole and value != int(value):
        raise DataError(
            f"'{key}' must be a whole number, got {value}",
            file=where,
            line=line,
            suggestion=f"set {key}: {math.floor(value):g} or {math.ceil(value):g} (it counts things)",
        )
    return float(value)


def _num(node: Any, key: str, path: str | Path) -> float:
    v = node.get(key) if isinstance(node, dict) else None
    return number(v, key, str(path), line_of(node, key) or line_of(node))


def _opt(node: Any, key: str, path: str | Path) -> float | None:
    """An optional field: None when absent."""
    return _num(node, key, path) if isinstance(node, dict) and key in node else None


def _mapping(node: Any, key: str, path: str | Path, shape: str) -> dict[str, Any]:
    v = node.get(key) if isinstance(node, dict) else None
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise DataError(
            f"'{key}' must be a mapping {shape}",
            file=str(path),
            line=line_of(node, key) or line_of(node),
            suggestion=f"e.g. {key}: {shape}",
        )
    return v


def _model(group: dict[str, Any], path: str | Path) -> str:
    """A device group's model: the name the drive catalog is searched for ('' when absent or empty); a model
    number given bare (model: 9300) is its name."""
    v = group.get("model")
    if v is None:
        return ""
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise DataError(
            f"'model' must be the drive's model name, got {_shown(v)}",
            file=str(path),
            line=line_of(group, "model") or line_of(group),
            suggestion="set model: <vendor and model as the data sheet names it>, e.g. model: Samsung PM983 3.84TB",
        )
    odd = _odd_character(str(v))  # the model is printed in the cluster's shape (explain.md, the envelope)
    if odd is not None:
        raise DataError(
            f"'model' holds the character U+{ord(odd):04X}: it must be one line of plain text",
            file=str(path),
            line=line_of(group, "model") or line_of(group),
            suggestion="remove it from model:",
        )
    return str(v)


def _devices(node: Any, key: str, path: str | Path) -> tuple[DeviceGroup, ...]:
    groups = node.get(key) or []
    if not isinstance(groups, list):
        raise DataError(
            f"'{key}' must be a list",
            file=str(path),
            line=line_of(node, key),
            suggestion=f"e.g. {key}: [{{count: 4, type: nvme, size_gb: 3840}}]",
        )
    out = []
    for i, g in enumerate(groups):
        if not isinstance(g, dict):  # `- nvme` read as a device of type None
            raise DataError(
                f"a {key} entry must be a mapping {{count, type, size_gb}}, got {_shown(g)}",
                file=str(path),
                line=line_of(groups, i) or line_of(node, key) or line_of(node),
                suggestion="e.g. - {count: 4, type: nvme, size_gb: 3840}",
            )
        t = g.get("type")
        if t not in DEVICE_TYPES:
            raise DataError(
                f"device type {_shown(t)} is not one of {', '.join(DEVICE_TYPES)}",
                file=str(path),
                line=line_of(g) or line_of(node, key),
                suggestion="use hdd, sata-ssd or nvme",
            )
        figures = {f: _opt(g, f, path) for f in DRIVE_FIGURES}
        out.append(
            DeviceGroup(
                int(_num(g, "count", path)),
                str(t),
                _num(g, "size_gb", path),
                model=_model(g, path),
                **figures,
            )
        )
    return tuple(out)


def _nics(node: dict[str, Any], path: str | Path) -> tuple[Nic, ...]:
    nics = node.get("nics") or []
    if not isinstance(nics, list):
        raise DataError(
            "'nics' must be a list of {count, speed_gbps, role}",
            file=str(path),
            line=line_of(node, "nics") or line_of(node),
            suggestion="e.g. nics: [{count: 2, speed_gbps: 25}]",
        )
    out = []
    for i, n in enumerate(nics):
        if not isinstance(n, dict):
            raise DataError(
                f"a NIC must be a mapping {{count, speed_gbps, role}}, got {_shown(n)}",
                file=str(path),
                line=line_of(nics, i) or line_of(node, "nics") or line_of(node),
                suggestion=f"e.g. {{count: 1, speed_gbps: {n if isinstance(n, (int, float)) else 25}}}",
            )
        role = n.get("role", "both")
        if role not in NIC_ROLES:
            raise DataError(
                f"NIC role {_shown(role)} is not one of {', '.join(NIC_ROLES)}",
                file=str(path),
                line=line_of(n, "role") or line_of(n),
                suggestion="use public, cluster or both",
            )
        speed = _num(n, "speed_gbps", path)
        count = _opt(n, "count", path)
        out.append(Nic(int(count) if count is not None else 1, speed, str(role)))
    if not out:
        raise DataError(
            "'nics' must list at least one {count, speed_gbps}",
            file=str(path),
            line=line_of(node, "nics") or line_of(node),  # the empty list's line, not node:'s
            suggestion="e.g. nics: [{count: 2, speed_gbps: 25}]",
        )
    if all(n.role == "cluster" for n in out):
        raise DataError(
            "every NIC has role 'cluster': clients could not reach the OSDs",
            file=str(path),
            line=line_of(node, "nics"),
            suggestion="mark the client-facing ports role: public",
        )
    return tuple(out)


def _pair(
    node: dict[str, Any], key: str, path: str | Path, example: str, min_k: int = 1, why: str = ""
) -> tuple[int, int]:
    """node[key]: [k, m], whole counts, k at least min_k (else an error saying `why`)."""
    v = node[key]
    if not (isinstance(v, list) and len(v) == 2):
        raise DataError(
            f"'{key}' must be [k, m]",
            file=str(path),
            line=line_of(node, key) or line_of(node),
            suggestion=f"e.g. {example}",
        )
    line = line_of(node, key) or line_of(node)
    k, m = (int(number(x, "count", str(path), line, name=f"{key} {n}")) for x, n in zip(v, "km", strict=True))
    if k < min_k:
        raise DataError(
            f"'{key}' k is {k}: {why}",
            file=str(path),
            line=line,
            suggestion=f"e.g. {example}",
        )
    return k, m


def _protection(cluster: dict[str, Any], path: str | Path) -> Protection | None:
    node = cluster.get("protection")
    if node is None:
        return None
    if isinstance(node, dict):
        kinds = [k for k in ("replicated", "erasure", "none") if k in node]
        if len(kinds) > 1:
            raise DataError(
                f"'protection' names {' and '.join(kinds)}: a pool has one",
                file=str(path),
                line=line_of(node) or line_of(cluster, "protection") or 1,
                suggestion="keep one of {replicated: N}, {erasure: [k, m]}, {none: true}",
            )
        raid = _pair(node, "raid", path, "raid: [8, 2]") if "raid" in node else None
        if "replicated" in node:
            size = int(_num(node, "replicated", path))
            return Protection("replicated", size, raid=raid)
        if "erasure" in node:
            k, m = _pair(node, "erasure", path, "protection: {erasure: [4, 2]}", EC_MIN_K, EC_MIN_K_WHY)
            return Protection("erasure", 1, k, m, raid=raid)
        if "none" in node:
            if node["none"] is not True:  # 'false', 'no' or 1 read as truthy made a pool without copies
                raise DataError(
                    f"'none' must be true (a pool without copies), got {_shown(node['none'])}",
                    file=str(path),
                    line=line_of(node, "none") or line_of(cluster, "protection") or 1,
                    suggestion="protection: {none: true}, or {replicated: N} / {erasure: [k, m]}",
                )
            return Protection("none", 1, raid=raid)
    raise DataError(
        "'protection' must be {replicated: N}, {erasure: [k, m]} or {none: true}",
        file=str(path),
        line=line_of(node) or line_of(cluster, "protection") or 1,
        suggestion="e.g. protection: {replicated: 3}",
    )


def _layout_mapping(node: dict[str, Any], key: str, where: str, shape: str) -> dict[str, Any]:
    """layout.<key>: a mapping of that shape, or {} when absent or empty."""
    v = node.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise DataError(
            f"'layout.{key}' must be a mapping {shape}, got {_shown(v)}",
            file=where,
            line=line_of(node, key) or line_of(node),
            suggestion="e.g. layout: {placement: {all: [mon, mgr, crash]}, memory_gib: {rgw: 8}}",
        )
    return v


def layout_override(node: Any, where: str, line: int | None = None) -> dict[str, Any]:
    """A tier's or hardware file's `layout:` mapping (`line`: its key's), checked (file:line errors)."""
    if node is None:
        return {}
    if not isinstance(node, dict):  # a scalar has no line of its own: `layout: x` named the file only
        raise DataError(
            f"'layout' must be a mapping {{placement, memory_gib, os_reserve_gib}}, got {_shown(node)}",
            file=where,
            line=line_of(node) or line,
            suggestion="e.g. layout: {placement: {all: [mon, mgr, crash]}, memory_gib: {rgw: 8}}",
        )
    known = {"placement", "memory_gib", "os_reserve_gib"}
    for key in node:
        if key not in known:
            raise DataError(
                f"unknown layout field {_shown(key)}",
                file=where,
                line=line_of(node, key),
                suggestion=f"known: {', '.join(sorted(known))}",
            )
    layout = load_data("layout/layout.yaml")
    daemons = set(layout["daemons"])
    placement = _layout_mapping(node, "placement", where, "{all|<workload>: [daemons]}")
    for wl, names in placement.items():
        if wl not in layout["placement"]:  # a misspelt workload would place nothing, without a word
            close = difflib.get_close_matches(str(wl), sorted(layout["placement"]), n=1)
            raise DataError(
                f"layout.placement.{wl}: {_shown(wl)} is not 'all' or a workload",
                file=where,
                line=line_of(placement, wl),
                suggestion=f"did you mean {close[0]!r}?"
                if close
                else f"one of {', '.join(sorted(layout['placement']))}",
            )
        if not isinstance(names, list) or any(n not in daemons for n in names):
            raise DataError(
                f"layout.placement.{wl} must list daemons among {', '.join(sorted(daemons))}",
                file=where,
                line=line_of(placement, wl),
                suggestion=f"e.g. {wl}: [mon, mgr, crash]",
            )
    ram = LIMITS["ram_gib"]  # a daemon or the OS cannot hold more than a node can have
    for name, gib in _layout_mapping(node, "memory_gib", where, "{daemon: GiB}").items():
        line = line_of(node.get("memory_gib"), name)
        if name not in daemons:
            raise DataError(
                f"layout.memory_gib.{name} must be a daemon's memory in GiB (>= 0)",
                file=where,
                line=line,
                suggestion=f"daemons: {', '.join(sorted(daemons))}",
            )
        number(gib, f"layout.memory_gib.{name}", where, line, inclusive=True, limit=ram)
    if node.get("os_reserve_gib") is not None:
        line = line_of(node, "os_reserve_gib")
        number(node["os_reserve_gib"], "layout.os_reserve_gib", where, line, inclusive=True, limit=ram)
    return dict(node)


def _one_of(
    doc: dict[str, Any],
    key: str,
    allowed: Collection[str],
    path: str | Path,
    says: str,
    *,
    default: str | None = None,
    suggestion: str | None = None,
) -> str | None:
    """An optional top-level word of the hardware file, one of `allowed` (DataError: '<key> <value> <says>')."""
    if key in doc and doc[key] is None:  # `software:` left empty was the word 'None' (no CPU ceiling)
        raise DataError(
            f"{key} has no value",
            file=str(path),
            line=line_of(doc, key),
            suggestion=suggestion or f"one of {', '.join(allowed)}, or remove the line",
        )
    value = doc.get(key, default)
    if value is not None and value not in allowed:
        raise DataError(
            f"{key} {_shown(value)} {says}",
            file=str(path),
            line=line_of(doc, key),
            suggestion=suggestion or f"one of {', '.join(allowed)}",
        )
    return None if value is None else str(value)


def _flag(
    mapping: dict[str, Any], key: str, name: str, path: str | Path, fallback_line: int | None = None
) -> bool:
    """An optional true/false field (false when absent)."""
    value = mapping.get(key, False)
    if not isinstance(value, bool):
        raise DataError(
            f"'{name}' must be true or false, got {_shown(value)}",
            file=str(path),
            line=line_of(mapping, key) or fallback_line,
            suggestion=f"set {key}: true or {key}: false (unquoted)",
        )
    return value


TEXT_FIELDS = {"the file": ("name", "source", "description", "study"), "node": ("cpu",)}
# Characters a one-line field may not hold: control characters (a line break in name: went into explain.md's
# title and the envelope's header as lines of their own: '[global]' and all), line and paragraph separators,
# and the bidirectional overrides that show text in another order than it is
ONE_LINE_FIELDS = ("name", "source", "study", "cpu")
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _odd_character(text: str) -> str | None:
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Zl", "Zp") or ch in _BIDI:
            return ch
    return None


def _check_text(doc: dict[str, Any], node: dict[str, Any], path: str | Path) -> None:
    """The descriptive fields hold text (a number is its text: name: 42): one left empty, a list or a mapping
    was printed as 'None' or "['a', 'b']" (name: is the cephadm service id and explain.md's title)."""
    for where, mapping in (("the file", doc), ("node", node)):
        for key in TEXT_FIELDS[where]:
            v = mapping.get(key, "")
            if isinstance(v, bool) or not isinstance(v, (str, int, float)):
                raise DataError(
                    f"'{key}' must be text, got {_shown(v)}",
                    file=str(path),
                    line=line_of(mapping, key) or line_of(mapping),
                    suggestion=f"set {key}: <text>, or remove the line",
                )
            odd = _odd_character(str(v)) if key in ONE_LINE_FIELDS else None
            if odd is not None:
                raise DataError(
                    f"'{key}' holds the character U+{ord(odd):04X}: it must be one line of plain text",
                    file=str(path),
                    line=line_of(mapping, key) or line_of(mapping),
                    suggestion=f"remove it from {key}:",
                )


def read_hardware(doc: Any, path: str | Path, *, tier: bool = False) -> Hardware:
    """A parsed hardware file -> Hardware (DataError with file:line on bad input)."""
    node = doc.get("node") if isinstance(doc, dict) else None
    if not isinstance(node, dict):
        raise DataError(
            "a hardware file needs a 'node:' mapping",
            file=str(path),
            line=1,
            suggestion="copy data/tiers/iops.yaml and edit it",
        )
    _check_fields(doc, path)  # a misspelt field first: its default would otherwise stand in
    _check_text(doc, node, path)
    cores, ram = int(_num(node, "cores", path)), _num(node, "ram_gib", path)  # checked first: file order
    nics = _nics(node, path)
    cluster = doc.get("cluster") or {}
    if not isinstance(cluster, dict):
        raise DataError(
            "'cluster' must be a mapping {nodes, clients, client_ram_gib}",
            file=str(path),
            line=line_of(doc, "cluster"),
            suggestion="e.g. cluster: {nodes: 5, clients: 6}",
        )
    data = _devices(node, "data_devices", path)
    if not data:
        raise DataError(
            "'data_devices' must list at least one {count, type, size_gb}",
            file=str(path),
            line=line_of(node, "data_devices") or line_of(node),
            suggestion="copy data/tiers/iops.yaml and edit it",
        )
    software = _one_of(doc, "software", SOFTWARE, path, "is not ceph or lustre", default="ceph")
    store = _one_of(doc, "objectstore", OBJECTSTORES, path, "is not bluestore or filestore")
    release = _one_of(
        doc,
        "release",
        RELEASES,
        path,
        "is not a Ceph release name",
        suggestion=f"one of {', '.join(RELEASES)}",
    )
    coloc = _mapping(cluster, "colocated", path, "{clients: true|false, gateways: N}")
    coloc_clients = _flag(coloc, "clients", "colocated.clients", path, line_of(cluster, "colocated"))
    ec_opt = _flag(cluster, "ec_optimizations", "ec_optimizations", path)
    link = _mapping(node, "media_link", path, "{read_mb_s, write_mb_s, read_iops}")
    gw = _mapping(cluster, "gateways", path, "{count, nic_gbps}")
    return Hardware(
        name=str(doc.get("name", Path(path).stem)),
        source=str(doc.get("source", path)),
        cores=cores,
        ram_gib=ram,
        nics=nics,
        data_devices=data,
        db_devices=_devices(node, "db_devices", path),
        sockets=int(_num(node, "sockets", path)) if "sockets" in node else 1,
        nodes=int(_num(cluster, "nodes", path)) if "nodes" in cluster else 3,
        clients=int(_num(cluster, "clients", path)) if "clients" in cluster else 1,
        client_ram_gib=_num(cluster, "client_ram_gib", path) if "client_ram_gib" in cluster else 32.0,
        client_vcpus=int(_num(cluster, "client_vcpus", path)) if "client_vcpus" in cluster else 8,
        layout=layout_override(doc.get("layout"), str(path), line_of(doc, "layout")),
        tier=tier,
        cpu_ghz=_opt(node, "cpu_ghz", path),
        media_link=MediaLink(*(_opt(link, f, path) for f in ("read_mb_s", "write_mb_s", "read_iops"))),
        client_nic_gbps=_opt(cluster, "client_nic_gbps", path),
        gateways=int(_num(gw, "count", path)) if gw else 0,
        gateway_gbps=_num(gw, "nic_gbps", path) if gw else 0.0,
        protection=_protection(cluster, path),
        software=str(software),
        objectstore=store,
        release=release,
        cpu_ghz_run=_opt(node, "cpu_ghz_run", path),
        osds_per_device=int(_num(node, "osds_per_device", path)) if "osds_per_device" in node else 1,
        osd_cpu_cores=_opt(node, "osd_cpu_cores", path),
        colocated_clients=coloc_clients,
        colocated_gateways=(
            int(
                number(
                    coloc["gateways"],
                    "gateways",
                    str(path),
                    line_of(coloc, "gateways"),
                    minimum=0,
                    inclusive=True,
                )
            )
            if "gateways" in coloc
            else 0
        ),
        client_network_gbps=_opt(cluster, "client_network_gbps", path),
        mds_daemons=int(_num(cluster, "mds_daemons", path)) if "mds_daemons" in cluster else None,
        ec_optimizations=ec_opt,
    )


def tier_names() -> list[str]:
    return data_names("tiers")


def tier_doc(name: str) -> tuple[Any, str]:
    """A shipped tier's parsed file and the path messages name."""
    rel = f"tiers/{name}.yaml"
    if not has_data(rel):
        raise DataError(f"unknown tier {name!r}", suggestion=f"choose one of: {', '.join(tier_names())}")
    return load_data(rel), data_label(rel)


def load_hardware(path: str | Path) -> Hardware:
    """A user's hardware file (YAML, same shape as data/tiers/*.yaml)."""
    return read_hardware(load_yaml(path), path)


def load_tier(name: str) -> Hardware:
    """A shipped tier (data/tiers/NAME.yaml)."""
    doc, path = tier_doc(name)
    return read_hardware(doc, path, tier=True)

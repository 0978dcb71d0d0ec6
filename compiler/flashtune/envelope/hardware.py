"""Hardware file -> envelope Cluster: the compile hardware file plus optional performance fields.

The fields the envelope reads besides the compiler's (all optional, so every existing hardware file works):

    node:
      sockets: 2, cores: 18                # cores per socket, as the data package's cpu_cores_per_socket
      cpu_ghz: 2.3                         # base clock (default: DEFAULT_GHZ)
      nics: [{count, speed_gbps, role}]    # role: public, cluster or both (default both)
      data_devices: [{..., read_iops, write_iops, read_mb_s, write_mb_s}]   # data-sheet figures per drive
      media_link: {read_mb_s, write_mb_s, read_iops}   # per node: HBA / enclosure limit
    cluster:
      client_nic_gbps: 10                  # per client node (default: the node's fastest port)
      gateways: {count, nic_gbps}          # object gateways between clients and OSDs
      protection: {replicated: 3} | {erasure: [k, m]} | {none: true, raid: [k, m]}
    software: ceph | lustre

Missing per-drive figures come from data/envelope/devices.yaml by device type.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from flashtune.envelope.model import Cluster, Drives, Protection
from flashtune.errors import DataError
from flashtune.paths import data_dir
from flashtune.yamlio import line_of, load_yaml

DEFAULT_GHZ = 2.2  # the shipped tiers' Xeon E5 v4 base clocks are 2.2-2.6 GHz
PERF_FIELDS = ("read_iops", "write_iops", "read_mb_s", "write_mb_s")
NIC_ROLES = ("both", "public", "cluster")


def envelope_dir() -> Path:
    return data_dir() / "envelope"


@cache
def device_defaults() -> dict[str, dict[str, Any]]:
    path = envelope_dir() / "devices.yaml"
    doc = load_yaml(path)
    types = doc.get("types") if isinstance(doc, dict) else None
    if not isinstance(types, dict):
        raise DataError("devices.yaml needs a 'types:' mapping", file=str(path), line=1)
    for name, t in types.items():
        for f in PERF_FIELDS:
            v = t.get(f) if isinstance(t, dict) else None
            if isinstance(v, bool) or not isinstance(v, int | float) or v <= 0:
                raise DataError(
                    f"device type {name}: '{f}' must be a positive number",
                    file=str(path),
                    line=line_of(t, f) or line_of(types, name),
                )
    return {str(k): dict(v) for k, v in types.items()}


def _positive(node: Any, key: str, path: Path, default: float | None = None) -> float | None:
    if not isinstance(node, Mapping) or key not in node:
        return default
    v = node[key]
    if isinstance(v, bool) or not isinstance(v, int | float) or v <= 0:
        raise DataError(
            f"'{key}' must be a positive number, got {v!r}",
            file=str(path),
            line=line_of(node, key) or line_of(node),
            suggestion=f"set {key}: <number>",
        )
    return float(v)


def _required(node: Any, key: str, path: Path) -> float:
    v = _positive(node, key, path)
    if v is None:
        raise DataError(
            f"'{key}' is missing",
            file=str(path),
            line=line_of(node),
            suggestion="copy data/tiers/iops.yaml and edit it",
        )
    return v


def _drives(node: Mapping[str, Any], path: Path) -> tuple[Drives, ...]:
    groups = node.get("data_devices") or []
    if not isinstance(groups, list) or not groups:
        raise DataError(
            "'data_devices' must list at least one {count, type, size_gb}",
            file=str(path),
            line=line_of(node, "data_devices") or line_of(node),
        )
    defaults = device_defaults()
    out = []
    for g in groups:
        t = g.get("type") if isinstance(g, Mapping) else None
        if t not in defaults:
            raise DataError(
                f"device type {t!r} is not one of {', '.join(defaults)}",
                file=str(path),
                line=line_of(g) or line_of(node, "data_devices"),
                suggestion="use hdd, sata-ssd or nvme",
            )
        assert isinstance(g, Mapping)
        explicit = {f: _positive(g, f, path) for f in PERF_FIELDS}
        # A drive with any data-sheet figure of its own takes none from the type default: a figure the
        # data sheet does not give stays unknown rather than borrowed from another device.
        figures = (
            explicit
            if any(v is not None for v in explicit.values())
            else {f: float(defaults[t][f]) for f in PERF_FIELDS}
        )
        out.append(
            Drives(
                count=int(_required(g, "count", path)), type=str(t), model=str(g.get("model", "")), **figures
            )
        )
    return tuple(out)


def _nics(node: Mapping[str, Any], path: Path) -> tuple[float, float, float]:
    """(public Gb/s, cluster Gb/s, fastest port Gb/s) of one node; cluster 0 = shared ports."""
    nics = node.get("nics") or []
    if not isinstance(nics, list) or not nics:
        raise DataError(
            "'nics' must list at least one {count, speed_gbps}", file=str(path), line=line_of(node)
        )
    total = {r: 0.0 for r in NIC_ROLES}
    fastest = 0.0
    for n in nics:
        role = n.get("role", "both") if isinstance(n, Mapping) else None
        if role not in NIC_ROLES:
            raise DataError(
                f"NIC role {role!r} is not one of {', '.join(NIC_ROLES)}",
                file=str(path),
                line=line_of(n, "role") or line_of(n),
                suggestion="use public, cluster or both",
            )
        speed = _required(n, "speed_gbps", path)
        total[str(role)] += _positive(n, "count", path, 1.0) * speed  # type: ignore[operator]
        fastest = max(fastest, speed)
    if total["cluster"] and not (total["public"] or total["both"]):
        raise DataError(
            "every NIC has role 'cluster': clients could not reach the OSDs",
            file=str(path),
            line=line_of(node, "nics"),
            suggestion="mark the client-facing ports role: public",
        )
    if total["cluster"]:
        return total["public"] + total["both"], total["cluster"], fastest
    return total["public"] + total["both"], 0.0, fastest


def protection_from(node: Any, path: Path) -> Protection:
    if node is None:
        return Protection("replicated", 3)
    if isinstance(node, Mapping):
        raid = node.get("raid")
        raid_t = None
        if raid is not None:
            if not (
                isinstance(raid, list) and len(raid) == 2 and all(isinstance(x, int) and x > 0 for x in raid)
            ):
                raise DataError("'raid' must be [k, m]", file=str(path), line=line_of(node, "raid"))
            raid_t = (int(raid[0]), int(raid[1]))
        if "replicated" in node:
            size = node["replicated"]
            if not isinstance(size, int) or size < 1:
                raise DataError(
                    "'replicated' must be a whole number of copies",
                    file=str(path),
                    line=line_of(node, "replicated"),
                    suggestion="e.g. protection: {replicated: 3}",
                )
            return Protection("replicated", size, raid=raid_t)
        if "erasure" in node:
            km = node["erasure"]
            if not (isinstance(km, list) and len(km) == 2 and all(isinstance(x, int) and x > 0 for x in km)):
                raise DataError(
                    "'erasure' must be [k, m]",
                    file=str(path),
                    line=line_of(node, "erasure"),
                    suggestion="e.g. protection: {erasure: [4, 2]}",
                )
            return Protection("erasure", 1, int(km[0]), int(km[1]), raid=raid_t)
        if node.get("none"):
            return Protection("none", 1, raid=raid_t)
    raise DataError(
        "'protection' must be {replicated: N}, {erasure: [k, m]} or {none: true}",
        file=str(path),
        line=line_of(node) or 1,
    )


def cluster_from_doc(doc: Any, path: Path) -> Cluster:
    """A parsed hardware file -> Cluster (raises DataError with file:line on bad input)."""
    node = doc.get("node") if isinstance(doc, Mapping) else None
    if not isinstance(node, Mapping):
        raise DataError(
            "a hardware file needs a 'node:' mapping",
            file=str(path),
            line=1,
            suggestion="copy data/tiers/iops.yaml and edit it",
        )
    shape = doc.get("cluster") or {}
    if not isinstance(shape, Mapping):
        raise DataError("'cluster' must be a mapping", file=str(path), line=line_of(doc, "cluster"))
    public, cluster_net, fastest = _nics(node, path)
    link = node.get("media_link") or {}
    gw = shape.get("gateways") or {}
    software = str(doc.get("software", "ceph"))
    if software not in ("ceph", "lustre"):
        raise DataError(
            f"software {software!r} is not ceph or lustre", file=str(path), line=line_of(doc, "software")
        )
    notes = []
    if "cpu_ghz" not in node:
        notes.append(f"cpu_ghz not given: {DEFAULT_GHZ} GHz assumed")
    return Cluster(
        name=str(doc.get("name", path.stem)),
        nodes=int(_positive(shape, "nodes", path, 3.0) or 3),
        clients=int(_positive(shape, "clients", path, 1.0) or 1),
        sockets=int(_positive(node, "sockets", path, 1.0) or 1),
        cores=int(_required(node, "cores", path)),
        ghz=_positive(node, "cpu_ghz", path, DEFAULT_GHZ) or DEFAULT_GHZ,
        drives=_drives(node, path),
        public_gbps=public,
        cluster_gbps=cluster_net,
        client_gbps=_positive(shape, "client_nic_gbps", path, fastest) or fastest,
        protection=protection_from(shape.get("protection"), path),
        media_link_read_mb_s=_positive(link, "read_mb_s", path),
        media_link_write_mb_s=_positive(link, "write_mb_s", path),
        media_link_iops=_positive(link, "read_iops", path),
        gateways=int(_positive(gw, "count", path, 0.0) or 0) if gw else 0,
        gateway_gbps=(_positive(gw, "nic_gbps", path, 0.0) or 0.0) if gw else 0.0,
        software=software,
        notes=tuple(notes),
    )


def load_cluster(path: Path) -> Cluster:
    return cluster_from_doc(load_yaml(path), Path(path))


def setups_dir() -> Path:
    return envelope_dir() / "setups"


@cache
def load_setup(name: str) -> Cluster:
    path = setups_dir() / f"{name}.yaml"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in setups_dir().glob("*.yaml")))
        raise DataError(f"unknown published setup {name!r}", suggestion=f"one of: {known}")
    return load_cluster(path)

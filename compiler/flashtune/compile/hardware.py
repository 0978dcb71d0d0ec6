"""Hardware descriptions: the shipped tiers (data/tiers/) or the user's own file, validated."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from flashtune.compile.layout import check_override
from flashtune.errors import DataError
from flashtune.model import DeviceGroup, Hardware
from flashtune.paths import data_label, data_names, has_data, load_data
from flashtune.yamlio import line_of, load_yaml

DEVICE_TYPES = ("hdd", "sata-ssd", "nvme")
# Upper bounds far beyond any real machine: a value past them is a typo or a unit mix-up (GB for TB, ...)
LIMITS = {"cores": 4096, "ram_gib": 65536, "speed_gbps": 3200, "count": 1024, "size_gb": 1_000_000,
          "sockets": 64, "nodes": 10_000, "clients": 10_000, "client_ram_gib": 65536}


def _num(node: Any, key: str, path: Path, *, minimum: float = 0) -> float:
    v = node.get(key) if isinstance(node, dict) else None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise DataError(f"'{key}' must be a number, got {v!r}", file=str(path), line=line_of(node, key) or line_of(node),
                        suggestion=f"set {key}: <number>")
    line = line_of(node, key) or line_of(node)
    if not math.isfinite(v):
        raise DataError(f"'{key}' must be a finite number, got {v}", file=str(path), line=line,
                        suggestion=f"set {key}: <number>")
    if v <= minimum:
        raise DataError(f"'{key}' must be greater than {minimum}, got {v}", file=str(path), line=line)
    if key in LIMITS and v > LIMITS[key]:
        raise DataError(f"'{key}' is {v:g}, more than {LIMITS[key]:g}: a typo or another unit?", file=str(path),
                        line=line, suggestion=f"check {key} (at most {LIMITS[key]:g})")
    if key in ("cores", "count", "sockets", "nodes", "clients") and v != int(v):
        raise DataError(f"'{key}' must be a whole number, got {v}", file=str(path), line=line)
    return float(v)


def _devices(node: Any, key: str, path: Path) -> tuple[DeviceGroup, ...]:
    groups = node.get(key) or []
    if not isinstance(groups, list):
        raise DataError(f"'{key}' must be a list", file=str(path), line=line_of(node, key))
    out = []
    for g in groups:
        t = g.get("type") if isinstance(g, dict) else None
        if t not in DEVICE_TYPES:
            raise DataError(f"device type {t!r} is not one of {', '.join(DEVICE_TYPES)}", file=str(path),
                            line=line_of(g), suggestion="use hdd, sata-ssd or nvme")  # fmt: skip
        out.append(DeviceGroup(int(_num(g, "count", path)), str(t), _num(g, "size_gb", path)))
    return tuple(out)


def load_hardware(path: Path) -> Hardware:
    """A user's hardware file (YAML, same shape as data/tiers/*.yaml)."""
    return hardware_from(load_yaml(path), path)


def hardware_from(doc: Any, path: Path, *, tier: bool = False) -> Hardware:
    node = doc.get("node") if isinstance(doc, dict) else None
    if not isinstance(node, dict):
        raise DataError("a hardware file needs a 'node:' mapping", file=str(path), line=1,
                        suggestion="copy data/tiers/iops.yaml and edit it")  # fmt: skip
    nics = node.get("nics") or []
    cores, ram = int(_num(node, "cores", path)), _num(node, "ram_gib", path)  # checked first: file order
    speeds = [_num(n, "speed_gbps", path) for n in nics if isinstance(n, dict)]
    if not speeds:
        raise DataError(
            "'nics' must list at least one {count, speed_gbps}", file=str(path), line=line_of(node)
        )
    cluster = doc.get("cluster") or {}
    if not isinstance(cluster, dict):
        raise DataError("'cluster' must be a mapping {nodes, clients, client_ram_gib}", file=str(path),
                        line=line_of(doc, "cluster"))  # fmt: skip
    data = _devices(node, "data_devices", path)
    if not data:
        raise DataError("'data_devices' must list at least one {count, type, size_gb}", file=str(path),
                        line=line_of(node, "data_devices") or line_of(node),
                        suggestion="copy data/tiers/iops.yaml and edit it")  # fmt: skip
    return Hardware(
        name=str(doc.get("name", path.stem)), source=str(doc.get("source", path)),
        cores=cores, ram_gib=ram, nic_gbps=max(speeds),
        data_devices=data, db_devices=_devices(node, "db_devices", path),
        sockets=int(_num(node, "sockets", path)) if "sockets" in node else 1,
        nodes=int(_num(cluster, "nodes", path)) if "nodes" in cluster else 3,
        clients=int(_num(cluster, "clients", path)) if "clients" in cluster else 1,
        client_ram_gib=_num(cluster, "client_ram_gib", path) if "client_ram_gib" in cluster else 32.0,
        layout=check_override(doc.get("layout"), str(path)), tier=tier,
    )  # fmt: skip


def tier_names() -> list[str]:
    return data_names("tiers")


def load_tier(name: str) -> Hardware:
    rel = f"tiers/{name}.yaml"
    if not has_data(rel):
        raise DataError(f"unknown tier {name!r}", suggestion=f"choose one of: {', '.join(tier_names())}")
    return hardware_from(load_data(rel), Path(data_label(rel)), tier=True)

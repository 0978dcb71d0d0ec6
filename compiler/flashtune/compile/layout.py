"""The node layout facts of data/layout/layout.yaml, read once and checked: memory rules, daemon memory,
daemon placement per workload, OSDs per device, erasure-code choices, pools and block.db sizing.

A tier or hardware file's own `layout:` mapping overrides `placement`, a daemon's `memory_gib` and
`os_reserve_gib` (see `node_layout`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from flashtune.errors import DataError
from flashtune.paths import data_path
from flashtune.yamlio import load_yaml

GiB = 1 << 30


def layout_file() -> Path:
    return data_path("layout/layout.yaml")


@cache
def layout_data() -> dict[str, Any]:
    """The layout facts as loaded (checked for the sections the compiler reads)."""
    path = layout_file()
    doc = load_yaml(path)
    sections = ("memory", "daemons", "placement", "osds_per_device", "erasure", "pools", "block_db")
    if not isinstance(doc, dict) or any(not isinstance(doc.get(s), dict) for s in sections):
        raise DataError(f"the layout file needs the mappings {', '.join(sections)}", file=str(path), line=1)
    return doc


@dataclass(frozen=True)
class NodeLayout:
    """Which non-OSD daemons share the busiest OSD node and how much memory each needs (GiB)."""

    daemons: tuple[str, ...]
    memory_gib: dict[str, float]  # fixed-size daemons; the MDS is sized from its cache knob
    counts: dict[str, int]  # instances of each daemon on the node (a name listed twice runs twice)
    os_reserve_gib: float
    mds_rss_factor: float
    mds_cache_knob: str


def node_layout(workload: str, override: dict[str, Any], gateways: int | None = None) -> NodeLayout:
    """The daemons on the busiest OSD node for this workload, with the hardware file's overrides applied.
    gateways: RGW daemons per OSD node the hardware file gives (None: the layout's placement decides); where
    the workload places a gateway on the node, that many run there and each needs its memory, and 0 (the
    gateways run on hosts of their own) takes it off the node."""
    data = layout_data()
    placement = {**data["placement"], **(override.get("placement") or {})}
    lists = [placement.get("all", []), placement.get(workload, [])]
    names = [n for names in lists for n in names]
    # within one list a repeated name is another instance (rgw: [rgw, rgw] = two gateways on the node)
    counts = {n: max(names.count(n) for names in lists) for n in names}
    if "rgw" in counts and gateways:
        counts["rgw"] = max(counts["rgw"], gateways)
    elif "rgw" in counts and gateways == 0:
        del counts["rgw"]
        names = [n for n in names if n != "rgw"]
    daemons = data["daemons"]
    memory = {n: float(d["memory_gib"]) for n, d in daemons.items() if "memory_gib" in d}
    memory.update({str(k): float(v) for k, v in (override.get("memory_gib") or {}).items()})
    mds = daemons.get("mds", {})
    return NodeLayout(
        daemons=tuple(dict.fromkeys(names)),
        memory_gib=memory,
        counts=counts,
        os_reserve_gib=float(override.get("os_reserve_gib", data["memory"]["os_reserve_gib"])),
        mds_rss_factor=float(mds.get("rss_factor", 1.0)),
        mds_cache_knob=str(mds.get("cache_knob", "mds_cache_memory_limit")),
    )


def memory_rules() -> dict[str, Any]:
    return dict(layout_data()["memory"])


def osds_per_device_rules() -> dict[str, Any]:
    return dict(layout_data()["osds_per_device"])


def erasure_rules() -> dict[str, Any]:
    return dict(layout_data()["erasure"])


def pools_for(workload: str) -> list[dict[str, Any]]:
    return [dict(p) for p in layout_data()["pools"].get(workload, [])]


def filesystem() -> dict[str, str]:
    """The CephFS file system pools.sh makes (its name, and the subvolume in the EC pool clients mount)."""
    return {k: str(v) for k, v in layout_data()["pools"]["filesystem"].items()}


def filesystem_mds() -> dict[str, Any]:
    """The scratch file system's MDS rules: default daemons, standbys kept, the pin clients set."""
    return dict(layout_data()["pools"]["filesystem_mds"])


def autoscaler_rules() -> dict[str, Any]:
    return dict(layout_data().get("autoscaler") or {"pg_num_min": 32})


def block_db_rules() -> dict[str, Any]:
    return dict(layout_data()["block_db"])


def device_class_rules() -> dict[str, Any]:
    """How pools are pinned to device classes on nodes with flash beside HDD (layout.yaml pools.device_classes)."""
    return dict(layout_data()["pools"]["device_classes"])

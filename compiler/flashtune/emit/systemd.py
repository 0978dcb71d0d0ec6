"""systemd drop-in emitter: NUMA pinning of OSDs, one drop-in per CPU socket."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flashtune.emit.common import header, render_scalar
from flashtune.model import Setting


def emit(settings: Iterable[Setting], inputs: Mapping[str, Any], node: int, osds: str) -> str:
    """The drop-in for OSDs served by NUMA node `node` (their NVMe devices, HBA and NIC sit there)."""
    out = [
        header("#", inputs),
        f"# NUMA node {node}: for each OSD whose data device hangs off socket {node} ({osds}), install as\n",
        "#   /etc/systemd/system/ceph-osd@<id>.service.d/90-flashtune-numa.conf\n",
        "#   (cephadm: ceph-<fsid>@osd.<id>.service.d/; the container inherits the unit's CPU and memory policy)\n",
        "# NUMAPolicy=preferred falls back to the other socket when this one is full (bind would OOM-kill).\n",
        "# Needs systemd 248 or later for CPUAffinity=numa (Debian 12, Ubuntu 22.04, RHEL 9).\n",
        "# (find the socket with: cat /sys/block/<nvme>/device/numa_node), then systemctl daemon-reload.\n",
        "\n[Service]\n",
        f"NUMAMask={node}\n",
    ]
    out.extend(f"{s.key}={render_scalar(s.value)}\n" for s in settings)
    return "".join(out)

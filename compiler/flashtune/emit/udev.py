"""udev rule emitter: block-queue attributes (scheduler, read_ahead_kb) per data-device type."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flashtune.emit.common import header, render_scalar
from flashtune.model import Setting

# How udev recognises each device type: NVMe namespaces by name, SATA by rotational flag.
MATCH = {
    "nvme": 'KERNEL=="nvme[0-9]*n[0-9]*"',
    "sata-ssd": 'KERNEL=="sd[a-z]*", ATTR{queue/rotational}=="0"',
    "hdd": 'KERNEL=="sd[a-z]*", ATTR{queue/rotational}=="1"',
}


def emit(settings: Iterable[Setting], inputs: Mapping[str, Any]) -> str:
    by_type: dict[str, list[Setting]] = {}
    for s in settings:
        by_type.setdefault(s.section, []).append(s)
    out = [
        header("#", inputs),
        "# Install as /etc/udev/rules.d/60-flashtune-blockdev.rules, then:\n",
        "#   udevadm control --reload && udevadm trigger --subsystem-match=block\n",
    ]
    for dev, items in by_type.items():
        attrs = ", ".join(f'ATTR{{{s.key}}}="{render_scalar(s.value)}"' for s in items)
        out.append(f'ACTION=="add|change", SUBSYSTEM=="block", {MATCH[dev]}, {attrs}\n')
    return "".join(out)

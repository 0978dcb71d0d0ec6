"""sysctl.d drop-in emitter: `key = value`, dotted keys, multi-value entries space separated."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flashtune.emit.common import header, render_scalar
from flashtune.model import Setting


def _value(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return " ".join(render_scalar(x) for x in v)
    return render_scalar(v)


# where each host's drop-in goes: (who it is for, its file name in /etc/sysctl.d)
HOSTS = {
    "osd-node": ("the OSD nodes (sized for their RAM and NICs)", "90-flashtune.conf"),
    "db-host": ("the database host", "90-flashtune-db.conf"),
}


def emit(settings: Iterable[Setting], inputs: Mapping[str, Any], host: str = "osd-node") -> str:
    who, name = HOSTS[host]
    out = [
        header("#", inputs),
        f"# For {who}. Install as /etc/sysctl.d/{name},\n",
        "# then: sysctl --system\n",
    ]
    for s in settings:
        if s.unsafe_opt_in:
            out.append(f"# UNSAFE ({s.safety}), emitted only because of --allow-unsafe {s.key}\n")
        out.append(f"{s.key} = {_value(s.value)}\n")
    return "".join(out)

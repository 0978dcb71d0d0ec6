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


def emit(settings: Iterable[Setting], inputs: Mapping[str, Any]) -> str:
    out = [
        header("#", inputs),
        "# For the OSD nodes (sized for their RAM and NICs). Install as /etc/sysctl.d/90-flashtune.conf,\n",
        "# then: sysctl --system\n",
    ]
    for s in settings:
        if s.unsafe_opt_in:
            out.append(f"# UNSAFE ({s.safety}), emitted only because of --allow-unsafe {s.key}\n")
        out.append(f"{s.key} = {_value(s.value)}\n")
    return "".join(out)

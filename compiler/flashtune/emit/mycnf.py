"""my.cnf emitter (MySQL option-file syntax): groups, `key = value`, bare flags for True-only options."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flashtune.emit.common import header, render_scalar
from flashtune.settings import Setting


def emit(settings: Iterable[Setting], inputs: Mapping[str, Any]) -> str:
    groups: dict[str, list[Setting]] = {}
    for s in settings:
        groups.setdefault(s.section or "mysqld", []).append(s)
    out = [header("#", inputs)]
    for group, items in groups.items():
        out.append(f"\n[{group}]\n")
        for s in items:
            if s.unsafe_opt_in:
                out.append(f"# UNSAFE ({s.safety}), emitted only because of --allow-unsafe {s.key}\n")
            v = s.value
            if isinstance(v, bool):
                v = "ON" if v else "OFF"
            out.append(f"{s.key} = {render_scalar(v)}\n")
    return "".join(out)

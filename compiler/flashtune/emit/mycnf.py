"""my.cnf emitter (MySQL option-file syntax): groups, `key = value`, bare flags for True, `!` directives."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flashtune.emit.common import header, render_scalar
from flashtune.model import Setting


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
            if s.key.startswith("!"):
                out.append(f"{s.key} {render_scalar(v)}\n")  # e.g. !includedir DIR
            elif v is True:
                out.append(f"{s.key}\n")  # a bare option name turns a boolean option on
            else:
                out.append(f"{s.key} = {render_scalar('OFF' if v is False else v)}\n")
    return "".join(out)

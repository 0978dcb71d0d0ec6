"""ceph.conf emitter: sections in Ceph's conventional order, one `key = value` per setting."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flashtune.emit.common import header, render_scalar
from flashtune.model import Setting

_ORDER = ("global", "mon", "mgr", "osd", "mds", "client")


def _section_rank(name: str) -> tuple[int, str]:
    base = name.split(".", 1)[0]
    return (_ORDER.index(base) if base in _ORDER else len(_ORDER), name)


def emit(settings: Iterable[Setting], inputs: Mapping[str, Any]) -> str:
    by_section: dict[str, list[Setting]] = {}
    for s in settings:
        by_section.setdefault(s.section or "global", []).append(s)
    out = [header("#", inputs)]
    for section in sorted(by_section, key=_section_rank):
        out.append(f"\n[{section}]\n")
        for s in by_section[section]:
            if s.unsafe_opt_in:
                out.append(f"# UNSAFE ({s.safety}), emitted only because of --allow-unsafe {s.key}\n")
            out.append(f"{s.key} = {render_scalar(s.value)}\n")
    return "".join(out)

"""tuned profile emitter (tuned.conf): INI sections of tuned plugins ([main], [cpu], ...)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flashtune.emit.common import header, render_scalar
from flashtune.model import Setting


def emit(settings: Iterable[Setting], inputs: Mapping[str, Any], name: str = "flashtune") -> str:
    sections: dict[str, list[Setting]] = {}
    for s in settings:
        sections.setdefault(s.section, []).append(s)
    out = [
        header("#", inputs),
        f"# Install as /etc/tuned/{name}/tuned.conf, then: tuned-adm profile {name}\n",
    ]
    for name in sorted(sections, key=lambda n: (n != "main", n)):
        out.append(f"\n[{name}]\n")
        out.extend(f"{s.key}={render_scalar(s.value)}\n" for s in sections[name])
    return "".join(out)

"""The compiler's intermediate result: one Setting per emitted value, with its provenance."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Setting:
    """A value destined for one output file, and why it has that value."""

    file: str  # ceph.conf | sysctl.conf | my.cnf | cbt.yaml | tuned.conf | udev.rules | ...
    section: str  # ceph.conf section, my.cnf group; "" where the format has none
    key: str
    value: Any
    rule: str  # the profile layer or derivation that produced the value
    rationale: str = ""
    evidence: tuple[str, ...] = ()
    safety: str = "safe"
    unsafe_opt_in: bool = False  # emitted only because the user passed --allow-unsafe
    notes: tuple[str, ...] = field(default_factory=tuple)
    inputs: dict[str, Any] = field(default_factory=dict)  # the derivation's inputs, echoed in the manifest
    release_facts: tuple[str, ...] = ()  # what the catalog says about this key in the target release

"""Typed records of the knob catalog."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flashtune.releases import CEPH_RELEASES, MYSQL_FLAVOURS

DOMAINS = ("ceph", "sysctl", "mysql", "mount", "blockdev", "cpu", "allocator")
# Ceph's own option types, plus enum for closed string sets.
TYPES = (
    "str",
    "int",
    "uint",
    "size",
    "secs",
    "millisecs",
    "float",
    "bool",
    "addr",
    "addrvec",
    "uuid",
    "enum",
)
SAFETY = ("safe", "durability-risk", "integrity-risk", "security-risk")
EFFECT = ("runtime", "restart", "create")


@dataclass(frozen=True)
class Location:
    """Where a knob is set: a file kind plus section/group, a sysctl key, a sysfs path, ..."""

    file: str  # ceph.conf | sysctl.conf | my.cnf | fstab | udev | tuned | systemd | cbt.yaml | ec-profile
    sections: tuple[str, ...] = ()


@dataclass(frozen=True)
class Knob:
    name: str
    domain: str
    location: Location
    type: str
    rationale: str
    unit: str | None = None
    default: dict[str, Any] = field(default_factory=dict)  # release/flavour -> default ("*" = all)
    min: float | None = None
    max: float | None = None
    enum: tuple[str, ...] = ()
    added: str | None = None  # first release/flavour that has it (None: before anything we track)
    removed: str | None = None  # first release/flavour that no longer has it
    renamed_to: str | None = None
    misspelling_of: str | None = None  # the seeds' typos are catalogued so lint can say what was meant
    effect: str = "runtime"
    safety: str = "safe"
    safety_note: str | None = None
    level: str | None = None  # Ceph's basic/advanced/dev
    applies_to: tuple[str, ...] = ()  # e.g. ("filestore",) for knobs that are no-ops on BlueStore
    evidence: tuple[str, ...] = ()  # "dataset:row_id" or "claim:id"
    present_in: tuple[str, ...] = ()  # explicit list of releases/flavours (used for MySQL flavours)
    inferred: tuple[str, ...] = ()  # releases whose facts are inferred rather than read from a schema
    source_file: str = ""
    source_line: int | None = None

    def _order(self) -> tuple[str, ...]:
        return MYSQL_FLAVOURS if self.domain == "mysql" else CEPH_RELEASES

    def exists_in(self, release: str | None) -> bool:
        """True if the knob exists in that release (Ceph) or flavour (MySQL); other domains ignore it."""
        if self.misspelling_of is not None:
            return False
        if release is None or self.domain not in ("ceph", "mysql"):
            return True
        order = self._order()
        if release not in order:
            return True
        if self.present_in:
            return release in self.present_in
        idx = order.index(release)
        if self.added and self.added in order and idx < order.index(self.added):
            return False
        return not (self.removed and self.removed in order and idx >= order.index(self.removed))

    def default_for(self, release: str | None) -> Any:
        if release is not None and release in self.default:
            return self.default[release]
        if release is not None and self.domain == "ceph" and release in CEPH_RELEASES:
            # Defaults are recorded where they change; take the nearest earlier recorded release.
            idx = CEPH_RELEASES.index(release)
            for r in reversed(CEPH_RELEASES[: idx + 1]):
                if r in self.default:
                    return self.default[r]
        return self.default.get("*")

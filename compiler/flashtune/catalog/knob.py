"""Typed records of the knob catalog."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from flashtune.catalog import vocab
from flashtune.catalog.deps import DeadWhen
from flashtune.catalog.values import canon_value as canon_value  # re-exported: callers import it from here
from flashtune.releases import CEPH_RELEASES, MYSQL_FLAVOURS, SUPPORTED_CEPH_RELEASES

# The value sets come from data/knobs/knob.schema.json (flashtune.catalog.vocab), never restated here.
DOMAINS = vocab.values("domain")
TYPES = vocab.values("type")  # Ceph's own option types, plus enum for closed string sets
SAFETY = vocab.values("safety")
EFFECT = vocab.values("effect")
_BINARY = ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB"))


def human_size(n: int) -> str | None:
    """A byte count in the largest binary unit that divides it (or of which it is 10 or more): '4 MiB',
    '1536 MiB', '12.5 GiB'; None where no unit fits."""
    for scale, unit in _BINARY:
        if n >= scale and (n % scale == 0 or n >= 10 * scale):
            return f"{n / scale:g} {unit}"
    return None


_WORD_SEPARATORS = re.compile(r"[\s,;]+")


@dataclass(frozen=True)
class ValueRule:
    """Values of a knob that carry a risk (unsafe_values) or stopped working (removed_values)."""

    values: tuple[str, ...]
    safety: str = "safe"
    note: str | None = None
    removed: str | None = None  # release/kernel from which these values no longer work

    def matches(self, value: Any, type_: str | None = None) -> bool:
        v = canon_value(value, type_)
        if type_ in ("str", "enum"):
            # str knobs hold word lists ("civetweb port=80", "cephx, none"): any word may match
            words = {v, *_WORD_SEPARATORS.split(v)}
            return any(canon_value(x, type_) in words for x in self.values)
        return any(canon_value(x, type_) == v for x in self.values)


@dataclass(frozen=True)
class Location:
    """Where a knob is set: a file kind plus section/group, a sysctl key, a sysfs path, ..."""

    file: str  # ceph.conf | sysctl.conf | my.cnf | fstab | udev | tuned | systemd | cbt.yaml | ec-profile
    sections: tuple[str, ...] = ()


@dataclass(frozen=True)
class Knob:
    """One catalogued setting (data/knobs/*.yaml): where it goes, its type, defaults, releases and safety."""

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
    # MySQL: what a flavour that lacks the option does with it in a my.cnf: warn | ignore | abort
    when_absent: dict[str, str] = field(default_factory=dict)
    inferred: tuple[str, ...] = ()  # releases whose facts are inferred rather than read from a schema
    flags: tuple[str, ...] = ()  # Ceph option flags: runtime, startup, create, no_mon_update, ...
    aliases: tuple[str, ...] = ()  # other spellings that mean this knob (e.g. CBT's pg_size for pg_num)
    seeds: tuple[str, ...] = ()  # seed documents (file stem prefix, e.g. "000") that set or name it
    unsafe_values: tuple[ValueRule, ...] = ()  # values that are risky although the knob itself is not
    removed_values: tuple[ValueRule, ...] = ()  # values that stopped working (e.g. civetweb, cfq)
    dead_when: tuple[
        DeadWhen, ...
    ] = ()  # conditions under which a set value changes nothing (catalog/deps.py)
    source_file: str = ""
    source_line: int | None = None

    def _order(self) -> tuple[str, ...]:
        return MYSQL_FLAVOURS if self.domain == "mysql" else CEPH_RELEASES

    def exists_in(self, release: str | None) -> bool:
        """True if the knob exists in that release (Ceph) or flavour (MySQL); other domains ignore it."""
        if self.misspelling_of is not None:
            return False
        if self.domain not in ("ceph", "mysql"):
            # kernel/mount facts: 'removed' names a kernel version older than anything supported
            return self.removed is None
        if release is None:
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
        """Default in that release/flavour (None where the knob does not exist or it is unknown)."""
        if release is not None and self.domain in ("ceph", "mysql") and not self.exists_in(release):
            return None
        if release is not None and release in self.default:
            return self.default[release]
        if release is not None and self.domain == "ceph" and release in CEPH_RELEASES:
            # Defaults are recorded where they change; take the nearest earlier recorded release.
            idx = CEPH_RELEASES.index(release)
            for r in reversed(CEPH_RELEASES[: idx + 1]):
                if r in self.default:
                    return self.default[r]
        return self.default.get("*")

    @property
    def releases(self) -> tuple[str, ...]:
        """The releases/flavours whose facts a card, the book and the notebooks tabulate (none for the
        kernel-side domains, whose facts do not depend on a Ceph release or MySQL flavour)."""
        if self.domain == "ceph":
            return SUPPORTED_CEPH_RELEASES
        if self.domain == "mysql":
            return MYSQL_FLAVOURS
        return ()

    def show(self, value: Any) -> str:
        """A value as a person reads it: sizes also in binary units, empty strings visible, '-' for none."""
        if value is None:
            return "-"
        if isinstance(value, bool):
            return "true" if value else "false"
        if value == "":
            return '""'
        if self.type == "size" and isinstance(value, int):
            human = human_size(value)
            if human is not None:
                return f"{value} ({human})"
        return str(value)

    def history(self) -> tuple[str, ...]:
        """The knob's name history as phrases: ('added in quincy', 'removed in reef', 'renamed to x')."""
        parts = []
        if self.misspelling_of:
            parts.append(f"misspelling of {self.misspelling_of} (no release knows this name)")
        if self.added:
            parts.append(f"added in {self.added}")
        if self.removed:
            parts.append(f"removed in {self.removed}")
        if self.renamed_to:
            parts.append(f"renamed to {self.renamed_to}")
        return tuple(parts)

    def is_default(self, value: Any, release: str | None = None) -> bool:
        """True if value is what the knob already is in release: setting it is a no-op line."""
        default = self.default_for(release)
        return default is not None and canon_value(default, self.type) == canon_value(value, self.type)

    def is_a_default(self, value: Any) -> bool:
        """True if value is the knob's default in some release or flavour (a dump of every option cannot tell
        it from a setting, and a risk of setting the knob is no risk at its default)."""
        return any(canon_value(d, self.type) == canon_value(value, self.type) for d in self.default.values())

    def unsafe(self, value: Any) -> bool:
        """True if setting the knob to value is data-unsafe or insecure (the compiler needs an opt-in)."""
        return self.value_safety(value)[0] != "safe"

    @property
    def safety_shown(self) -> str:
        """The knob's safety as cards and tables print it: a knob whose own safety is `safe` but that has
        risky values (skip_grant_tables = ON, innodb_flush_log_at_trx_commit = 0) is not called safe."""
        if self.safety == "safe" and self.unsafe_values:
            risks = sorted({r.safety for r in self.unsafe_values})
            return f"value-dependent ({', '.join(risks)} at some values)"
        return self.safety

    def value_safety(self, value: Any) -> tuple[str, str | None]:
        """Safety class and note of setting this knob to value."""
        if self.safety != "safe":
            return self.safety, self.safety_note
        for rule in self.unsafe_values:
            if rule.matches(value, self.type):
                return rule.safety, rule.note
        return "safe", None

    def removed_value(self, value: Any) -> ValueRule | None:
        """The rule saying this value no longer works, if any."""
        for rule in self.removed_values:
            if rule.matches(value, self.type):
                return rule
        return None

    @property
    def is_unsafe(self) -> bool:
        """True if the knob itself or some of its values are not 'safe'."""
        return self.safety != "safe" or bool(self.unsafe_values)

"""Compiled ceph.conf settings -> the monitors' config database (who, mask, key, value) + a minimal ceph.conf.

Which keys must stay in a local file is a per-knob fact (the Ceph option flags in the catalog); what each
flag means for placement, the `who` a [client] key narrows to and the CRUSH class of each device type are
data (data/deploy.yaml). Masks (`osd/class:nvme`, `osd/host:node7`) come from fleets
(flashtune.compile.fleet), where hosts differ.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from flashtune.catalog import Knob, load_catalog
from flashtune.catalog.model import canon_value
from flashtune.emit.common import render_scalar
from flashtune.errors import DataError
from flashtune.lint.values import ceph_value
from flashtune.model import Setting
from flashtune.paths import data_dir
from flashtune.yamlio import load_yaml

# Daemon types a config-database `who` can name (Ceph's entity types; src/mon/ConfigMap.cc parse_mask).
DAEMON_TYPES = ("global", "mon", "mgr", "osd", "mds", "client")


@dataclass(frozen=True)
class Placement:
    local_flags: dict[str, str]  # flag -> why a key with it stays in ceph.conf
    central_notes: dict[str, str]  # flag -> note for a key that goes to the config database with it
    narrow_client_to: dict[str, str]  # catalog location section -> who
    device_class: dict[str, str]  # flashtune device type -> CRUSH device class
    ceph_images: dict[str, str]  # Ceph release -> container image (Rook)
    rook: dict[str, Any]  # CephCluster name, namespace, dataDirHostPath, memory limit ratio


@lru_cache(maxsize=1)
def placement() -> Placement:
    path = data_dir() / "deploy.yaml"
    doc = load_yaml(path)
    try:
        return Placement(
            local_flags={str(k): str(v["why"]) for k, v in doc["local_flags"].items()},
            central_notes={str(k): str(v["why"]) for k, v in doc["central_notes"].items()},
            narrow_client_to={str(k): str(v) for k, v in doc["narrow_client_to"].items()},
            device_class={str(k): str(v) for k, v in doc["device_class"].items()},
            ceph_images={str(k): str(v) for k, v in doc["ceph_images"].items()},
            rook=dict(doc["rook"]),
        )
    except (KeyError, TypeError, AttributeError) as e:
        raise DataError(
            f"malformed placement rules ({e})",
            file=str(path),
            line=1,
            suggestion="compare with data/deploy.schema.json",
        ) from None


@dataclass(frozen=True)
class CentralValue:
    """One `ceph config set WHO[/MASK] KEY VALUE`."""

    who: str  # global | mon | osd | mds | client | client.rgw | osd.3 ...
    mask: str  # "" | class:nvme | host:node7
    key: str
    value: str  # as it is handed to Ceph
    type: str | None = None  # the option's Ceph type (for comparing values)
    note: str = ""  # e.g. "takes effect at the next restart"
    why: str = ""  # the rationale the compiler gave

    @property
    def target(self) -> str:
        return f"{self.who}/{self.mask}" if self.mask else self.who

    @property
    def daemon(self) -> str:
        return self.who.split(".", 1)[0]


@dataclass(frozen=True)
class LocalValue:
    """A key that only works from the local ceph.conf, and why."""

    section: str
    key: str
    value: str
    why: str


@dataclass
class CentralConfig:
    values: list[CentralValue] = field(default_factory=list)
    local: list[LocalValue] = field(default_factory=list)

    def by_target(self) -> dict[tuple[str, str], CentralValue]:
        return {(v.target, v.key): v for v in self.values}


def _knob(key: str) -> Knob | None:
    try:
        k = load_catalog().resolve(key, "ceph")
    except Exception:  # an unknown key: validate_settings already reported it
        return None
    return k if isinstance(k, Knob) else None


def who_for(section: str, knob: Knob | None) -> str:
    """The config-database section for a ceph.conf section: the same name, except that a [client] key only
    one daemon family reads (the catalog's location sections) narrows to that family (client.rgw)."""
    if section != "client" or knob is None:
        return section or "global"
    rules = placement().narrow_client_to
    narrowed = {rules[s] for s in knob.location.sections if s in rules}
    if narrowed and all(s in rules for s in knob.location.sections):
        return sorted(narrowed)[0]
    return section


def local_reason(knob: Knob | None) -> str | None:
    if knob is None:
        return None
    rules = placement().local_flags
    for flag in knob.flags:
        if flag in rules:
            return f"`{flag}`: {rules[flag]}"
    return None


def central_note(knob: Knob | None) -> str:
    if knob is None:
        return ""
    notes = placement().central_notes
    return " ".join(f"`{f}`: {notes[f]}" for f in knob.flags if f in notes)


def split(settings: Iterable[Setting], *, mask: str = "") -> CentralConfig:
    """The ceph.conf settings of one compile, split into config-database values and local-only keys."""
    out = CentralConfig()
    for s in settings:
        if s.file != "ceph.conf":
            continue
        knob = _knob(s.key)
        value = render_scalar(s.value)
        why = local_reason(knob)
        if why:
            out.local.append(LocalValue(s.section or "global", s.key, value, why))
            continue
        out.values.append(
            CentralValue(
                who=who_for(s.section, knob),
                mask=mask,
                key=s.key,
                value=value,
                type=knob.type if knob else None,
                note=central_note(knob),
                why=s.rationale,
            )
        )
    return out


def canonical(value: Any, type_: str | None) -> str:
    """A spelling two equal values share: sizes in bytes, booleans true/false, numbers without noise.

    Ceph's own reading of its types (flashtune.lint.values.ceph_value), then the catalog's canon_value."""
    text = render_scalar(value)
    if type_:
        try:
            parsed = ceph_value(type_, text)
        except ValueError:
            parsed = None
        if isinstance(parsed, bool):
            return "true" if parsed else "false"
        if isinstance(parsed, int | float):
            return repr(int(parsed)) if float(parsed).is_integer() else repr(float(parsed))
    return " ".join(canon_value(text, type_).split())


def key_type(key: str) -> str | None:
    knob = _knob(key)
    return knob.type if knob else None

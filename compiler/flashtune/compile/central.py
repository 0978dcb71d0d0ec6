"""Compiled ceph.conf settings -> the monitors' config database (who, mask, key, value) + a minimal ceph.conf.

Which keys must stay in a local file is a per-knob fact (the Ceph option flags in the catalog); what each
flag means for placement, the `who` a [client] key narrows to and the CRUSH class of each device type are
data (data/deploy.yaml). Masks (`osd/class:nvme`, `osd/host:node7`) come from fleets
(flashtune.compile.fleet), where hosts differ.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flashtune.catalog import Knob, load_catalog
from flashtune.catalog.knob import canon_value
from flashtune.emit.common import render_scalar
from flashtune.lint.values import ceph_value
from flashtune.model import CentralConfig, CentralValue, LocalValue, Setting
from flashtune.placement import placement


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
    return with_companions(out)


def with_companions(config: CentralConfig) -> CentralConfig:
    """Add the keys data/deploy.yaml pairs with a compiled key (osd_memory_target_autotune = false beside
    osd_memory_target: cephadm's autotuner would otherwise override the compiled target per host)."""
    rules = placement().central_companions
    have = {(v.who, v.key) for v in config.values}
    for key in dict.fromkeys(v.key for v in config.values):
        for who, extra, value, why in rules.get(key, ()):
            if (who, extra) not in have:
                knob = _knob(extra)
                config.values.append(
                    CentralValue(
                        who=who,
                        mask="",
                        key=extra,
                        value=value,
                        type=knob.type if knob else None,
                        note=why,
                        why=why,
                    )
                )
                have.add((who, extra))
    return config


def canonical(value: Any, type_: str | None) -> str:
    """A spelling two equal values share: sizes in bytes, booleans true/false, numbers without noise.

    Ceph's own reading of its types (flashtune.lint.values.ceph_value), then the catalog's canon_value. A key
    the catalog does not know is read as a number where it is one (Ceph prints floats as 2.000000)."""
    text = render_scalar(value)
    for t in (type_,) if type_ else ("float",):
        try:
            parsed = ceph_value(t, text)
        except ValueError:
            parsed = None
        if isinstance(parsed, bool):
            return "true" if parsed else "false"
        if isinstance(parsed, (int, float)):
            return repr(int(parsed)) if float(parsed).is_integer() else repr(float(parsed))
    return " ".join(canon_value(text, type_).split())


def key_type(key: str) -> str | None:
    knob = _knob(key)
    return knob.type if knob else None

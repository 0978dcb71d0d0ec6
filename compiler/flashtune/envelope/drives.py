"""A storage node's data drives as the envelope sees them: their data-sheet figures and where each came from.

A data_devices entry's figures (read_iops, write_iops, read_mb_s, write_mb_s) come from, in order:
- the entry itself: a figure it gives wins;
- the drive catalog, data/envelope/devices.yaml's `models:`, when the entry's model names a catalogued drive
  of the same type (the catalog's name or one of its aliases, case and spaces ignored; nothing fuzzier), for
  every figure the entry leaves out;
- the type's defaults (`types:`), only for an entry with no figure of its own and no catalogued model. They
  are one particular drive's figures, so the envelope says which drive stood in and how to name the real
  one, except where they are that drive's own: a shipped tier's drives, and an entry whose model is the
  type's `model:` (a hardware file copied from a tier).
An entry with some figures of its own and no catalogued model takes none from the type: a figure its data
sheet does not give stays unknown rather than borrowed from another drive.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from flashtune.envelope.ceilings import Drives
from flashtune.errors import DataError
from flashtune.hardware import DEVICE_TYPES, DRIVE_FIGURES, number
from flashtune.model import DeviceGroup, Hardware
from flashtune.paths import data_path
from flashtune.yamlio import line_of, top_mapping

SPACE = re.compile(r"\s+")
# where a user finds the catalogued names: the stand-in note and `flashtune envelope --help` say it alike
CATALOG = "the drive catalog (`flashtune envelope --drives`; data/envelope/devices.yaml, models:)"


def devices_path() -> Path:
    return data_path("envelope") / "devices.yaml"


def model_key(name: str) -> str:
    """A drive model name as the catalog matches it: case and white space do not count."""
    return SPACE.sub("", name).casefold()


def _section(name: str) -> tuple[dict[Any, Any], Path]:
    path = devices_path()
    return top_mapping(path, name, "{<name>: {figures...}}"), path


def _figures(entry: Any, where: str, line: int | None) -> dict[str, float]:
    return {
        f: number(entry.get(f) if isinstance(entry, dict) else None, f, where, line_of(entry, f) or line)
        for f in DRIVE_FIGURES
    }


@cache
def device_defaults() -> dict[str, dict[str, Any]]:
    """devices.yaml's types: device type -> its default figures, `example` (the drive they are) and source.
    Every device type has one entry, and the notes that name the stand-in drive need its `example`."""
    types, path = _section("types")
    if sorted(types) != sorted(DEVICE_TYPES):
        raise DataError(
            f"devices.yaml types: lists {', '.join(map(str, types)) or 'nothing'}, "
            f"not the device types {', '.join(DEVICE_TYPES)}",
            file=str(path),
            line=line_of(types) or 1,
            suggestion="give each device type of a hardware file one entry, named as the hardware file names it",
        )
    for name, t in types.items():
        line = line_of(types, name)
        _figures(t, str(path), line)
        example = t.get("example")
        if not isinstance(example, str) or not example.strip():
            raise DataError(
                f"device type {name!r} needs example: the drive whose figures these are",
                file=str(path),
                line=line_of(t, "example") or line,
            )
        if not isinstance(t.get("model", ""), str):
            raise DataError(
                f"device type {name!r}: model must be the example drive's model name",
                file=str(path),
                line=line_of(t, "model") or line,
            )
    return {str(k): dict(v) for k, v in types.items()}


@cache
def drive_catalog() -> dict[str, dict[str, Any]]:
    """devices.yaml's models: the model_key of every catalogued name and alias -> the drive's entry, with
    its catalog name under 'model' and its figures checked like a hardware file's."""
    models, path = _section("models")
    out: dict[str, dict[str, Any]] = {}
    for name, entry in models.items():
        line = line_of(models, name)
        if not isinstance(entry, dict):
            raise DataError(
                f"drive {name!r} must be a mapping {{type, interface, {', '.join(DRIVE_FIGURES)}, source}}",
                file=str(path),
                line=line,
            )
        figures = _figures(entry, str(path), line)
        kind = entry.get("type")
        if kind not in DEVICE_TYPES:
            raise DataError(
                f"drive {name!r}: type {kind!r} is not one of {', '.join(DEVICE_TYPES)}",
                file=str(path),
                line=line_of(entry, "type") or line,
            )
        drive = {"model": str(name), "type": kind, **figures}
        aliases = entry.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) and a.strip() for a in aliases):
            raise DataError(
                f"drive {name!r}: aliases must be a list of names, got {aliases!r}",
                file=str(path),
                line=line_of(entry, "aliases") or line,
                suggestion="aliases: [Other Name 1, Other Name 2]",
            )
        for alias in [name, *aliases]:
            key = model_key(str(alias))
            if key in out:
                raise DataError(
                    f"drive catalog: {alias!r} names both {out[key]['model']!r} and {name!r}",
                    file=str(path),
                    line=line,
                    suggestion="give each model and alias once",
                )
            out[key] = drive
    return out


def catalog_rows() -> list[dict[str, Any]]:
    """Every catalogued drive once, by name: its type, figures, aliases and source (`flashtune envelope
    --drives`), so a user of an installed flashtune, who has no data/ folder to read, finds the names."""
    section, _ = _section("models")
    models = {str(k): v for k, v in section.items()}  # drive_catalog's names: a bare number (9300:) as text
    drives = {d["model"]: d for d in drive_catalog().values()}
    rows = [
        {
            **drives[name],
            "interface": models[name].get("interface"),
            "aliases": list(models[name].get("aliases", [])),
            "source": models[name].get("source"),
            "default_for": None,
        }
        for name in drives
    ]
    # the shipped tiers' drives: their type's defaults, taken as their own figures when a file names them
    rows += [
        {
            "model": t["model"],
            "type": kind,
            **{f: float(t[f]) for f in DRIVE_FIGURES},
            "interface": None,
            "aliases": [],
            "source": t.get("source"),
            "default_for": kind,
        }
        for kind, t in device_defaults().items()
        if str(t.get("model", "")).strip()
    ]
    return sorted(rows, key=lambda r: model_key(r["model"]))


def names_drive(model: str, name: str) -> bool:
    """Does a hardware file's model name this drive (case and spaces ignored; an empty name matches nothing)?"""
    return bool(model.strip()) and model_key(model) == model_key(name)


def catalogued(model: str) -> dict[str, Any] | None:
    """The catalog's entry for a hardware file's model name, if it names one."""
    return drive_catalog().get(model_key(model)) if model.strip() else None


def figures_of(g: DeviceGroup) -> tuple[dict[str, float | None], bool]:
    """A device group's figures in the order above, and whether the type's defaults stood in for them (not
    where the group's model is the defaults' own drive)."""
    own: dict[str, float | None] = {f: getattr(g, f) for f in DRIVE_FIGURES}
    known = catalogued(g.model)
    if known is not None and known["type"] == g.type:
        return {f: own[f] if own[f] is not None else float(known[f]) for f in DRIVE_FIGURES}, False
    if any(v is not None for v in own.values()):
        return own, False
    default = device_defaults()[g.type]  # every device type has one (device_defaults checks)
    own_drive = names_drive(g.model, default.get("model", ""))
    return {f: float(default[f]) for f in DRIVE_FIGURES}, not own_drive


def figure(g: DeviceGroup, name: str) -> float:
    """One figure of a device group (compile/recovery.py's device write rate): figures_of's, or the type's
    default where an entry gives other figures but not this one (recovery needs a rate to estimate with)."""
    value = figures_of(g)[0][name]
    return value if value is not None else float(device_defaults()[g.type][name])


def _vendor(name: str) -> str:
    words = name.split()
    return words[0].casefold() if words else ""


def defaults_note(g: DeviceGroup, default: dict[str, Any]) -> str:
    """What stood in for a drive group that gave no figures, and how to give the real drive's."""
    own = catalogued(g.model)
    if not g.model.strip():
        who, why = f"{g.count} x {g.type} (no model)", "no model and no figures given"
    elif own is not None:
        who = f"{g.count} x {g.model}"
        why = f"no figures given, and the catalog lists this model as {own['type']}, not {g.type}"
    else:
        who, why = f"{g.count} x {g.model}", "no figures given and the model is not in the drive catalog"
    figures = (
        f"{default['read_iops']:,.0f} / {default['write_iops']:,.0f} IOPS and "
        f"{default['read_mb_s']:,.0f} / {default['write_mb_s']:,.0f} MB/s read / write"
    )
    note = (
        f"data drives {who}: {why}, so the {g.type} type defaults stood in, the figures of "
        f"{default['example']}: {figures}. Give read_iops, write_iops, read_mb_s and write_mb_s on the "
        f"entry, or a model {CATALOG} names"
    )
    vendor = _vendor(g.model)
    near = sorted({d["model"] for d in drive_catalog().values() if vendor and _vendor(d["model"]) == vendor})
    if near:
        note += f"; catalogued {g.model.split()[0]} drives: {', '.join(near)}"
    return note


def drives_of(hw: Hardware) -> tuple[tuple[Drives, ...], tuple[str, ...]]:
    """The hardware's data drive groups with their figures, and a note for each group the type defaults
    stood in for (none in a shipped tier)."""
    out = []
    notes = []
    for g in hw.data_devices:
        figures, by_type = figures_of(g)
        if by_type and not hw.tier:
            notes.append(defaults_note(g, device_defaults()[g.type]))
        out.append(Drives(count=g.count, type=g.type, model=g.model, **figures))
    return tuple(out), tuple(notes)

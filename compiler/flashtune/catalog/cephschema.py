"""Reading Ceph's own typed option schema, normalised so releases can be compared.

Sources: a Pacific-style JSON dump (`ceph daemon mon.a config help`, or mon `config help` per name)
and Quincy+ `src/common/options/*.yaml.in` files. Both spell values differently (JSON: sizes as decimal
strings, floats sometimes as ints; YAML: `4_K`, `5_min`, `@VAR@` placeholders), so every value is
normalised here to one Python type per Ceph type: int for int/uint/size/secs/millisecs, float, bool, str.
Used by scripts/derive_ceph_facts.py and by the tests that compare the catalog with a live monitor.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from flashtune.errors import DataError
from flashtune.fileio import read_text
from flashtune.units import IEC, SECONDS

INT_TYPES = ("int", "uint", "size", "secs", "millisecs")
# y2c.py's literal suffixes: sizes in powers of 1024, durations in seconds.
_SUFFIX = {
    **{u.upper(): IEC[u] for u in "kmgtp"},
    **{u: SECONDS[u] for u in ("sec", "min", "hr", "day", "week")},
}
_PLACEHOLDER = re.compile(r"@([A-Za-z0-9_]+)@")
# PyYAML's safe loader, with libyaml where it is built in (the options files are large); it reads all 39
# files of the three reference releases exactly as ruamel's YAML 1.2 safe loader does
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class CephOption:
    name: str
    type: str
    level: str
    default: Any
    min: int | float | None
    max: int | float | None
    enum: tuple[str, ...]
    flags: tuple[str, ...]
    services: tuple[str, ...]

    @property
    def effect(self) -> str:
        """When a change takes effect, in the catalog's terms."""
        if "create" in self.flags or "cluster_create" in self.flags:
            return "create"
        return "runtime" if "runtime" in self.flags else "restart"


_NUMBER_UNIT = re.compile(r"(-?[0-9.]+(?:[eE]-?[0-9]+)?)_?([A-Za-z]*)")


def normalize(type_: str, raw: Any) -> Any:
    """One value (default/min/max) as the catalog stores it; None for 'unset' ('' in JSON dumps)."""
    if raw is None:
        return None
    if type_ == "bool":
        if isinstance(raw, bool):
            return raw
        return str(raw).strip().lower() in ("true", "1", "yes", "on")
    if type_ in INT_TYPES or type_ == "float":
        if isinstance(raw, bool):
            return int(raw)
        if isinstance(raw, (int, float)):
            return float(raw) if type_ == "float" else int(raw)
        text = str(raw).strip()
        if text == "":
            return None
        m = _NUMBER_UNIT.fullmatch(text)
        if not m:
            return text  # e.g. an unsubstituted @VAR@; kept verbatim
        number, suffix = m.groups()
        scale = _SUFFIX.get(suffix, 1) if suffix else 1
        value = float(number) * scale
        return value if type_ == "float" else int(value)
    return "" if raw is None else str(raw)


# What Ceph uses when an option's YAML entry has no default (Option's value-initialised default).
_IMPLICIT_DEFAULT = {
    "str": "",
    "bool": False,
    "float": 0.0,
    "uuid": "00000000-0000-0000-0000-000000000000",
    "addr": "-",
    "addrvec": "-",
}


def _option(entry: dict[str, Any], services: tuple[str, ...] = ()) -> CephOption:
    t = str(entry["type"])
    if "default" not in entry:
        entry = {**entry, "default": _IMPLICIT_DEFAULT.get(t, 0)}
    flags = entry.get("flags") or []
    if entry.get("can_update_at_runtime") and "runtime" not in flags:
        flags = [*flags, "runtime"]
    enum = entry.get("enum_values") or []
    return CephOption(
        name=str(entry["name"]),
        type=t,
        level=str(entry.get("level", "advanced")),
        default=normalize(t, entry.get("default")),
        min=_bound(t, entry.get("min")),
        max=_bound(t, entry.get("max")),
        enum=tuple(str(e) for e in enum),
        flags=tuple(str(f) for f in flags),
        services=tuple(dict.fromkeys([*(str(s) for s in entry.get("services") or []), *services])),
    )


def _bound(type_: str, raw: Any) -> int | float | None:
    v = normalize("float" if type_ == "float" else "int", raw)
    return v if isinstance(v, (int, float)) else None


def parse_help_json(doc: Any) -> dict[str, CephOption]:
    """Options from a `config help` dump: a list, a {name: entry} map, or {"options": [...]}."""
    if isinstance(doc, dict) and "options" in doc:
        doc = doc["options"]
    entries = list(doc.values()) if isinstance(doc, dict) else list(doc)
    return {o.name: o for o in (_option(e) for e in entries if isinstance(e, dict) and "name" in e)}


def load_json(path: Path) -> dict[str, CephOption]:
    try:
        return parse_help_json(json.loads(read_text(path)))
    except json.JSONDecodeError as e:
        raise DataError(f"not JSON: {e.msg}", file=str(path), line=e.lineno, column=e.colno) from None


def load_yaml_in_dir(directory: Path) -> dict[str, CephOption]:
    """All options of a Quincy+ `src/common/options/` folder (the file name adds its service)."""
    out: dict[str, CephOption] = {}
    for path in sorted(directory.glob("*.yaml.in")):
        # CMake fills @VAR@ in; '@' cannot start a YAML scalar, so write <VAR> instead
        text = _PLACEHOLDER.sub(lambda m: f"<{m.group(1)}>", read_text(path))
        doc = yaml.load(text, Loader=_SAFE_LOADER)
        service = path.name.removesuffix(".yaml.in")
        service = {"crimson": "osd", "mds-client": "mds_client", "global": ""}.get(service, service)
        for entry in doc.get("options", []):
            opt = _option(entry, (service,) if service else ())
            out[opt.name] = opt
    return out

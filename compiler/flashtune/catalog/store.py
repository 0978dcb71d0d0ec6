"""Loading and querying the catalog files (data/knobs/*.yaml)."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from flashtune.catalog.model import DOMAINS, EFFECT, SAFETY, TYPES, Knob, Location
from flashtune.errors import DataError
from flashtune.paths import knobs_dir
from flashtune.yamlio import line_of, load_yaml

_REQUIRED = ("name", "domain", "location", "type", "rationale")
_KNOWN = {
    "name", "domain", "location", "type", "unit", "default", "min", "max", "enum", "added", "removed",
    "renamed_to", "misspelling_of", "effect", "safety", "safety_note", "level", "applies_to", "evidence",
    "present_in", "inferred", "rationale",
}  # fmt: skip


def _tuple(v: Any) -> tuple[str, ...]:
    if v is None:
        return ()
    if isinstance(v, str):
        return (v,)
    return tuple(str(x) for x in v)


def _knob(raw: Any, path: Path) -> Knob:
    line = line_of(raw)
    if not isinstance(raw, dict):
        raise DataError("a knob must be a mapping", file=str(path), line=line)
    name = raw.get("name", "?")
    for key in _REQUIRED:
        if key not in raw:
            raise DataError(f"knob {name!r} lacks required field {key!r}", file=str(path), line=line,
                            suggestion=f"add '{key}:' to the knob")  # fmt: skip
    for key in raw:
        if key not in _KNOWN:
            close = difflib.get_close_matches(str(key), sorted(_KNOWN), n=1)
            raise DataError(f"knob {name!r} has unknown field {key!r}", file=str(path), line=line_of(raw, key),
                            suggestion=f"did you mean {close[0]!r}?" if close else "remove it")  # fmt: skip

    def check(field: str, value: Any, allowed: tuple[str, ...]) -> None:
        if value not in allowed:
            raise DataError(f"knob {name!r}: {field} {value!r} is not one of {', '.join(allowed)}",
                            file=str(path), line=line_of(raw, field))  # fmt: skip

    check("domain", raw["domain"], DOMAINS)
    check("type", raw["type"], TYPES)
    check("safety", raw.get("safety", "safe"), SAFETY)
    check("effect", raw.get("effect", "runtime"), EFFECT)
    loc = raw["location"]
    if isinstance(loc, str):
        location = Location(file=loc)
    else:
        location = Location(file=str(loc["file"]), sections=_tuple(loc.get("sections")))
    default = raw.get("default")
    defaults = {str(k): v for k, v in default.items()} if isinstance(default, dict) else {"*": default}
    return Knob(
        name=str(raw["name"]), domain=str(raw["domain"]), location=location, type=str(raw["type"]),
        rationale=str(raw["rationale"]).strip(), unit=raw.get("unit"), default=defaults,
        min=raw.get("min"), max=raw.get("max"), enum=_tuple(raw.get("enum")), added=raw.get("added"),
        removed=raw.get("removed"), renamed_to=raw.get("renamed_to"), misspelling_of=raw.get("misspelling_of"),
        effect=str(raw.get("effect", "runtime")), safety=str(raw.get("safety", "safe")),
        safety_note=raw.get("safety_note"), level=raw.get("level"), applies_to=_tuple(raw.get("applies_to")),
        evidence=_tuple(raw.get("evidence")), present_in=_tuple(raw.get("present_in")),
        inferred=_tuple(raw.get("inferred")), source_file=str(path), source_line=line,
    )  # fmt: skip


class Catalog:
    """All knobs, indexed by (domain, name)."""

    def __init__(self, knobs: list[Knob]) -> None:
        self._by_key: dict[tuple[str, str], Knob] = {}
        for k in knobs:
            key = (k.domain, k.name)
            if key in self._by_key:
                first = self._by_key[key]
                raise DataError(f"knob {k.name!r} ({k.domain}) is defined twice (first at "
                                f"{first.source_file}:{first.source_line})", file=k.source_file,
                                line=k.source_line, suggestion="merge the two entries")  # fmt: skip
            self._by_key[key] = k

    def __iter__(self) -> Iterator[Knob]:
        return iter(self._by_key.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def get(self, name: str, domain: str | None = None) -> Knob | None:
        if domain is not None:
            return self._by_key.get((domain, name))
        for d in DOMAINS:
            k = self._by_key.get((d, name))
            if k is not None:
                return k
        return None

    def in_domain(self, domain: str) -> list[Knob]:
        return [k for k in self if k.domain == domain]

    def suggest(self, name: str, domain: str | None = None, n: int = 3) -> list[str]:
        names = sorted(
            {k.name for k in self if (domain is None or k.domain == domain) and not k.misspelling_of}
        )
        return difflib.get_close_matches(name, names, n=n, cutoff=0.6)


def load_from(directory: Path) -> Catalog:
    knobs: list[Knob] = []
    for path in sorted(directory.glob("*.yaml")):
        doc = load_yaml(path)
        items = doc.get("knobs") if isinstance(doc, dict) else doc
        if not isinstance(items, list):
            raise DataError("expected a list of knobs (or a mapping with 'knobs:')", file=str(path), line=1)
        knobs.extend(_knob(raw, path) for raw in items)
    return Catalog(knobs)


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    return load_from(knobs_dir())

"""Loading and querying the catalog files (data/knobs/*.yaml)."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any

from flashtune.catalog import deps, spelling, vocab
from flashtune.catalog.knob import DOMAINS, EFFECT, SAFETY, TYPES, Knob, Location, ValueRule
from flashtune.catalog.status import OBJECTSTORE_KNOB, Status, component_status, knob_status
from flashtune.errors import DataError
from flashtune.fileio import read_text
from flashtune.paths import data_dir, read_checked
from flashtune.releases import CEPH_RELEASES, MYSQL_FLAVOURS
from flashtune.yamlio import line_of, load_yaml, parse_yaml

# Field names come from the schema (flashtune.catalog.vocab): a field added there is known here.
_REQUIRED = vocab.required()
_KNOWN = set(vocab.fields())
_RULE_KEYS = set(vocab.fields("unsafe")) | set(vocab.fields("gone"))


def _tuple(v: Any) -> tuple[str, ...]:
    if v is None:
        return ()
    if isinstance(v, str):
        return (v,)
    return tuple(str(x) for x in v)


def _rules(raw: Any, field: str, name: str, path: str) -> tuple[ValueRule, ...]:
    """unsafe_values / removed_values: one mapping or a list of {values, safety, note, removed}."""
    items = raw.get(field)
    if items is None:
        return ()
    if isinstance(items, dict):
        items = [items]
    rules = []
    for item in items:
        wfile, wline = str(path), line_of(item) or line_of(raw, field)
        if not isinstance(item, dict) or "values" not in item:
            raise DataError(
                f"knob {name!r}: each {field} entry needs 'values:'",
                file=wfile,
                line=wline,
                suggestion="write e.g. {values: [none], safety: security-risk, note: ...}",
            )
        extra = set(item) - _RULE_KEYS
        if extra:
            raise DataError(
                f"knob {name!r}: unknown key(s) {sorted(extra)} in {field}",
                file=wfile,
                line=wline,
                suggestion=f"allowed: {', '.join(sorted(_RULE_KEYS))}",
            )
        safety = str(item.get("safety", "safe"))
        if safety not in SAFETY:
            raise DataError(
                f"knob {name!r}: {field} safety {safety!r} is not one of {', '.join(SAFETY)}",
                file=wfile,
                line=wline,
            )
        if field == "unsafe_values" and safety == "safe":
            raise DataError(
                f"knob {name!r}: an unsafe_values entry needs a safety class",
                file=wfile,
                line=wline,
                suggestion="add safety: durability-risk | integrity-risk | security-risk",
            )
        rules.append(
            ValueRule(
                values=_tuple(item["values"]),
                safety=safety,
                note=item.get("note"),
                removed=item.get("removed"),
            )
        )
    return tuple(rules)


def _knob(raw: Any, path: str) -> Knob:
    line = line_of(raw)
    if not isinstance(raw, dict):
        raise DataError("a knob must be a mapping", file=str(path), line=line)
    name = raw.get("name", "?")
    for key in _REQUIRED:
        if key not in raw:
            raise DataError(
                f"knob {name!r} lacks required field {key!r}",
                file=str(path),
                line=line,
                suggestion=f"add '{key}:' to the knob",
            )
    for key in raw:
        if key not in _KNOWN:
            close = difflib.get_close_matches(str(key), sorted(_KNOWN), n=1)
            raise DataError(
                f"knob {name!r} has unknown field {key!r}",
                file=str(path),
                line=line_of(raw, key),
                suggestion=f"did you mean {close[0]!r}?" if close else "remove it",
            )

    def check(field: str, value: Any, allowed: tuple[str, ...]) -> None:
        if value not in allowed:
            raise DataError(
                f"knob {name!r}: {field} {value!r} is not one of {', '.join(allowed)}",
                file=str(path),
                line=line_of(raw, field),
            )

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
        name=str(raw["name"]),
        domain=str(raw["domain"]),
        location=location,
        type=str(raw["type"]),
        rationale=str(raw["rationale"]).strip(),
        unit=raw.get("unit"),
        default=defaults,
        min=raw.get("min"),
        max=raw.get("max"),
        enum=_tuple(raw.get("enum")),
        added=raw.get("added"),
        removed=raw.get("removed"),
        renamed_to=raw.get("renamed_to"),
        misspelling_of=raw.get("misspelling_of"),
        effect=str(raw.get("effect", "runtime")),
        safety=str(raw.get("safety", "safe")),
        safety_note=raw.get("safety_note"),
        level=raw.get("level"),
        applies_to=_tuple(raw.get("applies_to")),
        evidence=_tuple(raw.get("evidence")),
        present_in=_tuple(raw.get("present_in")),
        when_absent={str(k): str(v) for k, v in (raw.get("when_absent") or {}).items()},
        inferred=_tuple(raw.get("inferred")),
        flags=_tuple(raw.get("flags")),
        aliases=_tuple(raw.get("aliases")),
        seeds=_tuple(raw.get("seeds")),
        unsafe_values=_rules(raw, "unsafe_values", name, path),
        removed_values=_rules(raw, "removed_values", name, path),
        source_file=str(path),
        source_line=line,
        dead_when=deps.parse(raw.get("dead_when"), str(name), path, line),
    )


class Catalog:
    """All knobs, indexed by (domain, name)."""

    def __init__(self, knobs: list[Knob]) -> None:
        self._by_key: dict[tuple[str, str], Knob] = {}
        self._stores: dict[str, str | None] | None = None  # objectstores(), worked out on first use
        for k in knobs:
            key = (k.domain, k.name)
            first = self._by_key.get(key)
            if first is not None:
                raise DataError(
                    f"knob {k.name!r} ({k.domain}) is defined twice (first at "
                    f"{first.source_file}:{first.source_line})",
                    file=k.source_file,
                    line=k.source_line,
                    suggestion="merge the two entries",
                )
            self._by_key[key] = k
        self._alias: dict[tuple[str, str], tuple[str, str]] = {}
        for k in knobs:
            for a in k.aliases:
                self._alias.setdefault((k.domain, a), (k.domain, k.name))

    def __iter__(self) -> Iterator[Knob]:
        return iter(self._by_key.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def get(self, name: str, domain: str | None = None) -> Knob | None:
        """The knob of that exact name (or alias), in domain or in the first domain that has it."""
        for d in (domain,) if domain is not None else DOMAINS:
            k = self._by_key.get((d, name))
            if k is None:
                alias = self._alias.get((d, name))
                k = self._by_key.get(alias) if alias is not None else None
            if k is not None:
                return k
        return None

    def resolve(self, key: str, domain: str | None = None) -> Knob | None:
        """Look up a key as written in a config file, with that file's spelling rules.

        ceph.conf treats spaces (and runs of them) like '_'; my.cnf treats '-' like '_' and
        ignores a 'loose-' prefix; sysctl.conf accepts '/' for '.'.
        """
        candidates = spelling.candidates(key, domain)
        for c in candidates:
            k = self.get(c, domain)
            if k is not None:
                return k
        return None

    def objectstores(self) -> dict[str, str | None]:
        """Every object store Ceph knows -> the release it was removed in (None while it exists)."""
        return dict(self._objectstores())

    def _objectstores(self) -> dict[str, str | None]:
        # worked out once: every Ceph knob's status needs it (the linter asks for each line of a ceph.conf)
        if self._stores is None:
            k = self.get(OBJECTSTORE_KNOB, "ceph")
            enum = k.enum if k is not None else ()
            self._stores = {
                v: (r.removed if (r := k.removed_value(v)) else None) for v in enum if k is not None
            }
        return self._stores

    def default_objectstore(self, release: str) -> str | None:
        """The object store new OSDs get in that release when ceph.conf does not choose one."""
        k = self.get(OBJECTSTORE_KNOB, "ceph")
        d = k.default_for(release) if k is not None else None
        return None if d is None else str(d)

    def status(self, knob: Knob, release: str | None, objectstore: str | None = None) -> Status:
        """The knob's status in release; Ceph knobs for one object store are judged against objectstore
        (default: the release's default store)."""
        if knob.domain != "ceph" or release not in CEPH_RELEASES:
            return knob_status(knob, release)
        store = objectstore or self.default_objectstore(release)
        return knob_status(knob, release, store, self._objectstores())

    def component_status(self, component: str, release: str, objectstore: str | None = None) -> Status:
        """Status of a line that only `component` (an object store) reads, for keys the catalog lacks."""
        store = objectstore or self.default_objectstore(release)
        return component_status((component,), release, store, self._objectstores())

    def in_domain(self, domain: str) -> list[Knob]:
        return [k for k in self if k.domain == domain]

    def with_dependencies(self, domain: str) -> list[Knob]:
        """The knobs of a domain that have dependency facts (dead_when)."""
        return [k for k in self.in_domain(domain) if k.dead_when]

    def names_with_dependencies(self, domain: str) -> frozenset[str]:
        """Names and aliases of the knobs of a domain that have dependency facts (the linter's pre-check for
        every key of a file; it looks the few that match up)."""
        keys = {(k.domain, k.name) for k in self.with_dependencies(domain)}
        aliases = [alias for (_d, alias), key in self._alias.items() if key in keys]
        return frozenset([name for _d, name in keys] + aliases)

    def suggest(self, name: str, domain: str | None = None, n: int = 3) -> list[str]:
        names = sorted(
            {k.name for k in self if (domain is None or k.domain == domain) and not k.misspelling_of}
        )
        return difflib.get_close_matches(name, names, n=n, cutoff=0.6)


def _check_refs(catalog: Catalog) -> None:
    """Cross-knob facts: release names are known, misspelling_of/renamed_to point at catalogued knobs."""
    for k in catalog:
        wfile, wline = k.source_file, k.source_line
        order = MYSQL_FLAVOURS if k.domain == "mysql" else CEPH_RELEASES
        if k.domain in ("ceph", "mysql"):
            for field, value in (("added", k.added), ("removed", k.removed)):
                if value is not None and value not in order:
                    raise DataError(
                        f"knob {k.name!r}: {field} {value!r} is not a known release",
                        suggestion=f"use one of {', '.join(order)}",
                        file=wfile,
                        line=wline,
                    )
            for r in (*k.present_in, *k.inferred, *(d for d in k.default if d != "*")):
                if r not in order:
                    raise DataError(
                        f"knob {k.name!r}: {r!r} is not a known release/flavour",
                        suggestion=f"use one of {', '.join(order)}",
                        file=wfile,
                        line=wline,
                    )
        elif k.removed is not None and not k.removed.startswith("linux-"):
            raise DataError(
                f"knob {k.name!r}: removed {k.removed!r} should name a kernel, e.g. linux-4.12",
                file=wfile,
                line=wline,
            )
        for rule in k.dead_when:
            if rule.knob is not None and catalog.get(rule.knob, k.domain) is None:
                raise DataError(
                    f"knob {k.name!r}: dead_when names {rule.knob!r}, which is not in the catalog",
                    suggestion="catalogue that knob too",
                    file=wfile,
                    line=wline,
                )
        for field, target in (("misspelling_of", k.misspelling_of), ("renamed_to", k.renamed_to)):
            if target is not None and catalog.get(target, k.domain) is None:
                raise DataError(
                    f"knob {k.name!r}: {field} {target!r} is not in the catalog",
                    suggestion="catalogue the target knob too",
                    file=wfile,
                    line=wline,
                )


def _load(docs: Iterable[tuple[str, Any]]) -> Catalog:
    """The catalog of loaded knob files ((how messages name the file, its content)), every knob and the
    references between knobs checked."""
    knobs: list[Knob] = []
    for path, doc in docs:
        items = doc.get("knobs") if isinstance(doc, dict) else doc
        if not isinstance(items, list):
            raise DataError("expected a list of knobs (or a mapping with 'knobs:')", file=str(path), line=1)
        knobs.extend(_knob(raw, path) for raw in items)
    catalog = Catalog(knobs)
    _check_refs(catalog)
    return catalog


def load_from(directory: str | Path) -> Catalog:
    """The catalog of a folder of knob YAML files (tests and tools; the CLIs use load_catalog)."""
    paths = sorted(Path(directory).glob("*.yaml"))
    return _load((str(path), load_yaml(path)) for path in paths)


# --- the checked catalog in the data snapshot ----------------------------------------------------------
KNOBS = "knobs.json"  # checked/knobs.json: every knob, built and checked, as knob_json writes it
_TUPLES = ("enum", "applies_to", "evidence", "present_in", "inferred", "flags", "aliases", "seeds")


def knob_json(k: Knob) -> dict[str, Any]:
    """A built knob as JSON-ready data (its fields by name; nested dataclasses as mappings)."""
    d: dict[str, Any] = asdict(k)
    return d


def knob_from_json(d: dict[str, Any]) -> Knob:
    """The Knob that knob_json wrote (JSON lists back to tuples, mappings back to dataclasses)."""
    return Knob(
        **{
            **d,
            **{name: tuple(d[name]) for name in _TUPLES},
            "location": Location(d["location"]["file"], tuple(d["location"]["sections"])),
            "unsafe_values": tuple(_value_rule(r) for r in d["unsafe_values"]),
            "removed_values": tuple(_value_rule(r) for r in d["removed_values"]),
            "dead_when": tuple(_dead_when(r) for r in d["dead_when"]),
        }
    )


def _value_rule(d: dict[str, Any]) -> ValueRule:
    return ValueRule(**{**d, "values": tuple(d["values"])})


def _dead_when(d: dict[str, Any]) -> deps.DeadWhen:
    return deps.DeadWhen(
        **{
            **d,
            "is_": tuple(d["is_"]),
            "is_not": tuple(d["is_not"]),
            "value_in": tuple(d["value_in"]),
            "context": {k: tuple(v) for k, v in d["context"].items()},
        }
    )


def checked_knobs(folder: Path, label: str) -> list[dict[str, Any]]:
    """Every knob of <folder>/knobs/*.yaml, checked as a whole catalog, as JSON (knob_json): what the data
    snapshot's build writes to checked/knobs.json. `label`: how messages name the folder."""
    docs = []
    for path in sorted(Path(folder, "knobs").glob("*.yaml")):
        where = f"{label}/knobs/{path.name}"
        docs.append((where, parse_yaml(read_text(path), where)))
    out = []
    for k in _load(docs):
        d = knob_json(k)
        if knob_from_json(json.loads(json.dumps(d))) != k:  # a value JSON cannot hold as it is
            raise DataError(
                f"knob {k.name!r} does not read back the same from JSON",
                file=k.source_file,
                line=k.source_line,
                suggestion="write its values as plain strings, numbers, lists and mappings",
            )
        out.append(d)
    return out


def load_catalog() -> Catalog:
    """The catalog of the data in use: every knob as the data snapshot's build checked it."""
    return _catalog(data_dir())


@cache
def _catalog(root: str) -> Catalog:
    return Catalog([knob_from_json(d) for d in read_checked(KNOBS, checked_knobs)])

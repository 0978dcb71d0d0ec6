"""Loading and querying the catalog files (data/knobs/*.yaml)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import fields, is_dataclass
from functools import cache, lru_cache
from itertools import repeat
from typing import Any

from flashtune.catalog import deps, spelling, vocab
from flashtune.catalog.model import DOMAINS, EFFECT, SAFETY, TYPES, Knob, Location, ValueRule
from flashtune.catalog.status import OBJECTSTORE_KNOB, Status, component_status, knob_status
from flashtune.errors import DataError
from flashtune.pathnames import StrPath, join, stems
from flashtune.paths import (
    SNAPSHOT_DIR,
    SOURCE_DATA,
    compiled,
    data_dir,
    data_label,
    data_names,
    data_path,
    load_data,
)
from flashtune.releases import CEPH_RELEASES, MYSQL_FLAVOURS
from flashtune.yamlio import line_of, load_yaml

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
            import difflib  # here: only an error needs it, and it costs every CLI start-up

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


def _digest(value: Any) -> Any:
    """A built knob as JSON-ready data: a dataclass as the list of its fields in order, a tuple as a list."""
    if is_dataclass(value) and not isinstance(value, type):
        return [_digest(getattr(value, f.name)) for f in fields(value)]
    if isinstance(value, (tuple, list)):
        return [_digest(v) for v in value]
    if isinstance(value, dict):
        return {k: _digest(v) for k, v in value.items()}
    return value


def _value_rules(rows: list[list[Any]]) -> tuple[ValueRule, ...]:
    return tuple(ValueRule(tuple(values), *rest) for values, *rest in rows)


def _dead_when(rows: list[list[Any]]) -> tuple[deps.DeadWhen, ...]:
    return tuple(
        deps.DeadWhen(
            kind,
            why,
            source,
            knob,
            tuple(is_),
            {k: tuple(v) for k, v in context.items()},
            tuple(value_in),
            *rest,
        )
        for kind, why, source, knob, is_, context, value_in, *rest in rows
    )


@cache
def _rebuild_plan() -> tuple[tuple[int, Callable[[Any], Any]], ...]:
    """(field index, how to rebuild it from JSON) of the Knob fields that are not JSON values as they are."""
    how: dict[str, Callable[[Any], Any]] = {
        "location": lambda v: Location(v[0], tuple(v[1])),
        "unsafe_values": _value_rules,
        "removed_values": _value_rules,
        "dead_when": _dead_when,
    }
    return tuple(
        (i, how.get(f.name, tuple))
        for i, f in enumerate(fields(Knob))
        if f.name in how or f.default == ()  # the tuple fields
    )


def _rebuilt(digest: list[Any]) -> Knob:
    """The Knob a _digest describes (written only where this round trip gives the same knob back)."""
    for i, rebuild in _rebuild_plan():
        if digest[i]:  # most are empty: () as the dataclass's default is
            digest[i] = rebuild(digest[i])
        else:
            digest[i] = ()
    return Knob(*digest)


# "Any" in quotes: this type is evaluated at run time, when typing is not imported (start-up cost)
Entry = tuple[Any, str]  # a knob's mapping as loaded and its file


class Catalog:
    """All knobs, indexed by (domain, name).

    Built from Knobs, or (`Catalog.lazy`, `Catalog.indexed`) from entries already checked as a whole, each
    turned into a Knob the first time it is asked for: compile-config uses a fraction of the catalog.
    """

    def __init__(self, knobs: list[Knob]) -> None:
        # a Knob, a mapping still to check and build (Entry), or the knob's line in the knob index (int)
        self._by_key: dict[tuple[str, str], Knob | Entry | int] = {}
        # the knob index's text and where each knob's line (its fields as JSON, _digest) starts in it
        self._text = ""
        self._starts: list[int] = []
        self._dead: frozenset[int] = frozenset()  # the lines of the knobs with dependency facts (dead_when)
        self._stores: dict[str, str | None] | None = None  # objectstores(), worked out on first use
        for k in knobs:
            key = (k.domain, k.name)
            first = self._by_key.get(key)
            if isinstance(first, Knob):
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

    @classmethod
    def lazy(cls, entries: list[Entry]) -> Catalog:
        """A catalog of checked entries (see load_catalog), each built into a Knob on first use."""
        catalog = cls([])
        for raw, path in entries:
            key = (str(raw["domain"]), str(raw["name"]))
            catalog._by_key.setdefault(key, (raw, path))
            for a in _tuple(raw.get("aliases")):
                catalog._alias.setdefault((key[0], a), key)
        return catalog

    @classmethod
    def indexed(cls, header: dict[str, Any], text: str, body: int) -> Catalog:
        """A catalog from the knob index (see KNOB_INDEX; its knob lines start at text[body:]), each knob made
        from its line when it is asked for."""
        catalog = cls([])
        by_key = catalog._by_key
        line = 0
        for domain, names in header["runs"]:  # C-level loops: no Python code per knob
            by_key.update(zip(zip(repeat(domain), names), range(line, line + len(names)), strict=True))
            line += len(names)
        catalog._alias = {
            (domain, alias): (domain, name)
            for domain, aliases in header["aliases"].items()
            for alias, name in aliases.items()
        }
        catalog._dead = frozenset(header["dead"])
        catalog._text = text
        catalog._starts = [body + start for start in header["starts"]]  # (not split: str.split is a loop)
        return catalog

    def _at(self, key: tuple[str, str]) -> Knob | None:
        k = self._by_key.get(key)
        if k is None or isinstance(k, Knob):
            return k
        built = _rebuilt(json.loads(self._line(k))) if isinstance(k, int) else _knob(*k)
        self._by_key[key] = built
        return built

    def _line(self, n: int) -> str:
        start = self._starts[n]
        end = self._text.find("\n", start)
        return self._text[start : end if end >= 0 else len(self._text)]

    def _has_dead_when(self, k: Knob | Entry | int) -> bool:
        if isinstance(k, int):  # the one fact the knob index records beside each knob
            return k in self._dead
        return bool(k.dead_when) if isinstance(k, Knob) else bool(k[0].get("dead_when"))

    def _all(self, keys: Iterable[tuple[str, str]]) -> list[Knob]:
        return [k for k in map(self._at, list(keys)) if k is not None]

    def __iter__(self) -> Iterator[Knob]:
        return iter(self._all(self._by_key))

    def __len__(self) -> int:
        return len(self._by_key)

    def get(self, name: str, domain: str | None = None) -> Knob | None:
        """The knob of that exact name (or alias), in domain or in the first domain that has it."""
        for d in (domain,) if domain is not None else DOMAINS:
            k = self._at((d, name))
            if k is None:
                alias = self._alias.get((d, name))
                k = self._at(alias) if alias is not None else None
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
        return self._all(key for key in self._by_key if key[0] == domain)

    def with_dependencies(self, domain: str) -> list[Knob]:
        """The knobs of a domain that have dependency facts (dead_when), building no other knob."""
        keys = [key for key, k in self._by_key.items() if key[0] == domain and self._has_dead_when(k)]
        return [k for k in self._all(keys) if k.dead_when]

    def names_with_dependencies(self, domain: str) -> frozenset[str]:
        """Names and aliases of the knobs of a domain that may have dependency facts, building no knob (the
        linter's pre-check for every key of a file; it looks the few that match up)."""
        keys = {key for key, k in self._by_key.items() if key[0] == domain and self._has_dead_when(k)}
        aliases = [alias for (_d, alias), key in self._alias.items() if key in keys]
        return frozenset([name for _d, name in keys] + aliases)

    def suggest(self, name: str, domain: str | None = None, n: int = 3) -> list[str]:
        names = sorted(
            {k.name for k in self if (domain is None or k.domain == domain) and not k.misspelling_of}
        )
        import difflib  # here: only a did-you-mean needs it, and it costs every CLI start-up

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


def _entries(docs: Iterable[tuple[str, Any]]) -> list[Entry]:
    entries: list[Entry] = []
    for path, doc in docs:
        items = doc.get("knobs") if isinstance(doc, dict) else doc
        if not isinstance(items, list):
            raise DataError("expected a list of knobs (or a mapping with 'knobs:')", file=str(path), line=1)
        entries.extend((raw, path) for raw in items)
    return entries


def _load(docs: Iterable[tuple[str, Any]]) -> Catalog:
    catalog = Catalog([_knob(raw, path) for raw, path in _entries(docs)])
    _check_refs(catalog)
    return catalog


def load_from(directory: StrPath) -> Catalog:
    """The catalog of a folder of knob YAML files (tests and tools; the CLIs use load_catalog)."""
    paths = [join(directory, f"{name}.yaml") for name in stems(directory, ".yaml")]
    return _load((path, load_yaml(path)) for path in paths)


# In the data snapshot: the knob files' CRCs when the whole catalog last passed every check (written by the
# wheel build, or by the first load after the knobs changed in a checkout). While it matches, load_catalog
# builds only the knobs asked for.
CHECKED = "knobs.checked.json"
# Written with CHECKED, for the same CRCs: every knob already built, so that load_catalog neither reads the
# knob files nor checks a knob again (the whole catalog passed every check before this was written). Line 1 is
# the header: the stamps, what code wrote it (_code_stamp), the knob files, and what the catalog indexes knobs
# by (names in runs of one domain, aliases, which have dead_when), laid out so that building the index is a few
# C-level loops, and where each knob's line starts; then one knob a line, in catalog order: its fields as JSON
# (_digest). While it matches, load_catalog builds only the knobs asked for, from their lines (compile-config
# uses about a fifth of them).
KNOB_INDEX = "knobs.index.jsonl"
# The layout of the index and its digests (_digest/_rebuilt): change it when they change, and an index written
# before is not used.
_DIGEST_FORMAT = 2


def _knob_stamps(snapshot: StrPath) -> dict[str, Any] | None:
    """What CHECKED records for the snapshot's knob files (None: no snapshot index)."""
    from flashtune import __version__
    from flashtune.snapshot import read_index

    index = read_index(snapshot)
    if index is None:
        return None
    knobs = {rel: stamp[2] for rel, stamp in index.get("sources", {}).items() if rel.startswith("knobs/")}
    return {"flashtune": __version__, "knobs": knobs}


def check_snapshot(snapshot: StrPath) -> None:
    """Load the snapshot's whole catalog with every check, then record that it passed (CHECKED) and write
    the knob index."""
    from flashtune.snapshot import decode

    stamps = _knob_stamps(snapshot)
    files = [f"{name}.yaml" for name in stems(os.path.join(snapshot, "knobs"), ".yaml")]
    catalog = _load(
        (f"data/knobs/{n}", decode(_read_text(os.path.join(snapshot, "knobs", n)))) for n in files
    )
    if stamps is not None:
        _record_checked(snapshot, stamps, catalog)


def _code_stamp(snapshot: StrPath) -> list[Any]:
    """What code a knob index was written by: the digest's format and, for a source checkout's own snapshot
    (where the code changes without a new version), the size and mtime of the modules that build knobs."""
    if os.fspath(snapshot) != SNAPSHOT_DIR or data_dir() != SOURCE_DATA:
        return [_DIGEST_FORMAT]
    here = os.path.dirname(__file__)
    files = ("store.py", "model.py", "deps.py")
    return [
        _DIGEST_FORMAT,
        *[[(st := os.stat(os.path.join(here, f))).st_size, st.st_mtime_ns] for f in files],
    ]


def _knob_index(snapshot: StrPath, catalog: Catalog, stamps: dict[str, Any]) -> str | None:
    """The text of KNOB_INDEX for a catalog that passed every check; None if a knob does not come back the
    same from its JSON (then load_catalog builds knobs from the knob files)."""
    files: set[str] = set()
    runs: list[list[Any]] = []  # [domain, [names]] of consecutive knobs of one domain, in catalog order
    aliases: dict[str, dict[str, str]] = {}
    dead: list[int] = []
    lines: list[str] = []
    starts: list[int] = []  # of each line, after the header's
    for k in catalog:
        line = json.dumps(_digest(k), ensure_ascii=False, separators=(",", ":"))
        if _rebuilt(json.loads(line)) != k:
            return None
        files.add(k.source_file.removeprefix("data/"))
        if not runs or runs[-1][0] != k.domain:
            runs.append([k.domain, []])
        runs[-1][1].append(k.name)
        for a in k.aliases:
            aliases.setdefault(k.domain, {}).setdefault(a, k.name)  # the first knob with an alias keeps it
        if k.dead_when:
            dead.append(len(lines))
        starts.append(starts[-1] + len(lines[-1]) + 1 if lines else 0)
        lines.append(line)
    header = {
        "stamps": stamps,
        "code": _code_stamp(snapshot),
        "files": sorted(files),
        "runs": runs,
        "aliases": aliases,
        "dead": dead,
        "starts": starts,
    }
    return "\n".join([json.dumps(header, sort_keys=True), *lines])


def _record_checked(snapshot: StrPath, stamps: dict[str, Any], catalog: Catalog) -> None:
    import contextlib  # here, as below: only the first load after a snapshot build writes (~3M to import)

    _record_index(snapshot, stamps, catalog)
    with contextlib.suppress(OSError):  # a read-only snapshot: every load checks the whole catalog
        _write_json(os.path.join(snapshot, CHECKED), stamps)


def _record_index(snapshot: StrPath, stamps: dict[str, Any], catalog: Catalog) -> None:
    import contextlib

    text = _knob_index(snapshot, catalog, stamps)
    if text is not None:
        with contextlib.suppress(OSError):  # a read-only snapshot: every load reads the knob files
            _write_text(os.path.join(snapshot, KNOB_INDEX), text)


def _write_json(path: str, data: Any) -> None:
    _write_text(path, json.dumps(data, sort_keys=True))


def _write_text(path: str, text: str) -> None:
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        import contextlib

        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _checked_before(snapshot: StrPath) -> dict[str, Any] | None:
    """None if the snapshot's knobs passed the whole check already; else the stamps to record once they do."""
    stamps = _knob_stamps(snapshot)
    checked = _read_json(os.path.join(snapshot, CHECKED))
    return None if stamps is not None and checked == stamps else (stamps or {})


def _read_json(path: str) -> Any:
    try:
        return json.loads(_read_text(path))
    except (OSError, ValueError):
        return None


def _indexed(snapshot: StrPath, rels: list[str], stamps: dict[str, Any]) -> Catalog | None:
    """The catalog from KNOB_INDEX, if the index is there and was written for the knob files as they are, by
    this code."""
    try:
        text = _read_text(os.path.join(snapshot, KNOB_INDEX))
        end = text.index("\n")
        header = json.loads(text[:end])
    except (OSError, ValueError):
        return None
    if (
        not isinstance(header, dict)
        or header.get("stamps") != stamps
        or header.get("code") != _code_stamp(snapshot)
        or header.get("files") != rels
    ):
        return None
    return Catalog.indexed(header, text, end + 1)


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The shipped catalog (data/knobs/*.yaml, read from the data snapshot)."""
    rels = [f"knobs/{name}.yaml" for name in data_names("knobs")]
    snapshot = bool(rels) and compiled(data_path(rels[0])) is not None
    stamps = _knob_stamps(SNAPSHOT_DIR) if snapshot else None
    if stamps is not None:  # the index is written only once the whole catalog passed every check
        catalog = _indexed(SNAPSHOT_DIR, rels, stamps)
        if catalog is not None:
            return catalog
    docs = [(data_label(rel), load_data(rel)) for rel in rels]
    if not snapshot:  # YAML read as it is (FLASHTUNE_DATA)
        return _load(docs)
    if stamps is not None and _read_json(os.path.join(SNAPSHOT_DIR, CHECKED)) == stamps:
        # checked before the index was written (or by other code): write it for next time
        catalog = Catalog.lazy(_entries(docs))
        _record_index(SNAPSHOT_DIR, stamps, catalog)
        return catalog
    catalog = _load(docs)
    if stamps:
        _record_checked(SNAPSHOT_DIR, stamps, catalog)
    return catalog

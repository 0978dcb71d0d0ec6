"""Layered profiles (data/profiles/*.yaml): resolve `include:` chains and merge them, later layers winning.

A profile holds `settings` (file -> section -> key -> value), optional `unsafe` values (emitted only with
--allow-unsafe), `unset` (keys an earlier layer set that this one removes), a `benchmark` plan, the
default `protection` (replication | erasure), `cluster` facts that replace derived ones (the legacy setup's
OSDs per device), and for legacy profiles `differences` (each may hold only `when: {mysql_flavour: [...]}`)
and a literal `cbt`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from flashtune.errors import DataError
from flashtune.fileio import read_text
from flashtune.paths import data_dir, data_label, read_checked
from flashtune.yamlio import line_of, load_yaml, parse_yaml

# file -> section -> key -> value
Layer = dict[str, dict[str, dict[str, Any]]]
_FIELDS = {
    "name",
    "include",
    "settings",
    "unsafe",
    "unset",
    "benchmark",
    "protection",
    "differences",
    "cbt",
    "source",
    "cluster",
}
_CLUSTER_FIELDS = {"osds_per_device"}


@dataclass
class Profile:
    """One profile layer (data/profiles): its settings, unsafe alternatives and removed keys."""

    name: str
    path: str
    settings: Layer
    unsafe: Layer = field(default_factory=dict)
    unset: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    unset_why: dict[tuple[str, str, str], str] = field(default_factory=dict)  # why a layer removes a key
    benchmark: dict[str, Any] | None = None
    protection: str | None = None
    differences: list[dict[str, Any]] = field(default_factory=list)
    cbt: dict[str, Any] | None = None
    cluster: dict[str, Any] | None = None
    lines: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (file, section, key) -> line
    include: tuple[str, ...] = ()


def _layer(
    node: Any, path: str | Path, what: str, lines: dict[tuple[str, str, str], int] | None = None
) -> Layer:
    if node is None:
        return {}
    if not isinstance(node, dict):
        raise DataError(
            f"'{what}' must map file -> section -> key: value", file=str(path), line=line_of(node)
        )
    out: Layer = {}
    for f, secs in node.items():
        if not isinstance(secs, dict):
            raise DataError(
                f"'{what}.{f}' must map section -> key: value", file=str(path), line=line_of(node, f)
            )
        out[str(f)] = {}
        for s, kv in secs.items():
            if kv is not None and not isinstance(kv, dict):
                raise DataError(
                    f"'{what}.{f}.{s}' must map key: value", file=str(path), line=line_of(secs, s)
                )
            out[str(f)][str(s)] = dict(kv or {})
            if lines is not None:
                for k in kv or {}:
                    ln = line_of(kv, k)
                    if ln:
                        lines[(str(f), str(s), str(k))] = ln
    return out


def read_profile(name: str, directory: str | Path | None = None) -> Profile:
    """A profile of the shipped data (or of `directory`, a folder of profile YAML files)."""
    return _read_profile(name, None if directory is None else os.fspath(directory))


@cache
def _read_profile(name: str, d: str | None) -> Profile:
    if d is None:  # the shipped profiles, as the data snapshot's build checked them
        shipped = _shipped(data_dir())
        if name not in shipped:
            raise DataError(
                f"no profile {name!r}",
                file=data_label(f"profiles/{name}.yaml"),
                suggestion=f"known profiles: {', '.join(sorted(shipped))}",
            )
        return shipped[name]
    path = Path(d, f"{name}.yaml")
    if not path.exists():
        known = sorted(p.stem for p in Path(d).glob("*.yaml"))
        raise DataError(
            f"no profile {name!r}", file=str(path), suggestion=f"known profiles: {', '.join(known)}"
        )
    return _profile(name, str(path), load_yaml(path))


def _profile(name: str, path: str, doc: Any) -> Profile:
    """A profile file's content (as loaded, with lines), checked, as a Profile."""
    if not isinstance(doc, dict) or "settings" not in doc:
        raise DataError(
            "a profile is a mapping with 'name' and 'settings'", file=str(path), line=line_of(doc)
        )
    for key in doc:
        if key not in _FIELDS:
            raise DataError(
                f"unknown profile field {key!r}",
                file=str(path),
                line=line_of(doc, key),
                suggestion=f"known fields: {', '.join(sorted(_FIELDS))}",
            )
    lines: dict[tuple[str, str, str], int] = {}
    unset_raw = doc.get("unset") or {}
    # unset: file -> section -> [key, ...] or {key: why}
    unset = {
        str(f): {str(s): [str(k) for k in (keys or [])] for s, keys in (secs or {}).items()}
        for f, secs in unset_raw.items()
    }
    unset_why = {
        (str(f), str(s), str(k)): " ".join(str(w).split())
        for f, secs in unset_raw.items()
        for s, keys in (secs or {}).items()
        if isinstance(keys, dict)
        for k, w in keys.items()
        if w
    }
    prot = doc.get("protection")
    if prot is not None and prot not in ("replication", "erasure"):
        raise DataError(
            f"protection {prot!r} is not replication or erasure",
            file=str(path),
            line=line_of(doc, "protection"),
        )
    cluster = doc.get("cluster")
    if cluster is not None and (not isinstance(cluster, dict) or set(cluster) - _CLUSTER_FIELDS):
        raise DataError(
            f"'cluster' may only set {', '.join(sorted(_CLUSTER_FIELDS))}",
            file=str(path),
            line=line_of(doc, "cluster"),
        )
    return Profile(
        name=str(doc.get("name", name)),
        path=path,
        settings=_layer(doc.get("settings"), path, "settings", lines),
        unsafe=_layer(doc.get("unsafe"), path, "unsafe"),
        unset=unset,
        unset_why=unset_why,
        benchmark=dict(doc["benchmark"]) if isinstance(doc.get("benchmark"), dict) else None,
        protection=prot,
        differences=[dict(x) for x in doc.get("differences") or []],
        cbt=dict(doc["cbt"]) if isinstance(doc.get("cbt"), dict) else None,
        lines=lines,
        cluster=dict(cluster) if cluster else None,
        include=(inc,) if isinstance(inc := doc.get("include"), str) else tuple(str(x) for x in inc or ()),
    )


# checked/profiles.json in the data snapshot: every shipped profile layer, checked, as _digest writes it
PROFILES = "profiles.json"


def _digest(p: Profile) -> dict[str, Any]:
    """A Profile as JSON-ready data (tuple keys as lists that end with the value)."""
    return {
        "name": p.name,
        "path": p.path,
        "settings": p.settings,
        "unsafe": p.unsafe,
        "unset": p.unset,
        "unset_why": [[*key, why] for key, why in p.unset_why.items()],
        "benchmark": p.benchmark,
        "protection": p.protection,
        "differences": p.differences,
        "cbt": p.cbt,
        "cluster": p.cluster,
        "lines": [[*key, line] for key, line in p.lines.items()],
        "include": list(p.include),
    }


def _rebuilt(d: dict[str, Any]) -> Profile:
    """The Profile a _digest describes."""
    return Profile(
        name=d["name"],
        path=d["path"],
        settings=d["settings"],
        unsafe=d["unsafe"],
        unset=d["unset"],
        unset_why={(f, s, k): why for f, s, k, why in d["unset_why"]},
        benchmark=d["benchmark"],
        protection=d["protection"],
        differences=d["differences"],
        cbt=d["cbt"],
        cluster=d["cluster"],
        lines={(f, s, k): line for f, s, k, line in d["lines"]},
        include=tuple(d["include"]),
    )


def checked_profiles(folder: Path, label: str) -> dict[str, Any]:
    """Every profile of <folder>/profiles, checked, as JSON (name -> _digest): what the data snapshot's build
    writes to checked/profiles.json. A bad profile raises DataError naming <label>/profiles/<name>.yaml and
    the line."""
    out: dict[str, Any] = {}
    for path in sorted(Path(folder, "profiles").glob("*.yaml")):
        where = f"{label}/profiles/{path.name}"
        prof = _profile(path.stem, where, parse_yaml(read_text(path), where))
        digest = _digest(prof)
        if _rebuilt(json.loads(json.dumps(digest))) != prof:  # a value JSON cannot hold as it is
            raise DataError(
                f"profile {path.stem!r} does not read back the same from JSON",
                file=where,
                suggestion="write its values as plain strings, numbers, lists and mappings",
            )
        out[path.stem] = digest
    return out


@cache
def _shipped(root: str) -> dict[str, Profile]:
    """The profiles of the data in use (root: its folder), as the snapshot's build checked them."""
    return {name: _rebuilt(d) for name, d in read_checked(PROFILES, checked_profiles).items()}


def resolve(name: str, directory: str | Path | None = None, _seen: tuple[str, ...] = ()) -> list[Profile]:
    """The chain of layers for a profile, outermost include first."""
    if name in _seen:
        raise DataError(
            f"profile include loop: {' -> '.join((*_seen, name))}",
            file=str(read_profile(name, directory).path),
        )
    prof = read_profile(name, directory)
    chain: list[Profile] = []
    for parent in prof.include:
        chain.extend(resolve(parent, directory, (*_seen, name)))
    chain.append(prof)
    return chain


def compose(names: list[str], directory: str | Path | None = None) -> list[Profile]:
    """Resolve several profiles into one chain; a layer included twice counts once (first place)."""
    seen: set[str] = set()
    chain: list[Profile] = []
    for n in names:
        for p in resolve(n, directory):
            if p.name not in seen:
                seen.add(p.name)
                chain.append(p)
    return chain


Merged = dict[tuple[str, str, str], tuple[Any, str]]


def merge(chain: list[Profile], *, part: str = "settings") -> Merged:
    """(file, section, key) -> (value, layer that set it); later layers win, `unset` removes."""
    merged: Merged = {}
    for prof in chain:
        layer: Layer = getattr(prof, part)
        for file, sections in layer.items():
            for section, kv in sections.items():
                for key, value in kv.items():
                    merged[(file, section, str(key))] = (value, prof.name)
        if part == "settings":
            for file, sections2 in prof.unset.items():
                for section, keys in sections2.items():
                    for key in keys:
                        merged.pop((file, section, key), None)
    return merged


def last(chain: list[Profile], attr: str) -> Any:
    """The last layer's non-empty value of a scalar field (benchmark, protection, cbt, cluster)."""
    value = None
    for prof in chain:
        v = getattr(prof, attr)
        if v:
            value = v
    return value

"""Never emit a line that does nothing: drop settings a catalog dependency (`dead_when:`) makes dead.

The facts come from the knob catalog (data/knobs/*.yaml, see flashtune.catalog.deps); lint-config reads the
same facts for users' files (flashtune.lint.deadknobs). Every dropped line is listed in explain.md and
manifest.json with the condition that makes it dead and its source.
"""

from __future__ import annotations

from typing import Any

from flashtune.catalog import Knob, load_catalog
from flashtune.catalog.deps import Dead, DeadWhen, dead_reason
from flashtune.compile.formats import domain_of
from flashtune.compile.profiles import merge
from flashtune.model import Setting


def catalog_name(file: str, key: str) -> str:
    """udev writes sysfs attributes as queue/<name>; the catalog names the attribute itself."""
    return key.removeprefix("queue/") if file == "udev.rules" else key


def facts(bundle: Any) -> dict[str, Any]:
    """What the compiler knows about the deployment the files are for."""
    ctx = bundle.shape
    include = next(
        (s.value for s in bundle.settings if (s.file, s.section, s.key) == ("tuned.conf", "main", "include")),
        None,
    )
    return {
        # the release's default store, from the catalog's osd_objectstore facts (as lint-config uses)
        "objectstore": load_catalog().default_objectstore(bundle.request.ceph_release) or "bluestore",
        "device_type": ctx.get("device_type"),
        "sockets": ctx.get("sockets"),
        "tuned_include": include,
        "init": "systemd",
        # the scratch plan mounts CephFS with the kernel client, as HPC sites do; other workloads use librados
        "ceph_clients": "kernel" if ctx.get("workload") == "scratch" else "userspace",
        "cluster": "new",
        "mysql_flavour": bundle.request.mysql_flavour,
    }


def _knob(catalog: Any, s: Setting) -> Knob | None:
    domain = domain_of(s.file)
    if domain is None:
        return None
    k = catalog.get(catalog_name(s.file, s.key), domain)
    return k if isinstance(k, Knob) else None


def find_dead(
    settings: list[Setting], catalog: Any, facts_: dict[str, Any], releases: dict[str, str | None]
) -> list[tuple[Setting, Dead]]:
    """Settings that a catalog dependency makes dead, with the reason; repeated until nothing changes,
    because dropping one value can make another fall back to its default."""
    # each setting's knob is looked up once: only a setting whose knob has dependency facts (and that is no
    # opted-in unsafe value) can be dead
    candidates = [
        (s, knob.dead_when)
        for s in settings
        if not s.unsafe_opt_in and (knob := _knob(catalog, s)) is not None and knob.dead_when
    ]
    live = list(settings)
    dropped: list[tuple[Setting, Dead]] = []
    while True:
        found = _first_dead(live, candidates, catalog, facts_, releases)
        if found is None:
            return dropped
        gone = found[0]
        live = [s for s in live if s is not gone]
        candidates = [c for c in candidates if c[0] is not gone]
        dropped.append(found)


def _first_dead(
    live: list[Setting],
    candidates: list[tuple[Setting, tuple[DeadWhen, ...]]],
    catalog: Any,
    facts_: dict[str, Any],
    releases: dict[str, str | None],
) -> tuple[Setting, Dead] | None:
    """The first candidate (in file order) that the live settings make dead."""
    values = {(s.file, catalog_name(s.file, s.key)): s.value for s in live}
    for s, rules in candidates:

        def given(name: str, file: str = s.file) -> Any:
            return values.get((file, name))

        def effective(name: str, file: str = s.file) -> Any:
            if (file, name) in values:
                return values[(file, name)]
            k = catalog.get(name, domain_of(file))
            return k.default_for(releases.get(file)) if isinstance(k, Knob) else None

        why = dead_reason(rules, s.value, effective, facts_, given)
        if why is not None:
            return s, why
    return None


def drop_dead(bundle: Any, catalog: Any) -> None:
    """Remove dead settings from the bundle and record each in bundle.omitted."""
    if bundle.legacy:  # legacy mode reproduces the 2017 files; explain.md lists their differences instead
        return
    req = bundle.request
    releases = {"ceph.conf": req.ceph_release, "my.cnf": req.mysql_flavour}
    dead = find_dead(bundle.settings, catalog, facts(bundle), releases)
    gone = {id(s) for s, _ in dead}
    bundle.settings[:] = [s for s in bundle.settings if id(s) not in gone]
    for s, d in dead:
        bundle.omitted.append(
            {
                "file": s.file,
                "section": s.section,
                "key": s.key,
                "value": s.value,
                "why": f"a no-op here ({d.kind}): {d.why} Dead because {d.condition}.",
                "kind": d.kind,
                "source": d.source,
            }
        )


def unset_omissions(chain: list[Any]) -> list[dict[str, Any]]:
    """Keys a later profile layer removes (`unset:`) that an earlier one set, with the layer's reason."""

    out = []
    for i, prof in enumerate(chain):
        if not prof.unset:
            continue
        before = merge(chain[:i])
        for file, sections in prof.unset.items():
            for section, keys in sections.items():
                for key in keys:
                    if (file, section, key) in before:
                        why = prof.unset_why.get((file, section, key)) or "removed by a later layer"
                        out.append(
                            {
                                "file": file,
                                "section": section,
                                "key": key,
                                "why": f"unset by {prof.name}: {why}",
                            }
                        )
    return out

"""Fleets: host groups with different hardware compiled into one central-config plan.

Input: a fleet file (`groups:` each with `tier:` or `hardware:` and `hosts:`), or several hardware files that
each list their `hosts:`. Each distinct kind of hardware is compiled once (hosts share the result), then
every config-database key is placed at the widest scope that is right for all hosts:

- every host agrees: one unmasked value (`osd`, `global`, ...);
- hosts differ, but hosts of one CRUSH device class agree and the key is an OSD's: the value most hosts
  want unmasked, `osd/class:<class>` for the other classes (a class mask only reaches OSDs:
  src/mon/ConfigMap.cc generate_entity_map);
- a `client` key the hosts differ on: the value most hosts want, unmasked and alone (clients run on hosts of
  their own, which neither a class nor an OSD host's mask reaches);
- otherwise: the value most hosts want unmasked, `<who>/host:<host>` for the others (the monitors match a
  host mask against the CRUSH host of the daemon's host, so it reaches any daemon on a host in the CRUSH
  map: src/mon/ConfigMonitor.cc refresh_config).
A group lacking a key another group sets gets the release default there when it needs a mask of its own.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from flashtune.catalog import load_catalog
from flashtune.compile.central import split
from flashtune.compile.derive import pg_num
from flashtune.compile.pipeline import compile_bundle, pool_list
from flashtune.emit import fleet as emit_fleet
from flashtune.emit import pools
from flashtune.emit.common import render_scalar
from flashtune.errors import DataError
from flashtune.model import (
    Bundle,
    CentralConfig,
    CentralValue,
    CompileRequest,
    Decision,
    Fleet,
    HostGroup,
    LocalValue,
)
from flashtune.placement import placement
from flashtune.progress import tick
from flashtune.yamlio import line_of, load_yaml

_RANGE = re.compile(r"^(?P<pre>[A-Za-z0-9_.-]*)\[(?P<lo>\d+)-(?P<hi>\d+)\](?P<post>[A-Za-z0-9_.-]*)$")
_HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# A group's name becomes a folder (fleet/<group>/), an inventory section and part of a cephadm service_id,
# which Ceph allows only [a-zA-Z0-9_.-] (ServiceSpec.validate, src/python-common/ceph/deployment/
# service_spec.py): the same letters, starting with a letter or digit (so never `..`).
_GROUP = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")
_NOT_IN_GROUP = re.compile(r"[^A-Za-z0-9_.-]+")
# Hosts in one fleet plan, all groups together: a per-host config entry each, and a plan of a million
# hosts is a typo in a range, not a cluster (a range of 100,000 five times over still took 1.7 GiB).
MAX_FLEET_HOSTS = 20_000


def expand_hosts(spec: Any, where: str, budget: int = MAX_FLEET_HOSTS) -> list[str]:
    """`[node1, node2]`, `node[001-400]` (zero padding kept), or a list mixing both; at most `budget`
    hosts (what is left of MAX_FLEET_HOSTS for the whole fleet), counted before any range is expanded."""
    items = spec if isinstance(spec, list) else [spec]
    out: list[str] = []
    for item in items:
        # hosts: left empty was one host named 'None', true the host 'True'
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise DataError(
                f"{item!r} is not a host name or range",
                file=where,
                suggestion="e.g. hosts: [node01, node02] or hosts: 'node[01-40]'",
            )
        text = str(item).strip()
        m = _RANGE.match(text)
        if m:
            lo, hi = int(m["lo"]), int(m["hi"])
            if hi < lo:
                raise DataError(
                    f"host range {text!r} is empty", file=where, suggestion="write e.g. node[001-400]"
                )
            if len(out) + hi - lo + 1 > budget:
                raise DataError(
                    f"host range {text!r} makes the fleet more than {MAX_FLEET_HOSTS:,} hosts",
                    file=where,
                    suggestion="check the range's digits (node[001-400], not node[001-4000000])",
                )
            width = len(m["lo"]) if m["lo"].startswith("0") else 0
            out.extend(f"{m['pre']}{n:0{width}d}{m['post']}" for n in range(lo, hi + 1))
        elif _HOST.match(text):
            if len(out) + 1 > budget:
                raise DataError(
                    f"the fleet has more than {MAX_FLEET_HOSTS:,} hosts",
                    file=where,
                    suggestion="split the plan",
                )
            out.append(text)
        else:
            raise DataError(
                f"{text!r} is not a host name or range",
                file=where,
                suggestion="host names are letters, digits, '.', '-', '_'; ranges look like node[01-40]",
            )
    return out


def load_fleet(path: Path) -> list[HostGroup]:
    doc = load_yaml(path)
    groups = doc.get("groups") if isinstance(doc, dict) else None
    if not isinstance(groups, list) or not groups:
        raise DataError(
            "a fleet file needs 'groups:', a list of {name, tier | hardware, hosts}",
            file=str(path),
            line=1,
            suggestion="see the compiler guide's fleet section",
        )
    out: list[HostGroup] = []
    for g in groups:
        where = f"{path}:{line_of(g) or 1}"
        if (
            not isinstance(g, dict)
            or "hosts" not in g
            or ("tier" in g) == ("hardware" in g)
            or "name" not in g
        ):
            raise DataError(
                "each group needs name, hosts and exactly one of tier or hardware",
                file=str(path),
                line=line_of(g),
                suggestion="e.g. {name: nvme, tier: iops, hosts: 'node[01-40]'}",
            )
        if not _GROUP.match(str(g["name"])):
            raise DataError(
                f"group name {str(g['name'])!r} is not a plain name",
                file=str(path),
                line=line_of(g, "name") or line_of(g),
                suggestion="letters, digits, '.', '-', '_' (at most 63; it names a folder and a cephadm "
                "service_id)",
            )
        hw = (path.parent / str(g["hardware"])) if "hardware" in g else None
        if hw is not None and not hw.is_file():
            raise DataError(
                f"hardware file {g['hardware']!r} not found",
                file=str(path),
                line=line_of(g, "hardware"),
                suggestion="paths are relative to the fleet file",
            )
        out.append(
            HostGroup(
                str(g["name"]),
                tuple(expand_hosts(g["hosts"], where, MAX_FLEET_HOSTS - sum(len(x.hosts) for x in out))),
                tier=str(g["tier"]) if "tier" in g else None,
                hardware_file=hw,
            )
        )
    return _checked(out, str(path))


def groups_from_hardware(paths: list[Path]) -> list[HostGroup]:
    """Several hardware files, each naming its hosts (`hosts:` beside `node:`)."""
    out: list[HostGroup] = []
    for p in paths:
        doc = load_yaml(p)
        if not isinstance(doc, dict) or "hosts" not in doc:
            raise DataError(
                "a hardware file in a fleet needs 'hosts:' (the machines that have this hardware)",
                file=str(p),
                line=1,
                suggestion="add e.g. hosts: 'node[001-120]'",
            )
        where = f"{p}:{line_of(doc, 'hosts') or 1}"
        out.append(
            HostGroup(
                _NOT_IN_GROUP.sub("-", p.stem).strip("-.")[:63] or "hardware",  # the file's name, made plain
                tuple(expand_hosts(doc["hosts"], where, MAX_FLEET_HOSTS - sum(len(x.hosts) for x in out))),
                hardware_file=p,
            )
        )
    return _checked(out, ", ".join(map(str, paths)))


def _checked(groups: list[HostGroup], where: str) -> list[HostGroup]:
    seen: dict[str, str] = {}
    names = Counter(g.name for g in groups)
    dup = [n for n, c in names.items() if c > 1]
    if dup:
        raise DataError(
            f"group name {dup[0]!r} is used twice", file=where, suggestion="give every group its own name"
        )
    for g in groups:
        if not g.hosts:
            raise DataError(
                f"group {g.name!r} lists no hosts", file=where, suggestion="e.g. hosts: 'node[01-10]'"
            )
        for h in g.hosts:
            if seen.get(h) == g.name:  # 'is in groups a and a' read as two groups of one name
                raise DataError(
                    f"host {h!r} is listed twice in group {g.name!r}",
                    file=where,
                    suggestion="list each host once (a range such as node[01-10] covers its own hosts)",
                )
            if h in seen:
                raise DataError(
                    f"host {h!r} is in groups {seen[h]!r} and {g.name!r}",
                    file=where,
                    suggestion="a host has one kind of hardware: list it in one group",
                )
            seen[h] = g.name
    return groups


def _default(key: str, release: str) -> str | None:
    knob = load_catalog().resolve(key, "ceph")
    d = knob.default_for(release) if knob else None
    return None if d is None else render_scalar(d)


def _entry(proto: CentralValue, value: str | None, mask: str, release: str) -> CentralValue | None:
    """proto's key at this scope; a group that does not set the key gets the release default."""
    value = value if value is not None else _default(proto.key, release)
    return (
        None
        if value is None
        else CentralValue(proto.who, mask, proto.key, value, proto.type, proto.note, proto.why)
    )


def merge(
    groups: list[HostGroup], configs: dict[str, CentralConfig], release: str, data_type: dict[str, str]
) -> tuple[CentralConfig, list[Decision]]:
    """One config for all groups: widest scope first, masks only where hosts differ."""
    weight = {g.name: len(g.hosts) for g in groups}
    classes = {g.name: placement().device_class[data_type[g.name]] for g in groups}
    per_key: dict[tuple[str, str], dict[str, CentralValue]] = {}
    for name, cfg in configs.items():
        for v in cfg.values:
            per_key.setdefault((v.who, v.key), {})[name] = v
    out = CentralConfig()
    decisions = []
    for (who, key), by_group in per_key.items():
        proto = next(iter(by_group.values()))
        values = {g.name: (by_group[g.name].value if g.name in by_group else None) for g in groups}
        votes: Counter[str | None] = Counter()
        for name, val in values.items():
            votes[val] += weight[name]
        widest = max(votes, key=lambda v: (votes[v], v is not None))

        new: list[CentralValue | None] = [_entry(proto, widest, "", release)] if widest is not None else []
        if len(votes) == 1:
            scope = "shared"
        elif who == "client":
            # librbd/librados clients run on their own hosts (hypervisors, applications): no class mask reaches
            # them and a host mask only a client on that OSD host, so all get the value most hosts want
            scope = "clients"
        else:
            by_class: dict[str, set[str | None]] = {}
            for name, val in values.items():
                by_class.setdefault(classes[name], set()).add(val)
            if who == "osd" and all(len(v) == 1 for v in by_class.values()):
                scope = "class"
                new += [
                    _entry(proto, next(iter(v)), f"class:{c}", release)
                    for c, v in sorted(by_class.items())
                    if next(iter(v)) != widest
                ]
            else:
                scope = "host"
                new += [
                    _entry(proto, values[g.name], f"host:{h}", release)
                    for g in groups
                    if values[g.name] != widest
                    for h in g.hosts
                ]
        kept = [e for e in new if e is not None]
        out.values.extend(kept)
        decisions.append(Decision(who, key, values, scope, len(kept)))
    local: dict[tuple[str, str], LocalValue] = {}
    for cfg in configs.values():
        for loc in cfg.local:
            local.setdefault((loc.section, loc.key), loc)
    out.local.extend(local.values())
    return out, decisions


def compile_fleet(groups: list[HostGroup], workload: str, release: str, **request: Any) -> Fleet:
    """Compile each distinct kind of hardware once (the cluster is all hosts), then merge."""
    nodes = request.pop("nodes", None) or sum(len(g.hosts) for g in groups)
    by_kind: dict[str, tuple[Bundle, CentralConfig]] = {}
    bundles: dict[str, Bundle] = {}
    configs: dict[str, CentralConfig] = {}
    for g in groups:
        if g.kind not in by_kind:
            b = compile_bundle(
                CompileRequest(
                    workload=workload,
                    tier=g.tier,
                    hardware_file=g.hardware_file,
                    ceph_release=release,
                    nodes=nodes,
                    benchmarks=False,
                    **request,
                )
            )
            by_kind[g.kind] = (b, split(b.settings))
            tick()  # a Progress of the caller's counts it (a no-op without one)
        bundles[g.name], configs[g.name] = by_kind[g.kind]
    merged, decisions = merge(groups, configs, release, {n: b.hardware.data_type for n, b in bundles.items()})
    return Fleet(groups, bundles, merged, decisions)


def pools_script(fleet: Fleet, inputs: dict[str, Any]) -> str:
    """pools.sh for the whole fleet: the layout's pools, with PG counts for all of the fleet's OSDs."""

    ref = fleet.bundles[max(fleet.groups, key=lambda g: len(g.hosts)).name]
    osds = sum(int(fleet.bundles[g.name].shape["osds_per_node"]) * len(g.hosts) for g in fleet.groups)
    shape = dict(ref.shape)
    shape["osds"] = osds
    target, max_pg = int(shape["pg_target_per_osd"]), int(shape["pg_max_per_osd"])
    ec = shape.get("ec")
    if ec is not None:
        shape["pg_num_ec"] = pg_num(
            osds, ec.value.k + ec.value.m, 0.9, target_per_osd=target, max_per_osd=max_pg
        ).value
    shape["pools"] = pool_list(ref.request, shape, target, max_pg)
    return pools.emit(replace(ref, shape=shape), {**inputs, "osds": osds})


def outputs(fleet: Fleet, inputs: dict[str, Any], *, encrypted: bool = False) -> dict[str, str]:
    """Every file of a fleet plan: the fleet emitter's, plus pools.sh sized for the whole fleet."""

    files = emit_fleet.files(fleet, inputs, encrypted=encrypted)
    files["pools.sh"] = pools_script(fleet, inputs)
    return files

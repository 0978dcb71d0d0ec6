"""CBT test-plan rules, driven by data/cbt/schema.yaml: keys at the wrong level, unknown keys, types,
the `iterations` trap, references to pool profiles and endpoints that do not exist.

CBT drops unknown keys at every level and runs nothing (exit 0) when cluster.iterations is missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from flashtune.catalog import load_catalog
from flashtune.lint import cbtplans as plan_rules
from flashtune.lint import ruledata
from flashtune.lint.common import Context, check_duplicates, did_you_mean
from flashtune.parse import parse_text
from flashtune.parse.confdoc import ConfDoc, ConfSyntaxError, Entry

TOP_KEY = re.compile(r"^([A-Za-z0-9_-]+)\s*:")  # a key at column 1 (misplaced_cluster_keys)

_PY_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
    "list": (list,),
    "map": (dict,),
    "nodes": (str, list, dict),
}


def _type_ok(value: Any, type_: str) -> bool:
    if type_ == "any" or value is None:
        return True
    if type_ == "int" and isinstance(value, bool):
        return False
    if type_ == "str" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return True  # CBT formats most strings with %s/str(), so numbers work
    return isinstance(value, _PY_TYPES.get(type_, (object,)))


def _block_of(doc: ConfDoc) -> Callable[[Entry], int]:
    """Entry -> the line of the mapping key it sits under. Two `librbdfio:` blocks under one `benchmarks:` share
    the dotted path of their keys, but only the repeated `librbdfio` is a duplicate, not every key inside."""
    blocks: dict[str, list[tuple[int, int, int]]] = {}
    for e in doc.entries:
        if e.node is not None and e.value is None and hasattr(e.node, "end_mark"):
            path = f"{e.section}.{e.key}" if e.section else e.key
            blocks.setdefault(path, []).append((e.node.start_mark.line + 1, e.node.end_mark.line + 1, e.line))

    def scope(e: Entry) -> int:
        return next((key_line for lo, hi, key_line in blocks.get(e.section, ()) if lo <= e.line <= hi), 0)

    return scope


class CbtLinter:
    def __init__(self, doc: ConfDoc, ctx: Context) -> None:
        self.doc = doc
        self.ctx = ctx
        self.schema = ruledata.cbt_schema()
        self.entries: dict[tuple[str, str], Entry] = {(e.section, e.key): e for e in doc.entries}

    def run(self) -> None:
        if self.doc.documents > 1:
            self.ctx.add(
                (1, 1),
                "error",
                "FT705",
                "",
                f"the file holds {self.doc.documents} YAML documents: valid YAML, "
                "but CBT loads its plan with yaml.safe_load (settings.py), which refuses more than one",
                "keep one plan per file (the first document is linted here)",
            )
        check_duplicates(self.doc, self.ctx, what="file", scope=_block_of(self.doc))
        data = self.doc.data
        if data is None:
            return  # empty file: reported by the caller
        if not isinstance(data, dict):
            self.ctx.add(
                (1, 1),
                "error",
                "FT001",
                "",
                "a CBT test plan must be a mapping at the top level",
                "start with 'cluster:' and 'benchmarks:'",
            )
            return
        top: dict[str, Any] = self.schema["top_level"]
        cluster_keys: dict[str, Any] = self.schema["cluster"]
        for key in data:
            e = self.entries.get(("", str(key)))
            at = e if e is not None else (1, 1)
            if key in top:
                continue
            if key in cluster_keys:
                self.ctx.add(
                    at,
                    "error",
                    "FT703",
                    str(key),
                    f"{key} is a cluster key but sits at the top level: CBT silently drops it"
                    + (" (and without cluster.iterations nothing runs)" if key == "iterations" else ""),
                    f"indent {key} under 'cluster:'",
                )
            else:
                close = did_you_mean(str(key), top)
                self.ctx.add(
                    at,
                    "error",
                    "FT702",
                    str(key),
                    f"unknown top-level key {key!r}: CBT ignores it",
                    f"did you mean {close[0]}?" if close else f"use one of {', '.join(top)}",
                )
        for key, spec in top.items():
            if spec.get("required") and not data.get(key):
                self.ctx.add(
                    (1, 1),
                    "error",
                    "FT701",
                    key,
                    f"no {key!r} section: " + str(spec.get("note", "")),
                    f"add a '{key}:' mapping",
                )
        cluster = data.get("cluster")
        if isinstance(cluster, dict):
            self.mapping(cluster, "cluster", cluster_keys, "cluster")
            self.cluster_rules(cluster)
        for key in ("client_endpoints", "monitoring_profiles"):
            self.named_items(data.get(key), key, top[key])
        common = data.get("common")
        if isinstance(common, dict):
            self.mapping(common, "common", self.schema["common"], "common")
        benches = data.get("benchmarks")
        if isinstance(benches, dict):
            for name, conf in benches.items():
                self.benchmark(str(name), conf, data)

    def at(self, section: str, key: str) -> Entry | tuple[int, int]:
        return self.entries.get((section, key)) or (1, 1)

    def mapping(
        self,
        m: dict[Any, Any],
        path: str,
        spec: dict[str, Any],
        what: str,
        *,
        sweep: bool = False,
        extra: dict[str, Any] | None = None,
        instead: str = "",
        fallback: dict[str, Any] | None = None,
    ) -> None:
        known = dict(spec)
        if extra:
            known.update(extra)
        for key, value in m.items():
            k = str(key)
            at = self.at(path, k)
            s = known.get(k)
            if s is None:
                does = self.what_cbt_does(instead, k, m, fallback or {}, known)
                self.ctx.add(
                    at,
                    "warning",
                    "FT702",
                    k,
                    f"{what} does not read {k!r}: CBT ignores it" + (f"; {does}" if does else ""),
                    self.move_or_fix(k, path, known, instead),
                )
                continue
            self.value(at, k, value, s, sweep=sweep)
            items = s.get("items")
            if items and isinstance(value, dict):
                for name, sub in value.items():
                    if isinstance(sub, dict):
                        self.mapping(sub, f"{path}.{k}.{name}", self.schema[items], f"{items} {name!r}")
        for k, s in spec.items():
            if s.get("required") and k not in m and not (what == "cluster" and k == "iterations"):
                self.ctx.add(
                    self.at("", path.split(".")[0]),
                    "error",
                    "FT701",
                    k,
                    f"{what} needs {k!r}" + (f": {s['note']}" if s.get("note") else ""),
                    f"add {k}:",
                )

    def what_cbt_does(
        self, place: str, key: str, m: dict[Any, Any], fallback: dict[str, Any], known: dict[str, Any]
    ) -> str:
        """What CBT runs instead of an ignored key (data/cbt/schema.yaml `instead`): the key it reads for that
        purpose with the value it will use (this mapping's, the benchmark's, or CBT's default), or what the
        module always does."""
        hint = (self.schema.get("instead", {}).get(place) or {}).get(key)
        if not isinstance(hint, dict):
            return ""
        if "does" in hint:
            return str(hint["does"])
        target = str(hint["reads"])
        if target in m:
            return f"it reads {target} instead, which is {m[target]!r} here"
        if target in fallback:
            return f"it reads {target} instead, which is {fallback[target]!r} at the benchmark level"
        default = (known.get(target) or {}).get("default")
        return f"it reads {target} instead" + (
            f", so CBT's default {target} = {default} applies"
            if default is not None
            else ", which is not set"
        )

    def move_or_fix(self, key: str, path: str, known: dict[str, Any], instead: str = "") -> str:
        """The suggestion for a key CBT does not read where it is: a key of `common:` (pdsh_ssh_args, read
        from settings.common) belongs there; `iterations` in a benchmark is cluster.iterations (CBT sets each
        benchmark's `iteration` itself, so a near spelling would be the wrong advice); else the nearest name."""
        if path != "common" and key in self.schema["common"]:
            return f"move {key} under a top-level 'common:' section, where CBT reads it"
        hint = (self.schema.get("instead", {}).get(instead) or {}).get(key) if instead else None
        if isinstance(hint, dict) and "reads" in hint:
            return f"write the value as {hint['reads']} (the key CBT reads) and delete {key}"
        if path.startswith("benchmarks.") and key == "iterations":
            return "repeat runs with cluster.iterations (every benchmark runs that many times), and delete this line"
        close = did_you_mean(key, known)
        return f"did you mean {close[0]}?" if close else "delete it"

    def value(
        self, at: Entry | tuple[int, int], key: str, value: Any, spec: dict[str, Any], *, sweep: bool
    ) -> None:
        values = value if sweep and isinstance(value, list) and spec.get("type") != "list" else [value]
        type_ = str(spec.get("type", "any"))
        for v in values:
            if not _type_ok(v, type_):
                self.ctx.add(
                    at,
                    "error",
                    "FT201",
                    key,
                    f"{key} = {v!r} should be {type_}",
                    f"write a {type_} value",
                    on_value=True,
                )
                continue
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                if "min" in spec and v < spec["min"]:
                    self.ctx.add(
                        at,
                        "error",
                        "FT202",
                        key,
                        f"{key} = {v} is below {spec['min']}"
                        + (f": {spec['note']}" if spec.get("note") else ""),
                        f"use at least {spec['min']}",
                        on_value=True,
                    )
                elif "max" in spec and v > spec["max"]:
                    self.ctx.add(
                        at,
                        "error",
                        "FT202",
                        key,
                        f"{key} = {v} is above {spec['max']}",
                        f"use at most {spec['max']}",
                        on_value=True,
                    )
                elif "warn_below" in spec and v < spec["warn_below"]:
                    self.ctx.add(
                        at,
                        "warning",
                        "FT204",
                        key,
                        f"{key} = {v}: {spec.get('warn_note', 'suspiciously small')}",
                        f"use at least {spec['warn_below']}",
                        on_value=True,
                    )
            if spec.get("enum") and isinstance(v, str) and v not in spec["enum"]:
                self.ctx.add(
                    at,
                    "error",
                    "FT203",
                    key,
                    f"{key} = {v!r} is not one of {', '.join(spec['enum'])}",
                    f"pick one of {', '.join(spec['enum'])}",
                    on_value=True,
                )

    def named_items(self, block: Any, path: str, spec: dict[str, Any]) -> None:
        if not isinstance(block, dict):
            return
        item_spec: dict[str, Any] = self.schema[spec["items"]]
        allowed = spec.get("names")
        for name, sub in block.items():
            if allowed and name not in allowed:
                close = did_you_mean(str(name), allowed)
                self.ctx.add(
                    self.at(path, str(name)),
                    "warning",
                    "FT702",
                    str(name),
                    f"{path} has no {name!r} profile: CBT ignores it",
                    f"did you mean {close[0]}?" if close else f"use one of {', '.join(allowed)}",
                )
                continue
            if isinstance(sub, dict):
                self.mapping(sub, f"{path}.{name}", item_spec, f"{spec['items'].replace('_', ' ')} {name!r}")
                self.references(sub, item_spec, f"{path}.{name}")

    def references(self, conf: dict[str, Any], spec: dict[str, Any], path: str) -> None:
        data = self.doc.data
        for key, s in spec.items():
            ref = s.get("refers_to")
            if not ref or key not in conf:
                continue
            target: Any = data
            for part in str(ref).split("."):
                target = target.get(part) if isinstance(target, dict) else None
            names = set(target) if isinstance(target, dict) else set()
            if ref == "cluster.pool_profiles":
                names.add("default")
            for v in conf[key] if isinstance(conf[key], list) else [conf[key]]:
                if str(v) not in names:
                    self.ctx.add(
                        self.at(path, key),
                        "warning",
                        "FT704",
                        key,
                        f"{key} = {v!r} is not defined in {ref}: "
                        + ("CBT falls back to an empty profile" if "pool" in str(ref) else "CBT fails"),
                        f"define {v} under {ref} or fix the name",
                        on_value=True,
                    )

    def osd_count(self, cluster: dict[str, Any]) -> int | None:
        osds, per = cluster.get("osds"), cluster.get("osds_per_node")
        hosts = len(osds) if isinstance(osds, (list, dict)) else (1 if isinstance(osds, str) else 0)
        if not hosts or not isinstance(per, int) or isinstance(per, bool) or per < 1:
            return None
        return hosts * per

    def pool_rules(self, cluster: dict[str, Any]) -> None:
        total = self.osd_count(cluster)
        if total is None:
            return
        limit = int(self.schema["limits"]["max_pg_per_osd"])
        ec_profiles = (
            cluster.get("erasure_profiles") if isinstance(cluster.get("erasure_profiles"), dict) else {}
        )
        assert isinstance(ec_profiles, dict)
        users = self.pool_users()
        pools = cluster.get("pool_profiles", {"default": {}})
        used_ec = {
            str(p.get("erasure_profile"))
            for n, p in (pools.items() if isinstance(pools, dict) else ())
            if n in users and isinstance(p, dict) and p.get("replication") == "erasure"
        }
        for name, prof in ec_profiles.items():
            if not isinstance(prof, dict) or str(name) not in used_ec:
                continue  # CBT makes an EC profile only for a pool that uses it (cluster/ceph.py mkpool)
            k, m = prof.get("erasure_k", 6), prof.get("erasure_m", 2)
            if isinstance(k, int) and isinstance(m, int) and k + m > total:
                self.ctx.add(
                    self.at("cluster.erasure_profiles", str(name)),
                    "error",
                    "FT603",
                    str(name),
                    f"EC profile {name}: k+m = {k + m} chunks, but CBT's failure domain is the OSD and "
                    f"the plan has {total} OSDs: PGs can never be complete",
                    "lower erasure_k + erasure_m or add OSDs",
                )
        if not isinstance(pools, dict):
            return
        for name, at in users.items():
            prof = pools.get(name, {})
            if not isinstance(prof, dict):
                continue
            pgs, rep = prof.get("pg_size", 1024), prof.get("replication")
            width = rep if isinstance(rep, int) and not isinstance(rep, bool) else 3
            if rep == "erasure":
                ec = ec_profiles.get(prof.get("erasure_profile", ""), {})
                width = (
                    int(ec.get("erasure_k", 6)) + int(ec.get("erasure_m", 2)) if isinstance(ec, dict) else 8
                )
            if isinstance(pgs, int) and pgs * width / total > limit:
                defined = name in pools
                self.ctx.add(
                    self.at(f"cluster.pool_profiles.{name}", "pg_size")
                    if "pg_size" in prof
                    else self.at("cluster.pool_profiles", str(name))
                    if defined
                    else at,
                    "error",
                    "FT606",
                    "pg_size",
                    f"pool profile {name}"
                    + (
                        ""
                        if defined
                        else " (not defined, so CBT's defaults: 1024 PGs at the cluster's default size)"
                    )
                    + f": {pgs} PGs x {width} copies over {total} OSDs is "
                    f"{pgs * width / total:.0f} PGs per OSD, above mon_max_pg_per_osd ({limit}): "
                    "pool creation fails",
                    f"use at most {limit * total // width} PGs, or let the autoscaler choose"
                    if defined
                    else f"define {name} under cluster.pool_profiles with at most {limit * total // width} PGs",
                    on_value=True,
                )

    def pool_users(self) -> dict[str, Entry | tuple[int, int]]:
        """The pool profiles CBT makes pools from, each with the first place that names it: keys marked
        makes_pool in the schema (CBT's default name when the key is absent) in benchmarks, in the client
        endpoints a benchmark uses (not s3: those make no pool), and the RGW roles when CBT builds a cluster with
        RGWs; a profile's cache_profile makes a pool too (cluster/ceph.py mkpool). A profile nobody names never
        becomes a pool, so its PG count or size cannot fail anything."""
        data = self.doc.data if isinstance(self.doc.data, dict) else {}
        users: dict[str, Entry | tuple[int, int]] = {}
        blocks: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
        benches = data.get("benchmarks")
        specs: dict[str, Any] = self.schema["benchmarks"]
        used_endpoints: set[str] = set()
        for name, conf in benches.items() if isinstance(benches, dict) else ():
            conf = {} if conf is None else conf
            if str(name) not in specs or not isinstance(conf, dict):
                continue
            eps = conf.get("client_endpoints")
            used_endpoints.update(str(e) for e in (eps if isinstance(eps, list) else [eps]) if e is not None)
            if str(name) == "librbdfio" and conf.get("use_existing_volumes") is True:
                continue  # librbdfio.py mkimages: existing volumes, no pool made
            blocks.append((f"benchmarks.{name}", conf, specs[str(name)] or {}))
        endpoints = data.get("client_endpoints")
        for name, conf in endpoints.items() if isinstance(endpoints, dict) else ():
            if str(name) in used_endpoints and isinstance(conf, dict) and conf.get("driver") != "s3":
                blocks.append((f"client_endpoints.{name}", conf, self.schema["client_endpoint"]))
        cluster = data.get("cluster")
        if isinstance(cluster, dict) and cluster.get("rgws") and cluster.get("use_existing", True) is False:
            rgw_pools = cluster.get("rgw_pools")
            roles = rgw_pools if isinstance(rgw_pools, dict) else {}
            for role in self.schema["cluster"]["rgw_pools"]["names"]:
                place = self.at("cluster.rgw_pools", role) if role in roles else self.at("cluster", "rgws")
                users.setdefault(str(roles.get(role, "default")), place)
        for path, conf, spec in blocks:
            for key, s in spec.items():
                if not s.get("makes_pool") or (key not in conf and "default" not in s):
                    continue
                value = conf.get(key, s.get("default"))
                place = self.at(path, key) if key in conf else self.at(*path.rsplit(".", 1))
                for v in value if isinstance(value, list) else [value]:
                    if v is not None:
                        users.setdefault(str(v), place)
        pools = cluster.get("pool_profiles") if isinstance(cluster, dict) else None
        for name in list(users):
            prof = pools.get(name) if isinstance(pools, dict) else None
            cache = prof.get("cache_profile") if isinstance(prof, dict) else None
            if cache is not None:
                users.setdefault(str(cache), self.at(f"cluster.pool_profiles.{name}", "cache_profile"))
        return users

    def size_one(self, cluster: dict[str, Any]) -> None:
        """A pool profile with replication 1: CBT sets the size with --yes-i-really-mean-it (cluster/ceph.py,
        make_pool), but from Octopus on the monitors also want mon_allow_pool_size_one = true, which CBT never
        sets; without it in the cluster's configuration the pool step fails and the run stops."""
        guard = load_catalog().get("mon_allow_pool_size_one", "ceph")
        if guard is None or not guard.exists_in(self.ctx.ceph_release):
            return
        pools = cluster.get("pool_profiles")
        used = self.pool_users()
        for name, prof in pools.items() if isinstance(pools, dict) else ():
            if str(name) in used and isinstance(prof, dict) and str(prof.get("replication")) == "1":
                self.ctx.add(
                    self.at(f"cluster.pool_profiles.{name}", "replication"),
                    "warning",
                    "FT602",
                    "replication",
                    f"pool profile {name}: replication 1 keeps a single copy, and from Octopus on monitors refuse "
                    "size 1 unless mon_allow_pool_size_one = true (CBT passes --yes-i-really-mean-it but does "
                    "not set that option)",
                    "set mon_allow_pool_size_one = true in the cluster's configuration for a throw-away test, "
                    "or use replication 3",
                    on_value=True,
                )

    def cluster_rules(self, cluster: dict[str, Any]) -> None:
        self.pool_rules(cluster)
        self.size_one(cluster)
        plan_rules.single_iteration(self, cluster)
        it = cluster.get("iterations")
        if "iterations" not in cluster:
            self.ctx.add(
                self.at("", "cluster"),
                "error",
                "FT701",
                "iterations",
                "cluster.iterations is missing: CBT's default is 0, so no benchmark runs and CBT still "
                "exits 0",
                "add 'iterations: 1' under cluster:",
            )
        elif isinstance(it, int) and not isinstance(it, bool) and it < 1:
            pass  # reported by the min check
        if cluster.get("use_existing") is False and "osds_per_node" not in cluster:
            self.ctx.add(
                self.at("cluster", "use_existing"),
                "error",
                "FT701",
                "osds_per_node",
                "use_existing is false but osds_per_node is missing: CBT crashes building the OSDs",
                "add osds_per_node under cluster:",
            )

    def benchmark(self, name: str, conf: Any, data: dict[str, Any]) -> None:
        benches: dict[str, Any] = self.schema["benchmarks"]
        at = self.at("benchmarks", name)
        if name not in benches:
            close = did_you_mean(name, benches)
            self.ctx.add(
                at,
                "error",
                "FT702",
                name,
                f"unknown benchmark module {name!r}: CBT crashes on it (None.exists())",
                f"did you mean {close[0]}?" if close else f"use one of {', '.join(benches)}",
            )
            return
        if conf is None:
            conf = {}
        if not isinstance(conf, dict):
            self.ctx.add(
                at,
                "error",
                "FT201",
                name,
                f"benchmark {name} must be a mapping of settings",
                "write key: value pairs under it",
            )
            return
        spec = benches[name] or {}
        self.mapping(
            conf,
            f"benchmarks.{name}",
            spec,
            f"benchmark {name}",
            sweep=True,
            extra=self.schema["benchmark_common"],
            instead=name,
        )
        self.references(conf, spec, f"benchmarks.{name}")
        if name == "librbdfio":
            self.workloads(conf, spec)
            plan_rules.workloads_unarchived(self, conf)
        plan_rules.check(self, name, conf, data)

    def workloads(self, conf: dict[str, Any], spec: dict[str, Any]) -> None:
        """librbdfio `workloads:` entries: only the keys run_workloads reads (data/cbt/schema.yaml
        librbdfio_workload), with numjobs and iodepth as lists; and a ramp, which it sleeps for."""
        wl = conf.get("workloads")
        if not isinstance(wl, dict) or not wl:
            return
        item_spec: dict[str, Any] = self.schema["librbdfio_workload"]
        fallback = {k: v for k, v in conf.items() if k != "workloads"}
        for wname, entry in wl.items():
            path = f"benchmarks.librbdfio.workloads.{wname}"
            if not isinstance(entry, dict):
                continue
            self.mapping(
                entry,
                path,
                item_spec,
                f"librbdfio workload {wname!r}",
                instead="librbdfio_workload",
                fallback=fallback,
            )
            for key in ("numjobs", "iodepth", "total_iodepth"):
                if key in entry and not isinstance(entry[key], list):
                    self.ctx.add(
                        self.at(path, key),
                        "error",
                        "FT201",
                        key,
                        f"{key} = {entry[key]!r} in a workload must be a list: run_workloads iterates it "
                        f"(`for ... in test['{key}']`) and stops with a TypeError",
                        f"write {key}: [{entry[key]}]",
                        on_value=True,
                    )
            if "numjobs" not in entry and not isinstance(conf.get("numjobs"), list):
                self.ctx.add(
                    self.at("benchmarks.librbdfio.workloads", str(wname)),
                    "error",
                    "FT701",
                    "numjobs",
                    f"workload {wname!r} has no numjobs list: run_workloads iterates the benchmark's numjobs "
                    f"({conf.get('numjobs', 1)!r}), which is not a list, and stops with a TypeError",
                    "add numjobs: [1] to the workload",
                )
        monitored = any(isinstance(e, dict) and e.get("monitor", True) is not False for e in wl.values())
        if monitored and conf.get("ramp") is None:
            self.ctx.add(
                self.at("benchmarks", "librbdfio"),
                "error",
                "FT701",
                "ramp",
                "librbdfio has workloads but no ramp: run_workloads calls time.sleep(ramp) before measuring "
                "and stops with a TypeError on None",
                "add ramp: (seconds of warm-up, e.g. 60)",
            )


def lint(doc: ConfDoc, ctx: Context) -> None:
    CbtLinter(doc, ctx).run()


def misplaced_cluster_keys(text: str) -> list[tuple[int, str]]:
    """(line, key) of cluster keys written at column 1, found by scanning lines (works when YAML fails)."""
    schema = ruledata.cbt_schema()
    top, cluster = schema["top_level"], schema["cluster"]
    out = []
    for no, line in enumerate(text.split("\n"), 1):
        m = TOP_KEY.match(line)
        if m and m[1] not in top and m[1] in cluster:
            out.append((no, m[1]))
    return out


def lint_broken(text: str, error: ConfSyntaxError, ctx: Context) -> None:
    """A plan YAML cannot load: report the syntax error, the cluster keys that lost their indentation, and
    (if re-indenting exactly those keys under cluster: makes the file load) the findings in that reading,
    which is what the author evidently meant."""
    ctx.add((error.line or 1, error.column or 1), "error", "FT001", "", error.message, error.suggestion or "")
    moved = misplaced_cluster_keys(text)
    for no, key in moved:
        ctx.add(
            (no, 1),
            "error",
            "FT703",
            key,
            f"{key} is a cluster key written at column 1: CBT would not see it under cluster"
            + (" (and without cluster.iterations nothing runs)" if key == "iterations" else ""),
            f"indent {key} under 'cluster:' like the keys around it",
        )
    if not moved:
        return
    lines = text.split("\n")
    shifted = {no for no, _ in moved}
    for no in shifted:
        lines[no - 1] = "  " + lines[no - 1]
    try:
        doc = parse_text("\n".join(lines), "cbt.yaml", ctx.filename)
    except ConfSyntaxError:
        return
    sub = Context(ctx.filename, ctx.ceph_release, ctx.mysql_flavour, ctx.extra)
    CbtLinter(doc, sub).run()
    for f in sub.findings:
        if f.code in ("FT703", "FT701") and f.key in {k for _, k in moved}:
            continue
        col = f.column - 2 if f.line in shifted and f.column > 2 else f.column
        ctx.add(
            (f.line, col),
            f.severity,
            f.code,
            f.key,
            f.message + " (read with the cluster keys re-indented)",
            f.suggestion,
        )

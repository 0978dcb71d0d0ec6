"""The compile pipeline: inputs -> layered profile -> Settings (values with provenance) -> files -> checks.

    data (tiers, profiles) -> catalog (rationale, safety, release facts) -> rules (profile layers)
    -> derive (pure functions) -> emit (one module per format) -> validate -> the CLI writes atomically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashtune import __version__
from flashtune.catalog import Knob, load_catalog
from flashtune.compile import benchmark
from flashtune.compile.derive import REGISTRY, Derived, ec_profile, osd_memory_target, osds_per_device, pg_num
from flashtune.compile.hardware import Hardware, load_hardware, load_tier
from flashtune.compile.profiles import Profile, compose, last, merge
from flashtune.compile.validate import validate_bundle, validate_settings
from flashtune.emit import cbt, cephconf, explain, manifest, mycnf, sysctl, systemd, tuned, udev
from flashtune.errors import DataError, UsageError
from flashtune.releases import DEFAULT_CEPH_RELEASE, DEFAULT_MYSQL_FLAVOUR
from flashtune.settings import Setting

WORKLOADS = ("block", "rgw", "mysql", "scratch")
LEGACY_RELEASE = "jewel"
# Which catalog domain a setting's file belongs to.
FILE_DOMAIN = {"ceph.conf": "ceph", "sysctl.conf": "sysctl", "my.cnf": "mysql", "udev.rules": "blockdev",
               "tuned.conf": "cpu", "systemd-numa.conf": "cpu"}  # fmt: skip


@dataclass(frozen=True)
class CompileRequest:
    workload: str
    tier: str | None = "iops"
    hardware_file: Path | None = None
    ceph_release: str = DEFAULT_CEPH_RELEASE
    mysql_flavour: str = DEFAULT_MYSQL_FLAVOUR
    allow_unsafe: frozenset[str] = frozenset()
    nodes: int | None = None
    clients: int | None = None
    replication: int | None = None
    ec: tuple[int, int] | None = None
    db_ram_gib: float | None = None  # database host RAM override (tests scale my.cnf to the test machine)

    def echo(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tier": self.tier if self.hardware_file is None else None,
            "hardware": str(self.hardware_file) if self.hardware_file else None,
            "workload": self.workload, "ceph_release": self.ceph_release,
            "mysql_flavour": self.mysql_flavour if self.workload == "mysql" else None,
            "nodes": self.nodes, "clients": self.clients, "replication": self.replication,
            "ec": f"{self.ec[0]}+{self.ec[1]}" if self.ec else None, "db_ram_gib": self.db_ram_gib,
            "allow_unsafe": ",".join(sorted(self.allow_unsafe)) or None,
        }  # fmt: skip
        return {k: v for k, v in out.items() if v is not None}


@dataclass
class Bundle:
    request: CompileRequest
    hardware: Hardware
    settings: list[Setting]
    files: dict[str, str] = field(default_factory=dict)
    layers: list[str] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    derived: dict[str, Derived] = field(default_factory=dict)  # cluster-shape values (not file keys)
    omitted: list[dict[str, Any]] = field(default_factory=list)  # dropped settings and why
    differences: list[dict[str, Any]] = field(default_factory=list)  # legacy mode vs the seed
    cases: list[str] = field(default_factory=list)  # benchmark cases the CBT files run
    legacy: bool = False


def layer_names(req: CompileRequest, hw: Hardware) -> list[str]:
    if req.ceph_release == LEGACY_RELEASE:
        if (hw.name, req.workload) != ("iops", "mysql") or req.hardware_file is not None:
            raise UsageError(
                "--ceph-release jewel is the legacy mode: it reproduces the 2017 All-NVMe MySQL setup only",
                suggestion="use --ceph-release jewel --tier iops --workload mysql, or a current release",
            )
        names = ["legacy-jewel-iops-mysql"]
    else:
        names = ["base", f"tier-{hw.name}" if req.hardware_file is None else f"tier-{_tier_for(hw)}",
                 f"workload-{req.workload}", f"release-{req.ceph_release}"]  # fmt: skip
    if req.workload == "mysql":
        names.append(f"flavour-{req.mysql_flavour}")
    return names


def _tier_for(hw: Hardware) -> str:
    """A user's hardware file gets the OS layer of the tier with the same data-device type."""
    return {"nvme": "iops", "sata-ssd": "tco", "hdd": "standard"}[hw.data_type]


def _context(req: CompileRequest, hw: Hardware, chain: list[Profile]) -> dict[str, Any]:
    """Everything derivations may read: hardware, cluster shape, protection, pools."""
    nodes = hw.nodes if req.nodes is None else req.nodes
    clients = hw.clients if req.clients is None else req.clients
    if nodes < 1 or clients < 1:
        raise UsageError("--nodes and --clients must be at least 1", suggestion="e.g. --nodes 5 --clients 6")
    per_type = {g.type: sum(x.count for x in hw.data_devices if x.type == g.type) for g in hw.data_devices}
    osds_node = sum(osds_per_device(t, hw.cores, n).value * n for t, n in per_type.items())
    osds = osds_node * nodes
    wanted = last(chain, "protection") or "replication"
    ec: Derived | None = None
    size = req.replication or 3
    reason = f"{size} replicas{' (--replication)' if req.replication else ' (the default for data safety)'}"
    if req.replication is not None and req.ec is not None:
        raise UsageError("choose either --replication or --ec, not both", suggestion="drop one of them")
    if req.ec is not None:
        ec = ec_profile(nodes, requested=req.ec)
    elif wanted == "erasure" and req.replication is None:
        try:
            ec = ec_profile(nodes)
        except DataError:
            reason += f"; erasure coding needs at least 6 hosts and --nodes is {nodes}"
    if size < 2:
        raise UsageError("--replication must be at least 2: one copy loses data with any failed device",
                         suggestion="use --replication 3 (the default) or --ec K+M")
    ctx: dict[str, Any] = {
        "ram_gib": hw.ram_gib, "cores": hw.cores, "nic_gbps": hw.nic_gbps, "sockets": hw.sockets,
        "osds_per_node": osds_node, "osds": osds, "nodes": nodes, "clients": clients,
        "db_ram_gib": req.db_ram_gib or hw.client_ram_gib, "client_ram_gib": hw.client_ram_gib,
        "pool_size": size, "pool_min_size": size - 1, "pool_reason": reason,
        "protection_reason": ec.reason if ec else reason,
        "protection": "erasure" if ec else "replication", "ec": ec,
        "device_type": hw.data_type, "workload": req.workload, "release": req.ceph_release,
    }  # fmt: skip
    ctx["osd_memory_target"] = osd_memory_target(hw.ram_gib, osds_node).value
    ctx["pg_num"] = pg_num(osds, size, 0.9 if ec is None else 0.1).value
    ctx["pg_num_ec"] = pg_num(osds, ec.value.k + ec.value.m, 0.9).value if ec else 0
    return ctx


def _knob(catalog: Any, key: str, domain: str | None) -> Knob | None:
    try:
        k = catalog.get(key, domain)
        return k if isinstance(k, Knob) else None
    except Exception:  # a catalog being edited concurrently must not break compiling
        return None


def _release_facts(knob: Knob | None, release: str | None) -> tuple[str, ...]:
    if knob is None:
        return ()
    facts = []
    if knob.added:
        facts.append(f"added in {knob.added}")
    if knob.removed:
        facts.append(f"removed in {knob.removed}")
    d = knob.default_for(release)
    if d is not None:
        facts.append(f"default in {release}: {d}" if release else f"kernel default: {d}")
    if knob.effect != "runtime":
        facts.append({"restart": "takes effect on daemon restart", "create": "only read when the OSD is created"}
                     .get(knob.effect, knob.effect))  # fmt: skip
    return tuple(facts)


def _resolve_value(raw: Any, ctx: dict[str, Any], where: str) -> tuple[Any, str, tuple[str, ...], dict[str, Any], str]:
    """(value, rule, evidence, inputs, why) of one profile entry."""
    if isinstance(raw, dict) and "derive" in raw:
        name = str(raw["derive"])
        fn = REGISTRY.get(name)
        if fn is None:
            raise DataError(f"{where}: unknown derivation {name!r}",
                            suggestion=f"known: {', '.join(sorted(REGISTRY))}")  # fmt: skip
        d = fn(ctx)
        return d.value, f"derive:{name}", d.evidence, d.inputs, d.reason
    if isinstance(raw, dict) and "value" in raw:
        return raw["value"], "", tuple(raw.get("evidence") or ()), {}, str(raw.get("why") or "")
    return raw, "", (), {}, ""


def compile_bundle(req: CompileRequest) -> Bundle:
    if req.workload not in WORKLOADS:
        raise UsageError(f"unknown workload {req.workload!r}", suggestion=f"choose one of {', '.join(WORKLOADS)}")
    hw = load_hardware(req.hardware_file) if req.hardware_file else load_tier(req.tier or "iops")
    legacy = req.ceph_release == LEGACY_RELEASE
    chain = compose(layer_names(req, hw))
    ctx = _context(req, hw, chain)
    catalog = load_catalog()
    bundle = Bundle(request=req, hardware=hw, settings=[], layers=[p.name for p in chain], context=ctx,
                    legacy=legacy)  # fmt: skip
    # ---- settings: profile values (and opted-in unsafe values) with their provenance
    unsafe = merge(chain, part="unsafe")
    unknown = sorted(k for k in req.allow_unsafe if k not in {key for (_, _, key) in unsafe})
    if unknown:
        offered = sorted({key for (_, _, key) in unsafe})
        raise UsageError(f"--allow-unsafe {unknown[0]}: this profile has no unsafe value for it",
                         suggestion=f"knobs with an unsafe alternative here: {', '.join(offered)}")  # fmt: skip
    merged = merge(chain)
    forced: dict[tuple[str, str, str], tuple[Any, str]] = {}
    for (file, section, key), (raw, layer) in unsafe.items():
        if key in req.allow_unsafe:
            forced[(file, section, key)] = (raw, layer)
            for other, v in (raw.get("also") or {}).items():
                merged[(file, section, str(other))] = ({"value": v, "why": f"goes with the unsafe {key}"}, layer)
    for (file, section, key), (raw, layer) in [*merged.items(), *forced.items()]:
        if file == "cbt.yaml":
            continue
        opt_in = (file, section, key) in forced
        value, rule, evidence, inputs, why = _resolve_value(raw, ctx, f"{layer}: {file} [{section}] {key}")
        if value is None or value == "":
            bundle.omitted.append({"file": file, "section": section, "key": key, "why": why or "no value here"})
            continue
        knob = _knob(catalog, key, FILE_DOMAIN.get(file))
        rationale = (knob.rationale if knob else "") or why
        if why and rule.startswith("derive:"):
            rationale = f"{rationale} Derived: {why}" if knob and knob.rationale else why
        safety = str(raw.get("safety", "safe")) if opt_in else (knob.safety if knob else "safe")
        bundle.settings.append(Setting(
            file=file, section=section, key=key, value=value, rule=rule or f"profile:{layer}",
            rationale=rationale, evidence=evidence or (knob.evidence if knob else ()),
            safety=safety if opt_in else "safe", unsafe_opt_in=opt_in, inputs=inputs,
            release_facts=_release_facts(knob, {"ceph.conf": req.ceph_release, "my.cnf": req.mysql_flavour}.get(file)),
            notes=(f"unsafe ({safety}): {why}",) if opt_in else (),
        ))  # fmt: skip
    validate_settings(bundle, catalog)
    # ---- files
    inputs = {**req.echo(), "flashtune": __version__}
    by_file: dict[str, list[Setting]] = {}
    for s in bundle.settings:
        by_file.setdefault(s.file, []).append(s)
    files = bundle.files
    files["ceph.conf"] = cephconf.emit(by_file.get("ceph.conf", []), inputs)
    if "sysctl.conf" in by_file:
        files["sysctl.conf"] = sysctl.emit(by_file["sysctl.conf"], inputs)
    if req.workload == "mysql":
        files["my.cnf"] = mycnf.emit(by_file.get("my.cnf", []), inputs)
    if "tuned.conf" in by_file:
        files["tuned/flashtune/tuned.conf"] = tuned.emit(by_file["tuned.conf"], inputs)
    if "udev.rules" in by_file:
        files["udev/60-flashtune-blockdev.rules"] = udev.emit(by_file["udev.rules"], inputs)
    if "systemd-numa.conf" in by_file and hw.sockets > 1:
        per = max(1, ctx["osds_per_node"] // hw.sockets)
        for node in range(hw.sockets):
            files[f"systemd/numa-node{node}.conf"] = systemd.emit(
                by_file["systemd-numa.conf"], inputs, node, f"about {per} of the node's {ctx['osds_per_node']} OSDs")
    _benchmarks(bundle, chain, merged, inputs)
    bundle.differences = [d for p in chain for d in p.differences]
    if req.workload == "mysql" and legacy and req.mysql_flavour == "mariadb-10.11":
        bundle.differences.append({"file": "my.cnf", "key": "innodb_page_cleaners", "seed": "16",
                                   "emitted": "(omitted)", "why": "Removed in MariaDB 10.11: accepted with a "
                                   "warning and ignored. Kept for --mysql mysql-5.7/8.0."})  # fmt: skip
    validate_bundle(bundle)
    files["explain.md"] = explain.emit(bundle, inputs)
    files["manifest.json"] = manifest.emit(bundle, inputs)
    return bundle


def _benchmarks(bundle: Bundle, chain: list[Profile], merged: Any, inputs: dict[str, Any]) -> None:
    legacy_doc = last(chain, "cbt")
    if legacy_doc:
        bundle.files["cbt.yaml"] = cbt.emit(legacy_doc, inputs, "CBT plan of the 2017 study, corrected (see explain.md).")
        wl = legacy_doc.get("benchmarks", {}).get("librbdfio", {}).get("workloads", {})
        bundle.cases = list(wl)
        return
    plan = last(chain, "benchmark")
    if not plan:
        return
    extra = {key: raw for (file, section, key), (raw, _) in merged.items() if file == "cbt.yaml" and section == "cluster"}
    docs, cases, derived = benchmark.documents(plan, bundle.context, extra)
    bundle.cases = cases
    bundle.derived.update(derived)
    note = ("Host names are placeholders: replace client01.., osd01.., mon01 with yours.\n"
            "Every intended case runs: sweeps are librbdfio workloads (or one file per case), because "
            "current CBT runs only the first permutation of a benchmark.")
    for name, doc in docs.items():
        bundle.files[name] = cbt.emit(doc, inputs, note)


def manifest_dict(bundle: Bundle) -> dict[str, Any]:
    """The manifest as a dict (for --format json and tests)."""
    loaded: dict[str, Any] = json.loads(bundle.files["manifest.json"])
    return loaded

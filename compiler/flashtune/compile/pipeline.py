"""The compile pipeline: inputs -> layered profile -> Settings (values with provenance) -> files -> checks.

data (tiers, profiles) -> catalog (rationale, safety, release facts) -> rules (profile layers)
-> derive (pure functions) -> emit (one module per format) -> validate -> the CLI writes atomically.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Any

from flashtune import __version__
from flashtune.catalog import Knob, load_catalog, vocab
from flashtune.compile import benchmark, dead, derive, derive_host, formats, layout, oltp, recovery
from flashtune.compile.derive import (
    autoscaler_pg_nums,
    ec_profile,
    osd_memory_target,
    osds_per_device,
    pg_num,
)
from flashtune.compile.derive_host import connection_bytes, vm_min_free_kbytes
from flashtune.compile.lifecycle import release_warnings
from flashtune.compile.profiles import Profile, compose, last, merge
from flashtune.compile.validate import validate_bundle, validate_settings
from flashtune.envelope import bundle as envelope_bundle
from flashtune.errors import DataError, UsageError
from flashtune.hardware import load_hardware, load_tier
from flashtune.model import Bundle, CompileRequest, Derived, GiB, Hardware, Setting, Shape
from flashtune.paths import has_data
from flashtune.placement import placement
from flashtune.releases import SUPPORTED_CEPH_RELEASES, ceph_index
from flashtune.yamlio import line_of, load_yaml

WORKLOADS = ("block", "rgw", "mysql", "scratch")
# Every derivation a profile may name (`{derive: NAME}`): the cluster's and the hosts' around it, each module's
# REGISTRY (neither imports the other's), joined here, where the profiles' names are resolved.
REGISTRY: dict[str, Callable[[Shape], Derived]] = {**derive.REGISTRY, **derive_host.REGISTRY}
LEGACY_RELEASE = "jewel"
# The release whose catalog defaults stand in where the legacy release predates a knob (e.g. PG limits).
_OLDEST_MODERN = "pacific"

__all__ = ["WORKLOADS", "Bundle", "CompileRequest", "compile_bundle", "layer_names"]


# The legacy my.cnf sets the query cache, which MySQL 8.0 removed: it runs on the seed's 5.7 and on MariaDB.
LEGACY_FLAVOURS = ("mysql-5.7", "mariadb-10.11")


def layer_names(req: CompileRequest, hw: Hardware) -> list[str]:
    """Profile layers, later winning: base -> device-<data device type> -> workload- (-> device-<type>-workload-,
    where that layer exists) -> release- (-> flavour-)."""
    if req.ceph_release == LEGACY_RELEASE:
        if (hw.name, req.workload) != ("iops", "mysql") or not hw.tier:
            raise UsageError(
                "--ceph-release jewel is the legacy mode: it reproduces the 2017 All-NVMe MySQL setup only",
                suggestion="use --ceph-release jewel --tier iops --workload mysql, or a current release",
            )
        if req.mysql_flavour not in LEGACY_FLAVOURS:
            raise UsageError(
                f"--ceph-release jewel reproduces the 2017 my.cnf, written for MySQL 5.7: {req.mysql_flavour} "
                "removed its query cache lines, so the server would refuse to start",
                suggestion="add --mysql mysql-5.7 (the seed's server) or leave --mysql at mariadb-10.11",
            )
        names = ["legacy-jewel-iops-mysql"]
    else:
        names = ["base", f"device-{hw.data_type}", f"workload-{req.workload}"]
        # a device x workload layer (e.g. device-nvme-workload-block) holds what is true only where both meet
        both = f"device-{hw.data_type}-workload-{req.workload}"
        if has_data(f"profiles/{both}.yaml"):
            names.append(both)
        names.append(f"release-{req.ceph_release}")
    # legacy mode reproduces the seed: of the flavour layers (current redo sizing) it takes only MariaDB's,
    # which removes what 10.11 no longer has
    if req.workload == "mysql" and (
        req.ceph_release != LEGACY_RELEASE or req.mysql_flavour == "mariadb-10.11"
    ):
        names.append(f"flavour-{req.mysql_flavour}")
    return names


def _catalog_default(catalog: Any, name: str, release: str) -> Any:
    knob = _knob(catalog, name, "ceph")
    if knob is None:
        raise DataError(f"the knob catalog has no {name}", suggestion="restore it in data/knobs/ceph.yaml")
    d = knob.default_for(release)
    return d if d is not None else knob.default_for(_OLDEST_MODERN)


def _profile_value(merged: Any, file: str, section: str, key: str) -> Any:
    raw = merged.get((file, section, key), (None, ""))[0]
    return raw.get("value") if isinstance(raw, dict) else raw


def _daemon_memory(nl: layout.NodeLayout, merged: Any, catalog: Any, release: str) -> dict[str, float]:
    """GiB each non-OSD daemon on the busiest node needs; the MDS from the cache limit this compile sets.
    A daemon that runs n times on the node is one item, "n x name", of n times the memory."""
    out: dict[str, float] = {}
    for name in nl.daemons:
        if name == "mds" and name not in nl.memory_gib:
            cache = _profile_value(merged, "ceph.conf", "mds", nl.mds_cache_knob)
            cache = cache if cache is not None else _catalog_default(catalog, nl.mds_cache_knob, release)
            gib = round(int(cache) / GiB * nl.mds_rss_factor, 3)
        else:
            gib = nl.memory_gib.get(name, 0.0)
        n = nl.counts.get(name, 1)
        out[name if n == 1 else f"{n} x {name}"] = gib * n
    return out


def _node_osds(
    req: CompileRequest,
    hw: Hardware,
    chain: list[Profile],
    per_device: int | None,
) -> tuple[int, Derived]:
    """OSDs on one node and the per-device Derived of the largest device group."""
    rules = layout.osds_per_device_rules()
    fixed = (last(chain, "cluster") or {}).get("osds_per_device")
    total, main = 0, None
    for g in sorted(hw.data_devices, key=lambda g: -g.count):
        devices = sum(x.count for x in hw.data_devices if x.type == g.type)
        if fixed is not None:
            d = Derived(
                int(fixed),
                f"{fixed} OSDs per device, as the reproduced 2017 setup ran (seed 000: four "
                "partitions per NVMe device were optimal on Jewel)",
                {"device_type": g.type},
                ("sources/guide-nvme-partitions",),
            )
        else:
            d = osds_per_device(g.type, hw.node_cores, devices, rules, requested=per_device)
        total += d.value * g.count
        main = main or d
    assert main is not None
    return total, main


def _memory(
    req: CompileRequest, hw: Hardware, chain: list[Profile], merged: Any, catalog: Any
) -> tuple[int, Derived, Derived, dict[str, float], layout.NodeLayout]:
    """OSDs per node and osd_memory_target under the node budget. When derived OSDs per device leave too
    little memory, fall back to one OSD per device before refusing."""
    # RGW daemons per OSD node: the hardware's colocated count, none where gateways have hosts of their own
    gateways = hw.colocated_gateways or (0 if hw.gateways else None)
    nl = layout.node_layout(req.workload, hw.layout, gateways)
    daemons = _daemon_memory(nl, merged, catalog, req.ceph_release)
    rules = layout.memory_rules()
    osds_node, per_device = _node_osds(req, hw, chain, req.osds_per_device)
    # the kernel keeps vm.min_free_kbytes free of every allocation: it is part of the OS's share, not the OSDs'
    reserve = nl.os_reserve_gib + vm_min_free_kbytes(hw.ram_gib).value / (1 << 20)
    try:
        mem = osd_memory_target(hw.ram_gib, osds_node, daemons, reserve, rules)
    except DataError:
        if req.osds_per_device is not None or per_device.value == 1 or last(chain, "cluster"):
            raise
        osds_node, per_device = _node_osds(req, hw, chain, 1)
        mem = osd_memory_target(hw.ram_gib, osds_node, daemons, reserve, rules)
        per_device = Derived(
            1,
            f"{per_device.reason}; one OSD per device, because more would leave each OSD "
            "less memory than its useful floor",
            per_device.inputs,
        )
    return osds_node, per_device, mem, daemons, nl


def _block_db(hw: Hardware, workload: str, per_device: int) -> list[str]:
    """Warnings (and a refusal below the minimum) for block.db on a separate device that is too small."""
    if not hw.db_devices or all(g.type == hw.data_type for g in hw.db_devices):
        return []
    rules = layout.block_db_rules()
    osds = sum(g.count for g in hw.data_devices) * per_device
    db_gb = sum(g.count * g.size_gb for g in hw.db_devices) / osds
    data_gb = max(g.size_gb for g in hw.data_devices) / per_device
    share = db_gb / data_gb
    want = float(rules["recommended"].get(workload, rules["minimum"]))
    where = f"block.db of {db_gb:.0f} GB per OSD is {share:.1%} of its {data_gb:.0f} GB data device"
    if share < float(rules["minimum"]):
        raise DataError(
            f"{where}, below the {float(rules['minimum']):.0%} minimum ({rules['source']})",
            file=hw.source,
            suggestion="use a larger or a second DB device, or fewer OSDs per DB device",
        )
    if share < want:
        return [
            f"{where}; {workload} wants at least {want:.0%} ({rules['source']}): RocksDB metadata will spill "
            "over to the slow data device. Use a larger DB device for this workload."
        ]
    return []


def _check_request(req: CompileRequest, nodes: int, clients: int) -> None:
    """Refuse command-line combinations no cluster shape can follow."""
    if nodes < 1 or clients < 1:
        raise UsageError("--nodes and --clients must be at least 1", suggestion="e.g. --nodes 5 --clients 6")
    if req.replication is not None and req.ec is not None:
        raise UsageError("choose either --replication or --ec, not both", suggestion="drop one of them")
    if req.osds_per_device is not None and req.ceph_release == LEGACY_RELEASE:
        raise UsageError(
            "the legacy mode reproduces the seed's 4 OSDs per NVMe device",
            suggestion="drop --osds-per-device, or compile for a current release",
        )


def _flag_error(_req: CompileRequest, message: str, suggestion: str) -> UsageError:
    return UsageError(message, suggestion=suggestion)


def _file_protection_error(req: CompileRequest, message: str, suggestion: str) -> DataError:
    """An error at the hardware file's `protection:` line (the file is read again for its line)."""
    path = req.hardware_file
    if path is None:
        return DataError(message, suggestion=suggestion)
    doc = load_yaml(path)
    cluster = doc.get("cluster") if isinstance(doc, dict) else None
    line = line_of(cluster, "protection") if isinstance(cluster, dict) else None
    return DataError(message, file=str(path), line=line or 1, suggestion=suggestion)


def _protection(
    req: CompileRequest, hw: Hardware, nodes: int, wanted: str, optimized: bool
) -> tuple[int, str, Derived | None]:
    """How the data is protected: the replica count (with its reason) and the EC profile, if any, from the
    command line, the hardware file or the profile's preference."""
    rules = layout.erasure_rules()
    # the hardware file's `cluster.protection` is the user's choice unless the command line makes another
    prot = hw.protection if req.replication is None and req.ec is None else None
    # a Lustre set-up's RAID-only data (no copy) was compiled as 3 replicas without a word
    if prot is not None and prot.kind == "none":
        raise _file_protection_error(
            req,
            "protection {none: true} keeps no copy (RAID inside the media, as a Lustre set-up): a Ceph pool "
            "needs replicated or erasure",
            "set protection: {replicated: 3} or {erasure: [k, m]}, or pass --replication N / --ec K+M",
        )
    replication = prot.size if prot is not None and prot.kind == "replicated" else req.replication
    requested_ec = (prot.k, prot.m) if prot is not None and prot.kind == "erasure" else req.ec
    by = "hardware file protection" if prot is not None else "--replication"
    size = 3 if replication is None else replication
    # the file's replicated: N is named at its line, not as a --replication flag the user did not pass
    refuse = _file_protection_error if prot is not None else _flag_error
    what = f"replicated: {size}" if prot is not None else f"--replication {size}"
    if size < 2:
        raise refuse(
            req,
            f"{what}: at least 2 copies are needed: one copy loses data with any failed device",
            "use 3 replicas (the default) or erasure coding",
        )
    if requested_ec is None and size > nodes:
        raise refuse(
            req,
            f"{size} replicas need {size} hosts (each copy on its own host) and the cluster has {nodes}",
            f"pass --nodes {size} or more, or fewer replicas",
        )
    if size == 2 and not {"osd_pool_default_size", "osd_pool_default_min_size"} <= req.allow_unsafe:
        raise refuse(
            req,
            f"{what} keeps two copies: a second failure during recovery loses data (durability risk)",
            "to accept that, add --allow-unsafe osd_pool_default_size "
            "--allow-unsafe osd_pool_default_min_size",
        )
    reason = f"{size} replicas{f' ({by})' if replication else ' (the default for data safety)'}"
    ec: Derived | None = None
    if requested_ec is not None:
        if prot is not None and sum(requested_ec) > nodes:  # not '--nodes is 3': the file's erasure: line
            k, m = requested_ec
            raise _file_protection_error(
                req,
                f"erasure: [{k}, {m}] needs at least {k + m} hosts as failure domains and the cluster has "
                f"{nodes}",
                "add nodes (--nodes or cluster.nodes), choose a smaller k+m, or use replicated: N",
            )
        ec = ec_profile(nodes, req.ceph_release, rules, requested=requested_ec, optimized=optimized)
    elif wanted == "erasure" and replication is None:
        try:
            ec = ec_profile(nodes, req.ceph_release, rules, optimized=optimized)
        except DataError as e:
            reason += f"; {e.message}"
    return size, reason, ec


def _capacity_warnings(
    nodes: int, size: int, replicated: bool, spare: int, memory_target: int, catalog: Any, req: CompileRequest
) -> list[str]:
    """Warnings about what the cluster can carry: no spare host for the replicas, an OSD memory target below
    the default."""
    warnings = []
    if (
        replicated and nodes - size < spare
    ):  # the same failure-domain rule EC follows (layout.yaml spare_hosts)
        warnings.append(
            f"WARNING: {size} replicas on {nodes} hosts leave no spare host: after a host fails its copies "
            f"cannot be rebuilt elsewhere, and the pools stay degraded (min_size {max(1, size - 1)} of {size}) "
            f"until it returns; {size + spare} hosts or more let Ceph re-replicate "
            "(https://docs.ceph.com/en/latest/rados/operations/crush-map/: the default rule puts each copy on "
            "its own host)"
        )
    default_target = int(_catalog_default(catalog, "osd_memory_target", req.ceph_release))
    if memory_target < default_target:
        warnings.append(
            f"osd_memory_target {memory_target / GiB:.2f} GiB is below the {default_target / GiB:g} GiB default: it works, "
            "but BlueStore may read metadata from disk unless the active data set is small "
            "(https://docs.ceph.com/en/latest/start/hardware-recommendations/#memory). More RAM per OSD, or "
            "fewer daemons on the OSD nodes, would lift it."
        )
    return warnings


def cluster_shape(req: CompileRequest, hw: Hardware, chain: list[Profile], catalog: Any) -> Shape:
    """Everything derivations may read: hardware, cluster shape, node memory budget, protection, pools."""
    nodes = hw.nodes if req.nodes is None else req.nodes
    clients = hw.clients if req.clients is None else req.clients
    _check_request(req, nodes, clients)
    merged = merge(chain)
    osds_node, per_device, mem, daemons, nl = _memory(req, hw, chain, merged, catalog)
    osds = osds_node * nodes
    wanted = last(chain, "protection") or "replication"
    rules = layout.erasure_rules()
    # Tentacle's EC optimisations only where the hardware file turns them on (cluster.ec_optimizations): 20.2.0
    # OSDs crash with them, and the flag cannot be cleared from a pool
    optimized = hw.ec_optimizations and ceph_index(req.ceph_release) >= ceph_index(
        str(rules["optimizations"]["from"])
    )
    size, reason, ec = _protection(req, hw, nodes, wanted, optimized)
    target = int(_catalog_default(catalog, "mon_target_pg_per_osd", req.ceph_release))
    max_pg = int(_catalog_default(catalog, "mon_max_pg_per_osd", req.ceph_release))
    flash = hw.flash_beside_hdd
    classes = placement().device_class
    if flash is not None and ec is not None:  # EC chunks on the HDDs, not on the small flash OSDs
        ec = replace(ec, value=replace(ec.value, device_class=classes["hdd"]))
    pg = pg_num(osds, size, 0.9 if ec is None else 0.1, target_per_osd=target, max_per_osd=max_pg)
    pg_ec = (
        pg_num(osds, ec.value.k + ec.value.m, 0.9, target_per_osd=target, max_per_osd=max_pg) if ec else None
    )
    shape: Shape = {
        "ram_gib": hw.ram_gib,
        "cores": hw.cores,
        "node_cores": hw.node_cores,
        "nic_gbps": hw.nic_gbps,
        "sockets": hw.sockets,
        "osds_per_device": per_device.value,
        "osds_per_device_reason": per_device.reason,
        "osds_per_node": osds_node,
        "osds": osds,
        "nodes": nodes,
        "clients": clients,
        "db_ram_gib": req.db_ram_gib or hw.client_ram_gib,
        "client_ram_gib": hw.client_ram_gib,
        "db_vcpus": req.db_vcpus or hw.client_vcpus,
        "db_bind_address": req.db_bind_address,
        "mysql_flavour": req.mysql_flavour,
        "db_connection_bytes": connection_bytes(catalog, req.mysql_flavour),
        "pool_size": size,
        "pool_min_size": size - 1,
        "pool_reason": reason,
        "protection_reason": ec.reason if ec else reason,
        "protection": "erasure" if ec else "replication",
        "ec": ec,
        "device_type": hw.data_type,
        "workload": req.workload,
        "release": req.ceph_release,
        "memory": mem,
        "osd_memory_target": mem.value,
        "message_rules": layout.memory_rules()["messages"],
        "daemons_gib": daemons,
        "os_reserve_gib": nl.os_reserve_gib,
        # the gateways the rgw plans drive: dedicated gateway hosts where the hardware file has them, else the
        # radosgw daemons on every OSD node (the layout's placement, or the hardware's colocated.gateways)
        "gateway_hosts": hw.gateways,
        "rgw_per_node": max(nl.counts.get("rgw", 0), hw.colocated_gateways),  # the budget counts them too
        "pg_target_per_osd": target,
        "pg_max_per_osd": max_pg,
        "pg_num": pg.value,
        "pg_num_derived": pg,
        "pg_num_ec": pg_ec.value if pg_ec else 0,
        "ec_optimized": bool(ec is not None and optimized),
        "flash_class": classes[flash] if flash is not None else None,  # CRUSH class of flash OSDs beside HDDs
        "class_osds": {
            classes[t]: sum(g.count for g in hw.data_devices if g.type == t) * per_device.value * nodes
            for t in {g.type for g in hw.data_devices}
        },
        "warnings": _block_db(hw, req.workload, per_device.value),
    }
    if ec is not None and "WARNING" in ec.reason:
        shape["warnings"].append(ec.reason)
    shape["warnings"] += _capacity_warnings(
        nodes, size, ec is None, int(rules["spare_hosts"]), mem.value, catalog, req
    )
    if hw.release and hw.release != req.ceph_release:  # the file's release: gave way to the target unsaid
        shape["warnings"].append(
            f"WARNING: the hardware file says release: {hw.release}, and these files are for {req.ceph_release} "
            + (
                f"(--ceph-release): pass --ceph-release {hw.release} to compile for the cluster it describes"
                if hw.release in SUPPORTED_CEPH_RELEASES
                else f"(--ceph-release; compile-config has no {hw.release} settings)"
            )
        )
    if req.workload == "scratch":
        shape.update(_mds_ranks(hw, nodes, shape["warnings"]))
    shape["pools"] = pool_list(req, shape, target, max_pg)
    return shape


def pin_device_classes(planned: list[dict[str, Any]], shape: Shape, release: str) -> None:
    """Where flash OSDs sit beside HDDs: each replicated pool gets a CRUSH rule restricted to a device class,
    the omap-heavy ones (layout.yaml `metadata`, the replicated pool beside an EC pool, the manager's pool and
    the pools the workload's daemons make themselves) the flash class and the others the HDD class; EC pools
    take the HDD class from their profile."""
    flash = shape.get("flash_class")
    shape["crush_rules"] = {}
    if not flash:
        return
    facts = layout.device_class_rules()
    hdd = placement().device_class["hdd"]
    for p in planned:
        if p["type"] == "erasure":
            p["device_class"] = hdd
            continue
        cls = flash if p.get("metadata") or p.get("ec_data_pool") else hdd
        p["device_class"] = cls
        p["crush_rule"] = str(facts["rule"]).format(cls=cls)
        shape["crush_rules"][p["crush_rule"]] = cls
    mgr = facts["mgr_pool"]
    shape["mgr_rule"] = str(facts["rule"]).format(cls=flash)
    shape["crush_rules"][shape["mgr_rule"]] = flash
    own = facts.get("daemon_pools", {}).get(str(shape["workload"]), [])
    shape["flash_pools"] = [str(mgr.get(release, mgr["default"])), *map(str, own)]


def _mds_ranks(hw: Hardware, nodes: int, warnings: list[str]) -> dict[str, int]:
    """The scratch file system's MDS daemons (hardware cluster.mds_daemons, else layout.yaml's default) and
    its active ranks, max_mds: all but the standbys layout.yaml keeps (at least one rank)."""
    rules = layout.filesystem_mds()
    daemons = int(rules["daemons"]) if hw.mds_daemons is None else hw.mds_daemons
    ranks = max(1, daemons - int(rules["standby"]))
    if daemons <= int(rules["standby"]):
        warnings.append(
            f"WARNING: {daemons} MDS daemon(s) leave no standby: when the active MDS fails the file system "
            "stops until it returns (cluster.mds_daemons: one more keeps a standby)"
        )
    if daemons > nodes:
        warnings.append(
            f"WARNING: {daemons} MDS daemons on {nodes} OSD nodes put more than one on a node, while the memory "
            "budget counts one MDS per node (layout placement): lower cluster.mds_daemons or budget the memory "
            "with a layout override"
        )
    return {"mds_daemons": daemons, "max_mds": ranks}


def pool_list(req: CompileRequest, shape: Shape, target: int, max_pg: int) -> list[dict[str, Any]]:
    """The workload's pools (data/layout/layout.yaml) with type, pg_num and EC flags for this cluster.

    pools.sh gives each pool its share as target_size_ratio and creates the pools in this order; pg_num is what
    the PG autoscaler then aims at (flashtune.compile.derive.autoscaler_pg_nums, measured on 16.2.15), so it
    leaves the pools as created."""
    ec: Derived | None = shape["ec"]
    osds, size = shape["osds"], shape["pool_size"]
    rules = layout.erasure_rules()
    opt = rules["optimizations"]
    optimize = ec is not None and ceph_index(req.ceph_release) >= ceph_index(str(opt["from"]))
    planned: list[dict[str, Any]] = []
    for p in layout.pools_for(req.workload):
        name, app, share = str(p["name"]), str(p["application"]), float(p.get("share", 0.05))
        if ec is None or not p.get("data"):
            planned.append(
                {"name": name, "application": app, "type": "replicated", "size": size, "share": share}
            )
            planned[-1].update(
                {k: p[k] for k in ("autoscale_bias", "recovery_priority", "data", "metadata") if k in p}
            )
            continue
        if p.get("ec_pool"):  # the application keeps a replicated pool beside the EC data pool
            planned.append(
                {
                    "name": name,
                    "application": app,
                    "type": "replicated",
                    "size": size,
                    # it holds only small metadata objects: the data share goes to the EC pool
                    "share": float(p.get("partner_share", round(1 - share, 3))),
                    "data": True,
                    "ec_data_pool": str(p["ec_pool"]),
                }
            )
            name = str(p["ec_pool"])
        planned.append(
            {
                "name": name,
                "application": app,
                "type": "erasure",
                "profile": ec.value.profile_name,
                "size": ec.value.k + ec.value.m,
                "share": share,
                "ec_overwrites": app in ("rbd", "cephfs"),
                "ec_optimizations": optimize,  # the release has them (pools.sh: a commented opt-in line)
                "ec_optimizations_on": bool(shape.get("ec_optimized")),  # the hardware file turned them on
            }
        )
    pin_device_classes(planned, shape, req.ceph_release)
    # the autoscaler budgets each CRUSH root apart: with device classes, each class's pools share its OSDs
    by_class: dict[str | None, list[int]] = {}
    for i, p in enumerate(planned):
        by_class.setdefault(p.get("device_class"), []).append(i)
    pgs = [0] * len(planned)
    for cls, members in by_class.items():
        counted = autoscaler_pg_nums(
            [
                (planned[i]["size"], planned[i]["share"], float(planned[i].get("autoscale_bias", 1)))
                for i in members
            ],
            osds if cls is None else int(shape["class_osds"][cls]),
            target_per_osd=target,
            max_per_osd=max_pg,
            floor=int(layout.autoscaler_rules()["pg_num_min"]),
        )
        for i, n in zip(members, counted, strict=True):
            pgs[i] = n
    fs = layout.filesystem()
    for p, pg in zip(planned, pgs, strict=True):
        p["pg_num"] = pg
        if p["application"] == "cephfs":  # pools.sh makes them this file system
            p["filesystem"] = fs["name"]
            p["mds_daemons"], p["max_mds"] = shape["mds_daemons"], shape["max_mds"]
            if p["type"] == "erasure" or shape["max_mds"] > 1:  # the folder clients mount (and pin)
                p["subvolume"] = fs["subvolume"]
        if p["type"] == "erasure":
            del p["size"]  # k+m comes with the profile
    return planned


def _knob(catalog: Any, key: str, domain: str | None) -> Knob | None:
    try:
        k = catalog.get(key, domain)
        return k if isinstance(k, Knob) else None
    except Exception:  # a catalog being edited concurrently must not break compiling
        return None


@cache
def _effects() -> dict[str, str]:
    """What each knob effect means (the knob schema's words), read from the schema once, not per setting."""
    return vocab.meanings("effect")


def _release_facts(knob: Knob | None, release: str | None) -> tuple[str, ...]:
    if knob is None:
        return ()
    facts = list(knob.history())
    d = knob.default_for(release)
    if d is not None:
        facts.append(f"default in {release}: {d}" if release else f"kernel default: {d}")
    if knob.effect != "runtime":
        facts.append(_effects()[knob.effect])  # the knob schema's words
    return tuple(facts)


def _resolve_value(raw: Any, ctx: Shape, where: str) -> tuple[Any, str, tuple[str, ...], dict[str, Any], str]:
    """(value, rule, evidence, inputs, why) of one profile entry."""
    if isinstance(raw, dict) and "derive" in raw:
        name = str(raw["derive"])
        fn = REGISTRY.get(name)
        if fn is None:
            raise DataError(
                f"{where}: unknown derivation {name!r}", suggestion=f"known: {', '.join(sorted(REGISTRY))}"
            )
        d = fn(ctx)
        return d.value, f"derive:{name}", d.evidence, d.inputs, d.reason
    if isinstance(raw, dict) and "value" in raw:
        return raw["value"], "", tuple(raw.get("evidence") or ()), {}, str(raw.get("why") or "")
    return raw, "", (), {}, ""


def _removals_only(layer: Profile) -> Profile:
    """The legacy reproduction takes from a flavour layer only what it removes (keys 10.11 no longer has or
    runs differently), never its current-practice settings (e.g. the utf8mb4 character set the seed did not run)."""
    return replace(layer, settings={})


def compile_bundle(req: CompileRequest) -> Bundle:
    if req.workload not in WORKLOADS:
        raise UsageError(
            f"unknown workload {req.workload!r}", suggestion=f"choose one of {', '.join(WORKLOADS)}"
        )
    hw = load_hardware(req.hardware_file) if req.hardware_file else load_tier(req.tier or "iops")
    chain = compose(layer_names(req, hw))
    if req.ceph_release == LEGACY_RELEASE:
        chain = [_removals_only(p) if p.name.startswith("flavour-") else p for p in chain]
    catalog = load_catalog()
    shape = cluster_shape(req, hw, chain, catalog)
    bundle = Bundle(
        request=req,
        hardware=hw,
        settings=[],
        layers=[p.name for p in chain],
        shape=shape,
        legacy=req.ceph_release == LEGACY_RELEASE,
        warnings=list(shape["warnings"])
        + release_warnings(
            req.ceph_release,
            req.mysql_flavour if req.workload == "mysql" else None,
            ec_optimizations=bool(shape.get("ec_optimized")),
        ),
    )
    merged = _settings(bundle, chain, catalog)
    validate_settings(bundle, catalog)
    dead.drop_dead(bundle, catalog)
    if not bundle.legacy:
        bundle.shape["recovery"] = recovery.estimate(bundle)
    inputs = {**req.echo(), "flashtune": __version__}
    if req.benchmarks:
        _benchmarks(bundle, chain, merged)
    bundle.envelope = envelope_bundle.for_bundle(
        hw, shape, bundle.plans, catalog.default_objectstore(req.ceph_release), release=req.ceph_release
    )
    formats.render(bundle, "config", inputs)
    formats.render(bundle, "plan", inputs)
    bundle.differences = [d for p in chain for d in p.differences if _applies(d, req)]
    validate_bundle(bundle)
    formats.render(bundle, "report", inputs)
    return bundle


def _applies(difference: dict[str, Any], req: CompileRequest) -> bool:
    """A legacy difference may hold only for some MySQL flavours (`when: {mysql_flavour: [...]}`)."""
    flavours = (difference.get("when") or {}).get("mysql_flavour")
    return flavours is None or req.mysql_flavour in flavours


def _settings(bundle: Bundle, chain: list[Profile], catalog: Any) -> Any:
    """Profile values (and opted-in unsafe values) with their provenance, into bundle.settings."""
    req = bundle.request
    unsafe = merge(chain, part="unsafe")
    derived = {
        key for (_, _, key), (raw, _) in merge(chain).items() if isinstance(raw, dict) and "derive" in raw
    }
    unknown = sorted(k for k in req.allow_unsafe if k not in {key for (_, _, key) in unsafe} | derived)
    if unknown:
        offered = sorted({key for (_, _, key) in unsafe})
        raise UsageError(
            f"--allow-unsafe {unknown[0]}: this profile has no unsafe value for it",
            suggestion=f"knobs with an unsafe alternative here: {', '.join(offered)}",
        )
    merged = merge(chain)
    if not bundle.legacy:  # legacy mode lists its differences from the seed instead
        bundle.omitted.extend(dead.unset_omissions(chain))
    forced: dict[tuple[str, str, str], tuple[Any, str]] = {}
    for (file, section, key), (raw, layer) in unsafe.items():
        if key in req.allow_unsafe:
            forced[(file, section, key)] = (raw, layer)
            for other, v in (raw.get("also") or {}).items():
                merged[(file, section, str(other))] = (
                    {"value": v, "why": f"goes with the unsafe {key}"},
                    layer,
                )
    # an opted-in unsafe value replaces the safe one of the same key (e.g. bind_address)
    for (file, section, key), (raw, layer) in [
        *((k, v) for k, v in merged.items() if k not in forced),
        *forced.items(),
    ]:
        if file == "cbt.yaml":
            continue
        opt_in = (file, section, key) in forced
        value, rule, evidence, inputs, why = _resolve_value(
            raw, bundle.shape, f"{layer}: {file} [{section}] {key}"
        )
        if value is None or value == "":
            bundle.omitted.append(
                {"file": file, "section": section, "key": key, "why": why or "no value here"}
            )
            continue
        knob = _knob(catalog, key, formats.domain_of(file))
        risk = (
            knob.value_safety(value)[0]
            if knob and rule.startswith("derive:") and key in req.allow_unsafe
            else "safe"
        )
        if risk != "safe" and not opt_in:  # a derived value made unsafe by the command line (--replication 2)
            opt_in, raw = True, {**raw, "safety": risk}
        rationale = knob.rationale if knob else ""
        safety = str(raw.get("safety", "safe")) if opt_in else (knob.safety if knob else "safe")
        release = formats.release_of(file, req.ceph_release, req.mysql_flavour)
        bundle.settings.append(
            Setting(
                file=file,
                section=section,
                key=key,
                value=value,
                rule=rule or f"profile:{layer}",
                rationale=rationale,
                why=why,
                evidence=evidence or (knob.evidence if knob else ()),
                safety=safety if opt_in else "safe",
                unsafe_opt_in=opt_in,
                inputs=inputs,
                release_facts=_release_facts(knob, release),
                notes=(f"unsafe ({safety}): {why}",) if opt_in else (),
            )
        )
    return merged


def _benchmarks(bundle: Bundle, chain: list[Profile], merged: Any) -> None:
    """The CBT documents (bundle.plans): the legacy profile's literal plan, or the workload's plan."""
    legacy_doc = last(chain, "cbt")
    if legacy_doc:
        bundle.plans["cbt.yaml"] = legacy_doc
        bench = legacy_doc.get("benchmarks", {}).get("librbdfio", {})
        lists = {k: v for k, v in bench.items() if isinstance(v, list)}
        bundle.cases = [benchmark.case_name(c) for c in benchmark.expand(lists)]
        return
    plan = last(chain, "benchmark")
    if not plan:
        return
    extra = {
        key: raw
        for (file, section, key), (raw, _) in merged.items()
        if file == "cbt.yaml" and section == "cluster"
    }
    docs, cases, derived = benchmark.documents(
        plan, bundle.shape, extra, bundle.request.bench_scale, bundle.request.cephfs_client
    )
    app = plan.get("application")
    if isinstance(app, dict):
        bundle.oltp = oltp.plan(
            app, str(plan["pool"]), bundle.shape, bundle.settings, bundle.request.bench_scale
        )
        derived["bench/sysbench-oltp.sh table_size"] = bundle.oltp.sizing
    bundle.cases = list(cases)
    bundle.case_notes = cases
    bundle.derived.update(derived)
    bundle.plans.update(docs)

"""CBT test plans from a workload's benchmark block: every intended case runs, and measures what it claims.

What current CBT (ceph/cbt at data/cbt/schema.yaml's source_commit) does with a plan, and how the plans answer it:
- cbt.py initialises only the first benchmark object of each class and, without `is_teuthology`, runs only
  objects whose archive folder exists: only the first permutation and iteration 0 of librbdfio, and nothing at
  all of fio or hsbench (their initialize() never makes that folder). Every plan sets `is_teuthology: true` and
  three iterations; then every permutation of the top-level lists runs, each into its own archive folder with
  its own benchmark_config.yaml (benchmarkfactory.py all_configs), after one pool creation and prefill.
- librbdfio's `workloads:` block is not used: run_workloads names each run's folder by mode and op_size but the
  archive gets only the last workload's run folder (run() syncs self.run_dir once, after the loop), and its
  benchmark_config.yaml shows the benchmark-level mode, not the one measured.
- fio stops once it has covered its size unless `time_based` is set: every fio plan sets it, with a ramp.
- Every data set is at least twice every cache it could sit in (explain.md shows the arithmetic).
- A latency-bound workload gets a single-queue probe: one client, one volume, one job, iodepth 1.
- `--bench-scale smoke` (data/cbt/schema.yaml `smoke`) changes only sizes and durations, for a test cluster.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from flashtune.errors import DataError
from flashtune.lint import ruledata
from flashtune.model import Derived

GiB = 1 << 30
# Ceph's rgw_frontends default (beast port=7480): the port each gateway answers on when the profile sets none
_RGW_PORT = 7480

_SHORT: dict[str, Callable[[Any], str]] = {
    "op_size": lambda v: f"{int(v) // 1024}k",
    "rwmixread": lambda v: f"read{v}",
    "size": lambda v: f"obj{v}",
    "clients": lambda v: f"clients{v}",
    "numjobs": lambda v: f"jobs{v}",
    "iodepth": lambda v: f"qd{v}",
    "mode": str,
}


def case_name(case: dict[str, Any]) -> str:
    return "-".join(_SHORT[k](v) if k in _SHORT else f"{k}{v}" for k, v in case.items())


def expand(axes: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """The Cartesian product of the axes, in the order written."""
    keys = list(axes)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(axes[k] for k in keys))]


def _cache_gib(ctx: dict[str, Any]) -> float:
    return float(ctx["osds"] * ctx["osd_memory_target"]) / GiB


def vol_size_mb(ctx: dict[str, Any], volumes_per_client: int, clients: int | None = None) -> Derived:
    """RBD volume size so the data set is at least twice every cache it could sit in: the OSDs' BlueStore caches
    (osd_memory_target x OSDs, all of them: the volumes' objects spread over every OSD) and the client's RAM
    (librbd with O_DIRECT keeps nothing in the page cache, but the rule costs only prefill time). At least 10 GiB,
    whole GiB."""
    n = ctx["clients"] if clients is None else clients
    cache = _cache_gib(ctx)
    ram = float(ctx["client_ram_gib"])
    per_osd = 2 * cache / (n * volumes_per_client)
    per_ram = 2 * ram / volumes_per_client
    gib = max(10, math.ceil(per_osd), math.ceil(per_ram))
    return Derived(
        gib * 1024,
        f"{gib} GiB per volume: max(2 x OSD cache ({ctx['osds']} OSDs x "
        f"{ctx['osd_memory_target'] / GiB:.2f} GiB = {cache:.1f} GiB) / ({n} client(s) x {volumes_per_client} "
        f"volume(s)) = {per_osd:.1f} GiB, 2 x client RAM ({ram:g} GiB) / {volumes_per_client} volume(s) = "
        f"{per_ram:.1f} GiB, 10 GiB); data set {n * volumes_per_client * gib} GiB >= 2 x {cache:.1f} GiB",
        {"osds": ctx["osds"], "clients": n},
    )


def _hosts(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i:02d}" for i in range(1, n + 1)]


def cluster_section(ctx: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """The `cluster:` block: placeholder host names (replace with yours) and the existing cluster; the
    profiles' `cbt.yaml: cluster:` values (user, iterations) come in through `extra`. is_teuthology: the run
    loop's switch that runs every iteration and every module (cbt.py main; see the module docstring)."""
    cluster: dict[str, Any] = {
        "head": "client01",
        "clients": _hosts("client", ctx["clients"]),
        "osds": _hosts("osd", ctx["nodes"]),
        "mons": {"mon01": {"a": "mon01:6789"}},
        "osds_per_node": ctx["osds_per_node"],
        "use_existing": True,
        "clusterid": "ceph",
        "conf_file": "/etc/ceph/ceph.conf",
        "tmp_dir": "/tmp/cbt",
        "is_teuthology": True,
    }
    cluster.update(extra)
    return cluster


def pool_profiles(ctx: dict[str, Any]) -> dict[str, Any]:
    """Pool profiles that match the compiled ceph.conf (size, PG count, EC k+m)."""
    pg = ctx["pg_num"]
    profiles: dict[str, Any] = {"rbd": {"pg_size": pg, "pgp_size": pg, "replication": ctx["pool_size"]}}
    out: dict[str, Any] = {"pool_profiles": profiles}
    ec = ctx["ec"]
    if ec is not None:
        k, m = ec.value.k, ec.value.m
        name = f"ec{k}{m}"
        out["erasure_profiles"] = {name: {"erasure_k": k, "erasure_m": m}}
        profiles["rbd-ec-data"] = {
            "pg_size": ctx["pg_num_ec"],
            "pgp_size": ctx["pg_num_ec"],
            "replication": "erasure",
            "erasure_profile": name,
            "ec_overwrites": True,
        }
    return out


def fs_pool_profiles(ctx: dict[str, Any]) -> dict[str, Any]:
    """The pool CBT's cephfs endpoint makes its file system on (client_endpoints/ceph_client_endpoints.py
    create_fs): sized like the compiled pools, because CBT's mkpool gives a profile it is not told 1024 PGs,
    more than mon_max_pg_per_osd allows on a small cluster. Replicated: CBT's `fs new` passes no --force, which
    an erasure-coded default data pool needs; it takes the data pool's PG count (k+m shards per PG budgeted,
    so 3 copies fit)."""
    pg = ctx["pg_num"] if ctx["ec"] is None else ctx["pg_num_ec"]
    return {"pool_profiles": {"cephfs": {"pg_size": pg, "pgp_size": pg, "replication": ctx["pool_size"]}}}


def _question(module: str, case: dict[str, Any], proves: dict[str, Any], key: str) -> str:
    """The profile's `proves:` sentence for this kind of case (by fio mode, `probe`, or `default`)."""
    return str(proves.get(key) or proves.get("default") or "")


def documents(
    plan: dict[str, Any],
    ctx: dict[str, Any],
    cluster_extra: dict[str, Any],
    scale: str = "full",
    cephfs_client: str = "kernel",
) -> tuple[dict[str, dict[str, Any]], dict[str, str], dict[str, Derived]]:
    """file name -> CBT document, the cases (name -> what it answers and which setting it proves), and the
    derived sizes with their arithmetic (for explain.md and the manifest). cephfs_client: which CephFS client
    a fio (scratch) plan mounts with (data/cbt/schema.yaml cephfs_clients)."""
    module = str(plan["module"])
    settings = dict(plan.get("settings") or {})
    cases = plan.get("cases") or {}
    proves: dict[str, Any] = dict(plan.get("proves") or {})
    axes: dict[str, list[Any]] = {k: list(v) for k, v in (cases.get("axes") or {}).items()}
    sweep: dict[str, list[Any]] = {k: list(v) for k, v in (cases.get("sweep") or {}).items()}
    cluster = cluster_section(ctx, cluster_extra)
    derived: dict[str, Derived] = {}
    names: dict[str, str] = {}
    if module == "librbdfio":
        docs = _rbd_plans(
            ctx, cluster, cluster_extra, settings, {**axes, **sweep}, plan, proves, derived, names
        )
    else:
        docs = _endpoint_plans(
            module, ctx, cluster, settings, {**axes, **sweep}, proves, cephfs_client, derived, names
        )
    return _scaled(docs, scale), names, derived


def whole(value: Any, default: int) -> int | None:
    """A count from a CBT setting: the default when absent, None when it is a list or not a positive integer."""
    if value is None:
        return default
    try:
        n = int(value)
    except (TypeError, ValueError):
        return None
    return n if n >= 1 and not isinstance(value, bool) else None


def rbd_in_flight(w: Mapping[str, Any], clients: int | None) -> int | None:
    """I/Os in flight of one librbdfio run (CBT librbdfio.py): per client, iodepth on each of its volumes (or
    total_iodepth split over them) times the fio processes per volume and their numjobs. The one count behind
    explain.md's case lines and the envelope's latency at the ceiling (envelope/bundle.py)."""
    counts = [
        whole(w.get("procs_per_volume"), 1),
        whole(w.get("numjobs"), 1),
        whole(w["total_iodepth"], 16) if "total_iodepth" in w else whole(w.get("iodepth"), 16),
    ]
    if "total_iodepth" not in w:
        counts.append(whole(w.get("volumes_per_client"), 1))
    if clients is None or None in counts:
        return None
    total = clients
    for n in counts:
        total *= n or 1
    return total


def _rbd_plans(
    ctx: dict[str, Any],
    cluster: dict[str, Any],
    cluster_extra: dict[str, Any],
    settings: dict[str, Any],
    all_axes: dict[str, list[Any]],
    plan: dict[str, Any],
    proves: dict[str, Any],
    derived: dict[str, Derived],
    names: dict[str, str],
) -> dict[str, dict[str, Any]]:
    """librbdfio: one plan of every case (CBT expands its list axes) and the optional queue-depth-1 probe."""
    module = "librbdfio"
    docs: dict[str, dict[str, Any]] = {}
    vols = int(settings.get("volumes_per_client", 1))
    vol = vol_size_mb(ctx, vols)
    derived["benchmarks.librbdfio.vol_size"] = vol
    cluster.update(pool_profiles(ctx))
    bench = {**settings, "vol_size": vol.value, "pool_profile": "rbd"}
    if ctx["ec"] is not None:
        bench["data_pool_profile"] = "rbd-ec-data"
    lists = sweep_lists(_modes(all_axes, bench), bench)
    for case in expand(lists):
        mode = str(case.get("mode", bench.get("mode", "write")))
        share = case.get("rwmixread", bench.get("rwmixread"))
        what = mode if not mode.endswith("rw") else f"{mode} at {share} % reads"
        depth = int(case.get("iodepth", bench.get("iodepth", 16)))
        jobs = int(case.get("numjobs", bench.get("numjobs", 1)))
        flight = rbd_in_flight({**bench, **case}, int(ctx["clients"]))
        names[case_name(case)] = (
            f"{what}, {int(case.get('op_size', bench.get('op_size', 4194304))) // 1024} KiB, on "
            f"{ctx['clients']} client(s) x {vols} volume(s) x {jobs} job(s) at iodepth {depth}"
            + (f" ({flight} I/Os in flight)" if flight else "")
            + ": where this load sits on the "
            f"IOPS-latency curve. {_question(module, case, proves, _kind(mode, share))}"
        )
    docs["cbt.yaml"] = {"cluster": cluster, "benchmarks": {module: bench}}
    probe = plan.get("latency_probe")
    if probe:
        docs["cbt/latency-qd1.yaml"] = _probe(ctx, cluster_extra, settings, dict(probe), derived)
        pb = docs["cbt/latency-qd1.yaml"]["benchmarks"]["librbdfio"]
        for case in expand({k: v for k, v in pb.items() if isinstance(v, list)}):
            names[case_name(case)] = (
                "one client, one volume, one job, iodepth 1 (one I/O in flight in the whole cluster): the "
                "round-trip latency a single synchronous writer waits for. "
                f"{_question(module, case, proves, 'probe')}"
            )
    return docs


def _endpoint_plans(
    module: str,
    ctx: dict[str, Any],
    cluster: dict[str, Any],
    settings: dict[str, Any],
    all_axes: dict[str, list[Any]],
    proves: dict[str, Any],
    cephfs_client: str,
    derived: dict[str, Derived],
    names: dict[str, str],
) -> dict[str, dict[str, Any]]:
    """fio on CephFS and hsbench on S3 (CBT client endpoints): one plan file per case, each with its own client
    count, sizes and endpoints."""
    docs: dict[str, dict[str, Any]] = {}
    if "clients" in all_axes:
        # "half" and "all" as host counts, each count once: on a cluster with one or two clients they
        # coincide, and the same plan twice would measure nothing new
        all_axes["clients"] = list(
            dict.fromkeys(_client_count(v, ctx["clients"]) for v in all_axes["clients"])
        )
    endpoints = _endpoints(module, ctx, settings, cephfs_client)
    if module == "fio":
        client = _cephfs_client(cephfs_client)
        # a cluster key only the other client's mount reads (mount_cmd: the kernel endpoint's) is left out
        others = {
            k for name, c in _cephfs_clients().items() if name != cephfs_client for k in c["cluster_keys"]
        }
        cluster = {k: v for k, v in cluster.items() if k not in others or k in client["cluster_keys"]}
        derived["client_endpoints.cephfs.driver"] = Derived(
            client["driver"],
            f"--cephfs-client {cephfs_client}: {client['note']}. CBT's endpoint makes its own file system "
            f"`{client['fs_name']}` in a pool of that name (one active MDS: CBT sets no max_mds), so a standby MDS "
            "must be free to take it; it never unmounts or removes it, and the next plan's run fails deleting "
            "that pool while the file system uses it. "
            + (f"{client['before_run']}. " if "before_run" in client else "")
            + f"Between two plans, on the clients: unmount <mnt_dir>/{client['fs_name']}/*"
            + (
                f", then {client['after_unmount'].format(fs_name=client['fs_name'])}"
                if "after_unmount" in client
                else ""
            )
            + f"; on the head: `ceph fs fail {client['fs_name']}`, "
            f"`ceph fs rm {client['fs_name']} --yes-i-really-mean-it`",
            {"cephfs_client": cephfs_client},
        )
    if module == "hsbench":
        where, facts = _gateways_reason(ctx)
        n_urls = len(endpoints["s3"]["urls"])
        derived["client_endpoints.s3.urls"] = Derived(
            n_urls,
            f"one URL per gateway: {where}, and endpoints_per_client = {n_urls} gives every client one "
            "hsbench per gateway (client_endpoints/rgws3_client_endpoints.py takes urls[endpoint % len(urls)])",
            facts,
        )
    for i, case in enumerate(expand(all_axes), 1):
        c = dict(cluster)
        bench = dict(settings)
        eps = {k: dict(v) for k, v in endpoints.items()}
        n = ctx["clients"]
        for k, v in case.items():
            if k == "clients":
                n = int(v)
                c["clients"] = _hosts("client", n)
                case = {**case, "clients": n}
            else:
                bench[k] = v
        name = f"cbt/{i:02d}-{case_name(case)}.yaml"
        if module == "fio":
            c.update(fs_pool_profiles(ctx))
            jobs = int(bench.get("numjobs", 1))
            size = _fio_size(ctx, n, jobs, derived, case_name(case))
            bench["size"] = size
            eps["cephfs"]["endpoint_size"] = size * jobs
            # reads need the files written first (CBT's prefill: fio --rw=write over each job's file)
            bench["prefill"] = "read" in str(bench.get("mode", "write"))
            what = (
                f"{bench.get('mode')} {bench.get('bs')} on {n} client(s) x {jobs} job(s), buffered, through "
                f"{_CLIENT_NAMES[cephfs_client]}: the streaming bandwidth of the file system. "
                f"{_question(module, case, proves, str(bench.get('mode')))}"
            )
        else:
            objects = _hsbench_objects(ctx, n, len(eps["s3"]["urls"]), bench, derived, case_name(case))
            bench["objects"] = objects
            what = (
                f"PUT then GET of {bench.get('size')} objects from {n} client(s) through all "
                f"{len(eps['s3']['urls'])} gateways: object throughput and latency at that size. "
                f"{_question(module, case, proves, 'default')}"
            )
        docs[name] = {"cluster": c, "client_endpoints": eps, "benchmarks": {module: bench}}
        names[case_name(case)] = what
    return docs


def _client_count(value: Any, clients: int) -> int:
    """A clients-axis value as a host count: a number, or "half"/"all" of the compiled clients."""
    return int({"half": max(1, clients // 2), "all": clients}.get(str(value), value))


def _probe(
    ctx: dict[str, Any],
    cluster_extra: dict[str, Any],
    settings: dict[str, Any],
    probe: dict[str, Any],
    derived: dict[str, Derived],
) -> dict[str, Any]:
    """The single-queue latency probe: its own plan, because cluster.clients is one host (CBT starts fio on
    every client) and the probe's one volume must still be twice the caches (it is the whole data set)."""
    cluster = cluster_section(ctx, cluster_extra)
    cluster["clients"] = _hosts("client", 1)
    cluster.update(pool_profiles(ctx))
    vol = vol_size_mb(ctx, 1, clients=1)
    derived["cbt/latency-qd1.yaml librbdfio.vol_size"] = vol
    bench = {**settings, "volumes_per_client": 1, "vol_size": vol.value, "pool_profile": "rbd"}
    if ctx["ec"] is not None:
        bench["data_pool_profile"] = "rbd-ec-data"
    bench.pop("rwmixread", None)
    bench.update({"numjobs": 1, "iodepth": 1})
    sweep_lists({"op_size": list(probe["op_size"]), "mode": list(probe["mode"])}, bench)
    return {"cluster": cluster, "benchmarks": {"librbdfio": bench}}


def _modes(axes: dict[str, list[Any]], bench: dict[str, Any]) -> dict[str, list[Any]]:
    """A read-share axis on a mixed fio mode as a mode axis: 0 and 100 % reads run as randwrite and randread
    (named and labelled as what they are), the one mixed share as the benchmark's rwmixread, which CBT passes
    only with a mixed mode (librbdfio.py mkfiocmd)."""
    shares = axes.get("rwmixread")
    mode = str(bench.get("mode", "write"))
    if not shares or not mode.endswith("rw"):
        return axes
    prefix = mode[: -len("rw")]
    modes = [f"{prefix}write" if s == 0 else f"{prefix}read" if s == 100 else mode for s in shares]
    mixed = sorted({int(s) for s in shares if s not in (0, 100)})
    if len(mixed) > 1:
        raise DataError(
            f"librbdfio plan mixes reads and writes at {mixed} %: CBT reads one rwmixread per permutation "
            "and names no run by it",
            suggestion="keep one mixed ratio per plan (0 and 100 become randwrite and randread)",
        )
    bench.pop("rwmixread", None)
    if mixed:
        bench["rwmixread"] = mixed[0]
    out: dict[str, list[Any]] = {}
    for k, v in axes.items():
        if k == "rwmixread":
            out["mode"] = modes
        else:
            out[k] = v
    return out


def sweep_lists(axes: dict[str, list[Any]], bench: dict[str, Any]) -> dict[str, list[Any]]:
    """Put a plan's axes into the benchmark as CBT sweeps them: every top-level list is an axis
    (benchmarkfactory.py all_configs: itertools.product in the mapping's order, each permutation its own
    benchmark object and archive folder, all run with is_teuthology); a one-value axis is a plain value.
    Returns the list axes in CBT's order."""
    lists: dict[str, list[Any]] = {}
    for k in axes:
        bench.pop(k, None)
    for k, v in axes.items():
        if len(v) == 1:
            bench[k] = v[0]
        else:
            bench[k] = list(v)
    for k, v in bench.items():
        if isinstance(v, list):
            lists[k] = v
    return lists


def _kind(mode: str, share: Any) -> str:
    """Which `proves:` sentence a case takes: its fio mode, a randrw at 0/100 % as the write/read it is."""
    if mode.endswith("rw") and share in (0, 100):
        return "randwrite" if share == 0 else "randread"
    return mode


def _fio_size(ctx: dict[str, Any], clients: int, jobs: int, derived: dict[str, Derived], case: str) -> int:
    """MiB per fio job: the case's files are at least twice the client's page cache (its RAM) and, all clients
    together, twice the OSDs' caches. At least 4 GiB."""
    cache = _cache_gib(ctx)
    ram = float(ctx["client_ram_gib"])
    per_ram = 2 * ram * 1024 / jobs
    per_osd = 2 * cache * 1024 / (clients * jobs)
    size = max(4096, math.ceil(per_ram), math.ceil(per_osd))
    derived[f"{case} fio.size"] = Derived(
        size,
        f"{size} MiB per job: max(2 x client RAM ({ram:g} GiB) / {jobs} job(s) = {per_ram:.0f} MiB, 2 x OSD cache "
        f"({ctx['osds']} OSDs x {ctx['osd_memory_target'] / GiB:.2f} GiB = {cache:.1f} GiB) / ({clients} "
        f"client(s) x {jobs} job(s)) = {per_osd:.0f} MiB, 4096 MiB)",
        {"clients": clients, "jobs": jobs},
    )
    return size


_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?$", re.IGNORECASE)


def _object_bytes(size: Any) -> int:
    m = _SIZE.match(str(size).strip())
    if not m:
        raise DataError(f"hsbench object size {size!r} is not a size", suggestion="write e.g. 4K, 64K, 1M")
    return int(float(m[1]) * (1024 ** "BKMGT".index(m[2].upper() or "B")))


def _hsbench_objects(
    ctx: dict[str, Any],
    clients: int,
    gateways: int,
    bench: dict[str, Any],
    derived: dict[str, Derived],
    case: str,
) -> int:
    """Objects per hsbench process (-n): with per_client_object_prefix every client x endpoint writes its own
    objects, so the data set is clients x gateways x objects x size; at least twice the OSDs' caches. RGW's
    own cache (rgw_cache_lru_size) holds metadata entries, not object data, so it adds nothing to hold here."""
    cache = _cache_gib(ctx) * GiB
    size = _object_bytes(bench.get("size", "4M"))
    writers = clients * gateways
    n = max(int(bench.get("objects", 0)), math.ceil(2 * cache / (writers * size)))
    derived[f"{case} hsbench.objects"] = Derived(
        n,
        f"{n} objects per hsbench: 2 x OSD cache ({ctx['osds']} OSDs x {ctx['osd_memory_target'] / GiB:.2f} GiB "
        f"= {cache / GiB:.1f} GiB) / ({clients} client(s) x {gateways} gateway(s) x {size} B); data set "
        f"{writers * n * size / GiB:.1f} GiB. The RGW cache holds metadata entries, not object data. hsbench's "
        "prefill and each phase stop at `duration`: at a slow PUT rate GET reads only what was written",
        {"clients": clients, "gateways": gateways},
    )
    return n


_CLIENT_NAMES = {"kernel": "the kernel client", "fuse": "ceph-fuse"}


def _cephfs_clients() -> dict[str, dict[str, Any]]:
    return dict(ruledata.cbt_schema()["cephfs_clients"])


def gateways(ctx: dict[str, Any], port: int = _RGW_PORT) -> list[tuple[str, int]]:
    """Every gateway of the compiled cluster as (placeholder host, port): the hardware file's dedicated gateway
    hosts (rgw01..), else each OSD node's radosgw daemons, a second one on a node at the next port (cephadm
    runs the daemons of one host on consecutive ports: https://docs.ceph.com/en/reef/cephadm/services/rgw/,
    "Designated gateways", count-per-host:2 with --port=8000 gives 8000 and 8001)."""
    dedicated = int(ctx.get("gateway_hosts") or 0)
    if dedicated:
        return [(h, port) for h in _hosts("rgw", dedicated)]
    per_node = max(1, int(ctx.get("rgw_per_node") or 1))
    return [(h, port + i) for h in _hosts("osd", ctx["nodes"]) for i in range(per_node)]


def _gateways_reason(ctx: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    dedicated = int(ctx.get("gateway_hosts") or 0)
    if dedicated:
        return f"the hardware file's {dedicated} dedicated gateway hosts (rgw01..)", {
            "gateway_hosts": dedicated
        }
    per_node = max(1, int(ctx.get("rgw_per_node") or 1))
    where = (
        f"{per_node} radosgw daemons on each of the {ctx['nodes']} OSD nodes (ports {_RGW_PORT}..)"
        if per_node > 1
        else f"a radosgw on each of the {ctx['nodes']} OSD nodes"
    )
    facts: dict[str, Any] = {"nodes": ctx["nodes"]}
    if per_node > 1:
        facts["rgw_per_node"] = per_node
    return f"the memory budget places {where}", facts


def _cephfs_client(name: str) -> dict[str, Any]:
    clients = _cephfs_clients()
    if name not in clients:
        raise DataError(f"unknown CephFS client {name!r}", suggestion=f"use one of {', '.join(clients)}")
    return dict(clients[name])


def _endpoints(
    module: str, ctx: dict[str, Any], settings: dict[str, Any], cephfs_client: str = "kernel"
) -> dict[str, Any]:
    if module == "hsbench":
        # CBT knows no RGW URL on an existing cluster: one per gateway (placeholder hosts, Ceph's default port);
        # the S3 user CBT creates itself with radosgw-admin (rgws3_client_endpoints.py create)
        port = int(ctx.get("rgw_port", _RGW_PORT))
        urls = [f"http://{h}:{p}" for h, p in gateways(ctx, port)]
        return {"s3": {"driver": "s3", "endpoints_per_client": len(urls), "user": "cbt", "urls": urls}}
    # by default the kernel client, which HPC sites mount scratch with; ceph-fuse on request (a host without
    # the ceph kernel module): it measures a different, slower client (data/cbt/schema.yaml cephfs_clients)
    driver = _cephfs_client(cephfs_client)["driver"]
    return {"cephfs": {"driver": driver, "endpoints_per_client": 1, "pool_profile": "cephfs"}}


def _scaled(docs: dict[str, dict[str, Any]], scale: str) -> dict[str, dict[str, Any]]:
    """`--bench-scale smoke`: data/cbt/schema.yaml `smoke` replaces durations and sizes (and nothing else) so a
    plan runs end to end on a test cluster in a minute or two."""
    if scale == "full":
        return docs
    table = ruledata.cbt_schema().get("scales", {}).get(scale)
    if table is None:
        raise DataError(f"unknown bench scale {scale!r}", suggestion="use full or smoke")
    out: dict[str, dict[str, Any]] = {}
    for name, doc in docs.items():
        doc = {k: (dict(v) if isinstance(v, dict) else v) for k, v in doc.items()}
        benches = {m: dict(b) for m, b in doc["benchmarks"].items()}
        for module, bench in benches.items():
            bench.update(table.get(module) or {})
            if module == "fio" and isinstance(doc.get("client_endpoints"), dict):
                # CBT refuses a job set larger than its endpoint (fio.py create_endpoints)
                need = (
                    int(bench["size"])
                    * int(bench.get("numjobs", 1))
                    * int(bench.get("procs_per_endpoint", 1))
                )
                doc["client_endpoints"] = {
                    n: {**e, "endpoint_size": need} if "endpoint_size" in e else e
                    for n, e in doc["client_endpoints"].items()
                }
        doc["benchmarks"] = benches
        out[name] = doc
    return out

"""CBT test plans from a workload's benchmark block: every intended case runs.

Current CBT runs only the first permutation of a benchmark (ceph/cbt cbt.py: the run loop skips a benchmark
whose out_dir does not exist yet, and only the first object of each class is initialised; since commit
5823498), so list-valued sweeps never reach the top level of a benchmark here:
- librbdfio: one `workloads:` entry per case (iodepth/numjobs lists stay inside it, which CBT sweeps);
- other modules (hsbench, fio): one YAML file per case, scalars only.

Inside `workloads:` CBT takes mode, op_size, numjobs and the iodepth list from each entry but rwmixread only
from the benchmark level, and names each run's folder by mode and op_size alone (ceph/cbt
benchmark/librbdfio.py run_workloads, mkfiocmd). So a pure-read or pure-write case gets its own fio mode
(randread, randwrite), and the one mixed ratio of a plan goes to the benchmark level.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

from flashtune.errors import DataError
from flashtune.model import Derived

_SHORT: dict[str, Callable[[Any], str]] = {
    "op_size": lambda v: f"{int(v) // 1024}k",
    "rwmixread": lambda v: f"read{v}",
    "size": lambda v: f"obj{v}",
    "clients": lambda v: f"clients{v}",
    "numjobs": lambda v: f"jobs{v}",
    "mode": str,
}


def case_name(case: dict[str, Any]) -> str:
    return "-".join(_SHORT[k](v) if k in _SHORT else f"{k}{v}" for k, v in case.items())


def expand(axes: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """The Cartesian product of the axes, in the order written."""
    keys = list(axes)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(axes[k] for k in keys))]


def vol_size_mb(ctx: dict[str, Any], volumes_per_client: int) -> Derived:
    """RBD volume size so the whole working set is twice the cluster's BlueStore cache (osd_memory_target
    x OSDs): reads then hit the devices, not RAM. At least 10 GiB, whole GiB."""
    cache = ctx["osds"] * ctx["osd_memory_target"]
    per = 2 * cache / (ctx["clients"] * volumes_per_client)
    gib = max(10, math.ceil(per / (1 << 30)))
    return Derived(
        gib * 1024,
        f"2 x cluster cache ({ctx['osds']} OSDs x {ctx['osd_memory_target'] / (1 << 30):.2f} GiB) "
        f"/ ({ctx['clients']} clients x {volumes_per_client} volumes) = {gib} GiB per volume",
        {"osds": ctx["osds"], "clients": ctx["clients"]},
    )


def _fio_mode(case: dict[str, Any], mode: str) -> dict[str, Any]:
    """A librbdfio workload entry: 0 or 100 % reads run as a pure write or read mode (CBT ignores rwmixread
    inside workloads and would give every ratio one output folder); rwmixread stays to name the intent."""
    share = case.get("rwmixread")
    if share not in (0, 100) or not mode.endswith("rw"):
        return {**case, "mode": mode}
    prefix = "rand" if mode.startswith("rand") else ""
    return {**case, "mode": f"{prefix}{'read' if share == 100 else 'write'}"}


def _hosts(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i:02d}" for i in range(1, n + 1)]


def cluster_section(ctx: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """The `cluster:` block: placeholder host names (replace with yours) and the existing cluster; the
    profiles' `cbt.yaml: cluster:` values (user, iterations) come in through `extra`."""
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


def documents(
    plan: dict[str, Any], ctx: dict[str, Any], cluster_extra: dict[str, Any]
) -> tuple[dict[str, dict[str, Any]], list[str], dict[str, Derived]]:
    """file name -> CBT document, the case names, and the derived values used (for the manifest)."""
    module = str(plan["module"])
    settings = dict(plan.get("settings") or {})
    cases = plan.get("cases") or {}
    axes: dict[str, list[Any]] = {k: list(v) for k, v in (cases.get("axes") or {}).items()}
    sweep: dict[str, list[Any]] = {k: list(v) for k, v in (cases.get("sweep") or {}).items()}
    cluster = cluster_section(ctx, cluster_extra)
    derived: dict[str, Derived] = {}
    if module == "librbdfio":
        vol = vol_size_mb(ctx, int(settings.get("volumes_per_client", 1)))
        derived["benchmarks.librbdfio.vol_size"] = vol
        cluster.update(pool_profiles(ctx))
        bench = {**settings, "vol_size": vol.value, "pool_profile": "rbd"}
        if ctx["ec"] is not None:
            bench["data_pool_profile"] = "rbd-ec-data"
        workloads = {}
        for case in expand(axes):
            workloads[case_name(case)] = {**_fio_mode(case, str(settings.get("mode", "randrw"))), **sweep}
        mixed = sorted(
            {int(w["rwmixread"]) for w in workloads.values() if "rwmixread" in w and w["mode"].endswith("rw")}
        )
        if len(mixed) > 1:
            raise DataError(
                f"librbdfio plan mixes reads and writes at {mixed} %: CBT reads rwmixread once per benchmark",
                suggestion="keep one mixed ratio per plan (0 and 100 become randwrite and randread)",
            )
        if mixed:
            bench["rwmixread"] = mixed[0]
        bench["workloads"] = workloads
        return {"cbt.yaml": {"cluster": cluster, "benchmarks": {module: bench}}}, list(workloads), derived
    docs: dict[str, dict[str, Any]] = {}
    names: list[str] = []
    all_axes = {**axes, **sweep}
    for i, case in enumerate(expand(all_axes), 1):
        c = dict(cluster)
        bench = dict(settings)
        endpoints = _endpoints(module, ctx)
        for k, v in case.items():
            if k == "clients":
                n = {"half": max(1, ctx["clients"] // 2), "all": ctx["clients"]}.get(str(v), v)
                c["clients"] = _hosts("client", int(n))
                case = {**case, "clients": int(n)}
            else:
                bench[k] = v
        if module == "fio":
            c.update(fs_pool_profiles(ctx))
            # per-job file size: twice the client's RAM across its jobs, so the page cache cannot hold it
            jobs = int(bench.get("numjobs", 1))
            size = max(4096, math.ceil(2 * ctx["client_ram_gib"] * 1024 / jobs))
            bench["size"] = size
            endpoints["cephfs"]["endpoint_size"] = size * jobs
        name = f"cbt/{i:02d}-{case_name(case)}.yaml"
        docs[name] = {"cluster": c, "client_endpoints": endpoints, "benchmarks": {module: bench}}
        names.append(case_name(case))
    return docs, names, derived


def _endpoints(module: str, ctx: dict[str, Any]) -> dict[str, Any]:
    if module == "hsbench":
        # CBT knows no RGW URL or S3 user on an existing cluster: both must be given (placeholders here)
        return {
            "s3": {
                "driver": "s3",
                "endpoints_per_client": 1,
                "access_key": "REPLACE-WITH-ACCESS-KEY",
                "secret_key": "REPLACE-WITH-SECRET-KEY",
                "user": "cbt",
                "urls": ["http://rgw01:8080"],
            }
        }
    # the kernel client, which HPC sites mount scratch with (ceph-fuse would measure a different client); it
    # reads no ceph.conf [client] settings, which is why the scratch profile sets none
    return {"cephfs": {"driver": "cephfs-kernel", "endpoints_per_client": 1, "pool_profile": "cephfs"}}

"""Does a CBT plan measure what it claims? Rules on a whole benchmark, read against CBT's source
(data/cbt/schema.yaml `run_loop`, cbt.py, benchmark/librbdfio.py, benchmark/fio.py):

- FT706 a fio run without time_based stops once it has covered its size, whatever `time` says;
- FT707 a single iteration gives one number and no spread;
- FT708 CBT's run loop skips the benchmark (fio, hsbench, ...) or every iteration after the first;
- FT709 the data set fits in the caches it could sit in (the OSDs' memory, the client's page cache);
- FT710 librbdfio `workloads:` run, but only the last workload's results reach the archive;
- FT711 an S3 benchmark drives fewer gateways than the cluster runs (lint-config --gateways N): CBT's s3
  endpoint gives each client urls[0 .. endpoints_per_client - 1], modulo the list
  (client_endpoints/rgws3_client_endpoints.py mount).
"""

from __future__ import annotations

from typing import Any, Protocol

from flashtune.lint.common import Context
from flashtune.parse.confdoc import Entry

MiB = 1 << 20
GiB = 1 << 30
# Ceph's osd_memory_target default (4 GiB in Pacific..Tentacle): the cache an OSD fills when no option says
CEPH_DEFAULT_OSD_MEMORY_TARGET = 4 * GiB


class Linter(Protocol):
    ctx: Context
    schema: dict[str, Any]

    def at(self, section: str, key: str) -> Entry | tuple[int, int]: ...


def _int(value: Any) -> int | None:
    """The smallest value of a scalar or a sweep list, when numeric."""
    values = value if isinstance(value, list) else [value]
    nums = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return int(min(nums)) if nums else None


def _count(nodes: Any) -> int:
    if isinstance(nodes, (list, dict)):
        return len(nodes)
    return len(nodes.split(",")) if isinstance(nodes, str) and nodes else 0


def check(lint: Linter, name: str, conf: dict[str, Any], data: dict[str, Any]) -> None:
    cluster = data.get("cluster") if isinstance(data.get("cluster"), dict) else {}
    assert isinstance(cluster, dict)
    _time_based(lint, name, conf)
    _run_loop(lint, name, conf, cluster)
    _data_set(lint, name, conf, cluster, data)
    _gateways(lint, name, conf, data)


def _time_based(lint: Linter, name: str, conf: dict[str, Any]) -> None:
    spec = lint.schema["run_loop"]["fio_modules"].get(name)
    if spec is None or conf.get("time_based") is True:
        return
    size_key = str(spec["size_key"])
    default = lint.schema["benchmarks"][name][size_key].get("default")
    size = conf.get(size_key, default)
    path = f"benchmarks.{name}"
    at = lint.at(path, "time") if "time" in conf else lint.at("benchmarks", name)
    runs = f"time = {conf['time']} s is only a cap" if "time" in conf else "no time is set"
    lint.ctx.add(
        at,
        "warning",
        "FT706",
        "time" if "time" in conf else name,
        f"{name} runs without time_based: {runs}, and fio stops once it has covered {size_key} "
        f"({size} {spec['size_unit']} per {spec['per']}), so a fast case ends early, even inside the ramp, "
        "and measures less than the plan says",
        "add time_based: true (with time and ramp) so every case runs for the full time",
    )


def _run_loop(lint: Linter, name: str, conf: dict[str, Any], cluster: dict[str, Any]) -> None:
    if cluster.get("is_teuthology") is True:
        return
    makes = lint.schema["run_loop"]["makes_archive_dir_in_initialize"]
    at = lint.at("benchmarks", name)
    if name not in makes:
        lint.ctx.add(
            at,
            "error",
            "FT708",
            name,
            f"CBT never runs {name} here: its run loop (cbt.py) skips a benchmark whose archive folder does not "
            f"exist yet, and {name}'s initialize() never makes it (only {', '.join(makes)} do), so CBT exits 0 "
            "with no results",
            "add is_teuthology: true under cluster: (the loop's switch that runs every benchmark)",
        )
        return
    lists = [str(k) for k, v in conf.items() if isinstance(v, list) and k != "acceptable"]
    if lists:
        lint.ctx.add(
            lint.at(f"benchmarks.{name}", lists[0]),
            "warning",
            "FT708",
            lists[0],
            f"CBT runs only the first permutation of {name}'s sweep ({', '.join(lists)}): the run loop (cbt.py) "
            "initialises only the first object of a class and skips the others, whose archive folders do not "
            "exist",
            "add is_teuthology: true under cluster: so every permutation runs, each into its own folder",
        )
    iterations = _int(cluster.get("iterations"))
    if iterations is not None and iterations > 1:
        lint.ctx.add(
            lint.at("cluster", "iterations"),
            "warning",
            "FT708",
            "iterations",
            f"CBT runs only iteration 0 of {name}: the run loop (cbt.py) skips iterations whose archive folder "
            "does not exist, and only the first is initialised; the other "
            f"{iterations - 1} are skipped without a word",
            "add is_teuthology: true under cluster: so every iteration runs",
        )


def _gateways(lint: Linter, name: str, conf: dict[str, Any], data: dict[str, Any]) -> None:
    want = lint.ctx.extra.get("gateways")
    eps = data.get("client_endpoints")
    ep_name = conf.get("client_endpoints")
    ep = eps.get(ep_name) if isinstance(eps, dict) else None
    if not want or not isinstance(ep, dict) or ep.get("driver") != "s3":
        return
    urls = ep.get("urls")
    if not isinstance(urls, list) or not urls:  # CBT then takes the cluster's own list: nothing to count
        return
    per = _int(ep.get("endpoints_per_client", 1)) or 1
    driven = len({str(urls[i % len(urls)]) for i in range(per)})
    if driven >= int(want):
        return
    section = f"client_endpoints.{ep_name}"
    at = lint.at(section, "urls") if section != "client_endpoints.None" else lint.at("benchmarks", name)
    lint.ctx.add(
        at,
        "warning",
        "FT711",
        "urls",
        f"{name} drives {driven} gateway(s) but the cluster runs {want} (--gateways): CBT gives each client "
        f"urls[0 .. endpoints_per_client - 1] ({len(urls)} URL(s), endpoints_per_client = {per}), so the other "
        "gateways carry no load and the plan measures a part of the object service, not all of it",
        f"list one URL per gateway ({want}) in urls and set endpoints_per_client to {want}",
    )


def _data_set(
    lint: Linter, name: str, conf: dict[str, Any], cluster: dict[str, Any], data: dict[str, Any]
) -> None:
    """Bytes each client touches and the whole plan touches, against twice the caches that could hold them."""
    clients = max(1, _count(cluster.get("clients")))
    if name == "librbdfio":
        if conf.get("use_existing_volumes") is True:
            return
        vol = _int(conf.get("vol_size", 65536))
        vols = _int(conf.get("volumes_per_client", 1)) or 1
        if vol is None:
            return
        per_client = vol * vols * MiB
        how = f"{vols} volume(s) x vol_size {vol} MiB"
        size_key = "vol_size"
    elif name == "fio":
        eps = data.get("client_endpoints")
        ep = eps.get(conf.get("client_endpoints")) if isinstance(eps, dict) else None
        if not isinstance(ep, dict) or ep.get("driver") == "s3":
            return
        size = _int(conf.get("size", 4096))
        jobs = _int(conf.get("numjobs", 1)) or 1
        procs = _int(conf.get("procs_per_endpoint", 1)) or 1
        per_ep = _int(ep.get("endpoints_per_client", 1)) or 1
        if size is None:
            return
        per_client = size * jobs * procs * per_ep * MiB
        how = f"{per_ep} endpoint(s) x {procs} proc(s) x {jobs} job(s) x size {size} MiB"
        size_key = "size"
    else:
        return
    total = per_client * clients
    at = lint.at("benchmarks", name)
    ram = lint.ctx.extra.get("ram_bytes")
    if isinstance(ram, int) and per_client < 2 * ram:
        lint.ctx.add(
            lint.at(f"benchmarks.{name}", size_key) if size_key in conf else at,
            "warning",
            "FT709",
            size_key,
            f"each client touches {per_client / GiB:.1f} GiB ({how}), less than twice its "
            f"{ram / GiB:.1f} GiB of RAM: reads can come from the client's page cache, not the cluster",
            f"make it at least {2 * ram / GiB:.0f} GiB per client",
        )
    osds = _count(cluster.get("osds")) * (_int(cluster.get("osds_per_node")) or 0)
    if not osds:
        return
    target = lint.ctx.extra.get("osd_memory_target")
    per_osd = target if isinstance(target, int) else CEPH_DEFAULT_OSD_MEMORY_TARGET
    said = (
        ""
        if isinstance(target, int)
        else " (Ceph's default osd_memory_target; --osd-memory-target sets yours)"
    )
    cache = osds * per_osd
    if total < 2 * cache:
        lint.ctx.add(
            at,
            "warning",
            "FT709",
            name,
            f"the plan touches {total / GiB:.1f} GiB ({clients} client(s) x {how}), less than twice the OSDs' "
            f"cache: {osds} OSDs x {per_osd / GiB:.1f} GiB{said} = {cache / GiB:.1f} GiB, so reads measure "
            "OSD memory, not the devices",
            f"make the data set at least {2 * cache / GiB:.0f} GiB",
        )


def workloads_unarchived(lint: Linter, conf: dict[str, Any]) -> None:
    wl = conf.get("workloads")
    if not isinstance(wl, dict) or len(wl) < 2:
        return
    last = list(wl)[-1]
    lint.ctx.add(
        lint.at("benchmarks.librbdfio", "workloads"),
        "warning",
        "FT710",
        "workloads",
        f"CBT runs all {len(wl)} workloads but archives only the last one's results ({last!r}): run() copies "
        "self.run_dir once after run_workloads, which points at the last workload's folder, and "
        "benchmark_config.yaml shows the benchmark-level mode (benchmark/librbdfio.py); the others stay in "
        "tmp_dir on the clients",
        "sweep top-level lists instead (mode: [...], iodepth: [...]) with is_teuthology: true: every "
        "permutation gets its own archive folder",
    )


def single_iteration(lint: Linter, cluster: dict[str, Any]) -> None:
    it = cluster.get("iterations")
    if isinstance(it, int) and not isinstance(it, bool) and it == 1:
        lint.ctx.add(
            lint.at("cluster", "iterations"),
            "warning",
            "FT707",
            "iterations",
            "iterations = 1: every case runs once, so a result has no spread and one disturbed run goes "
            "unnoticed",
            "run at least 3 iterations (with is_teuthology: true, or CBT runs only the first)",
            on_value=True,
        )

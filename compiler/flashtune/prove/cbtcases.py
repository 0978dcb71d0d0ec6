"""The compiled CBT plan's cases as prove's benchmark: `flashtune prove --cbt PATH`.

For every arm of the A B A B ... order, prove runs the chosen cases of each compiled librbdfio plan
(cbt.yaml, cbt/latency-qd1.yaml) once through the user's CBT (flashtune.cbtrun), then reads that arm's CBT
archive with flashtune's ingest and takes one sample per case from it.

What prove changes in a plan, and why (`arm_doc`):
- the cases: the plan's list axes (op_size, mode, iodepth, ...) cut to the chosen cases' values. When the
  chosen cases of a plan are not a whole product of those values, each case is a CBT run of its own;
- `iterations`: --cbt-iterations (default 1). Iterations run back to back inside one arm share that arm's
  drift (cache state, other tenants' load, PG placement); they are not independent samples of the difference
  between the arms. So an arm's iterations are folded into ONE sample (their median) and the samples of the
  statistics are the arm runs: with --repeat 3 each case has 3 samples per arm, however many iterations;
- `poolname`: a pool named by prove (flashtune-prove-<tag>-<n>, one per plan file), journaled before CBT
  creates it and deleted by the restore. In the first arm CBT creates it, its RBD images, and prefills them
  (`use_existing_volumes: false`, the plan's own); every later arm reuses them (`use_existing_volumes: true`:
  CBT neither deletes nor re-creates nor re-writes them), so every arm reads and writes the same data;
- the hosts: flashtune.cbtrun.localize (placeholder host names -> this host; the conf the ceph CLI uses).
The plan's time, ramp (fio's ramp_time: every sample's same warm-up), sizes and fio settings are unchanged.

The figure per case and arm run: for each iteration, the IOPS fio reported (read + write, mean over the run
after the ramp) summed over every fio job of every volume and client: the load the cluster served in that
case; then the median over the arm's iterations.
"""

from __future__ import annotations

import copy
import itertools
import os
import re
import socket
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashtune.cbtrun import is_placeholder, localize
from flashtune.compile.benchmark import case_name
from flashtune.emit.cbt import dump
from flashtune.errors import FlashtuneError, UsageError
from flashtune.prove.cluster import Cluster
from flashtune.prove.journal import POOL_PREFIX
from flashtune.yamlio import load_yaml

MODULE = "librbdfio"
REPORT_FORMATS = ("fio-json", "fio-json+", "fio-normal", "fio-terse")  # fio's end-of-run report (ingest)
# CBT logs `Running benchmark <run_dir> ...`: librbdfio's run_dir ends op_size-N/concurrent_procs-N/iodepth-N/MODE
_RUN_DIR = re.compile(r"op_size-(?P<op_size>\d+)/concurrent_procs-\d+/iodepth-(?P<iodepth>\d+)/(?P<mode>\w+)")


@dataclass(frozen=True)
class CbtCase:
    name: str
    plan: str  # the plan file it comes from (cbt.yaml, cbt/latency-qd1.yaml)
    values: tuple[
        tuple[str, Any], ...
    ]  # the plan's list axes, this case's value of each, in the plan's order
    note: str = ""

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.values)


@dataclass
class PlanRun:
    """One CBT run per arm: some cases of one plan file."""

    plan: str
    doc: dict[str, Any]  # the compiled document
    axes: tuple[str, ...]  # its list-valued librbdfio keys, in order: what names a case
    cases: list[CbtCase]
    pool: str
    first_of_pool: bool  # the run that creates the pool (in the first arm)

    @property
    def bench(self) -> dict[str, Any]:
        b: dict[str, Any] = self.doc["benchmarks"][MODULE]
        return b

    @property
    def pools(self) -> list[str]:
        """The pools CBT makes for this plan: the pool, and its EC data pool when the plan has one."""
        return [self.pool, f"{self.pool}-data"] if self.bench.get("data_pool_profile") else [self.pool]

    def images(self, hosts: Sequence[str]) -> list[str]:
        """CBT's image names (librbdfio.py mkimages): cbt-librbdfio-<client>-<volume>."""
        n = int(self.bench.get("volumes_per_client", 1))
        return [f"cbt-librbdfio-{h}-{v}" for h in hosts for v in range(n)]


@dataclass(frozen=True)
class CbtSource:
    """What the command line gave for --cbt: CBT itself, the compiled plans and the cases chosen."""

    script: Path  # cbt.py
    python: str  # its interpreter
    plans: dict[str, dict[str, Any]]  # plan file -> CBT document (librbdfio plans only)
    notes: dict[str, str] = field(default_factory=dict)  # case -> what it answers (compile-config's)
    case_names: tuple[str, ...] = ()  # --case (none: every case)
    iterations: int = 1  # --cbt-iterations: CBT iterations per arm run, folded into one sample
    skipped: tuple[str, ...] = ()  # plan files not run (not librbdfio), with their module


@dataclass
class CbtPlan:
    """What `--cbt` runs: CBT's cbt.py and interpreter, the plan runs, and how an arm's samples are made."""

    script: Path
    python: str
    runs: list[PlanRun]
    iterations: int = 1
    conf: Path = Path("/etc/ceph/ceph.conf")
    mon_addr: str | None = None
    clients: list[str] = field(default_factory=lambda: [socket.getfqdn()])
    skipped: list[str] = field(default_factory=list)

    @property
    def cases(self) -> list[CbtCase]:
        return [c for r in self.runs for c in r.cases]

    def run_seconds(self, run: PlanRun, reuse: bool) -> float:
        """About how long one CBT run of one arm takes (see expected_seconds)."""
        b = run.bench
        per_case = float(b.get("ramp") or 0) + float(b.get("time") or 0) + 8
        wait = 20.0 if b.get("wait_pgautoscaler_timeout", -1) else 0.0
        idle = float(b.get("idle_monitor_sleep", 60))
        seconds = 10 + wait + idle + per_case * len(run.cases) * self.iterations
        if not reuse:  # pool, images and their prefill, at about 100 MB/s
            size = int(b.get("vol_size", 65536)) * int(b.get("volumes_per_client", 1)) * len(self.clients)
            seconds += 30 + size / 100
        return seconds

    def timeout(self, run: PlanRun, reuse: bool) -> float:
        """A CBT run that takes three times as long as expected, and 10 minutes more, is stopped."""
        return 3 * self.run_seconds(run, reuse) + 600

    def expected_seconds(self, arms: int) -> float:
        """About how long the arms take: per CBT run its start and settle (5 s sleep, the PG autoscaler
        wait, CBT's idle monitoring), per case and iteration the ramp and the time; the first run of each pool
        also creates and prefills its images."""
        return sum(
            self.run_seconds(r, reuse=not r.first_of_pool) + (arms - 1) * self.run_seconds(r, reuse=True)
            for r in self.runs
        )


def plan_cases(doc: Mapping[str, Any], plan: str, notes: Mapping[str, str]) -> list[CbtCase]:
    """Every case of one compiled plan (the permutations of its list-valued librbdfio keys, as CBT runs
    them with is_teuthology), named as compile-config names them."""
    bench = (doc.get("benchmarks") or {}).get(MODULE)
    if not isinstance(bench, Mapping):
        return []
    axes = [k for k, v in bench.items() if isinstance(v, list)]
    out = []
    for combo in itertools.product(*(bench[k] for k in axes)):
        values = tuple(zip(axes, combo, strict=True))
        name = case_name(dict(values))
        out.append(CbtCase(name, plan, values, notes.get(name, "")))
    return out


def all_cases(plans: Mapping[str, Mapping[str, Any]], notes: Mapping[str, str]) -> list[CbtCase]:
    out: list[CbtCase] = []
    for plan, doc in plans.items():
        out += plan_cases(doc, plan, notes)
    return out


def unsupported(plans: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Plan files prove cannot run through CBT (their benchmark module is not librbdfio)."""
    return [
        f"{plan} ({', '.join(doc.get('benchmarks') or {}) or 'no benchmark'})"
        for plan, doc in plans.items()
        if MODULE not in (doc.get("benchmarks") or {})
    ]


def choose(cases: list[CbtCase], names: Sequence[str]) -> list[CbtCase]:
    """The cases named (all when none is named); an unknown name is a usage error listing the known ones."""
    if not names:
        return list(cases)
    by_name = {c.name: c for c in cases}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise UsageError(
            f"--case {unknown[0]!r}: the compiled CBT plans have no such case",
            suggestion="one of " + ", ".join(by_name),
        )
    return [by_name[n] for n in dict.fromkeys(names)]


def plan_runs(plans: Mapping[str, Mapping[str, Any]], chosen: list[CbtCase], tag: str) -> list[PlanRun]:
    """The CBT runs of one arm: per plan file one run when its chosen cases are a whole product of their axis
    values, else one run per case; one pool per plan file (named by prove)."""
    out: list[PlanRun] = []
    for n, (plan, doc) in enumerate(plans.items(), start=1):
        mine = [c for c in chosen if c.plan == plan]
        if not mine:
            continue
        axes = tuple(k for k, _ in mine[0].values)
        pool = f"{POOL_PREFIX}{tag}-{n}"
        per_axis = [list(dict.fromkeys(c.params[a] for c in mine)) for a in axes]
        product = 1
        for values in per_axis:
            product *= len(values)
        groups = [mine] if product == len(mine) else [[c] for c in mine]
        for i, group in enumerate(groups):
            out.append(PlanRun(plan, copy.deepcopy(dict(doc)), axes, group, pool, first_of_pool=i == 0))
    return out


def arm_doc(run: PlanRun, *, reuse: bool, iterations: int) -> dict[str, Any]:
    """The plan CBT runs for this arm (before flashtune.cbtrun.localize): see the module's text."""
    doc = copy.deepcopy(run.doc)
    bench = doc["benchmarks"][MODULE]
    for axis in run.axes:
        bench[axis] = list(dict.fromkeys(c.params[axis] for c in run.cases))
    bench["poolname"] = run.pool
    bench["use_existing_volumes"] = reuse
    doc["cluster"]["iterations"] = iterations
    doc["cluster"]["use_existing"] = True  # never CBT's own cluster build
    doc["cluster"]["is_teuthology"] = True  # every permutation and iteration runs (cbt.py's run loop)
    return doc


def case_of_line(line: str, run: PlanRun) -> str | None:
    """The case CBT starts, from its `Running benchmark` log (the run folder it names), or None."""
    m = _RUN_DIR.search(line)
    if not m:
        return None
    seen = {"op_size": int(m["op_size"]), "iodepth": int(m["iodepth"]), "mode": m["mode"]}
    for c in run.cases:
        if all(int(v) == seen[k] if k != "mode" else v == seen[k] for k, v in c.values if k in seen):
            return c.name
    return None


# ---- samples ---------------------------------------------------------------------------------------------
def run_cases(archive: Path, run: PlanRun) -> dict[str, tuple[str, int]]:
    """CBT run id (`<iteration>/id-<hash>`, ingest's run column) -> (case, iteration), from each run folder's
    benchmark_config.yaml (the permutation CBT ran)."""
    names = {tuple(c.values): c.name for c in run.cases}
    out: dict[str, tuple[str, int]] = {}
    for cfg_path in sorted(archive.glob("results/*/id-*/benchmark_config.yaml")):
        cfg = load_yaml(cfg_path).get("cluster") or {}
        key = tuple((a, _same_type(cfg.get(a), dict(run.cases[0].values)[a])) for a in run.axes)
        name = names.get(key)
        if name is None:
            raise FlashtuneError(
                f"CBT ran a case prove did not ask for ({dict(key)})",
                file=str(cfg_path),
                suggestion="is this the archive of this prove run?",
            )
        out[f"{cfg_path.parent.parent.name}/{cfg_path.parent.name}"] = (name, int(cfg.get("iteration", 0)))
    return out


def _same_type(value: Any, like: Any) -> Any:
    if isinstance(like, int) and not isinstance(like, bool) and isinstance(value, str) and value.isdigit():
        return int(value)
    return value


def iteration_totals(frame: Any, cases_by_run: Mapping[str, tuple[str, int]]) -> dict[str, list[float]]:
    """case -> per CBT iteration the IOPS the cluster served: fio's mean IOPS (read + write) summed over every
    job of every volume and client of that run (rows of the tidy ingest schema). Only fio's own end-of-run
    report counts (JSON, normal or terse output): the archive's fio logs (output.N_iops.1.log) give a mean of
    their own over the same run, which must not be added to it."""
    rows = frame[
        frame["format"].isin(REPORT_FORMATS)
        & (frame["metric"] == "iops")
        & (frame["stat"] == "mean")
        & frame["time_s"].isna()
        & frame["op"].isin(["read", "write"])
    ]
    totals: dict[str, dict[int, float]] = {}
    for run_id, (case, iteration) in cases_by_run.items():
        mine = rows[rows["run"] == run_id]
        if mine.empty:
            raise FlashtuneError(f"CBT's run {run_id} of case {case} has no fio IOPS (did fio run?)")
        totals.setdefault(case, {})[iteration] = float(mine["value"].sum())
    return {case: [by_iter[i] for i in sorted(by_iter)] for case, by_iter in totals.items()}


def arm_sample(per_iteration: Sequence[float]) -> float:
    """One arm run's one sample of a case: the median of its iterations (iterations inside one arm are not
    independent samples of the difference between the arms)."""
    if not per_iteration:
        raise ValueError("no iterations")
    return float(statistics.median(per_iteration))


def samples_by_arm(
    per_run: Mapping[tuple[str, str, int], Sequence[float]],
) -> dict[tuple[str, str], list[float]]:
    """(case, arm) -> the samples of the statistics: one per arm run (its iterations folded by arm_sample),
    in round order, from (case, arm, round) -> that arm run's per-iteration IOPS."""
    out: dict[tuple[str, str], list[float]] = {}
    for key in sorted(per_run, key=lambda k: k[2]):
        case, arm, _ = key
        out.setdefault((case, arm), []).append(arm_sample(per_run[key]))
    return out


def archive_frame(archive: Path) -> Any:
    """The archive's rows in the tidy schema (flashtune.ingest, as `flashtune ingest ARCHIVE` reads it)."""
    from flashtune.ingest import load

    return load(archive)


def arm_totals(frame: Any, archive: Path, run: PlanRun) -> dict[str, list[float]]:
    """case -> IOPS per iteration of one arm run, from its CBT archive (and its rows, archive_frame);
    every case of the run must be there."""
    totals = iteration_totals(frame, run_cases(archive, run))
    for c in run.cases:
        if not totals.get(c.name):
            raise FlashtuneError(f"CBT's archive has no results for case {c.name}", file=str(archive))
    return totals


def conf_of(cluster: Cluster) -> Path:
    """The ceph.conf the ceph CLI reads: --conf, else $CEPH_CONF, else /etc/ceph/ceph.conf."""
    return Path(cluster.conf or cluster.env().get("CEPH_CONF") or "/etc/ceph/ceph.conf").resolve()


def mon_address(cluster: Cluster) -> str | None:
    """The first monitor's v1 address (`ceph mon dump`), for the plan's mons section."""
    doc = cluster.ceph("mon", "dump") or {}
    for mon in doc.get("mons") or ():
        for addr in (mon.get("public_addrs") or {}).get("addrvec") or ():
            if addr.get("type") == "v1":
                return str(addr.get("addr"))
        if mon.get("addr"):
            return str(mon["addr"]).split("/", 1)[0]
    return None


def cbt_env(cluster: Cluster) -> dict[str, str]:
    """CBT's environment: the one prove's own tools get (CEPH_CONF), and the keyring when one was given.
    CBT's fio runs as client.admin (librbdfio.py: --clientname=admin)."""
    env = cluster.env()
    env["CEPH_CONF"] = str(conf_of(cluster))
    if cluster.keyring:
        env["CEPH_ARGS"] = f"{env.get('CEPH_ARGS', '')} --keyring {cluster.keyring}".strip()
    return env


def build(src: CbtSource, tag: str, cluster: Cluster) -> CbtPlan:
    """The CBT runs of every arm, for this run's pool tag."""
    chosen = choose(all_cases(src.plans, src.notes), src.case_names)
    runs = plan_runs(src.plans, chosen, tag)
    skipped = list(src.skipped)
    hosts = _hosts(runs[0].doc) if runs else []
    return CbtPlan(
        script=src.script,
        python=src.python,
        runs=runs,
        iterations=src.iterations,
        conf=conf_of(cluster),
        mon_addr=mon_address(cluster),
        # CBT names the images after each client's `hostname -f`: this host's when the hosts are placeholders
        clients=[socket.getfqdn()]
        if all(is_placeholder(h) for h in hosts)
        else [h.rpartition("@")[2] for h in hosts],
        skipped=skipped,
    )


def plan_lines(plan: CbtPlan, out: Path) -> list[str]:
    """The plan's part of `prove --dry-run`: what CBT runs in every arm."""
    lines = [
        f"benchmark: the compiled CBT plan's cases through CBT ({plan.script}, run with {plan.python}), "
        f"{plan.iterations} CBT iteration(s) per arm run, folded into one sample per case",
        f"cases ({len(plan.cases)}): " + ", ".join(c.name for c in plan.cases),
    ]
    for n, r in enumerate(plan.runs, start=1):
        b = r.bench
        lines.append(
            f"CBT run {n} per arm: {r.plan}, cases {', '.join(c.name for c in r.cases)}; fio {b.get('time')} s "
            f"after a {b.get('ramp')} s ramp per case; pool {r.pool}"
            + (f" (+ data pool {r.pool}-data)" if len(r.pools) > 1 else "")
        )
    pools = list(dict.fromkeys(p for r in plan.runs for p in r.pools))
    first = [r for r in plan.runs if r.first_of_pool]
    images = sum(int(r.bench.get("volumes_per_client", 1)) for r in first) * len(plan.clients)
    size = sum(
        int(r.bench.get("vol_size", 0)) * int(r.bench.get("volumes_per_client", 1)) for r in first
    ) * len(plan.clients)
    lines.append(
        f"CBT creates pool(s) {', '.join(pools)} and {images} RBD image(s) ({size:,} MiB, written once, in the "
        "first arm); every later arm reuses them; prove deletes the pools at the end"
    )
    lines.append(
        f"CBT's plans, archives and logs: {out / 'cbt'}/<arm><round>-<run>/ (plan.yaml, archive, cbt.log)"
    )
    lines.append("the plans CBT runs in the first arm:")
    for r in plan.runs:
        doc = localize(
            arm_doc(r, reuse=not r.first_of_pool, iterations=plan.iterations),
            conf=plan.conf,
            scratch=out / "cbt" / "A1",
            mon_addr=plan.mon_addr,
        )
        lines.append(f"--- {r.plan} ({', '.join(c.name for c in r.cases)})")
        lines += dump(doc).rstrip("\n").splitlines()
    return lines


def method_notes(plan: CbtPlan, repeat: int) -> list[str]:
    """How the samples were formed, for the report."""
    notes = [
        f"the benchmark is the compiled CBT plan's cases run through CBT ({plan.script}): in every arm each plan "
        "file ran once, with the plan's fio time and ramp (the same warm-up in every arm)",
        f"samples: ONE per case and arm run ({repeat} per arm): the IOPS fio reported (read + write, mean after "
        "the ramp) summed over every job, volume and client of the case"
        + (
            f", the median of the {plan.iterations} CBT iterations of that arm run: iterations run back to back "
            "inside one arm share its drift, so they are not counted as samples"
            if plan.iterations > 1
            else " (CBT ran 1 iteration per arm run: prove's alternating rounds take the place of the plan's "
            "iterations, which would run back to back inside one arm and share its drift)"
        ),
        "CBT created the pool and its images and wrote them in the first arm (A1), right before that arm's "
        "samples; every later arm read and wrote the same images",
    ]
    if any(all(is_placeholder(h) for h in _hosts(r.doc)) for r in plan.runs):
        notes.append(
            "CBT ran on this host: the plan's placeholder hosts (client01, osd01, ...) became this host, so the "
            "plan's clients' load came from one client; CBT's per-OSD-node steps (dropping caches, reading "
            "`ceph daemon osd.0 config show`) ran here too"
        )
    if plan.skipped:
        notes.append("not run (prove runs CBT's librbdfio plans only): " + "; ".join(plan.skipped))
    if os.geteuid() != 0:
        notes.append(
            "prove ran as a user other than root: CBT's `sudo` commands ran as that user, so dropping the page "
            "cache before each case (echo 3 > /proc/sys/vm/drop_caches) did not happen"
        )
    return notes


def _hosts(doc: Mapping[str, Any]) -> list[str]:
    clients = (doc.get("cluster") or {}).get("clients")
    return [str(h) for h in clients] if isinstance(clients, list) else [str(clients)]

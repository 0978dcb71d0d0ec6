"""The envelope of a compiled bundle: the four standard ceilings and the expected figure of every CBT case.

compile-config calls `for_bundle` once the CBT plans exist; explain.md, manifest.json and the CBT files show
its result (`markdown`, the manifest's `envelope` key, `cbt_comment`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from flashtune.compile.benchmark import case_name, expand, rbd_in_flight, whole
from flashtune.envelope.ceilings import STANDARD_CASES, Case, Cluster, Envelope, envelope
from flashtune.envelope.cluster import cluster_from
from flashtune.envelope.fitted import constants
from flashtune.envelope.latency import QD1Floor, qd1_floor
from flashtune.envelope.report import NOTE, calibration_notes, case_dict, cpu_notes, limit_notes, shape
from flashtune.model import Hardware, Protection
from flashtune.units import IEC

# Little's law for a closed-loop benchmark: a case that keeps N I/Os in flight does N / latency I/Os a second
LATENCY_NOTE = (
    "A case with N I/Os in flight reaches its ceiling only if the mean latency is at most N / ceiling (Little's "
    "law); at a higher latency it is bound by latency, below the ceiling, however idle the resources are."
)


def floor_note(floor: QD1Floor) -> str:
    """What the published queue-depth-1 floor beside a case is, and the set-up it holds for."""
    return (
        f"The published queue-depth-1 floor is the lowest mean latency printed for one 4K RBD I/O at a time "
        f"({floor.read_ms:g} ms read, {floor.write_ms:g} ms write; {floor.setup}): N I/Os in flight do at most "
        "N / that latency there. It is not a ceiling of the model; a slower network, slower cores, other drives "
        "or a loaded cluster have a higher floor, so a case below its resource ceiling at that floor measures "
        "latency, not a resource."
    )


FIO_READ = {"read": 1.0, "randread": 1.0, "write": 0.0, "randwrite": 0.0}


def _bytes(size: Any) -> int:
    """'4K', '64K', '1M', 4096 -> bytes (CBT and fio sizes are powers of 1024)."""
    text = str(size).strip().lower().rstrip("b")
    if text.isdigit():
        return int(text)
    return int(float(text[:-1]) * IEC[text[-1]])


@dataclass(frozen=True)
class PlanCase:
    """One client workload of a CBT document, as the envelope sees it."""

    case: Case
    clients: int | None  # the document's client count, when it sets one
    # I/Os kept in flight over all clients, where the benchmark holds a fixed number (fio's iodepth x jobs x
    # volumes, hsbench's threads): the rate is then in_flight / mean latency (Little's law)
    in_flight: int | None = None


def plan_cases(doc: Mapping[str, Any], name: str) -> list[PlanCase]:
    """The client workloads of one CBT document."""
    bench = doc.get("benchmarks") or {}
    clients = doc.get("cluster", {}).get("clients")
    n = len(clients) if isinstance(clients, list) else None
    out: list[PlanCase] = []
    for module, b in bench.items():
        if module == "librbdfio" and not b.get("workloads"):
            # every permutation of the top-level lists is a case (CBT runs them all with is_teuthology)
            for case in expand({k: v for k, v in b.items() if isinstance(v, list)}):
                w = {**b, **case}
                mode = str(w.get("mode", "write"))
                share = FIO_READ.get(mode, float(w.get("rwmixread", 50)) / 100)
                size = int(w.get("op_size", 4194304))
                out.append(PlanCase(Case(case_name(case), size, share), n, rbd_in_flight(w, n)))
        elif module == "librbdfio":
            for wname, w in (b.get("workloads") or {}).items():
                # a workload's own mode; rwmixread only from the benchmark level (librbdfio.py run_workloads)
                mode = str(w.get("mode", b.get("mode", "write")))
                share = FIO_READ.get(mode, float(b.get("rwmixread", 50)) / 100)
                size = int(w.get("op_size", b.get("op_size", 4096)))
                out.append(PlanCase(Case(str(wname), size, share), n, rbd_in_flight({**b, **w}, n)))
        elif module == "hsbench":
            size = _bytes(b.get("size", "4M"))
            # each client runs endpoints_per_client hsbench processes (CBT hsbench.py), each with -t threads
            endpoint = (doc.get("client_endpoints") or {}).get(b.get("client_endpoints")) or {}
            per = whole(endpoint.get("endpoints_per_client"), 1)
            threads = whole(b.get("threads"), 1)
            flight = n * per * threads if n and per and threads and "threads" in b else None
            out += [
                PlanCase(Case(f"{name} PUT", size, 0.0, sequential=True, interface="rgw"), n, flight),
                PlanCase(Case(f"{name} GET", size, 1.0, sequential=True, interface="rgw"), n, flight),
            ]
        elif module == "fio":
            # buffered CephFS I/O (direct: 0) does not keep iodepth in flight, so no count is given
            mode = str(b.get("mode", "read"))
            share = FIO_READ.get(mode, float(b.get("rwmixread", 50)) / 100)
            out.append(
                PlanCase(
                    Case(name, _bytes(b.get("bs", "4K")), share, sequential=not mode.startswith("rand")), n
                )
            )
    return out


def plan_replication(doc: Mapping[str, Any]) -> int | None:
    """The replica count of the pool a librbdfio plan runs on, when its pool profile states one."""
    bench = (doc.get("benchmarks") or {}).get("librbdfio") or {}
    profile = ((doc.get("cluster") or {}).get("pool_profiles") or {}).get(bench.get("pool_profile"))
    size = profile.get("replication") if isinstance(profile, Mapping) else None
    return size if isinstance(size, int) and not isinstance(size, bool) and size >= 1 else None


def cluster_for(
    hw: Hardware, shape_facts: Mapping[str, Any], objectstore: str | None = None, release: str | None = None
) -> Cluster:
    """The hardware's cluster with the compiled shape: nodes, clients, the pools' protection and the release's
    object store (and cost family)."""
    c = cluster_from(hw, objectstore, release)
    ec = shape_facts.get("ec")
    if ec is not None:
        prot = Protection("erasure", 1, int(ec.value.k), int(ec.value.m))
    else:
        prot = Protection("replicated", int(shape_facts.get("pool_size", 3)))
    # the gateways the rgw plans drive (compile's shape): dedicated hosts come from the hardware file itself;
    # without them, the radosgw daemons the layout places on every OSD node share its NICs and cores
    per_node = int(shape_facts.get("rgw_per_node") or 0)
    gateways = c.colocated_gateways if c.gateways else max(c.colocated_gateways, per_node)
    return replace(
        c,
        nodes=int(shape_facts["nodes"]),
        clients=int(shape_facts["clients"]),
        protection=prot,
        colocated_gateways=gateways,
    )


def for_bundle(
    hw: Hardware,
    shape_facts: Mapping[str, Any],
    plans: Mapping[str, Mapping[str, Any]],
    objectstore: str | None = None,
    release: str | None = None,
) -> dict[str, Any]:
    c = cluster_for(hw, shape_facts, objectstore, release)
    k = constants()
    floor = qd1_floor()
    benchmarks: dict[str, list[dict[str, Any]]] = {}
    for file, doc in plans.items():
        stem = Path(file).stem
        stem = stem.split("-", 1)[-1] if file.startswith("cbt/") else stem
        rows = []
        size = plan_replication(doc)
        clusters: dict[int | None, Cluster] = {}  # per client count: a document's cases share one
        for pc in plan_cases(doc, stem):
            n = pc.clients
            cc = clusters.get(n)
            if cc is None:
                cc = replace(c, clients=n) if n else c
                if size is not None and cc.protection.kind == "replicated":
                    cc = replace(cc, protection=Protection("replicated", size))
                clusters[n] = cc
            env = envelope(cc, pc.case, k)
            rows.append({**case_dict(env), **_flight(pc.in_flight, env, floor)})
        benchmarks[file] = rows
    standard = [case_dict(envelope(c, case, k)) for case in STANDARD_CASES]
    every = [*standard, *(r for rows in benchmarks.values() for r in rows)]
    return {
        "cluster": shape(c),
        "standard": standard,
        "benchmarks": benchmarks,
        "constants": {
            "net_efficiency": round(k.net_efficiency, 4),
            "net_efficiency_by_link": {c: round(v, 4) for c, v in k.net_by_class.items()},
            "net_efficiency_writes_by_link": {c: round(v, 4) for c, v in k.net_write_by_class.items()},
            "osd_max_cores": k.osd_max_cores,
            "node_op_ceiling": k.node_op_ceiling,
            "message_overhead_bytes": k.message_overhead_bytes,
            **{f"cpu_{n}_cycles": (round(v, 3) if v is not None else None) for n, v in vars(k.cpu).items()},
        },
        "notes": [*c.notes, *cpu_notes(c, k), *calibration_notes(c), NOTE, *limit_notes(every)],
    }


def _flight(in_flight: int | None, env: Envelope, floor: QD1Floor) -> dict[str, Any]:
    """A case's I/Os in flight and the mean latency at which they reach its ceiling (Little's law: IOPS = I/Os
    in flight / latency). A cluster slower than that serves the case below the ceiling, bounded by latency.
    Where even the published queue-depth-1 latency (an RBD figure) keeps them below the ceiling, also the rate
    they do at that floor: a statement beside the ceiling, which stays as it is."""
    if not in_flight or env.iops <= 0:
        return {}
    out: dict[str, Any] = {
        "in_flight": in_flight,
        "latency_at_ceiling_us": round(1e6 * in_flight / env.iops, 1),
    }
    floor_ms = floor.mean_ms(env.case.read_fraction)
    rate = 1e3 * in_flight / floor_ms
    if env.case.interface == "rbd" and rate < env.iops:
        out |= {"published_floor_ms": round(floor_ms, 3), "rate_at_published_floor_IOPS": round(rate)}
    return out


def _line(r: Mapping[str, Any], floor_label: str) -> str:
    span = r.get("range_IOPS")
    rng = f" (validated range {span[0]:,}-{span[1]:,} IOPS)" if span else ""
    kind = f" [{r['limit_kind']}]" if r.get("limit_kind") else ""
    flight = (
        f"; {r['in_flight']:,} in flight {'reaches' if r['in_flight'] == 1 else 'reach'} it at <= "
        f"{_us(r['latency_at_ceiling_us'])} mean latency"
        if r.get("in_flight")
        else ""
    )
    if r.get("rate_at_published_floor_IOPS"):
        flight += (
            f"; at the published queue-depth-1 floor ({r['published_floor_ms']:g} ms {_side(r['read_fraction'])}, {floor_label}) "
            f"at most about {r['rate_at_published_floor_IOPS']:,} IOPS: this case measures latency, not a resource"
        )
    return f"{r['predicted_IOPS']:,} IOPS = {r['predicted_MB_s']:,.0f} MB/s, limit: {r['limit']}{kind}{rng}{flight}"


def _side(read_fraction: float) -> str:
    return {1.0: "read", 0.0: "write"}.get(read_fraction, f"{read_fraction:.0%} read mix")


def _us(value: float) -> str:
    return f"{value / 1000:,.2f} ms" if value >= 1000 else f"{value:,.1f} µs"


def _floor_cell(r: Mapping[str, Any]) -> str:
    rate = r.get("rate_at_published_floor_IOPS")
    return f"{rate:,} (at {r['published_floor_ms']:g} ms)" if rate else "-"


def _span(r: Mapping[str, Any]) -> str:
    span = r.get("range_IOPS")
    return f"{span[0]:,}-{span[1]:,}" if span else "-"


def cbt_comment(env: Mapping[str, Any], file: str) -> str:
    """Comment lines for one CBT file: the expected ceiling beside each of its cases."""
    rows = (env.get("benchmarks") or {}).get(file) or []
    if not rows:
        return ""
    lines = ["Expected ceiling per case (flashtune envelope; measured results should stay below it):"]
    if any(r.get("in_flight") for r in rows):
        lines.append(LATENCY_NOTE)
    floor = qd1_floor()
    if any(r.get("rate_at_published_floor_IOPS") for r in rows):
        lines.append(floor_note(floor))
    lines += [f"  {r['case']}: {_line(r, floor.label)}" for r in rows]
    return "\n".join(lines)


def markdown(env: Mapping[str, Any]) -> str:
    """The explain.md section."""
    if not env:
        return ""
    out = [
        "\n## Performance envelope (predicted ceilings)\n\n",
        f"Cluster as modelled: {env['cluster']}. Each resource's ceiling is the client IOPS at which it would be "
        "fully busy; the smallest is the prediction, the others' headroom is how much further they could go. "
        "`flashtune envelope --validation` compares the model with every published result.\n\n",
        "A limit marked *bound* is a hard ceiling (data-sheet media figures, line rates); *estimate* comes from "
        "calibrated CPU costs or the per-node op ceiling. The validated range is what measured results reached "
        "relative to such a prediction in the leave-one-study-out validation.\n\n",
        "| case | predicted IOPS | MB/s | limited by | kind | validated range (IOPS) | headroom of the others |\n"
        "|---|---|---|---|---|---|---|\n",
    ]
    out += [
        f"| {r['case']} | {r['predicted_IOPS']:,} | {r['predicted_MB_s']:,.0f} | {r['limit']} | "
        f"{r.get('limit_kind') or '-'} | {_span(r)} | {r['headroom']} |\n"
        for r in env["standard"]
    ]
    bench = env.get("benchmarks") or {}
    if any(bench.values()):
        rows_all = [r for rows in bench.values() for r in rows]
        # the latency columns and notes only where a case has them, as in the CBT comments: buffered CephFS
        # keeps no fixed number in flight, and the floor is an RBD figure
        counted = any(r.get("in_flight") for r in rows_all)
        floored = any(r.get("rate_at_published_floor_IOPS") for r in rows_all)
        head = ["file", "case", "expected IOPS", "MB/s", "limited by"]
        head += ["I/Os in flight", "mean latency at the ceiling"] if counted else []
        head += ["IOPS at the published queue-depth-1 floor"] if floored else []
        out.append(
            "\nExpected ceiling beside each benchmark case (also written as comments in the CBT files)."
            + (f" {LATENCY_NOTE}" if counted else "")
            + "\n\n"
            + (f"{floor_note(qd1_floor())}\n\n" if floored else "")
            + f"| {' | '.join(head)} |\n|{'---|' * len(head)}\n"
        )
        for file, rows in bench.items():
            for r in rows:
                cells = [
                    file,
                    r["case"],
                    f"{r['predicted_IOPS']:,}",
                    f"{r['predicted_MB_s']:,.0f}",
                    r["limit"],
                ]
                if counted:
                    flight = r.get("in_flight")
                    cells += [str(flight or "-"), _us(r["latency_at_ceiling_us"]) if flight else "-"]
                if floored:
                    cells.append(_floor_cell(r))
                out.append(f"| {' | '.join(cells)} |\n")
    out += [f"\nNote: {n}.\n" for n in env.get("notes", [])]
    return "".join(out)

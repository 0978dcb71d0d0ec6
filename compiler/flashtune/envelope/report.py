"""Plain-data views of the envelope for the CLI, the compiled bundle (explain.md, manifest.json, CBT) and notebooks."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

from flashtune.envelope.calibrate import cluster_for
from flashtune.envelope.ceilings import (
    CO_LIMIT,
    DEFAULT_FAMILY,
    KIND,
    MODERN_FAMILIES,
    RELEASE_FAMILY,
    RESOURCE_CLASS,
    STANDARD_CASES,
    TIE,
    Case,
    Cluster,
    Constants,
    Envelope,
    envelope,
)
from flashtune.envelope.fitted import constants
from flashtune.envelope.observations import headlines
from flashtune.envelope.validate import summary, table, validation
from flashtune.errors import FlashtuneError

NOTE = (
    "media and network ceilings are hard bounds (data-sheet drive figures, line rates); CPU and the per-node "
    "op ceiling are estimates from costs calibrated on published results; each predicted ceiling "
    "carries the measured/predicted range the leave-one-study-out validation supports for its resource "
    "(flashtune envelope --validation)"
)
# How a limit naming more than one resource reads (Envelope.bottleneck writes it).
LIMIT_NOTE = (
    f"a limit 'a = b' names resources whose ceilings are equal (within {100 * TIE:g} %); 'a ~ b' a co-limit: "
    f"the others' ceilings lie within {100 * CO_LIMIT:g} % of the lowest, closer than the published figures "
    "behind them are precise, so either may be the one that stops the cluster and raising one alone gains "
    f"at most {100 * CO_LIMIT:g} %"
)


def limit_notes(rows: list[dict[str, Any]]) -> list[str]:
    """LIMIT_NOTE where a row's limit names more than one resource."""
    return [LIMIT_NOTE] if any(len(r["limit_resources"]) > 1 for r in rows) else []


def cpu_notes(c: Cluster, k: Constants) -> list[str]:
    """Which directions get no CPU ceiling because no published measurement calibrates their cost."""
    if c.software != "ceph":
        return [f"no CPU ceiling: the CPU costs are calibrated on Ceph OSDs, not {c.software}"]
    out = []
    family = c.family
    if c.objectstore == "bluestore" and not c.release:
        releases = ", ".join(r for r, f in RELEASE_FAMILY.items() if f == DEFAULT_FAMILY)
        out.append(
            f"release not given: the CPU costs of today's releases ({releases}) are assumed (the fitted costs of older "
            "releases are higher per operation): give the hardware file a release: to have its own"
        )
    for write, name in ((False, "reads"), (True, "writes")):
        direction = "write" if write else "read"
        if k.cpu.op(write, family) is None or k.cpu.byte(write, family) is None:
            out.append(
                f"no CPU ceiling for {c.objectstore} {name}: no published CPU-bound {c.objectstore} "
                f"result calibrates its cost per operation (a cost from the other object store does not carry over)"
            )
        elif f"cpu.{direction}_op_{family}" in k.bounds:
            out.append(
                f"the CPU ceiling of {c.objectstore} {name} is a lower bound: its cost per operation comes from a "
                f"published result the network limited, so the CPU needed at most that much"
            )
        elif family in MODERN_FAMILIES and getattr(k.cpu, f"{direction}_op_{family}") is None:
            out.append(
                f"no published result calibrates the {family} family's {name}: the CPU ceiling uses the "
                "nearest release family's costs"
            )
    return out


# A figure of the hardware the calibration notes compare: a number (outside when it lies beyond the range of
# the published set-ups) or words (outside when one of them is in none of the set-ups); None where it does not
# apply to the cluster (the EC chunks of a replicated pool, the client port of co-located clients).
Figure = float | frozenset[str] | None


@cache
def calibrated_span() -> dict[str, tuple[float, float] | frozenset[str]]:
    """Each hardware figure over the published Ceph set-ups the model was calibrated and checked on (every
    headline's cluster): the range of a number, the set of words (computed here from data/envelope/, never
    written down, so a new set-up widens it)."""
    numbers: dict[str, list[float]] = {}
    words: dict[str, set[str]] = {}
    for h in headlines():
        c = cluster_for(h)
        if c.software != "ceph":
            continue
        for key, value in _figures(c).items():
            if isinstance(value, frozenset):
                words.setdefault(key, set()).update(value)
            elif value is not None:
                numbers.setdefault(key, []).append(value)
    return {
        **{key: (min(v), max(v)) for key, v in numbers.items()},
        **{key: frozenset(v) for key, v in words.items()},
    }


def _figures(c: Cluster) -> dict[str, Figure]:
    """Every figure of the hardware the model's terms depend on (ceilings.py): the CPU's (nodes, sockets, cores,
    clock, cores per OSD, release), the network's (port speeds: the link class's efficiency), the media's
    (drive type, drives, OSDs per drive) and the pool's (replicas, EC chunks)."""
    p = c.protection
    cores = float(c.sockets * c.cores)
    return {
        "storage nodes": float(c.nodes),
        "CPU sockets per node": float(c.sockets),
        "cores per node": cores,
        "clock (GHz)": float(c.ghz),
        # the cores an OSD may use: its share of the node's, or its container's CPU limit where that is less
        "cores per OSD": float(min(cores / c.osds_per_node, c.osd_cpu_cores or math.inf))
        if c.osds_per_node
        else None,
        "fastest storage port (Gb/s)": float(max(c.public_gbps_port, c.cluster_gbps_port) or c.public_gbps),
        "client port (Gb/s)": float(c.client_gbps) if c.client_gbps and not c.colocated_clients else None,
        "gateway node port (Gb/s)": float(c.gateway_gbps) if c.gateways else None,
        "data drives per node": float(c.drive_count),
        "OSDs per data device": float(c.osds_per_device),
        "data drive type": frozenset(g.type for g in c.drives),
        "object store": frozenset({c.objectstore}),
        "Ceph release": frozenset({c.release}) if c.release else None,
        "pool": frozenset({p.kind}),
        "replicas": float(p.size) if p.kind == "replicated" else None,
        "EC data chunks (k)": float(p.k) if p.kind == "erasure" else None,
        "EC coding chunks (m)": float(p.m) if p.kind == "erasure" else None,
    }


def calibration_notes(c: Cluster) -> list[str]:
    """Where the cluster lies outside the hardware the model was calibrated and checked on: one note per
    figure (_figures) beyond the published set-ups' range, or a word none of them had."""
    if c.software != "ceph":
        return []
    span = calibrated_span()
    out = []
    for key, value in _figures(c).items():
        known = span.get(key)
        if value is None or known is None:
            continue
        if isinstance(value, frozenset) and isinstance(known, frozenset):
            if not value <= known:
                out.append(
                    f"outside the calibrated range: {key} {', '.join(sorted(value - known))} (published set-ups: "
                    f"{', '.join(sorted(known))}); the estimates extrapolate"
                )
        elif isinstance(value, float) and isinstance(known, tuple):
            lo, hi = known
            if not lo <= value <= hi:
                out.append(
                    f"outside the calibrated range: {key} {value:g} (published set-ups: {lo:g}-{hi:g}); "
                    "the estimates extrapolate"
                )
    return out


def _count(n: int, noun: str) -> str:
    """'1 node', '5 nodes'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def shape(c: Cluster) -> str:
    net = f"{c.public_gbps:g} Gb/s public" + (
        f" + {c.cluster_gbps:g} Gb/s cluster" if c.cluster_gbps else " (shared)"
    )
    drives = ", ".join(f"{g.count} x {g.model or g.type}" for g in c.drives)
    return (
        f"{_count(c.nodes, 'node')} x ({c.sockets} x {c.cores} cores @ {c.ghz:g} GHz, {drives}, {net}), "
        + (
            f"clients on the storage nodes, {c.protection.label()}, {c.objectstore}"
            if c.colocated_clients
            else f"{_count(c.clients, 'client')} x {c.client_gbps:g} Gb/s, {c.protection.label()}, {c.objectstore}"
        )
        + (" (journal on the data drives)" if c.media_writes != 1 else "")
        + (f", {c.release}" if c.release else "")
        + (f", {c.colocated_gateways} RGW per node" if c.colocated_gateways else "")
    )


def headroom_text(head: dict[str, float | None], kinds: dict[str, str] | None = None) -> str:
    """The other resources' headroom ('media +133 %, cpu +984 %'; with their kinds, the estimates starred:
    'cpu* +984 %'), from Envelope.headroom()'s fractions; '-' where none has any."""
    return (
        ", ".join(
            f"{r}{'*' if kinds and kinds.get(r) == 'estimate' else ''} +{100 * v:.0f} %"
            for r, v in head.items()
            if v is not None and v > 0.0005
        )
        or "-"
    )


def case_dict(env: Envelope) -> dict[str, Any]:
    head = env.headroom()
    return {
        "case": env.case.name,
        "block_size_bytes": env.case.block_size,
        "read_fraction": env.case.read_fraction,
        "predicted_IOPS": round(env.iops),
        "predicted_MB_s": round(env.mb_s, 1),
        "limit": env.bottleneck,
        "limit_resources": list(env.limit),
        "ceilings_IOPS": {r: (round(v) if v is not None else None) for r, v in env.ceilings.items()},
        "headroom": headroom_text(head),
        "headroom_pct": {r: (round(100 * v, 1) if v is not None else None) for r, v in head.items()},
        "limit_kind": "/".join(dict.fromkeys(KIND[r] for r in env.limit)),
        "kinds": {r: KIND[r] for r in env.ceilings},
        **_range(env),
    }


def _range(env: Envelope) -> dict[str, Any]:
    """The predicted ceiling's range: where the cluster's real ceiling lies if every resource's real ceiling
    lies within the measured / predicted range the validation found for its class (RESOURCE_CLASS).

    The cluster stops at the lowest real ceiling, so the range runs from the lowest of the resources' low
    ends to the lowest of their high ends: a resource that does not limit the prediction still caps the high
    end (a media-limited case cannot go past the wire's ceiling however far the drives outrun their data
    sheet) and, where its ceiling is an estimate close above the limit, lowers the low end. A class without a
    validated range counts at its ceiling (1 x)."""
    ranges = constants().ranges
    if not env.limit or not any(RESOURCE_CLASS[r] in ranges for r in env.limit):
        return {"range_IOPS": None}
    ends = [
        (v * ranges.get(RESOURCE_CLASS[r], (1.0, 1.0))[0], v * ranges.get(RESOURCE_CLASS[r], (1.0, 1.0))[1])
        for r, v in env.ceilings.items()
        if v is not None and math.isfinite(v)
    ]
    lo, hi = min(e[0] for e in ends), min(e[1] for e in ends)
    return {
        "range_IOPS": [round(lo), round(hi)],
        "range_ratio": [round(lo / env.iops, 3), round(hi / env.iops, 3)],
    }


def envelope_dict(c: Cluster, cases: tuple[Case, ...] = STANDARD_CASES) -> dict[str, Any]:
    k = constants()
    rows = [case_dict(envelope(c, case, k)) for case in cases]
    return {
        "cluster": c.name,
        "shape": shape(c),
        "cases": rows,
        "constants": {
            "net_efficiency": round(k.net_efficiency, 4),
            "net_efficiency_by_link": {c: round(v, 4) for c, v in k.net_by_class.items()},
            "net_efficiency_writes_by_link": {c: round(v, 4) for c, v in k.net_write_by_class.items()},
            "osd_max_cores": k.osd_max_cores,
            "node_op_ceiling": k.node_op_ceiling,
            "message_overhead_bytes": k.message_overhead_bytes,
            "cpu_cycles": {n: (round(v, 3) if v is not None else None) for n, v in vars(k.cpu).items()},
        },
        "notes": [*c.notes, *cpu_notes(c, k), *calibration_notes(c), NOTE, *limit_notes(rows)],
    }


def validation_records() -> list[dict[str, Any]]:
    return table()


def validation_summary() -> dict[str, Any]:
    return summary(validation())


def _refuse_impossible(df: Any, csv: str) -> None:
    """A value that is not a finite number at least 0 (an overflowed 1e400 read as infinity, a negative
    IOPS) would print as `inf %` or a wrong share: refused with its line (flashtune ingest leaves such rows
    out; a CSV from elsewhere or an older version may still hold them)."""
    import numpy as np

    if "block_size_bytes" in df.columns:  # a case of 0-byte or negative I/Os divided by zero in the model
        sizes = df["block_size_bytes"]
        small = (sizes.notna() & (sizes.fillna(1) < 1)).to_numpy(dtype=bool)
        if small.any():
            i = int(np.flatnonzero(small)[0])
            raise _rows_error(
                small,
                f"have a block size below 1 byte, the first block_size_bytes = {sizes.iloc[i]}",
                csv,
                "re-run `flashtune ingest ... --out`; a block size is the I/O's size in bytes",
            )
    if "value" not in df.columns:
        return  # measured_cases names the missing columns
    values = df["value"].astype("Float64")
    finite = np.isfinite(values.fillna(0).to_numpy(dtype=float))
    bad = values.notna().to_numpy() & ~(finite & (values.fillna(0).to_numpy(dtype=float) >= 0))
    if bad.any():
        row = df.iloc[int(np.flatnonzero(bad)[0])]
        raise _rows_error(
            bad,
            f"hold impossible values, the first {row.get('metric')} {row.get('stat')} = {row['value']}",
            csv,
            "re-run `flashtune ingest ... --out`, which leaves such rows out and names them",
        )


def _rows_error(rows: Any, what: str, csv: str, suggestion: str) -> Exception:
    """The error for the rows a boolean mask `rows` marks, at the first one's line (the header is line 1)."""
    import numpy as np

    first = int(np.flatnonzero(rows)[0])
    return FlashtuneError(f"{int(rows.sum())} row(s) {what}", file=csv, line=first + 2, suggestion=suggestion)


def results_records(c: Cluster, csv: str | Path) -> list[dict[str, Any]]:
    import pandas as pd

    from flashtune.envelope.results import compare, measured_cases
    from flashtune.fileio import read_text
    from flashtune.ingest.schema import DTYPES

    text = read_text(csv)
    try:
        import warnings
        from io import StringIO

        with warnings.catch_warnings():  # numpy's 'invalid value in cast' before the error below
            warnings.simplefilter("ignore", RuntimeWarning)
            df = pd.read_csv(StringIO(text), dtype={k: v for k, v in DTYPES.items()})
    except (ValueError, pd.errors.ParserError) as e:
        raise FlashtuneError(
            f"not a `flashtune ingest` CSV: {e}",
            file=str(csv),
            suggestion="write it with `flashtune ingest FILES --out results.csv`",
        ) from None
    except (TypeError, OverflowError):  # pandas' cast of a whole-number column: a traceback before
        whole = ", ".join(k for k, v in DTYPES.items() if v == "Int64")
        raise FlashtuneError(
            f"not a `flashtune ingest` CSV: a whole-number column ({whole}) holds a fraction or a number "
            "too large for one",
            file=str(csv),
            suggestion="write it with `flashtune ingest FILES --out results.csv`",
        ) from None
    _refuse_impossible(df, str(csv))
    twice = df.duplicated()
    if twice.any():  # one measurement read twice (CSVs joined, a file ingested twice) would add up twice
        import sys

        first = int(twice.to_numpy().nonzero()[0][0]) + 2
        print(
            f"{csv}:{first}: note: {int(twice.sum())} row(s) repeat an earlier row exactly; each is counted once",
            file=sys.stderr,
        )
        df = df[~twice]
    out = []
    for comp in compare(c, constants(), measured_cases(df)):
        rec = comp.record()
        rec["sentence"] = comp.sentence()
        out.append(rec)
    return out

"""Plain-data views of the envelope for the CLI, the compiled bundle (explain.md, manifest.json, CBT) and notebooks."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from flashtune.envelope.calibrate import Fit, fit
from flashtune.envelope.model import STANDARD_CASES, Case, Cluster, Constants, Envelope, envelope

NOTE = (
    "ceilings are upper bounds from data-sheet drive figures, line rates and CPU costs calibrated on the "
    "2014-2017 studies (flashtune envelope --validation shows how well they predict those)"
)


@cache
def constants() -> Constants:
    """The constants fitted from every published study (what users' predictions use)."""
    return fit().constants


def calibration() -> Fit:
    return fit()


def shape(c: Cluster) -> str:
    net = f"{c.public_gbps:g} Gb/s public" + (
        f" + {c.cluster_gbps:g} Gb/s cluster" if c.cluster_gbps else " (shared)"
    )
    drives = ", ".join(f"{g.count} x {g.model or g.type}" for g in c.drives)
    return (
        f"{c.nodes} nodes x ({c.sockets} x {c.cores} cores @ {c.ghz:g} GHz, {drives}, {net}), "
        f"{c.clients} clients x {c.client_gbps:g} Gb/s, {c.protection.label()}"
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
        "ceilings_IOPS": {r: (round(v) if v is not None else None) for r, v in env.ceilings.items()},
        "headroom": ", ".join(
            f"{r} +{100 * v:.0f} %" for r, v in head.items() if v is not None and v > 0.0005
        )
        or "-",
        "headroom_pct": {r: (round(100 * v, 1) if v is not None else None) for r, v in head.items()},
    }


def envelope_dict(c: Cluster, cases: tuple[Case, ...] = STANDARD_CASES) -> dict[str, Any]:
    k = constants()
    return {
        "cluster": c.name,
        "shape": shape(c),
        "cases": [case_dict(envelope(c, case, k)) for case in cases],
        "constants": {
            "net_efficiency": round(k.net_efficiency, 4),
            "message_overhead_bytes": k.message_overhead_bytes,
            "cpu_cycles": {n: (round(v, 3) if v is not None else None) for n, v in vars(k.cpu).items()},
        },
        "notes": [*c.notes, NOTE],
    }


def validation_records() -> list[dict[str, Any]]:
    from flashtune.envelope.validate import table

    return table()


def results_records(c: Cluster, csv: Path) -> list[dict[str, Any]]:
    import pandas as pd

    from flashtune.envelope.results import compare, measured_cases
    from flashtune.errors import FlashtuneError
    from flashtune.fileio import read_text
    from flashtune.ingest.schema import DTYPES

    text = read_text(csv)
    try:
        from io import StringIO

        df = pd.read_csv(StringIO(text), dtype={k: v for k, v in DTYPES.items()})
    except (ValueError, pd.errors.ParserError) as e:
        raise FlashtuneError(
            f"not a `flashtune ingest` CSV: {e}",
            file=str(csv),
            suggestion="write it with `flashtune ingest FILES --out results.csv`",
        ) from None
    out = []
    for comp in compare(c, constants(), measured_cases(df)):
        rec = comp.record()
        rec["sentence"] = comp.sentence()
        out.append(rec)
    return out

"""A reader's measured results (the tidy rows of `flashtune ingest`) against the envelope of their hardware.

Summary rows (no time_s) with metric iops or bandwidth and stat mean are grouped per run (a CBT run id, or
else the source file), workload and block size; the directions' IOPS add up (so do the clients of a CBT
run), and their ratio gives the read share of the case the envelope is computed for.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from flashtune.envelope.ceilings import RESOURCES, Case, Cluster, Constants, Envelope, envelope
from flashtune.errors import FlashtuneError


@dataclass(frozen=True)
class Measured:
    group: str  # run id or source file
    workload: str
    block_size: int
    read_iops: float
    write_iops: float

    @property
    def iops(self) -> float:
        return self.read_iops + self.write_iops

    @property
    def case(self) -> Case:
        share = self.read_iops / self.iops if self.iops else 1.0
        # a size that is not a whole KiB in bytes: 512 read '0k' and 1536 '1k'
        size = f"{self.block_size // 1024}k" if self.block_size % 1024 == 0 else f"{self.block_size}B"
        return Case(f"{self.workload} {size}", self.block_size, round(share, 3))


def _pct(share: float) -> str:
    return f"{100 * share:.1f}" if share < 0.1 else f"{100 * share:.0f}"


@dataclass(frozen=True)
class Comparison:
    measured: Measured
    envelope: Envelope

    @property
    def of_limit(self) -> float:
        """measured / predicted ceiling."""
        return self.measured.iops / self.envelope.iops

    def sentence(self) -> str:
        env, m = self.envelope, self.measured
        shares = env.share(m.iops)
        parts = [f"{r} {_pct(v)} %" for r in RESOURCES if (v := shares.get(r)) is not None]
        return (
            f"{m.case.name} reached {_pct(self.of_limit)} % of the {env.bottleneck} ceiling "
            f"({m.iops:,.0f} of {env.iops:,.0f} IOPS; share of each ceiling: {', '.join(parts)})"
        )

    def record(self) -> dict[str, object]:
        env, m = self.envelope, self.measured
        out: dict[str, object] = {
            "group": m.group,
            "workload": m.workload,
            "block_size_bytes": m.block_size,
            "read_fraction": m.case.read_fraction,
            "measured_IOPS": round(m.iops, 1),
            "measured_MB_s": round(m.iops * m.block_size / 1e6, 1),
            "predicted_IOPS": round(env.iops, 1),
            "predicted_MB_s": round(env.mb_s, 1),
            "of_ceiling_pct": round(100 * self.of_limit, 1),
            "likely_limit": env.bottleneck,
            "likely_limit_resources": list(env.limit),
        }
        for r, v in env.share(m.iops).items():
            out[f"{r.replace(' ', '_')}_pct"] = round(100 * v, 1) if v is not None else None
        return out


def measured_cases(df: pd.DataFrame) -> list[Measured]:
    """Group a tidy ingest frame into measured cases (see the module docstring)."""
    need = {"metric", "stat", "op", "value", "block_size_bytes", "workload", "source"}
    missing = need - set(df.columns)
    if missing:
        raise FlashtuneError(
            f"results have no column {', '.join(sorted(missing))}",
            suggestion="pass the CSV written by `flashtune ingest --out results.csv`",
        )
    rows = df[(df["metric"] == "iops") & (df["stat"] == "mean") & df["op"].isin(["read", "write"])]
    if "time_s" in rows.columns:
        rows = rows[rows["time_s"].isna()]
    rows = rows[rows["block_size_bytes"].notna() & (rows["value"] > 0)]
    out = []
    run = rows["run"].fillna("") if "run" in rows.columns else rows["source"].map(lambda _: "")
    group = run.where(run != "", rows["source"])
    for (g, wl, bs), part in rows.groupby(
        [group, rows["workload"].fillna(""), rows["block_size_bytes"]], sort=True
    ):
        r = float(part.loc[part["op"] == "read", "value"].sum())
        w = float(part.loc[part["op"] == "write", "value"].sum())
        out.append(Measured(str(g), str(wl), int(bs), r, w))
    if not out:
        raise FlashtuneError(
            "the results hold no IOPS summary rows with a block size",
            suggestion="ingest fio JSON, CBT archives or rados bench output",
        )
    return out


def compare(c: Cluster, k: Constants, measured: list[Measured]) -> list[Comparison]:
    return [Comparison(m, envelope(c, m.case, k)) for m in measured]

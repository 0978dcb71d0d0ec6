"""A prove run's outputs: results.csv (the tidy ingest schema), report.md and chart.svg.

Every sample is the benchmark tool's own output under raw/, read with flashtune.ingest (the same parsers as
`flashtune ingest`); the run column of results.csv says which case, arm and repetition a row belongs to
(`rbd-randread-4k/B2`). The figure compared is the tool's mean IOPS of the probe's direction.
"""

from __future__ import annotations

import html
import statistics
import time
from dataclasses import dataclass
from typing import Any

from flashtune.errors import FlashtuneError
from flashtune.fileio import write_atomic
from flashtune.prove import arms, cbtcases
from flashtune.prove.run import Run
from flashtune.prove.stats import Comparison, compare, format_gain

LAB_NOTE = (
    "These figures come from `flashtune prove --lab`: a throwaway single-node cluster whose OSDs are sparse "
    "files on one disk of one shared machine, talking over loopback. They show that the loop works (the arms "
    "alternate, samples are real tool output, the config database is restored); they say nothing about what "
    "the compiled settings do on real hardware."
)


@dataclass(frozen=True)
class CaseResult:
    case: str
    a: list[float]
    b: list[float]
    comparison: Comparison | None  # None: fewer than 2 samples in an arm


def sample_frames(run: Run) -> Any:
    """Every sample's rows in the tidy schema (pandas; `flashtune[ingest]`), run = case/armN."""
    import pandas as pd

    from flashtune.ingest import load
    from flashtune.ingest.schema import conform

    if run.cbt is not None:
        return conform_frames(cbt_frames(run))
    frames = []
    for s in run.samples:
        df = load(run.options.out / s.file)
        df["run"] = f"{s.case}/{s.arm}{s.index}"
        df["source"] = s.file
        frames.append(df)
    if not frames:
        from flashtune.ingest.schema import empty_frame

        return empty_frame()
    return conform(pd.concat(frames, ignore_index=True))


def conform_frames(frames: list[Any]) -> Any:
    import pandas as pd

    from flashtune.ingest.schema import conform, empty_frame

    return conform(pd.concat(frames, ignore_index=True)) if frames else empty_frame()


def cbt_frames(run: Run) -> list[Any]:
    """Each arm run's CBT archive in the tidy schema, the run column `case/<arm><round>/<CBT iteration>`."""
    assert run.cbt is not None
    frames = []
    for rel, (k, arm, index) in run.cbt_archives.items():
        archive = run.options.out / rel
        cached = run.cbt_frames.get(rel)
        df = cached.copy() if cached is not None else cbtcases.archive_frame(archive)
        cases = cbtcases.run_cases(archive, run.cbt.runs[k])
        df["run"] = [
            f"{cases[r][0]}/{arm}{index}/{cases[r][1]}" if r in cases else f"{arm}{index}/{r}"
            for r in df["run"]
        ]
        frames.append(df)
    return frames


def measured_iops(frame: Any, run: Run) -> dict[tuple[str, str], list[float]]:
    """(case, arm) -> the mean IOPS of each sample, in sample order."""
    if run.cbt is not None:  # one sample per arm run: its iterations folded (cbtcases.arm_sample)
        return cbtcases.samples_by_arm(run.cbt_iterations)
    ops = {p.name: p.op for p in run.cases}
    out: dict[tuple[str, str], list[float]] = {}
    for s in run.samples:
        rows = frame[
            (frame["run"] == f"{s.case}/{s.arm}{s.index}")
            & (frame["metric"] == "iops")
            & (frame["stat"] == "mean")
            & frame["time_s"].isna()
            & (frame["op"] == ops[s.case])
        ]
        if rows.empty:
            raise FlashtuneError(
                f"no mean IOPS for {s.case} in the tool's output", file=str(run.options.out / s.file)
            )
        out.setdefault((s.case, s.arm), []).append(float(rows["value"].iloc[0]))
    return out


def results(run: Run, iops: dict[tuple[str, str], list[float]]) -> list[CaseResult]:
    out: list[CaseResult] = []
    for name in run.case_names:
        a, b = iops.get((name, "A"), []), iops.get((name, "B"), [])
        comp = compare(a, b, seed=len(out)) if len(a) >= 2 and len(b) >= 2 else None
        out.append(CaseResult(name, a, b, comp))
    return out


def _fmt(v: float) -> str:
    return f"{v:,.0f}" if v >= 100 else f"{v:,.1f}"


def s3_table(frame: Any, run: Run) -> str:
    """The S3 probes' other figures: per case and arm the medians of MiB/s and of the p50 and p99 latency over
    the samples, and the requests each gateway served over all samples (every gateway must carry load)."""
    s3_cases = [p for p in run.cases if p.needs_s3]
    if not s3_cases or frame.empty:
        return ""
    out = [
        "\n## S3 probes\n\n| case | arm | median MiB/s | median p50 latency (ms) | median p99 latency (ms) |\n"
        "|---|---|---|---|---|\n"
    ]
    total = frame[frame["test"].isin([p.name for p in s3_cases]) & frame["time_s"].isna()]
    for p in s3_cases:
        for arm in "AB":
            runs = [f"{s.case}/{s.arm}{s.index}" for s in run.samples if s.case == p.name and s.arm == arm]
            mine = total[total["run"].isin(runs) & (total["test"] == p.name)]

            def median(metric: str, stat: str, mine: Any = mine) -> str:
                v = mine[(mine["metric"] == metric) & (mine["stat"] == stat)]["value"]
                return _fmt(float(v.median())) if len(v) else "-"

            out.append(
                f"| {p.name} | {arm} | {median('bandwidth', 'mean')} | {median('latency', 'p50')} | "
                f"{median('latency', 'p99')} |\n"
            )
    served = frame[
        frame["test"].isin([g.url for g in run.gateways])
        & (frame["metric"] == "ops")
        & (frame["stat"] == "sum")
    ]
    out.append("\nRequests served per gateway (all S3 samples, both arms):\n\n| gateway | URL | requests |\n")
    out.append("|---|---|---|\n")
    for g in run.gateways:
        n = served[served["test"] == g.url]["value"].sum()
        out.append(f"| {g.name} | {g.url} | {int(n):,} |\n")
    return "".join(out)


def markdown(run: Run, cases: list[CaseResult], extra: str = "") -> str:
    o = run.options
    out = ["# flashtune prove report\n\n"]
    if o.lab:
        out.append(f"> **Lab run.** {LAB_NOTE}\n\n")
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(run.started or time.time()))
    out.append(
        f"Cluster: {run.version}; health before: {run.health.get('status')}. Run: {when}, "
        f"{(run.finished - run.started) / 60:.1f} min. Compiled config: {run.compiled_from}.\n\n"
        f"Arm A is the cluster as it was; arm B adds the compiled central config ({len(run.applied)} "
        f"`ceph config set` lines, below). The arms alternated A B A B ... ({o.repeat} rounds); "
    )
    if run.cbt is not None:
        out.append(
            "in each arm every case ran once through CBT (the compiled plan's cases, fio's ramp as the same "
            "warm-up in every arm), on the same pool and RBD images (written once, in the first arm).\n\n"
        )
    else:
        out.append(
            f"in each arm every case had the same {o.warmup} s warm-up and then one {o.seconds} s sample, on "
            "the same pool and data (written once before the first sample).\n\n"
        )
    if run.interrupted:
        out.append(f"**The benchmark did not finish: {run.interrupted}.**\n\n")
    out.append(
        "| case | A median IOPS | B median IOPS | gain of B (95 % CI) | verdict | samples A / B | "
        "predicted ceiling (IOPS, limited by) |\n|---|---|---|---|---|---|---|\n"
    )
    for c in cases:
        pred = run.predicted.get(c.case)
        pred_text = f"{pred['predicted_IOPS']:,} ({pred['limit']})" if pred else "-"
        if c.comparison is None:
            out.append(
                f"| {c.case} | - | - | too few samples | - | {len(c.a)} / {len(c.b)} | {pred_text} |\n"
            )
            continue
        k = c.comparison
        out.append(
            f"| {c.case} | {_fmt(k.median_a)} | {_fmt(k.median_b)} | {format_gain(k)} | **{k.verdict}** | "
            f"{k.n_a} / {k.n_b} | {pred_text} |\n"
        )
    out.append(
        "\nThe gain is median(B) / median(A) - 1; its 95 % interval is a bootstrap-t interval of the log "
        "ratio (2000 resamples of each arm, Student's t). A gain whose interval includes zero is reported as "
        "no detectable difference, whatever its sign.\n"
    )
    if run.predicted:
        out.append(
            f"\nPredicted ceilings: `flashtune.envelope` for the compiled hardware ({run.envelope_cluster}), "
            "the most that hardware could do in each case; they describe the compiled hardware, not this "
            "cluster" + (" (the lab is not that hardware)" if o.lab else "") + ".\n"
        )
    out.append("\n![A and B samples per case](chart.svg)\n\n## Samples (IOPS, in run order)\n\n")
    out.append("| case | arm A | arm B |\n|---|---|---|\n")
    for c in cases:
        out.append(f"| {c.case} | {', '.join(_fmt(v) for v in c.a)} | {', '.join(_fmt(v) for v in c.b)} |\n")
    if run.cbt is not None:
        out.append(_cbt_section(run))
    else:
        probes_by = {p.name: p for p in run.cases}
        out.append("\nProbes: " + "; ".join(f"`{p}`: {probes_by[p].note}" for p in probes_by) + ".\n")
    out += [f"\nNote: {n}.\n" for n in run.method_notes + run.envelope_notes]
    out.append(extra)
    out.append(_settings_section(run))
    out.append(_restore_section(run))
    return "".join(out)


def _settings_section(run: Run) -> str:
    """What arm B changed, and each compiled setting it did not apply with the reason."""
    out: list[str] = []
    out.append(
        "\n## Settings that differed between the arms\n\n| who | key | arm A | arm B |\n|---|---|---|---|\n"
    )
    for s in run.applied:
        out.append(
            f"| {s.target} | `{s.key}` | {s.current if s.current is not None else '(default)'} | {s.value} |\n"
        )
    left = [s for s in run.settings if s not in run.applied]
    if left:
        out.append(
            "\nCompiled settings not in arm B:\n\n| who | key | compiled | why not |\n|---|---|---|---|\n"
        )
        for s in left:
            why = {
                arms.SAME: "already set: the same in both arms",
                arms.UNKNOWN: "**not applied**: the running release has no such option",
                arms.CREATE: "read only when an OSD is created",
                arms.RESTART: s.note,
            }.get(s.status, s.note)
            if (s.target, s.key) in run.refused:
                why = f"**refused by Ceph**: {run.refused[(s.target, s.key)]}"
            elif s.status == arms.RESTART and run.restarts_allowed:
                why = "read only at daemon start"

            out.append(f"| {s.target} | `{s.key}` | {s.value} | {why} |\n")
    out += [f"\nNote: {n}.\n" for n in run.shadow_notes]
    return "".join(out)


def _restore_section(run: Run) -> str:
    """How the cluster was put back (or how to, if the run has not been restored)."""
    out: list[str] = []
    out.append("\n## Restore\n\n")
    r = run.restored
    if r is None:
        out.append("Not restored yet: run `flashtune prove --restore` on this folder.\n")
    else:
        out.append(
            f"{r.summary()}. Before: `config-before.json`; after: `config-after.json`; every change is in "
            "`journal.jsonl`.\n"
        )
        if run.restarted_after_restore:
            out.append(
                "\nThe daemons were restarted once more after the restore, so they run with the restored "
                "start-time settings again.\n"
            )
    return "".join(out)


def _cbt_section(run: Run) -> str:
    """The CBT cases (plan file, what each answers) and, per arm run, the values its sample was made from."""
    assert run.cbt is not None
    out = ["\n## CBT cases\n\n| case | plan | what it answers |\n|---|---|---|\n"]
    for c in run.cbt.cases:
        out.append(f"| {c.name} | {c.plan} | {c.note or '-'} |\n")
    out.append(
        "\n### How each sample was formed\n\nPer arm run (one CBT run per plan file and arm): the IOPS of "
        "each CBT iteration (fio's read + write IOPS summed over every job, volume and client), and the one "
        "sample taken from them (their median).\n\n| case | arm run | CBT iterations (IOPS) | sample |\n"
        "|---|---|---|---|\n"
    )
    for (case, arm, index), values in run.cbt_iterations.items():
        out.append(
            f"| {case} | {arm}{index} | {', '.join(_fmt(v) for v in values)} | "
            f"{_fmt(cbtcases.arm_sample(values))} |\n"
        )
    return "".join(out)


# ---- chart -----------------------------------------------------------------------------------------------
COLORS = {"A": "#4c78a8", "B": "#f58518"}


def svg(cases: list[CaseResult]) -> str:
    """Per case one panel: each sample a dot, each arm's median a bar; each panel has its own IOPS scale."""
    width, left, right, row = 760, 210, 30, 64
    height = 40 + row * len(cases) + 30
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">\n',
        f'<rect width="{width}" height="{height}" fill="white"/>\n',
        '<text x="10" y="20" font-size="14">IOPS per sample: arm A (cluster as it was) vs arm B (compiled)</text>\n',
    ]
    for i, c in enumerate(cases):
        y0 = 40 + i * row
        values = c.a + c.b
        if not values:
            continue
        lo, hi = min(values), max(values)
        pad = (hi - lo) * 0.1 or hi * 0.05 or 1.0
        lo, hi = max(0.0, lo - pad), hi + pad

        def x(v: float, lo: float = lo, hi: float = hi) -> float:
            return left + (v - lo) / (hi - lo) * (width - left - right)

        parts.append(f'<text x="10" y="{y0 + 22}">{html.escape(c.case)}</text>\n')
        if c.comparison:
            parts.append(
                f'<text x="10" y="{y0 + 38}" fill="#555">{html.escape(c.comparison.verdict)}</text>\n'
            )
        parts.append(
            f'<line x1="{left}" y1="{y0 + 48}" x2="{width - right}" y2="{y0 + 48}" stroke="#999"/>\n'
            f'<text x="{left}" y="{y0 + 60}" fill="#555" font-size="10">{_fmt(lo)}</text>\n'
            f'<text x="{width - right}" y="{y0 + 60}" fill="#555" font-size="10" text-anchor="end">{_fmt(hi)}</text>\n'
        )
        for arm, vals, dy in (("A", c.a, 16), ("B", c.b, 34)):
            for v in vals:
                parts.append(
                    f'<circle cx="{x(v):.1f}" cy="{y0 + dy}" r="4" fill="{COLORS[arm]}" fill-opacity="0.8">'
                    f"<title>{arm}: {v:.1f} IOPS</title></circle>\n"
                )
            if vals:
                m = statistics.median(vals)
                parts.append(
                    f'<line x1="{x(m):.1f}" y1="{y0 + dy - 8}" x2="{x(m):.1f}" y2="{y0 + dy + 8}" '
                    f'stroke="{COLORS[arm]}" stroke-width="3"/>\n'
                    f'<text x="{left - 8}" y="{y0 + dy + 4}" text-anchor="end" fill="{COLORS[arm]}">{arm}</text>\n'
                )
    parts.append(
        f'<text x="10" y="{height - 10}" fill="#555" font-size="10">dots: samples; bars: medians; '
        "each row has its own scale</text>\n</svg>\n"
    )
    return "".join(parts)


def write(run: Run) -> list[CaseResult]:
    """results.csv, report.md and chart.svg in the run's output folder (prove owns that folder and has
    already refused one it may not reuse, hence force; atomic, so an interrupted write leaves the old file)."""
    frame = sample_frames(run)
    out = run.options.out
    write_atomic(out / "results.csv", frame.to_csv(index=False), force=True)
    cases = results(run, measured_iops(frame, run)) if run.samples else results(run, {})
    write_atomic(out / "chart.svg", svg(cases), force=True)
    write_atomic(out / "report.md", markdown(run, cases, s3_table(frame, run)), force=True)
    return cases

"""fio's terse output (`--minimal`, `--output-format=terse`, `--terse-version=2..5`): one `;`-separated
line per job, read into the JSON layout and then through fio.py's row builder.

The layout, from fio's HOWTO ("Terse output") and stat.c (show_thread_status_terse_all,
show_ddir_status_terse), the same since fio 2.0:
* head: v2 `2;jobname;groupid;error`; v3-v5 `V;fio-X.Y;jobname;groupid;error`.
* per direction (READ, WRITE; TRIM too in v2, v4 and v5): io KiB, bw KiB/s, IOPS, runtime ms; slat, clat
  min/max/mean/stdev in µs; 20 completion-latency percentiles `P%=µs` (`0%=0` fills unused slots); total
  latency min/max/mean/stdev µs; bw min/max/`agg%`/mean/stdev KiB/s; v5 adds bw samples and IOPS
  min/max/mean/stdev/samples.
* then CPU (`usr%;sys%;ctx;majf;minf`), I/O depth and latency distributions, disk utilisation, errors.
Percentiles are of total latency instead when the job set lat_percentiles (the line cannot say so).
With unified_rw_reporting=1 there is one direction block (`mixed`), told by the CPU's `%` fields after it.
In client/server mode the disk utilisation comes on its own `;disk;...` line and a line may follow
the status line's text (`Jobs: 4 (f=4)3;fio-3.33;...`): both are handled.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pandas as pd

from flashtune.ingest.common import as_float, bad_input, note, read_output, results_frame
from flashtune.ingest.fio import fio_version, report_rows

# a v3-v5 record starts at `V;fio-`; a v2 record is a line `2;name;gid;err;` with numbers after
_RECORD = re.compile(r"(?:^|(?<=[^\d;.]))(?P<ver>[345]);(?P<fio>fio-[^;\n]*);", re.M)
_RECORD_V2 = re.compile(r"^2;[^;\n]*;\d+;-?\d+;\d+;\d+;\d+;\d+;", re.M)
DDIR_FIELDS = 41  # io, bw, iops, runtime, slat x4, clat x4, 20 percentiles, lat x4, bw x5
V5_EXTRA = 6  # bw samples, iops min/max/mean/stdev/samples
CPU_FIELDS = 5
DIST_FIELDS = 7 + 10 + 12  # I/O depths, µs and ms latency buckets


def looks_like(text: str) -> bool:
    """A terse record with enough fields to be one (a prose mention of `3;fio-3.33;...` is not)."""
    return any(n >= MIN_FIELDS for _no, _ver, rec in _records(text) if (n := rec.count(";") + 1))


MIN_FIELDS = 40  # a whole line has 121-189; fewer than this is prose or a line cut too short to tell


def _ddirs(ver: int) -> tuple[str, ...]:
    return ("read", "write") if ver == 3 else ("read", "write", "trim")


def _lat(fields: list[str]) -> dict[str, Any]:
    lo, hi, mean, dev = (as_float(f) for f in fields)
    seen = any(v for v in (lo, hi, mean, dev))
    return {"min": lo, "max": hi, "mean": mean, "stddev": dev, "N": 1 if seen else 0}


def _ddir(fields: list[str], ver: int) -> dict[str, Any]:
    io_kib, bw, iops, runtime = (as_float(f) for f in fields[:4])
    pct: dict[str, float] = {}
    for f in fields[12:32]:
        key, _, val = f.partition("=")
        p, v = as_float(key.rstrip("%")), as_float(val)
        if p and v is not None:
            pct[f"{p:f}"] = v
    clat = _lat(fields[8:12])
    clat["percentile"] = pct
    out: dict[str, Any] = {
        "io_bytes": io_kib,
        "total_ios": 1 if (io_kib or runtime) else 0,
        "bw": bw,
        "iops": iops,
        "runtime": runtime,
        "slat": _lat(fields[4:8]),
        "clat": clat,
        "lat": _lat(fields[32:36]),
        "bw_min": as_float(fields[36]),
        "bw_max": as_float(fields[37]),
        "bw_dev": as_float(fields[40]),
    }
    if ver == 5:
        out.update(
            iops_min=as_float(fields[42]), iops_max=as_float(fields[43]), iops_stddev=as_float(fields[45])
        )
    return out


def _records(text: str) -> list[tuple[int, int, str]]:
    """(line number, terse version, record text) for each job record, in order."""
    out = []
    for no, line in enumerate(text.splitlines(), start=1):
        m = _RECORD.search(line)
        if m:
            out.append((no, int(m.group("ver")), line[m.start() :]))
        elif _RECORD_V2.match(line):
            out.append((no, 2, line))
    return out


def parse(path: Path) -> pd.DataFrame:
    text = read_output(path)
    records = _records(text)
    if not records:
        raise bad_input(
            path,
            "no fio terse (--minimal) line found",
            line=1,
            hint="a terse line starts `3;fio-3.x;jobname;` (v2: `2;jobname;`)",
        )
    jobs: list[dict[str, Any]] = []
    version = ""
    for no, ver, rec in records:
        fields = rec.rstrip("\r").split(";")
        head = 4 if ver == 2 else 5
        per_ddir = DDIR_FIELDS + (V5_EXTRA if ver == 5 else 0)
        ddirs = _ddirs(ver)
        cpu_at = head + per_ddir
        if len(fields) > cpu_at + 1 and fields[cpu_at].endswith("%") and fields[cpu_at + 1].endswith("%"):
            ddirs = (
                "mixed",
            )  # unified_rw_reporting: one block for all directions, then the CPU's `usr%;sys%`
        need = head + per_ddir * len(ddirs) + CPU_FIELDS + DIST_FIELDS
        if len(fields) < need:
            raise bad_input(
                path,
                f"fio terse v{ver} line has {len(fields)} fields, fewer than the {need} of its layout (cut off?)",
                line=no,
                hint="re-run fio and keep the whole line",
            )
        if ver != 2:
            version = version or fields[1]
        name = fields[head - 3]
        job: dict[str, Any] = {"jobname": name, "groupid": fields[head - 2], "error": fields[head - 1]}
        at = head
        for d in ddirs:
            job[d] = _ddir(fields[at : at + per_ddir], ver)
            at += per_ddir
        job["usr_cpu"] = as_float(fields[at].rstrip("%"))
        job["sys_cpu"] = as_float(fields[at + 1].rstrip("%"))
        jobs.append(job)
    jobs, interim = _final_reports(jobs)
    if interim:
        note(path, f"{interim} interim --status-interval record(s) skipped: each job's last report is read")
    doc = {"fio version": version, "jobs": jobs}
    got = fio_version(version)
    rows, _plus = report_rows(
        path,
        doc,
        records[0][0],
        io_unit=(1024.0, "stated: terse format (KiB)"),
        lat_basis=f"stated: terse format (µs){f', fio-{got[0]}.{got[1]}' if got else ''}",
    )
    return results_frame(
        path,
        rows,
        f"fio-terse-v{records[0][1]}",
        line=records[0][0],
        problem="fio terse output holds no job that did any I/O",
        hint="the run failed before doing I/O: fix the job file and re-run",
    )


def _longest_runtime(job: dict[str, Any]) -> float:
    return max(
        [
            as_float(st.get("runtime")) or 0.0
            for d in ("read", "write", "trim", "mixed")
            if isinstance(st := job.get(d), dict)
        ]
        or [0.0]
    )


def _final_reports(jobs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """`--status-interval` repeats every job's record each interval, each covering the run so far; terse
    records carry no pid or time, so the pattern tells: the same block of jobs repeated at least three
    times, its longest runtime growing by a steady step (the interval, >= 100 ms) up to the last report
    (which comes when the run ends, so its step may be shorter). Then only the last block is the run.
    numjobs clones share a name but not a growing runtime, nor do runs of one length appended to a file."""
    keys = [(j["jobname"], j["groupid"]) for j in jobs]
    for period in range(1, len(jobs) // 3 + 1):
        if len(jobs) % period or keys != keys[:period] * (len(jobs) // period):
            continue
        tops = [max(_longest_runtime(j) for j in jobs[k : k + period]) for k in range(0, len(jobs), period)]
        steps = [b - a for a, b in itertools.pairwise(tops)]
        inner = steps[:-1]
        if min(inner) >= 100.0 and max(inner) <= 1.1 * min(inner) and 0 < steps[-1] <= 1.1 * max(inner):
            return jobs[-period:], len(jobs) - period
    return jobs, 0

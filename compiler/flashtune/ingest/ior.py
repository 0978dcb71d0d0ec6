"""IOR text output (IOR 2.10.x, the version the 2014 Lustre study ran, and IOR 3.x / 4.x).

There is no IOR binary in Debian, so the formats were taken from IOR's own printf calls (IOR 2.10.3
`ShowSetup`/`SummarizeResults` in src/C/IOR.c; hpc/ior 3.x `ior-output.c`) and from published runs:
* 2.10: a `Summary:` block of `\tkey = value` lines (`api = MPIIO (version=2, subversion=2)`,
  `access = file-per-process`, `clients = 16 (1 per node)`, `xfersize = 1 MiB`, `blocksize = 128 GiB`),
  then `Operation  Max (MiB)  Min (MiB)  Mean (MiB)   Std Dev  Max (OPs)  Min (OPs)  Mean (OPs)   Std Dev
  Mean (s)` and one `write`/`read` line per operation ending in `EXCEL`.
* 3.x/4.x: an `Options:` block of `key : value` lines (api, access, nodes, tasks, clients per node,
  xfersize `262144 bytes`, blocksize `1 MiB`), per-iteration `Results:` lines, and a final
  `Summary of all tests:` table: `Operation Max(MiB) Min(MiB) Mean(MiB) StdDev Max(OPs) Min(OPs) Mean(OPs)
  StdDev Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt
  blksiz xsize aggs(MiB) API RefNum`.
IOR's MiB are 2^20 bytes, which is the schema's bandwidth unit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from flashtune import userjson
from flashtune.ingest.common import (
    as_float,
    as_int,
    bad_input,
    last_line,
    line_of_offset,
    parse_size,
    read_tool_output,
    results_frame,
)

_OPS = ("write", "read")
_BANNER = re.compile(r"^IOR-(\d+)\.(\d+)[^:\n]*: MPI Coordinated Test", re.M)
_MAX_LINE = re.compile(r"^Max (Write|Read):\s*([\d.]+) MiB/sec", re.M)
# summary-table column -> (metric, stat, factor); StdDev is bandwidth's or IOPS's by the column before it
_SUMMARY_COLS: dict[str, tuple[str, str, float]] = {
    "Max(MiB)": ("bandwidth", "max", 1.0),
    "Min(MiB)": ("bandwidth", "min", 1.0),
    "Mean(MiB)": ("bandwidth", "mean", 1.0),
    "Max(OPs)": ("iops", "max", 1.0),
    "Min(OPs)": ("iops", "min", 1.0),
    "Mean(OPs)": ("iops", "mean", 1.0),
    "Mean(s)": ("runtime", "mean", 1.0),
    "aggs(MiB)": ("io", "sum", 1.0),
    "aggsize": ("io", "sum", 1 / 2**20),
}
# per-iteration `Results:` table column -> (metric, factor)
_RESULT_COLS: dict[str, tuple[str, float]] = {
    "bw(MiB/s)": ("bandwidth", 1.0),
    "IOPS": ("iops", 1.0),
    "Latency(s)": ("latency", 1000.0),
    "total(s)": ("runtime", 1.0),
}


# IOR's first line (`IOR-3.2.0: MPI Coordinated Test of Parallel I/O`), wherever a preamble puts it
BANNER_LINE = re.compile(r"^IOR-\d+\.\d+\S*: MPI Coordinated Test", re.M)


_IOR_WORD = re.compile(r"IOR-\d")


def looks_like(text: str) -> bool:
    head = text[:50000]
    return (
        bool(_IOR_WORD.search(head))
        or bool(BANNER_LINE.search(text))
        or "Summary of all tests:" in text
        or "Max (MiB)  Min (MiB)" in text
        or _is_json(text)
    )


_JSON_LIST = re.compile(r'^\s*"(?:summary|tests)"\s*:\s*\[', re.M)


def _is_json(text: str) -> bool:
    """IOR's `-O summaryFormat=JSON` output: `"tests"` with `"Results"`, and/or a `"summary"` list."""
    return bool(_JSON_LIST.search(text)) and ('"bwMaxMIB"' in text or '"bwMiB"' in text)


def parse(path: Path) -> pd.DataFrame:
    """Every run in the file (IOR run several times into one log: one banner each), each from its
    summary table by column names (3.0/3.1 have no OPs columns), else from its per-iteration Results
    lines (io500 runs print no summary), else from its `Max Write:` lines."""
    text = read_tool_output(path, looks_like, "IOR", "save the stdout of an IOR run to a file")
    if _is_json(text):
        return _parse_json(path, text)
    banners = list(_BANNER.finditer(text))
    starts = [m.start() for m in banners] or [0]
    if starts[0] != 0 and not text[: starts[0]].strip():
        starts[0] = 0
    rows: list[dict[str, Any]] = []
    majors = set()
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(text)
        m = banners[k] if banners else None
        major = int(m.group(1)) if m else (3 if "Summary of all tests:" in text else 2)
        majors.add(major)
        got = _parse_run(path, text, start, end)
        if len(starts) > 1:
            for r in got:
                r["run"] = str(k + 1)
        rows += got
    return results_frame(
        path,
        rows,
        f"ior-{max(majors)}",
        line=last_line(text),
        problem="IOR output without results (no summary table, no per-iteration results, no 'Max Write/Read' line)",
        hint="the run did not finish or the output is cut off; keep IOR's whole stdout",
    )


_SETUP_LINE = re.compile(r"^([A-Za-z#][\w #/-]*?)\s*(=|:)\s*(.*)$")


def _setup(chunk: str) -> dict[str, str]:
    """Key/value lines of the `Summary:` (2.x/3.0/3.1, `key = value`) and `Options:` (3.2+, `key : value`)
    blocks, plus `TestID : N`."""
    out: dict[str, str] = {}
    block = False
    for line in chunk.splitlines():
        s = line.strip()
        if s in ("Summary:", "Options:"):
            block = True
            continue
        if s.startswith(("Results:", "Operation")) or "bw(MiB/s)" in s or (block and not s and len(out) > 1):
            block = False
        m = _SETUP_LINE.match(s)
        if m and (block or m.group(1) == "TestID"):
            out.setdefault(m.group(1).strip().lower(), m.group(3).strip())
    return out


_SPACED_UNIT = re.compile(r"(\w+) \((\w+)\)")


def _norm_header(line: str) -> list[str]:
    line = _SPACED_UNIT.sub(r"\1(\2)", line)  # IOR 2.10: "Max (MiB)" -> "Max(MiB)"
    return line.replace("Std Dev", "StdDev").split()


_CLIENTS = re.compile(r"(\d+)\s*\((\d+) per node\)")


def _parse_run(path: Path, text: str, start: int, end: int) -> list[dict[str, Any]]:
    chunk = text[start:end]
    first_line = line_of_offset(text, start)
    setup = _setup(chunk)
    api = (setup.get("api") or "").split(" ")[0] or None
    tasks = as_int(setup.get("tasks"))
    per_node = as_int(setup.get("clients per node"))
    nodes = as_int(setup.get("nodes"))
    clients_m = _CLIENTS.match(setup.get("clients", ""))
    if clients_m:
        tasks, per_node = int(clients_m.group(1)), int(clients_m.group(2))
    if nodes is None and tasks and per_node:
        nodes = tasks // per_node
    test_id = setup.get("testid", "0")
    base: dict[str, Any] = {
        "tool": "ior",
        "test": f"test {test_id}",
        "interface": api,
        "threads": tasks,
        "clients": nodes,
        "iodepth": 1,
        "source": str(path),
        "block_size_bytes": parse_size(setup.get("xfersize", "")),
    }
    lines = chunk.splitlines()
    summary: list[dict[str, Any]] = []
    samples: list[dict[str, Any]] = []
    header: list[str] | None = None
    table: str | None = None
    for i, line in enumerate(lines):
        s = line.strip()
        cells = s.split()
        if not cells:
            continue
        if cells[0] == "access" and "bw(MiB/s)" in cells:
            header, table = cells, "results"
            continue
        if cells[0] == "Operation" and any(c.startswith("Max") for c in cells[1:]):
            header, table = _norm_header(s), "summary"
            continue
        if header is None or cells[0] not in _OPS:
            if table == "summary" and cells[0] not in ("remove", "stat", "create", "---------", "Operation"):
                header, table = None, None
            continue
        lineno = first_line + i
        if len(cells) < len(header) - 1:  # IOR 2.10 rows end in EXCEL; a short row is cut
            raise bad_input(
                path,
                f"IOR {table} line has {len(cells)} fields, its header {len(header)}",
                line=lineno,
                hint="the line is cut off; keep IOR's whole stdout",
            )
        named = dict(zip(header, cells, strict=False))
        row = dict(base, workload=cells[0], op=cells[0])
        if table == "summary":
            summary += _summary_rows(row, header, cells, path, lineno)
        else:
            xfer = as_float(named.get("xfer(KiB)"))
            if xfer:
                row["block_size_bytes"] = round(xfer * 1024)
            it = named.get("iter", "0")
            for col, (metric, factor) in _RESULT_COLS.items():
                v = as_float(named.get(col))
                if v is not None:
                    samples.append(
                        dict(
                            row,
                            test=f"test {test_id} iter {it}",
                            metric=metric,
                            stat="sample",
                            value=v * factor,
                        )
                    )
    if summary:
        return summary + samples
    if samples:
        return samples + _from_samples(samples, base)
    out = []
    for m in _MAX_LINE.finditer(chunk):
        op = m.group(1).lower()
        out.append(dict(base, workload=op, op=op, metric="bandwidth", stat="max", value=float(m.group(2))))
    return out


def _summary_rows(
    row: dict[str, Any], header: list[str], cells: list[str], path: Path, lineno: int
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    named: dict[str, str] = {}
    last_unit = "MiB"
    for name, cell in zip(header, cells, strict=False):
        if name == "StdDev":
            metric = "bandwidth" if last_unit == "MiB" else "iops"
            v = as_float(cell)
            if v is not None:
                out.append(dict(row, metric=metric, stat="stddev", value=v))
            continue
        if name.endswith("(MiB)"):
            last_unit = "MiB"
        elif name.endswith("(OPs)"):
            last_unit = "OPs"
        named[name] = cell
        spec = _SUMMARY_COLS.get(name)
        if spec:
            v = as_float(cell)
            if v is None and cell not in ("NA", "-"):
                raise bad_input(
                    path,
                    f"IOR summary value {cell!r} under {name} is not a number",
                    line=lineno,
                    hint="keep IOR's whole stdout, unedited",
                )
            if v is not None:
                out.append(dict(row, metric=spec[0], stat=spec[1], value=v * spec[2]))
    tasks, tpn = as_int(named.get("#Tasks")), as_int(named.get("tPN"))
    xsize = as_int(named.get("xsize"))
    for r in out:
        if tasks:
            r["threads"] = tasks
        if tasks and tpn:
            r["clients"] = tasks // tpn
        if xsize:
            r["block_size_bytes"] = xsize
        if named.get("API"):
            r["interface"] = named["API"]
        if named.get("Test#") is not None:
            r["test"] = f"test {named['Test#']}"
    return out


def _from_samples(samples: list[dict[str, Any]], base: dict[str, Any]) -> list[dict[str, Any]]:
    """IOR's own summary (max/min/mean over iterations) when it printed none (io500 runs)."""
    out: list[dict[str, Any]] = []
    for op in _OPS:
        for metric in ("bandwidth", "iops", "runtime"):
            vals = [r["value"] for r in samples if r["op"] == op and r["metric"] == metric]
            if not vals:
                continue
            row = next(r for r in samples if r["op"] == op and r["metric"] == metric)
            row = dict(row, test=base["test"])
            stats = (
                {"mean": sum(vals) / len(vals)}
                if metric == "runtime"
                else {"max": max(vals), "min": min(vals), "mean": sum(vals) / len(vals)}
            )
            out += [dict(row, stat=stat, value=v) for stat, v in stats.items()]
    return out


# IOR JSON (ior-output.c, outputFormat == OUTPUT_JSON): the summary keys of PrintLongSummaryOneOperation
# -> (metric, stat); MiB are 2^20 bytes, MeanTime seconds
_JSON_SUMMARY: dict[str, tuple[str, str]] = {
    "bwMaxMIB": ("bandwidth", "max"),
    "bwMinMIB": ("bandwidth", "min"),
    "bwMeanMIB": ("bandwidth", "mean"),
    "bwStdMIB": ("bandwidth", "stddev"),
    "OPsMax": ("iops", "max"),
    "OPsMin": ("iops", "min"),
    "OPsMean": ("iops", "mean"),
    "OPsSD": ("iops", "stddev"),
    "MeanTime": ("runtime", "mean"),
    "xsizeMiB": ("io", "sum"),
}
# per-iteration Results entries -> (metric, factor to the schema unit)
_JSON_RESULT: dict[str, tuple[str, float]] = {
    "bwMiB": ("bandwidth", 1.0),
    "iops": ("iops", 1.0),
    "latency": ("latency", 1000.0),
    "totalTime": ("runtime", 1.0),
}


def _finite(value: object) -> float | None:
    v = as_float(value)  # IOR writes an infinite value as a string ("inf")
    return v if v is not None and v == v and abs(v) != float("inf") else None


def _parse_json(path: Path, text: str) -> pd.DataFrame:
    """IOR's JSON: `tests[]` (each with `Parameters` and per-iteration `Results` lists) and `summary[]`
    (one entry per test and operation, IOR's max/min/mean/stddev over the iterations)."""

    start = text.find("{")
    userjson.check_size(text, file=str(path))
    try:
        doc, _ = userjson.decode(text, start, file=str(path))
    except json.JSONDecodeError as e:
        cut = e.pos >= len(text.rstrip()) - 1
        raise bad_input(
            path,
            "IOR JSON ends before the object is complete (truncated file?)"
            if cut
            else f"invalid IOR JSON: {e.msg}",
            line=line_of_offset(text, min(e.pos, len(text.rstrip()))),
            hint="keep IOR's whole output (-O summaryFormat=JSON -O summaryFile=FILE writes it alone)",
        ) from None
    if not isinstance(doc, dict):
        raise bad_input(path, "IOR JSON is not an object", line=line_of_offset(text, start))
    params: dict[int, dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    for test in doc.get("tests") or []:
        if not isinstance(test, dict):
            continue
        tid = as_int(test.get("TestID")) or 0
        got = test.get("Parameters")
        par: dict[str, Any] = got if isinstance(got, dict) else {}
        params[tid] = par
        base = _json_base(path, tid, par)
        for k, iteration in enumerate(test.get("Results") or []):
            for res in iteration if isinstance(iteration, list) else [iteration]:
                if not isinstance(res, dict) or res.get("access") not in _OPS:
                    continue
                op = str(res["access"])
                row = dict(base, workload=op, op=op, test=f"test {tid} iter {k}")
                xfer = _finite(res.get("xferKiB"))
                if xfer:
                    row["block_size_bytes"] = round(xfer * 1024)
                for key, (metric, factor) in _JSON_RESULT.items():
                    v = _finite(res.get(key))
                    if v is not None:
                        rows.append(dict(row, metric=metric, stat="sample", value=v * factor))
    summary = []
    for entry in doc.get("summary") or []:
        if not isinstance(entry, dict) or entry.get("operation") not in _OPS:
            continue
        tid = as_int(entry.get("TestID")) or 0
        base = _json_base(path, tid, params.get(tid, {}))
        op = str(entry["operation"])
        tasks, tpn = as_int(entry.get("numTasks")), as_int(entry.get("tasksPerNode"))
        row = dict(
            base,
            workload=op,
            op=op,
            interface=entry.get("API") or base["interface"],
            threads=tasks or base["threads"],
            clients=(tasks // tpn) if tasks and tpn else base["clients"],
            block_size_bytes=as_int(entry.get("transferSize")) or base["block_size_bytes"],
        )
        for key, (metric, stat) in _JSON_SUMMARY.items():
            v = _finite(entry.get(key))
            if v is not None:
                summary.append(dict(row, metric=metric, stat=stat, value=v))
    samples = rows
    if not summary and samples:
        summary = _from_samples(samples, _json_base(path, 0, params.get(0, {})))
    version = str(doc.get("Version", "")).strip()
    return results_frame(
        path,
        summary + samples,
        "ior-json",
        line=line_of_offset(text, start),
        problem=f"IOR JSON{f' (IOR {version})' if version else ''} without results (no summary, no Results)",
        hint="the run did not finish or the output is cut off; keep IOR's whole output",
    )


def _json_base(path: Path, tid: int, par: dict[str, Any]) -> dict[str, Any]:
    nodes = as_int(par.get("nodes"))
    per_node = as_int(par.get("tasksPerNode"))
    return {
        "tool": "ior",
        "test": f"test {tid}",
        "interface": par.get("api") or None,
        "threads": nodes * per_node if nodes and per_node else None,
        "clients": nodes,
        "iodepth": 1,
        "source": str(path),
        "block_size_bytes": as_int(par.get("transferSize")),
    }

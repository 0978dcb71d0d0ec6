"""IOzone text output: throughput mode (-t N, the Lustre study's `-s 16G -r 1m -t $COUNT -+m`) and the
auto-mode table (-a).

No IOzone binary is packaged in Debian main, so the format comes from IOzone's printf calls (iozone.c:
`"\\tChildren see throughput for %2lld initial writers \\t= %10.2f %s/sec"`, `Parent sees ...`,
`Min/Max/Avg throughput per process`, `Min xfer`; header lines `Record Size 1024 kB`, `File size set to
16777216 kB`, `Output is in kBytes/sec` or `operations per second`) and published runs.
* Throughput mode: test names are lower-cased with '_' for spaces ("initial_writers", "re-readers",
  "random_readers", "mixed_workload", ...), as the study's Table 1 names them. "Children see" is the
  aggregate over processes (stat `sum`); min/max/avg per process become `min`/`max`/`mean`.
* Auto mode: a right-aligned table `kB reclen write rewrite read reread read write read rewrite read fwrite
  frewrite fread freread` under a line naming `random random bkwd record stride`; columns of tests that
  were not run are blank, so values are matched to header columns by where they end.
IOzone's kB are 1024 bytes: kB/s / 1024 = MiB/s.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from flashtune.ingest.common import (
    bad_input,
    last_line,
    line_of_offset,
    parse_size,
    read_tool_output,
    results_frame,
)

_CHILDREN = re.compile(r"Children see throughput for\s+(\d+)\s+(.+?)\s*=\s*([\d.]+)\s*(kB|KB|ops)/sec", re.I)
_PER_PROC = re.compile(
    r"(Min|Max|Avg) throughput per (?:process|thread)\s*=\s*([\d.]+)\s*(kB|KB|ops)/sec", re.I
)


_AUTO_HEADER = re.compile(r"^\s*kB\s+reclen\s+write", re.I)  # IOzone 3.3xx prints "KB", 3.4xx "kB"
_REPORT_TITLE = re.compile(r'^"([A-Za-z][A-Za-z -]*?) report"\s*$')
# -R (Excel) report sections -> the auto-mode column names
_REPORTS = {
    "writer": "write",
    "re-writer": "rewrite",
    "reader": "read",
    "re-reader": "reread",
    "random read": "random_read",
    "random write": "random_write",
    "backward read": "bkwd_read",
    "record rewrite": "record_rewrite",
    "stride read": "stride_read",
    "fwrite": "fwrite",
    "re-fwrite": "frewrite",
    "fread": "fread",
    "re-fread": "freread",
}


_WRITER_REPORT = re.compile(r'^"Writer report"', re.M)


def looks_like(text: str) -> bool:
    head = text[:20000]
    return (
        "Iozone" in head
        or "Children see throughput" in text
        or any(_AUTO_HEADER.match(ln) for ln in head.splitlines())
        or bool(_WRITER_REPORT.search(text))
    )


def _op(test: str) -> str:
    if "mixed" in test:
        return "mixed"
    return "write" if "writ" in test else "read"


_RECORD_SIZE = re.compile(r"Record Size\s+(\d+)\s*(kB|KB)")


def parse(path: Path) -> pd.DataFrame:
    text = read_tool_output(path, looks_like, "IOzone", "save the stdout of an iozone run to a file")
    rec_m = _RECORD_SIZE.search(text)
    record = int(rec_m.group(1)) * 1024 if rec_m else None
    ops_mode = "Output is in operations per second" in text or "Output is in ops/sec" in text
    rows = _throughput(path, text, record, ops_mode)
    fmt = "iozone-throughput"
    if not rows:
        rows = _auto_table(path, text, ops_mode)
        fmt = "iozone-auto"
    if not rows:  # the -R report alone (the auto table, when printed too, holds the same numbers)
        rows = _excel_report(path, text, ops_mode)
        fmt = "iozone-report"
    return results_frame(
        path,
        rows,
        fmt,
        line=last_line(text),
        problem="IOzone output without results (no 'Children see throughput' lines, no kB/reclen table)",
        hint="the run did not finish or the output is cut off",
    )


_SPACES = re.compile(r"\s+")


def _throughput(path: Path, text: str, record: int | None, ops_mode: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    offset = 0
    for line in text.splitlines(keepends=True):
        lineno = line_of_offset(text, offset)
        offset += len(line)
        m = _CHILDREN.search(line)
        if m:
            procs, name, value, unit = int(m.group(1)), m.group(2), float(m.group(3)), m.group(4).lower()
            test = _SPACES.sub("_", name.strip().lower())
            metric = "iops" if unit == "ops" or ops_mode else "bandwidth"
            factor = 1.0 if metric == "iops" else 1 / 1024
            current = {
                "tool": "iozone",
                "test": test,
                "workload": test,
                "op": _op(test),
                "interface": "posix",
                "block_size_bytes": record,
                "threads": procs,
                "iodepth": 1,
                "source": str(path),
                "metric": metric,
                "_factor": factor,
            }
            rows.append(dict(current, stat="sum", value=value * factor))
            continue
        p = _PER_PROC.search(line)
        if p:
            if current is None:
                raise bad_input(
                    path,
                    "per-process throughput before any 'Children see throughput' line",
                    line=lineno,
                    hint="the output is out of order or cut; keep IOzone's whole stdout",
                )
            stat = {"min": "min", "max": "max", "avg": "mean"}[p.group(1).lower()]
            rows.append(dict(current, stat=stat, value=float(p.group(2)) * current["_factor"]))
    for r in rows:
        r.pop("_factor", None)
    return rows


# auto-mode column names, by (upper label, lower label)
_AUTO_NAMES = {
    ("", "write"): "write",
    ("", "rewrite"): "rewrite",
    ("", "read"): "read",
    ("", "reread"): "reread",
    ("random", "read"): "random_read",
    ("random", "write"): "random_write",
    ("bkwd", "read"): "bkwd_read",
    ("record", "rewrite"): "record_rewrite",
    ("stride", "read"): "stride_read",
    ("", "fwrite"): "fwrite",
    ("", "frewrite"): "frewrite",
    ("", "fread"): "fread",
    ("", "freread"): "freread",
}


_WORD = re.compile(r"\S+")


def _ends(line: str) -> list[tuple[int, str]]:
    return [(m.end(), m.group(0)) for m in _WORD.finditer(line)]


def _auto_table(path: Path, text: str, ops_mode: bool) -> list[dict[str, Any]]:
    lines = text.splitlines()
    rows: list[dict[str, Any]] = []
    for i, line in enumerate(lines):
        if not _AUTO_HEADER.match(line):
            continue
        upper = {end: word for end, word in _ends(lines[i - 1])} if i > 0 else {}
        columns: list[tuple[int, str]] = []
        for end, word in _ends(line):
            up = next((w for e, w in upper.items() if abs(e - end) <= 2), "")
            columns.append((end, _AUTO_NAMES.get((up, word), f"{up}_{word}".strip("_"))))
        for k in range(i + 1, len(lines)):
            data = lines[k]
            cells = _ends(data)
            if not cells or not all(w.isdigit() for _, w in cells):
                break
            values: dict[str, int] = {}
            for end, word in cells:
                best = min(columns, key=lambda c: abs(c[0] - end))
                if abs(best[0] - end) > 3:
                    raise bad_input(
                        path,
                        "IOzone table value does not line up with a column",
                        line=k + 1,
                        hint="keep the table's spacing as IOzone printed it",
                    )
                values[best[1]] = int(word)
            values = {("kB" if k == "KB" else k): v for k, v in values.items()}
            if "kB" not in values or "reclen" not in values:
                raise bad_input(path, "IOzone table row without file size and record length", line=k + 1)
            for name, v in values.items():
                if name in ("kB", "reclen"):
                    continue
                metric = "iops" if ops_mode else "bandwidth"
                rows.append(
                    {
                        "tool": "iozone",
                        "test": f"{values['kB']} kB file",
                        "workload": name,
                        "op": _op(name),
                        "interface": "posix",
                        "block_size_bytes": values["reclen"] * 1024,
                        "threads": 1,
                        "iodepth": 1,
                        "metric": metric,
                        "stat": "value",
                        "value": v if ops_mode else v / 1024,
                        "source": str(path),
                    }
                )
    return rows


_NOT_WORD = re.compile(r"\W+")
_QUOTED_NUMBER = re.compile(r'"(\d+)"')


def _excel_report(path: Path, text: str, ops_mode: bool) -> list[dict[str, Any]]:
    """IOzone -R: per test a `"Writer report"` title, a row of quoted record sizes (kB), then one row per
    file size (kB): `"64"   581273  743988 ...`, values for the record sizes from the smallest up."""
    rows: list[dict[str, Any]] = []
    lines = text.splitlines()
    stated = "Output is in" in text
    basis = (
        None
        if stated
        else "assumed: kB/s (IOzone's default; a -O run reports ops/s), the report states no unit"
    )
    for i, line in enumerate(lines):
        m = _REPORT_TITLE.match(line.strip())
        if not m or i + 1 >= len(lines):
            continue
        name = _REPORTS.get(m.group(1).strip().lower(), _NOT_WORD.sub("_", m.group(1).strip().lower()))
        recs = [int(x) for x in _QUOTED_NUMBER.findall(lines[i + 1])]
        if not recs:
            raise bad_input(
                path,
                "IOzone report title without its row of record sizes",
                line=i + 2,
                hint="keep the -R report as IOzone printed it",
            )
        for k in range(i + 2, len(lines)):
            cells = lines[k].split()
            if not cells or not _QUOTED_NUMBER.fullmatch(cells[0]):
                break
            size_kb = int(cells[0].strip('"'))
            vals = cells[1:]
            if len(vals) > len(recs) or not all(v.isdigit() for v in vals):
                raise bad_input(
                    path,
                    "IOzone report row does not match its record sizes",
                    line=k + 1,
                    hint="keep the -R report as IOzone printed it",
                )
            for rec, v in zip(recs, vals, strict=False):
                if int(v) == 0:
                    continue  # a record size IOzone did not run for this file size
                rows.append(
                    {
                        "tool": "iozone",
                        "test": f"{size_kb} kB file",
                        "workload": name,
                        "op": _op(name),
                        "interface": "posix",
                        "block_size_bytes": rec * 1024,
                        "threads": 1,
                        "iodepth": 1,
                        "metric": "iops" if ops_mode else "bandwidth",
                        "stat": "value",
                        "value": int(v) if ops_mode else int(v) / 1024,
                        "unit_basis": basis,
                        "source": str(path),
                    }
                )
    return rows


_FILE_SIZE = re.compile(r"File size set to\s+(\d+\s*kB)", re.I)


def file_size_bytes(text: str) -> int | None:
    m = _FILE_SIZE.search(text)
    return parse_size(m.group(1)) if m else None

"""sysbench 1.0.x output: the default text report, and the machine-readable Lua-hook variants.

sysbench 1.0.20 has no --output-format; what it prints (../shared/reference/mariadb-fio-sysctl.md 1.5):
* text: a banner with `Number of threads: N`, optional interval lines
  `[ 2s ] thds: 2 tps: 1864.40 qps: 37297.03 (r/w/o: 26109.62/7457.61/3729.80) lat (ms,95%): 1.61 err/s: 0.00 reconn/s: 0.00`,
  then `SQL statistics:` (queries read/write/other, `transactions: N (X per sec.)`, `ignored errors`,
  `reconnects`), `General statistics:` (`total time: 10.0049s`, `total number of events`) and
  `Latency (ms):` (min/avg/max/`95th percentile`/sum; the label follows --percentile).
* a wrapper script setting `sysbench.hooks.report_*` to print one JSON object per line
  (`{"type":"interval",...}` / `{"type":"total",...}`), or the built-in `sysbench.report_json`
  array of interval objects; both sit between the text banner and summary on stdout.
The test name is not printed, so the workload comes from the file name when it names a sysbench test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashtune.ingest.common import (
    as_float,
    as_int,
    bad_input,
    last_line,
    line_of_offset,
    read_tool_output,
    results_frame,
)
from flashtune.ingest.schema import percentile_stat

if TYPE_CHECKING:
    import pandas as pd

KNOWN_TESTS = ("oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select", "oltp_update_index",
               "oltp_update_non_index", "oltp_insert", "oltp_delete", "select_random_points",
               "select_random_ranges", "bulk_insert", "fileio", "cpu", "memory", "threads", "mutex")  # fmt: skip

_NUM = r"([0-9]+(?:\.[0-9]+)?)"
_INTERVAL = re.compile(
    rf"^\[\s*{_NUM}s\s*\]\s+thds:\s*(\d+)\s+tps:\s*{_NUM}\s+qps:\s*{_NUM}\s+\(r/w/o:\s*{_NUM}/{_NUM}/{_NUM}\)\s+"
    rf"lat\s+\(ms,\s*{_NUM}%\):\s*{_NUM}\s+err/s:\s*{_NUM}\s+reconn/s:\s*{_NUM}"
)


def looks_like(text: str) -> bool:
    return text.startswith("sysbench ") or "SQL statistics:" in text or '{"type":"interval"' in text


def _workload(path: Path, text: str) -> str:
    name = path.name.lower()
    for t in sorted(KNOWN_TESTS, key=len, reverse=True):
        if t in name:
            return t
    return "oltp" if "SQL statistics:" in text or '"qps"' in text else "sysbench"


def parse(path: Path) -> pd.DataFrame:
    text = read_tool_output(path, looks_like, "sysbench", "pass the stdout of `sysbench ... run` saved to a file")
    threads_m = re.search(r"^Number of threads:\s*(\d+)", text, re.M)
    threads = int(threads_m.group(1)) if threads_m else None
    base: dict[str, Any] = {"tool": "sysbench", "test": _workload(path, text), "workload": _workload(path, text),
                            "interface": "mysql" if ("SQL statistics:" in text or '"qps"' in text) else None,
                            "threads": threads, "source": str(path)}  # fmt: skip
    rows: list[dict[str, Any]] = []
    fmt = "sysbench-text"
    rows += _intervals_text(text, base)
    json_rows, json_fmt = _json_reports(path, text, base)
    if json_rows:
        rows += json_rows
        fmt = json_fmt
    rows += _summary_text(path, text, base)
    return results_frame(path, rows, fmt, line=last_line(text),
                         problem="sysbench output without results (no interval lines and no summary)",
                         hint="the run was cut short or failed: check its stderr; let it finish")  # fmt: skip


def _intervals_text(text: str, base: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for line in text.splitlines():
        m = _INTERVAL.match(line.strip())
        if not m:
            continue
        t, thds, tps, qps, r, w, o, pct, lat, err, rec = m.groups()
        row = dict(base, time_s=float(t), threads=int(thds))
        rows += [
            dict(row, op="total", metric="tps", stat="mean", value=float(tps)),
            dict(row, op="total", metric="qps", stat="mean", value=float(qps)),
            dict(row, op="read", metric="qps", stat="mean", value=float(r)),
            dict(row, op="write", metric="qps", stat="mean", value=float(w)),
            dict(row, op="other", metric="qps", stat="mean", value=float(o)),
            dict(row, op="total", metric="latency", stat=percentile_stat(float(pct)), value=float(lat)),
            dict(row, op="total", metric="errors", stat="mean", value=float(err)),
            dict(row, op="total", metric="reconnects", stat="mean", value=float(rec)),
        ]
    return rows


def _json_reports(path: Path, text: str, base: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    rows: list[dict[str, Any]] = []
    offset = 0
    lines_fmt = False
    for line in text.splitlines(keepends=True):
        s = line.strip()
        if s.startswith('{"type"'):
            lines_fmt = True
            try:
                obj = json.loads(s)
            except json.JSONDecodeError as e:
                raise bad_input(path, f"broken sysbench JSON line: {e.msg}", line=line_of_offset(text, offset),
                                hint="a cut-off line means the run was interrupted") from None  # fmt: skip
            rows += _json_obj(obj, base)
        offset += len(line)
    if lines_fmt:
        return rows, "sysbench-jsonl"
    m = re.search(r"^\[\s*$", text, re.M)
    if m:
        try:
            arr, _ = json.JSONDecoder().raw_decode(text, m.start())
        except json.JSONDecodeError as e:
            raise bad_input(path, f"broken sysbench JSON report: {e.msg}", line=line_of_offset(text, e.pos),
                            hint="a cut-off report means the run was interrupted") from None  # fmt: skip
        for obj in arr if isinstance(arr, list) else []:
            if isinstance(obj, dict):
                qps = obj.get("qps")
                flat = dict(obj, type="interval")
                if isinstance(qps, dict):
                    flat.update(qps=qps.get("total"), reads_ps=qps.get("reads"), writes_ps=qps.get("writes"),
                                other_ps=qps.get("other"), lat_pct_ms=obj.get("latency"),
                                err_ps=obj.get("errors"), reconn_ps=obj.get("reconnects"))  # fmt: skip
                rows += _json_obj(flat, base)
        return rows, "sysbench-json"
    return rows, ""


def _json_obj(obj: dict[str, Any], base: dict[str, Any]) -> list[dict[str, Any]]:
    pct = percentile_stat(as_float(obj.get("pct")) or 95.0)
    out: list[dict[str, Any]] = []

    def add(row: dict[str, Any], op: str, metric: str, stat: str, key: str, scale: float = 1.0) -> None:
        v = as_float(obj.get(key))
        if v is not None:
            out.append(dict(row, op=op, metric=metric, stat=stat, value=v * scale))

    if obj.get("type") == "interval":
        row = dict(
            base, time_s=as_float(obj.get("time")), threads=as_int(obj.get("threads")) or base["threads"]
        )
        add(row, "total", "tps", "mean", "tps")
        add(row, "total", "qps", "mean", "qps")
        add(row, "read", "qps", "mean", "reads_ps")
        add(row, "write", "qps", "mean", "writes_ps")
        add(row, "other", "qps", "mean", "other_ps")
        add(row, "total", "latency", pct, "lat_pct_ms")
        add(row, "total", "errors", "mean", "err_ps")
        add(row, "total", "reconnects", "mean", "reconn_ps")
    elif obj.get("type") == "total":
        # the cumulative hook reports threads_running = 0; keep the banner's thread count
        row = dict(base)
        add(row, "total", "tps", "mean", "tps")
        add(row, "total", "qps", "mean", "qps")
        add(row, "total", "ops", "sum", "events")
        add(row, "total", "runtime", "value", "time_total")
        for stat, key in (("min", "lat_min_ms"), ("mean", "lat_avg_ms"), ("max", "lat_max_ms"), (pct, "lat_pct_ms"),
                          ("sum", "lat_sum_ms")):  # fmt: skip
            add(row, "total", "latency", stat, key)
    return out


def _summary_text(path: Path, text: str, base: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def find(pattern: str) -> re.Match[str] | None:
        return re.search(pattern, text, re.M)

    total = find(r"^\s*total time:\s*" + _NUM + "s")
    if not total:
        if "SQL statistics:" in text or "Latency (ms):" in text:
            raise bad_input(path, "sysbench summary is incomplete (no 'total time:' line)",
                            line=last_line(text),
                            hint="the output was truncated: save the whole stdout of the run")  # fmt: skip
        return rows
    seconds = float(total.group(1))
    row = dict(base)
    rows.append(dict(row, op="total", metric="runtime", stat="value", value=seconds))
    m = find(r"^\s*transactions:\s*\d+\s*\(" + _NUM + r" per sec")
    if m:
        rows.append(dict(row, op="total", metric="tps", stat="mean", value=float(m.group(1))))
    m = find(r"^\s*queries:\s*\d+\s*\(" + _NUM + r" per sec")
    if m:
        rows.append(dict(row, op="total", metric="qps", stat="mean", value=float(m.group(1))))
    for op, label in (("read", "read"), ("write", "write"), ("other", "other")):
        m = find(rf"^\s*{label}:\s*(\d+)\s*$")
        if m and seconds > 0:
            rows.append(dict(row, op=op, metric="qps", stat="mean", value=int(m.group(1)) / seconds))
    m = find(r"^\s*ignored errors:\s*\d+\s*\(" + _NUM + r" per sec")
    if m:
        rows.append(dict(row, op="total", metric="errors", stat="mean", value=float(m.group(1))))
    m = find(r"^\s*reconnects:\s*\d+\s*\(" + _NUM + r" per sec")
    if m:
        rows.append(dict(row, op="total", metric="reconnects", stat="mean", value=float(m.group(1))))
    m = find(r"^\s*total number of events:\s*(\d+)")
    if m:
        rows.append(dict(row, op="total", metric="ops", stat="sum", value=float(m.group(1))))
        if "SQL statistics:" not in text and seconds > 0:
            rows.append(dict(row, op="total", metric="iops", stat="mean", value=int(m.group(1)) / seconds))
    lat = find(r"^Latency \(ms\):\s*$")
    if lat:
        block = text[lat.end() : lat.end() + 1000]
        for label, stat in (("min", "min"), ("avg", "mean"), ("max", "max"), ("sum", "sum")):
            m = re.search(rf"^\s*{label}:\s*{_NUM}", block, re.M)
            if m:
                rows.append(dict(row, op="total", metric="latency", stat=stat, value=float(m.group(1))))
        m = re.search(rf"^\s*{_NUM}th percentile:\s*{_NUM}", block, re.M)
        if m:
            rows.append(dict(row, op="total", metric="latency", stat=percentile_stat(float(m.group(1))),
                             value=float(m.group(2))))  # fmt: skip
    return rows

"""sysbench 1.0.x output: the default text report, and the machine-readable Lua-hook variants.

sysbench 1.0.20 has no --output-format; what it prints (run against a real MariaDB in tests/real/test_ingest_sysbench.py):
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
from typing import Any

import pandas as pd

from flashtune import userjson
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

KNOWN_TESTS = (
    "oltp_read_write",
    "oltp_read_only",
    "oltp_write_only",
    "oltp_point_select",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_insert",
    "oltp_delete",
    "select_random_points",
    "select_random_ranges",
    "bulk_insert",
    "fileio",
    "cpu",
    "memory",
    "threads",
    "mutex",
)

_NUM = r"([0-9]+(?:\.[0-9]+)?)"
_INTERVAL = re.compile(
    rf"^\[\s*{_NUM}s\s*\]\s+thds:\s*(\d+)\s+tps:\s*{_NUM}\s+qps:\s*{_NUM}\s+\(r/w/o:\s*{_NUM}/{_NUM}/{_NUM}\)\s+"
    rf"lat\s+\(ms,\s*{_NUM}%\):\s*{_NUM}\s+err/s:\s*{_NUM}\s+reconn/s:\s*{_NUM}"
)


# a launcher may put a word or two before the banner (PerfKitBenchmarker's per-CPU runs: `CPU 0 sysbench 1.0.11`)
_BANNER = re.compile(
    r"^(?:\S+ ){0,3}?sysbench \d+\.\d+[^\n]*(?:multi-threaded system evaluation benchmark|\(using )", re.M
)
# sysbench 0.5 / early 1.0 interval lines: "[   5s] threads: 64, tps: 4829.91, reads/s: 67739.61, writes/s: 0.00,
# response time: 18.77ms (99%)[, errors: 0.00, reconnects:  0.00]" (0.5 also "reads:"/"writes:")
_INTERVAL_05 = re.compile(r"^\[\s*([0-9.]+)s\s*\]\s+threads:\s*(\d+),\s*(.*)$")
_INTERVAL_05_FIELD = re.compile(r"([a-z/ ]+?):\s*([0-9.]+(?:ms)?(?:\s*\(\d+(?:\.\d+)?%\))?)")
_LEADING_NUMBER = re.compile(r"[0-9.]+")
_PERCENT = re.compile(r"\((\d+(?:\.\d+)?)%\)")


def looks_like(text: str) -> bool:
    return (
        text.startswith("sysbench ")
        or bool(_BANNER.search(text[:200000]))
        or "SQL statistics:" in text
        or "OLTP test statistics:" in text
        or '{"type":"interval"' in text
    )


_DOING = re.compile(r"^Doing (\w+) test", re.M)
_DOING_FILEIO = re.compile(r"^Doing (random|sequential) (r/w|read|write|rewrite)", re.M)
_DOING_READ_ONLY = re.compile(r"^Doing read-only test", re.M)


def _workload(path: Path, text: str) -> str | None:
    m = _DOING.search(text)  # sysbench 0.4/0.5: "Doing OLTP test."
    if "Extra file open flags" in text or "File operations:" in text or "Operations performed:" in text:
        mode = _DOING_FILEIO.search(text)
        if mode:
            kind = {"r/w": "rw", "read": "rd", "write": "wr", "rewrite": "rewr"}[mode.group(2)]
            return f"fileio_{'rnd' if mode.group(1) == 'random' else 'seq'}{kind}"
        return "fileio"
    if "Prime numbers limit" in text or "CPU speed:" in text:
        return "cpu"
    if "memory speed test" in text or "MiB transferred" in text:
        return "memory"
    name = path.name.lower()
    for t in sorted(KNOWN_TESTS, key=len, reverse=True):
        if t in name:
            return t
    if m and m.group(1) == "OLTP":
        ro = _DOING_READ_ONLY.search(text)
        return "oltp_read_only" if ro else "oltp"
    return "oltp" if "SQL statistics:" in text or '"qps"' in text else None


_ITERATION = re.compile(r"-iter(\d+)\.[A-Za-z]+$")
_GAVE_UP = re.compile(r"^(?:FATAL: .*|invalid option: .*|Unknown command: .*)$", re.M)


def parse(path: Path) -> pd.DataFrame:
    """One sysbench output, or several concatenated (one banner each: their `run` is 1, 2, ...)."""
    text = read_tool_output(
        path, looks_like, "sysbench", "pass the stdout of `sysbench ... run` saved to a file"
    )
    starts = [0, *(m.start() for m in _BANNER.finditer(text))][:1] + [
        m.start() for m in _BANNER.finditer(text)
    ][1:]
    rows: list[dict[str, Any]] = []
    fmt = "sysbench-text"
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(text)
        got, got_fmt = _parse_one(path, text, start, end)
        if len(starts) > 1:
            for r in got:
                r["run"] = str(k + 1)
        rows += got
        if got_fmt != "sysbench-text":
            fmt = got_fmt
    # one run of several iterations, named as bench/sysbench-oltp.sh names them (<test>-threads<N>-iter<i>.txt)
    iteration = _ITERATION.search(path.name)
    if iteration and len(starts) == 1:
        for r in rows:
            r["run"] = iteration.group(1)
    # a run sysbench gave up on says why (`FATAL: ... Duplicate entry`, `invalid option: --x`): name it
    said = None if rows else _GAVE_UP.search(text)
    return results_frame(
        path,
        rows,
        fmt,
        line=line_of_offset(text, said.start()) if said else last_line(text),
        problem="sysbench output without results (no interval lines and no summary)"
        + (f"; sysbench said: {said.group(0).strip()[:160]}" if said else ""),
        hint="the run was cut short or failed: check its stderr; let it finish",
    )


_THREADS = re.compile(r"^Number of threads:\s*(\d+)", re.M)


def _parse_one(path: Path, full: str, start: int, end: int) -> tuple[list[dict[str, Any]], str]:
    text = full[start:end]
    threads_m = _THREADS.search(text)
    threads = int(threads_m.group(1)) if threads_m else None
    workload = _workload(path, text)
    sql = "SQL statistics:" in text or '"qps"' in text or "OLTP test statistics:" in text
    base: dict[str, Any] = {
        "tool": "sysbench",
        "test": workload or "sysbench",
        "workload": workload,
        "interface": "mysql" if sql else None,
        "threads": threads,
        "source": str(path),
    }
    rows: list[dict[str, Any]] = []
    fmt = "sysbench-text"
    rows += _intervals_text(text, base)
    json_rows, json_fmt = _json_reports(path, full, base, start, end)
    if json_rows:
        rows += json_rows
        fmt = json_fmt
    marks = list(_CHECKPOINT.finditer(text))
    if marks:
        rows += _checkpoints(path, full, base, start, end, marks)
    else:
        rows += _summary_text(path, full, base, start, end)
    return rows, fmt


_CHECKPOINT = re.compile(rf"^\[\s*{_NUM}s\s*\] Checkpoint report:\s*$", re.M)
_SUMMARY_END = re.compile(r"^\s*execution time \(avg/stddev\):.*$", re.M)


def _checkpoints(
    path: Path, full: str, base: dict[str, Any], start: int, end: int, marks: list[re.Match[str]]
) -> list[dict[str, Any]]:
    """`--report-checkpoints=2,3`: at each checkpoint sysbench prints a whole summary and resets its
    counters, so every report (the one at the end too) covers only the time since the previous one; only
    `total time` runs on from the start. Each report becomes rows at its time (`time_s` = the checkpoint,
    or the total time for the last); the whole run is the sum of their events and latency sums."""
    text = full[start:end]
    reports: list[tuple[float | None, list[dict[str, Any]]]] = []
    pos = marks[0].start()
    for stop in _SUMMARY_END.finditer(text, pos):
        mark = _CHECKPOINT.match(text, pos) if text.startswith("[", pos) else None
        got = _summary_text(path, full, base, start + pos, start + stop.end())
        if got:
            reports.append((float(mark.group(1)) if mark else None, got))
        pos = stop.end()
        while pos < len(text) and text[pos] in "\r\n":
            pos += 1
    out: list[dict[str, Any]] = []
    events = lat_sum = 0.0
    lat_min: list[float] = []
    lat_max: list[float] = []
    runtime = None
    for at, got in reports:
        vals = {(r["metric"], r["stat"]): r["value"] for r in got if r.get("op") == "total"}
        runtime = vals.get(("runtime", "value"), runtime)
        events += vals.get(("ops", "sum"), 0.0)
        lat_sum += vals.get(("latency", "sum"), 0.0)
        lat_min += [vals[("latency", "min")]] if ("latency", "min") in vals else []
        lat_max += [vals[("latency", "max")]] if ("latency", "max") in vals else []
        when = at if at is not None else runtime
        out += [dict(r, time_s=when) for r in got if r["metric"] != "runtime"]
    if not reports or runtime is None:
        return out
    row = dict(base, op="total", unit_basis=f"derived: {len(reports)} checkpoint reports added up")
    out += [
        dict(row, metric="runtime", stat="value", value=runtime),
        dict(row, metric="ops", stat="sum", value=events),
        dict(row, metric="tps", stat="mean", value=events / runtime if runtime else None),
        dict(row, metric="latency", stat="sum", value=lat_sum),
    ]
    if events:
        out.append(dict(row, metric="latency", stat="mean", value=lat_sum / events))
    if lat_min and lat_max:
        out += [
            dict(row, metric="latency", stat="min", value=min(lat_min)),
            dict(row, metric="latency", stat="max", value=max(lat_max)),
        ]
    return out


def _intervals_text(text: str, base: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for line in text.splitlines():
        m = _INTERVAL.match(line.strip())
        if not m:
            rows += _interval_05(line.strip(), base)
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


# sysbench 1.0's interval lines of its non-SQL tests (sysbench.c report_intermediate, memory's own report)
_EVENTS_INTERVAL = re.compile(
    rf"^\[\s*{_NUM}s\s*\]\s+thds:\s*(\d+)\s+eps:\s*{_NUM}\s+lat\s+\(ms,\s*{_NUM}%\):\s*{_NUM}\s*$"
)
_MEMORY_INTERVAL = re.compile(rf"^\[\s*{_NUM}s\s*\]\s+{_NUM} MiB/sec\s*$")
_FILEIO_INTERVAL = re.compile(
    rf"^\[\s*{_NUM}s\s*\]\s+reads:\s*{_NUM} MiB/s\s+writes:\s*{_NUM} MiB/s\s+fsyncs:\s*"
    rf"{_NUM}/s\s+latency \(ms,{_NUM}%\):\s*{_NUM}"
)


def _interval_05(line: str, base: dict[str, Any]) -> list[dict[str, Any]]:
    """A sysbench 0.5 / early 1.0 interval line, read by its `key: value` pairs (or a 1.0 fileio one)."""
    c = _EVENTS_INTERVAL.match(line)
    if c:  # cpu, threads, mutex: `[ 1s ] thds: 2 eps: 1297.84 lat (ms,95%): 8.28`
        row = dict(base, time_s=float(c.group(1)), threads=int(c.group(2)))
        return [
            dict(row, op="total", metric="iops", stat="mean", value=float(c.group(3))),
            dict(
                row,
                op="total",
                metric="latency",
                stat=percentile_stat(float(c.group(4))),
                value=float(c.group(5)),
            ),
        ]
    mem = _MEMORY_INTERVAL.match(line)
    if mem:  # memory: `[ 1s ] 523.33 MiB/sec`
        row = dict(base, time_s=float(mem.group(1)))
        return [dict(row, op="total", metric="bandwidth", stat="mean", value=float(mem.group(2)))]
    f = _FILEIO_INTERVAL.match(line)
    if f:
        t, rd, wr, fs, pct_f, lat = (float(x) for x in f.groups())
        row = dict(base, time_s=t)
        return [
            dict(row, op="read", metric="bandwidth", stat="mean", value=rd),
            dict(row, op="write", metric="bandwidth", stat="mean", value=wr),
            dict(row, op="other", metric="iops", stat="mean", value=fs),
            dict(row, op="total", metric="latency", stat=percentile_stat(pct_f), value=lat),
        ]
    m = _INTERVAL_05.match(line)
    if not m:
        return []
    row = dict(base, time_s=float(m.group(1)), threads=int(m.group(2)))
    out: list[dict[str, Any]] = []
    for key, val in _INTERVAL_05_FIELD.findall(m.group(3)):
        key = key.strip().strip(",").strip()
        num = float(_LEADING_NUMBER.match(val).group(0))  # type: ignore[union-attr]
        if key == "tps":
            out.append(dict(row, op="total", metric="tps", stat="mean", value=num))
        elif key in ("reads", "reads/s"):
            out.append(dict(row, op="read", metric="qps", stat="mean", value=num))
        elif key in ("writes", "writes/s"):
            out.append(dict(row, op="write", metric="qps", stat="mean", value=num))
        elif key == "response time":
            pct = _PERCENT.search(val)
            stat = percentile_stat(float(pct.group(1))) if pct else "value"
            out.append(dict(row, op="total", metric="latency", stat=stat, value=num))
        elif key == "errors":
            out.append(dict(row, op="total", metric="errors", stat="mean", value=num))
        elif key == "reconnects":
            out.append(dict(row, op="total", metric="reconnects", stat="mean", value=num))
    return out


_ARRAY_START = re.compile(r"^\[\s*$", re.M)


def _json_reports(
    path: Path, full: str, base: dict[str, Any], start: int = 0, end: int | None = None
) -> tuple[list[dict[str, Any]], str]:
    end = len(full) if end is None else end
    text = full[start:end]
    rows: list[dict[str, Any]] = []
    offset = start
    lines_fmt = False
    for line in text.splitlines(keepends=True):
        s = line.strip()
        if s.startswith('{"type"'):
            lines_fmt = True
            try:
                obj = userjson.parse(s, file=str(path))
            except json.JSONDecodeError as e:
                raise bad_input(
                    path,
                    f"broken sysbench JSON line: {e.msg}",
                    line=line_of_offset(full, offset),
                    hint="a cut-off line means the run was interrupted",
                ) from None
            if isinstance(obj, dict):  # (a line that starts `{"type"` and parses is an object)
                rows += _json_obj(obj, base)
        offset += len(line)
    if lines_fmt:
        return rows, "sysbench-jsonl"
    m = _ARRAY_START.search(text)
    if m:
        # sysbench.report_json prints "[" then objects joined by ",\n"; the closing "]" comes from a Lua
        # garbage-collection hook, so it may come after the summary text, or never: read the objects one
        # by one and stop at the first thing that is not one (the "]", a trailing comma, the summary).
        userjson.check_size(text, file=str(path))
        pos = m.end()
        while True:
            while pos < len(text) and text[pos] in " \t\r\n,":
                pos += 1
            if pos >= len(text) or text[pos] != "{":
                break
            try:
                obj, pos = userjson.decode(text, pos, file=str(path))
            except json.JSONDecodeError as e:
                raise bad_input(
                    path,
                    f"broken sysbench JSON report: {e.msg}",
                    line=line_of_offset(full, start + e.pos),
                    hint="a cut-off report means the run was interrupted",
                ) from None
            if isinstance(obj, dict):
                qps = obj.get("qps")
                flat = dict(obj, type="interval")
                if isinstance(qps, dict):
                    flat.update(
                        qps=qps.get("total"),
                        reads_ps=qps.get("reads"),
                        writes_ps=qps.get("writes"),
                        other_ps=qps.get("other"),
                        lat_pct_ms=obj.get("latency"),
                        err_ps=obj.get("errors"),
                        reconn_ps=obj.get("reconnects"),
                    )
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
        for stat, key in (
            ("min", "lat_min_ms"),
            ("mean", "lat_avg_ms"),
            ("max", "lat_max_ms"),
            (pct, "lat_pct_ms"),
            ("sum", "lat_sum_ms"),
        ):
            add(row, "total", "latency", stat, key)
    return out


# the end-of-run summary's lines (each searched for over the whole summary)
_TOTAL_TIME = re.compile(rf"^\s*total time:\s*{_NUM}s", re.M)
_TIME_ELAPSED = re.compile(rf"^\s*time elapsed:\s*{_NUM}s", re.M)
_TRANSACTIONS = re.compile(rf"^\s*transactions:\s*\d+\s*\({_NUM} per sec", re.M)
_QUERIES = re.compile(rf"^\s*queries:\s*\d+\s*\({_NUM} per sec", re.M)
_QUERIES_TOTAL = re.compile(r"^\s*total:\s*(\d+)\s*$", re.M)  # queries performed ... total
_QUERY_COUNT = {label: re.compile(rf"^\s*{label}:\s*(\d+)\s*$", re.M) for label in ("read", "write", "other")}
_IGNORED_ERRORS = re.compile(rf"^\s*ignored errors:\s*\d+\s*\({_NUM} per sec", re.M)
_RECONNECTS = re.compile(rf"^\s*reconnects:\s*\d+\s*\({_NUM} per sec", re.M)
_EVENTS = re.compile(r"^\s*total number of events:\s*(\d+)", re.M)
_LATENCY_HEAD = re.compile(r"^(?:Latency \(ms\)|\s*per-request statistics|\s*response time):\s*$", re.M)
_LATENCY_STAT = {
    label: re.compile(rf"^\s*{label}:\s*{_NUM}(ms|s)?\s*$", re.M) for label in ("min", "avg", "max", "sum")
}
_LATENCY_PERCENTILE = re.compile(rf"^\s*(?:approx\.\s*)?{_NUM}(?:th)? percentile:\s*{_NUM}(ms|s)?", re.M)


def _summary_text(
    path: Path, full: str, base: dict[str, Any], start: int = 0, end: int | None = None
) -> list[dict[str, Any]]:
    """The end-of-run summary: sysbench 1.0 (`SQL statistics:`, `Latency (ms):`), 0.4/0.5 (`OLTP test
    statistics:`, `per-request statistics:` / `response time:` blocks with `ms` after each number) and
    fileio (1.0 `File operations:`/`Throughput:`; 0.4 `Operations performed:` and `Mb/sec`)."""
    end = len(full) if end is None else end
    text = full[start:end]
    rows: list[dict[str, Any]] = []

    # sysbench 1.1 ends with `Throughput:` (events/s, `time elapsed: 10.0552s`, total number of events)
    # where 1.0 printed `General statistics:` (`total time: 10.0049s`, ...); the other blocks are the same
    total = _TOTAL_TIME.search(text) or _TIME_ELAPSED.search(text)
    if not total:
        if any(
            k in text
            for k in ("SQL statistics:", "Latency (ms):", "OLTP test statistics:", "Test execution summary:")
        ):
            raise bad_input(
                path,
                "sysbench summary is incomplete (no 'total time:' or 'time elapsed:' line)",
                line=last_line(full[:end]),
                hint="the output was truncated: save the whole stdout of the run",
            )
        return rows
    seconds = float(total.group(1))
    row = dict(base)
    rows.append(dict(row, op="total", metric="runtime", stat="value", value=seconds))
    m = _TRANSACTIONS.search(text)
    if m:
        rows.append(dict(row, op="total", metric="tps", stat="mean", value=float(m.group(1))))
    m = _QUERIES.search(text)
    count = _QUERIES_TOTAL.search(text)  # queries performed ... total
    qps: float | None = None
    if m:
        qps = float(m.group(1))
    elif count and seconds > 0:  # 0.4/0.5 print no rate
        qps = int(count.group(1)) / seconds
    if qps is not None:
        rows.append(dict(row, op="total", metric="qps", stat="mean", value=qps))
    for op, label in (("read", "read"), ("write", "write"), ("other", "other")):
        m = _QUERY_COUNT[label].search(text)
        if m and seconds > 0:
            # sysbench's rate divides by the threads' time, not `total time`: share its rate by count,
            # so read + write + other is the printed total
            n = int(m.group(1))
            value = (
                qps * n / int(count.group(1))
                if qps is not None and count and int(count.group(1))
                else n / seconds
            )
            rows.append(dict(row, op=op, metric="qps", stat="mean", value=value))
    m = _IGNORED_ERRORS.search(text)
    if m:
        rows.append(dict(row, op="total", metric="errors", stat="mean", value=float(m.group(1))))
    m = _RECONNECTS.search(text)
    if m:
        rows.append(dict(row, op="total", metric="reconnects", stat="mean", value=float(m.group(1))))
    events = _EVENTS.search(text)
    sql = "SQL statistics:" in text or "OLTP test statistics:" in text
    if events:
        rows.append(dict(row, op="total", metric="ops", stat="sum", value=float(events.group(1))))
    rows += _fileio(text, row, seconds, events, sql)
    rows += _histogram(text, row)
    lat = _LATENCY_HEAD.search(text)
    if lat:
        block = text[lat.end() : lat.end() + 1000]
        for label, stat in (("min", "min"), ("avg", "mean"), ("max", "max"), ("sum", "sum")):
            m = _LATENCY_STAT[label].search(block)
            if m:
                rows.append(dict(row, op="total", metric="latency", stat=stat, value=_ms(m)))
        m = _LATENCY_PERCENTILE.search(block)
        if m:
            v = float(m.group(2)) * (1000.0 if m.group(3) == "s" else 1.0)
            rows.append(
                dict(row, op="total", metric="latency", stat=percentile_stat(float(m.group(1))), value=v)
            )
    return rows


_HIST_HEAD = re.compile(r"^Latency histogram \(values are in milliseconds\)\s*$", re.M)
_HIST_LINE = re.compile(r"^\s*([0-9.]+)\s+\|\**\s+(\d+)\s*$")


def _histogram(text: str, row: dict[str, Any]) -> list[dict[str, Any]]:
    """`--histogram=on`: one line per latency bucket, `value |*** count` (ms), after the run."""
    head = _HIST_HEAD.search(text)
    if head is None:
        return []
    out = []
    for line in text[head.end() :].splitlines()[2:]:
        m = _HIST_LINE.match(line)
        if m is None:
            break
        out.append(
            dict(
                row,
                op="total",
                metric="lat_histogram",
                stat="count",
                bucket_ms=float(m.group(1)),
                value=float(m.group(2)),
            )
        )
    return out


def _ms(m: re.Match[str]) -> float:
    return float(m.group(1)) * (1000.0 if m.group(2) == "s" else 1.0)


# fileio, cpu and memory summaries: sysbench 1.0's rate lines, then 0.4/0.5's
_FILEIO_RATE = {
    label: re.compile(rf"^\s*{re.escape(label)}:\s*{_NUM}", re.M)
    for label in ("reads/s", "writes/s", "fsyncs/s", "read, MiB/s", "written, MiB/s")
}
_OPERATIONS_04 = re.compile(r"^Operations performed:\s*(\d+) Reads?, (\d+) Writes?, (\d+) Other", re.M)
_TRANSFERRED_04 = re.compile(r"Total transferred\s*([0-9.]+)([KMGT]?)b\s*\(([0-9.]+)([KMGT]?)b/sec\)")
_REQUESTS_04 = re.compile(r"^\s*([0-9.]+) Requests/sec executed", re.M)
_EVENTS_RATE = re.compile(r"^\s*events per second:\s*([0-9.]+)", re.M)  # 1.0 cpu
_OPERATIONS_RATE = re.compile(r"^Total operations:\s*\d+\s*\(([0-9.]+) per second\)", re.M)  # 1.0 memory
_MIB_TRANSFERRED = re.compile(r"^([0-9.]+) MiB transferred \(([0-9.]+) MiB/sec\)", re.M)  # 1.0 memory


def _fileio(
    text: str, row: dict[str, Any], seconds: float, events: re.Match[str] | None, sql: bool
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if sql:
        return out
    # sysbench 1.0 fileio
    for op, label in (("read", "reads/s"), ("write", "writes/s"), ("other", "fsyncs/s")):
        m = _FILEIO_RATE[label].search(text)
        if m:
            out.append(dict(row, op=op, metric="iops", stat="mean", value=float(m.group(1))))
    for op, label in (("read", "read, MiB/s"), ("write", "written, MiB/s")):
        m = _FILEIO_RATE[label].search(text)
        if m:
            out.append(dict(row, op=op, metric="bandwidth", stat="mean", value=float(m.group(1))))
    # sysbench 0.4/0.5 fileio: "Operations performed:  6000 Read, 4000 Write, 12800 Other = 22800 Total",
    # "Read 93.75Mb  Written 62.5Mb  Total transferred 156.25Mb  (15.551Mb/sec)", "995.23 Requests/sec executed"
    # (its "Mb" is 2^20 bytes: sysbench 0.4 divides by 1024*1024)
    m = _OPERATIONS_04.search(text)
    if m and seconds > 0:
        for op, n in zip(("read", "write", "other"), m.groups(), strict=True):
            out.append(dict(row, op=op, metric="iops", stat="mean", value=int(n) / seconds))
    m = _TRANSFERRED_04.search(text)
    if m:
        scale = {"": 1 / 2**20, "K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2}
        out.append(
            dict(
                row, op="total", metric="bandwidth", stat="mean", value=float(m.group(3)) * scale[m.group(4)]
            )
        )
        out.append(
            dict(row, op="total", metric="io", stat="sum", value=float(m.group(1)) * scale[m.group(2)])
        )
    m = _REQUESTS_04.search(text) or _EVENTS_RATE.search(text) or _OPERATIONS_RATE.search(text)
    if m:
        out.append(dict(row, op="total", metric="iops", stat="mean", value=float(m.group(1))))
    t = _MIB_TRANSFERRED.search(text)  # 1.0 memory
    if t:
        out.append(dict(row, op="total", metric="bandwidth", stat="mean", value=float(t.group(2))))
        out.append(dict(row, op="total", metric="io", stat="sum", value=float(t.group(1))))
    elif events and seconds > 0 and not out:
        out.append(dict(row, op="total", metric="iops", stat="mean", value=int(events.group(1)) / seconds))
    return out

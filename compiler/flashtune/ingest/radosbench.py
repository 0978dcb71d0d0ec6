"""`rados bench` output (Ceph's ObjBencher), as text or with --format json.

Text (Pacific 16.2): `Maintaining 16 concurrent writes of 4194304 bytes to objects of size 4194304 for up
to 10 seconds or 0 objects`, a per-second table (`sec Cur ops started finished avg MB/s cur MB/s last lat(s)
avg lat(s)`), then `Total time run:`, `Total writes made:` / `Total reads made:`, `Write size:` / `Read size:`,
`Bandwidth (MB/sec):`, `Average IOPS:`, `Stddev IOPS:`, `Max IOPS:`, `Min IOPS:`, `Average Latency(s):`,
`Stddev Latency(s):`, `Max latency(s):`, `Min latency(s):` (write runs add Stddev/Max/Min bandwidth).
JSON: the same summary with lower-case keys whose values are strings (`"bandwidth": "791.2"`),
`concurrent_ios`, `op_size` and a `datas` list of per-second samples. rados computes "MB/sec" as
bytes / 2^20, so it is MiB/s as the schema wants. The mode (write/seq/rand) is not printed on read
runs; it comes from the file name or CBT directory (write/, seq/, rand/) when present.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from flashtune.ingest.common import (
    as_float,
    as_int,
    bad_input,
    last_line,
    line_of_offset,
    note,
    read_tool_output,
)
from flashtune.ingest.schema import to_frame

_SUMMARY_KEYS: dict[str, tuple[str, str, float]] = {
    # text label (lower case) -> (metric, stat, factor)
    "bandwidth (mb/sec)": ("bandwidth", "mean", 1.0),
    "stddev bandwidth": ("bandwidth", "stddev", 1.0),
    "max bandwidth (mb/sec)": ("bandwidth", "max", 1.0),
    "min bandwidth (mb/sec)": ("bandwidth", "min", 1.0),
    "average iops": ("iops", "mean", 1.0),
    "stddev iops": ("iops", "stddev", 1.0),
    "max iops": ("iops", "max", 1.0),
    "min iops": ("iops", "min", 1.0),
    "average latency(s)": ("latency", "mean", 1000.0),
    "stddev latency(s)": ("latency", "stddev", 1000.0),
    "max latency(s)": ("latency", "max", 1000.0),
    "min latency(s)": ("latency", "min", 1000.0),
    # before Luminous (12.x) the latency labels had no unit and there were no IOPS lines
    "average latency": ("latency", "mean", 1000.0),
    "stddev latency": ("latency", "stddev", 1000.0),
    "max latency": ("latency", "max", 1000.0),
    "min latency": ("latency", "min", 1000.0),
    "total time run": ("runtime", "value", 1.0),
    "total writes made": ("ops", "sum", 1.0),
    "total reads made": ("ops", "sum", 1.0),
}
_JSON_KEYS: dict[str, tuple[str, str, float]] = {
    "bandwidth": ("bandwidth", "mean", 1.0),
    "stddev_bandwidth": ("bandwidth", "stddev", 1.0),
    "max_bandwidth": ("bandwidth", "max", 1.0),
    "min_bandwidth": ("bandwidth", "min", 1.0),
    "average_iops": ("iops", "mean", 1.0),
    "stddev_iops": ("iops", "stddev", 1.0),
    "max_iops": ("iops", "max", 1.0),
    "min_iops": ("iops", "min", 1.0),
    "average_latency": ("latency", "mean", 1000.0),
    "stddev_latency": ("latency", "stddev", 1000.0),
    "max_latency": ("latency", "max", 1000.0),
    "min_latency": ("latency", "min", 1000.0),
    "total_time_run": ("runtime", "value", 1.0),
    "total_writes_made": ("ops", "sum", 1.0),
    "total_reads_made": ("ops", "sum", 1.0),
}
# Luminous+: "... of 4194304 bytes to objects of size 4194304 for up to 10 seconds"; before: "... bytes for up to"
_MAINTAIN = re.compile(r"Maintaining (\d+) concurrent writes of (\d+) bytes")
_SECOND = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+|-)\s+([\d.]+)\s*$")
_NO_COLON = re.compile(r"^\s*([A-Za-z][A-Za-z ()/]*[A-Za-z)])\s{2,}(-?[\d.]+(?:e[-+]?\d+)?)\s*$")
_GLUED = re.compile(r"^\s*\d+\s+\d+\s+\d+\s+\d+\s+[\d.\s-]+$")
_PLAIN_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")


def _second_columns(line: str) -> list[str] | None:
    """The 8 columns of a per-second line (sec, cur ops, started, finished, avg MB/s, cur MB/s, last lat,
    avg lat). ObjBencher prints them with fixed widths, so a wide number runs into its neighbour
    (`0.468750.00526002`); such tokens are split back where exactly one split gives numbers as
    iostream prints doubles (at most 6 significant digits, no trailing zero after the point)."""
    if _SECOND.match(line):
        return line.split()
    if not _GLUED.match(line):
        return None
    tokens = line.split()
    missing = 8 - len(tokens)
    if missing <= 0 or missing > 3:
        return None
    out: list[str] = []
    for tok in tokens:
        if tok.count(".") > 1 and missing > 0:
            parts = _unglue(tok, tok.count("."))
            if parts is None:
                return None
            missing -= len(parts) - 1
            out += parts
        else:
            out.append(tok)
    return out if len(out) == 8 and all(_PLAIN_NUMBER.match(t) or t == "-" for t in out) else None


def _printed_double(tok: str) -> bool:
    if not _PLAIN_NUMBER.match(tok) or (tok.startswith("0") and len(tok) > 1 and tok[1] != "."):
        return False
    if "." in tok and tok.endswith("0"):
        return False
    return len(tok.replace(".", "").lstrip("0")) <= 6


def _unglue(tok: str, n: int) -> list[str] | None:
    """tok as n numbers printed back to back, if exactly one split fits."""
    if n == 1:
        return [tok] if _printed_double(tok) else None
    found: list[list[str]] = []
    for i in range(1, len(tok)):
        head = tok[:i]
        if head.count(".") != 1 or not _printed_double(head):
            continue
        rest = _unglue(tok[i:], n - 1)
        if rest is not None:
            found.append([head, *rest])
    return found[0] if len(found) == 1 else None


# `--show-time` puts the time of day before every line rados prints while it runs
_SHOW_TIME = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d{4}|Z)? ", re.M)
# rados gives up on a read bench over a pool with no objects of the run (or other errors) with these lines
_GAVE_UP = re.compile(
    r"^(?:Must write data before running a read benchmark!|error during benchmark: .*)$", re.M
)


def looks_like(text: str) -> bool:
    head = text[:20000]
    return (
        head.startswith("hints = ")
        or "concurrent writes of" in head
        or "sec Cur ops" in head
        or "Total time run:" in text
        or ('"total_time_run"' in text and '"bandwidth"' in text)
    )


_MODE_WORD = re.compile(r"(?:^|[^a-z])(write|seq|rand)(?:[^a-z]|$)")


def mode_from_path(path: Path) -> str | None:
    for part in reversed(path.parts[:-1]):
        if part in ("write", "seq", "rand", "prefill"):
            return "write" if part == "prefill" else part
    m = _MODE_WORD.search(path.name.lower())
    return m.group(1) if m else None


_OBJECT_START = re.compile(r"^\s*\{", re.M)


def parse(path: Path) -> pd.DataFrame:
    text = read_tool_output(
        path,
        looks_like,
        "`rados bench`",
        "save the stdout of `rados bench -p POOL SECONDS write|seq|rand` to a file",
    )
    text = _SHOW_TIME.sub("", text)
    brace = _OBJECT_START.search(text)
    if brace and '"total_time_run"' in text:
        return _parse_json(path, text, brace.start())
    return _parse_text(path, text)


def _base(path: Path, mode: str | None, threads: int | None, size: int | None) -> dict[str, Any]:
    workload = mode or "unknown"
    op = {"write": "write", "seq": "read", "rand": "read"}.get(workload, "total")
    return {
        "tool": "rados-bench",
        "test": workload,
        "workload": workload,
        "op": op,
        "interface": "rados",
        "iodepth": threads,
        "threads": 1,
        "block_size_bytes": size,
        "source": str(path),
    }


def _parse_text(path: Path, text: str) -> pd.DataFrame:
    m = _MAINTAIN.search(text)
    mode = "write" if m else (mode_from_path(path) or ("write" if "Total writes made" in text else None))
    threads = int(m.group(1)) if m else None
    size = int(m.group(2)) if m else None
    summary: dict[str, str] = {}
    start = text.find("Total time run:")
    if start < 0:
        said = _GAVE_UP.search(text)
        raise bad_input(
            path,
            "rados bench output without its summary (no 'Total time run:' line)"
            + (f"; rados said: {said.group(0)}" if said else ""),
            line=line_of_offset(text, said.start()) if said else last_line(text),
            hint="a read bench (seq/rand) needs the objects of a `write --no-cleanup` run with the same"
            " --run-name in the same pool"
            if said
            else "the bench was interrupted or the file is cut off; re-run and keep the whole stdout",
        )
    for line in text[start:].splitlines():
        key, sep, val = line.partition(":")
        if sep:
            summary[key.strip().lower()] = val.strip()
        elif (bare := _NO_COLON.match(line)) is not None:  # Jewel's seq summary: `Average IOPS          20`
            summary[bare.group(1).lower()] = bare.group(2)
    size = size or as_int(summary.get("write size") or summary.get("read size"))
    base = _base(path, mode, threads, size)
    rows: list[dict[str, Any]] = []
    for key, (metric, stat, factor) in _SUMMARY_KEYS.items():
        v = as_float(summary.get(key))
        if v is not None:
            rows.append(dict(base, metric=metric, stat=stat, value=v * factor))
    if not any(r["metric"] == "iops" for r in rows):
        ops, secs = (
            as_float(summary.get("total writes made") or summary.get("total reads made")),
            as_float(summary.get("total time run")),
        )
        if ops and secs:
            rows.append(
                dict(
                    base,
                    metric="iops",
                    stat="mean",
                    value=ops / secs,
                    unit_basis="derived: operations made / total time run (this rados bench prints no IOPS)",
                )
            )
    if not any(r["metric"] == "bandwidth" for r in rows):
        raise bad_input(
            path,
            "rados bench summary has no 'Bandwidth (MB/sec):' line",
            line=last_line(text),
            hint="the output is cut off; keep the whole stdout",
        )
    glued: list[int] = []
    for no, line in enumerate(text[:start].splitlines(), start=1):
        cols = _second_columns(line)
        if cols is None:
            if _GLUED.match(line):
                glued.append(no)
            continue
        if int(cols[0]) > 0:
            sec = float(cols[0])
            rows.append(dict(base, time_s=sec, metric="bandwidth", stat="sample", value=float(cols[5])))
            if cols[6] != "-":
                rows.append(
                    dict(base, time_s=sec, metric="latency", stat="last", value=float(cols[6]) * 1000)
                )
    if glued:
        note(
            path,
            f"per-second lines {glued[:5]}{'...' if len(glued) > 5 else ''} skipped: columns ran together",
        )
    df = to_frame(rows)
    df["format"] = "rados-bench-text"
    return df


def _parse_json(path: Path, text: str, start: int) -> pd.DataFrame:
    try:
        doc, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as e:
        raise bad_input(
            path,
            f"invalid rados bench JSON: {e.msg}",
            line=line_of_offset(text, e.pos),
            hint="the output is cut off or mixed with other text; keep the whole stdout",
        ) from None
    if not isinstance(doc, dict):
        raise bad_input(path, "rados bench JSON is not an object", line=line_of_offset(text, start))
    mode = mode_from_path(path) or ("write" if "total_writes_made" in doc else None)
    size = as_int(doc.get("op_size") or doc.get("write_size") or doc.get("read_size"))
    base = _base(path, mode, as_int(doc.get("concurrent_ios")), size)
    rows: list[dict[str, Any]] = []
    for key, (metric, stat, factor) in _JSON_KEYS.items():
        v = as_float(doc.get(key))
        if v is not None and not (key == "stddev_iops" and "total_writes_made" in doc):
            rows.append(dict(base, metric=metric, stat=stat, value=v * factor))
    # the write summary's JSON prints stddev_iops with "%d" from a double (ceph src/tools/rados/
    # obj_bencher.cc: dump_format("stddev_iops", "%d", vec_stddev(...))), so its figure is whatever int
    # the call found (seen: -1897487440); the per-second IOPS are the bandwidth samples over the op size,
    # so their stddev is the bandwidth's in ops
    dev_bw = as_float(doc.get("stddev_bandwidth"))
    if "total_writes_made" in doc and "stddev_iops" in doc and dev_bw is not None and size:
        rows.append(
            dict(
                base,
                metric="iops",
                stat="stddev",
                value=dev_bw * 1048576 / size,
                unit_basis="derived: stddev_bandwidth / op size (rados prints stddev_iops of a write with %d)",
            )
        )
        note(
            path,
            f"stddev_iops {doc.get('stddev_iops')!r} not read (printed with %d): derived from the bandwidth",
        )
    if not any(r["metric"] == "bandwidth" for r in rows):
        raise bad_input(
            path,
            "rados bench JSON has no 'bandwidth'",
            line=line_of_offset(text, start),
            hint="run `rados bench ... --format json` and keep its whole stdout",
        )
    for sample in doc.get("datas") or []:
        if not isinstance(sample, dict):
            continue
        sec = as_float(sample.get("sec"))
        bw = as_float(sample.get("cur_bw"))
        if sec and bw is not None:
            rows.append(dict(base, time_s=sec, metric="bandwidth", stat="sample", value=bw))
    df = to_frame(rows)
    df["format"] = "rados-bench-json"
    return df

"""flashtune prove's S3 probe samples (flashtune.prove.s3load): one JSON document per sample.

The document (marked `"flashtune_s3_probe": 1`) holds the whole sample over every gateway: `ops`, `errors`,
`bytes`, `elapsed_s`, `iops`, `bandwidth_mib_s` (bytes / 2^20 per second), `latency_ms` (mean, min, max and
nearest-rank percentiles p50 ... p99.9 of every request), `object_size`, `threads`, `op` (put or get) and
`gateways` (each gateway's name, URL, threads, ops, errors, bytes). Rows: the totals under the case's name,
and each gateway's share (ops, bandwidth) with the gateway's URL as `test`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from flashtune import userjson
from flashtune.ingest.common import as_float, as_int, bad_input, read_tool_output, results_frame

MARKER = '"flashtune_s3_probe"'
_OPS = {"put": "write", "get": "read"}


def looks_like(text: str) -> bool:
    return MARKER in text[:4096]


def parse(path: Path) -> pd.DataFrame:
    text = read_tool_output(
        path, looks_like, "a flashtune S3 probe sample", "pass the raw/ sample files of a prove run"
    )
    doc = userjson.loads(text, file=str(path), what="S3 probe sample")
    if not isinstance(doc, dict) or doc.get("op") not in _OPS:
        raise bad_input(path, "an S3 probe sample without its op (put or get)", line=1)
    elapsed = as_float(doc.get("elapsed_s"))
    if not elapsed:
        raise bad_input(path, "an S3 probe sample without elapsed_s", line=1, hint="the file is cut off?")
    base: dict[str, Any] = {
        "tool": "s3-probe",
        "test": str(doc.get("case") or doc["op"]),
        "workload": str(doc["op"]),
        "op": _OPS[str(doc["op"])],
        "interface": "s3",
        "block_size_bytes": as_int(doc.get("object_size")),
        "iodepth": 1,
        "threads": as_int(doc.get("threads")),
        "source": str(path),
    }
    rows: list[dict[str, Any]] = []

    def add(metric: str, stat: str, value: object, **extra: Any) -> None:
        v = as_float(value)
        if v is not None:
            rows.append({**base, "metric": metric, "stat": stat, "value": v, **extra})

    add("iops", "mean", doc.get("iops"))
    add("bandwidth", "mean", doc.get("bandwidth_mib_s"))
    add("ops", "sum", doc.get("ops"))
    add("runtime", "value", elapsed)
    errors = as_float(doc.get("errors"))
    if errors is not None:
        add("errors", "mean", errors / elapsed)
    latency = doc.get("latency_ms")
    for stat, value in latency.items() if isinstance(latency, dict) else ():
        add("latency", str(stat), value)
    for g in doc.get("gateways") or ():
        if isinstance(g, dict):
            share = {"test": str(g.get("url") or g.get("name")), "threads": as_int(g.get("threads"))}
            add("ops", "sum", g.get("ops"), **share)
            gbytes = as_float(g.get("bytes"))
            if gbytes is not None:
                add("bandwidth", "mean", gbytes / elapsed / (1 << 20), **share)
    return results_frame(
        path,
        rows,
        "s3-probe",
        line=1,
        problem="an S3 probe sample with no figures",
        hint="pass the raw/ sample files of a prove run as prove wrote them",
    )

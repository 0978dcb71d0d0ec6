"""The tidy schema every ingest module produces: one row per measured number.

This is the contract the notebooks rely on. A row says which tool measured what (`tool`, `test`,
`workload`, `op`), under which load (`block_size_bytes`, `iodepth`, `threads`, `clients`), when
(`time_s` for time series, empty for run summaries), and the number itself as `metric` + `stat` +
`value` in the metric's one canonical `unit` (see METRIC_UNITS). Units are converted on ingest, so a
reader's fio run (KiB/s, ns) sits on the same axis as the published tables (MB/s with 1 MB = 2^20 bytes,
ms). The published data package (data/datapackage.json) keeps wide per-table columns;
flashtune.ingest.published.from_published() maps them onto this schema (its KEY_COLUMNS / VALUE_COLUMNS
list the correspondences, e.g. subtest -> workload, bandwidth_MB_per_s -> metric bandwidth in MiB/s).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd


@dataclass(frozen=True)
class Column:
    name: str
    dtype: str  # pandas extension dtype, so missing values stay missing (not NaN-floats for ints)
    unit: str | None
    description: str


COLUMNS: tuple[Column, ...] = (
    Column(
        "source", "string", None, "the file the row was read from (inside a CBT archive: its member path)"
    ),
    Column(
        "tool",
        "string",
        None,
        "fio, ior, iozone, rados-bench, sysbench or s3-probe (flashtune prove's S3 probe)",
    ),
    Column("format", "string", None, "the output format that was parsed, e.g. fio-json+, fio-log, ior-3"),
    Column(
        "run",
        "string",
        None,
        "which run: a CBT run id (iteration/id-hash[/permutation folder]), or the "
        "run's number when one file holds several (IOR repetitions of the command, appended fio JSON, "
        "concatenated sysbench outputs); empty for a file with one run",
    ),
    Column("test", "string", None, "job or test name as the tool printed it"),
    Column(
        "workload",
        "string",
        None,
        "access pattern: randread, randwrite, randrw, read, write, seq, rand, "
        "oltp_read_write, initial_writers, ... (the tool's own word, lower case, '_' for spaces)",
    ),
    Column(
        "op",
        "string",
        None,
        "direction the number is about: read, write, trim, mixed, other (sysbench) or total",
    ),
    Column("interface", "string", None, "I/O path: fio ioengine, IOR api (POSIX, MPIIO), rados, mysql"),
    Column("block_size_bytes", "Int64", "B", "block / transfer / record / object op size"),
    Column("iodepth", "Int64", None, "outstanding I/Os per job or process (rados bench: -t)"),
    Column("threads", "Int64", None, "jobs, tasks, processes or threads issuing I/O"),
    Column("clients", "Int64", None, "client nodes, where the tool reports them"),
    Column(
        "time_s", "Float64", "s", "time since the start of the run for time-series rows; empty for summaries"
    ),
    Column("bucket_ms", "Float64", "ms", "latency histogram bucket (fio json+ bins); empty otherwise"),
    Column("metric", "string", None, "what was measured; see METRIC_UNITS"),
    Column(
        "stat", "string", None, "mean, min, max, stddev, sum, count, sample, value or a percentile p50, p99.9"
    ),
    Column("value", "Float64", None, "the number, in `unit`"),
    Column("unit", "string", None, "canonical unit of the metric (METRIC_UNITS)"),
    Column(
        "unit_basis",
        "string",
        None,
        "how the unit of the tool's number was known where versions differ: "
        "'stated: fio-2.2.10' (the file, or a file beside it, names the version), 'inferred: ...' (internal "
        "consistency, e.g. io = bw x runtime), 'assumed: ...' (neither; the current version's unit)",
    ),
)

COLUMN_NAMES: tuple[str, ...] = tuple(c.name for c in COLUMNS)
DTYPES: dict[str, str] = {c.name: c.dtype for c in COLUMNS}

# One unit per metric, whatever the tool printed: MiB/s is what the published "MB/s" tables mean.
METRIC_UNITS: dict[str, str] = {
    "bandwidth": "MiB/s",  # bytes/s / 2^20; fio bw (KiB/s), rados bench "MB/sec" (really MiB/s), IOR MiB
    "iops": "IOPS",  # operations per second (IOR: OPs, sysbench: events)
    "latency": "ms",  # total latency (fio lat, rados bench, sysbench, IOR)
    "clat": "ms",  # fio completion latency
    "slat": "ms",  # fio submission latency
    "tps": "1/s",  # sysbench transactions per second
    "qps": "1/s",  # sysbench queries per second (op = read / write / other for the split, total overall)
    "errors": "1/s",  # sysbench ignored errors per second
    "reconnects": "1/s",
    "io": "MiB",  # data moved (fio io_bytes, IOR aggregate size)
    "runtime": "s",
    "ops": "count",  # operations completed (rados bench writes/reads made, sysbench events)
    "clat_histogram": "count",  # fio json+ clat bins: count of I/Os in bucket_ms
    "lat_histogram": "count",
    "cpu_usr": "%",
    "cpu_sys": "%",
}

MiB = 1024 * 1024


def empty_frame() -> pd.DataFrame:
    return pd.DataFrame({c.name: pd.Series([], dtype=c.dtype) for c in COLUMNS})


def to_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Rows (dicts with any subset of the columns) -> a DataFrame in schema order and dtypes."""

    records = list(rows)
    if not records:
        return empty_frame()
    df = pd.DataFrame.from_records(records)
    for c in COLUMNS:
        if c.name not in df.columns:
            df[c.name] = pd.Series([None] * len(df), dtype=c.dtype)
        else:
            df[c.name] = df[c.name].astype(c.dtype)
    if "unit" in df.columns:
        missing = df["unit"].isna()
        if missing.any():
            df.loc[missing, "unit"] = df.loc[missing, "metric"].map(METRIC_UNITS)
    return df[list(COLUMN_NAMES)]


def conform(df: pd.DataFrame) -> pd.DataFrame:
    """Any frame with (a subset of) the schema's columns -> exactly the schema (order, dtypes)."""

    out = df.copy()
    for c in COLUMNS:
        if c.name not in out.columns:
            out[c.name] = pd.Series([None] * len(out), dtype=c.dtype, index=out.index)
        else:
            out[c.name] = out[c.name].astype(c.dtype)
    missing = out["unit"].isna()
    if missing.any():
        out.loc[missing, "unit"] = out.loc[missing, "metric"].map(METRIC_UNITS)
    return out[list(COLUMN_NAMES)].reset_index(drop=True)


def percentile_stat(p: float) -> str:
    """50.0 -> 'p50', 99.9 -> 'p99.9', 99.99 -> 'p99.99' (fio's '99.900000' keys included)."""
    text = f"{float(p):.6f}".rstrip("0").rstrip(".")
    return f"p{text}"

"""Put a published table (flashtune.tables.load) into the ingest schema, so a chart can show the reader's
rows and the published rows on one axis, told apart by `source`.

The data package keeps one wide table per source table (lustre_iozone: subtest, nodes,
throughput_MB_per_s); the ingest schema is long. Published "MB/s" are treated as MiB/s: the Lustre study's
IOR tables satisfy MB/s = ops/s x record size only with 1 MB = 2^20 bytes, and IOzone's kB are 1024 bytes.
Which statistic a published number is depends on the tool: IOzone's throughput mode prints the children's
aggregate (`sum`), IOR 2.10 at default verbosity leads with `Max Write/Read` (`max`), fio and the slides
report averages (`mean`).
"""

from __future__ import annotations

import pandas as pd

from flashtune.errors import FlashtuneError
from flashtune.ingest.schema import COLUMN_NAMES, METRIC_UNITS, conform

# published key column -> (schema column, factor to the schema's unit)
KEY_COLUMNS: dict[str, tuple[str, float]] = {
    "subtest": ("workload", 1.0),
    "operation": ("op", 1.0),
    "api": ("interface", 1.0),
    "nodes": ("clients", 1.0),
    "threads": ("threads", 1.0),
    "record_size_KiB_derived": ("block_size_bytes", 1024.0),
    "block_size_KiB": ("block_size_bytes", 1024.0),
}
# published value column -> (metric, factor to the metric's canonical unit)
VALUE_COLUMNS: dict[str, tuple[str, float]] = {
    "throughput_MB_per_s": ("bandwidth", 1.0),
    "bandwidth_MB_per_s": ("bandwidth", 1.0),
    "bandwidth_GB_per_s": ("bandwidth", 1024.0),
    "ops_per_s": ("iops", 1.0),
    "iops_K": ("iops", 1000.0),
    "latency_ms": ("latency", 1.0),
    "resp_time_90pct_ms": ("latency", 1.0),
}
TOOL_BY_RESOURCE: dict[str, str] = {
    "lustre_iozone": "iozone",
    "lustre_ior_scaling": "ior",
    "lustre_ior_records_bandwidth": "ior",
    "lustre_ior_records_ops": "ior",
    "bluestore_5node_results": "fio",
    "bluestore_rocksdb_compaction": "fio",
    "bluestore_rocksdb_ramdisk": "fio",
    "sandisk_ec_objects": "cosbench",
}
STAT_BY_TOOL: dict[str, str] = {"iozone": "sum", "ior": "max", "fio": "mean", "cosbench": "mean"}


def from_published(df: pd.DataFrame, resource: str | None = None) -> pd.DataFrame:
    """A published table -> ingest-schema rows (source = 'published:<resource>'); other columns are kept."""

    name = resource or str(df.attrs.get("resource", ""))
    values = [c for c in df.columns if c in VALUE_COLUMNS]
    if not values:
        raise FlashtuneError(
            f"published table {name or '?'} has no measurement column flashtune can map",
            suggestion=f"known value columns: {', '.join(VALUE_COLUMNS)}",
        )
    tool = TOOL_BY_RESOURCE.get(name)
    keep = [c for c in df.columns if c not in values]
    parts = []
    for col in values:
        metric, factor = VALUE_COLUMNS[col]
        part = df[keep].copy()
        part["metric"] = metric
        part["value"] = pd.to_numeric(df[col], errors="coerce") * factor
        part["unit"] = METRIC_UNITS[metric]
        part["stat"] = {"resp_time_90pct_ms": "p90"}.get(col, STAT_BY_TOOL.get(tool or "", "value"))
        parts.append(part[part["value"].notna()])
    out = pd.concat(parts, ignore_index=True)
    for col, (target, factor) in KEY_COLUMNS.items():
        if col in out.columns and target not in df.columns:
            vals = out[col] * factor if factor != 1.0 else out[col]
            out[target] = vals
    out["tool"] = tool
    out["source"] = f"published:{name}" if name else "published"
    out["format"] = "published"
    extra = [c for c in out.columns if c not in COLUMN_NAMES]
    tidy = conform(out)
    for c in extra:
        tidy[c] = out[c].to_numpy()
    return tidy

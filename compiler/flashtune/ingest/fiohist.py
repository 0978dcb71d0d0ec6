"""fio's completion-latency histogram logs (`write_hist_log=P`, `log_hist_msec=N`): `P_clat_hist.J.log`.

Each line is `time_ms, ddir, bs, c0, c1, ...`: the I/Os that completed in that interval, per latency bucket
(fio's iolog.c flush_hist_samples writes the difference to the previous line's cumulative histogram). The
buckets are fio's log-linear `io_u_plat` ones (stat.h: 64 per power of two, FIO_IO_U_PLAT_BITS = 6), with
`2^log_hist_coarseness` of them merged per column. The column count says the version and the unit:
fio 2.x has 19 groups (1216 buckets, µs), fio 3 has 29 (1856 buckets, ns); coarseness divides either by a
power of two, and the two series never meet. A bucket's value is stat.c plat_idx_to_val (the middle of its
range); percentiles are taken as fio does (the first bucket whose running count reaches the share).

Rows: the whole-run histogram (`clat_histogram`, count per `bucket_ms`), its count and percentiles, and per
interval the count of I/Os and p50/p99 (time_s = the line's time).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from flashtune.ingest.common import bad_input, results_frame
from flashtune.ingest.schema import percentile_stat

NAME = re.compile(r"^(?P<prefix>.*)_(?P<kind>clat|lat)_hist(?:\.(?P<job>\d+))?\.log(?:\.(?P<host>[^/]+))?$")
PLAT_BITS = 6
PLAT_VAL = 1 << PLAT_BITS
# bucket count -> (groups, factor from the bucket unit to ms, fio generation)
GROUPS = {19: (1e-3, "fio 2.x, µs"), 29: (1e-6, "fio 3, ns")}
PERCENTILES = (50.0, 90.0, 95.0, 99.0, 99.9)
DDIRS = ("read", "write", "trim")


def is_hist_log(path: Path) -> bool:
    return NAME.match(path.name) is not None


def plat_idx_to_val(idx: np.ndarray) -> np.ndarray:
    """fio stat.c plat_idx_to_val, vectorised: a bucket index -> the middle of its latency range."""

    idx = idx.astype(np.int64)
    error_bits = np.maximum((idx >> PLAT_BITS) - 1, 0)
    base = np.left_shift(np.int64(1), error_bits + PLAT_BITS).astype(np.float64)
    k = idx % PLAT_VAL
    val = base + (k + 0.5) * np.left_shift(np.int64(1), error_bits).astype(np.float64)
    return np.where(idx < (PLAT_VAL << 1), idx.astype(np.float64), val)


def _layout(path: Path, columns: int) -> tuple[int, float, str]:
    """Bins -> (coarseness stride, ms factor, how the unit is known)."""
    for groups, (factor, gen) in GROUPS.items():
        full = groups * PLAT_VAL
        for coarse in range(7):
            if full >> coarse == columns:
                return 1 << coarse, factor, f"stated: {columns} histogram bins ({gen}, coarseness {coarse})"
    raise bad_input(
        path,
        f"a fio histogram log line has {columns} buckets, which no fio version writes",
        line=1,
        hint="fio writes 1216 (fio 2.x) or 1856 (fio 3) buckets, halved per log_hist_coarseness step",
    )


def _percentile(counts: np.ndarray, values: np.ndarray, p: float) -> float | None:
    total = counts.sum()
    if total <= 0:
        return None
    cum = np.cumsum(counts)
    i = int(np.searchsorted(cum, total * p / 100.0, side="left"))
    return float(values[min(i, len(values) - 1)])


def parse(path: Path) -> pd.DataFrame:
    m = NAME.match(path.name)
    rows_in: list[list[int]] = []
    try:
        with path.open("rb") as f:
            for no, raw in enumerate(f, start=1):
                if not raw.strip():
                    continue
                try:
                    rows_in.append([int(x) for x in raw.split(b",")])
                except ValueError:
                    text = raw[:60].decode("utf-8", "replace").rstrip()
                    raise bad_input(
                        path,
                        f"not a fio histogram log line: {text!r}",
                        line=no,
                        hint="a line is `time_ms, ddir, bs, count, count, ...`; a cut-off last line means "
                        "fio was stopped: drop it",
                    ) from None
                if len(rows_in[-1]) != len(rows_in[0]):
                    raise bad_input(
                        path,
                        f"line has {len(rows_in[-1])} fields, the first had {len(rows_in[0])} (cut off?)",
                        line=no,
                        hint="fio writes the same number of buckets on every line; drop the broken line",
                    )
    except OSError as e:
        raise bad_input(path, f"cannot read: {e.strerror}") from None
    if not rows_in:
        raise bad_input(path, "fio histogram log is empty", line=1, hint="the job logged nothing; re-run it")
    arr = np.asarray(rows_in, dtype=np.int64)
    stride, factor, basis = _layout(path, arr.shape[1] - 3)
    idx = np.arange(arr.shape[1] - 3) * stride
    # a merged column's value: the mean of the values of the buckets it holds
    values = np.mean([plat_idx_to_val(idx + k) for k in range(stride)], axis=0) * factor
    base: dict[str, Any] = {
        "tool": "fio",
        "test": (m.group("prefix") + (f".{m.group('job')}" if m.group("job") else "")) if m else path.stem,
        "source": str(path),
        "metric": "clat_histogram",
        "unit_basis": basis,
    }
    kind = "latency" if m and m.group("kind") == "lat" else "clat"
    rows: list[dict[str, Any]] = []
    for d in sorted(set(arr[:, 1].tolist())):
        sel = arr[arr[:, 1] == d]
        op = DDIRS[d] if 0 <= d < len(DDIRS) else "total"
        bs = {int(b) for b in sel[:, 2] if b > 0}
        row = dict(base, op=op, block_size_bytes=bs.pop() if len(bs) == 1 else None)
        counts = sel[:, 3:].sum(axis=0)
        for i in np.flatnonzero(counts):
            rows.append(dict(row, stat="count", bucket_ms=float(values[i]), value=float(counts[i])))
        rows.append(dict(row, metric=kind, stat="count", value=float(counts.sum())))
        for p in PERCENTILES:
            v = _percentile(counts, values, p)
            if v is not None:
                rows.append(dict(row, metric=kind, stat=percentile_stat(p), value=v))
        for line in sel:
            t = float(line[0]) / 1000.0
            c = line[3:]
            rows.append(dict(row, metric=kind, stat="count", time_s=t, value=float(c.sum())))
            for p in (50.0, 99.0):
                v = _percentile(c, values, p)
                if v is not None:
                    rows.append(dict(row, metric=kind, stat=percentile_stat(p), time_s=t, value=v))
    return results_frame(
        path,
        rows,
        "fio-hist-log",
        line=1,
        problem="fio histogram log without any I/O",
        hint="the job completed no I/O while logging",
    )

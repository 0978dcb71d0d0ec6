"""Reduce long time series to a chartable size (altair refuses more than 5,000 rows by default).

`LogAggregator` is the streaming reducer behind fio log ingest: samples are folded into time bins as
they are read, so memory depends on the number of bins, never on the file size. Per bin and direction
it keeps count, sum, min, max and a log-linear histogram (16 sub-buckets per power of two, like fio's
own latency bins), from which percentiles are read with at most ~3 % relative error. Bins that grow too
many are merged pairwise (exact for all of these), so the bin width doubles as needed.

`bin_frame` does the same for any tidy frame that has `time_s` (sysbench intervals, raw log rows), and
`limit_rows` is the last guard before charting.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from flashtune.errors import FlashtuneError
from flashtune.ingest.schema import COLUMN_NAMES, conform

Stats = tuple[str, ...]
DEFAULT_STATS: Stats = ("mean", "min", "max", "p50", "p99")
MAX_CHART_ROWS = 5000  # altair's default max_rows
SUB = 16  # histogram sub-buckets per power of two (the top 4 mantissa bits of a float64)
_OFFSET = 0x3FF0 - 1  # float64 bits >> 48 of 1.0, minus one: value 1 -> bucket 1, value 0 -> bucket 0
NBUCKETS = 1040  # covers every positive int64
STREAM_BIN_CAP = 1024  # bins kept while streaming (auto width)
EXPLICIT_BIN_CAP = 8192  # bins allowed when the caller fixes the width


SUMMARY_PERCENTILES = (50.0, 90.0, 95.0, 99.0, 99.9)


def _pstat(q: float) -> str:
    return "p" + f"{q:.6f}".rstrip("0").rstrip(".")


def _percentile_of(stat: str) -> float | None:
    if stat.startswith("p"):
        try:
            q = float(stat[1:])
        except ValueError:
            return None
        return q if 0 <= q <= 100 else None
    return None


def check_stats(stats: Stats) -> None:
    for s in stats:
        if s not in ("mean", "min", "max", "count", "sum") and _percentile_of(s) is None:
            raise FlashtuneError(
                f"unknown statistic {s!r}",
                suggestion="use mean, min, max, count, sum or a percentile like p50, p99.9",
            )


def _buckets(as_float: np.ndarray) -> np.ndarray:
    """Log-linear bucket of each (non-negative) value: its float64 exponent and top 4 mantissa bits.

    Reading the bits is several times cheaper than log2/frexp and gives the same 16 sub-buckets per
    power of two (fio's own latency histogram uses the same idea).
    """

    idx: np.ndarray = (as_float.view(np.int64) >> 48) - _OFFSET
    np.clip(idx, 0, NBUCKETS - 1, out=idx)
    return idx


def _bucket_mid(idx: np.ndarray) -> np.ndarray:
    """Representative value of each bucket (middle of its range)."""

    lo = ((idx.astype(np.int64) + _OFFSET) << 48).view(np.float64)
    hi = ((idx.astype(np.int64) + _OFFSET + 1) << 48).view(np.float64)
    out: np.ndarray = np.where(idx <= 0, 0.0, (lo + hi) / 2.0)
    return out


class LogAggregator:
    """Streaming per-bin statistics of (time_ms, value, ddir) samples; 3 directions (read/write/trim)."""

    def __init__(
        self,
        *,
        bin_ms: int | None = None,
        stats: Stats = DEFAULT_STATS,
        max_rows: int = MAX_CHART_ROWS,
        summary: bool = False,
    ) -> None:
        check_stats(stats)
        if bin_ms is not None and bin_ms <= 0:
            raise FlashtuneError(
                f"bin width must be positive, not {bin_ms} ms", suggestion="e.g. --bin-ms 1000"
            )
        self.stats = stats
        self.fixed = bin_ms is not None
        self.width = int(bin_ms) if bin_ms else 1
        self.preset_width = False  # a parallel reader fixed origin and width up front
        self.max_rows = max_rows
        self.cap = EXPLICIT_BIN_CAP if self.fixed else STREAM_BIN_CAP
        # whole-run percentiles (summary) need the histogram even when the bins show none
        self.want_hist = summary or any(_percentile_of(s) is not None for s in stats)
        self.origin: int | None = None
        self.nbins = 0
        self.count = np.zeros((0, 3), np.int64)
        self.sum = np.zeros((0, 3), np.float64)
        self.min = np.zeros((0, 3), np.int64)
        self.max = np.zeros((0, 3), np.int64)
        self.hist = np.zeros((0, 3, NBUCKETS), np.uint32)
        self.samples = 0

    # -- growth and merging ------------------------------------------------------------------------
    def _grow(self, nbins: int) -> None:
        if nbins <= self.nbins:
            return
        extra = nbins - self.nbins
        big = np.iinfo(np.int64).max
        self.count = np.concatenate([self.count, np.zeros((extra, 3), np.int64)])
        self.sum = np.concatenate([self.sum, np.zeros((extra, 3), np.float64)])
        self.min = np.concatenate([self.min, np.full((extra, 3), big, np.int64)])
        self.max = np.concatenate([self.max, np.full((extra, 3), -big, np.int64)])
        if self.want_hist:
            self.hist = np.concatenate([self.hist, np.zeros((extra, 3, NBUCKETS), np.uint32)])
        self.nbins = nbins

    def _coarsen(self, factor: int) -> None:
        """Merge every `factor` adjacent bins into one (width *= factor)."""

        if factor <= 1:
            return
        n = -(-self.nbins // factor)
        self._grow(n * factor)
        big = np.iinfo(np.int64).max

        def fold(a: np.ndarray, how: str) -> np.ndarray:
            shaped = a.reshape((n, factor, *a.shape[1:]))
            if how == "sum":
                return np.asarray(shaped.sum(axis=1, dtype=a.dtype))
            return np.asarray(shaped.min(axis=1) if how == "min" else shaped.max(axis=1))

        self.count = fold(self.count, "sum")
        self.sum = fold(self.sum, "sum")
        self.min = np.where(self.count > 0, fold(self.min, "min"), big)
        self.max = np.where(self.count > 0, fold(self.max, "max"), -big)
        if self.want_hist:
            self.hist = fold(self.hist, "sum")
        self.nbins = n
        self.width *= factor

    # -- input ---------------------------------------------------------------------------------------
    def add(self, time_ms: np.ndarray, values: np.ndarray, ddir: np.ndarray) -> None:
        if len(time_ms) == 0:
            return
        if self.origin is None:
            first = int(time_ms[0])
            # fio times count from job start; with log_unix_epoch they are epoch ms: bin relative to the start
            self.origin = 0 if first < 10**11 else first - first % 1000
        rel = time_ms - self.origin
        if rel.min() < 0:
            raise FlashtuneError(
                "fio log time goes backwards past its first sample",
                suggestion="pass one job's log per file, as fio writes them",
            )
        last = int(rel.max())
        if not self.fixed and self.samples == 0 and not self.preset_width:
            # first chunk: pick a width that fits this chunk's span into a quarter of the cap
            self.width = max(1, -(-(last + 1) // (self.cap // 4)))
        need = last // self.width + 1
        if need > self.cap:
            if self.fixed:
                raise FlashtuneError(
                    f"a {self.width} ms bin width gives more than {self.cap} bins for this log",
                    suggestion="choose a wider bin (or leave it out to let flashtune pick one)",
                )
            factor = 1
            while need > self.cap * factor:
                factor *= 2
            self._coarsen(factor)
            need = last // self.width + 1
        self._grow(need)
        self.samples += len(time_ms)
        key = rel // self.width
        key *= 3
        key += np.clip(ddir, 0, 2)
        flat = self.nbins * 3
        vf = values.astype(np.float64)
        if self.want_hist:
            lo = int(key.min())
            span = int(key.max()) - lo + 1
            hk = key - lo
            hk *= NBUCKETS
            hk += _buckets(vf)
            h = np.bincount(hk, minlength=span * NBUCKETS).reshape(span, NBUCKETS)
            self.hist.reshape(-1, NBUCKETS)[lo : lo + span] += h.astype(np.uint32)
            self.count.reshape(-1)[lo : lo + span] += h.sum(axis=1)
        else:
            self.count += np.bincount(key, minlength=flat).reshape(self.nbins, 3)
        self.sum += np.bincount(key, weights=vf, minlength=flat).reshape(self.nbins, 3)
        np.minimum.at(self.min.reshape(-1), key, values)
        np.maximum.at(self.max.reshape(-1), key, values)

    def preset(self, first_ms: int, last_ms: int) -> None:
        """Fix origin and width from the log's first and last times (read cheaply from its ends), so
        serial and parallel reads bin identically."""
        self.origin = 0 if first_ms < 10**11 else first_ms - first_ms % 1000
        if not self.fixed and last_ms >= first_ms:
            self.width = max(1, -(-(last_ms - self.origin + 1) // (self.cap // 4)))
        self.preset_width = True

    def reserve(self, last_ms: int) -> None:
        """Allocate the bins up to the log's last time at once (it is a sample, so the bin count ends
        the same); saves re-copying the arrays as a streamed log reaches new bins block by block."""
        if self.origin is None or last_ms < self.origin:
            return
        need = (last_ms - self.origin) // self.width + 1
        if need <= self.cap:
            self._grow(need)

    def merge(self, other: LogAggregator) -> None:
        """Fold another aggregator of the same origin into this one (widths are power-of-2 multiples)."""

        if other.samples == 0:
            return
        if self.samples == 0:
            self.__dict__.update(
                {k: v for k, v in other.__dict__.items() if k not in ("fixed", "cap", "max_rows")}
            )
            return
        if self.origin != other.origin:
            raise ValueError("cannot merge aggregators with different time origins")
        if other.width > self.width:
            self._coarsen(other.width // self.width)
        elif self.width > other.width:
            other._coarsen(self.width // other.width)
        n = max(self.nbins, other.nbins)
        self._grow(n)
        other._grow(n)
        self.count += other.count
        self.sum += other.sum
        np.minimum(self.min, other.min, out=self.min)
        np.maximum(self.max, other.max, out=self.max)
        if self.want_hist:
            self.hist += other.hist
        self.samples += other.samples

    def state(self) -> dict[str, object]:
        """Everything needed to rebuild this aggregator in another process (picklable)."""
        return dict(self.__dict__)

    @classmethod
    def from_state(cls, state: dict[str, object]) -> LogAggregator:
        agg = cls.__new__(cls)
        agg.__dict__.update(state)
        return agg

    # -- output --------------------------------------------------------------------------------------
    def frame(
        self, *, factor: float = 1.0, ddir_names: tuple[str, ...] = ("read", "write", "trim")
    ) -> pd.DataFrame:
        """Tidy rows: time_s (bin start), op, stat, value (times factor); fewer than max_rows if auto."""

        used = [d for d in range(3) if self.count[:, d].sum() > 0] if self.nbins else []
        if not self.fixed and used:
            per_bin = len(used) * len(self.stats)
            target = max(1, (self.max_rows - 1) // per_bin)
            factor_bins = 1
            while -(-self.nbins // factor_bins) > target:
                factor_bins += 1
            self._coarsen(factor_bins)
        parts = []
        for d in used:
            have = self.count[:, d] > 0
            idx = np.flatnonzero(have)
            start_s = (self.origin or 0) / 1000.0 + idx * self.width / 1000.0
            cnt = self.count[idx, d]
            cum = np.cumsum(self.hist[idx, d, :], axis=1) if self.want_hist else None
            for stat in self.stats:
                if stat == "mean":
                    vals = self.sum[idx, d] / cnt * factor
                elif stat == "sum":
                    vals = self.sum[idx, d] * factor
                elif stat == "count":
                    vals = cnt.astype(np.float64)
                elif stat == "min":
                    vals = self.min[idx, d] * factor
                elif stat == "max":
                    vals = self.max[idx, d] * factor
                else:
                    q = _percentile_of(stat) or 0.0
                    assert cum is not None
                    rank = np.maximum(1, np.ceil(cnt * q / 100.0)).astype(np.int64)
                    pos = (cum >= rank[:, None]).argmax(axis=1)
                    vals = _bucket_mid(pos) * factor
                    # a percentile can never leave the observed range
                    vals = np.clip(vals, self.min[idx, d] * factor, self.max[idx, d] * factor)
                parts.append(
                    pd.DataFrame(
                        {
                            "time_s": start_s,
                            "op": ddir_names[d],
                            "stat": stat,
                            "value": np.asarray(vals, dtype=np.float64),
                        }
                    )
                )
        if not parts:
            return pd.DataFrame({"time_s": [], "op": [], "stat": [], "value": []})
        return pd.concat(parts, ignore_index=True)

    def summary_frame(
        self, *, factor: float = 1.0, ddir_names: tuple[str, ...] = ("read", "write", "trim")
    ) -> pd.DataFrame:
        """Whole-run rows per direction: count, mean, min, max exactly, percentiles from the merged
        histogram (same <= ~3 % bucket error as the bins), so a log compares with fio's own summary."""

        rows = []
        for d in range(3):
            have = self.count[:, d] > 0 if self.nbins else np.zeros(0, bool)
            n = int(self.count[have, d].sum()) if self.nbins else 0
            if n == 0:
                continue
            lo, hi = int(self.min[have, d].min()), int(self.max[have, d].max())
            vals = {
                "count": float(n),
                "mean": float(self.sum[have, d].sum()) / n * factor,
                "min": lo * factor,
                "max": hi * factor,
            }
            if self.want_hist:
                cum = np.cumsum(self.hist[have, d, :].sum(axis=0, dtype=np.int64))
                for q in SUMMARY_PERCENTILES:
                    rank = max(1, int(np.ceil(n * q / 100.0)))
                    pos = int(np.searchsorted(cum, rank))
                    mid = float(_bucket_mid(np.array([pos]))[0])
                    vals[_pstat(q)] = min(max(mid, lo), hi) * factor
            for stat, v in vals.items():
                rows.append({"op": ddir_names[d], "stat": stat, "value": v})
        return pd.DataFrame(rows, columns=["op", "stat", "value"])

    @property
    def bin_ms(self) -> int:
        return self.width


def bin_frame(
    df: pd.DataFrame,
    *,
    bin_s: float | None = None,
    stats: Stats = DEFAULT_STATS,
    max_rows: int = MAX_CHART_ROWS,
) -> pd.DataFrame:
    """Bin a tidy frame's time-series rows (time_s set) per series; summary rows pass through unchanged.

    A series is every column but time_s/value/stat; the default width keeps the result under max_rows.
    Percentiles here are exact (pandas quantile), as the input is already in memory.
    """

    check_stats(stats)
    ts = df[df["time_s"].notna()]
    rest = df[df["time_s"].isna()]
    if ts.empty:
        return conform(df)
    keys = [c for c in COLUMN_NAMES if c not in ("time_s", "value", "stat", "bucket_ms") and c in ts.columns]
    nseries = max(1, len(ts.groupby(keys, dropna=False, observed=True)))
    span = float(ts["time_s"].max() - ts["time_s"].min())
    if bin_s is None:
        target = max(1, (max_rows - len(rest)) // (nseries * len(stats)))
        bin_s = span / target if span > 0 else 1.0
        bin_s = max(bin_s, 1e-3)
    elif bin_s <= 0:
        raise FlashtuneError(f"bin width must be positive, not {bin_s} s", suggestion="e.g. bin_s=1.0")
    work = ts.copy()
    work["time_s"] = np.floor(work["time_s"].astype("float64") / bin_s) * bin_s
    g = work.groupby([*keys, "time_s"], dropna=False, observed=True)["value"]
    out = []
    for stat in stats:
        q = _percentile_of(stat)
        s = g.quantile(q / 100.0) if q is not None else getattr(g, stat)()
        part = s.rename("value").reset_index()
        part["stat"] = stat
        out.append(part)
    binned = pd.concat(out, ignore_index=True)
    return conform(pd.concat([conform(rest), conform(binned)], ignore_index=True))


def limit_rows(df: pd.DataFrame, max_rows: int = MAX_CHART_ROWS) -> pd.DataFrame:
    """Return df if it is small enough to chart, else its time series binned down (summaries kept)."""
    if len(df) < max_rows:
        return df
    out = bin_frame(df, max_rows=max_rows)
    if len(out) >= max_rows:
        raise FlashtuneError(
            f"{len(out)} rows are left after binning, more than the {max_rows} a chart takes",
            suggestion="filter the frame (one test, one metric) before charting",
        )
    return out

"""Ingest of the reader's own benchmark results into flashtune's tidy schema (see schema.py).

    from flashtune.ingest import load, load_many, COLUMNS, METRIC_UNITS
    df = load("fio-run.json")                # fio JSON / JSON+, a fio log, IOR, IOzone, rados bench,
    df = load_many(["a.json", "cbt-archive/"])  # sysbench output, or a CBT results archive

Every loader returns a pandas DataFrame with exactly the columns of `COLUMNS` (dtypes included), values
in the canonical unit of their metric (`METRIC_UNITS`). fio logs are streamed and binned so the result
stays under 5,000 rows (altair's limit); pass raw=True for every sample. Bad or truncated files raise
flashtune.errors.FlashtuneError naming file:line with a hint.

This package imports pandas; the compiler and linter never import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from flashtune.errors import FlashtuneError
from flashtune.ingest.aggregate import DEFAULT_STATS, MAX_CHART_ROWS, Stats, bin_frame, limit_rows
from flashtune.ingest.schema import COLUMN_NAMES, COLUMNS, METRIC_UNITS, Column
from flashtune.ingest.sniff import detect as _detect
from flashtune.ingest.walk import Collected, Skipped, collect

__all__ = [
    "COLUMNS",
    "COLUMN_NAMES",
    "DEFAULT_STATS",
    "MAX_CHART_ROWS",
    "METRIC_UNITS",
    "Collected",
    "Column",
    "Skipped",
    "bin_frame",
    "collect",
    "detect",
    "limit_rows",
    "load",
    "load_many",
]


def detect(path: str | Path) -> str:
    """The format name of a file or directory (see flashtune.ingest.sniff.FORMATS)."""

    return _detect(Path(path))


def load(
    path: str | Path,
    *,
    fmt: str | None = None,
    raw: bool = False,
    bin_ms: int | None = None,
    stats: Stats | None = None,
    workers: int | None = None,
) -> pd.DataFrame:
    """Read one result file, CBT archive or directory of them into the tidy schema.

    A plain directory is walked (see collect); files no supported tool wrote are skipped, and the first
    broken result file raises. fmt forces a format (FORMATS) instead of detecting it. raw/bin_ms/stats
    only concern fio logs: raw=True returns every sample; otherwise samples are binned (bin_ms, or
    automatically to fewer than 5,000 rows) with the given statistics (default mean, min, max, p50, p99),
    beside whole-run summary rows (time_s empty). workers > 1 splits one big log between that many
    processes; None picks 2 for logs of AUTO_PARALLEL_BYTES or more.
    """
    got = collect([path], fmt=fmt, raw=raw, bin_ms=bin_ms, stats=stats, workers=workers)
    if got.errors:
        raise got.errors[0]
    if got.frame.empty and Path(path).is_dir():
        raise FlashtuneError(
            "no benchmark output found in this directory",
            file=str(path),
            suggestion="supported: fio JSON/JSON+ and its logs, IOR, IOzone, rados bench, sysbench output, CBT archives"
            + (
                "; skipped: " + "; ".join(f"{s.path}: {s.reason}" for s in got.skipped[:5])
                if got.skipped
                else ""
            ),
        )
    return got.frame


def load_many(paths: Iterable[str | Path], **kwargs: object) -> pd.DataFrame:
    """load() each path and stack the results (one frame, same schema); the first bad file raises."""
    got = collect(paths, **kwargs)  # type: ignore[arg-type]
    if got.errors:
        raise got.errors[0]
    return got.frame

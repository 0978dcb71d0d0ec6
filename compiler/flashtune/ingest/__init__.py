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

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from flashtune.ingest.aggregate import DEFAULT_STATS, MAX_CHART_ROWS, Stats, bin_frame, limit_rows
from flashtune.ingest.schema import COLUMN_NAMES, COLUMNS, METRIC_UNITS, Column

if TYPE_CHECKING:
    import pandas as pd

# Logs at least this big are split between two processes when workers is not given: measured on an idle
# 2-core machine (bench/bench_ingest.py) two workers read 1 GiB of logs ~1.4-1.6x faster than one, while
# below a few hundred MiB the start-up of the second process eats the gain.
AUTO_PARALLEL_BYTES = 256 * 1024 * 1024


def auto_workers(path: Path) -> int:
    """Processes to use for one fio log when the caller did not say: 2 for big logs on multi-core hosts."""
    try:
        big = path.stat().st_size >= AUTO_PARALLEL_BYTES
    except OSError:
        return 1
    return 2 if big and (os.cpu_count() or 1) >= 2 else 1

__all__ = [
    "COLUMNS",
    "COLUMN_NAMES",
    "DEFAULT_STATS",
    "MAX_CHART_ROWS",
    "METRIC_UNITS",
    "Column",
    "bin_frame",
    "detect",
    "limit_rows",
    "load",
    "load_many",
]


def detect(path: str | Path) -> str:
    """The format name of a file or directory (see flashtune.ingest.sniff.FORMATS)."""
    from flashtune.ingest.sniff import detect as _detect

    return _detect(Path(path))


def load(path: str | Path, *, fmt: str | None = None, raw: bool = False, bin_ms: int | None = None,
         stats: Stats | None = None, workers: int | None = None) -> pd.DataFrame:  # fmt: skip
    """Read one result file (or CBT archive) into the tidy schema.

    A plain directory loads every result file under it (other files are skipped). fmt forces a format
    (FORMATS) instead of detecting it. raw/bin_ms/stats only concern fio logs:
    raw=True returns every sample; otherwise samples are binned (bin_ms, or automatically to fewer than
    5,000 rows) with the given statistics (default mean, min, max, p50, p99). workers > 1 splits one
    big log between that many processes; None picks 2 for logs of AUTO_PARALLEL_BYTES or more.
    """
    from flashtune.ingest import cbt, fio, ior, iozone, radosbench, sysbench
    from flashtune.ingest.sniff import FORMATS
    from flashtune.ingest.sniff import detect as _detect

    p = Path(path)
    kind = fmt or _detect(p)
    if kind not in FORMATS:
        from flashtune.errors import UsageError

        raise UsageError(f"unknown format {kind!r}", suggestion=f"use one of: {', '.join(FORMATS)}")
    from flashtune.ingest.schema import conform

    if kind == "directory":
        return _load_dir(p, raw=raw, bin_ms=bin_ms, stats=stats, workers=workers)
    if kind == "cbt":
        return conform(cbt.parse(p, bin_ms=bin_ms, stats=stats))
    if kind == "fio-log":
        n = workers if workers is not None else auto_workers(p)
        return conform(fio.parse_log(p, raw=raw, bin_ms=bin_ms, stats=stats, workers=n))
    parser = {"fio-json": fio.parse_json, "ior": ior.parse, "iozone": iozone.parse,
              "rados-bench": radosbench.parse, "sysbench": sysbench.parse}[kind]  # fmt: skip
    return conform(parser(p))


def _load_dir(root: Path, **kwargs: object) -> pd.DataFrame:
    """Every result file under a plain directory; files no supported tool wrote (job files, notes) are
    skipped, but a known format that is broken still fails."""
    import pandas as pd

    from flashtune.errors import FlashtuneError
    from flashtune.ingest.schema import conform
    from flashtune.ingest.sniff import UnknownFormat

    frames = []
    for f in sorted(root.rglob("*")):
        if not f.is_file() or any(part.startswith(".") for part in f.relative_to(root).parts):
            continue
        try:
            frames.append(load(f, **kwargs))  # type: ignore[arg-type]
        except UnknownFormat:
            continue
        except FlashtuneError as e:
            if "file is empty" in e.message or "binary file" in e.message:
                continue
            raise
    if not frames:
        raise FlashtuneError(
            "no benchmark output found in this directory",
            file=str(root),
            suggestion="supported: fio JSON/JSON+ and its logs, IOR, IOzone, rados bench, sysbench output, CBT archives",
        )
    return conform(pd.concat(frames, ignore_index=True))


def load_many(paths: Iterable[str | Path], **kwargs: object) -> pd.DataFrame:
    """load() each path and stack the results (one frame, same schema)."""
    import pandas as pd

    from flashtune.ingest.schema import conform, empty_frame

    frames = [load(p, **kwargs) for p in paths]  # type: ignore[arg-type]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return empty_frame()
    return conform(pd.concat(frames, ignore_index=True))

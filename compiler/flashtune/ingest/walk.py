"""Reading many inputs at once: files, CBT archives, and directories walked file by file.

One bad file does not lose the others: every input is read on its own, a broken one becomes an error
entry (its FlashtuneError, with file:line), files no supported tool wrote become skipped entries with
the reason, and the rest are stacked into one frame. A directory is walked: a CBT archive found inside
it (a folder with results/<iteration>/id-*/benchmark_config.yaml, or a CBT tarball) is read as one
archive and not walked further; everything else is recognised file by file.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from flashtune.errors import FlashtuneError, UsageError
from flashtune.ingest import (
    cbt,
    fio,
    fiohist,
    fionormal,
    fioterse,
    ior,
    iozone,
    radosbench,
    s3probe,
    sysbench,
)
from flashtune.ingest.aggregate import Stats
from flashtune.ingest.common import take_notes
from flashtune.ingest.schema import conform, empty_frame
from flashtune.ingest.sniff import FORMATS, UnknownFormat, detect
from flashtune.ingest.textio import NotText
from flashtune.progress import tick

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


# Files a result folder usually holds besides results: skipped quietly by name (still listed as skipped).
_NOT_RESULTS = (
    ".fio",
    ".ini",
    ".yaml",
    ".yml",
    ".sh",
    ".py",
    ".md",
    ".png",
    ".svg",
    ".pdf",
    ".html",
    ".R",
    ".lua",
    ".cnf",
    ".conf",
    ".pl",
)


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass
class Collected:
    frame: pd.DataFrame
    skipped: list[Skipped] = field(default_factory=list)
    errors: list[FlashtuneError] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)
    files_read: int = 0
    bad_rows: int = 0  # rows left out of files that were read (their errors are in `errors` too)
    files_with_bad_rows: int = 0


# Columns that hold amounts: none can be below zero, and a number that overflowed (1e400 in a JSON file is
# infinity) or was not a number is no measurement. Such rows are left out, counted and named.
_AMOUNTS = ("value", "time_s", "bucket_ms", "block_size_bytes", "iodepth", "threads", "clients")


def _impossible(df: pd.DataFrame) -> pd.Series:
    """Rows whose value is missing, not finite or negative, or whose other amounts are negative/infinite."""

    bad = df["value"].isna()
    for col in _AMOUNTS:
        if col in df.columns:
            v = df[col].astype("Float64")
            bad |= v.notna() & ~(np.isfinite(v.fillna(0).to_numpy(dtype=float)) & (v.fillna(0) >= 0))
    return bad


def _drop_impossible(p: Path, df: pd.DataFrame) -> tuple[pd.DataFrame, FlashtuneError | None, int]:
    bad = _impossible(df)
    n = int(bad.sum())
    if not n:
        return df, None, 0
    shown = []
    for _, row in df[bad].head(3).iterrows():
        what = [f"{row['metric']} {row['stat']} = {row['value']:g}"]
        what += [f"{c} = {row[c]}" for c in _AMOUNTS[1:] if c in df.columns and _is_off(row[c])]
        test = f" ({row['test']})" if isinstance(row.get("test"), str) and row["test"] else ""
        shown.append(", ".join(what) + test)
    more = f" and {n - len(shown)} more" if n > len(shown) else ""
    err = FlashtuneError(
        f"{n} row(s) with impossible values left out (not a number, infinite or below zero): "
        + "; ".join(shown)
        + more,
        file=str(p),
        suggestion="a number too large for a float (e.g. 1e400) or a negative count or time is no "
        "measurement; check the tool's output",
    )
    return df[~bad].reset_index(drop=True), err, n


def _is_off(v: object) -> bool:
    return isinstance(v, (int, float)) and (not math.isfinite(v) or v < 0)


def _load_file(
    p: Path, kind: str, *, raw: bool, bin_ms: int | None, stats: Stats | None, workers: int | None
) -> pd.DataFrame:
    if kind == "cbt":
        return conform(cbt.parse(p, bin_ms=bin_ms, stats=stats))
    if kind == "fio-log":
        n = workers if workers is not None else auto_workers(p)
        return conform(fio.parse_log(p, raw=raw, bin_ms=bin_ms, stats=stats, workers=n))
    parser = {
        "fio-json": fio.parse_json,
        "fio-hist-log": fiohist.parse,
        "fio-normal": fionormal.parse,
        "fio-terse": fioterse.parse,
        "ior": ior.parse,
        "iozone": iozone.parse,
        "rados-bench": radosbench.parse,
        "s3-probe": s3probe.parse,
        "sysbench": sysbench.parse,
    }[kind]
    return conform(parser(p))


def _inputs(root: Path) -> Iterable[tuple[Path, str | None]]:
    """(path, forced kind or None) for everything under a directory; CBT archives are not descended."""

    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        if cbt.is_archive_root(d):
            dirnames[:] = []
            yield d, "cbt"
            continue
        dirnames[:] = sorted(n for n in dirnames if not n.startswith("."))
        for name in sorted(filenames):
            if not name.startswith("."):
                yield d / name, None


def collect(
    paths: Iterable[str | Path],
    *,
    fmt: str | None = None,
    raw: bool = False,
    bin_ms: int | None = None,
    stats: Stats | None = None,
    workers: int | None = None,
) -> Collected:
    """Read every input; never stops at a bad one (see the module doc)."""

    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}", suggestion=f"use one of: {', '.join(FORMATS)}")
    out = Collected(empty_frame())
    frames: list[pd.DataFrame] = []
    take_notes()
    for p, kind, walked in _once(paths, fmt, out):
        try:
            k = kind or detect(p)
            if k == "directory":
                out.skipped.append(Skipped(str(p), "a directory with no results"))
                continue
            frame, bad, n = _drop_impossible(
                p, _load_file(p, k, raw=raw, bin_ms=bin_ms, stats=stats, workers=workers)
            )
            frames.append(frame)
            out.files_read += 1
            if bad is not None:
                out.errors.append(bad)
                out.bad_rows += n
                out.files_with_bad_rows += 1
        except (UnknownFormat, NotText) as e:
            if not walked:
                out.errors.append(e)
            else:
                reason = e.message if isinstance(e, NotText) else _skip_reason(p, e)
                out.skipped.append(Skipped(str(p), reason))
        except FlashtuneError as e:
            e.file = e.file or str(p)
            if walked and ("file is empty" in e.message):
                out.skipped.append(Skipped(str(p), "empty file"))
            else:
                out.errors.append(e)
        finally:
            out.notes += take_notes()
            if kind != "cbt":  # (an archive counts its own files)
                tick()
    frames = [f for f in frames if not f.empty]
    if frames:
        out.frame = conform(pd.concat(frames, ignore_index=True))
    return out


def _once(
    paths: Iterable[str | Path], fmt: str | None, out: Collected
) -> list[tuple[Path, str | None, bool]]:
    """Every input to read, each once: (path, forced kind, found by walking a folder).

    The same file reached twice (named twice, by another spelling or link, or as a folder and a file in it,
    or as a file inside a CBT archive that is read whole) is read once, with a note: read twice, its rows
    would count twice. Different files with the same bytes are read both, with a note naming the pair."""
    items: list[tuple[Path, str | None, bool, str]] = []
    for given in paths:
        top = Path(given)
        walked = top.is_dir() and fmt in (None, "directory") and not _is_cbt(top)
        found: Iterable[tuple[Path, str | None]] = _inputs(top) if walked else [(top, fmt)]
        items += [(p, kind, walked, os.path.realpath(p)) for p, kind in found]
    archives = [real for p, kind, _, real in items if kind == "cbt" or (kind is None and p.is_dir())]
    first: dict[str, Path] = {}
    kept: list[tuple[Path, str | None, bool]] = []
    for p, kind, walked, real in items:
        holder = next((a for a in archives if real != a and real.startswith(a.rstrip("/") + "/")), None)
        if real in first:
            out.notes.append((str(p), f"read once: it is {first[real]}, already among the inputs"))
            continue
        if holder is not None:
            out.notes.append((str(p), f"read once: it lies inside {holder}, which is read whole"))
            continue
        first[real] = p
        kept.append((p, kind, walked))
    _same_content(kept, out)
    return kept


def _same_content(kept: list[tuple[Path, str | None, bool]], out: Collected) -> None:
    """A note for each file whose bytes equal an earlier input's (sizes compared first: only files of one
    size are hashed)."""

    by_size: dict[int, list[Path]] = {}
    for p, _, _ in kept:
        try:
            if p.is_file():
                by_size.setdefault(p.stat().st_size, []).append(p)
        except OSError:
            continue  # the reader reports it
    for size, same in by_size.items():
        if len(same) < 2 or size == 0:
            continue
        seen: dict[str, Path] = {}
        for p in same:
            try:
                digest = hashlib.sha256(p.read_bytes()).hexdigest()
            except OSError:
                continue
            if digest in seen:
                out.notes.append(
                    (str(p), f"has the same content as {seen[digest]}: if they are one result, pass it once")
                )
            else:
                seen[digest] = p


def _is_cbt(p: Path) -> bool:
    return cbt.is_archive_root(p)


def _skip_reason(p: Path, e: FlashtuneError) -> str:
    if p.name.endswith(_NOT_RESULTS):
        return f"not a result file ({p.suffix} file)"
    return e.message

"""Reading many inputs at once: files, CBT archives, and directories walked file by file.

One bad file does not lose the others: every input is read on its own, a broken one becomes an error
entry (its FlashtuneError, with file:line), files no supported tool wrote become skipped entries with
the reason, and the rest are stacked into one frame. A directory is walked: a CBT archive found inside
it (a folder with results/<iteration>/id-*/benchmark_config.yaml, or a CBT tarball) is read as one
archive and not walked further; everything else is recognised file by file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from flashtune.errors import FlashtuneError
from flashtune.ingest.aggregate import Stats

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


def _load_file(
    p: Path, kind: str, *, raw: bool, bin_ms: int | None, stats: Stats | None, workers: int | None
) -> pd.DataFrame:
    from flashtune.ingest import (
        auto_workers,
        cbt,
        fio,
        fiohist,
        fionormal,
        fioterse,
        ior,
        iozone,
        radosbench,
        sysbench,
    )
    from flashtune.ingest.schema import conform

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
        "sysbench": sysbench.parse,
    }[kind]
    return conform(parser(p))


def _inputs(root: Path) -> Iterable[tuple[Path, str | None]]:
    """(path, forced kind or None) for everything under a directory; CBT archives are not descended."""
    from flashtune.ingest import cbt

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
    import pandas as pd

    from flashtune.ingest.common import take_notes
    from flashtune.ingest.schema import conform, empty_frame
    from flashtune.ingest.sniff import FORMATS, UnknownFormat, detect
    from flashtune.ingest.textio import NotText

    if fmt is not None and fmt not in FORMATS:
        from flashtune.errors import UsageError

        raise UsageError(f"unknown format {fmt!r}", suggestion=f"use one of: {', '.join(FORMATS)}")
    out = Collected(empty_frame())
    frames: list[pd.DataFrame] = []
    take_notes()
    for given in paths:
        top = Path(given)
        walked = top.is_dir() and fmt in (None, "directory") and not _is_cbt(top)
        items: Iterable[tuple[Path, str | None]] = _inputs(top) if walked else [(top, fmt)]
        for p, kind in items:
            try:
                k = kind or detect(p)
                if k == "directory":
                    out.skipped.append(Skipped(str(p), "a directory with no results"))
                    continue
                frames.append(_load_file(p, k, raw=raw, bin_ms=bin_ms, stats=stats, workers=workers))
                out.files_read += 1
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
    frames = [f for f in frames if not f.empty]
    if frames:
        out.frame = conform(pd.concat(frames, ignore_index=True))
    return out


def _is_cbt(p: Path) -> bool:
    from flashtune.ingest import cbt

    return cbt.is_archive_root(p)


def _skip_reason(p: Path, e: FlashtuneError) -> str:
    if p.name.endswith(_NOT_RESULTS):
        return f"not a result file ({p.suffix} file)"
    return e.message

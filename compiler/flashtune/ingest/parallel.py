"""Split one big fio log between worker processes: each bins its byte range, the parent merges the bins.

Binning is a sum of per-bin counts, sums, histograms and min/max, so parts merge exactly. All workers use
the same time origin and bin width (taken from the file's first and last lines), so their bins line up.
Workers are plain `python -m flashtune.ingest.parallel` children fed a task on stdin (multiprocessing's
spawn would re-import the caller's __main__, which a notebook or `python -` does not have). Any problem in
a worker (a malformed line, a worker that cannot start) makes the caller fall back to the serial reader,
which also reports the exact file:line of a bad line.

It is opt-in (load(..., workers=2)). Workers run only the vectorised numpy reader (flashtune.ingest.fastlog)
and never import pandas, so one starts in ~0.1 s; a block outside fio's exact layout sends the whole read
back to the serial path. It pays off for logs of tens of MiB and more when the cores are not busy.
"""

from __future__ import annotations

import atexit
import itertools
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

from flashtune.ingest import fastlog
from flashtune.ingest.aggregate import LogAggregator


def _line_time(line: bytes) -> int | None:
    head = line.split(b",", 1)[0].strip()
    return int(head) if head.isdigit() else None


def first_and_last_time(path: Path) -> tuple[int, int] | None:
    with path.open("rb") as f:
        first = _line_time(f.readline())
        size = path.stat().st_size
        f.seek(max(0, size - 4096))
        tail = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    last = _line_time(tail)
    if first is None or last is None:
        return None
    return first, last


def _edges(path: Path, parts: int) -> list[int]:
    """Byte offsets that split the file into `parts` ranges, each starting at a line start."""
    size = path.stat().st_size
    edges = [0]
    with path.open("rb") as f:
        for k in range(1, parts):
            f.seek(size * k // parts)
            f.readline()  # finish the line we landed in
            edges.append(min(f.tell(), size))
    edges.append(size)
    return sorted(set(edges))


def _work(task: tuple[str, int, int, int, int, int, tuple[str, ...]]) -> dict[str, object] | None:
    """Worker: bin the lines in [start, end) of the file; None on any problem.

    Only the vectorised reader runs here (numpy, no pandas import: a worker starts in ~0.1 s); a block it
    cannot take makes the whole read fall back to the serial path, which reports a bad line exactly.
    """

    path, start, end, origin, width, nbins, stats = task
    agg = LogAggregator(stats=stats)
    agg.origin, agg.width, agg.preset_width = origin, width, True
    agg._grow(nbins)  # the caller's reserve(): all bins up to the file's last time
    try:
        with open(path, "rb") as f:
            nfields = fastlog.count_fields(f.readline())
            f.seek(start)
            for block in fastlog.iter_blocks(f, end=end):
                got = fastlog.parse_block(block, nfields, with_bs=False)
                if got is None:
                    return None
                agg.add(got[0], got[1], got[2])
    except Exception:  # any problem: the serial path will find and report it precisely
        return None
    return agg.state()


_POOL: list[subprocess.Popen[bytes]] = []  # started on first use, reused by later calls, ended at exit
_POOL_LOCK = threading.Lock()  # one log at a time talks to the pool
_POOL_OWNER: list[int] = []  # pid of the process that started the pool


def _stop_pool() -> None:
    while _POOL:
        p = _POOL.pop()
        try:
            if p.stdin is not None:
                p.stdin.close()  # EOF: the worker's loop ends
            p.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            p.kill()
            p.wait()


def _workers(n: int) -> list[subprocess.Popen[bytes]]:
    """n live worker processes (plain child interpreters, not multiprocessing: nothing depends on how the
    parent was started), started lazily and kept for the next log."""
    if _POOL_OWNER and _POOL_OWNER[0] != os.getpid():
        _POOL.clear()  # a forked copy of the owner: those pipes are the owner's, start our own workers
    _POOL_OWNER[:] = [os.getpid()]
    alive = [p for p in _POOL if p.poll() is None]
    if len(alive) != len(_POOL):
        _stop_pool()
        alive = []
    if not alive:
        atexit.register(_stop_pool)
    while len(_POOL) < n:
        _POOL.append(
            subprocess.Popen(
                [sys.executable, "-m", "flashtune.ingest.parallel"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        )
    return _POOL[:n]


def aggregate_parallel(path: Path, agg: LogAggregator, workers: int) -> bool:
    """Fill `agg` from `path` with `workers` processes (this one and workers - 1 children); False if the
    caller should read serially instead."""

    if agg.samples or not agg.preset_width or agg.origin is None:
        return False
    origin, width, nbins, stats = agg.origin, agg.width, agg.nbins, agg.stats
    ranges = list(itertools.pairwise(_edges(path, workers)))
    if len(ranges) < 2:
        return False
    with _POOL_LOCK:
        states = _run(path, ranges, (origin, width, nbins, stats))
    if states is None or any(st is None for st in states):
        return False
    for st in states:
        assert st is not None
        agg.merge(LogAggregator.from_state(st))
    return True


def _run(
    path: Path, ranges: list[tuple[int, int]], setup: tuple[int, int, int, tuple[str, ...]]
) -> list[dict[str, object] | None] | None:
    origin, width, nbins, stats = setup
    try:
        kids = _workers(len(ranges) - 1)
        for p, (start, end) in zip(kids, ranges[1:], strict=True):
            assert p.stdin is not None
            pickle.dump((str(path), start, end, origin, width, nbins, stats), p.stdin)
            p.stdin.flush()
        # this process reads the first range meanwhile
        states = [_work((str(path), *ranges[0], origin, width, nbins, stats))]
        for p in kids:
            assert p.stdout is not None
            states.append(pickle.load(p.stdout))  # our own child's output, never user data
    except (OSError, EOFError, pickle.UnpicklingError):
        _stop_pool()
        return None
    except BaseException:  # e.g. Ctrl-C while results are pending: never reuse a pool left mid-answer
        _stop_pool()
        raise
    return states


def _serve() -> None:
    """Worker loop: one pickled task in, one pickled result out, until stdin closes."""
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            task = pickle.load(inp)  # from our parent only
        except EOFError:
            return
        pickle.dump(_work(task), out)
        out.flush()


if __name__ == "__main__":
    _serve()

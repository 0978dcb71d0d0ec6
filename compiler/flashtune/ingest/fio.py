"""fio 3.x output: JSON and JSON+ reports, and the bw/iops/lat/clat/slat time-series logs.

What fio really writes (checked against fio 3.33, ../shared/reference/mariadb-fio-sysctl.md section 2):
* JSON: without --output, fio prints `note: ...` lines (and with `--output-format=json,normal` the whole
  normal report) around the JSON object on stdout, so the object is cut out of the text. `bw` is KiB/s,
  `bw_bytes` B/s, latencies are ns (`*_ns`; fio 2.x had `clat`/`lat` in µs), percentile keys are strings
  with six decimals ("99.900000"). "job options" only hold a job's overrides of "global options".
  JSON+ adds `clat_ns.bins` (and `lat_ns.bins`): {"<bucket ns>": count}.
* Logs (write_bw_log=P, write_iops_log=P, write_lat_log=P): files `P_{bw,iops,lat,clat,slat}.N.log` (N = job
  number from 1), headerless CSV `time_ms, value, ddir, bs, [offset,] prio`; ddir 0/1/2 = read/write/trim;
  bs is 0 when log_avg_msec averages. Values: bw KiB/s, iops, latencies ns. CBT's archive copies add a
  `.host` suffix. Logs can hold millions of rows, so they are streamed in chunks and reduced to time bins
  (flashtune.ingest.aggregate) unless raw rows are asked for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashtune.errors import FlashtuneError
from flashtune.ingest.common import (
    as_float,
    as_int,
    bad_input,
    line_of_offset,
    parse_size,
    read_output,
    results_frame,
)
from flashtune.ingest.schema import MiB, percentile_stat

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from flashtune.ingest.aggregate import Stats

DDIRS: tuple[str, ...] = ("read", "write", "trim")
SYNC_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2"})

# ---------------------------------------------------------------------------------------------- JSON


def extract_json(text: str, path: Path) -> tuple[dict[str, Any], int]:
    """The fio JSON object inside stdout text (notes/normal output around it) and its first line."""
    m = re.search(r"^\{", text, re.M)
    if m is None:
        raise bad_input(path, "no JSON object found in this fio output",
                        hint="run fio with --output-format=json (or json+) --output=FILE")  # fmt: skip
    start = m.start()
    try:
        doc, _end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as e:
        body = text[start:]
        # a cut-off file leaves brackets open; report where it ends rather than the decoder's guess
        truncated = body.count("{") > body.count("}") or e.pos >= len(text.rstrip())
        raise bad_input(
            path,
            "fio JSON ends before the object is complete (truncated file?)" if truncated
            else f"invalid fio JSON: {e.msg}",
            line=line_of_offset(text, len(text.rstrip()) if truncated else e.pos),
            hint="re-run fio with --output=FILE so nothing else is mixed into the JSON, and let it finish",
        ) from None  # fmt: skip
    if not isinstance(doc, dict):
        raise bad_input(path, "fio JSON is not an object", line=line_of_offset(text, start))
    return doc, line_of_offset(text, start)


def _ddir_bs(bs: str | None, ddir: str) -> int | None:
    """fio `bs` may be one size or 'read,write[,trim]' sizes."""
    if not bs:
        return None
    parts = bs.split(",")
    idx = DDIRS.index(ddir)
    pick = parts[idx] if idx < len(parts) and parts[idx] else parts[0]
    return parse_size(pick)


def _lat_block(stats: dict[str, Any], key_ns: str, key_us: str) -> tuple[dict[str, Any] | None, float]:
    """A latency block and the factor to ms (fio 3.x: ns; 2.x: µs)."""
    block = stats.get(key_ns)
    if isinstance(block, dict):
        return block, 1e-6
    block = stats.get(key_us)
    if isinstance(block, dict):
        return block, 1e-3
    return None, 1.0


def parse_json(path: Path) -> pd.DataFrame:
    """A fio JSON / JSON+ report -> tidy rows (one set per job and direction that did I/O)."""
    text = read_output(path)
    doc, first_line = extract_json(text, path)
    jobs = doc.get("jobs", doc.get("client_stats"))
    if not isinstance(jobs, list):
        raise bad_input(path, "fio JSON has no 'jobs' list", line=first_line,
                        hint="this does not look like fio --output-format=json output")  # fmt: skip
    glob_opts = {str(k): str(v) for k, v in (doc.get("global options") or {}).items()}
    plus = False
    rows: list[dict[str, Any]] = []
    for job in jobs:
        if not isinstance(job, dict):
            continue
        opts = dict(glob_opts)
        opts.update({str(k): str(v) for k, v in (job.get("job options") or {}).items()})
        engine = opts.get("ioengine", "psync")
        depth = 1 if engine in SYNC_ENGINES else (as_int(opts.get("iodepth")) or 1)
        grouped = opts.get("group_reporting", "0") not in ("0", "")
        base = {
            "tool": "fio", "test": str(job.get("jobname", "")), "workload": opts.get("rw", opts.get("readwrite", "read")),
            "interface": engine, "iodepth": depth, "threads": (as_int(opts.get("numjobs")) or 1) if grouped else 1,
            "source": str(path),
        }  # fmt: skip
        for ddir in DDIRS:
            st = job.get(ddir)
            if not isinstance(st, dict) or not (as_int(st.get("total_ios")) or as_int(st.get("io_bytes"))):
                continue
            row0 = dict(base, op=ddir, block_size_bytes=_ddir_bs(opts.get("bs", opts.get("blocksize")), ddir))

            def add(metric: str, stat: str, value: float | None, **extra: Any) -> None:
                if value is not None:
                    rows.append(dict(row0, metric=metric, stat=stat, value=value, **extra))  # noqa: B023

            bw_bytes = as_float(st.get("bw_bytes"))
            add("bandwidth", "mean", bw_bytes / MiB if bw_bytes is not None else _kib(st.get("bw")))
            for stat, key in (("min", "bw_min"), ("max", "bw_max"), ("stddev", "bw_dev")):
                add("bandwidth", stat, _kib(st.get(key)))
            add("iops", "mean", as_float(st.get("iops")))
            for stat, key in (("min", "iops_min"), ("max", "iops_max"), ("stddev", "iops_stddev")):
                add("iops", stat, as_float(st.get(key)))
            io_bytes = as_float(st.get("io_bytes"))
            add("io", "sum", io_bytes / MiB if io_bytes is not None else None)
            runtime = as_float(st.get("runtime"))
            add("runtime", "value", runtime / 1000 if runtime is not None else None)
            for metric, key_ns, key_us in (("latency", "lat_ns", "lat"), ("clat", "clat_ns", "clat"),
                                           ("slat", "slat_ns", "slat")):  # fmt: skip
                block, scale = _lat_block(st, key_ns, key_us)
                if block is None or not as_int(block.get("N", 1)):
                    continue
                for stat in ("mean", "min", "max", "stddev"):
                    v = as_float(block.get(stat))
                    add(metric, stat, v * scale if v is not None else None)
                for pkey, pval in (block.get("percentile") or {}).items():
                    p, v = as_float(pkey), as_float(pval)
                    if p is not None and v is not None:
                        add(metric, percentile_stat(p), v * scale)
                bins = block.get("bins")
                if isinstance(bins, dict):
                    plus = True
                    for bkey, count in bins.items():
                        b, c = as_float(bkey), as_float(count)
                        if b is not None and c:
                            add(f"{metric}_histogram", "count", c, bucket_ms=b * scale)
        for metric, key in (("cpu_usr", "usr_cpu"), ("cpu_sys", "sys_cpu")):
            v = as_float(job.get(key))
            if v is not None:
                rows.append(dict(base, op="total", metric=metric, stat="mean", value=v))
    return results_frame(path, rows, "fio-json+" if plus else "fio-json", line=first_line,
                         problem="fio JSON holds no job that did any I/O",
                         hint="check the job's error field and that the run was not aborted")  # fmt: skip


def _kib(value: object) -> float | None:
    v = as_float(value)
    return v / 1024 if v is not None else None


# ---------------------------------------------------------------------------------------------- logs

LOG_NAME = re.compile(
    r"^(?P<prefix>.*)_(?P<kind>bw|iops|lat|clat|slat)\.(?P<job>\d+)\.log(?:\.(?P<host>[^/]+))?$"
)
# kind -> (metric, factor from the log's unit to the schema's unit)
LOG_KINDS: dict[str, tuple[str, float]] = {
    "bw": ("bandwidth", 1 / 1024),  # KiB/s -> MiB/s
    "iops": ("iops", 1.0),
    "lat": ("latency", 1e-6),  # ns -> ms
    "clat": ("clat", 1e-6),
    "slat": ("slat", 1e-6),
}
CHUNK_ROWS = 1_000_000


@dataclass(frozen=True)
class LogInfo:
    kind: str
    metric: str
    factor: float
    job: int
    prefix: str
    host: str | None


def log_info(path: Path) -> LogInfo | None:
    m = LOG_NAME.match(path.name)
    if m is None:
        return None
    metric, factor = LOG_KINDS[m.group("kind")]
    return LogInfo(m.group("kind"), metric, factor, int(m.group("job")), m.group("prefix"), m.group("host"))


def _count_lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b"")) + 1


def _first_bad_line(path: Path, skip_lines: int) -> tuple[int, str]:
    """Find the first line (after skip_lines) that is not `int, int, int, int[, ...]` (error path only)."""
    good = re.compile(rb"^\s*-?\d+\s*,\s*-?\d+\s*,\s*\d+\s*,\s*\d+(\s*,\s*-?\d+)*\s*$")
    with path.open("rb") as f:
        for no, raw in enumerate(f, start=1):
            if no <= skip_lines or not raw.strip():
                continue
            if not good.match(raw):
                return no, raw[:60].decode("utf-8", "replace").rstrip("\n")
    return 0, ""


FIRST_LINE = re.compile(rb"^\d+(, \d+){3,}\r?\n$")  # fio's own layout: the vectorised reader applies
_BAD_LINE_HINT = (
    "a fio log line is 'time_ms, value, ddir, bs[, offset], prio'; a cut-off last line means fio was killed"
)


def _check_log_file(path: Path) -> None:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise bad_input(path, "no such file", hint="check the path") from None
    if size == 0:
        raise bad_input(
            path, "fio log is empty", line=1, hint="the job logged nothing: check log_avg_msec and runtime"
        )
    with path.open("rb") as f:
        f.seek(size - 1)
        if f.read(1) != b"\n":
            # fio ends every line; a missing newline means the writer was killed mid-line
            raise bad_input(path, "the last line of this fio log is cut off", line=_count_lines(path),
                            hint="fio was stopped while writing; drop the last line or re-run the job")  # fmt: skip


def _parse_error(path: Path, e: Exception, skip_lines: int) -> FlashtuneError:
    line, text = _first_bad_line(path, skip_lines)
    if line:
        return bad_input(path, f"not a fio log line: {text!r}", line=line, hint=_BAD_LINE_HINT)
    return bad_input(path, f"cannot read fio log: {e}", hint=_BAD_LINE_HINT)


def iter_log_chunks(
    path: Path, chunk_rows: int = CHUNK_ROWS, *, with_bs: bool = True, engine: str = "auto"
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Stream a fio log as (time_ms int64, value int64, ddir int8, bs int64 or empty) arrays, chunk by chunk.

    engine "auto": blocks in fio's exact layout are parsed by the vectorised numpy reader
    (flashtune.ingest.fastlog); any other block goes to pandas' C parser, the reference ("pandas"),
    which also names the exact line of a bad one. Both give identical arrays; the block size bounds
    memory whatever the file size.
    """
    _check_log_file(path)
    if engine == "auto":
        with path.open("rb") as f:
            first = f.readline()
        if FIRST_LINE.match(first):
            yield from _iter_fast(path, first, with_bs=with_bs)
            return
    elif engine != "pandas":
        raise ValueError(f"unknown engine {engine!r}")
    yield from _iter_pandas(path, chunk_rows, with_bs=with_bs)


def _iter_fast(
    path: Path, first: bytes, *, with_bs: bool
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    from flashtune.ingest import fastlog

    nfields = fastlog.count_fields(first)
    lines = 0
    with path.open("rb") as f:
        for buf in fastlog.iter_blocks(f, fastlog.BLOCK_BYTES):
            got = fastlog.parse_block(buf, nfields, with_bs=with_bs)
            if got is None:
                got = _pandas_block(path, buf, first if lines else b"", lines, with_bs=with_bs)
                lines += buf.count(b"\n", fastlog.PAD)
            else:
                lines += len(got[0])
            yield got


def _pandas_block(
    path: Path, buf: bytearray, first: bytes, skip_lines: int, *, with_bs: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The reference parser on one block; the file's first line goes in front so pandas counts the
    fields as it does for the whole file (that row is dropped again)."""
    import io

    import numpy as np
    import pandas as pd

    from flashtune.ingest.fastlog import PAD

    cols = [0, 1, 2, 3] if with_bs else [0, 1, 2]
    dtypes = {0: "int64", 1: "int64", 2: "int8", 3: "int64"}
    try:
        df = pd.read_csv(io.BytesIO(first + bytes(buf[PAD:])), header=None, usecols=cols, engine="c",
                         na_filter=False, dtype={c: dtypes[c] for c in cols})  # fmt: skip
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError, OverflowError) as e:
        raise _parse_error(path, e, skip_lines) from None
    if first:
        df = df.iloc[1:]
    t = df[0].to_numpy()
    v = df[1].to_numpy()
    d = df[2].to_numpy().astype(np.int8, copy=False)
    bs = df[3].to_numpy() if with_bs else np.zeros(0, np.int64)
    return t, v, d, bs


def _iter_pandas(
    path: Path, chunk_rows: int, *, with_bs: bool
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The reference reader: pandas' C parser over the whole file, 1 M rows at a time."""
    import numpy as np
    import pandas as pd

    done = 0
    cols = [0, 1, 2, 3] if with_bs else [0, 1, 2]
    dtypes = {0: "int64", 1: "int64", 2: "int8", 3: "int64"}
    try:
        # memory_map and no NA detection: ~20 % less CPU for these all-integer files
        reader = pd.read_csv(path, header=None, usecols=cols, engine="c", chunksize=chunk_rows, memory_map=True,
                             na_filter=False, dtype={c: dtypes[c] for c in cols})  # fmt: skip
        for chunk in reader:
            t = chunk[0].to_numpy()
            v = chunk[1].to_numpy()
            d = chunk[2].to_numpy().astype(np.int8, copy=False)
            bs = chunk[3].to_numpy() if with_bs else np.zeros(0, np.int64)
            done += len(chunk)
            yield t, v, d, bs
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError, OverflowError) as e:
        raise _parse_error(path, e, max(0, done - 1)) from None


def parse_log(path: Path, *, raw: bool = False, bin_ms: int | None = None, stats: Stats | None = None,
              max_rows: int | None = None, workers: int = 1) -> pd.DataFrame:  # fmt: skip
    """A fio log -> tidy rows: per time bin (default; fewer than 5,000 rows) or every sample (raw=True).

    workers > 1 splits a big log between that many processes (flashtune.ingest.parallel).
    """
    import numpy as np
    import pandas as pd

    from flashtune.ingest.aggregate import DEFAULT_STATS, MAX_CHART_ROWS, LogAggregator

    info = log_info(path)
    if info is None:
        raise bad_input(path, "cannot tell which fio log this is from its name",
                        hint="fio names its logs PREFIX_{bw,iops,lat,clat,slat}.JOB.log; keep that name")  # fmt: skip
    base = {"tool": "fio", "format": "fio-log", "test": f"{info.prefix}.{info.job}", "metric": info.metric,
            "source": str(path)}  # fmt: skip
    if raw:
        parts = []
        total = 0
        for t, v, d, bs in iter_log_chunks(path):
            total += len(t)
            if max_rows is not None and total > max_rows:
                raise bad_input(path, f"fio log has more than {max_rows} rows",
                                hint="leave raw off: flashtune.ingest.load() bins logs to a chartable size")  # fmt: skip
            parts.append(pd.DataFrame({
                "time_s": t / 1000.0, "value": v * info.factor,
                "op": pd.Categorical.from_codes(np.clip(d, 0, 2), categories=list(DDIRS)).astype(str),
                "block_size_bytes": pd.array(np.where(bs > 0, bs, 0), dtype="Int64"),
            }))  # fmt: skip
        df = pd.concat(parts, ignore_index=True)
        df.loc[df["block_size_bytes"] == 0, "block_size_bytes"] = pd.NA
        for k, val in base.items():
            df[k] = val
        df["stat"] = "sample"
        from flashtune.ingest.schema import conform

        return conform(df)
    agg = LogAggregator(bin_ms=bin_ms, stats=stats or DEFAULT_STATS, max_rows=max_rows or MAX_CHART_ROWS)
    from flashtune.ingest.parallel import aggregate_parallel, first_and_last_time

    ends = first_and_last_time(path)
    if ends is not None:
        agg.preset(*ends)
        agg.reserve(ends[1])
    done = workers > 1 and aggregate_parallel(path, agg, workers)
    if not done:  # serial: also the path that reports a bad line's exact number
        try:
            # without both end times the bin width comes from the first chunk: keep the reference's chunks
            engine = "auto" if ends is not None else "pandas"
            for t, v, d, _bs in iter_log_chunks(path, with_bs=False, engine=engine):
                agg.add(t, v, d)
        except FlashtuneError as e:
            e.file = e.file or str(path)  # the aggregator's own complaints (bin limits) name no file
            raise
    out = agg.frame(factor=info.factor, ddir_names=DDIRS)
    for k, val in base.items():
        out[k] = val
    from flashtune.ingest.schema import conform

    return conform(out)

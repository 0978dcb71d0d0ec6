"""fio 3.x output: JSON and JSON+ reports, and the bw/iops/lat/clat/slat time-series logs.

What fio really writes (checked against fio 3.33 by running it in tests/real/test_ingest_fio.py):
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

import io
import json
import re
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from flashtune import userjson
from flashtune.errors import FlashtuneError
from flashtune.ingest import fastlog
from flashtune.ingest.aggregate import DEFAULT_STATS, MAX_CHART_ROWS, LogAggregator, Stats
from flashtune.ingest.common import (
    as_float,
    as_int,
    bad_input,
    line_of_offset,
    note,
    parse_size,
    read_output,
)
from flashtune.ingest.fastlog import PAD
from flashtune.ingest.parallel import aggregate_parallel, first_and_last_time
from flashtune.ingest.schema import MiB, conform, percentile_stat, to_frame
from flashtune.ingest.textio import gunzip_to, head_text, open_maybe_gzip

DDIRS: tuple[str, ...] = ("read", "write", "trim")
SYNC_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2"})

# ---------------------------------------------------------------------------------------------- JSON


def extract_json(text: str, path: Path) -> tuple[dict[str, Any], int]:
    """The first fio JSON object inside stdout text (notes/normal output around it) and its first line."""
    docs = extract_all_json(text, path)
    return docs[0]


_OBJECT_START = re.compile(r"^\{", re.M)


def extract_all_json(text: str, path: Path) -> list[tuple[dict[str, Any], int]]:
    """Every fio JSON object in the text (`--output` appends one per run) with its first line."""
    starts = [m.start() for m in _OBJECT_START.finditer(text)]
    if not starts:
        raise bad_input(
            path,
            "no JSON object found in this fio output",
            hint="run fio with --output-format=json (or json+) --output=FILE",
        )
    out: list[tuple[dict[str, Any], int]] = []
    userjson.check_size(text, file=str(path))
    end = 0
    for start in starts:
        if start < end:
            continue  # a `{` line inside the previous object
        try:
            doc, end = userjson.decode(text, start, file=str(path))
        except json.JSONDecodeError as e:
            body = text[start:]
            # a cut-off file leaves brackets open; report where it ends rather than the decoder's guess
            truncated = body.count("{") > body.count("}") or e.pos >= len(text.rstrip())
            raise bad_input(
                path,
                "fio JSON ends before the object is complete (truncated file?)"
                if truncated
                else f"invalid fio JSON: {e.msg}",
                line=line_of_offset(text, len(text.rstrip()) if truncated else e.pos),
                hint="re-run fio with --output=FILE so nothing else is mixed into the JSON, and let it finish",
            ) from None
        if not isinstance(doc, dict):
            raise bad_input(path, "fio JSON is not an object", line=line_of_offset(text, start))
        out.append((doc, line_of_offset(text, start)))
    return out


_FIO_VERSION = re.compile(r"\bfio[- ]v?(\d+)\.(\d+)")


def fio_version(text: str) -> tuple[int, int] | None:
    """(major, minor) from 'fio-2.2.10', 'fio-3.39-30-g58818', 'fio 3.1'."""
    m = _FIO_VERSION.search(text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _ddir_bs(bs: str | None, ddir: str) -> int | None:
    """fio `bs` may be one size or 'read,write[,trim]' sizes."""
    if not bs:
        return None
    parts = bs.split(",")
    idx = DDIRS.index(ddir) if ddir in DDIRS else 0
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
    """A fio JSON / JSON+ report -> tidy rows (one set per job and direction that did I/O); a file with
    several reports appended (`--output` of repeated runs) gives each its `run` number."""

    return to_frame(json_rows(path))


_FIO_SAID = re.compile(r"^fio: (?!pid=).*$", re.M)


def json_rows(path: Path) -> list[dict[str, Any]]:
    """parse_json's rows as dicts with their `format` (a CBT archive of thousands of small reports builds one
    frame from all of them: a DataFrame per file cost more than reading the file)."""
    text = read_output(path)
    docs = extract_all_json(text, path)
    interim = [k for k in range(len(docs) - 1) if status_snapshot(docs[k][0], docs[k + 1][0])]
    if interim:
        note(
            path,
            f"{len(interim)} interim --status-interval report(s) skipped: each run's last report is read",
        )
        docs = [d for k, d in enumerate(docs) if k not in set(interim)]
    rows: list[dict[str, Any]] = []
    plus = False
    for k, (doc, first_line) in enumerate(docs, start=1):
        got, was_plus = report_rows(path, doc, first_line)
        if len(docs) > 1:
            for r in got:
                r["run"] = str(k)
        rows += got
        plus = plus or was_plus
    problem = "fio JSON holds no job that did any I/O"
    errors = [
        f"job {j.get('jobname')!r} error {j.get('error')}"
        for d, _ in docs
        for j in (d.get("jobs") or [])
        if isinstance(j, dict) and j.get("error")
    ]
    said = _FIO_SAID.search(text[: text.find("{")])
    if errors:
        problem += f" ({', '.join(errors)}{'; fio said: ' + said.group(0) if said else ''})"
    if not rows:
        raise bad_input(
            path,
            problem,
            line=docs[0][1],
            hint="the run failed before doing I/O: fix the job file and re-run",
        )
    fmt = "fio-json+" if plus else "fio-json"
    for r in rows:
        r["format"] = fmt
    return rows


def _wall_ms(doc: dict[str, Any]) -> float:
    """How long the report's run had gone on (ms): the longest direction runtime, or `elapsed` (whole
    seconds, ramp included, rounded up: one second is taken off)."""
    longest = 0.0
    for job in doc.get("jobs") or []:
        if not isinstance(job, dict):
            continue
        longest = max(longest, ((as_float(job.get("elapsed")) or 1.0) - 1.0) * 1000.0)
        for ddir in (*DDIRS, "mixed"):
            st = job.get(ddir)
            if isinstance(st, dict):
                longest = max(longest, as_float(st.get("runtime")) or 0.0)
    return longest


def status_snapshot(earlier: dict[str, Any], later: dict[str, Any]) -> bool:
    """True when `earlier` is an interim `--status-interval` report of the run `later` reports on: fio
    prints the whole report every interval, each covering the run so far. The two list the same jobs, and
    the later one came out sooner after the earlier than the later run had been going: a separate run
    appended to the file starts after the earlier report and lasts at least its own runtime."""
    names = [j.get("jobname") for j in earlier.get("jobs") or [] if isinstance(j, dict)]
    if not names or names != [j.get("jobname") for j in later.get("jobs") or [] if isinstance(j, dict)]:
        return False
    t0, t1 = as_float(earlier.get("timestamp_ms")), as_float(later.get("timestamp_ms"))
    if t0 is None or t1 is None:
        return False
    return 0.0 <= t1 - t0 < _wall_ms(later)


def _io_bytes_unit(doc: dict[str, Any], jobs: list[Any]) -> tuple[float, str]:
    """Factor from `io_bytes` to bytes, and how it is known: fio 2.x printed KiB under that name,
    fio 3 bytes (and added io_kbytes). Keyed on the stated version; else io = bw x runtime decides."""
    version = fio_version(str(doc.get("fio version", "")))
    if version is not None:
        return (1024.0 if version[0] < 3 else 1.0), f"stated: fio-{version[0]}.{version[1]}"
    for job in jobs:
        for ddir in DDIRS:
            st = job.get(ddir) if isinstance(job, dict) else None
            if not isinstance(st, dict):
                continue
            if "io_kbytes" in st:
                return 1.0, "inferred: io_kbytes present (fio 3 layout)"
            io, bw, rt = as_float(st.get("io_bytes")), as_float(st.get("bw")), as_float(st.get("runtime"))
            if io and bw and rt:
                kib = bw * rt / 1000.0  # KiB moved according to bandwidth x runtime
                ratio = io / kib
                if 0.5 < ratio < 2:
                    return 1024.0, "inferred: io_bytes = bw x runtime in KiB (fio 2.x)"
                if 512 < ratio < 2048:
                    return 1.0, "inferred: io_bytes = bw x runtime in bytes (fio 3)"
    return 1.0, "assumed: fio 3 units (no version, io/bw/runtime inconclusive)"


def job_labels(jobs: list[Any]) -> list[str]:
    """A distinct test name per job: fio repeats a job's name for each of its `numjobs` clones (without
    group_reporting) and for each server in client/server mode. Clones get `.N` (1-based, in report order,
    as fio numbers their logs); a job of a multi-server run gets `@host` (`@host:port` where hosts repeat);
    fio's own aggregate keeps its name "All clients"."""
    dicts = [j if isinstance(j, dict) else {} for j in jobs]
    servers = {(j.get("hostname"), j.get("port")) for j in dicts if j.get("hostname") and not _all_clients(j)}
    hostnames = Counter(h for h, _ in servers)
    names: list[str] = []
    for j in dicts:
        name = str(j.get("jobname", ""))
        if len(servers) > 1 and j.get("hostname") and not _all_clients(j):
            host = str(j["hostname"])
            name += f"@{host}" + (f":{j.get('port')}" if hostnames[host] > 1 else "")
        names.append(name)
    counts = Counter(names)
    seen: Counter[str] = Counter()
    for i, n in enumerate(names):
        if counts[n] > 1:
            seen[n] += 1
            names[i] = f"{n}.{seen[n]}"
    return names


def _job_key(job: dict[str, Any]) -> tuple[str, str, str]:
    return str(job.get("jobname", "")), str(job.get("hostname", "")), str(job.get("port", ""))


def _all_clients(job: dict[str, Any]) -> bool:
    return job.get("jobname") == ALL_CLIENTS


ALL_CLIENTS = "All clients"  # fio's aggregate of every server's jobs in client/server mode
# Directions a report can hold: `mixed` is unified_rw_reporting's one block for all directions.
REPORT_DDIRS: tuple[str, ...] = (*DDIRS, "mixed")


def report_rows(
    path: Path,
    doc: dict[str, Any],
    first_line: int,
    *,
    io_unit: tuple[float, str] | None = None,
    lat_basis: str | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    """Rows of one fio report given as fio's JSON object. The terse and normal readers build the same
    object from their text, then pass the unit of its `io_bytes` and how latency units were known."""
    jobs = doc.get("jobs", doc.get("client_stats"))
    if not isinstance(jobs, list):
        raise bad_input(
            path,
            "fio JSON has no 'jobs' list",
            line=first_line,
            hint="this does not look like fio --output-format=json output",
        )
    io_factor, io_basis = io_unit or _io_bytes_unit(doc, jobs)
    version = fio_version(str(doc.get("fio version", "")))
    glob_opts = {str(k): str(v) for k, v in (doc.get("global options") or {}).items()}
    plus = False
    rows: list[dict[str, Any]] = []
    # how many entries each job has on its server: more than one are numjobs clones reported one by one
    entries = Counter(_job_key(j) for j in jobs if isinstance(j, dict))
    servers = {
        (j.get("hostname"), j.get("port"))
        for j in jobs
        if isinstance(j, dict) and j.get("hostname") and not _all_clients(j)
    }
    workloads = {
        (j.get("job options") or {}).get("rw", glob_opts.get("rw"))
        for j in jobs
        if isinstance(j, dict) and not _all_clients(j)
    }
    for job, label in zip(jobs, job_labels(jobs), strict=True):
        if not isinstance(job, dict):
            continue
        opts = dict(glob_opts)
        opts.update({str(k): str(v) for k, v in (job.get("job options") or {}).items()})
        did = [
            d
            for d in REPORT_DDIRS
            if isinstance(job.get(d), dict)
            and (as_int(job[d].get("total_ios")) or as_int(job[d].get("io_bytes")))
        ]
        base = _job_row(job, label, opts, did, path, alone=entries[_job_key(job)] == 1, servers=len(servers))
        if _all_clients(job):
            # the sum over every server's jobs: one pattern only if they all ran the same; the job count
            # is in the normal output's header (`jobs=N`), which the normal reader passes as numjobs
            base["workload"] = (
                str(next(iter(workloads))) if len(workloads) == 1 and None not in workloads else None
            )
            base["threads"] = as_int((job.get("job options") or {}).get("numjobs"))
        for ddir in did:
            row0 = dict(base, op=ddir, block_size_bytes=_ddir_bs(opts.get("bs", opts.get("blocksize")), ddir))
            got, hist = _ddir_rows(row0, job[ddir], (io_factor, io_basis), lat_basis or "", version)
            rows += got
            plus = plus or hist
        for metric, key in (("cpu_usr", "usr_cpu"), ("cpu_sys", "sys_cpu")):
            v = as_float(job.get(key))
            if v is not None and did:
                rows.append(dict(base, op="total", metric=metric, stat="mean", value=v))
    return rows, plus


def _job_row(
    job: dict[str, Any],
    label: str,
    opts: dict[str, str],
    did: list[str],
    path: Path,
    *,
    alone: bool,
    servers: int,
) -> dict[str, Any]:
    """The columns every row of one job shares: what ran, how, and where."""
    # Only what the report states: with no options at all nothing is known about the job (its
    # workload, engine and depth are NA); with options, fio's documented defaults fill the gaps.
    known = bool(opts)
    engine = opts.get("ioengine", "psync" if known else None)
    depth = (1 if engine in SYNC_ENGINES else (as_int(opts.get("iodepth")) or 1)) if known else None
    # group_reporting: a flag (fio prints "1", "" or, given on the command line, nothing); one report
    # entry for a job with numjobs > 1 can only be the group's sum
    numjobs = as_int(opts.get("numjobs")) or 1
    grouped = opts.get("group_reporting", "0") != "0" or (numjobs > 1 and alone)
    workload = opts.get("rw", opts.get("readwrite", "read" if known else None))
    if workload is None and not _all_clients(job) and {"read", "write"} <= set(did):
        workload = "rw"  # both directions did I/O: a mixed job, pattern unknown
    return {
        "tool": "fio",
        "test": label,
        "workload": workload,
        "interface": engine,
        "iodepth": depth,
        "threads": (numjobs if grouped else 1) if known else None,
        "clients": (servers if _all_clients(job) else 1) if job.get("hostname") else None,
        "source": str(path),
    }


def _ddir_rows(
    row0: dict[str, Any],
    st: dict[str, Any],
    io_unit: tuple[float, str],
    lat_basis: str,
    version: tuple[int, int] | None,
) -> tuple[list[dict[str, Any]], bool]:
    """The rows of one direction (read, write, trim, mixed) of a job, and whether it held histogram bins."""
    rows: list[dict[str, Any]] = []

    def add(metric: str, stat: str, value: float | None, **extra: Any) -> None:
        if value is not None:
            rows.append(dict(row0, metric=metric, stat=stat, value=value, **extra))

    bw_bytes = as_float(st.get("bw_bytes"))
    add("bandwidth", "mean", bw_bytes / MiB if bw_bytes is not None else _kib(st.get("bw")))
    for stat, key in (("min", "bw_min"), ("max", "bw_max"), ("stddev", "bw_dev")):
        add("bandwidth", stat, _kib(st.get(key)))
    add("iops", "mean", as_float(st.get("iops")))
    for stat, key in (("min", "iops_min"), ("max", "iops_max"), ("stddev", "iops_stddev")):
        add("iops", stat, as_float(st.get(key)))
    io_bytes = as_float(st.get("io_bytes"))
    io_factor, io_basis = io_unit
    add("io", "sum", io_bytes * io_factor / MiB if io_bytes is not None else None, unit_basis=io_basis)
    runtime = as_float(st.get("runtime"))
    add("runtime", "value", runtime / 1000 if runtime is not None else None)
    plus = False
    for metric, key_ns, key_us in (
        ("latency", "lat_ns", "lat"),
        ("clat", "clat_ns", "clat"),
        ("slat", "slat_ns", "slat"),
    ):
        block, scale = _lat_block(st, key_ns, key_us)
        if block is None or not as_int(block.get("N", 1)):
            continue
        basis = lat_basis or (
            "stated: *_ns keys (fio 3)"
            if scale == 1e-6
            else f"stated: fio-{version[0]}.{version[1]} (µs)"
            if version
            else "inferred: no *_ns keys (fio 2.x, µs)"
        )
        for stat in ("mean", "min", "max", "stddev"):
            v = as_float(block.get(stat))
            add(metric, stat, v * scale if v is not None else None, unit_basis=basis)
        for pkey, pval in (block.get("percentile") or {}).items():
            p, v = as_float(pkey), as_float(pval)
            if p is not None and v is not None:
                add(metric, percentile_stat(p), v * scale, unit_basis=basis)
        bins = block.get("bins")
        if isinstance(bins, dict):
            plus = True
            for bkey, count in bins.items():
                b, c = as_float(bkey), as_float(count)
                if b is not None and c:
                    add(f"{metric}_histogram", "count", c, bucket_ms=b * scale)
    return rows, plus


def _kib(value: object) -> float | None:
    v = as_float(value)
    return v / 1024 if v is not None else None


# ---------------------------------------------------------------------------------------------- logs

# fio 3: PREFIX_clat.1.log; fio 2.x with one job: PREFIX_clat.log; CBT copies add .<host>; rotated: .gz
LOG_NAME = re.compile(
    r"^(?P<prefix>.*)_(?P<kind>bw|iops|lat|clat|slat)(?:\.(?P<job>\d+))?\.log(?P<gz>\.gz)?(?:\.(?P<host>[^/]+))?$"
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
    job: int | None
    prefix: str
    host: str | None

    @property
    def test(self) -> str:
        return self.prefix if self.job is None else f"{self.prefix}.{self.job}"


def log_info(path: Path) -> LogInfo | None:
    m = LOG_NAME.match(path.name)
    if m is None:
        return None
    metric, factor = LOG_KINDS[m.group("kind")]
    job = int(m.group("job")) if m.group("job") else None
    return LogInfo(m.group("kind"), metric, factor, job, m.group("prefix"), m.group("host"))


def _count_lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b"")) + 1


_LOG_LINE = re.compile(rb"^\s*-?\d+\s*,\s*-?\d+\s*,\s*\d+\s*,\s*\d+(\s*,\s*-?\d+)*\s*$")


def _first_bad_line(path: Path, skip_lines: int) -> tuple[int, str]:
    """Find the first line (after skip_lines) that is not `int, int, int, int[, ...]` (error path only)."""
    with path.open("rb") as f:
        for no, raw in enumerate(f, start=1):
            if no <= skip_lines or not raw.strip():
                continue
            if not _LOG_LINE.match(raw):
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
            raise bad_input(
                path,
                "the last line of this fio log is cut off",
                line=_count_lines(path),
                hint="fio was stopped while writing; drop the last line or re-run the job",
            )


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

    cols = [0, 1, 2, 3] if with_bs else [0, 1, 2]
    dtypes = {0: "int64", 1: "int64", 2: "int8", 3: "int64"}
    try:
        df = pd.read_csv(
            io.BytesIO(first + bytes(buf[PAD:])),
            header=None,
            usecols=cols,
            engine="c",
            na_filter=False,
            dtype={c: dtypes[c] for c in cols},
        )
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

    done = 0
    cols = [0, 1, 2, 3] if with_bs else [0, 1, 2]
    dtypes = {0: "int64", 1: "int64", 2: "int8", 3: "int64"}
    try:
        # memory_map and no NA detection: ~20 % less CPU for these all-integer files
        reader = pd.read_csv(
            path,
            header=None,
            usecols=cols,
            engine="c",
            chunksize=chunk_rows,
            memory_map=True,
            na_filter=False,
            dtype={c: dtypes[c] for c in cols},
        )
        for chunk in reader:
            t = chunk[0].to_numpy()
            v = chunk[1].to_numpy()
            d = chunk[2].to_numpy().astype(np.int8, copy=False)
            bs = chunk[3].to_numpy() if with_bs else np.zeros(0, np.int64)
            done += len(chunk)
            yield t, v, d, bs
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError, OverflowError) as e:
        raise _parse_error(path, e, max(0, done - 1)) from None


def parse_log(
    path: Path,
    *,
    raw: bool = False,
    bin_ms: int | None = None,
    stats: Stats | None = None,
    max_rows: int | None = None,
    workers: int = 1,
) -> pd.DataFrame:
    """A fio log -> tidy rows: per time bin (default; fewer than 5,000 rows) plus whole-run summary rows
    (time_s empty: count, mean, min, max, p50..p99.9 over every sample), or every sample (raw=True).

    Latency logs are ns since fio 3 and µs before: the unit is keyed on the fio version stated by a report
    next to the log (same or parent folder), else inferred from Little's law, else assumed ns; the
    `unit_basis` column says which. gzip-compressed logs are read too. workers > 1 splits a big log
    between that many processes (flashtune.ingest.parallel).
    """
    info = log_info(path)
    if info is None:
        raise bad_input(
            path,
            "cannot tell which fio log this is from its name",
            hint="fio names its logs PREFIX_{bw,iops,lat,clat,slat}.JOB.log; keep that name",
        )

    if not open_maybe_gzip(path):
        return _parse_plain_log(
            path, path, info, raw=raw, bin_ms=bin_ms, stats=stats, max_rows=max_rows, workers=workers
        )

    with tempfile.TemporaryDirectory(prefix="flashtune-log-") as tmp:
        plain = Path(tmp) / path.name.replace(".log.gz", ".log")
        gunzip_to(path, plain, limit=1 << 40)
        try:
            df = _parse_plain_log(
                plain, path, info, raw=raw, bin_ms=bin_ms, stats=stats, max_rows=max_rows, workers=workers
            )
        except FlashtuneError as e:
            e.file = str(path)
            raise
    note(path, "gzip-compressed: decompressed")
    return df


def _parse_plain_log(
    path: Path,
    shown: Path,
    info: LogInfo,
    *,
    raw: bool,
    bin_ms: int | None,
    stats: Stats | None,
    max_rows: int | None,
    workers: int,
) -> pd.DataFrame:
    factor, basis = log_unit(shown, info)
    base = {
        "tool": "fio",
        "format": "fio-log",
        "test": info.test,
        "metric": info.metric,
        "source": str(shown),
    }
    if raw:
        parts = []
        total = 0
        for t, v, d, bs in iter_log_chunks(path):
            total += len(t)
            if max_rows is not None and total > max_rows:
                raise bad_input(
                    shown,
                    f"fio log has more than {max_rows} rows",
                    hint="leave raw off: flashtune.ingest.load() bins logs to a chartable size",
                )
            parts.append(
                pd.DataFrame(
                    {
                        "time_s": t / 1000.0,
                        "value": v.astype(np.float64),
                        "op": pd.Categorical.from_codes(np.clip(d, 0, 2), categories=list(DDIRS)).astype(str),
                        "block_size_bytes": pd.array(np.where(bs > 0, bs, 0), dtype="Int64"),
                    }
                )
            )
        df = pd.concat(parts, ignore_index=True)
        if factor is None:
            factor, basis = _infer_log_unit(
                shown,
                info,
                df["value"].to_numpy(),
                df["time_s"].to_numpy() * 1000,
                per_io=bool((df["block_size_bytes"].fillna(0) > 0).any()),
            )
        df["value"] = df["value"] * factor
        df.loc[df["block_size_bytes"] == 0, "block_size_bytes"] = pd.NA
        for k, val in base.items():
            df[k] = val
        df["stat"] = "sample"
        df["unit_basis"] = basis
        return conform(df)
    agg = LogAggregator(
        bin_ms=bin_ms, stats=stats or DEFAULT_STATS, max_rows=max_rows or MAX_CHART_ROWS, summary=True
    )

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
            e.file = str(shown) if (e.file in (None, str(path))) else e.file
            raise
    if factor is None:
        factor, basis = _infer_from_agg(shown, info, agg, path)
    summary = agg.summary_frame(factor=factor, ddir_names=DDIRS)
    out = pd.concat([agg.frame(factor=factor, ddir_names=DDIRS), summary], ignore_index=True)
    for k, val in base.items():
        out[k] = val
    out["unit_basis"] = basis
    return conform(out)


LATENCY_KINDS = ("lat", "clat", "slat")


def log_unit(path: Path, info: LogInfo) -> tuple[float | None, str | None]:
    """Factor from the log's numbers to the schema unit, and how it is known; (None, None) when the
    log must be read first to infer it (a latency log with no fio version stated beside it)."""
    if info.kind not in LATENCY_KINDS:
        return info.factor, None  # bw KiB/s and iops: the same in every fio version
    found = sibling_version(path.parent)
    if found is None:
        return None, None
    (major, _minor), where = found
    return (1e-3 if major < 3 else 1e-6), f"stated: fio-{where} ({'µs' if major < 3 else 'ns'})"


_VERSION_CACHE: dict[str, tuple[tuple[int, int], str] | None] = {}


def sibling_version(folder: Path) -> tuple[tuple[int, int], str] | None:
    """((major, minor), 'X.Y.Z in FILE') of the fio report next to a log; see _sibling_version."""
    return _sibling_version(folder)


_FIO_VERSION_IN_FILE = re.compile(r'"fio version"\s*:\s*"fio-(\d+\.\d+[\w.-]*)|^fio-(\d+\.\d+[\w.-]*)', re.M)
_DIGITS = re.compile(r"\d+")


def _sibling_version(folder: Path) -> tuple[tuple[int, int], str] | None:
    """The fio version a report in this folder or its parent states (fio's JSON or normal output next to
    its logs: CBT's json_output.N, a `fio --output` file). None when there is none or they disagree."""
    try:  # a folder's mtime changes when files come or go: a stale answer is never reused
        key = f"{folder.resolve()}:{folder.stat().st_mtime_ns}:{folder.parent.stat().st_mtime_ns}"
    except OSError:
        return None
    if key in _VERSION_CACHE:
        return _VERSION_CACHE[key]

    found: dict[tuple[int, int], str] = {}
    for d in (folder, folder.parent):
        try:
            files = sorted(f for f in d.iterdir() if f.is_file() and log_info(f) is None)[:400]
        except OSError:
            continue
        for f in files:
            try:
                if f.stat().st_size > 64 * 1024 * 1024:
                    continue
                head = head_text(f, 16 * 1024)
            except OSError:
                continue
            m = _FIO_VERSION_IN_FILE.search(head)
            if m:
                full = m.group(1) or m.group(2)
                major, minor = (int(x) for x in _DIGITS.findall(full)[:2])
                found.setdefault((major, minor), f"{full} in {f.name}")
        if found:
            break
    majors = {v[0] >= 3 for v in found}
    result = (min(found), found[min(found)]) if found and len(majors) == 1 else None
    _VERSION_CACHE[key] = result
    return result


# Little's law: I/Os in flight = IOPS x latency. A fio job keeps between a fraction of one and a few
# thousand I/Os in flight; reading µs as ns (or ns as µs) moves that 1000x out of the range.
_INFLIGHT = (0.05, 4096.0)


def _plausible(iops: float, mean_raw: float) -> list[tuple[float, str]]:
    got = []
    for factor, name in ((1e-6, "ns"), (1e-3, "µs")):
        inflight = iops * mean_raw * factor / 1000.0  # ms -> s
        if _INFLIGHT[0] <= inflight <= _INFLIGHT[1]:
            got.append((factor, f"{name}: {inflight:.3g} I/Os in flight"))
    return got


def _infer_log_unit(
    path: Path, info: LogInfo, values: Any, times_ms: Any, *, per_io: bool
) -> tuple[float, str]:
    mean = float(np.mean(values)) if len(values) else 0.0
    iops = None
    if per_io and len(times_ms) > 1:
        span = (float(np.max(times_ms)) - float(np.min(times_ms))) / 1000.0
        iops = len(values) / span if span > 0 else None
    return _decide(path, info, mean, iops)


def _infer_from_agg(shown: Path, info: LogInfo, agg: Any, path: Path) -> tuple[float, str]:
    n = int(agg.count.sum())
    mean = float(agg.sum.sum()) / n if n else 0.0
    iops = None
    with path.open("rb") as f:
        first = f.readline().split(b",")
    per_io = len(first) >= 4 and first[3].strip() not in (b"0", b"")
    ends = None
    if per_io:
        ends = first_and_last_time(path)
        if ends and ends[1] > ends[0]:
            iops = n / ((ends[1] - ends[0]) / 1000.0)
    return _decide(shown, info, mean, iops)


def _decide(path: Path, info: LogInfo, mean: float, iops: float | None) -> tuple[float, str]:
    how = "per-I/O samples per second"
    if iops is None:
        iops, how = _sibling_iops(path, info), "the job's IOPS log"
    if iops:
        ok = _plausible(iops, mean)
        if len(ok) == 1:
            return ok[0][0], f"inferred: Little's law with {how} ({ok[0][1]})"
    return 1e-6, "assumed: fio 3 log units (ns); no fio version beside the log and Little's law inconclusive"


def _sibling_iops(path: Path, info: LogInfo) -> float | None:
    """Mean IOPS from the same job's iops log, if fio wrote one."""

    job = "" if info.job is None else f".{info.job}"
    host = "" if info.host is None else f".{info.host}"
    for name in (f"{info.prefix}_iops{job}.log{host}", f"{info.prefix}_iops{job}.log.gz{host}"):
        f = path.parent / name
        if f.is_file():
            try:
                total, n = 0.0, 0
                for _t, v, _d, _bs in iter_log_chunks(f, with_bs=False):
                    total += float(np.sum(v))
                    n += len(v)
                return total / n if n else None
            except FlashtuneError:
                return None
    return None

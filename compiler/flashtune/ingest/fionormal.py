"""fio's human-readable (normal) output, fio 2.0 to 3.x, read into the JSON layout and then through
fio.py's row builder.

Two generations of the per-direction line (fio's stat.c show_ddir_status):
* fio 2.x: `read : io=23592KB, bw=402583B/s, iops=98, runt= 60008msec`. Sizes use kb_base, 1024 unless the
  job set 1000, so `KB` is 1024 bytes (checked on real outputs: io / runt = bw only with 1024).
* fio 3.x: `read: IOPS=22.1k, BW=86.5MiB/s (90.7MB/s)(87.4MiB/1011msec)`: units are explicit (KiB/MiB
  binary, kB/MB decimal); fio's "All clients" block prints `BW=191Mi (200M)`, the same units without B/s.
  Figures are rounded to three or four digits (the JSON has the exact ones).
Latency lines name their unit per line (`clat (usec)`, `slat (nsec)`, `lat (msec)`); a `k`/`K`/`M` suffix
on a latency or IOPS figure is a power of 1000. `bw (  KiB/s): min=...` and `iops : min=...` are the
per-sample statistics. The job's pattern, block sizes, engine and depth come from the description lines
fio prints before the run (`name: (g=0): rw=randread, bs=(R) 4096B-4096B, ..., ioengine=libaio,
iodepth=32`); in client/server mode those carry a `<host> ` prefix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from flashtune.ingest.common import as_float, bad_input, note, read_output, results_frame
from flashtune.ingest.fio import ALL_CLIENTS, fio_version, report_rows
from flashtune.units import IEC, SI

_HEADER = re.compile(r"^(?P<name>\S.*?): \(groupid=(?P<gid>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)")
_DESC = re.compile(
    r"^(?:<[^>]*> )?(?P<name>\S.*?): \(g=\d+\): rw=(?P<rw>\w+), bs=(?P<bs>.*?), ioengine=(?P<engine>[^,\s]+),"
    r" iodepth=(?P<depth>\d+)"
)
_NUM = r"[\d.]+[kKmMgG]?"
_DIR3 = re.compile(
    rf"^\s+(?P<ddir>read|write|trim|mixed)\s*: IOPS=(?P<iops>{_NUM}), BW=(?P<bw>[\d.]+)(?P<bwu>[kKMGTP]?i?)(?P<bits>bit|B)?(?:/s)?"
    r" \([^)]*\)\((?P<io>[\d.]+)(?P<iou>[kKMGTP]?i?)B/(?P<rt>\d+)msec\)"
)
_DIR2 = re.compile(
    r"^\s+(?P<ddir>read|write|trim|mixed)\s*: io=(?P<io>[\d.]+)(?P<iou>[KMGTP]?)B, bw=(?P<bw>[\d.]+)(?P<bwu>[KMGTP]?)B/s,"
    rf" iops=(?P<iops>{_NUM})\s*, runt=\s*(?P<rt>\d+)msec"
)
_ANY_DIR = re.compile(r"^\s+(?:read|write|trim|mixed)\s*: (?:IOPS=|io=)")
_LAT = re.compile(
    rf"^\s+(?P<kind>slat|clat|lat)\s*\((?P<unit>nsec|usec|msec)\)\s*: min=\s*(?P<min>{_NUM})\s*, max=\s*(?P<max>{_NUM})"
    rf"\s*, avg=\s*(?P<avg>{_NUM})\s*, stdev=\s*(?P<dev>{_NUM})"
)
_PCT_HEAD = re.compile(r"^\s+(?P<kind>\w+) percentiles \((?P<unit>nsec|usec|msec)\)")
_PCT = re.compile(r"(?P<p>\d+\.\d+)th=\[\s*(?P<v>\d+)\]")
_BW = re.compile(
    r"^\s+bw \(\s*(?P<unit>[kKMGT]?i?B)\s*/s\)\s*: min=\s*(?P<min>[\d.]+)\s*, max=\s*(?P<max>[\d.]+)\s*,"
    r" per=\s*[\d.]+%\s*, avg=\s*(?P<avg>[\d.]+)\s*, stdev=\s*(?P<dev>[\d.]+)"
)
_IOPS = re.compile(
    r"^\s+iops\s*: min=\s*(?P<min>[\d.]+)\s*, max=\s*(?P<max>[\d.]+)\s*, avg=\s*[\d.]+\s*, stdev=\s*(?P<dev>[\d.]+)"
)
_CPU = re.compile(r"^\s+cpu\s*: usr=(?P<usr>[\d.]+)%, sys=(?P<sys>[\d.]+)%")
_ISSUED = re.compile(r"^\s+issued")
_PID = re.compile(r"\bpid=(\d+)")
_VERSION = re.compile(
    r"^(?:fio-|.*\bfio=fio-)?(?P<v>\d+\.\d+[\w.-]*)\s*$|\bfio=fio-(?P<v2>\d+\.\d+[\w.-]*)", re.M
)
_TO_US = {"nsec": 1e-3, "usec": 1.0, "msec": 1e3}
_SUFFIX = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9}


_REPORT_LINE = re.compile(r"^\S.*: \(groupid=\d+, jobs=\d+\): err=", re.M)
_DESC_LINE = re.compile(r"^(?:<[^>]*> )?\S.*: \(g=\d+\): rw=\w+, bs=", re.M)


def looks_like(text: str) -> bool:
    """A job report (`name: (groupid=0, jobs=1): err=`), or fio's description lines before the run
    (`name: (g=0): rw=...`), so an output cut before the first report is named as fio's."""
    return bool(_REPORT_LINE.search(text)) or bool(_DESC_LINE.search(text))


_COUNT = re.compile(r"([\d.]+)([kKmMgG]?)")


def _count(text: str) -> float | None:
    """'22.1k' -> 22100.0, '1068.6K' -> 1068600.0, '98' -> 98.0 (fio's num2str: powers of 1000)."""
    m = _COUNT.fullmatch(text.strip())
    if not m:
        return None
    v = as_float(m.group(1))
    return None if v is None else v * _SUFFIX[m.group(2)]


def _bytes(value: str, unit: str, *, fio3: bool) -> float | None:
    """A size with fio's unit prefix -> bytes. fio 3: `Ki`/`Mi` binary, `k`/`M` decimal; fio 2: binary."""
    v = as_float(value)
    if v is None:
        return None
    prefix = unit.rstrip("i").lower()
    binary = unit.endswith("i") or not fio3
    return v * (IEC if binary else SI)[prefix]


def _bs_option(spec: str) -> str:
    """Description `bs=` -> fio's `bs` option form `read,write,trim` ('' where a range is given)."""
    spec = spec.strip()
    if spec.startswith("(R)"):  # fio 3: (R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B
        parts = [p.split(")", 1)[-1].strip() for p in spec.split(",")]
    else:  # fio 2: 4K-4K/4K-4K/4K-4K or 512-64K/512-64K
        parts = spec.split("/")
    sizes = []
    for p in parts:
        lo, _, hi = p.partition("-")
        sizes.append(lo if lo == hi or not hi else "")
    return ",".join(sizes)


@dataclass
class _Reader:
    """The normal output read line by line into fio's JSON layout: one dict per job report."""

    path: Path
    desc: dict[str, dict[str, str]] = field(default_factory=dict)  # job name -> options from its description
    jobs: list[dict[str, Any]] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)  # the line of each job's report
    job: dict[str, Any] | None = None  # the report being read
    ddir: dict[str, Any] | None = None  # its direction being read
    pct: dict[str, float] | None = None  # the percentiles being read
    pct_unit: float = 1.0
    layouts: set[str] = field(default_factory=set)  # "2", "3": the direction-line generations seen
    hosts: int = 0
    blocks: int = 0
    kb_base: int = 1024
    # outputs of repeated runs appended to one file: a new run restarts the header
    run: int = 1
    reported: bool = False
    # --status-interval prints the whole report every interval, each covering the run so far: a job's
    # report seen again in the same run (same name, group and pid; clones have pids of their own) replaces
    # the earlier one
    seen: dict[tuple[int, str, str, str], int] = field(default_factory=dict)
    interim: int = 0

    def line(self, no: int, line: str) -> None:
        if line.startswith("hostname=") and "fio=" in line:
            self.hosts += 1
        self.blocks += line.startswith("Run status group")
        if (d := _DESC.match(line)) is not None:
            self._description(d)
        elif (h := _HEADER.match(line)) is not None:
            self._header(h, line, no)
        elif self.job is None:
            return
        elif not line.startswith((" ", "\t")):
            self.job = self.ddir = self.pct = None  # Run status group, Disk stats: summaries of what was read
        elif (g := _DIR3.match(line)) is not None or (g := _DIR2.match(line)) is not None:
            self._direction(g)
        elif _ANY_DIR.match(line):
            raise bad_input(
                self.path,
                f"cannot read this fio direction line: {line.strip()[:80]!r}",
                line=no,
                hint="expected `read: IOPS=..., BW=...(...)(io/runtime)` (fio 3) or `read : io=..., bw=..., "
                "iops=..., runt=...` (fio 2); the JSON output (--output-format=json) is read too",
            )
        elif self.ddir is not None and (lat := _LAT.match(line)) is not None:
            self._latency(self.ddir, lat)
        elif (ph := _PCT_HEAD.match(line)) is not None:
            target = self.ddir.get(ph.group("kind")) if self.ddir is not None else None
            self.pct = target.setdefault("percentile", {}) if isinstance(target, dict) else None
            self.pct_unit = _TO_US[ph.group("unit")]
        elif line.lstrip().startswith("|"):
            if self.pct is not None:
                for p in _PCT.finditer(line):
                    self.pct[p.group("p")] = float(p.group("v")) * self.pct_unit
        else:
            self.pct = None
            self._job_line(self.job, line)

    def _description(self, d: re.Match[str]) -> None:
        if self.reported:
            self.run, self.reported, self.desc = self.run + 1, False, {}
        self.desc.setdefault(
            d.group("name"),
            {
                "rw": d.group("rw"),
                "bs": _bs_option(d.group("bs")),
                "ioengine": d.group("engine"),
                "iodepth": d.group("depth"),
            },
        )

    def _header(self, h: re.Match[str], line: str, no: int) -> None:
        name = h.group("name")
        opts = dict(self.desc.get(name, {}))
        jobs_n = int(h.group("jobs"))
        if jobs_n > 1 or name == ALL_CLIENTS:
            opts.update(numjobs=str(jobs_n), group_reporting="1")
        job: dict[str, Any] = {
            "jobname": name,
            "groupid": h.group("gid"),
            "error": h.group("err"),
            "job options": opts,
        }
        if name == ALL_CLIENTS or self.hosts > 1:
            # client/server mode: each server's jobs come as one block ending in its `Run status`;
            # the normal output does not name the server, so blocks are numbered
            job["hostname"] = "all" if name == ALL_CLIENTS else f"server{self.blocks + 1}"
        job["_run"] = self.run
        self.reported = True
        pid = _PID.search(line)
        report = (self.run, name, h.group("gid"), pid.group(1) if pid else "")
        if pid and self.hosts <= 1 and report in self.seen:
            earlier = self.seen[report]
            del self.jobs[earlier], self.starts[earlier]
            self.seen = {k: v - (v > earlier) for k, v in self.seen.items()}
            self.interim += 1
        self.seen[report] = len(self.jobs)
        self.jobs.append(job)
        self.starts.append(no)
        self.job, self.ddir, self.pct = job, None, None

    def _direction(self, g: re.Match[str]) -> None:
        assert self.job is not None
        fio3 = g.re is _DIR3
        # kb_base=1000 makes fio 3 print the decimal unit first: `BW=49.9MB/s (47.6MiB/s)`
        self.kb_base = 1000 if fio3 and g.group("bwu") and not g.group("bwu").endswith("i") else 1024
        self.layouts.add("3" if fio3 else "2")
        io = _bytes(g.group("io"), g.group("iou"), fio3=fio3)
        bw = _bytes(g.group("bw"), g.group("bwu"), fio3=fio3)
        if fio3 and g.group("bits") == "bit" and bw is not None:
            bw /= 8  # unit_base=1: `BW=403Mibit/s (422Mbit/s)`
        rt = as_float(g.group("rt"))
        if not fio3 and io is not None and rt:
            # fio 2 prints io exactly (KB) but bw through num2str, which drops digits (75348KB in
            # 60329 ms printed as 1248.1KB/s): io / runtime is the figure fio rounded
            bw = io * 1000 / rt
        self.ddir = {
            "io_bytes": io,
            "total_ios": 1 if io else 0,
            "bw": bw / 1024 if bw is not None else None,
            "iops": _count(g.group("iops")),
            "runtime": rt,
        }
        self.job[g.group("ddir")] = self.ddir
        self.pct = None

    def _latency(self, ddir: dict[str, Any], lat: re.Match[str]) -> None:
        scale = _TO_US[lat.group("unit")]
        vals = {k: _count(lat.group(g)) for k, g in (("min", "min"), ("max", "max"), ("mean", "avg"))}
        vals["stddev"] = _count(lat.group("dev"))
        block: dict[str, Any] = {k: v * scale if v is not None else None for k, v in vals.items()}
        block["N"] = 1
        ddir[lat.group("kind")] = block
        self.pct = None

    def _job_line(self, job: dict[str, Any], line: str) -> None:
        """The per-sample statistics of the direction being read, the job's CPU line and its `issued` line."""
        if self.ddir is not None and (b := _BW.match(line)) is not None:
            # fio's bandwidth samples are KiB/s whatever kb_base (stat.c: delta * 1000 / spent / 1024); the
            # label only follows kb_base (`kB` with kb_base=1000), and above kb_base^2 the figures are divided
            # by kb_base and labelled MiB either way
            scale = float(self.kb_base) if b.group("unit").upper().startswith("M") else 1.0
            for key, grp in (("bw_min", "min"), ("bw_max", "max"), ("bw_dev", "dev")):
                v = as_float(b.group(grp))
                self.ddir[key] = v * scale if v is not None else None
        elif self.ddir is not None and (i := _IOPS.match(line)) is not None:
            self.ddir.update(
                iops_min=as_float(i.group("min")),
                iops_max=as_float(i.group("max")),
                iops_stddev=as_float(i.group("dev")),
            )
        elif (c := _CPU.match(line)) is not None:
            job.update(usr_cpu=as_float(c.group("usr")), sys_cpu=as_float(c.group("sys")))
        elif _ISSUED.match(line):
            job["_complete"] = True

    def check_complete(self, last_line: int) -> None:
        """Every job report was read to its end (an output cut inside a report is refused, not half-read)."""
        if not self.jobs:
            raise bad_input(
                self.path,
                "fio normal output without any job report (`name: (groupid=0, jobs=1): err= 0: ...`)",
                line=last_line or 1,
                hint="the run stopped before reporting; re-run fio, preferably with --output-format=json",
            )
        for k, j in enumerate(self.jobs):
            if not j.pop("_complete", False):
                raise bad_input(
                    self.path,
                    f"fio's report of job {j['jobname']!r} ends before its `issued` line (cut off?)",
                    line=last_line if k == len(self.jobs) - 1 else self.starts[k + 1] - 1,
                    hint="keep fio's whole output; re-run with --output=FILE",
                )
        if self.interim:
            note(
                self.path,
                f"{self.interim} interim --status-interval report(s) skipped: each job's last report is read",
            )


def parse(path: Path) -> pd.DataFrame:
    text = read_output(path)
    lines = text.splitlines()
    m = _VERSION.search("\n".join(ln for ln in lines[:200] if not ln.startswith(" ")))
    version = (m.group("v") or m.group("v2")) if m else ""
    reader = _Reader(path)
    for no, line in enumerate(lines, start=1):
        reader.line(no, line)
    reader.check_complete(len(lines))
    return _frame(path, reader, version)


def _frame(path: Path, reader: _Reader, version: str) -> pd.DataFrame:
    """The jobs read, through fio.py's row builder, one run after another."""
    layouts = reader.layouts
    got = fio_version(f"fio-{version}") if version else None
    layout = "fio 3" if layouts == {"3"} else "fio 2" if layouts == {"2"} else "fio 2 and 3"
    stated = f"fio-{version}" if version else f"the {layout} layout"
    if got and (got[0] >= 3) != (layout == "fio 3"):
        stated = f"the {layout} layout (version line says fio-{version})"
    sizes = "KB = 1024 B, kb_base default" if "2" in layouts else "KiB/MiB binary, kB/MB decimal"
    rows: list[dict[str, Any]] = []
    runs = sorted({j["_run"] for j in reader.jobs})
    for k in runs:
        run_rows, _plus = report_rows(
            path,
            {
                "fio version": f"fio-{version}" if version else "",
                "jobs": [j for j in reader.jobs if j["_run"] == k],
            },
            reader.starts[0],
            io_unit=(1.0, f"stated: {stated} normal output ({sizes})"),
            lat_basis=f"stated: unit printed on each line, {stated}",
        )
        for r in run_rows:
            if len(runs) > 1:
                r["run"] = str(k)
        rows += run_rows
    return results_frame(
        path,
        rows,
        "fio-normal",
        line=reader.starts[0],
        problem="fio normal output holds no job that did any I/O",
        hint="the run failed before doing I/O: fix the job file and re-run",
    )

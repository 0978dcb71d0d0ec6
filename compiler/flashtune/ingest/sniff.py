"""Which tool wrote a file: from its name where tools fix the name (fio logs, CBT archives), else by
sniffing the first part of its text for each tool's fixed phrases."""

from __future__ import annotations

import re
from pathlib import Path

from flashtune.errors import FlashtuneError
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
from flashtune.ingest.common import bad_input, read_bytes
from flashtune.ingest.textio import decode, head_text
from flashtune.resultkinds import KINDS

FORMATS: tuple[str, ...] = ("directory", *KINDS)  # a folder is walked for the files it holds


class UnknownFormat(FlashtuneError):
    """No supported tool wrote this file (a directory walk skips such files)."""


SNIFF_BYTES = 256 * 1024
# A report can follow a long preamble: an MPI library's message from every rank came 4,000-93,000 lines
# (0.3-3 MB) before IOR's banner in IO500 submissions. Past the head, only a tool's own banner line counts.
DEEP_SNIFF_BYTES = 64 * 1024 * 1024
_DEEP_BANNERS: tuple[tuple[re.Pattern[str], str], ...] = (
    (ior.BANNER_LINE, "ior"),
    (re.compile(r"^\s*Iozone: Performance Test of File I/O", re.M), "iozone"),
    (re.compile(r"^sysbench \d+\.\d+", re.M), "sysbench"),
)
_LOG_LINE = re.compile(rb"^\s*\d+\s*,\s*-?\d+\s*,\s*[012]\s*,\s*\d+")
_FIO_JSON_START = re.compile(r'^\{\s*$\s*"fio version"', re.M)


def detect(path: Path) -> str:
    """One of FORMATS, or a FlashtuneError saying why not and what is supported."""
    if not path.exists():
        raise bad_input(path, "no such file or directory", hint="check the path")
    if path.is_dir() or path.name.endswith(cbt.TAR_SUFFIXES):
        if cbt.looks_like(path):
            return "cbt"
        if path.is_dir():
            return "directory"
        raise UnknownFormat(
            "a tarball, but not of a CBT results archive (no results/*/id-*/benchmark_config.yaml)",
            file=str(path),
            suggestion="pass the result files themselves, or a tarball of the directory given to `cbt.py -a`",
        )
    if fio.log_info(path) is not None:
        return "fio-log"
    if fiohist.is_hist_log(path):
        return "fio-hist-log"

    try:
        text = head_text(path, SNIFF_BYTES)
    except OSError as e:
        raise bad_input(path, f"cannot read: {e.strerror}", hint="check the file's permissions") from None
    if not text.strip():
        raw = read_bytes(path)
        if not raw.strip():
            raise bad_input(path, "file is empty", line=1, hint="the benchmark wrote nothing; re-run it")
        decode(raw, path, limit=len(raw) * 64 + 1)  # raises with what the content is
    if "\x00" in text:
        decode(read_bytes(path), path, limit=SNIFF_BYTES * 64)  # names binary content
    if s3probe.looks_like(text):
        return "s3-probe"
    if '"fio version"' in text or _FIO_JSON_START.search(text):
        return "fio-json"
    if fionormal.looks_like(text):
        return "fio-normal"
    if fioterse.looks_like(text):
        return "fio-terse"
    if sysbench.looks_like(text):
        return "sysbench"
    if ior.looks_like(text):
        return "ior"
    if iozone.looks_like(text):
        return "iozone"
    if radosbench.looks_like(text):
        return "rados-bench"
    if _LOG_LINE.match(text.encode()):
        raise bad_input(
            path,
            "looks like a fio log, but its name does not say which one",
            hint="keep fio's name PREFIX_{bw,iops,lat,clat,slat}.JOB.log (histogram logs: "
            "PREFIX_clat_hist.JOB.log) so the metric is known",
        )
    if text.lstrip().startswith("{") and "jobs" in text:
        return "fio-json"
    later = _banner_further_on(path)
    if later is not None:
        return later
    raise UnknownFormat(
        "cannot tell which tool wrote this file",
        file=str(path),
        line=1,
        suggestion="supported: fio JSON/JSON+, normal and terse output and its logs, IOR, IOzone, rados bench, sysbench "
        "output, and CBT archive directories",
    )


def _banner_further_on(path: Path) -> str | None:
    """The tool whose banner line comes first after a preamble longer than the sniffed head."""

    try:
        if path.stat().st_size <= SNIFF_BYTES:
            return None
        text = head_text(path, DEEP_SNIFF_BYTES)
    except OSError:
        return None
    found = [(m.start(), fmt) for rx, fmt in _DEEP_BANNERS if (m := rx.search(text)) is not None]
    return min(found)[1] if found else None

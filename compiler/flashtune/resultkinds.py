"""The kinds of benchmark result `flashtune ingest` reads, one reader each (flashtune.ingest.sniff/walk).

Kept apart from flashtune.ingest, which imports pandas: the CLI's `--kind` choices must work where the
optional ingest extra (pandas) is not installed.
"""

from __future__ import annotations

KINDS: tuple[str, ...] = (
    "cbt",
    "fio-log",
    "fio-hist-log",
    "fio-json",
    "fio-normal",
    "fio-terse",
    "ior",
    "iozone",
    "rados-bench",
    "s3-probe",
    "sysbench",
)

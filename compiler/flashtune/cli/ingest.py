"""`flashtune ingest`: turn benchmark outputs into one tidy CSV (the schema of flashtune.ingest.schema).

pandas is imported only when the command runs, so `flashtune --help` and the other subcommands stay fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from flashtune.cli.common import output_arg, path_arg
from flashtune.errors import UsageError

HELP = "read fio/IOR/IOzone/rados bench/sysbench outputs or a CBT archive into one tidy CSV"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register the subcommand on the `flashtune` parser's subparsers."""
    p: argparse.ArgumentParser = sub.add_parser(
        "ingest",
        help=HELP,
        description=HELP + ". Formats: fio JSON/JSON+ and bw/iops/lat/clat/slat logs, IOR 2.x/3.x text, "
        "IOzone (throughput and auto mode), rados bench (text or --format json), sysbench text/JSON, "
        "CBT results archive (directory or tarball).",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        type=path_arg,
        help="result files, directories of them, or CBT archives",
    )
    p.add_argument(
        "--out",
        metavar="CSV",
        type=output_arg,
        help="write the rows here (atomically; - prints the CSV); default: print a summary",
    )
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.add_argument(
        "--format",
        dest="fmt",
        metavar="FMT",
        help="skip detection: cbt, fio-log, fio-hist-log, fio-json, fio-normal, fio-terse, ior, iozone, rados-bench or sysbench",
    )
    p.add_argument("--raw", action="store_true", help="fio logs: keep every sample instead of time bins")
    p.add_argument("--bin-ms", type=int, metavar="MS", help="fio logs: time-bin width (default: automatic)")
    p.add_argument(
        "--stats", metavar="LIST", help="fio logs: statistics per bin (default mean,min,max,p50,p99)"
    )
    return p


def _need_extra() -> None:
    """pandas and numpy come with the [ingest] extra, not with the command-line tools."""
    import importlib.util

    missing = [m for m in ("pandas", "numpy") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(
            f"flashtune ingest needs {' and '.join(missing)}, which are not installed",
            suggestion="pip install 'flashtune[ingest]'",
        )


def run(args: argparse.Namespace) -> int:
    """Read every input; a bad one is reported (file:line, why) and the rest are still written.
    Exit 0 when all inputs were read, 2 when some were bad (the others' rows are in --out)."""
    from flashtune.fileio import check_input_tree

    _need_extra()
    for (
        f
    ) in args.files:  # before any parsing: a FIFO or a device (even inside a folder) would block or never end
        check_input_tree(f)
    from flashtune.ingest import collect

    if args.raw and (args.bin_ms is not None or args.stats):
        raise UsageError(
            "--raw keeps every sample; it cannot be combined with --bin-ms or --stats",
            suggestion="drop --raw to bin, or drop --bin-ms/--stats",
        )
    stats = tuple(s.strip() for s in args.stats.split(",") if s.strip()) if args.stats else None
    out = Path(args.out) if args.out is not None else None
    from flashtune.fileio import check_output_file, write_atomic

    to_stdout = args.out == "-"
    if args.out is not None and not to_stdout:
        check_output_file(args.out, force=args.force, inputs=args.files)  # before parsing gigabytes of logs
    from flashtune.progress import Progress

    with Progress("flashtune ingest", "files read"):  # on a terminal, for runs of more than a few seconds
        got = collect(args.files, fmt=args.fmt, raw=args.raw, bin_ms=args.bin_ms, stats=stats)
    for path, message in got.notes:
        print(f"{path}: note: {message}", file=sys.stderr)
    for s in got.skipped:
        print(f"{s.path}: skipped: {s.reason}", file=sys.stderr)
    for e in got.errors:
        print(str(e), file=sys.stderr)
    df = got.frame
    counts = f"{got.files_read} input(s) read, {len(got.skipped)} skipped, {len(got.errors) - got.files_with_bad_rows} bad"
    if got.bad_rows:
        counts += f", {got.bad_rows} bad row(s) left out"
    if to_stdout:
        if got.files_read:
            sys.stdout.write(df.to_csv(index=False))
        print(f"standard output: {len(df)} rows; {counts}", file=sys.stderr)
    elif out is not None:
        if got.files_read:
            write_atomic(out, df.to_csv(index=False), force=args.force, inputs=args.files)
            print(f"{out}: {len(df)} rows; {counts}")
        else:
            print(f"nothing written to {out}: {counts}", file=sys.stderr)
    else:
        summary = df.groupby(["source", "format"], dropna=False).size().reset_index(name="rows")
        if len(summary):
            print(summary.to_string(index=False))
        print(f"{len(df)} rows; {counts}; pass --out FILE.csv to save them")
    if not got.files_read and not got.errors:
        print("error: no benchmark output among the inputs", file=sys.stderr)
        print(
            "  hint: supported: fio JSON and logs, IOR, IOzone, rados bench, sysbench, CBT archives",
            file=sys.stderr,
        )
    return 2 if got.errors or not got.files_read else 0

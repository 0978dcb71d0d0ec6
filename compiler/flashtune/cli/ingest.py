"""`flashtune ingest`: turn benchmark outputs into one tidy CSV (the schema of flashtune.ingest.schema).

pandas is imported only when the command runs, so `flashtune --help` and the other subcommands stay fast.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flashtune.cli.common import output_arg, path_arg
from flashtune.errors import UsageError
from flashtune.fileio import STDIN, check_input_tree, check_output_file, read_stdin, write_atomic
from flashtune.progress import Progress
from flashtune.resultkinds import KINDS

HELP = "read fio/IOR/IOzone/rados bench/sysbench outputs or a CBT archive into one tidy CSV"
STDIN_NAME = "stdin"  # the file standard input is copied to, in a private folder


def format_arg(text: str) -> str:
    """--format is what to print, as in every flashtune command; an input kind here was --format before."""
    if text in KINDS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is what wrote the inputs: pass --kind {text} (--format is what to print: text or json)"
        )
    return text


def input_arg(text: str) -> str | Path:
    """path_arg for an input that may also be standard input: `-` stays `-`."""
    return text if text == "-" else path_arg(text)


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
        type=input_arg,
        help="result files, directories of them, or CBT archives; - reads one result from standard input",
    )
    p.add_argument(
        "--out",
        metavar="CSV",
        type=output_arg,
        help="write the rows here (atomically; - prints the CSV); default: print a summary",
    )
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.add_argument(
        "--kind",
        dest="fmt",
        choices=KINDS,
        help="what wrote the inputs (default: detected from each file's content, then its name)",
    )
    p.add_argument(
        "--format",
        choices=("text", "json"),
        type=format_arg,
        default="text",
        help="what to print without --out: text (a table) or json (the counts and rows per source)",
    )
    p.add_argument("--raw", action="store_true", help="fio logs: keep every sample instead of time bins")
    p.add_argument("--bin-ms", type=int, metavar="MS", help="fio logs: time-bin width (default: automatic)")
    p.add_argument(
        "--stats", metavar="LIST", help="fio logs: statistics per bin (default mean,min,max,p50,p99)"
    )
    return p


def _need_extra() -> None:
    """pandas and numpy come with the [ingest] extra, not with the command-line tools."""

    missing = [m for m in ("pandas", "numpy") if importlib.util.find_spec(m) is None]
    if missing:
        raise UsageError(
            f"flashtune ingest needs {' and '.join(missing)}, which are not installed",
            suggestion="pip install 'flashtune[ingest]'",
        )


@contextlib.contextmanager
def _stdin_copy(files: list[str | Path]) -> Iterator[tuple[list[str | Path], str | None]]:
    """The inputs with `-` replaced by a private copy of standard input (the readers sniff and re-read files
    by name), and that copy's name; the copy's folder is removed afterwards."""
    if "-" not in files:
        yield files, None
        return

    text = read_stdin()
    folder = Path(tempfile.mkdtemp(prefix="flashtune-ingest-"))
    try:
        copy = folder / STDIN_NAME
        copy.write_text(text, encoding="utf-8")
        yield [copy if f == "-" else f for f in files], str(copy)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(args: argparse.Namespace) -> int:
    """Read every input; a bad one is reported (file:line, why) and the rest are still written.
    Exit 0 when all inputs were read, 2 when some were bad (the others' rows are in --out)."""

    _need_extra()
    if args.files.count("-") > 1:
        raise UsageError("standard input (-) is named more than once", suggestion="name - once")
    if args.format == "json" and args.out == "-":
        raise UsageError(
            "--format json and --out - both want standard output",
            suggestion="write the CSV to a file (--out FILE.csv), or drop --format json",
        )
    named = [f for f in args.files if f != "-"]
    for f in named:  # before any parsing: a FIFO or a device (even inside a folder) would block or never end
        check_input_tree(f)
    from flashtune.ingest import collect

    if args.raw and (args.bin_ms is not None or args.stats):
        raise UsageError(
            "--raw keeps every sample; it cannot be combined with --bin-ms or --stats",
            suggestion="drop --raw to bin, or drop --bin-ms/--stats",
        )
    stats = tuple(s.strip() for s in args.stats.split(",") if s.strip()) if args.stats else None
    out = Path(args.out) if args.out is not None else None

    to_stdout = args.out == "-"
    if args.out is not None and not to_stdout:
        check_output_file(args.out, force=args.force, inputs=named)  # before parsing gigabytes of logs

    # progress on a terminal, for runs of more than a few seconds
    with _stdin_copy(args.files) as (files, copy), Progress("flashtune ingest", "files read"):
        got = collect(files, fmt=args.fmt, raw=args.raw, bin_ms=args.bin_ms, stats=stats)

    def shown(text: str) -> str:
        return text.replace(copy, STDIN) if copy is not None else text

    for path, message in got.notes:
        print(f"{shown(path)}: note: {shown(message)}", file=sys.stderr)
    for s in got.skipped:
        print(f"{shown(s.path)}: skipped: {s.reason}", file=sys.stderr)
    for e in got.errors:
        if e.file is not None:
            e.file = shown(e.file)
        print(str(e), file=sys.stderr)
    df = got.frame
    if copy is not None and len(df):
        df["source"] = df["source"].astype(str).map(shown)
    bad = len(got.errors) - got.files_with_bad_rows
    counts = f"{got.files_read} input(s) read, {len(got.skipped)} skipped, {bad} bad"
    if got.bad_rows:
        counts += f", {got.bad_rows} bad row(s) left out"
    summary = df.groupby(["source", "format"], dropna=False).size().reset_index(name="rows")
    if to_stdout:
        if got.files_read:
            sys.stdout.write(df.to_csv(index=False))
        print(f"standard output: {len(df)} rows; {counts}", file=sys.stderr)
    elif args.format == "json":
        written = out is not None and got.files_read > 0
        if written:
            assert out is not None
            write_atomic(out, df.to_csv(index=False), force=args.force, inputs=named)
        doc = {
            "out": str(out) if written else None,
            "rows": len(df),
            "inputs_read": got.files_read,
            "skipped": len(got.skipped),
            "bad": bad,
            "bad_rows": got.bad_rows,
            "sources": [
                {"source": str(r.source), "format": str(r.format), "rows": int(r.rows)}
                for r in summary.itertuples(index=False)
            ],
        }
        print(json.dumps(doc, indent=2))
    elif out is not None:
        if got.files_read:
            write_atomic(out, df.to_csv(index=False), force=args.force, inputs=named)
            print(f"{out}: {len(df)} rows; {counts}")
        else:
            print(f"nothing written to {out}: {counts}", file=sys.stderr)
    else:
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

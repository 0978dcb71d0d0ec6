"""Shared CLI plumbing: argparse that exits 2 with a hint, and a guard that turns errors into messages."""

from __future__ import annotations

import argparse
import errno
import io
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from flashtune.errors import FlashtuneError, UsageError
from flashtune.hardware import EC_MIN_K, EC_MIN_K_WHY

EC_PATTERN = re.compile(r"\s*(\d+)\s*\+\s*(\d+)\s*")


def ec_pair(text: str) -> tuple[int, int]:
    """--ec K+M as (k, m), for compile-config and flashtune envelope alike: '' (an unset shell variable) is
    refused like any other text that is not K+M, and k=1 as Ceph refuses it."""
    m = EC_PATTERN.fullmatch(text)
    if m and 0 < int(m.group(1)) < EC_MIN_K:  # '--ec 1+1 is not K+M' said the form was wrong
        raise UsageError(
            f"--ec {text}: k is {m.group(1)}: {EC_MIN_K_WHY}", suggestion="e.g. --ec 2+1 or --ec 4+2"
        )
    if not m or int(m.group(1)) < EC_MIN_K or int(m.group(2)) < 1:
        raise UsageError(
            f"--ec {text!r} is not K+M", suggestion="e.g. --ec 4+2 (k data chunks + m coding chunks)"
        )
    return int(m.group(1)), int(m.group(2))


def bounded_int(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: an integer in [lo, hi] (a cluster of 10**9 nodes is a typo, not a cluster)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo}, got {value}")
        if value > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi}, got {value} (a typo?)")
        return value

    return parse


def bounded_float(lo: float, hi: float) -> Callable[[str], float]:
    """An argparse type: a finite number in [lo, hi] (float() also accepts 'nan' and 'inf')."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be between {lo:g} and {hi:g}, got {text}")
        return value

    return parse


def path_arg(text: str) -> Path:
    """An argparse type for file and folder names: an empty string is not the current folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name is not a path")
    if text == "-":
        raise argparse.ArgumentTypeError(
            "'-' (standard input or output) is not taken here; pass a file or folder name "
            "(a file named - is ./-)"
        )
    return Path(text)


def output_arg(text: str) -> str | Path:
    """path_arg for an output file that may also be standard output: `-` stays `-`."""
    return text if text == "-" else path_arg(text)


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line and a hint, exit code 2, like every other flashtune error (the usage
    text is one --help away)."""

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse's own drops a failed write without a word (--help or --version into a full disk or a closed
        # standard output would end with exit 0 and nothing written): here it fails like any other output
        if message:
            (file or sys.stderr).write(message)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n  hint: run '{self.prog} --help'\n")


class _ClosedStdout(io.TextIOBase):
    """sys.stdout of a process started with its standard output closed (Python leaves None there, and print()
    would drop the output without a word): writing fails, as on a full disk."""

    def write(self, text: str) -> int:
        if text:
            raise OSError(errno.EBADF, "standard output is closed")
        return 0


def _discard_stdout() -> None:
    """Point standard output at /dev/null: what is left in its buffer would fail again when Python flushes it
    at exit, with an 'Exception ignored' report (the idiom of Python's signal documentation, 'Note on SIGPIPE')."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # not a real file (a test's capture): nothing is flushed at exit
        pass


# a write to standard output failed for a reason of the place it goes to, not of flashtune
_OUTPUT_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG, errno.EBADF)


def guarded(run: Callable[[Sequence[str] | None], int]) -> Callable[[Sequence[str] | None], int]:
    """Run a CLI body; user errors print `file:line: error: ...` and exit with their code, no traceback.

    Output that cannot be written ends the command with exit code 2 and no traceback either: silently when the
    reader went away (`... | head`), with one line when the disk is full or standard output is closed."""

    def wrapper(argv: Sequence[str] | None = None) -> int:
        if sys.stdout is None:
            sys.stdout = _ClosedStdout()
        try:
            try:
                code = run(argv)
            except SystemExit:  # argparse: --help, --version or a usage error; what it printed must arrive
                sys.stdout.flush()
                raise
            sys.stdout.flush()  # a write that fails fails here, not in Python's last flush at exit
            return code
        except FlashtuneError as e:
            print(str(e), file=sys.stderr)
            return e.exit_code
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:
            _discard_stdout()
            return 2
        except MemoryError:
            print("error: out of memory (is the input what you meant?)", file=sys.stderr)
            return 2
        except OSError as e:
            if e.errno not in _OUTPUT_ERRORS:
                raise
            _discard_stdout()
            print(f"error: cannot write the output: {e.strerror}", file=sys.stderr)
            return 2

    return wrapper

"""Shared CLI plumbing: argparse that exits 2 with a hint, and a guard that turns errors into messages."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, NoReturn

from flashtune.errors import FlashtuneError
from flashtune.pathnames import clean


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


def path_arg(text: str) -> str:
    """An argparse type for file and folder names: an empty string is not the current folder. The name is
    spelt as str(Path(text)) (see flashtune.pathnames: compile-config does without pathlib)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name is not a path")
    return clean(text)


@cache
def _help_width() -> int:
    """The width argparse's formatter would ask shutil.get_terminal_size for: $COLUMNS, else the terminal's,
    else 80; less 2, as argparse takes it."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


def _as_written(message: str) -> str:
    return message


class Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # ArgumentParser.__init__ has gettext translate three phrases ("positional arguments", "options", "show
        # this help message and exit"). Each lookup searches the locale folders for a catalogue of gettext's
        # default domain, which Python does not ship, and the first imports `locale`: ~4M instructions of every
        # CLI start-up. flashtune's CLIs speak English only; their parsers take these phrases as written.
        lookup = vars(argparse)["_"]
        argparse._ = _as_written  # type: ignore[attr-defined]
        try:
            super().__init__(*args, **kwargs)
        finally:
            argparse._ = lookup  # type: ignore[attr-defined]

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse makes a formatter for every add_argument; given no width, each one asks shutil for the
        # terminal's, and importing shutil (with bz2 and lzma) costs every CLI start-up more than its work
        make: Callable[..., argparse.HelpFormatter] = self.formatter_class  # every HelpFormatter takes width
        return make(prog=self.prog, width=_help_width())

    def error(self, message: str) -> NoReturn:
        # one line and a hint, like every other flashtune error (the usage text is one --help away)
        self.exit(2, f"{self.prog}: error: {message}\n  hint: run '{self.prog} --help'\n")


def guarded(run: Callable[[Sequence[str] | None], int]) -> Callable[[Sequence[str] | None], int]:
    """Run a CLI body; user errors print `file:line: error: ...` and exit with their code, no traceback."""

    def wrapper(argv: Sequence[str] | None = None) -> int:
        try:
            return run(argv)
        except FlashtuneError as e:
            print(str(e), file=sys.stderr)
            return e.exit_code
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:
            return 0
        except MemoryError:
            print("error: out of memory (is the input what you meant?)", file=sys.stderr)
            return 2

    return wrapper


def exit_now(code: int) -> NoReturn:
    """End a console script with `code` once main() has returned, skipping the interpreter's teardown.

    Freeing every module and object one by one costs a compile-config run ~29M instructions (a tenth of its
    start-up) and serves nothing: the output files are written and closed by then (fileio closes each before
    the folder is renamed into place). What teardown does that matters is done here or left to it: stdout and
    stderr are flushed; if that fails (a closed pipe, a full disk), or atexit handlers or other threads are
    waiting, the ordinary exit runs and reports it as it always did. Only the console-script entries call
    this: main() returns normally to tests and other callers in the same process.
    """
    import atexit

    threading = sys.modules.get("threading")
    if atexit._ncallbacks() or (threading is not None and threading.active_count() > 1):
        sys.exit(code)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # ValueError: the stream was closed
        sys.exit(code)
    os._exit(code)

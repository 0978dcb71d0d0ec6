"""Shared CLI plumbing: argparse that exits 2 with a hint, and a guard that turns errors into messages."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from flashtune.errors import FlashtuneError


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
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

    return wrapper

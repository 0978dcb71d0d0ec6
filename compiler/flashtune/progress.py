"""Progress on standard error for runs that take more than a few seconds, silent when it is not a terminal.

    with Progress("ingest", "files"):
        for f in files:
            ...
            tick()          # anywhere below: counts one more; a no-op when no Progress is running

Nothing is printed during the first AFTER seconds (a short run stays silent), then one line at most every
EVERY seconds, rewritten in place (carriage return), and wiped at the end. FLASHTUNE_PROGRESS_AFTER sets
AFTER (seconds; tests use 0).

A run made of long named steps says which one it is in (prove's samples, the book's phases, a fleet's
files): `status(text)` names the step, shown with the same AFTER/EVERY rules, with the time left when the
Progress was given the run's expected length (`total=` seconds). A run that is long by design (prove) passes
after=0 so that its first step shows at once.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

AFTER = 2.0
EVERY = 0.5

_current: Progress | None = None


class Progress:
    def __init__(
        self,
        doing: str,
        unit: str = "",
        stream: TextIO | None = None,
        total: float | None = None,
        after: float | None = None,
    ) -> None:
        self.doing, self.unit, self.total = doing, unit, total
        self.stream = stream if stream is not None else sys.stderr
        self.count = 0
        self.step = ""
        self.shown = False
        try:
            self.after = float(os.environ.get("FLASHTUNE_PROGRESS_AFTER", AFTER if after is None else after))
        except ValueError:
            self.after = AFTER
        try:
            self.live = self.stream.isatty()
        except (AttributeError, ValueError, OSError):
            self.live = False

    def __enter__(self) -> Progress:
        global _current
        self.start = time.monotonic()
        self.last = self.start - EVERY  # the first line comes as soon as AFTER has passed
        self.previous = _current
        _current = self
        return self

    def __exit__(self, *exc: object) -> None:
        global _current
        _current = self.previous
        if self.shown:
            self._write("\r\x1b[K")

    def tick(self, n: int = 1) -> None:
        self.count += n
        self._show(force=False)

    def status(self, text: str) -> None:
        """Name the step the run is in now; shown at once once AFTER has passed (a new step is news)."""
        self.step = text
        self._show(force=True)

    def _show(self, *, force: bool) -> None:
        if not self.live:
            return
        now = time.monotonic()
        if now - self.start < self.after or (not force and now - self.last < EVERY):
            return
        self.last = now
        self.shown = True
        if self.step:
            left = (
                ""
                if self.total is None
                else f", about {max(0.0, self.total - (now - self.start)):.0f} s left"
            )
            line = f"{self.step}{left}"
        else:
            line = f"{self.count:,} {self.unit} ({now - self.start:.0f} s)"
        self._write(f"\r{self.doing}: {line}\x1b[K")

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a terminal that went away: progress is not worth an error
            self.live = False


def tick(n: int = 1) -> None:
    """Count n more for the running Progress, if any."""
    if _current is not None:
        _current.tick(n)

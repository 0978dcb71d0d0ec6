"""User-facing errors: every one names a place (file:line[:col]) and suggests a fix.

CLIs catch FlashtuneError at the top and print it; nothing the user can cause ends in a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class FlashtuneError(Exception):
    """An error caused by the user's input or environment, not by a bug in flashtune."""

    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    suggestion: str | None = None
    exit_code: int = 2

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        text = f"{where}error: {self.message}"
        if self.suggestion:
            text += f"\n  hint: {self.suggestion}"
        return text


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset in `text`: the place an error names. The one
    offset -> line:col reckoning (YAML reader errors, JSON syntax errors, ingested tool output)."""
    offset = max(0, offset)
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


class DataError(FlashtuneError):
    """A shipped or user-supplied data file (dataset, knob, tier, profile, hardware) is invalid."""


class UsageError(FlashtuneError):
    """Bad command-line usage."""

"""What the linter reports: one Finding per defect, with a stable code, a place and a suggested fix.
The codes themselves (name, severity, doc) are the registry in flashtune.lint.codes."""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

from flashtune.lint.codes import code_name

SEVERITIES = ("error", "warning", "info")


class Finding(NamedTuple):
    """Immutable, and a tuple because a file can produce 100k of them (a frozen dataclass builds ~4x slower)."""

    file: str
    line: int
    column: int
    severity: str
    code: str
    key: str
    message: str
    suggestion: str = ""

    @property
    def name(self) -> str:
        return code_name(self.code)

    def as_dict(self) -> dict[str, Any]:
        d = self._asdict()
        d["name"] = self.name
        return d

    def render(self) -> str:
        text = f"{self.file}:{self.line}:{self.column}: {self.severity} {self.code} {self.message}"
        if self.suggestion:
            text += f"\n  fix: {self.suggestion}"
        return text


sort_key = operator.attrgetter("file", "line", "column", "code")  # C-level: files can have 100k findings

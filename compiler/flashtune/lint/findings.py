"""What the linter reports: one Finding per defect, with a stable code, a place and a suggested fix.
The codes themselves (name, severity, doc) are the registry in flashtune.lint.codes."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
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
        from flashtune.lint.codes import code_name

        return code_name(self.code)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["name"] = self.name
        return d

    def render(self) -> str:
        text = f"{self.file}:{self.line}:{self.column}: {self.severity} {self.code} {self.message}"
        if self.suggestion:
            text += f"\n  fix: {self.suggestion}"
        return text


def sort_key(f: Finding) -> tuple[str, int, int, str]:
    return (f.file, f.line, f.column, f.code)

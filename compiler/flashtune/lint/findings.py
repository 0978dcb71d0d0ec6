"""What the linter reports: one Finding per defect, with a stable code, a place and a suggested fix."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

SEVERITIES = ("error", "warning", "info")

# Stable codes: tests, CI filters and users' suppressions refer to these; never renumber.
CODES: dict[str, str] = {
    "FT001": "syntax-error",
    "FT002": "unreadable-input",
    "FT101": "unknown-key",
    "FT102": "removed-key",
    "FT103": "renamed-key",
    "FT104": "removed-value",
    "FT105": "key-spelling-ignored",
    "FT106": "wrong-section",
    "FT107": "old-style-section",
    "FT201": "wrong-type",
    "FT202": "out-of-range",
    "FT203": "not-allowed-value",
    "FT204": "suspicious-value",
    "FT301": "duplicate-key",
    "FT401": "no-op-in-context",
    "FT402": "create-time-only",
    "FT501": "unsafe-setting",
    "FT502": "insecure-setting",
    "FT601": "ratio-order",
    "FT602": "min-size-above-size",
    "FT603": "ec-width-vs-failure-domains",
    "FT604": "memory-vs-ram",
    "FT605": "port-range-overlap",
    "FT606": "pgs-per-osd",
    "FT701": "cbt-required-key",
    "FT702": "cbt-unknown-key",
    "FT703": "cbt-wrong-level",
    "FT704": "cbt-unknown-reference",
}


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
        return CODES.get(self.code, "")

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

"""The lint layer's registry of codes: one row per code (name, default severity, summary, doc and a failing
and a passing example), read from data/lint/codes.yaml, where each rule's doc lives."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from flashtune.lint import ruledata


@dataclass(frozen=True)
class LintCode:
    code: str
    name: str
    severity: str  # the default; some rules soften it (loose- my.cnf options, `-key` sysctl lines)
    summary: str
    doc: str
    fail: dict[str, Any] = field(default_factory=dict)
    passing: dict[str, Any] = field(default_factory=dict)


@cache
def lint_codes() -> dict[str, LintCode]:
    rows = ruledata.codes()
    return {
        r["code"]: LintCode(
            r["code"],
            r["name"],
            r["severity"],
            " ".join(str(r["summary"]).split()),
            " ".join(str(r["doc"]).split()),
            dict(r["fail"]),
            dict(r["pass"]),
        )
        for r in rows
    }


def code_name(code: str) -> str:
    row = lint_codes().get(code)
    return row.name if row else ""

"""How findings are shown: text (repeated findings grouped), JSON, SARIF 2.1.0 for code scanning, and GitHub
Actions annotation lines."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from flashtune.lint.codes import lint_codes
from flashtune.lint.findings import Finding

GROUP_AT = 3  # this many findings of one kind become one entry plus a list of places
SHOWN = 8  # places listed in a group before "... and N more"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _template(f: Finding) -> str:
    """The message with the key taken out: findings that differ only in key and place say the same thing."""
    msg = f.message.replace(f.key, "{key}") if f.key else f.message
    return f"{f.severity}|{f.code}|{msg}"


def grouped(findings: Sequence[Finding]) -> list[list[Finding]]:
    """Findings in order, those sharing a code and a message (up to the key) gathered at the first one."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(_template(f), []).append(f)
    out: list[list[Finding]] = []
    for items in groups.values():
        if len(items) >= GROUP_AT:
            out.append(items)
        else:
            out.extend([f] for f in items)
    return sorted(out, key=lambda g: (g[0].file, g[0].line, g[0].column, g[0].code))


def text(findings: Sequence[Finding], *, group: bool = True) -> str:
    lines: list[str] = []
    for g in grouped(findings) if group else [[f] for f in findings]:
        lines.append(g[0].render())
        if len(g) > 1:
            places = [
                (f"line {f.line}" if f.file == g[0].file else f"{f.file}:{f.line}")
                + (f" ({f.key})" if f.key and f.key != g[0].key else "")
                for f in g[1:]
            ]
            more = f", ... and {len(places) - SHOWN} more" if len(places) > SHOWN else ""
            lines.append(f"  same in {len(places)} more place(s): {', '.join(places[:SHOWN])}{more}")
    return "".join(line + "\n" for line in lines)


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def github(findings: Sequence[Finding]) -> str:
    """GitHub Actions workflow commands: `::error file=F,line=L,col=C,title=T::message` per finding."""
    out = []
    for f in findings:
        cmd = {"error": "error", "warning": "warning"}.get(f.severity, "notice")
        title = f"{f.code} {f.name}".strip()
        msg = f.message + (f" (fix: {f.suggestion})" if f.suggestion else "")
        out.append(
            f"::{cmd} file={_escape_prop(f.file)},line={f.line},col={f.column},title={_escape_prop(title)}::"
            f"{_escape_data(msg)}"
        )
    return "".join(line + "\n" for line in out)


def sarif(findings: Sequence[Finding], version: str = "") -> dict[str, Any]:
    """A SARIF 2.1.0 log with one run; every lint code is a rule of the tool, with its doc."""
    codes = lint_codes()
    order = list(codes)
    rules = [
        {
            "id": c.code,
            "name": c.name,
            "shortDescription": {"text": c.summary},
            "fullDescription": {"text": c.doc},
            "defaultConfiguration": {"level": _SARIF_LEVEL[c.severity]},
        }
        for c in codes.values()
    ]
    results = []
    for f in findings:
        r: dict[str, Any] = {
            "ruleId": f.code,
            "level": _SARIF_LEVEL.get(f.severity, "note"),
            "message": {"text": f.message + (f" Fix: {f.suggestion}" if f.suggestion else "")},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.file},
                        "region": {"startLine": max(1, f.line), "startColumn": max(1, f.column)},
                    }
                }
            ],
        }
        if f.code in codes:
            r["ruleIndex"] = order.index(f.code)
        results.append(r)
    driver: dict[str, Any] = {"name": "flashtune lint-config", "rules": rules}
    if version:
        driver["version"] = version
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }


def as_json(findings: Sequence[Finding]) -> str:
    return json.dumps([f.as_dict() for f in findings], indent=2) + "\n"

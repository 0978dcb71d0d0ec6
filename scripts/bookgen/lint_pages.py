"""The "Lint codes" reference page: every lint-config code with its severity, doc and examples, generated from
the codes table in data/lint/codes.yaml (the same rows tests/unit/test_lint_codes.py checks)."""

from __future__ import annotations

from pathlib import Path

from bookgen import myst
from flashtune.lint.codes import LintCode, lint_codes


def _example(ex: dict[str, object]) -> list[str]:
    text = str(ex.get("text", ex.get("raw", "")))
    extra = [f"{k}: {v}" for k, v in ex.items() if k not in ("text", "raw", "kind")]
    out = [f"*{ex.get('kind', '')}*" + (f" ({'; '.join(extra)})" if extra else ""), "", "```text"]
    out += text.rstrip("\n").split("\n")
    out += ["```", ""]
    return out


def section(c: LintCode) -> list[str]:
    return [
        f"({myst.label('lint', c.code)})=",
        f"## {c.code} {c.name}",
        "",
        f"Default severity: **{c.severity}**. {c.summary}",
        "",
        c.doc,
        "",
        "Reported:",
        "",
        *_example(c.fail),
        "Not reported:",
        "",
        *_example(c.passing),
    ]


def page() -> str:
    codes = list(lint_codes().values())
    lines = [
        "(lint-codes)=",
        "# Lint codes",
        "",
        "`lint-config` reports each defect with a stable code. This page is generated from the codes table in "
        "`data/lint/codes.yaml`; each example below is linted by the test suite, so the page cannot drift from "
        "what the linter does. `--format sarif` carries the same summaries to code scanning.",
        "",
        myst.table(
            ["code", "name", "severity", "summary"],
            [[myst.ref(c.code, myst.label("lint", c.code)), c.name, c.severity, c.summary] for c in codes],
        ),
    ]
    for c in codes:
        lines += section(c)
    return "\n".join(lines) + "\n"


def write(out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page(), encoding="utf-8")
    return out

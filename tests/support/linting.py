"""Short forms of lint-config's answers for the lint tests: findings as tuples, and the CLI in a child process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from flashtune.lint import lint_text

REPO = Path(__file__).resolve().parents[2]


def codes_at(text: str, kind: str, **kw: object) -> list[tuple[int, str, str, str]]:
    """(line, key, code, severity) of every finding."""
    return [(f.line, f.key, f.code, f.severity) for f in lint_text(text, kind, **kw)]  # type: ignore[arg-type]


def found(text: str, kind: str = "cbt.yaml") -> list[tuple[int, str, str]]:
    """(line, code, key) of every finding."""
    return [(f.line, f.code, f.key) for f in lint_text(text, kind)]


def lint_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`lint-config ARGS` run from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "flashtune.cli.lint", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )

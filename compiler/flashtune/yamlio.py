"""One place that reads flashtune's YAML data files, with file:line in every error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from flashtune.errors import DataError
from flashtune.fileio import read_text


def load_yaml(path: Path) -> Any:
    """Parse a YAML file safely (round-trip loader keeps line numbers on mappings)."""
    text = read_text(path)
    yaml = YAML(typ="rt")
    try:
        return yaml.load(text)
    except MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise DataError(
            f"YAML syntax error: {e.problem or e.context}",
            file=str(path),
            line=(mark.line + 1) if mark else None,
            column=(mark.column + 1) if mark else None,
            suggestion="fix the YAML syntax (indentation, quoting, ':' after keys)",
        ) from None
    except YAMLError as e:
        raise DataError(f"YAML error: {e}", file=str(path)) from None


def line_of(node: Any, key: Any = None) -> int | None:
    """1-based line of a mapping (or of one key in it) loaded by load_yaml, if known."""
    lc = getattr(node, "lc", None)
    if lc is None:
        return None
    try:
        if key is not None:
            return int(lc.key(key)[0]) + 1
        return int(lc.line) + 1
    except (KeyError, TypeError, AttributeError):
        return None

"""Config values compared as the programs that read them compare them (no catalog imports: the bottom)."""

from __future__ import annotations

from typing import Any

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def canon_value(value: Any, type_: str | None = None) -> str:
    """A comparable spelling of a config value: booleans as true/false (for type bool also on/yes/1 and
    off/no/0), whole floats as integers, lists space-separated, the rest unquoted, trimmed, lower-cased.
    The one value canonicalisation: linter, compiler, dependency facts and notebooks all compare with it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return " ".join(canon_value(v, type_) for v in value)  # multi-value sysctls, address lists
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # YAML's 1.0 and a profile's 1 are the same setting
    text = str(value).strip().strip("\"'").lower()
    if type_ == "float":  # `config show` prints floats as 1.000000
        try:
            number = float(text)
        except ValueError:
            return text
        return str(int(number)) if number.is_integer() else repr(number)
    if type_ == "bool":
        if text in _TRUE:
            return "true"
        if text in _FALSE:
            return "false"
    return text

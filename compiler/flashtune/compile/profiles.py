"""Layered profiles (data/profiles/*.yaml): resolve `include:` chains and merge settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flashtune.errors import DataError
from flashtune.paths import profiles_dir
from flashtune.yamlio import line_of, load_yaml

# file -> section -> key -> value
Layer = dict[str, dict[str, dict[str, Any]]]


def _read(name: str, directory: Path) -> dict[str, Any]:
    path = directory / f"{name}.yaml"
    if not path.exists():
        known = sorted(p.stem for p in directory.glob("*.yaml"))
        raise DataError(
            f"no profile {name!r}", file=str(path), suggestion=f"known profiles: {', '.join(known)}"
        )
    doc = load_yaml(path)
    if not isinstance(doc, dict) or "settings" not in doc:
        raise DataError(
            "a profile is a mapping with 'name' and 'settings'", file=str(path), line=line_of(doc)
        )
    return dict(doc)


def resolve(name: str, directory: Path | None = None, _seen: tuple[str, ...] = ()) -> list[tuple[str, Layer]]:
    """The chain of layers for a profile, outermost include first."""
    d = directory or profiles_dir()
    if name in _seen:
        raise DataError(f"profile include loop: {' -> '.join((*_seen, name))}", file=str(d / f"{name}.yaml"))
    doc = _read(name, d)
    chain: list[tuple[str, Layer]] = []
    inc = doc.get("include")
    for parent in [inc] if isinstance(inc, str) else list(inc or []):
        chain.extend(resolve(str(parent), d, (*_seen, name)))
    settings = doc.get("settings") or {}
    layer: Layer = {
        str(f): {str(s): dict(kv or {}) for s, kv in (secs or {}).items()} for f, secs in settings.items()
    }
    chain.append((name, layer))
    return chain


def merge(chain: list[tuple[str, Layer]]) -> dict[tuple[str, str, str], tuple[Any, str]]:
    """(file, section, key) -> (value, layer that set it); later layers win."""
    merged: dict[tuple[str, str, str], tuple[Any, str]] = {}
    for layer_name, layer in chain:
        for file, sections in layer.items():
            for section, kv in sections.items():
                for key, value in kv.items():
                    merged[(file, section, str(key))] = (value, layer_name)
    return merged

"""CBT YAML emitter: settings whose keys are dotted paths become a nested CBT test plan."""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from typing import Any

from ruamel.yaml import YAML

from flashtune.emit.common import header
from flashtune.settings import Setting


def _put(tree: dict[str, Any], path: list[str], value: Any) -> None:
    node = tree
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


def emit(settings: Iterable[Setting], inputs: Mapping[str, Any]) -> str:
    tree: dict[str, Any] = {}
    for s in settings:
        path = ([s.section] if s.section else []) + s.key.split(".")
        _put(tree, path, s.value)
    yaml = YAML()
    yaml.default_flow_style = False
    buf = io.StringIO()
    yaml.dump(tree, buf)
    return header("#", inputs) + buf.getvalue()

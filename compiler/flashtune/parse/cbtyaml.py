"""CBT test-plan YAML parser: the loaded tree plus one Entry (with line/column) per mapping key.

CBT itself uses PyYAML's safe_load, where a repeated key silently replaces the earlier one; we keep every
occurrence as an Entry (so the linter can report the duplicate) and build the data tree last-wins, like CBT.
Entries are flattened: section is the dotted path of the parent mapping ("cluster.pool_profiles.2rep").
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.error import MarkedYAMLError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from flashtune.errors import DataError
from flashtune.parse.confdoc import ConfDoc, ConfSyntaxError, Entry
from flashtune.yamlio import compose_all

MAX_DEPTH = 64  # a test plan is 4-5 levels deep; deeper input is an attack or an accident
MAX_NODES = 100_000  # aliases expanded; real plans have a few hundred


def _scalar_text(node: Node) -> str | None:
    if isinstance(node, ScalarNode):
        return str(node.value)
    if isinstance(node, SequenceNode):
        return "[" + ", ".join(_scalar_text(n) or "{...}" for n in node.value) + "]"
    return None


def _walk(node: Node, path: str, doc: ConfDoc, depth: int) -> None:
    if depth > MAX_DEPTH:
        mark = node.start_mark
        raise ConfSyntaxError(
            f"YAML nested more than {MAX_DEPTH} levels deep",
            file=doc.filename,
            line=mark.line + 1,
            column=mark.column + 1,
            suggestion="a CBT test plan needs only a few levels",
        )
    if isinstance(node, MappingNode):
        for knode, vnode in node.value:
            key = str(knode.value) if isinstance(knode, ScalarNode) else "?"
            doc.entries.append(
                Entry(
                    path,
                    key,
                    key,
                    _scalar_text(vnode),
                    knode.start_mark.line + 1,
                    knode.start_mark.column + 1,
                    vnode.start_mark.line + 1,
                    vnode.start_mark.column + 1,
                    node=vnode,
                )
            )
            _walk(vnode, f"{path}.{key}" if path else key, doc, depth + 1)
    elif isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, f"{path}[{i}]", doc, depth + 1)


def _to_data(node: Node, construct: SafeConstructor) -> Any:
    """Plain Python data from a composed node, later duplicate keys replacing earlier ones (PyYAML-like)."""
    if isinstance(node, MappingNode):
        return {_to_data(k, construct): _to_data(v, construct) for k, v in node.value}
    if isinstance(node, SequenceNode):
        return [_to_data(v, construct) for v in node.value]
    return construct.construct_object(node, deep=True)


def parse(text: str, filename: str = "<string>", *, recover: bool = False) -> ConfDoc:
    """Parse a CBT plan as CBT does (YAML 1.1, PyYAML's safe schema), within flashtune's size bounds."""
    doc = ConfDoc(kind="cbt.yaml", filename=filename)
    del recover  # YAML cannot resume after a syntax error: the first one is the only one reported
    try:
        roots = compose_all(text, filename, schema="cbt", max_depth=MAX_DEPTH, max_nodes=MAX_NODES)
        # Multi-document YAML is valid YAML; CBT reads one document, so the first is the plan and the
        # number of documents is kept for the linter to report.
        doc.documents = len(roots)
        if roots:
            _walk(roots[0], "", doc, 0)
            doc.data = _to_data(roots[0], SafeConstructor())
    except DataError as e:
        hint = e.suggestion
        if "mapping values are not allowed" in e.message:
            hint = (
                "this line is indented deeper than the key above it, which already has a value; "
                "indent both under the same parent (e.g. two spaces under 'cluster:')"
            )
        raise ConfSyntaxError(
            e.message, file=filename, line=e.line, column=e.column, suggestion=hint
        ) from None
    except MarkedYAMLError as e:  # a value CBT's safe_load would refuse too (unknown tag, bad timestamp)
        mark = e.problem_mark or e.context_mark
        raise ConfSyntaxError(
            f"YAML error: {e.problem or e.context}",
            file=filename,
            line=(mark.line + 1) if mark else None,
            column=(mark.column + 1) if mark else None,
            suggestion="write plain values (strings, numbers, lists, mappings)",
        ) from None
    except (RecursionError, TypeError, ValueError) as e:
        # TypeError: unhashable keys ({[a]: 1}); RecursionError: pathological anchors / nesting
        raise ConfSyntaxError(
            f"unusable YAML: {type(e).__name__}: {e}"[:300],
            file=filename,
            suggestion="a CBT plan holds mappings of plain keys to scalars and lists",
        ) from None
    doc.line_count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return doc


def render(doc: ConfDoc) -> str:
    return "" if doc.data is None else yaml.safe_dump(doc.data, default_flow_style=False)

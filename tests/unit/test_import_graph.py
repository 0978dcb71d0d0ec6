"""flashtune's import graph: the one direction of flow (data -> catalog -> rules -> compile -> emit -> validate ->
write) as the imports say it, with no cycle even through an import inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}


def test_model_is_the_bottom_floor_and_emitters_import_downward() -> None:
    pkg = REPO / "compiler" / "flashtune"
    assert {m for m in _imports(pkg / "model.py") if m.startswith("flashtune")} <= {"flashtune.releases"}
    for path in (pkg / "emit").glob("*.py"):
        upward = {m for m in _imports(path) if m.startswith(("flashtune.compile", "flashtune.cli"))}
        assert not upward, (path.name, upward)
    assert "flashtune.emit.manifest" not in _imports(pkg / "emit" / "explain.py")
    assert "main" not in {
        n.name
        for n in ast.parse((pkg / "cli" / "ingest.py").read_text()).body
        if isinstance(n, ast.FunctionDef)
    }


def _run_time_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement a run can execute: at module level and inside functions, classes and branches,
    but not under `if TYPE_CHECKING:` (read only by type checkers)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            visit(child)

    visit(tree)
    return found


def _module_graph() -> dict[str, set[str]]:
    """flashtune's import graph: module -> flashtune modules it imports, counting imports inside functions."""
    pkg = REPO / "compiler" / "flashtune"
    files = {
        ("flashtune." + ".".join(p.relative_to(pkg).with_suffix("").parts)).removesuffix(".__init__"): p
        for p in pkg.rglob("*.py")
    }
    graph: dict[str, set[str]] = {}
    for mod, path in files.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        out: set[str] = set()
        for n in _run_time_imports(ast.parse(path.read_text())):
            if isinstance(n, ast.Import):
                out.update(a.name for a in n.names)
                continue
            base = n.module or ""
            if n.level:  # from . import x / from .y import z
                parent = package.rsplit(".", n.level - 1)[0] if n.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            out.update(f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in n.names)
        graph[mod] = {m for m in out if m in files and m != mod}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while (w := stack.pop()) != v:
                comp.append(w)
            if comp:
                found.append(sorted([v, *comp]))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_cycles() -> None:
    """No two flashtune modules import each other, directly or around a loop, even through an import inside
    a function: a module's place in the one direction of flow (data -> catalog -> rules -> compile -> emit ->
    validate -> write) is where its imports say it is."""
    graph = _module_graph()
    assert graph["flashtune.compile.pipeline"] >= {"flashtune.hardware", "flashtune.compile.validate"}
    assert _cycles(graph) == []
    # the check sees an import inside a function: a loop made of one is found
    looped = {**graph, "flashtune.model": {*graph["flashtune.model"], "flashtune.compile.pipeline"}}
    assert _cycles(looped)

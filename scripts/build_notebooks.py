#!/usr/bin/env python3
"""Generate notebooks/*.ipynb from their percent-format sources in notebooks/src/*.py.

The .py sources are what people edit and review; the .ipynb files are committed without outputs so
the book and CI execute them. `--check` exits 1 if any .ipynb differs from what its source generates.

Every source follows notebooks/template.py: the sections of the template (question, data, checks, chart,
reading, knobs, your results) appear in its order, the checks assert numbers, the knobs come from the
catalog, and catalog facts are asked for, never re-derived (`template_problems`; `--check` reports them).

Source format (the jupytext "percent" convention, parsed here to avoid another dependency):
    # %% [markdown]            a markdown cell; each line starts with "# " (or is "#")
    # %% tags=["parameters"]   a code cell with cell tags
    # %%                       a plain code cell

A code cell that draws an Altair chart gets the `hide-input` tag: the book shows the chart and collapses its
code behind a "show code" toggle (Jupyter Book 1), so a page reads question -> chart -> what it means -> knobs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[1]
NB_DIR = REPO / "notebooks"
SRC_DIR = NB_DIR / "src"
TEMPLATE = NB_DIR / "template.py"
# Catalog facts a notebook must ask for (nb.status_grid, nb.knob_table, Catalog.status, Knob.unsafe, ...)
# rather than re-derive from the knob record's raw fields.
_REIMPLEMENTS = re.compile(
    r"\.(exists_in|misspelling_of|renamed_to|applies_to|unsafe_values|removed_values|matches)\b"
    r"|\bcanon_value\b|\bruledata\b|option-names|\bknob\.(added|removed|default)\b"
)
_CHART = re.compile(r"\balt\.(Chart|layer|hconcat|vconcat|concat)\b")
_MARKER = re.compile(r"^# %%(?P<md> \[markdown\])?(?:\s+tags=(?P<tags>\[.*\]))?\s*$")


def _cells(source: str, origin: str) -> list[nbformat.NotebookNode]:
    cells: list[nbformat.NotebookNode] = []
    kind: str | None = None
    tags: list[str] = []
    lines: list[str] = []

    def flush() -> None:
        body = "\n".join(lines).strip("\n")
        if kind is None:
            if body.strip():
                raise SystemExit(f"{origin}:1: error: text before the first '# %%' marker")
            return
        new = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
        cell = new(body)
        cell_tags = list(tags)
        if kind == "code" and _CHART.search(body) and "hide-input" not in cell_tags:
            cell_tags.append("hide-input")  # the chart shows; its code folds away
        if cell_tags:
            cell.metadata["tags"] = cell_tags
        cells.append(cell)

    for n, line in enumerate(source.splitlines(), 1):
        m = _MARKER.match(line)
        if m:
            flush()
            kind = "markdown" if m.group("md") else "code"
            tags = json.loads(m.group("tags")) if m.group("tags") else []
            lines = []
            continue
        if kind == "markdown":
            if line and line != "#" and not line.startswith("# "):
                raise SystemExit(f"{origin}:{n}: error: markdown lines must start with '# '")
            line = line[2:]
        lines.append(line)
    flush()
    return cells


def sections(cells: list[nbformat.NotebookNode]) -> list[tuple[str, int]]:
    """(line, cell index) of each section start: the bold **Question.**/**Data.** labels and `## ` headings."""
    found = []
    for i, cell in enumerate(cells):
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            if (line.startswith("**") and line.find(".**") > 2) or line.startswith("## "):
                found.append((line, i))
    return found


def template_sections() -> list[str]:
    """The template's section markers: its bold labels and its headings up to a colon ('## Chart')."""
    cells = _cells(TEMPLATE.read_text(encoding="utf-8"), "notebooks/template.py")
    lines = [line for line, _ in sections(cells)]
    return [
        ln[: ln.index(".**") + 3] if ln.startswith("**") else ln.split(":", 1)[0].rstrip() for ln in lines
    ]


def template_problems(text: str, origin: str) -> list[str]:
    """How a notebook source departs from the template (empty when it follows it)."""
    cells = _cells(text, origin)
    want = template_sections()
    at: dict[str, int] = {}
    for line, i in sections(cells):
        for m in want:  # '## Checks against the slides' claims' starts the section '## Checks'
            if (
                line == m
                or line.startswith((f"{m}:", f"{m} "))
                or (m.startswith("**") and line.startswith(m))
            ):
                at.setdefault(m, i)
    problems = [f"{origin}: no '{m}' section (see notebooks/template.py)" for m in want if m not in at]
    present = [m for m in want if m in at]
    if [at[m] for m in present] != sorted(at[m] for m in present):
        problems.append(
            f"{origin}: sections out of the template's order: " + ", ".join(sorted(present, key=at.get))
        )
    code = [(i, c.source) for i, c in enumerate(cells) if c.cell_type == "code"]

    def between(first: str, last: str | None) -> list[str]:
        lo, hi = at.get(first, len(cells)), at.get(last, len(cells)) if last else len(cells)
        return [src for i, src in code if lo < i < hi]

    def need(ok: bool, what: str) -> None:
        if not ok:
            problems.append(f"{origin}: {what}")

    params = [c for c in cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    need(bool(params) and "results = None" in params[0].source, "no parameters cell setting results = None")
    need(any("nb.reader_results(results)" in src for _, src in code), "the reader's results are not read")
    if "## Checks" in at and "## Chart" in at:
        checks = between("## Checks", "## Chart")
        need(
            any(re.search(r"nb\.check\(|^assert ", s, re.M) for s in checks),
            "the checks section checks nothing",
        )
    if "## Knobs this justifies" in at:
        knobs = between("## Knobs this justifies", "## Your results")
        need(any("nb.knob_table(" in s for s in knobs), "the knobs section has no nb.knob_table")
    if "## Your results" in at:
        need(bool(between("## Your results", None)), "'Your results' has no code cell")
    need(
        any("reader" in src and "reader_results" not in src for _, src in code),
        "the reader's results are unused",
    )
    for n, line in enumerate(text.splitlines(), 1):
        if not line.startswith("#") and _REIMPLEMENTS.search(line):
            problems.append(f"{origin}:{n}: re-derives a catalog fact; call nb / flashtune.catalog instead")
    return problems


def render(src: Path) -> str:
    """The .ipynb text for one source: no outputs, deterministic cell ids."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    nb.cells = _cells(src.read_text(encoding="utf-8"), str(src.relative_to(REPO)))
    for i, cell in enumerate(nb.cells):
        cell["id"] = hashlib.sha1(f"{src.stem}:{i}".encode()).hexdigest()[:12]
    nbformat.validate(nb)
    return nbformat.writes(nb) + "\n"


def targets() -> dict[Path, Path]:
    return {src: NB_DIR / f"{src.stem}.ipynb" for src in sorted(SRC_DIR.glob("[0-9][0-9]-*.py"))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report notebooks that are out of date")
    args = ap.parse_args(argv)
    stale = []
    off_template = [
        p
        for src in targets()
        for p in template_problems(src.read_text(encoding="utf-8"), str(src.relative_to(REPO)))
    ]
    for problem in off_template:
        print(problem, file=sys.stderr)
    for src, dst in targets().items():
        text = render(src)
        current = dst.read_text(encoding="utf-8") if dst.exists() else None
        if current == text:
            continue
        if args.check:
            stale.append(dst)
        else:
            dst.write_text(text, encoding="utf-8")
            print(f"wrote {dst.relative_to(REPO)}")
    for dst in stale:
        print(f"{dst.relative_to(REPO)} is out of date: run scripts/build_notebooks.py", file=sys.stderr)
    return 1 if stale or off_template else 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Generate notebooks/*.ipynb from their percent-format sources in notebooks/src/*.py.

The .py sources are what people edit and review; the .ipynb files are committed without outputs so
the book and CI execute them. `--check` exits 1 if any .ipynb differs from what its source generates.

Source format (the jupytext "percent" convention, parsed here to avoid another dependency):
    # %% [markdown]            a markdown cell; each line starts with "# " (or is "#")
    # %% tags=["parameters"]   a code cell with cell tags
    # %%                       a plain code cell
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
        if tags:
            cell.metadata["tags"] = list(tags)
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
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())

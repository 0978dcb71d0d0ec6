#!/usr/bin/env python3
"""Build the flashtune book offline: generate the reference pages, then run Jupyter Book 1.x.

    python scripts/build_book.py [--root DIR] [--out DIR]

The book's source root is the repository root (so notebooks/ is published as it is); book/_config.yml
and book/_toc.yml are passed explicitly. Pages generated from data (knob reference, datasets, compiled
configs, "what changed since 2017") go to book/_generated/ (gitignored). Every run renders every page
afresh (stale pages of removed documents would otherwise linger); only notebook execution is cached
(OUT/_build/.jupyter_cache), so unchanged notebooks are not run again. Warnings fail the build, a
failing notebook cell fails the build, and the result is checked for anything that would load from
the network. Prints the build time and the page count; exit 0 on success, 1 on a failed build,
2 on bad input.

The "Compile a config" page (book/compile.md) runs compile-config in the browser: Pyodide (from the npm
registry, installed by `npm ci --prefix book/web`, which `make book` runs) is copied into
_static/pyodide/, and flashtune (the installed package's Python files, the data snapshot of ROOT/data and
PyYAML's pure-Python modules) into _static/compile/flashtune-web.zip; then scripts/pyodide_snapshot.mjs (Node, which npm came with) boots
that Pyodide with that bundle, imports flashtune, compiles once and saves Pyodide's memory as
_static/compile/pyodide-snapshot.bin.gz, which the page starts Python from. The whole book must stay under
BOOK_BUDGET_MB and the compile page's downloads under PAGE_BUDGET_MB (both checked here).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from flashtune.progress import Progress, tick

REPO = Path(__file__).resolve().parents[1]
# Tags whose src/href the browser fetches when the page loads, and URLs inside inline scripts (altair's
# HTML output loads Vega from a CDN through a script body, not a src attribute).
_FETCHING_TAG = re.compile(r"<(script|link|img|iframe)\b[^>]*>", re.I)
_URL_ATTR = re.compile(r"""\b(?:src|href)\s*=\s*["']((?:https?:)?//[^"']+)["']""", re.I)
_LINK_FETCHED = re.compile(r"""\brel\s*=\s*["']?[^"'>]*\b(stylesheet|preload|icon|modulepreload)\b""", re.I)
_INLINE_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script>", re.I | re.S)
_SCRIPT_URL = re.compile(r"""["'`]((?:https?:)?//[^"'`\s]+)""")
_NON_PAGES = {"genindex.html", "search.html", "py-modindex.html"}
# What the compile page loads: Pyodide's runtime (its npm package minus what a browser does not need) ...
PYODIDE_DIR = Path("book") / "web" / "node_modules" / "pyodide"
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
# ... flashtune and the memory snapshot the page starts from (both made here) ...
COMPILE_FILES = ("flashtune-web.zip", "pyodide-snapshot.bin.gz")
SNAPSHOT_SCRIPT = Path("scripts") / "pyodide_snapshot.mjs"
# ... and the size budgets: the book as a whole, and what the compile page downloads before its first compile
# (Pyodide ~13.5 MB, flashtune ~0.8 MB, the snapshot ~8 MB: 114 MB of memory, gzipped). The snapshot costs
# its download but saves starting the interpreter and importing flashtune (most of the first compile's wait).
BOOK_BUDGET_MB = 60
PAGE_BUDGET_MB = 24


def generate(root: Path) -> list[Path]:
    """Write every generated page under root/book/_generated (old pages removed first)."""
    from bookgen import changes, config_pages, dataset_pages, knob_pages, lint_pages, rules_pages, toc
    from flashtune.catalog.store import load_from

    gen = root / "book" / "_generated"
    shutil.rmtree(gen, ignore_errors=True)
    catalog = load_from(root / "data" / "knobs")
    pages = knob_pages.write(catalog, gen / "knobs")
    tick(len(pages))
    for more in (
        lambda: dataset_pages.write(gen / "datasets"),
        lambda: config_pages.write(root / "configs", gen / "configs"),
        lambda: [changes.write(catalog, gen)],
        lambda: rules_pages.write(root, catalog, gen),
        lambda: [lint_pages.write(gen / "lint-codes.md")],
    ):
        written = more()
        pages += written
        tick(len(written))  # the caller's Progress counts pages (a no-op without one)
    tiers = gen / "tiers.md"
    tiers.write_text(config_pages.tiers_table(root / "data" / "tiers"), encoding="utf-8")
    toc.effective_toc(root, root / "book" / "_toc.yml", gen / "_toc.yml")
    return pages


def remote_assets(html_dir: Path) -> list[str]:
    """'page: url' for everything a built page would fetch off-site when it loads."""
    found = []
    for page in sorted(html_dir.rglob("*.html")):
        tick()
        text = page.read_text(encoding="utf-8", errors="replace")
        urls = []
        for tag in _FETCHING_TAG.finditer(text):
            m = _URL_ATTR.search(tag.group(0))
            if m and (tag.group(1).lower() != "link" or _LINK_FETCHED.search(tag.group(0))):
                urls.append(m.group(1))  # a plain <link rel=canonical/next> is not fetched
        for body in _INLINE_SCRIPT.finditer(text):
            urls += _SCRIPT_URL.findall(body.group(1))
        found += [f"{page.relative_to(html_dir)}: {u}" for u in urls]
    return found


def web_bundle(root: Path, target: Path) -> None:
    """flashtune for Pyodide as one zip: the package's Python files, the data snapshot of root/data (as the
    wheel build makes it) and PyYAML's pure-Python modules (its C extension cannot load in Pyodide, and
    PyYAML falls back to Python without it)."""
    import yaml

    import flashtune
    from flashtune import snapshot

    package = Path(flashtune.__file__).parent
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "_data"
        snapshot.build(root / "data", data)
        members: list[tuple[str, Path]] = [
            (f"flashtune/{p.relative_to(package).as_posix()}", p)
            for p in sorted(package.rglob("*"))
            if p.is_file() and p.suffix in (".py", ".typed") and "_data" not in p.relative_to(package).parts
        ]
        members += [(f"flashtune/_data/{p.relative_to(data).as_posix()}", p) for p in sorted(data.rglob("*"))]
        yaml_dir = Path(yaml.__file__).parent
        members += [(f"yaml/{p.name}", p) for p in sorted(yaml_dir.glob("*.py"))]
        target.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
            for name, path in members:
                if path.is_file():
                    z.writestr(
                        zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)),
                        path.read_bytes(),
                        zipfile.ZIP_DEFLATED,
                    )


def copy_web(root: Path, html_dir: Path) -> None:
    """Pyodide, the flashtune bundle and the memory snapshot into the built book (_static/pyodide,
    _static/compile)."""
    source = root / PYODIDE_DIR
    out = html_dir / "_static" / "pyodide"
    out.mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        shutil.copyfile(source / name, out / name)
    compile_dir = html_dir / "_static" / "compile"
    web_bundle(root, compile_dir / COMPILE_FILES[0])
    memory_snapshot(root, compile_dir / COMPILE_FILES[0], compile_dir / COMPILE_FILES[1])


def memory_snapshot(root: Path, bundle: Path, target: Path) -> None:
    """Pyodide's memory after importing flashtune and compiling once (scripts/pyodide_snapshot.mjs, in Node)."""
    proc = subprocess.run(
        [node(), str(root / SNAPSHOT_SCRIPT), str(root / PYODIDE_DIR), str(bundle), str(target)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0:
        raise BuildError(f"{SNAPSHOT_SCRIPT} failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")


class BuildError(Exception):
    """A step after Jupyter Book failed; its message says which and why."""


def node() -> str:
    exe = shutil.which("node") or shutil.which("nodejs")
    if exe is None:
        raise BuildError("node: not found\n  hint: install Node.js (scripts/install-system-deps.sh does)")
    return exe


def size_mb(paths: list[Path]) -> float:
    return sum(p.stat().st_size for p in paths if p.is_file()) / 1e6


def over_budget(html_dir: Path) -> list[str]:
    """The size budgets the book breaks (empty: none)."""
    problems = []
    book = size_mb(list(html_dir.rglob("*")))
    if book > BOOK_BUDGET_MB:
        problems.append(f"the book is {book:.1f} MB, over its budget of {BOOK_BUDGET_MB} MB")
    page = size_mb(
        [html_dir / "_static" / "pyodide" / n for n in PYODIDE_FILES]
        + [html_dir / "_static" / "compile" / n for n in COMPILE_FILES]
    )
    if page > PAGE_BUDGET_MB:
        problems.append(f"the compile page downloads {page:.1f} MB, over its budget of {PAGE_BUDGET_MB} MB")
    return problems


def content_pages(html_dir: Path) -> list[Path]:
    return [
        p
        for p in sorted(html_dir.rglob("*.html"))
        if p.name not in _NON_PAGES and "_static" not in p.parts and "_sources" not in p.parts
    ]


def jupyter_book() -> str:
    exe = Path(sys.executable).parent / "jupyter-book"
    return str(exe) if exe.exists() else "jupyter-book"


def clean(out: Path) -> None:
    """Remove the previous build's pages and Sphinx state, keeping the notebook execution cache."""
    build_dir = out / "_build"
    for name in ("html", ".doctrees", "jupyter_execute"):
        shutil.rmtree(build_dir / name, ignore_errors=True)


def build(root: Path, out: Path) -> int:
    cmd = [
        jupyter_book(),
        "build",
        str(root),
        "--config",
        str(root / "book" / "_config.yml"),
        "--toc",
        str(root / "book" / "_generated" / "_toc.yml"),
        "--path-output",
        str(out),
        "-W",
        "-n",
        "--keep-going",
    ]
    return subprocess.run(cmd, cwd=root, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build the flashtune Jupyter Book (offline).")
    ap.add_argument(
        "--root", type=Path, default=REPO, help="repository root to build from (default: this repo)"
    )
    ap.add_argument(
        "--out", type=Path, help="output folder (default: ROOT/book); HTML lands in OUT/_build/html"
    )
    args = ap.parse_args(argv)
    root = args.root.resolve()
    out = (args.out or root / "book").resolve()
    for need in ("book/_config.yml", "book/_toc.yml", "data/knobs"):
        if not (root / need).exists():
            print(
                f"{root / need}: error: missing\n  hint: --root must be a flashtune checkout", file=sys.stderr
            )
            return 2
    if not (root / PYODIDE_DIR / "pyodide.asm.wasm").is_file():
        print(
            f"{root / PYODIDE_DIR}: error: Pyodide is not installed\n"
            f"  hint: run 'npm ci --prefix {root / 'book' / 'web'}' (make book does)",
            file=sys.stderr,
        )
        return 2
    if not any((root / "notebooks").glob("*.ipynb")):
        print(
            f"{root / 'notebooks'}: error: no notebooks to publish\n  hint: the book needs notebooks/*.ipynb",
            file=sys.stderr,
        )
        return 2
    # Generation and the notebooks' kernels must read this root's data, not the installed checkout's.
    os.environ["FLASHTUNE_DATA"] = str(root / "data")
    from flashtune.errors import FlashtuneError

    start = time.monotonic()
    try:
        with Progress("build_book", "pages generated from data/"):  # on a terminal, after a few seconds
            generated = generate(root)
    except FlashtuneError as e:
        print(e, file=sys.stderr)
        return 2
    clean(out)
    rc = build(root, out)  # jupyter-book (Sphinx) prints its own progress
    seconds = time.monotonic() - start
    html = out / "_build" / "html"
    if rc != 0:
        print(
            f"build_book: jupyter-book failed (exit {rc}) after {seconds:.0f} s; see the messages above",
            file=sys.stderr,
        )
        return 1
    with Progress("build_book", "built pages checked for off-site loads"):
        remote = remote_assets(html)
    if remote:
        print("build_book: pages would load from the network (the book must work offline):", file=sys.stderr)
        for r in remote:
            print(f"  {r}", file=sys.stderr)
        return 1
    try:
        copy_web(root, html)
    except BuildError as e:
        print(f"build_book: {e}", file=sys.stderr)
        return 1
    too_big = over_budget(html)
    if too_big:
        print("build_book: " + "; ".join(too_big), file=sys.stderr)
        return 1
    pages = content_pages(html)
    print(
        f"build_book: {len(pages)} pages ({len(generated)} generated) in {seconds:.1f} s, "
        f"{size_mb(list(html.rglob('*'))):.1f} MB (budget {BOOK_BUDGET_MB} MB) -> {html}/index.html"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Tags whose src/href the browser fetches when the page loads, and URLs inside inline scripts (altair's
# HTML output loads Vega from a CDN through a script body, not a src attribute).
_FETCHING_TAG = re.compile(r"<(script|link|img|iframe)\b[^>]*>", re.I)
_URL_ATTR = re.compile(r"""\b(?:src|href)\s*=\s*["']((?:https?:)?//[^"']+)["']""", re.I)
_LINK_FETCHED = re.compile(r"""\brel\s*=\s*["']?[^"'>]*\b(stylesheet|preload|icon|modulepreload)\b""", re.I)
_INLINE_SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script>", re.I | re.S)
_SCRIPT_URL = re.compile(r"""["'`]((?:https?:)?//[^"'`\s]+)""")
_NON_PAGES = {"genindex.html", "search.html", "py-modindex.html"}


def generate(root: Path) -> list[Path]:
    """Write every generated page under root/book/_generated (old pages removed first)."""
    from bookgen import changes, config_pages, dataset_pages, knob_pages, lint_pages, rules_pages, toc
    from flashtune.catalog.store import load_from

    gen = root / "book" / "_generated"
    shutil.rmtree(gen, ignore_errors=True)
    catalog = load_from(root / "data" / "knobs")
    pages = knob_pages.write(catalog, gen / "knobs")
    pages += dataset_pages.write(gen / "datasets")
    pages += config_pages.write(root / "configs", gen / "configs")
    pages.append(changes.write(catalog, gen))
    pages += rules_pages.write(root, catalog, gen)
    pages.append(lint_pages.write(gen / "lint-codes.md"))
    tiers = gen / "tiers.md"
    tiers.write_text(config_pages.tiers_table(root / "data" / "tiers"), encoding="utf-8")
    toc.effective_toc(root, root / "book" / "_toc.yml", gen / "_toc.yml")
    return pages


def remote_assets(html_dir: Path) -> list[str]:
    """'page: url' for everything a built page would fetch off-site when it loads."""
    found = []
    for page in sorted(html_dir.rglob("*.html")):
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
        generated = generate(root)
    except FlashtuneError as e:
        print(e, file=sys.stderr)
        return 2
    clean(out)
    rc = build(root, out)
    seconds = time.monotonic() - start
    html = out / "_build" / "html"
    if rc != 0:
        print(
            f"build_book: jupyter-book failed (exit {rc}) after {seconds:.0f} s; see the messages above",
            file=sys.stderr,
        )
        return 1
    remote = remote_assets(html)
    if remote:
        print("build_book: pages would load from the network (the book must work offline):", file=sys.stderr)
        for r in remote:
            print(f"  {r}", file=sys.stderr)
        return 1
    pages = content_pages(html)
    print(
        f"build_book: {len(pages)} pages ({len(generated)} generated) in {seconds:.1f} s -> {html}/index.html"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The book: generated reference pages, an offline Jupyter Book 1.x build, and a real headless Chromium check.

The build tests run scripts/build_book.py exactly as `make book` does. The browser test serves the built HTML
on 127.0.0.1 and opens every page in Debian's Chromium through Playwright: any request that would leave
127.0.0.1 is blocked and counted as a failure, so a chart or script that needs a CDN fails the test.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
SEARCH_TERM = "osd_memory_target"

sys.path.insert(0, str(REPO / "scripts"))
import build_book  # noqa: E402
from bookgen import changes, config_pages, dataset_pages, knob_pages, myst, toc  # noqa: E402
from flashtune import datapackage  # noqa: E402
from flashtune.catalog import load_catalog  # noqa: E402
from support.bookserve import CHROMIUM, CHROMIUM_ARGS, run_build  # noqa: E402


def mini_root(tmp: Path, cells: list[str]) -> Path:
    """A throwaway flashtune tree (book config, data, one notebook with the given code cells)."""
    root = tmp / "root"
    shutil.copytree(REPO / "book", root / "book", ignore=shutil.ignore_patterns("_build", "_generated"))
    shutil.copytree(REPO / "data", root / "data")
    (root / "notebooks").mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Throwaway notebook")]
    nb.cells += [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, root / "notebooks" / "01-throwaway.ipynb")
    return root


# --- generated pages (no Sphinx needed) ------------------------------------------------------------


def test_knob_pages_cover_every_knob_with_its_facts(tmp_path: Path) -> None:
    catalog = load_catalog()
    pages = knob_pages.write(catalog, tmp_path)
    texts = {p.stem: p.read_text() for p in pages}
    for knob in catalog:
        page = texts[knob.domain]
        section = page.split(f"({knob_pages.knob_label(knob)})=", 1)[1].split("\n(knob-", 1)[0]
        assert f"## {myst.code(knob.name)}" in section
        assert myst.code(knob.type) in section and f"**{knob.safety_shown}**" in section
        assert knob.rationale.split()[0] in section
        for ref in knob.evidence:
            assert ref in section
        if knob.domain == "ceph":
            for release in ("jewel", "tentacle"):
                assert release in section
    assert f"{len(catalog)} in all" in texts["index"]


def test_dataset_pages_list_every_field_with_its_unit(tmp_path: Path) -> None:
    names = datapackage.resource_names()
    assert names, "the data package has no tables"
    pages = dataset_pages.write(tmp_path)
    assert len(pages) == len(names) + 1
    for name in names:
        text = (tmp_path / f"{myst.label(name)}.md").read_text()
        assert f"- **Rows**: {len(datapackage.rows(name))}\n" in text
        for field in datapackage.schema(name)["fields"]:
            row = next(
                line for line in text.splitlines() if line.startswith(f"| {myst.code(field['name'])} |")
            )
            if field.get("unit"):
                assert f"| {myst.cell(field['unit'])} |" in row
        # The places in the seeds each row was transcribed from are listed on the page.
        for fk in datapackage.schema(name).get("foreignKeys", []):
            if fk["reference"].get("resource") == "sources" and name != "sources":
                col = fk["fields"] if isinstance(fk["fields"], str) else fk["fields"][0]
                for source_id in {r[col] for r in datapackage.rows(name) if r[col]}:
                    assert f"| {source_id} |" in text.split("## Fields")[0], (name, source_id)
        erratum_ids = (
            [
                e["id"]
                for e in datapackage.rows("errata")
                if name in (e.get(f) for f in dataset_pages.ERRATA_TARGET_FIELDS)
            ]
            if "errata" in names
            else []
        )
        for erratum in erratum_ids:
            assert f"| {erratum} |" in text.split("## Errata")[1], (name, erratum)


def test_changes_page_lists_knobs_removed_since_jewel(tmp_path: Path) -> None:
    catalog = load_catalog()
    text = changes.write(catalog, tmp_path).read_text()
    gone_section = text.split("## New since")[0]
    moved_section = text.split("## Defaults that moved")[1].split("## Misspelled")[0]
    for knob in catalog.in_domain("ceph"):
        row = (
            f"\n| {myst.ref(knob.name, knob_pages.knob_label(knob))} |"  # the knob in a table's first column
        )
        gone = knob.exists_in("jewel") and not knob.exists_in("tentacle")
        assert gone == (row in gone_section), knob.name
        then, now = knob.default_for("jewel"), knob.default_for("tentacle")
        moved = knob.exists_in("jewel") and knob.exists_in("tentacle") and then is not None and then != now
        assert moved == (row in moved_section), knob.name


def test_tiers_table_reads_the_hardware_file_like_the_compiler() -> None:
    """The book's tier table goes through the one hardware reader: cores per socket, node cores as the compiler."""
    from flashtune.hardware import load_tier, tier_names

    table = config_pages.tiers_table(REPO / "data" / "tiers")
    for t in tier_names():
        hw = load_tier(t)
        assert f"{hw.sockets} × {hw.cores} cores ({hw.node_cores} per node)" in table, t


def test_config_pages_show_every_compiled_file(tmp_path: Path) -> None:
    folders = sorted(p for p in (REPO / "configs").iterdir() if p.is_dir())
    assert folders, "configs/ has no compiled folders"
    pages = config_pages.write(REPO / "configs", tmp_path)
    assert len(pages) == len(folders) + 1
    for folder in folders:
        text = (tmp_path / f"{myst.label(folder.name)}.md").read_text()
        for path in (p for p in folder.rglob("*") if p.is_file() and p.name not in config_pages.SKIP):
            body = path.read_text()
            if path.name == config_pages.EXPLANATION:
                # headings move one level down, everything else is kept
                assert all(line.lstrip("#") in text for line in body.splitlines())
            else:
                assert body.rstrip() in text, f"{path} is not shown verbatim"


def test_explanation_headings_are_demoted_outside_code(tmp_path: Path) -> None:
    (tmp_path / "x-y").mkdir()
    (tmp_path / "x-y" / "explain.md").write_text("# Why\n\n## ceph.conf\n\n```ini\n# a comment\n```\n")
    (tmp_path / "x-y" / "ceph.conf").write_text("[global]\n# kept\nfsid = 1\n")
    text = config_pages.config_page(tmp_path / "x-y")
    assert "\n## Why\n" in text and "\n### ceph.conf\n" in text
    assert "\n# a comment\n" in text and "\n# kept\nfsid = 1\n" in text
    assert text.count("\n# ") == 3  # the page title and the two config comments


def test_toc_drops_globs_that_match_nothing(tmp_path: Path) -> None:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "01-a.ipynb").write_text("{}")
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nchapters:\n- glob: notebooks/*\n- file: configs/index\n"
        "  sections:\n  - glob: configs/*\n"
    )
    out = toc.effective_toc(tmp_path, tmp_path / "_toc.yml", tmp_path / "out.yml")
    text = out.read_text()
    assert "glob: notebooks/*" in text and "configs/index" in text
    assert "configs/*" not in text and "sections" not in text


def test_remote_assets_are_detected(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(
        '<script src="https://cdn.jsdelivr.net/npm/vega@6"></script><link rel="canonical" href="https://x/">'
        '<link href="//fonts.example/f.css" rel="stylesheet"><script src="_static/local.js"></script>'
        '<script>var paths = {"vega-embed": "https://cdn.jsdelivr.net/npm/vega-embed@7?noext"};</script>'
        '<a href="https://ceph.io/">a plain link is not fetched</a>'
    )
    assert build_book.remote_assets(tmp_path) == [
        "a.html: https://cdn.jsdelivr.net/npm/vega@6",
        "a.html: //fonts.example/f.css",
        "a.html: https://cdn.jsdelivr.net/npm/vega-embed@7?noext",
    ]


def test_size_budgets_count_what_the_compile_page_downloads(tmp_path: Path) -> None:
    static = tmp_path / "_static"
    for name in build_book.PYODIDE_FILES:
        (static / "pyodide").mkdir(parents=True, exist_ok=True)
        (static / "pyodide" / name).write_bytes(b"x" * 1000)
    (static / "compile").mkdir()
    for name in build_book.COMPILE_FILES:
        (static / "compile" / name).write_bytes(b"x" * 1000)
    assert build_book.over_budget(tmp_path) == []
    # the memory snapshot alone over the page's budget: the page's budget is broken, the book's is not
    (static / "compile" / "pyodide-snapshot.bin.gz").write_bytes(b"x" * int(build_book.PAGE_BUDGET_MB * 1e6))
    problems = build_book.over_budget(tmp_path)
    assert len(problems) == 1 and problems[0].startswith("the compile page downloads")
    (tmp_path / "big.bin").write_bytes(b"x" * int(build_book.BOOK_BUDGET_MB * 1e6))
    assert len(build_book.over_budget(tmp_path)) == 2


# --- the build -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_failing_cell_fails_the_build(tmp_path: Path) -> None:
    root = mini_root(tmp_path, ["raise RuntimeError('boom from a notebook cell')"])
    proc = run_build(root, tmp_path / "out")
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "boom from a notebook cell" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_sphinx_warning_fails_the_build(tmp_path: Path) -> None:
    root = mini_root(tmp_path, ["print('fine')"])
    nb = nbformat.read(root / "notebooks" / "01-throwaway.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("See {ref}`a label nobody defined <no-such-label>`."))
    nbformat.write(nb, root / "notebooks" / "01-throwaway.ipynb")
    proc = run_build(root, tmp_path / "out")
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "no-such-label" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_cdn_output_fails_the_build(tmp_path: Path) -> None:
    # altair's default renderer: a chart as HTML whose script body loads Vega from jsdelivr
    chart = "alt.Chart(pd.DataFrame({'x': [1, 2]})).mark_bar().encode(x='x:Q')"
    root = mini_root(tmp_path, [f"import altair as alt, pandas as pd\nalt.renderers.enable('html')\n{chart}"])
    proc = run_build(root, tmp_path / "out")
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "cdn.jsdelivr.net" in proc.stderr and "offline" in proc.stderr


@pytest.mark.slow
def test_book_has_every_notebook_and_reference_page(book: Path) -> None:
    for nb in sorted((REPO / "notebooks").glob("*.ipynb")):
        page = book / "notebooks" / f"{nb.stem}.html"
        assert page.is_file(), f"{nb.name} is not in the book"
        text = page.read_text()
        assert "cell_output" in text, f"{nb.name} was published without outputs"
        # chart code is folded behind a "show code" toggle (the hide-input tag build_notebooks.py adds)
        assert "tag_hide-input" in text, f"{nb.name}: its chart code is not collapsed"
    catalog = load_catalog()
    for domain in {k.domain for k in catalog}:
        text = (book / "book" / "_generated" / "knobs" / f"{domain}.html").read_text()
        for knob in catalog.in_domain(domain):
            assert f'id="{knob_pages.knob_label(knob)}"' in text
    for name in datapackage.resource_names():
        assert (book / "book" / "_generated" / "datasets" / f"{myst.label(name)}.html").is_file()
    for folder in (p for p in (REPO / "configs").iterdir() if p.is_dir()):
        assert (book / "book" / "_generated" / "configs" / f"{myst.label(folder.name)}.html").is_file()
    assert (book / "book" / "compiler-guide.html").is_file()
    assert 'href="compile.html' in (book / "book" / "intro.html").read_text(), "intro does not link the page"
    assert build_book.over_budget(book) == []
    lint_codes = (book / "book" / "_generated" / "lint-codes.html").read_text()
    assert 'id="lint-ft101"' in lint_codes and "unknown-key" in lint_codes
    assert build_book.remote_assets(book) == []


@pytest.mark.slow
def test_book_has_no_dangling_links(book: Path) -> None:
    """Every relative link and fragment in the built pages resolves to a file and an id in it."""
    ids: dict[Path, set[str]] = {}

    def ids_of(page: Path) -> set[str]:
        if page not in ids:
            ids[page] = set(re.findall(r'\bid="([^"]+)"', page.read_text(errors="replace")))
        return ids[page]

    dangling = []
    for page in build_book.content_pages(book):
        for href in re.findall(r'<a\b[^>]*\bhref="([^"]*)"', page.read_text(errors="replace")):
            href = html.unescape(href)
            if not href or re.match(r"^[a-z][a-z0-9+.-]*:", href):  # external or mailto: not ours to check
                continue
            path, _, fragment = href.partition("#")
            target = (page.parent / unquote(path.split("?")[0])).resolve() if path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                dangling.append(f"{page.relative_to(book)} -> {href}")
            elif fragment and target.suffix == ".html" and fragment not in ids_of(target):
                dangling.append(f"{page.relative_to(book)} -> {href} (no such id)")
    assert not dangling, "\n".join(dangling[:40])


# --- the browser ---------------------------------------------------------------------------------


# Every chart a page shows: static SVG images (altair's svg renderer) and live SVG/canvas (vega-embed).
CHARTS_JS = """
async () => {
  const out = [];
  for (const img of document.querySelectorAll('.cell_output img, .output img')) {
    const entry = {kind: 'img', src: img.getAttribute('src'), loaded: img.complete && img.naturalWidth > 0, marks: 0};
    if (img.src.endsWith('.svg')) {
      const doc = new DOMParser().parseFromString(await (await fetch(img.src)).text(), 'image/svg+xml');
      entry.marks = doc.querySelectorAll('.role-mark > *, .mark-rect > *, .mark-symbol > *, .mark-line > *').length;
    } else {
      entry.marks = entry.loaded ? 1 : 0;
    }
    out.push(entry);
  }
  for (const el of document.querySelectorAll('.cell_output svg.marks, .cell_output .vega-embed svg')) {
    out.push({kind: 'svg', src: '', loaded: true, marks: el.querySelectorAll('.role-mark > *').length});
  }
  for (const c of document.querySelectorAll('.cell_output canvas')) {
    out.push({kind: 'canvas', src: '', loaded: c.width > 0, marks: c.width * c.height > 0 ? 1 : 0});
  }
  return out;
}
"""


@pytest.mark.browser
@pytest.mark.slow
def test_every_page_renders_offline_in_chromium(book: Path, served: str) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    pages = [p.relative_to(book).as_posix() for p in build_book.content_pages(book)]
    problems: list[str] = []
    offsite: list[str] = []
    charts_seen: dict[str, int] = {}
    host = urlsplit(served).netloc
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1280, "height": 900})

            def route(r: Any) -> None:
                if urlsplit(r.request.url).netloc == host or r.request.url.startswith(("data:", "blob:")):
                    r.continue_()
                else:
                    offsite.append(r.request.url)
                    r.abort()

            ctx.route("**/*", route)
            page = ctx.new_page()
            current = {"url": ""}
            page.on(
                "console",
                lambda m: m.type == "error" and problems.append(f"{current['url']}: console: {m.text}"),
            )
            page.on("pageerror", lambda e: problems.append(f"{current['url']}: page error: {e}"))
            page.on(
                "requestfailed", lambda r: problems.append(f"{current['url']}: failed: {r.url} {r.failure}")
            )
            page.on(
                "response",
                lambda r: r.status >= 400 and problems.append(f"{current['url']}: {r.status} {r.url}"),
            )
            for rel in pages:
                current["url"] = rel
                page.goto(f"{served}/{rel}", wait_until="networkidle")
                assert page.title(), f"{rel} has no title"
                charts = page.evaluate(CHARTS_JS)
                for c in charts:
                    if not (c["loaded"] and c["marks"] > 0):
                        problems.append(f"{rel}: chart not rendered: {json.dumps(c)}")
                if charts:
                    charts_seen[rel] = len(charts)

            page.goto(f"{served}/index.html", wait_until="networkidle")
            assert page.url.endswith("book/intro.html"), "index.html does not lead to the introduction"
            page.screenshot(path=str(ARTIFACTS / "book-front.png"), full_page=False)
            # Every notebook draws at least one chart (issue 7), so a page without one lost its output.
            chartless = [p for p in pages if p.startswith("notebooks/") and p not in charts_seen]
            assert not chartless, f"notebook pages without a rendered chart: {chartless}"
            chart_page = min(charts_seen)
            page.goto(f"{served}/{chart_page}", wait_until="networkidle")
            chart = page.locator(".cell_output img[src$='.svg'], .cell_output svg.marks, .cell_output canvas")
            chart.first.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "book-chart.png"), full_page=False)

            # Sphinx's client-side search must find knobs by their exact names.
            catalog = load_catalog()
            names = [SEARCH_TERM] if catalog.get(SEARCH_TERM) else []
            names += [min(k.name for k in catalog.in_domain(d)) for d in sorted({k.domain for k in catalog})]
            for name in names:
                knob = catalog.get(name)
                assert knob is not None
                current["url"] = f"search.html?q={name}"
                page.goto(f"{served}/search.html?q={name}", wait_until="networkidle")
                hits = page.locator("#search-results ul.search li a")
                hits.first.wait_for(timeout=15000)
                hrefs = [hits.nth(i).get_attribute("href") or "" for i in range(hits.count())]
                assert any(f"knobs/{knob.domain}.html" in h for h in hrefs), (name, hrefs)
                if name == SEARCH_TERM:
                    page.screenshot(path=str(ARTIFACTS / "book-search.png"), full_page=False)
        finally:
            browser.close()
    assert not offsite, f"requests left 127.0.0.1: {offsite[:20]}"
    assert not problems, "\n".join(problems[:50])
    assert len(pages) >= len(list((REPO / "notebooks").glob("*.ipynb"))) + 3


# Text of an SVG chart that Chromium draws outside the SVG's own box: vl-convert lays labels out with its
# font metrics, so if the browser's font is wider, axis labels and legend titles get cut off at the edge.
CLIPPED_TEXT_JS = """
async (src) => {
  const box = document.createElement('div');
  box.style.position = 'absolute'; box.style.left = '0'; box.style.top = '0';
  box.innerHTML = await (await fetch(src)).text();
  document.body.appendChild(box);
  const svg = box.querySelector('svg'), r = svg.getBoundingClientRect(), out = [];
  for (const el of svg.querySelectorAll('text')) {
    const b = el.getBoundingClientRect();
    if (b.width && (b.left < r.left - 1 || b.right > r.right + 1 || b.top < r.top - 1 || b.bottom > r.bottom + 1)) {
      out.push(el.textContent);
    }
  }
  box.remove();
  return out;
}
"""


@pytest.mark.browser
@pytest.mark.slow
def test_chart_text_fits_inside_each_chart_in_chromium(book: Path, served: str) -> None:
    from playwright.sync_api import sync_playwright

    clipped: list[str] = []
    checked = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            for nb_page in sorted((book / "notebooks").glob("*.html")):
                page.goto(f"{served}/notebooks/{nb_page.name}", wait_until="load")
                for src in page.eval_on_selector_all(
                    ".cell_output img[src$='.svg']", "els => els.map(e => e.src)"
                ):
                    checked += 1
                    cut = page.evaluate(CLIPPED_TEXT_JS, src)
                    if cut:
                        clipped.append(f"{nb_page.name}: {cut}")
        finally:
            browser.close()
    assert checked > 0, "no SVG charts found"
    assert not clipped, (
        "chart text drawn outside the chart (set the chart font to one Chromium has, e.g. config.font "
        "'DejaVu Sans', so vl-convert measures what the browser draws):\n" + "\n".join(clipped)
    )

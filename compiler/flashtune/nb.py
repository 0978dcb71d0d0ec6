"""Small helpers every notebook shares: one chart theme and renderer, the reader-data overlay,
stated-number checks and the catalog knob table.

Rendering is decided here and nowhere else: altair's "svg" renderer (vl-convert, no JavaScript, no
CDN) so every chart cell emits a static, deterministic image/svg+xml that the offline book shows as is.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import altair as alt
import pandas as pd

from flashtune import ingest, tables
from flashtune.catalog import Knob, load_catalog
from flashtune.errors import FlashtuneError
from flashtune.fileio import read_text
from flashtune.lint import detect_kind, lint_file
from flashtune.parse import parse_text
from flashtune.paths import REPO_ROOT
from flashtune.releases import DEFAULT_MYSQL_FLAVOUR

RENDERER = "svg"
THEME = "flashtune"
# Published data uses the categorical palette below; the reader's own results are always drawn in one
# colour that the palette does not contain, as large outlined diamonds, so they never blend in.
PALETTE = ("#4c78a8", "#72b7b2", "#54a24b", "#b279a2", "#9d755d", "#bab0ac", "#eeca3b", "#79706e")
READER_COLOR = "#e45756"
READER_LABEL = "your results"
COMPARE_RELEASES = ("jewel", "pacific", "tentacle")
KNOB_PAGES = "../book/_generated/knobs"  # the book's knob reference, relative to notebooks/
# The configs printed in the seeds, extracted once for the linter's tests; notebooks 05, 07, 09, 14 read them.
SEED_CONFIGS = Path(REPO_ROOT) / "tests" / "fixtures" / "seed-configs"


def _theme() -> alt.theme.ThemeConfig:
    return alt.theme.ThemeConfig(
        {
            "config": {
                # vl-convert lays text out with this font's metrics; the browser must draw the same
                # font (Debian's fonts-dejavu-core, installed by scripts/install-system-deps.sh) or
                # labels overflow and get clipped.
                "font": "DejaVu Sans",
                "view": {
                    "continuousWidth": 520,
                    "continuousHeight": 300,
                    "discreteWidth": 520,
                    "discreteHeight": 300,
                },
                "range": {"category": list(PALETTE)},
                "title": {"anchor": "start", "fontSize": 14, "subtitleColor": "#555"},
                "axis": {"labelFontSize": 11, "titleFontSize": 12, "grid": True},
                "legend": {"labelFontSize": 11, "titleFontSize": 12},
            }
        }
    )


def _show_error(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any = None) -> None:
    # A bad results file is the reader's input, not a bug: print file:line, the error and the hint,
    # not a traceback. The cell still fails, so papermill and CI see a non-zero result.
    print(str(value), file=sys.stderr)


def setup() -> None:
    """Enable the flashtune theme and the static SVG renderer (idempotent); in IPython, show
    FlashtuneError (bad input) as its one-line message with a hint instead of a traceback."""
    if THEME not in alt.theme.names():
        alt.theme.register(THEME, enable=False)(_theme)
    alt.theme.enable(THEME)
    alt.renderers.enable(RENDERER)
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: nothing to configure
        get_ipython = None
    shell = get_ipython() if get_ipython is not None else None
    if shell is not None:
        shell.set_custom_exc((FlashtuneError,), _show_error)

    # Rationale and evidence are the point of the knob tables: never cut them to 50 characters.
    pd.set_option("display.max_colwidth", None)


def reader_results(path: str | os.PathLike[str] | None) -> Any:
    """The reader's own results as a tidy DataFrame, or None when no path was given.

    Parsing lives in flashtune.ingest (shared with the `flashtune ingest` command); a bad file raises
    FlashtuneError there, with the file and line, which the notebook shows instead of a traceback.
    """
    if path is None or str(path) == "":
        return None

    return ingest.load(Path(path))


def reader_metric(reader: Any, metric: str, *, stat: str = "mean", **match: Any) -> Any:
    """The reader's run-summary rows of one metric (ingest's tidy schema), or None if there are none.

    match filters on schema columns, e.g. tool="fio", workload="randread"; a list value means any of.
    Says in the output why nothing is overlaid, so a reader who passed the wrong file notices.
    """
    if reader is None:
        return None
    rows = reader[(reader.metric == metric) & (reader.stat == stat) & reader.time_s.isna()]
    for col, want in match.items():
        wanted = want if isinstance(want, (list, tuple, set)) else [want]
        rows = rows[rows[col].isin(wanted)]
    if len(rows) == 0:
        what = ", ".join(f"{k}={v}" for k, v in match.items())
        print(
            f"Your results have no {metric} ({stat}) rows{' for ' + what if what else ''}: nothing to overlay."
        )
        return None
    return rows.reset_index(drop=True)


def with_reader(
    chart: alt.Chart | alt.LayerChart,
    reader: Any,
    *,
    x: str,
    y: str,
    tooltip: Sequence[str] = (),
    label: str = READER_LABEL,
) -> alt.TopLevelMixin:
    """Layer the reader's points (a DataFrame with columns x and y) over a published-data chart.

    Field names must match the published chart's so both share one scale; without reader data the
    published chart is returned unchanged.
    """
    if reader is None or len(reader) == 0:
        return chart
    for col in (x, y):
        if col not in reader.columns:
            raise FlashtuneError(
                f"your results have no column {col!r} to plot",
                suggestion=f"columns found: {', '.join(map(str, reader.columns))}",
            )
    # Reuse the published chart's own x/y channels (sort order, scale type, titles) when it has them,
    # so the layers share one axis instead of Vega-Lite merging two and dropping the sort.
    first = chart.layer[0] if isinstance(chart, alt.LayerChart) else chart
    enc = getattr(first, "encoding", None)
    x_ch: Any = getattr(enc, "x", alt.Undefined) if enc is not None else alt.Undefined
    y_ch: Any = getattr(enc, "y", alt.Undefined) if enc is not None else alt.Undefined
    points, text = _reader_marks(
        reader,
        x if x_ch is alt.Undefined else x_ch,
        y if y_ch is alt.Undefined else y_ch,
        [*tooltip, x, y],
        label,
    )
    return alt.layer(chart, points, text)


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _reader_marks(
    reader: Any, x: Any, y: Any, tooltip: Sequence[str], label: str
) -> tuple[alt.Chart, alt.Chart]:
    data = reader.assign(source=label)
    # Name each point after its job/test when the results say which, so several runs stay apart.
    data["point_label"] = (label + ": " + data["test"].astype(str)) if "test" in data.columns else label
    tips = [t for t in dict.fromkeys([*tooltip, "source"]) if t in data.columns]
    points = (
        alt.Chart(data)
        .mark_point(shape="diamond", filled=True, size=160, color=READER_COLOR, stroke="black", strokeWidth=1)
        .encode(x=x, y=y, tooltip=tips)
    )
    text = (
        alt.Chart(data.drop_duplicates("point_label"))  # one label per run, not per sample
        .mark_text(align="left", dx=9, dy=-9, fontWeight="bold", color=READER_COLOR)
        .encode(x=x, y=y, text="point_label:N")
    )
    return points, text


def reader_chart(
    reader: Any, *, x: Any, y: Any, title: str, tooltip: Sequence[str] = (), label: str = READER_LABEL
) -> alt.TopLevelMixin:
    """The reader's own points alone, in the reader style, for measurements the seeds have no axis for."""
    points, text = _reader_marks(reader, x, y, tooltip, label)
    return alt.layer(points, text).properties(title=title)


def check(label: str, computed: float, stated: float, *, rel: float = 0.005) -> float:
    """Assert that a number the text states agrees with the number computed from the data."""
    ok = abs(computed - stated) <= rel * max(abs(stated), 1e-12)
    if not ok:
        raise AssertionError(f"{label}: computed {computed:g} but the text states {stated:g}")
    print(f"ok  {label}: {_fmt(computed)} (text says {_fmt(stated)})")
    return computed


def errata(*resources: str) -> Any:
    """The data package's errata for the given tables: what the source got wrong and how it is recorded."""

    table = tables.load("errata")
    rows = table[table.resource.isin(resources)]
    return rows[["id", "kind", "problem", "recorded_as"]].set_index("id")


def _value_text(v: Any) -> str:
    if v is None or v != v:  # missing, or NaN
        return ""
    return f"{v:g}" if isinstance(v, (float, int)) else str(v)


def claims(*topics: str) -> Any:
    """The seeds' claims on some topics, with where each comes from and whether its figure is missing."""

    table = tables.load("claims")
    sources = tables.load("sources").set_index("id")
    rows = table[table.topic.isin(topics)].copy()
    rows["where"] = rows.source_id.map(sources.locator)
    rows["value"] = [_value_text(v) for v in rows.value]
    cols = ["statement", "setting", "qualifier", "value", "unit", "figure_missing", "where"]
    return rows.set_index("id")[cols]


def seed_config(name: str) -> Path:
    """One config printed in the seeds, as extracted for the linter's tests (e.g. '000-my.cnf')."""
    path = SEED_CONFIGS / name
    if not path.is_file():
        known = ", ".join(sorted(p.name for p in SEED_CONFIGS.glob("*")))
        raise FlashtuneError("no such seed config", file=str(path), suggestion=f"known: {known}")
    return path


def seed_settings(name: str) -> Any:
    """The key/value entries of a seed config (section, key, value, line), parsed by flashtune.parse."""

    path = seed_config(name)
    text = read_text(path)
    doc = parse_text(text, detect_kind(path, text), str(path))
    rows = [{"section": e.section, "key": e.key, "value": e.value, "line": e.line} for e in doc.entries]
    return pd.DataFrame(rows, columns=["section", "key", "value", "line"])


def lint_findings(name: str, *, ceph_release: str = "tentacle") -> Any:
    """flashtune's linter run on one seed config, one row per finding."""

    findings = lint_file(seed_config(name), ceph_release=ceph_release)
    cols = ["line", "severity", "code", "name", "key", "message", "suggestion"]
    return pd.DataFrame([f.as_dict() for f in findings], columns=["file", "column", *cols])[cols]


def _release_cell(knob: Knob, release: str | None, unknown: str = "exists") -> str:
    if not knob.exists_in(release):
        return "—"
    value = knob.default_for(release)
    return unknown if value is None else knob.show(value)


def status_grid(
    settings: Any, domain: str, releases: Sequence[str | None], *, objectstore: str | None = None
) -> Any:
    """One row per setting (a DataFrame with key and value columns) and release, with what the catalog
    says a line setting it does there: `state` (Catalog.status, or "not catalogued"), `note`
    (Status.describe), `safety` (Knob.value_safety of the value) and `is_default` (Knob.is_default).

    Notebooks classify settings only through this, so they agree with the linter and the knob cards.
    """

    catalog = load_catalog()
    rows: list[dict[str, Any]] = []
    for rec in settings.to_dict("records"):
        knob = catalog.resolve(str(rec["key"]), domain)
        for release in releases:
            row = {**rec, "release": release}
            if knob is None:
                row.update(state="not catalogued", note="", safety="", is_default=False)
            else:
                st = catalog.status(knob, release, objectstore)
                row.update(
                    state=st.state,
                    note=st.describe(),
                    safety=knob.value_safety(rec["value"])[0],
                    is_default=knob.is_default(rec["value"], release),
                )
            rows.append(row)
    return pd.DataFrame(rows)


_NOT_ANCHOR = re.compile(r"[^a-z0-9-]+")


def knob_link(knob: Knob) -> str:
    """Where the book publishes a knob's card, relative to a notebook page (see scripts/bookgen)."""
    anchor = _NOT_ANCHOR.sub("-", f"knob-{knob.domain}-{knob.name}".lower()).strip("-")
    return f"{KNOB_PAGES}/{knob.domain}.html#{anchor}"


def knob_table(names: Iterable[str | tuple[str, str]], *, releases: Sequence[str] = COMPARE_RELEASES) -> Any:
    """A table of catalog knobs (name or (domain, name)): defaults, safety, rationale and evidence,
    each knob linked to its card in the book's knob reference.

    A name the catalog does not know is an error: notebooks only cite knobs that are catalogued.
    """

    catalog = load_catalog()
    rows: list[dict[str, Any]] = []
    links: dict[str, str] = {}
    for item in names:
        domain, name = item if isinstance(item, tuple) else (None, item)
        knob = catalog.get(name, domain)
        if knob is None:
            close = catalog.suggest(name, domain)
            raise FlashtuneError(
                f"knob {name!r} is not in the catalog",
                suggestion=f"did you mean {close[0]!r}?" if close else "add it to data/knobs/",
            )
        links[knob.name] = knob_link(knob)
        row: dict[str, Any] = {"knob": knob.name, "domain": knob.domain, "set in": knob.location.file}
        if knob.domain == "ceph":
            for rel in releases:
                row[f"default ({rel})"] = _release_cell(knob, rel)
        else:
            flavour = DEFAULT_MYSQL_FLAVOUR if knob.domain == "mysql" else None
            row["default"] = _release_cell(knob, flavour, unknown="not recorded")
        if knob.history():
            row["note"] = "; ".join(knob.history())
        row["safety"] = knob.safety + (f": {knob.safety_note}" if knob.safety_note else "")
        row["rationale"] = knob.rationale
        row["evidence"] = ", ".join(knob.evidence) or "—"
        rows.append(row)
    table = pd.DataFrame(rows).fillna("").set_index("knob")
    # A Styler renders as an HTML table whose knob names link to the book's knob cards.
    # A fixed uuid keeps the HTML identical between runs (pandas would pick a random table id).
    styled = table.style.set_uuid("knobs")
    return styled.format_index(lambda k: f'<a href="{links[k]}"><code>{k}</code></a>', axis=0)

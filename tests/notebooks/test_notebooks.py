"""The topic notebooks: in sync with their sources, stored without outputs, and executing cleanly,
on the published data and on results produced by real tools in this test run (fio, sysbench)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
import papermill
import pytest

REPO = Path(__file__).resolve().parents[2]
NB_DIR = REPO / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("[0-9][0-9]-*.ipynb"))
sys.path.insert(0, str(REPO / "scripts"))
import build_notebooks  # noqa: E402

# Notebooks that overlay fio results, and the one that reads sysbench output.
FIO_NOTEBOOKS = ("01-", "04-", "06-", "08-")
SYSBENCH_NOTEBOOKS = ("09-",)
READER_MARK = "your results"  # nb.READER_LABEL: drawn next to the reader's points in the SVG
TIMINGS: dict[str, float] = {}


def run(path: Path, out_dir: Path, results: Path | None = None) -> tuple[Any, float]:
    """Execute one notebook (papermill injects `results`); returns the executed notebook and seconds."""
    out = out_dir / path.name
    params = {} if results is None else {"results": str(results)}
    start = time.monotonic()
    papermill.execute_notebook(
        str(path),
        str(out),
        parameters=params,
        kernel_name="python3",
        cwd=str(NB_DIR),
        progress_bar=False,
        execution_timeout=300,
    )
    secs = time.monotonic() - start
    return nbformat.read(out, as_version=4), secs


def outputs(nb: Any, mime: str) -> list[str]:
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if mime in data:
                found.append(data[mime])
    return found


def test_fourteen_topics_in_reading_order() -> None:
    numbers = [p.name[:2] for p in NOTEBOOKS]
    assert numbers == [f"{i:02d}" for i in range(1, 15)], numbers


def test_ipynb_match_their_sources() -> None:
    assert build_notebooks.targets(), "no notebook sources in notebooks/src"
    assert build_notebooks.main(["--check"]) == 0, "run scripts/build_notebooks.py"


def test_build_rejects_text_before_first_marker(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="before the first"):
        build_notebooks._cells("x = 1\n# %%\ny = 2\n", "t.py")


SOURCES = sorted(build_notebooks.targets())


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_notebook_follows_the_template(src: Path) -> None:
    """Question, data, checks, chart, reading, knobs, your results, in notebooks/template.py's order."""
    want = ["**Question.**", "**Data.**", "## Checks", "## Chart", "## Reading it", "## Knobs this justifies"]
    assert build_notebooks.template_sections() == [*want, "## Your results"]
    assert build_notebooks.template_problems(src.read_text(encoding="utf-8"), src.name) == []


def test_template_check_catches_departures() -> None:
    text = (NB_DIR / "src" / "06-filesystem-and-read-ahead.py").read_text(encoding="utf-8")
    assert build_notebooks.template_problems(text, "06") == []
    swapped = (
        text.replace("# ## Chart", "# ## Tmp")
        .replace("# ## Checks", "# ## Chart")
        .replace("# ## Tmp", "# ## Checks")
    )
    assert any("order" in p for p in build_notebooks.template_problems(swapped, "06"))
    no_knobs = text.replace("nb.knob_table(", "print(")
    assert any("knob_table" in p for p in build_notebooks.template_problems(no_knobs, "06"))
    no_checks = text.replace("nb.check(", "print(")
    assert any("checks nothing" in p for p in build_notebooks.template_problems(no_checks, "06"))
    own_status = text + "\n# %%\ngone = [k for k in catalog if not k.exists_in('tentacle')]\n"
    assert any("re-derives a catalog fact" in p for p in build_notebooks.template_problems(own_status, "06"))
    assert (
        build_notebooks.template_problems(build_notebooks.TEMPLATE.read_text(encoding="utf-8"), "template")
        == []
    )


def test_template_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The template's example cells execute, so a notebook copied from it starts from working code."""
    monkeypatch.chdir(NB_DIR)
    scope: dict[str, Any] = {}
    for cell in build_notebooks._cells(build_notebooks.TEMPLATE.read_text(encoding="utf-8"), "template.py"):
        if cell.cell_type == "code":
            exec(compile(cell.source, "template.py", "exec"), scope)
    assert scope["reader"] is None and scope["chart"] is not None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_is_clean(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code), "commit notebooks without outputs"
    tagged = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and "results = None" in tagged[0].source
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith(
        f"# {int(path.name[:2]):02d}"
    )
    assert "load(" in "".join(c.source for c in code), "published data comes through flashtune.tables.load"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_on_published_data(path: Path, tmp_path: Path) -> None:
    nb, secs = run(path, tmp_path)
    TIMINGS[path.stem] = secs
    print(f"\n{path.stem}: executed in {secs:.1f} s")
    svgs = outputs(nb, "image/svg+xml")
    assert svgs, "every notebook draws at least one chart"
    assert all("<svg" in s and "<path" in s for s in svgs), "charts are static SVG with marks inside"
    # One renderer, no CDN: no chart may ship as a script that loads vega from the network.
    assert not any("cdn.jsdelivr" in h or "vega-embed" in h for h in outputs(nb, "text/html"))
    checked = "".join(
        o.get("text", "") for c in nb.cells for o in c.get("outputs", []) if o.get("name") == "stdout"
    )
    assert "ok  " in checked, "the stated numbers are checked against the data"
    assert secs < 60, f"{path.stem} took {secs:.0f} s; notebooks must run in a few seconds"


def test_knob_links_point_at_the_books_knob_cards() -> None:
    from bookgen import myst
    from flashtune import nb
    from flashtune.catalog import load_catalog

    for knob in load_catalog():
        page, _, anchor = nb.knob_link(knob).partition("#")
        assert page == f"../book/_generated/knobs/{knob.domain}.html"
        assert anchor == myst.label("knob", knob.domain, knob.name)


def test_bad_results_file_fails_with_a_message_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "truncated.json"
    bad.write_text('{"fio version": "fio-3.33", "jobs": [ {"jobname": "x", ')
    (path,) = [p for p in NOTEBOOKS if p.name.startswith("06-")]
    with pytest.raises(papermill.PapermillExecutionError):
        run(path, tmp_path, results=bad)
    nb = nbformat.read(tmp_path / path.name, as_version=4)
    shown = [o for c in nb.cells for o in c.get("outputs", [])]
    errors = [o.get("text", "") for o in shown if o.get("name") == "stderr"]
    assert any(f"{bad}:1: error:" in e and "hint:" in e for e in errors), errors
    assert not any(o.get("output_type") == "error" for o in shown), "no traceback for a bad input file"


FIO_JOBS = """
[global]
filename={file}
size=64m
direct=1
ioengine=psync
runtime=1
time_based=1
stonewall
[randread-4k]
rw=randread
bs=4k
[randwrite-4k]
rw=randwrite
bs=4k
[seqread-64k]
rw=read
bs=64k
"""


@pytest.fixture(scope="module")
def fio_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real fio run (psync, 1 s per job, 64 MiB file) written as JSON to a file, as a reader would."""
    d = tmp_path_factory.mktemp("fio")
    job = d / "jobs.fio"
    job.write_text(FIO_JOBS.format(file=d / "testfile"))
    out = d / "fio.json"
    subprocess.run(["fio", str(job), "--output-format=json", f"--output={out}"], check=True, timeout=120)
    json.loads(out.read_text())  # a real, complete fio JSON document
    return out


@pytest.mark.fio
@pytest.mark.parametrize(
    "path", [p for p in NOTEBOOKS if p.name.startswith(FIO_NOTEBOOKS)], ids=lambda p: p.stem
)
def test_notebook_overlays_real_fio_results(path: Path, fio_results: Path, tmp_path: Path) -> None:
    nb, secs = run(path, tmp_path, results=fio_results)
    print(f"\n{path.stem} with fio results: executed in {secs:.1f} s")
    assert any(READER_MARK in s for s in outputs(nb, "image/svg+xml")), "the reader's points are drawn"


@pytest.mark.fio
def test_allocator_notebook_fits_a_trend_to_a_real_fio_log(tmp_path: Path) -> None:
    """fio's IOPS log (log_avg_msec) of a 2 s run: notebook 03 draws it and fits a per-hour trend."""
    job = tmp_path / "log.fio"
    job.write_text(
        f"[global]\nfilename={tmp_path / 'testfile'}\nsize=32m\ndirect=1\nioengine=psync\nruntime=2\n"
        f"time_based=1\nlog_avg_msec=250\nwrite_iops_log={tmp_path / 'run'}\n[randread-4k]\nrw=randread\nbs=4k\n"
    )
    subprocess.run(["fio", str(job), f"--output={tmp_path / 'fio.txt'}"], check=True, timeout=120)
    (log,) = tmp_path.glob("run_iops.*.log")
    (path,) = [p for p in NOTEBOOKS if p.name.startswith("03-")]
    nb, secs = run(path, tmp_path, results=log)
    print(f"\n{path.stem} with a fio IOPS log: executed in {secs:.1f} s")
    assert any(READER_MARK in s for s in outputs(nb, "image/svg+xml"))
    printed = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
    assert "per hour" in printed and "needs a run of an hour" in printed


@pytest.mark.parametrize("prefix", ["12-", "13-"])
def test_lustre_notebooks_overlay_iozone_and_ior_output(prefix: str, tmp_path: Path) -> None:
    """IOR and IOzone are not packaged for Debian; the ingest tests build their outputs in the tools'
    printed layout (tests/unit/test_ingest_text.py), and those are what a reader would pass here."""
    from support.tool_outputs import IOR3, TABLE1_SSD_16, iozone_throughput_text

    out = tmp_path / "result.txt"
    out.write_text(iozone_throughput_text(16, TABLE1_SSD_16) if prefix == "12-" else IOR3)
    (path,) = [p for p in NOTEBOOKS if p.name.startswith(prefix)]
    nb, secs = run(path, tmp_path, results=out)
    print(f"\n{path.stem} with {'IOzone' if prefix == '12-' else 'IOR'} output: executed in {secs:.1f} s")
    assert any(READER_MARK in s for s in outputs(nb, "image/svg+xml"))


@pytest.mark.ceph
@pytest.mark.slow
def test_ec_notebook_overlays_real_rados_bench(ceph_lab: Any, tmp_path: Path) -> None:
    """rados bench (4 MiB objects, as the published RGW runs) on the session's real Ceph cluster."""
    pool = "nbbench"
    ceph_lab.ceph("osd", "pool", "create", pool, "8")
    try:
        r = ceph_lab.run("timeout", "90", "rados", "bench", "-p", pool, "2", "write", "-t", "4", timeout=120)
    finally:
        ceph_lab.run("ceph", "osd", "pool", "rm", pool, pool, "--yes-i-really-really-mean-it", check=False)
    out = tmp_path / "rados-bench.txt"
    out.write_text(r.stdout)
    (path,) = [p for p in NOTEBOOKS if p.name.startswith("10-")]
    nb, secs = run(path, tmp_path, results=out)
    print(f"\n{path.stem} with rados bench results: executed in {secs:.1f} s")
    assert any(READER_MARK in s for s in outputs(nb, "image/svg+xml")), (
        "the reader's rados bench run is drawn"
    )


@pytest.mark.mariadb
@pytest.mark.slow
def test_mysql_notebook_reads_real_sysbench_output(mariadb_server: Any, tmp_path: Path) -> None:
    summary = mariadb_server.sysbench("oltp_read_write", seconds=3, threads=2)
    out = tmp_path / "sysbench.txt"
    out.write_text(summary["raw"])
    (path,) = [p for p in NOTEBOOKS if p.name.startswith(SYSBENCH_NOTEBOOKS)]
    nb, secs = run(path, tmp_path, results=out)
    print(f"\n{path.stem} with sysbench results: executed in {secs:.1f} s")
    assert any(READER_MARK in s for s in outputs(nb, "image/svg+xml")), "the reader's sysbench run is drawn"

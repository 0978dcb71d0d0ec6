"""fio's text outputs (normal and terse v2-v5) against the JSON of the same run, and bad inputs.

fio writes several formats of one run at once (`--output-format=terse,json`), so the JSON is the reference
here: the terse figures are fio's own integer/µs renderings of it, the normal ones are rounded to three or
four digits. Expected values are read from the JSON with `json`, never through the ingest code.
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from flashtune.errors import FlashtuneError
from flashtune.ingest import load
from support.frames import one_value

MiB = 1024 * 1024
CORPUS = Path(__file__).parents[1] / "corpus"


def _cut(src: Path, dest: Path, keep: float) -> Path:
    data = src.read_bytes()
    dest.write_bytes(data[: int(len(data) * keep)])
    return dest


def test_cut_normal_output_names_the_line(tmp_path: Path) -> None:
    src = CORPUS / "produced/fio-3.33-text/normal-group.txt"
    text = src.read_text()
    # cut inside the job's percentile table: the job has no `issued` line
    cut = tmp_path / "cut.txt"
    cut.write_text(text[: text.index("99.00th")])
    with pytest.raises(FlashtuneError) as e:
        load(cut)
    assert e.value.line == len(cut.read_text().splitlines())
    assert "cut off" in str(e.value) and e.value.suggestion
    # only the description lines: fio stopped before reporting
    head = tmp_path / "head.txt"
    head.write_text(
        text[: text.index("Starting")] + "Starting 2 processes\nmj: (groupid=0, jobs=2): err= 0\n"
    )
    with pytest.raises(FlashtuneError, match="ends before"):
        load(head)


def test_cut_terse_line_names_the_line(tmp_path: Path) -> None:
    src = CORPUS / "produced/fio-3.33-text/minimal.txt"
    lines = src.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.txt"
    cut.write_text(lines[0] + lines[1][: len(lines[1]) // 2])
    with pytest.raises(FlashtuneError) as e:
        load(cut)
    assert e.value.line == 2 and "fields" in str(e.value) and e.value.suggestion


def test_cli_reports_a_cut_normal_output_without_traceback(tmp_path: Path) -> None:
    cut = _cut(CORPUS / "fio/fio-2.16-cephfs/randread-4k.out", tmp_path / "randread-4k.out", 0.5)
    r = subprocess.run(
        [sys.executable, "-m", "flashtune.cli.main", "ingest", str(cut)], capture_output=True, text=True
    )
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert re.search(rf"{re.escape(str(cut))}:\d+: error: .*cut off", r.stderr), r.stderr
    assert "hint:" in r.stderr


def _text_corpus() -> list[Path]:
    return sorted(
        p
        for p in CORPUS.rglob("*")
        if p.is_file() and p.name not in ("manifest.yaml", "README.md") and ".log" not in p.name
    )


@pytest.mark.parametrize("keep", [0.13, 0.5, 0.87])
def test_cut_corpus_files_never_crash(tmp_path: Path, keep: float) -> None:
    """Every real output cut at three points loads or fails with file, line-or-hint: no other exception."""
    for src in _text_corpus():
        dest = tmp_path / src.relative_to(CORPUS)
        dest.parent.mkdir(parents=True, exist_ok=True)
        _cut(src, dest, keep)
        try:
            load(dest)
        except FlashtuneError as e:
            assert e.file, (src, e)
            assert e.line or e.suggestion, (src, e)


def test_unified_rw_reporting_is_one_mixed_direction() -> None:
    """`unified_rw_reporting=1`: fio reports one `mixed` block; the normal text of the same run (the file
    holds json,normal) agrees with its JSON within the normal output's rounding."""
    f = CORPUS / "produced/fio-3.33-text/unified-json-normal.txt"
    text = f.read_text()
    doc, _ = json.JSONDecoder().raw_decode(text, text.index("{\n"))
    mixed = doc["jobs"][0]["mixed"]
    normal = load(f, fmt="fio-normal")
    assert set(normal["op"]) == {"mixed", "total"}
    assert one_value(normal, metric="iops", stat="mean", op="mixed") == pytest.approx(
        mixed["iops"], rel=0.006
    )
    assert one_value(normal, metric="clat", stat="mean", op="mixed") == pytest.approx(
        mixed["clat_ns"]["mean"] / 1e6, rel=0.001
    )
    terse = load(CORPUS / "produced/fio-3.33-text/unified-terse.txt")
    assert set(terse["op"]) == {"mixed", "total"}


def test_kb_base_1000_normal_output() -> None:
    """kb_base=1000: fio 3 prints decimal units first (`BW=49.9MB/s (47.6MiB/s)`) and labels its bandwidth
    samples `kB/s`, but the samples are KiB/s (stat.c divides by 1024 whatever kb_base): the normal text must
    give the JSON's figures of the same run."""
    f = CORPUS / "produced/fio-3.33-text/kb-base-1000-json-normal.txt"
    text = f.read_text()
    assert "BW=49.9MB/s (47.6MiB/s)" in text and "bw (   kB/s): min=48906" in text
    doc, _ = json.JSONDecoder().raw_decode(text, text.index("{\n"))
    st = doc["jobs"][0]["read"]
    normal = load(f, fmt="fio-normal")
    assert one_value(normal, metric="bandwidth", stat="max", op="read") == st["bw_max"] / 1024
    assert one_value(normal, metric="bandwidth", stat="mean", op="read") == pytest.approx(
        st["bw_bytes"] / MiB, rel=0.006
    )


def test_unit_base_bits_normal_output(tmp_path: Path) -> None:
    """unit_base=1 prints bandwidth in bits (`BW=403Mibit/s (422Mbit/s)`): /8 gives the JSON's bytes; a
    direction line the reader cannot take is an error at its line, never a silent `no job did I/O`."""
    f = CORPUS / "produced/fio-3.33-text/unit-base-bits-json-normal.txt"
    text = f.read_text()
    assert "BW=403Mibit/s (422Mbit/s)" in text
    doc, _ = json.JSONDecoder().raw_decode(text, text.index("{\n"))
    st = doc["jobs"][0]["read"]
    normal = load(f, fmt="fio-normal")
    assert one_value(normal, metric="bandwidth", stat="mean", op="read") == pytest.approx(
        st["bw_bytes"] / MiB, rel=0.006
    )
    bad = tmp_path / "bad.txt"
    bad.write_text(text.replace("BW=403Mibit/s", "BW=403Mibaud/s"))
    with pytest.raises(FlashtuneError) as e:
        load(bad, fmt="fio-normal")
    assert e.value.line == text[: text.index("BW=403Mibit/s")].count("\n") + 1
    assert "direction line" in str(e.value) and e.value.suggestion


def test_status_interval_reports_are_not_runs_or_clones() -> None:
    """`--status-interval` repeats the whole report (covering the run so far) every interval: only the last
    report of each job is read, in JSON and normal output alike, while runs appended to one file (`>>`)
    stay runs of their own. The decision rests on the reports' timestamps against the later run's length."""
    from flashtune.ingest import collect
    from flashtune.ingest.fio import extract_all_json, status_snapshot

    status = CORPUS / "produced/fio-3.33-status/status-interval.json"
    docs = [d for d, _ in extract_all_json(status.read_text(), status)]
    assert [status_snapshot(a, b) for a, b in itertools.pairwise(docs)] == [True, True, True]
    appended = CORPUS / "produced/fio-3.33/appended.json"
    runs = [d for d, _ in extract_all_json(appended.read_text(), appended)]
    assert len(runs) == 2 and not status_snapshot(runs[0], runs[1])
    assert set(load(appended)["run"]) == {"1", "2"}

    last_iops = docs[-1]["jobs"][0]["read"]["iops"]
    df = load(status)
    assert list(df[(df["metric"] == "iops") & (df["stat"] == "mean")]["value"]) == [last_iops]
    normal = CORPUS / "produced/fio-3.33-status/status-interval-normal.txt"
    got = collect([status, normal])
    assert sum("interim --status-interval" in n for _, n in got.notes) == 2
    tests = set(got.frame[got.frame["source"] == str(normal)]["test"])
    assert tests == {"si"}, tests  # not si.1 .. si.4 as if four clones had run

"""fio's text outputs (normal and terse v2-v5) against the JSON of the same run, and bad inputs.

fio writes several formats of one run at once (`--output-format=terse,json`), so the JSON is the reference
here: the terse figures are fio's own integer/µs renderings of it, the normal ones are rounded to three or
four digits. Expected values are read from the JSON with `json`, never through the ingest code.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flashtune.errors import FlashtuneError
from flashtune.ingest import load

MiB = 1024 * 1024
CORPUS = Path(__file__).parent / "corpus"


def _fio_both(d: Path, fmt: str, *args: str) -> tuple[Path, dict[str, Any]]:
    """Run fio once with `--output-format=FMT,json`: the file (both formats) and the parsed JSON."""
    if shutil.which("fio") is None:
        pytest.fail("fio is not installed: run scripts/install-system-deps.sh")
    out = d / f"{fmt}.out"
    cmd = [
        "fio",
        f"--filename={d / 'data'}",
        "--size=16m",
        "--runtime=1",
        "--time_based=1",
        *args,
        f"--output-format={fmt},json",
        f"--output={out}",
    ]
    subprocess.run(cmd, check=True, capture_output=True, cwd=d, timeout=120)
    text = out.read_text()
    doc, _ = json.JSONDecoder().raw_decode(text, text.index("{\n"))
    return out, doc


def _one(df: Any, **where: Any) -> float:
    rows = df
    for k, v in where.items():
        rows = rows[rows[k] == v]
    rows = rows[rows["time_s"].isna()]
    assert len(rows) == 1, (where, len(rows))
    return float(rows["value"].iloc[0])


@pytest.mark.fio
@pytest.mark.parametrize("version", ["2", "3", "4", "5"])
def test_terse_equals_the_json_of_the_same_run(tmp_path: Path, version: str) -> None:
    out, doc = _fio_both(
        tmp_path,
        "terse",
        f"--terse-version={version}",
        "--name=mix",
        "--rw=randrw",
        "--rwmixread=70",
        "--bs=4k",
        "--ioengine=libaio",
        "--iodepth=4",
        "--numjobs=2",
        "--group_reporting",
    )
    assert re.search(rf"^{version};", out.read_text(), re.M)
    df = load(out, fmt="fio-terse")
    assert set(df["format"]) == {f"fio-terse-v{version}"}
    (job,) = doc["jobs"]  # group_reporting: one entry for both clones
    for op in ("read", "write"):
        st = job[op]
        # terse prints io_bytes >> 10, bw = io_bytes * 1000 / runtime / 1024 and IOPS as integers
        assert _one(df, metric="iops", stat="mean", op=op) == st["total_ios"] * 1000 // st["runtime"]
        assert _one(df, metric="io", stat="sum", op=op) == (st["io_bytes"] >> 10) / 1024
        bw_kib = st["io_bytes"] * 1000 // st["runtime"] // 1024
        assert _one(df, metric="bandwidth", stat="mean", op=op) == pytest.approx(bw_kib / 1024, rel=1e-12)
        # latencies: ns in JSON, µs (6 decimals) in terse, ms in the schema
        ns = st["clat_ns"]["mean"]
        assert _one(df, metric="clat", stat="mean", op=op) == pytest.approx(ns / 1e6, abs=1e-8)
        p99 = st["clat_ns"]["percentile"]["99.000000"] // 1000
        assert _one(df, metric="clat", stat="p99", op=op) == pytest.approx(p99 / 1000, abs=1e-12)
    assert _one(df, metric="cpu_usr", stat="mean", op="total") == pytest.approx(job["usr_cpu"], abs=1e-6)


@pytest.mark.fio
def test_normal_output_agrees_with_the_json_of_the_same_run(tmp_path: Path) -> None:
    out, doc = _fio_both(
        tmp_path,
        "normal",
        "--name=mix",
        "--rw=randrw",
        "--rwmixread=70",
        "--bs=4k",
        "--ioengine=libaio",
        "--iodepth=4",
        "--numjobs=2",  # no group_reporting: two reports named `mix`
    )
    df = load(out, fmt="fio-normal")
    assert set(df["format"]) == {"fio-normal"}
    assert sorted(set(df["test"])) == ["mix.1", "mix.2"]
    assert set(df["workload"]) == {"randrw"} and set(df["interface"]) == {"libaio"}
    assert set(df["iodepth"]) == {4} and set(df["block_size_bytes"].dropna()) == {4096}
    for k, job in enumerate(doc["jobs"], start=1):
        for op in ("read", "write"):
            st = job[op]
            # normal output rounds to 3-4 significant digits
            iops = _one(df, test=f"mix.{k}", metric="iops", stat="mean", op=op)
            assert iops == pytest.approx(st["iops"], rel=0.006)
            bw = _one(df, test=f"mix.{k}", metric="bandwidth", stat="mean", op=op)
            assert bw == pytest.approx(st["bw_bytes"] / MiB, rel=0.006)
            clat = _one(df, test=f"mix.{k}", metric="clat", stat="mean", op=op)
            assert clat == pytest.approx(st["clat_ns"]["mean"] / 1e6, rel=0.001)
            p99 = _one(df, test=f"mix.{k}", metric="clat", stat="p99", op=op)
            assert p99 == pytest.approx(st["clat_ns"]["percentile"]["99.000000"] / 1e6, rel=0.01)
            bw_max = _one(df, test=f"mix.{k}", metric="bandwidth", stat="max", op=op)
            assert bw_max == pytest.approx(st["bw_max"] / 1024, rel=1e-9)  # bw (KiB/s): max= is exact


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


@pytest.mark.fio
def test_histogram_log_percentiles_equal_the_json_of_the_same_run(tmp_path: Path) -> None:
    """fio's JSON percentiles come from the same buckets as its histogram log, but the last partial
    interval is not logged: the count may fall short by that interval."""
    if shutil.which("fio") is None:
        pytest.fail("fio is not installed: run scripts/install-system-deps.sh")
    subprocess.run(
        [
            "fio",
            "--name=h",
            "--rw=randrw",
            "--bs=4k",
            f"--filename={tmp_path / 'data'}",
            "--size=16m",
            "--runtime=2",
            "--time_based=1",
            "--ioengine=psync",
            f"--write_hist_log={tmp_path / 'h'}",
            "--log_hist_msec=100",
            "--output-format=json",
            f"--output={tmp_path / 'h.json'}",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    doc = json.loads((tmp_path / "h.json").read_text())["jobs"][0]
    log = tmp_path / "h_clat_hist.1.log"
    assert len(log.read_text().splitlines()[0].split(",")) == 3 + 1856  # fio 3: 29 x 64 buckets
    df = load(log)
    assert set(df["format"]) == {"fio-hist-log"}
    for op in ("read", "write"):
        st = doc[op]
        count = _one(df, metric="clat", stat="count", op=op)
        assert 0.7 * st["total_ios"] <= count <= st["total_ios"]
        hist = df[(df["metric"] == "clat_histogram") & (df["op"] == op)]
        assert hist["value"].sum() == count
        # the median is robust to the unlogged last interval (two buckets); the tail is not, but a unit
        # slip would still be 1000x off
        p50 = _one(df, metric="clat", stat="p50", op=op)
        assert p50 == pytest.approx(st["clat_ns"]["percentile"]["50.000000"] / 1e6, rel=1 / 16)
        p99 = _one(df, metric="clat", stat="p99", op=op)
        assert p99 == pytest.approx(st["clat_ns"]["percentile"]["99.000000"] / 1e6, rel=0.5)


def test_unified_rw_reporting_is_one_mixed_direction() -> None:
    """`unified_rw_reporting=1`: fio reports one `mixed` block; the normal text of the same run (the file
    holds json,normal) agrees with its JSON within the normal output's rounding."""
    f = CORPUS / "produced/fio-3.33-text/unified-json-normal.txt"
    text = f.read_text()
    doc, _ = json.JSONDecoder().raw_decode(text, text.index("{\n"))
    mixed = doc["jobs"][0]["mixed"]
    normal = load(f, fmt="fio-normal")
    assert set(normal["op"]) == {"mixed", "total"}
    assert _one(normal, metric="iops", stat="mean", op="mixed") == pytest.approx(mixed["iops"], rel=0.006)
    assert _one(normal, metric="clat", stat="mean", op="mixed") == pytest.approx(
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
    assert _one(normal, metric="bandwidth", stat="max", op="read") == st["bw_max"] / 1024
    assert _one(normal, metric="bandwidth", stat="mean", op="read") == pytest.approx(
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
    assert _one(normal, metric="bandwidth", stat="mean", op="read") == pytest.approx(
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

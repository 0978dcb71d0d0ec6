"""Ingest of real fio 3.x output produced in this test run: JSON, JSON+, stdout with notes, and logs.

Expected values come from the raw files (read with json / numpy here), never from the ingest code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from flashtune.errors import FlashtuneError
from flashtune.ingest import COLUMN_NAMES, MAX_CHART_ROWS, METRIC_UNITS, load
from flashtune.ingest.schema import DTYPES

pytestmark = pytest.mark.fio

MiB = 1024 * 1024


def _fio(workdir: Path, *args: str, stdout: Path | None = None) -> None:
    cmd = [
        "fio",
        f"--filename={workdir / 'data'}",
        "--size=32m",
        "--direct=1",
        "--runtime=2",
        "--time_based=1",
        *args,
    ]
    if stdout is None:
        subprocess.run(cmd, check=True, capture_output=True, cwd=workdir, timeout=120)
    else:
        with stdout.open("w") as f:
            subprocess.run(cmd, check=True, stdout=f, stderr=subprocess.PIPE, cwd=workdir, timeout=120)


@pytest.fixture(scope="module")
def fio_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mixed 4k libaio job with JSON+ output and every log; a psync JSON run; a stdout run with notes."""
    if shutil.which("fio") is None:
        pytest.fail("fio is not installed: run scripts/install-system-deps.sh")
    d = tmp_path_factory.mktemp("fio")
    _fio(
        d,
        "--name=mixed",
        "--rw=randrw",
        "--rwmixread=70",
        "--bs=4k",
        "--ioengine=libaio",
        "--iodepth=8",
        "--write_bw_log=logs",
        "--write_iops_log=logs",
        "--write_lat_log=logs",
        "--log_avg_msec=100",
        "--output-format=json+",
        f"--output={d / 'plus.json'}",
    )
    _fio(
        d,
        "--name=seqread",
        "--rw=read",
        "--bs=64k",
        "--ioengine=psync",
        "--iodepth=4",
        "--output-format=json",
        f"--output={d / 'plain.json'}",
    )
    # no --output: fio prints its 'note:' lines on stdout before the JSON
    _fio(
        d,
        "--name=noted",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=psync",
        "--iodepth=4",
        "--runtime=1",
        "--output-format=json",
        stdout=d / "stdout.txt",
    )
    # raw per-I/O log (no averaging): one line per I/O, bs column filled
    _fio(
        d,
        "--name=rawlog",
        "--rw=randread",
        "--bs=4k",
        "--ioengine=psync",
        "--runtime=1",
        "--write_lat_log=rawlog",
        "--output-format=json",
        f"--output={d / 'raw.json'}",
    )
    return d


def _check_schema(df: pd.DataFrame) -> None:
    assert tuple(df.columns) == COLUMN_NAMES
    assert {c: str(t) for c, t in df.dtypes.items()} == DTYPES
    assert df["metric"].notna().all() and df["value"].notna().all()
    # every unit is the metric's canonical unit
    assert (df["unit"] == df["metric"].map(METRIC_UNITS)).all()


def test_json_plus_matches_the_raw_report(fio_run: Path) -> None:
    raw = json.loads((fio_run / "plus.json").read_text())
    job = raw["jobs"][0]
    df = load(fio_run / "plus.json")
    _check_schema(df)
    assert set(df["format"]) == {"fio-json+"}
    assert set(df["op"]) >= {"read", "write"}
    for ddir in ("read", "write"):
        st = job[ddir]
        rows = df[(df["op"] == ddir)]

        def one(metric: str, stat: str, rows: pd.DataFrame = rows) -> float:
            sel = rows[(rows["metric"] == metric) & (rows["stat"] == stat)]["value"]
            assert len(sel) == 1, (metric, stat)
            return float(sel.iloc[0])

        assert one("bandwidth", "mean") == pytest.approx(st["bw"] / 1024, rel=0.01)  # fio bw is KiB/s
        assert one("iops", "mean") == pytest.approx(st["iops"])
        assert one("clat", "p99") == pytest.approx(st["clat_ns"]["percentile"]["99.000000"] / 1e6)
        assert one("latency", "mean") == pytest.approx(st["lat_ns"]["mean"] / 1e6)
        # units are consistent with each other: MiB/s = IOPS x 4 KiB
        assert one("bandwidth", "mean") == pytest.approx(one("iops", "mean") * 4096 / MiB, rel=0.01)
        # JSON+ bins: every completed I/O is in exactly one bucket
        hist = rows[rows["metric"] == "clat_histogram"]
        assert hist["value"].sum() == st["clat_ns"]["N"]
        assert hist["bucket_ms"].notna().all()
    meta = df.iloc[0]
    assert (meta["tool"], meta["test"], meta["workload"], meta["interface"]) == (
        "fio",
        "mixed",
        "randrw",
        "libaio",
    )
    assert (meta["block_size_bytes"], meta["iodepth"]) == (4096, 8)


def test_plain_json_and_sync_engine_depth(fio_run: Path) -> None:
    raw = json.loads((fio_run / "plain.json").read_text())
    df = load(fio_run / "plain.json")
    _check_schema(df)
    assert set(df["format"]) == {"fio-json"}
    assert not df["metric"].str.endswith("histogram").any()
    bw = df[(df["metric"] == "bandwidth") & (df["stat"] == "mean")]
    assert list(bw["op"]) == ["read"]
    assert float(bw["value"].iloc[0]) == pytest.approx(raw["jobs"][0]["read"]["bw_bytes"] / MiB)
    # psync caps the queue at 1 whatever iodepth asked for
    assert set(df["iodepth"]) == {1}
    assert set(df[df["op"] == "read"]["block_size_bytes"]) == {65536}


def test_stdout_with_notes_before_the_json(fio_run: Path) -> None:
    text = (fio_run / "stdout.txt").read_text()
    assert text.startswith("note:"), "fio 3.33 prints its notes first: the case this test is about"
    df = load(fio_run / "stdout.txt")
    raw = json.loads(text[text.index("{") :])
    iops = df[(df["metric"] == "iops") & (df["stat"] == "mean")]["value"]
    assert float(iops.iloc[0]) == pytest.approx(raw["jobs"][0]["read"]["iops"])


def test_logs_agree_with_the_report_and_stay_chartable(fio_run: Path) -> None:
    raw = json.loads((fio_run / "plus.json").read_text())["jobs"][0]
    names = sorted(p.name for p in fio_run.glob("logs_*.log"))
    assert names == [f"logs_{k}.1.log" for k in ("bw", "clat", "iops", "lat", "slat")]
    bw = load(fio_run / "logs_bw.1.log")
    _check_schema(bw)
    assert len(bw) < MAX_CHART_ROWS
    assert set(bw["format"]) == {"fio-log"} and set(bw["metric"]) == {"bandwidth"}
    # the log and the report measure the same run in different units (KiB/s and ns in both files):
    # after conversion they agree to well within the factor of 1024 or 1000 a unit slip would cause
    for ddir in ("read", "write"):
        means = bw[(bw["op"] == ddir) & (bw["stat"] == "mean")]["value"]
        assert 0.5 < means.mean() / (raw[ddir]["bw"] / 1024) < 2
    lat = load(fio_run / "logs_lat.1.log")
    # the median of the interval means: a stalled interval on a loaded machine (few I/Os, huge latency) weighs
    # as much as a busy one in an unweighted mean and has pushed it past 10x the report's mean
    read_lat = lat[(lat["op"] == "read") & (lat["stat"] == "mean")]["value"].median()
    assert 0.5 < read_lat / (raw["read"]["lat_ns"]["mean"] / 1e6) < 2
    samples = np.loadtxt(fio_run / "logs_lat.1.log", delimiter=",", dtype=np.int64)
    every = load(fio_run / "logs_lat.1.log", raw=True)
    assert every["value"].mean() == pytest.approx(samples[:, 1].mean() / 1e6)
    # every raw sample is kept with raw=True: one row per log line
    lines = (fio_run / "logs_iops.1.log").read_text().splitlines()
    iops = load(fio_run / "logs_iops.1.log", raw=True)
    assert len(iops) == len(lines)
    first = [int(x) for x in lines[0].split(",")]
    assert iops["time_s"].iloc[0] == pytest.approx(first[0] / 1000)
    assert iops["value"].iloc[0] == first[1]


def test_per_io_log_keeps_block_size(fio_run: Path) -> None:
    df = load(fio_run / "rawlog_lat.1.log", raw=True)
    assert set(df["block_size_bytes"].dropna()) == {4096}
    assert len(df) == len((fio_run / "rawlog_lat.1.log").read_text().splitlines())


def test_binning_of_a_large_log_is_exact_for_means_and_close_for_percentiles(
    fio_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """600k rows synthesised from the real per-I/O latency log, checked against numpy on the same data."""
    base = np.loadtxt(fio_run / "rawlog_lat.1.log", delimiter=",", dtype=np.int64)
    reps = -(-600_000 // len(base))
    data = np.tile(base, (reps, 1))[:600_000].copy()
    data[:, 0] = np.arange(len(data)) // 40  # 40 samples per ms, increasing time
    data[:, 2] = np.arange(len(data)) % 2  # interleave reads and writes as mixed jobs do
    path = tmp_path / "big_lat.1.log"
    np.savetxt(path, data, fmt="%d", delimiter=", ")
    df = load(path, bin_ms=1000, stats=("mean", "max", "p99", "count"))
    assert len(df) < MAX_CHART_ROWS
    for ddir, name in ((0, "read"), (1, "write")):
        sel = data[data[:, 2] == ddir]
        bins = sel[:, 0] // 1000
        got = df[df["op"] == name].pivot(index="time_s", columns="stat", values="value")
        for b in np.unique(bins):
            vals = sel[bins == b, 1]
            row = got.loc[b * 1.0]
            assert row["count"] == len(vals)
            assert row["mean"] == pytest.approx(vals.mean() / 1e6, rel=1e-9)
            assert row["max"] == pytest.approx(vals.max() / 1e6)
            assert row["p99"] == pytest.approx(np.percentile(vals, 99) / 1e6, rel=0.05)
    auto = load(path, workers=1)
    assert 10 < len(auto) < MAX_CHART_ROWS
    # two worker processes bin exactly as one reader does
    pd.testing.assert_frame_equal(load(path, workers=2), auto)
    # unasked, a log past the size threshold goes to two workers, and the result is the same
    from flashtune.ingest import walk

    assert walk.auto_workers(path) == 1
    monkeypatch.setattr(walk, "AUTO_PARALLEL_BYTES", path.stat().st_size)
    assert walk.auto_workers(path) == (2 if (os.cpu_count() or 1) >= 2 else 1)
    pd.testing.assert_frame_equal(load(path), auto)
    # a bad line deep in the file: the parallel reader hands over to the serial one, which names the line
    lines = path.read_bytes().split(b"\n")
    lines[450_000] = b"17, oops, 0, 4096, 0"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(FlashtuneError) as e:
        load(path, workers=2)
    assert e.value.line == 450_001


def test_truncated_and_bad_files_name_file_and_line(fio_run: Path, tmp_path: Path) -> None:
    text = (fio_run / "plus.json").read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    with pytest.raises(FlashtuneError) as e:
        load(cut)
    assert e.value.file == str(cut) and e.value.line == text[: len(text) // 2].rstrip().count("\n") + 1
    assert "truncated" in e.value.message and e.value.suggestion
    log = (fio_run / "logs_bw.1.log").read_bytes()
    cut_log = tmp_path / "cut_bw.1.log"
    cut_log.write_bytes(log[: log.rindex(b",")])  # stop in the middle of the last line
    with pytest.raises(FlashtuneError) as e:
        load(cut_log)
    assert e.value.line == log[: log.rindex(b",")].count(b"\n") + 1
    bad = tmp_path / "bad_iops.1.log"
    bad.write_text("100, 5, 0, 0, 0\n200, five, 1, 0, 0\n")
    with pytest.raises(FlashtuneError) as e:
        load(bad)
    assert e.value.line == 2


def test_cli_writes_csv_once_and_fails_cleanly(fio_run: Path, tmp_path: Path) -> None:
    exe = [sys.executable, "-m", "flashtune.cli.main", "ingest"]
    out = tmp_path / "r.csv"
    files = [str(fio_run / "plus.json"), str(fio_run / "logs_clat.1.log")]
    r = subprocess.run([*exe, *files, "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    df = pd.read_csv(out)
    assert list(df.columns) == list(COLUMN_NAMES)
    assert set(df["format"]) == {"fio-json+", "fio-log"}
    before = out.read_bytes()
    again = subprocess.run([*exe, files[0], "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "--force" in again.stderr and out.read_bytes() == before
    forced = subprocess.run(
        [*exe, files[0], "--out", str(out), "--force"], capture_output=True, text=True, timeout=120
    )
    assert forced.returncode == 0 and out.read_bytes() != before
    cut = tmp_path / "cut.json"
    cut.write_text((fio_run / "plain.json").read_text()[:500])
    bad = subprocess.run([*exe, str(cut)], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert f"{cut}:" in bad.stderr and "hint:" in bad.stderr and "Traceback" not in bad.stderr


def test_bin_frame_agrees_with_streaming_bins(fio_run: Path) -> None:
    """Binning raw rows in memory (bin_frame) and binning while streaming give the same numbers."""
    from flashtune.ingest import bin_frame, limit_rows

    log = fio_run / "rawlog_lat.1.log"
    streamed = load(log, bin_ms=250, stats=("mean", "max", "count"))
    in_memory = bin_frame(load(log, raw=True), bin_s=0.25, stats=("mean", "max", "count"))
    assert tuple(in_memory.columns) == COLUMN_NAMES
    a = streamed.pivot_table(index=["op", "time_s"], columns="stat", values="value")
    b = in_memory.pivot_table(index=["op", "time_s"], columns="stat", values="value")
    assert list(a.index) == list(b.index)
    for stat in ("mean", "max", "count"):
        assert np.allclose(a[stat].to_numpy(), b[stat].to_numpy(), rtol=1e-9)
    raw = load(log, raw=True)
    assert len(raw) >= MAX_CHART_ROWS  # a 1 s psync job logs tens of thousands of I/Os
    small = limit_rows(raw)
    assert len(small) < MAX_CHART_ROWS and set(small["stat"]) >= {"mean", "p99"}


# ------------------------------------------------------------------ vectorised log reader vs pandas reference


def _log_arrays(path: Path, engine: str, *, with_bs: bool = True) -> list[np.ndarray]:
    from flashtune.ingest.fio import iter_log_chunks

    parts = list(iter_log_chunks(path, with_bs=with_bs, engine=engine))
    return [np.concatenate([p[i] for p in parts]) for i in range(4)]


def _same_as_reference(path: Path, *, with_bs: bool = True) -> None:
    fast = _log_arrays(path, "auto", with_bs=with_bs)
    ref = _log_arrays(path, "pandas", with_bs=with_bs)
    for got, want in zip(fast, ref, strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def _reference_load(monkeypatch: pytest.MonkeyPatch, path: Path, **kw: object) -> pd.DataFrame:
    """load() with every fio log read by the reference (pandas) parser."""
    from flashtune.ingest import fio

    orig = fio.iter_log_chunks

    def ref(*args: object, **kwargs: object) -> object:
        kwargs["engine"] = "pandas"
        return orig(*args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as m:
        m.setattr(fio, "iter_log_chunks", ref)
        return load(path, **kw)  # type: ignore[arg-type]


def test_fast_log_reader_equals_the_pandas_reference(
    fio_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every real log of the run: the vectorised reader really takes it and returns exactly what pandas does."""
    from flashtune.ingest import fastlog

    taken = []
    orig = fastlog.parse_block

    def spy(*args: object, **kwargs: object) -> object:
        got = orig(*args, **kwargs)  # type: ignore[arg-type]
        taken.append(got is not None)
        return got

    logs = [p for p in sorted(fio_run.glob("*.log")) if p.stat().st_size]  # psync jobs log no slat
    assert len(logs) >= 6
    for log in logs:
        taken.clear()
        with monkeypatch.context() as m:
            m.setattr(fastlog, "parse_block", spy)
            _same_as_reference(log)
            _same_as_reference(log, with_bs=False)
        assert taken and all(taken), log  # fio's own layout: no block fell back to pandas
        pd.testing.assert_frame_equal(load(log), _reference_load(monkeypatch, log), check_exact=True)
        pd.testing.assert_frame_equal(
            load(log, raw=True), _reference_load(monkeypatch, log, raw=True), check_exact=True
        )
    # small blocks: lines carried over block ends, many blocks per file
    monkeypatch.setattr(fastlog, "BLOCK_BYTES", 1000)
    _same_as_reference(fio_run / "rawlog_lat.1.log")
    pd.testing.assert_frame_equal(
        load(fio_run / "rawlog_lat.1.log", bin_ms=100),
        _reference_load(monkeypatch, fio_run / "rawlog_lat.1.log", bin_ms=100),
    )


def test_fast_log_reader_edge_cases(fio_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from flashtune.ingest import fastlog

    monkeypatch.setattr(fastlog, "BLOCK_BYTES", 4096)  # several blocks even for these small files
    # a real 6-column log (log_offset=1: time, value, ddir, bs, offset, prio)
    _fio(
        tmp_path,
        "--name=offs",
        "--rw=randrw",
        "--bs=4k",
        "--ioengine=psync",
        "--runtime=1",
        "--log_offset=1",
        "--write_lat_log=offs",
        "--output-format=json",
        f"--output={tmp_path / 'offs.json'}",
    )
    six = tmp_path / "offs_lat.1.log"
    lines = six.read_bytes().splitlines(keepends=True)
    assert len(lines) > 2000 and all(line.count(b",") == 5 for line in lines[:50])
    assert fastlog.parse_block(bytearray(b"0" * fastlog.PAD) + b"".join(lines[:100]), 6) is not None
    _same_as_reference(six)
    pd.testing.assert_frame_equal(load(six), _reference_load(monkeypatch, six), check_exact=True)

    real = (fio_run / "rawlog_lat.1.log").read_bytes()
    rows = real.splitlines(keepends=True)[:3000]
    variants = {
        "trailing_blank": b"".join(rows) + b"\n",
        "trailing_blanks": b"".join(rows) + b"\n\n\n",
        "blank_inside": b"".join(rows[:1500]) + b"\n" + b"".join(rows[1500:]),
        "crlf": b"".join(rows).replace(b"\n", b"\r\n"),
        "four_columns": b"".join(r.rsplit(b",", 1)[0] + b"\n" for r in rows),
        # pandas (usecols) also takes a line with extra fields: both readers must
        "extra_fields": b"".join(rows[:7]) + b"17, 5, 0, 4096, 0, 1, 2\n" + b"".join(rows[8:]),
        "extra_spaces": b"".join(rows[:2000]) + b"".join(r.replace(b", ", b",  ") for r in rows[2000:]),
        # epoch-ms times (log_unix_epoch) and 9..18-digit values: the multi-word digit path
        "big_numbers": b"".join(
            b"%d, %d, %d, 4096, 0\n" % (1_700_000_000_000 + k, 7 * 10 ** (k % 18) + k, k % 3)
            for k in range(3000)
        ),
    }
    for name, data in variants.items():
        path = tmp_path / f"{name}_lat.1.log"
        path.write_bytes(data)
        _same_as_reference(path)
        _same_as_reference(path, with_bs=False)
        pd.testing.assert_frame_equal(load(path), _reference_load(monkeypatch, path), check_exact=True)
    # malformed lines: the exact file:line from both readers (and from the parallel one, via the serial)
    bad_rows = list(rows)
    for no, bad in (
        (2345, b"17, oops, 0, 4096, 0\n"),
        (7, b"17 5, 1, 0, 4096, 0\n"),
        (2999, b"12, -, 1, 4096, 0\n"),
        (1, b"x, 1, 0, 4096, 0\n"),
    ):
        bad_rows = list(rows)
        bad_rows[no - 1] = bad
        path = tmp_path / f"bad{no}_lat.1.log"
        path.write_bytes(b"".join(bad_rows))
        for workers in (1, 2):
            with pytest.raises(FlashtuneError) as e:
                load(path, workers=workers)
            assert (e.value.file, e.value.line) == (str(path), no), (no, e.value)
        with pytest.raises(FlashtuneError) as ref:
            _reference_load(monkeypatch, path)
        assert (ref.value.file, ref.value.line) == (str(path), no)


def test_parse_block_digits() -> None:
    """Every digit count 1..18 (one, two and three 8-digit words) against Python's int()."""
    from flashtune.ingest import fastlog

    rng = np.random.default_rng(7)
    nums = [int("".join(map(str, rng.integers(0, 10, size=n)))) for n in range(1, 19) for _ in range(50)]
    triples = zip(nums, nums[::-1], nums[3:] + nums[:3], strict=True)
    lines = [f"{a}, {b}, {k % 3}, {c}, 0\n" for k, (a, b, c) in enumerate(triples)]
    got = fastlog.parse_block(bytearray(b"0" * fastlog.PAD + "".join(lines).encode()), 5)
    assert got is not None
    want = np.array([[int(x) for x in line.split(",")] for line in lines], dtype=np.int64)
    for i in range(4):
        np.testing.assert_array_equal(got[i], want[:, i])
    # 19 digits and a sign are left to the reference parser
    assert (
        fastlog.parse_block(bytearray(b"0" * fastlog.PAD + b"1234567890123456789, 1, 0, 0, 0\n"), 5) is None
    )
    assert fastlog.parse_block(bytearray(b"0" * fastlog.PAD + b"-1, 1, 0, 0, 0\n"), 5) is None

"""fio's text outputs (terse v2-v5, normal, histogram logs) ingested from a real fio run and compared with the
JSON fio wrote of the same run (`--output-format=FMT,json`), read with `json`, never through the ingest code."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from flashtune.ingest import load
from support.frames import one_value

MiB = 1024 * 1024


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
        assert one_value(df, metric="iops", stat="mean", op=op) == st["total_ios"] * 1000 // st["runtime"]
        assert one_value(df, metric="io", stat="sum", op=op) == (st["io_bytes"] >> 10) / 1024
        bw_kib = st["io_bytes"] * 1000 // st["runtime"] // 1024
        assert one_value(df, metric="bandwidth", stat="mean", op=op) == pytest.approx(
            bw_kib / 1024, rel=1e-12
        )
        # latencies: ns in JSON, µs (6 decimals) in terse, ms in the schema
        ns = st["clat_ns"]["mean"]
        assert one_value(df, metric="clat", stat="mean", op=op) == pytest.approx(ns / 1e6, abs=1e-8)
        p99 = st["clat_ns"]["percentile"]["99.000000"] // 1000
        assert one_value(df, metric="clat", stat="p99", op=op) == pytest.approx(p99 / 1000, abs=1e-12)
    assert one_value(df, metric="cpu_usr", stat="mean", op="total") == pytest.approx(job["usr_cpu"], abs=1e-6)


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
            iops = one_value(df, test=f"mix.{k}", metric="iops", stat="mean", op=op)
            assert iops == pytest.approx(st["iops"], rel=0.006)
            bw = one_value(df, test=f"mix.{k}", metric="bandwidth", stat="mean", op=op)
            assert bw == pytest.approx(st["bw_bytes"] / MiB, rel=0.006)
            clat = one_value(df, test=f"mix.{k}", metric="clat", stat="mean", op=op)
            assert clat == pytest.approx(st["clat_ns"]["mean"] / 1e6, rel=0.001)
            p99 = one_value(df, test=f"mix.{k}", metric="clat", stat="p99", op=op)
            assert p99 == pytest.approx(st["clat_ns"]["percentile"]["99.000000"] / 1e6, rel=0.01)
            bw_max = one_value(df, test=f"mix.{k}", metric="bandwidth", stat="max", op=op)
            assert bw_max == pytest.approx(st["bw_max"] / 1024, rel=1e-9)  # bw (KiB/s): max= is exact


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
        count = one_value(df, metric="clat", stat="count", op=op)
        assert 0.7 * st["total_ios"] <= count <= st["total_ios"]
        hist = df[(df["metric"] == "clat_histogram") & (df["op"] == op)]
        assert hist["value"].sum() == count
        # the median is robust to the unlogged last interval (two buckets); the tail is not, but a unit
        # slip would still be 1000x off
        p50 = one_value(df, metric="clat", stat="p50", op=op)
        assert p50 == pytest.approx(st["clat_ns"]["percentile"]["50.000000"] / 1e6, rel=1 / 16)
        p99 = one_value(df, metric="clat", stat="p99", op=op)
        assert p99 == pytest.approx(st["clat_ns"]["percentile"]["99.000000"] / 1e6, rel=0.5)


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

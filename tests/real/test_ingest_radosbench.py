"""Ingest of real `rados bench` output from the session's Ceph 16.2.15 test cluster (tests/support/cephlab)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from flashtune.errors import FlashtuneError
from flashtune.ingest import COLUMN_NAMES, load
from support.cephlab import CephLab

pytestmark = pytest.mark.ceph

POOL = "ingestbench"
BS = 65536
THREADS = 8


@pytest.fixture(scope="module")
def bench_outputs(ceph_lab: CephLab, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("radosbench")
    ceph_lab.ceph("osd", "pool", "create", POOL, "8")
    try:
        # one replica: the bench measures ingest input, not durability, and needs no more than one OSD
        ceph_lab.ceph("osd", "pool", "set", POOL, "size", "1", "--yes-i-really-mean-it")
        ceph_lab.wait_clean()

        def bench(name: str, *args: str) -> None:
            r = ceph_lab.run("timeout", "90", "rados", "bench", "-p", POOL, *args, timeout=120)
            (d / name).write_text(r.stdout)

        bench("write.txt", "3", "write", "-b", str(BS), "-t", str(THREADS), "--no-cleanup")
        bench("seq.txt", "2", "seq", "-t", str(THREADS))
        bench("rand-json.txt", "2", "rand", "-t", str(THREADS), "--format", "json")
    finally:
        ceph_lab.run("ceph", "osd", "pool", "rm", POOL, POOL, "--yes-i-really-really-mean-it", check=False)
    return d


def _summary(df: object) -> dict[tuple[str, str], float]:
    import pandas as pd

    assert isinstance(df, pd.DataFrame)
    s = df[df["time_s"].isna()]
    return {(m, st): float(v) for m, st, v in zip(s["metric"], s["stat"], s["value"], strict=True)}


def test_write_text(bench_outputs: Path) -> None:
    text = (bench_outputs / "write.txt").read_text()
    df = load(bench_outputs / "write.txt")
    assert tuple(df.columns) == COLUMN_NAMES
    assert set(df["format"]) == {"rados-bench-text"}
    row = df.iloc[0]
    assert (row["workload"], row["op"], row["block_size_bytes"], row["iodepth"]) == (
        "write",
        "write",
        BS,
        THREADS,
    )
    s = _summary(df)
    printed = float(re.search(r"^Bandwidth \(MB/sec\):\s+([\d.]+)", text, re.M).group(1))  # type: ignore[union-attr]
    assert s[("bandwidth", "mean")] == printed
    # rados' "MB/sec" is bytes / 2^20: bandwidth = ops x op size / runtime
    assert s[("bandwidth", "mean")] == pytest.approx(
        s[("ops", "sum")] * BS / 2**20 / s[("runtime", "value")], rel=0.01
    )
    assert s[("latency", "mean")] == pytest.approx(
        float(re.search(r"^Average Latency\(s\):\s+([\d.e-]+)", text, re.M).group(1)) * 1000  # type: ignore[union-attr]
    )
    per_second = df[df["time_s"].notna() & (df["metric"] == "bandwidth")]
    assert len(per_second) >= 2


def test_seq_read_text_takes_mode_from_name(bench_outputs: Path) -> None:
    df = load(bench_outputs / "seq.txt")
    assert set(df["workload"]) == {"seq"} and set(df["op"]) == {"read"}
    s = _summary(df)
    assert s[("iops", "mean")] > 0 and s[("ops", "sum")] > 0


def test_json_format(bench_outputs: Path) -> None:
    text = (bench_outputs / "rand-json.txt").read_text()
    doc = json.loads(text[text.index("{") :])
    df = load(bench_outputs / "rand-json.txt")
    assert set(df["format"]) == {"rados-bench-json"}
    s = _summary(df)
    assert s[("bandwidth", "mean")] == float(doc["bandwidth"])
    assert s[("latency", "mean")] == pytest.approx(float(doc["average_latency"]) * 1000)
    assert set(df["workload"]) == {"rand"}


def test_cbt_archive_of_rados_bench(bench_outputs: Path, tmp_path: Path) -> None:
    """The layout CBT's radosbench module leaves: results/<iter>/id-<hash>/{write,seq}/output.<proc>.<host>."""
    run = tmp_path / "archive" / "results" / "00000000" / "id-3f2a9c1e"
    for mode, src in (("write", "write.txt"), ("seq", "seq.txt")):
        (run / mode).mkdir(parents=True)
        (run / mode / "output.0.client01").write_text((bench_outputs / src).read_text())
        (run / mode / "json_output.0.client01").write_text("{}")  # CBT's own re-dump, ignored
    (run / "benchmark_config.yaml").write_text(
        f"cluster:\n  benchmark: radosbench\n  iteration: 0\n  op_size: {BS}\n  concurrent_ops: {THREADS}\n"
        "  time: 3\n"
    )
    df = load(tmp_path / "archive")
    assert set(df["run"]) == {"00000000/id-3f2a9c1e"}
    assert set(df["workload"]) == {"write", "seq"}
    # seq output does not print -t; the run's config does
    assert set(df["iodepth"]) == {THREADS}
    assert set(df["block_size_bytes"]) == {BS}


def test_cut_off_bench(bench_outputs: Path, tmp_path: Path) -> None:
    text = (bench_outputs / "write.txt").read_text()
    cut = tmp_path / "write-cut.txt"
    cut.write_text(text[: text.index("Total time run")])
    with pytest.raises(FlashtuneError) as e:
        load(cut)
    assert e.value.line == text[: text.index("Total time run")].rstrip().count("\n") + 1
    assert e.value.file == str(cut) and "Total time run" in e.value.message

"""What real inputs do to an ingest besides their tool's layout: encodings and compression, launcher line
prefixes, folders of mixed files, bad files among good ones, tool versions that change units, and files
that do not say what a number means (NA, never a made-up default). Inputs are real outputs from
tests/corpus, re-encoded or combined here the way people's machines do it."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from flashtune.errors import FlashtuneError
from flashtune.ingest import collect, load

CORPUS = Path(__file__).parents[1] / "corpus"
SB05 = CORPUS / "sysbench/sysbench-0.5-sysbench-rw-100-1-6.txt"
TPS05 = 280.00  # "transactions: 50680  (280.00 per sec.)" in that file
CLAT_LOG = CORPUS / "fio/fio-2.2.10-ec/randwrite-4k/randwrite-4k-KERNEL_clat.log"


def _tps(path: Path) -> float:
    df = load(path)
    (v,) = df[(df["metric"] == "tps") & df["time_s"].isna()]["value"]
    return float(v)


@pytest.mark.parametrize(
    ("name", "encode", "note"),
    [
        ("bom.txt", lambda t: b"\xef\xbb\xbf" + t.encode(), "byte-order mark"),
        ("utf16.txt", lambda t: t.encode("utf-16"), "UTF-16"),
        ("utf16le-nobom.txt", lambda t: t.encode("utf-16-le"), "UTF-16LE"),
        ("crlf.txt", lambda t: t.replace("\n", "\r\n").encode(), None),
        ("out.txt.gz", lambda t: gzip.compress(t.encode()), "gzip"),
        (
            "latin1.txt",
            lambda t: t.replace("Number of threads", "N\xb5mber of threads").encode("latin-1"),
            "Latin-1",
        ),
    ],
)
def test_encodings_are_read_and_said(name: str, encode: object, note: str | None, tmp_path: Path) -> None:
    f = tmp_path / name
    f.write_bytes(encode(SB05.read_text()))  # type: ignore[operator]
    got = collect([f])
    assert not got.errors, got.errors
    (v,) = got.frame[(got.frame["metric"] == "tps") & got.frame["time_s"].isna()]["value"]
    assert v == TPS05
    if note:
        assert any(note in n for _p, n in got.notes), got.notes
    if name == "latin1.txt":
        assert any("line 4 byte 0xb5" in n for _p, n in got.notes), got.notes


def test_not_text_says_what_it_is(tmp_path: Path) -> None:
    png = tmp_path / "chart.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    got = collect([png])
    assert len(got.errors) == 1 and "PNG image" in got.errors[0].message
    walked = collect([tmp_path])  # in a folder walk it is skipped, with the reason
    assert [s.reason for s in walked.skipped] == ["this is a PNG image"]
    bad = tmp_path / "many.txt"
    bad.write_bytes(bytes(range(0x80, 0xFF)) * 4)
    with pytest.raises(FlashtuneError, match="not UTF-8"):
        load(bad, fmt="sysbench")


def test_gzip_fio_log_keeps_its_version_unit(tmp_path: Path) -> None:
    d = tmp_path / "randwrite-4k"
    d.mkdir()
    shutil.copy(CLAT_LOG.parent.parent / "randwrite-4k.out", tmp_path)
    (d / "randwrite-4k-KERNEL_clat.log.gz").write_bytes(gzip.compress(CLAT_LOG.read_bytes()))
    plain, zipped = load(CLAT_LOG), load(d / "randwrite-4k-KERNEL_clat.log.gz")
    cols = ["time_s", "op", "stat", "value", "unit_basis"]
    assert plain[cols].equals(zipped[cols])
    assert "fio-2.2.10" in zipped["unit_basis"].iloc[0]


def test_cpu_prefixed_log_reads_as_the_plain_one(tmp_path: Path) -> None:
    f = tmp_path / "console.txt"
    f.write_text("".join(f"CPU 3: {line}\n" for line in SB05.read_text().splitlines()))
    assert _tps(f) == TPS05
    mpi = tmp_path / "mpirun.txt"
    mpi.write_text("".join(f"[1,0]<stdout>:{line}\n" for line in SB05.read_text().splitlines()))
    assert _tps(mpi) == TPS05


def test_folder_with_a_cbt_archive_inside_reads_everything_else_too(tmp_path: Path) -> None:
    shutil.copytree(CORPUS / "cbt/cbt-2025-librbdfio", tmp_path / "runs/cbt-archive")
    shutil.copy(SB05, tmp_path / "runs/sysbench.txt")
    shutil.copy(CORPUS / "ior/ior-3.1.0-ior-easy-write-1.txt", tmp_path / "ior.txt")
    (tmp_path / "runs/job.fio").write_text("[global]\nrw=randread\n")
    (tmp_path / "notes.md").write_text("# my notes\n")
    got = collect([tmp_path])
    assert not got.errors
    assert set(got.frame["tool"]) == {"fio", "sysbench", "ior"}
    assert got.frame["run"].str.startswith("00000000/id-af9a4715/").sum() > 0
    reasons = {Path(s.path).name: s.reason for s in got.skipped}
    assert set(reasons) == {"job.fio", "notes.md"} and all(reasons.values())


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[2] / "compiler"))
    return subprocess.run(
        [sys.executable, "-m", "flashtune.cli.main", "ingest", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def test_one_bad_file_does_not_lose_the_rest(tmp_path: Path) -> None:
    cut = tmp_path / "cut.json"
    text = (CORPUS / "fio-json/fio-3.16-SERVER_HIGHPOINT_RAID5_randread-1-1.json").read_text()
    cut.write_text(text[: len(text) // 2])
    out = tmp_path / "all.csv"
    r = _cli(
        str(SB05), str(cut), str(CORPUS / "iozone/iozone-3.434-auto.txt"), "--out", str(out), cwd=tmp_path
    )
    assert r.returncode == 2, r.stderr
    assert f"{cut}:{text[: len(text) // 2].rstrip().count(chr(10)) + 1}: error:" in r.stderr
    assert "Traceback" not in r.stderr
    csv = out.read_text()
    assert "sysbench" in csv and "iozone" in csv and str(cut) not in csv
    assert "2 input(s) read, 0 skipped, 1 bad" in r.stdout


def test_csv_gets_normal_permissions(tmp_path: Path) -> None:
    import inspect

    from flashtune import fileio

    if "umask" not in inspect.getsource(fileio):
        pytest.xfail(
            "the shared atomic writer (fileio.write_atomic) still creates 0600 files; its owner fixes it"
        )
    out = tmp_path / "r.csv"
    old = os.umask(0o022)
    try:
        r = _cli(str(SB05), "--out", str(out), cwd=tmp_path)
    finally:
        os.umask(old)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_fio2_io_bytes_are_kib_by_version_and_by_consistency(tmp_path: Path) -> None:
    src = CORPUS / "fio-json/fio-2.18-example_data_randread-01.json"
    doc = json.loads(src.read_text())
    rd = doc["jobs"][0]["read"]
    want = rd["total_ios"] * 4096 / 2**20  # 4 KiB reads: what io_bytes (KiB in fio 2.x) must come to
    stated = load(src)
    (io,) = stated[stated["metric"] == "io"]["value"]
    assert (
        io == pytest.approx(want)
        and stated[stated["metric"] == "io"]["unit_basis"].iloc[0] == "stated: fio-2.18"
    )
    del doc["fio version"]
    anon = tmp_path / "noversion.json"
    anon.write_text(json.dumps(doc))
    df = load(anon)
    (io,) = df[df["metric"] == "io"]["value"]
    assert io == pytest.approx(want)
    assert df[df["metric"] == "io"]["unit_basis"].iloc[0].startswith("inferred: io_bytes = bw x runtime")


def test_fio2_log_unit_inferred_without_its_report(tmp_path: Path) -> None:
    src = CORPUS / "fio/fio-2.16-cephfs/randread-4k"
    for f in ("randread-4k-KERNEL_clat.log", "randread-4k-KERNEL_iops.log"):
        shutil.copy(src / f, tmp_path)
    alone = load(tmp_path / "randread-4k-KERNEL_clat.log")
    beside = load(src / "randread-4k-KERNEL_clat.log")
    assert alone["value"].equals(beside["value"])  # µs, whether stated or inferred
    assert alone["unit_basis"].iloc[0].startswith("inferred: Little's law")
    (tmp_path / "randread-4k-KERNEL_iops.log").unlink()
    bare = load(tmp_path / "randread-4k-KERNEL_clat.log")  # nothing to infer from: said, not hidden
    assert bare["unit_basis"].iloc[0].startswith("assumed:")


def test_unknown_is_na_and_mixed_jobs_are_rw(tmp_path: Path) -> None:
    doc = json.loads((CORPUS / "produced/fio-3.33/appended.json").read_text().split("\n}\n")[0] + "\n}")
    for job in doc["jobs"]:
        job.pop("job options", None)
    doc.pop("global options", None)
    f = tmp_path / "bare.json"
    f.write_text(json.dumps(doc))
    df = load(f)
    assert set(df["op"]) >= {"read", "write"}
    assert set(df["workload"]) == {"rw"}
    assert df["interface"].isna().all() and df["iodepth"].isna().all() and df["block_size_bytes"].isna().all()


def test_appended_fio_json_keeps_every_run() -> None:
    df = load(CORPUS / "produced/fio-3.33/appended.json")
    iops = df[(df["metric"] == "iops") & (df["stat"] == "mean") & (df["op"] == "read")]
    assert list(iops["run"]) == ["1", "2"] and iops["value"].nunique() == 2


def test_ior_31_has_no_ops_columns_so_no_ops() -> None:
    df = load(CORPUS / "ior/ior-3.1.0-ior-easy-write-1.txt")
    assert df[df["metric"] == "iops"].empty
    (rt,) = df[(df["metric"] == "runtime") & (df["stat"] == "mean")]["value"]
    assert rt == 376.88274  # Mean(s), not a StdDev or Test# read from the wrong column


def test_ior_runs_in_one_file_are_all_kept(tmp_path: Path) -> None:
    a = (CORPUS / "ior/ior-3.2.0-ior-easy-write-3.txt").read_text()
    b = (CORPUS / "ior/ior-4.1.0-ior-easy-write-11.txt").read_text()
    f = tmp_path / "two.txt"
    f.write_text(a + b)
    df = load(f)
    mx = df[(df["metric"] == "bandwidth") & (df["stat"] == "max")]
    assert list(mx["run"]) == ["1", "2"]
    assert list(mx["value"]) == [
        load(CORPUS / "ior/ior-3.2.0-ior-easy-write-3.txt")
        .query("stat == 'max' and metric == 'bandwidth'")["value"]
        .iloc[0],
        load(CORPUS / "ior/ior-4.1.0-ior-easy-write-11.txt")
        .query("stat == 'max' and metric == 'bandwidth'")["value"]
        .iloc[0],
    ]


@pytest.mark.parametrize("ending", ["", "\n", ",\n", ",\n  {\n"])
def test_sysbench_report_json_without_its_closing_bracket(ending: str, tmp_path: Path) -> None:
    """sysbench 1.0.20's report_json writes "]" from a Lua GC hook: it may come late, or never."""
    objs = [
        {
            "time": t,
            "threads": 2,
            "tps": 100.0 + t,
            "qps": {"total": 2000.0, "reads": 1400.0, "writes": 400.0, "other": 200.0},
            "latency": 9.5,
            "errors": 0.0,
            "reconnects": 0.0,
        }
        for t in (1, 2)
    ]
    body = ",\n".join(json.dumps(o, indent=2) for o in objs)
    summary = (CORPUS / "produced/sysbench-1.0.20/sb-cpu.txt").read_text()
    f = tmp_path / "oltp.txt"
    f.write_text(summary.replace("Threads started!\n", "Threads started!\n\n[\n" + body + ending, 1))
    if ending.endswith("{\n"):
        with pytest.raises(FlashtuneError, match="broken sysbench JSON report"):
            load(f)
        return
    df = load(f)
    tps = df[(df["metric"] == "tps") & df["time_s"].notna()]
    assert list(tps["value"]) == [101.0, 102.0]

"""A CBT librbdfio-style results archive built from a real fio run (json,normal output and logs).

CBT is not packaged for PyPI or Debian (it runs from a git checkout of ceph/cbt), so the archive layout
follows CBT's code (ceph/cbt benchmark/librbdfio.py and cbt.py): results/<iteration:08d>/id-<hash>/benchmark_config.yaml, output.<vol>.<host> from
`fio --output-format=json,normal`, and logs output.<vol>_<kind>.<job>.log.<host> after rpdcp.
"""

from __future__ import annotations

import json
import subprocess
import tarfile
from pathlib import Path

import pytest

from flashtune.errors import FlashtuneError
from flashtune.ingest import COLUMN_NAMES, MAX_CHART_ROWS, detect, load

pytestmark = pytest.mark.fio

HOST = "client01"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cbt") / "archive"
    run = root / "results" / "00000000" / "id-9b1c0d2e"
    run.mkdir(parents=True)
    work = root.parent / "work"
    work.mkdir()
    out = work / "output.0"
    cmd = [
        "fio",
        "--name=cbt-rbdfio-client01-file-0",
        f"--filename={work / 'img'}",
        "--size=32m",
        "--direct=1",
        "--rw=randwrite",
        "--bs=4096B",
        "--iodepth=16",
        "--ioengine=libaio",
        "--runtime=2",
        "--time_based",
        "--numjobs=1",
        "--output-format=json,normal",
        f"--write_iops_log={out}",
        f"--write_bw_log={out}",
        f"--write_lat_log={out}",
        "--log_avg_msec=100",
    ]
    with (run / f"output.0.{HOST}").open("w") as f:
        subprocess.run(cmd, check=True, stdout=f, stderr=subprocess.PIPE, timeout=120)
    for log in work.glob("output.0_*.log"):
        log.rename(run / f"{log.name}.{HOST}")  # rpdcp appends the client's host name
    (run / "benchmark_config.yaml").write_text(
        "cluster:\n  benchmark: librbdfio\n  iteration: 0\n  mode: randwrite\n  op_size: 4096\n  iodepth: 16\n"
        "  vol_size: 10\n  log_avg_msec: 100\n"
    )
    (run / "collectl.client01").mkdir()  # monitoring data CBT also archives: ignored
    return root


def test_archive_directory(archive: Path) -> None:
    assert detect(archive) == "cbt"
    df = load(archive)
    assert tuple(df.columns) == COLUMN_NAMES
    assert set(df["run"]) == {"00000000/id-9b1c0d2e"}
    assert set(df["format"]) == {"fio-json", "fio-log"}
    assert len(df) < MAX_CHART_ROWS
    text = (archive / "results/00000000/id-9b1c0d2e" / f"output.0.{HOST}").read_text()
    raw = json.loads(text[text.index("\n{") + 1 : text.index("\n}\n") + 2])
    summary = df[(df["format"] == "fio-json") & (df["metric"] == "iops") & (df["stat"] == "mean")]
    assert float(summary["value"].iloc[0]) == pytest.approx(raw["jobs"][0]["write"]["iops"])
    logs = df[df["format"] == "fio-log"]
    assert set(logs["metric"]) == {"bandwidth", "iops", "latency", "clat", "slat"}
    assert set(logs["op"]) == {"write"}
    # the permutation's config fills what the logs do not carry
    assert set(logs["workload"]) == {"randwrite"} and set(logs["block_size_bytes"]) == {4096}


def test_archive_tarball(archive: Path, tmp_path: Path) -> None:
    tgz = tmp_path / "cbt-run.tar.gz"
    with tarfile.open(tgz, "w:gz") as tar:
        tar.add(archive, arcname="archive")
    df = load(tgz)
    assert len(df) == len(load(archive))
    assert all(s.startswith(str(tgz)) for s in df["source"])
    bad = tmp_path / "broken.tar.gz"
    bad.write_bytes(tgz.read_bytes()[:200])
    with pytest.raises(FlashtuneError) as e:
        load(bad)
    assert e.value.file == str(bad) and e.value.suggestion


def test_archive_with_a_broken_config(archive: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(archive, copy)
    cfg = copy / "results/00000000/id-9b1c0d2e/benchmark_config.yaml"
    cfg.write_text("cluster:\n  benchmark: [librbdfio\n")
    with pytest.raises(FlashtuneError) as e:
        load(copy)
    assert e.value.file == str(cfg) and e.value.line is not None


def test_archive_of_normal_fio_output(tmp_path: Path) -> None:
    """CBT runs from before fio's JSON (librbdfio writing `fio --output`, the normal text) are read too:
    a fio 2.2.10 normal output from the corpus as output.0.<host> of a CBT run folder."""
    import shutil

    run = tmp_path / "archive" / "results" / "00000001" / "id-0c0ffee0"
    run.mkdir(parents=True)
    src = Path(__file__).parents[1] / "corpus/fio/fio-2.2.10-ec/randwrite-4k.out"
    shutil.copy(src, run / f"output.0.{HOST}")
    (run / "benchmark_config.yaml").write_text(
        "cluster:\n  benchmark: librbdfio\n  iteration: 1\n  mode: randwrite\n  op_size: 4096\n  iodepth: 32\n"
    )
    assert detect(tmp_path / "archive") == "cbt"
    df = load(tmp_path / "archive")
    assert set(df["format"]) == {"fio-normal"} and set(df["run"]) == {"00000001/id-0c0ffee0"}
    iops = df[(df["metric"] == "iops") & (df["stat"] == "mean")]
    assert iops["value"].tolist() == [1962.0]  # `write: io=471028KB, bw=7848.2KB/s, iops=1962`
    assert set(iops["workload"]) == {"randwrite"} and set(iops["iodepth"]) == {32}

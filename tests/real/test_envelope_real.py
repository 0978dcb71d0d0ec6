"""A real fio run, ingested by `flashtune ingest`, compared with a hardware file's ceilings."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from flashtune.cli.main import main


@pytest.mark.fio
def test_real_fio_results_against_the_envelope(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A real fio run, ingested by `flashtune ingest`, compared with a hardware file's ceilings."""
    if shutil.which("fio") is None:
        pytest.fail("fio is not installed: run scripts/install-system-deps.sh")
    out = tmp_path / "fio.json"
    subprocess.run(
        [
            "fio",
            f"--filename={tmp_path / 'data'}",
            "--size=16m",
            "--runtime=1",
            "--time_based=1",
            "--name=rw",
            "--rw=randwrite",
            "--bs=4k",
            "--ioengine=psync",
            "--output-format=json",
            f"--output={out}",
        ],
        check=True,
        capture_output=True,
    )
    csv = tmp_path / "results.csv"
    assert main(["ingest", str(out), "--out", str(csv)]) == 0
    measured = json.loads(out.read_text())["jobs"][0]["write"]["iops"]
    capsys.readouterr()
    assert main(["envelope", "--tier", "tco", "--results", str(csv), "--format", "json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert rec["read_fraction"] == 0.0 and rec["block_size_bytes"] == 4096
    assert rec["measured_IOPS"] == pytest.approx(measured, rel=1e-3)
    assert rec["of_ceiling_pct"] == pytest.approx(100 * measured / rec["predicted_IOPS"], rel=1e-2)
    assert main(["envelope", "--tier", "tco", "--results", str(csv)]) == 0
    assert "% of the" in capsys.readouterr().out

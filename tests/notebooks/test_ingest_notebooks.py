"""Every notebook that overlays the reader's results, run on real outputs from the corpus: the chart must draw
the reader's point at the number read by hand from the raw file (found in the SVG's aria-labels, which
Vega writes for every mark with its field values).

IOzone's notebook (12) overlays throughput-mode runs (`-t`), and the corpus has no real one with a known
source, so tests/notebooks/test_notebooks.py's layout-built output stays its only check; fio's read-ahead notebook (06)
needs a sequential-read job, which test_notebooks.py runs with the real fio.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from test_notebooks import NOTEBOOKS, READER_MARK, outputs, run

CORPUS = Path(__file__).parents[1] / "corpus"


def _ior_mean_ops(path: Path) -> float:
    text = path.read_text()
    head, row = re.search(r"^Summary of all tests:\n(Operation.*)\n(write.*)$", text, re.M).groups()  # type: ignore[union-attr]
    return float(row.split()[head.split().index("Mean(OPs)")])


def _fio_iops(path: Path) -> float:
    job = json.loads(path.read_text())["jobs"][0]
    return float(next(job[d]["iops"] for d in ("read", "write") if job[d]["total_ios"]))


def _first(pattern: str, path: Path) -> float:
    return float(re.search(pattern, path.read_text(), re.M).group(1))  # type: ignore[union-attr]


def _fio_mb_per_s(path: Path) -> float:
    job = json.loads(path.read_text())["jobs"][0]
    return float(next(job[d]["bw"] for d in ("read", "write") if job[d]["total_ios"])) * 1024 / 1e6


CASES = [
    ("01-", "fio-json/fio-3.14-HPMICROSERVERG8_SATA300_INTELD3S4610_randread-64-2.json", _fio_mb_per_s),
    ("13-", "ior/ior-4.1.0-ior-easy-write-11.txt", lambda p: _ior_mean_ops(p)),
    ("08-", "fio-json/fio-3.16-SERVER_HIGHPOINT_RAID5_randwrite-1-16.json", lambda p: _fio_iops(p) / 1000),
    ("04-", "fio-json/fio-3.14-HPMICROSERVERG8_SATA300_INTELD3S4610_randread-64-2.json", _fio_iops),
    ("02-", "fio-json/fio-3.1-HPDL380G8-H420i-Crucial-MX200_randread-64-2.json", _fio_iops),
    (
        "09-",
        "sysbench/sysbench-0.5-sysbench-rw-8-5.txt",
        lambda p: _first(r"transactions:\s+\d+\s+\(([\d.]+) per sec", p),
    ),
    (
        "10-",
        "rados-bench/rados-bench-firefly-paranoia_4nodes_16osds_ext4-write.txt",
        lambda p: _first(r"^Bandwidth \(MB/sec\):\s+([\d.]+)", p) / 1024,
    ),
    ("03-", "produced/fio-3.33/rr_iops.1.log", lambda p: float(p.read_text().split(",")[1])),
]


def _reader_numbers(svgs: list[str]) -> list[float]:
    """Numbers in the aria-labels of the reader's marks (labels that name the reader's source)."""
    nums: list[float] = []
    for svg in svgs:
        for label in re.findall(r'aria-label="([^"]*)"', svg):
            if READER_MARK in label:
                nums += [
                    float(x.replace(",", ""))
                    for x in re.findall(r":\s*(-?[\d,]*\.?\d+(?:e[-+]?\d+)?)", label)
                ]
    return nums


@pytest.mark.parametrize(("prefix", "rel", "expected"), CASES, ids=[c[0] + c[1] for c in CASES])
def test_notebook_draws_corpus_value(prefix: str, rel: str, expected: object, tmp_path: Path) -> None:
    src = CORPUS / rel
    want = expected(src)  # type: ignore[operator]
    (path,) = [p for p in NOTEBOOKS if p.name.startswith(prefix)]
    nb, secs = run(path, tmp_path, results=src)
    print(f"\n{path.stem} with {rel}: {secs:.1f} s")
    svgs = outputs(nb, "image/svg+xml")
    nums = _reader_numbers(svgs)
    assert nums, f"{path.stem}: no reader point drawn for {rel}"
    assert any(math.isclose(n, want, rel_tol=2e-3) for n in nums), (
        f"{path.stem}: the reader's point should sit at {want}; labels carry {sorted(set(nums))[:20]}"
    )


def test_recovery_notebook_lists_the_reader_bandwidth(tmp_path: Path) -> None:
    """Notebook 11 has no chart for the reader: it lists the bandwidth rows, which must carry the number."""
    src = CORPUS / "rados-bench/rados-bench-firefly-econome_8nodes_8osds_ext4-seq.txt"
    want = _first(r"^Bandwidth \(MB/sec\):\s+([\d.]+)", src)
    (path,) = [p for p in NOTEBOOKS if p.name.startswith("11-")]
    nb, _secs = run(path, tmp_path, results=src)
    html = "".join(outputs(nb, "text/html"))
    assert "rados-bench" in html and f"{want:g}" in html.replace(",", "")

"""Benchmark: `flashtune ingest` of a CBT archive of many small files, with the cost per file.

    .venv/bin/python bench/bench_ingest_many.py                 # 10,000 files (5,000 runs)
    .venv/bin/python bench/bench_ingest_many.py --files 1000    # quick run

The archive is built from the corpus's real CBT run (tests/corpus/cbt/cbt-2025-librbdfio: a
benchmark_config.yaml and fio's json_output.0 per run), copied into N/2 runs of two files each (the worst
case for per-file cost: every second file is a config to parse). In the same run, as the baseline, a child
process reads every file's bytes and decodes the JSON ones with the json module (the least any reader
pays); flashtune ingest then runs as `python -m flashtune.cli.main ingest ARCHIVE` in a child. Both report
wall and CPU seconds (user + system, from the child's own rusage). Goal: 10,000 files in under 60 s of CPU
(the machine's load stretches wall time; CPU is what the work costs), i.e. under 6 ms a file.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUN = REPO / "tests" / "corpus" / "cbt" / "cbt-2025-librbdfio" / "results" / "00000000" / "id-af9a4715"
GOAL_MS_PER_FILE = 6.0
BASELINE = """
import json, os, sys
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        with open(os.path.join(root, name), "rb") as f:
            data = f.read()
        if name.startswith("json_output"):
            json.loads(data)
"""


def build(root: Path, files: int) -> int:
    config = (RUN / "benchmark_config.yaml").read_bytes()
    fio = next(RUN.rglob("json_output.0"))
    sub = fio.parent.relative_to(RUN)
    data = fio.read_bytes()
    for i in range(files // 2):
        run = root / "results" / f"{i // 500:08d}" / f"id-{i:08x}"
        (run / sub).mkdir(parents=True)
        (run / "benchmark_config.yaml").write_bytes(config)
        (run / sub / "json_output.0").write_bytes(data)
    return sum(len(f) for _, _, f in os.walk(root))


def child_cpu(cmd: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of one child (RUSAGE_CHILDREN before and after: only this child ran)."""
    import resource

    env = {**os.environ, "PYTHONPATH": str(REPO / "compiler"), "OPENBLAS_NUM_THREADS": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{cmd} failed ({p.returncode}): {p.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10_000)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="flashtune-bench-many-"))
    try:
        archive = work / "archive"
        n = build(archive, args.files)
        base_wall, base_cpu, _ = child_cpu([sys.executable, "-c", BASELINE, str(archive)])
        wall, cpu, out = child_cpu([sys.executable, "-m", "flashtune.cli.main", "ingest", str(archive)])
        per_file = 1000 * cpu / n
        print(f"{n:,} files in one CBT archive ({n // 2:,} runs)")
        print(
            f"baseline (read every file, json.loads the fio reports): {base_wall:.1f} s wall, {base_cpu:.1f} s CPU"
        )
        print(f"flashtune ingest: {wall:.1f} s wall, {cpu:.1f} s CPU = {per_file:.2f} ms CPU a file")
        print(
            f"ratio ingest / baseline CPU: {cpu / base_cpu:.1f}x; load average now {os.getloadavg()[0]:.1f}"
        )
        print(out.strip().splitlines()[-1])
        ok = per_file <= GOAL_MS_PER_FILE
        print(
            f"goal: <= {GOAL_MS_PER_FILE} ms CPU a file (10,000 files < 60 s): {'met' if ok else 'NOT met'}"
        )
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

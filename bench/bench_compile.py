"""Benchmark compile-config start-up and the full matrix.

    .venv/bin/python bench/bench_compile.py [--runs N] [--json]

Measures in the same run and environment:
- bare `python -c pass` wall time (the interpreter's own start-up),
- cold `compile-config --tier iops --workload mysql` (a new process each time, writing to a fresh folder;
  "cold" = no warm Python process; the parsed-YAML cache in ~/.cache/flashtune is what a user has after
  the first run and is left as is. --no-cache runs each compile with FLASHTUNE_CACHE_DIR=off),
- the ratio of the medians (goal <= 3x),
- the full matrix: every tier x workload x release compiled in one process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def wall(cmd: list[str], env: dict[str, str] | None = None) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-cache", action="store_true", help="disable the parsed-YAML cache")
    args = ap.parse_args()
    env = dict(os.environ)
    # Measure what a user gets: Python's bytecode cache on (some sandboxes and CI set this variable,
    # which makes every run re-compile flashtune's sources and is not a user's default).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.no_cache:
        env["FLASHTUNE_CACHE_DIR"] = "off"
    with tempfile.TemporaryDirectory(prefix="flashtune-bench-") as tmp:
        compile_cmd = [str(BIN / "compile-config"), "--tier", "iops", "--workload", "mysql", "--force"]
        wall([*compile_cmd, "--out", f"{tmp}/warmup"], env)  # fills the YAML cache like any first run
        bare, comp = [], []
        for i in range(args.runs):  # interleaved, so background load hits both alike
            bare.append(wall([sys.executable, "-c", "pass"], env))
            comp.append(wall([*compile_cmd, "--out", f"{tmp}/run{i}"], env))
    t0 = time.perf_counter()
    code = ("from flashtune.compile import CompileRequest, compile_bundle\n"
            "from flashtune.compile.hardware import tier_names\n"
            "from flashtune.compile.pipeline import WORKLOADS\n"
            "from flashtune.releases import SUPPORTED_CEPH_RELEASES as R\n"
            "n = 0\n"
            "for r in R:\n"
            "    if r == 'jewel':\n"
            "        compile_bundle(CompileRequest(workload='mysql', tier='iops', ceph_release=r)); n += 1; continue\n"
            "    for t in tier_names():\n"
            "        for w in WORKLOADS:\n"
            "            compile_bundle(CompileRequest(workload=w, tier=t, ceph_release=r)); n += 1\n"
            "print(n)\n")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env)
    matrix_s = time.perf_counter() - t0
    result = {
        "runs": args.runs,
        "python_pass_median_s": round(statistics.median(bare), 4),
        "compile_config_median_s": round(statistics.median(comp), 4),
        "ratio": round(statistics.median(comp) / statistics.median(bare), 1),
        "goal_ratio": 3.0,
        "matrix_bundles": int(out.stdout.strip()),
        "matrix_s": round(matrix_s, 2),
        "yaml_cache": "off" if args.no_cache else "on",
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for k, v in result.items():
            print(f"{k:26} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

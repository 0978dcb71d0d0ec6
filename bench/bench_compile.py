"""Benchmark compile-config start-up and the full matrix.

    .venv/bin/python bench/bench_compile.py [--runs N] [--json]

Measures in the same run and environment:
- bare `python -c pass` (the interpreter's own start-up),
- cold `compile-config --tier iops --workload mysql` (a new process each time, writing to a fresh folder;
  it reads the data snapshot flashtune/_data, JSON: no YAML parser, no cache outside the package),
- the ratio of the medians, of wall time and of CPU time (user + system of the child: steadier than wall
  time on a shared machine), against the goal of 5x (issue 12 item 7: the goal is the wall-time ratio; the
  CPU and instruction ratios say whether a miss is the machine's load or the code),
- the full matrix: every tier x workload x release compiled in one process,
- with --instructions (needs valgrind): the ratio of instructions executed (callgrind, one run of each),
  which a loaded machine does not disturb.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
GOAL_RATIO = 5.0  # cold compile-config / python -c pass, same venv, same run


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def instructions(cmd: list[str], env: dict[str, str]) -> int:
    """Instructions one run of cmd executes, counted by valgrind's callgrind."""
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    r = subprocess.run([*valgrind, *cmd], check=True, capture_output=True, text=True, env=env)
    return int(r.stderr.split("Collected :")[1].split()[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--instructions", action="store_true", help="also count instructions (valgrind)")
    args = ap.parse_args()
    env = dict(os.environ)
    # Measure what a user gets: Python's bytecode cache on (some sandboxes and CI set this variable,
    # which makes every run re-compile flashtune's sources and is not a user's default).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="flashtune-bench-") as tmp:
        compile_cmd = [str(BIN / "compile-config"), "--tier", "iops", "--workload", "mysql"]
        timed([*compile_cmd, "--out", f"{tmp}/warmup"], env)  # bytecode written
        bare, comp = [], []
        for i in range(args.runs):  # interleaved, so background load hits both alike
            bare.append(timed([sys.executable, "-c", "pass"], env))
            comp.append(timed([*compile_cmd, "--out", f"{tmp}/run{i}"], env))
        counted = None
        if args.instructions:
            bare_ir = instructions([sys.executable, "-c", "pass"], env)
            counted = bare_ir, instructions([*compile_cmd, "--out", f"{tmp}/ir"], env)
    t0 = time.perf_counter()
    code = (
        "from flashtune.compile import CompileRequest, compile_bundle\n"
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
        "print(n)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env)
    matrix_s = time.perf_counter() - t0
    med = {name: statistics.median(x[0] for x in runs) for name, runs in (("bare", bare), ("comp", comp))}
    cpu = {name: statistics.median(x[1] for x in runs) for name, runs in (("bare", bare), ("comp", comp))}
    result = {
        "runs": args.runs,
        "python_pass_median_s": round(med["bare"], 4),
        "compile_config_median_s": round(med["comp"], 4),
        "ratio": round(med["comp"] / med["bare"], 1),
        "python_pass_cpu_median_s": round(cpu["bare"], 4),
        "compile_config_cpu_median_s": round(cpu["comp"], 4),
        "cpu_ratio": round(cpu["comp"] / cpu["bare"], 1),
        "goal_ratio": GOAL_RATIO,
        "goal": "met" if med["comp"] / med["bare"] <= GOAL_RATIO else "not met",
        "cpu_goal": "met" if cpu["comp"] / cpu["bare"] <= GOAL_RATIO else "not met",
        **(
            {
                "python_pass_instructions": counted[0],
                "compile_config_instructions": counted[1],
                "instruction_ratio": round(counted[1] / counted[0], 1),
                "instruction_goal": "met" if counted[1] / counted[0] <= GOAL_RATIO else "not met",
            }
            if counted
            else {}
        ),
        "matrix_bundles": int(out.stdout.strip()),
        "matrix_s": round(matrix_s, 2),
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for k, v in result.items():
            print(f"{k:26} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark a fleet plan: 1,000 hosts in host groups against compiling one host, in the same run.

    .venv/bin/python bench/bench_fleet.py [--runs N] [--hosts N] [--kinds N] [--json]

Both are whole `compile-config` processes writing a fresh folder (what a user waits for):
- baseline: `compile-config --hardware one-host.yaml --workload block` (one kind of hardware, one host),
- fleet: `compile-config --fleet fleet.yaml --workload block` with --hosts hosts spread over --kinds kinds of
  hardware (the three shipped tiers with different RAM sizes, so hosts of one device class differ and the plan
  needs class and host masks), writing the central config, cephadm specs, Rook snippet, pools.sh and one set of
  OS drop-ins per group.
The ratio of the medians is the figure to watch (goal: a plan for 1,000 hosts in a few seconds).
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
TIERS = Path(__file__).resolve().parents[1] / "data" / "tiers"


def wall(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    return time.perf_counter() - t0


def write_fleet(root: Path, hosts: int, kinds: int) -> tuple[Path, Path]:
    """kinds hardware files (tier x RAM variants) sharing `hosts` hosts; returns (fleet file, one host file)."""
    tiers = ["iops", "tco", "standard"]
    groups = []
    per = hosts // kinds
    for k in range(kinds):
        tier = tiers[k % len(tiers)]
        text = (TIERS / f"{tier}.yaml").read_text()
        ram = {"iops": 128, "tco": 128, "standard": 64}[tier]
        variant = text.replace(f"ram_gib: {ram}", f"ram_gib: {ram + 32 * (k // len(tiers))}")
        (root / f"hw{k}.yaml").write_text(variant)
        n = per if k < kinds - 1 else hosts - per * (kinds - 1)
        groups.append(f"  - {{name: g{k}, hardware: hw{k}.yaml, hosts: 'g{k}n[0001-{n:04d}]'}}\n")
    fleet = root / "fleet.yaml"
    fleet.write_text("groups:\n" + "".join(groups))
    return fleet, root / "hw0.yaml"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--kinds", type=int, default=9)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # what a user has: the bytecode cache on
    with tempfile.TemporaryDirectory(prefix="flashtune-bench-fleet-") as tmp:
        root = Path(tmp)
        fleet, one = write_fleet(root, args.hosts, args.kinds)
        base = [str(BIN / "compile-config"), "--workload", "block", "--ceph-release", "pacific", "--force"]
        single_cmd = [*base, "--hardware", str(one)]
        fleet_cmd = [*base, "--fleet", str(fleet)]
        wall([*single_cmd, "--out", f"{tmp}/warm1"], env)  # fill the parsed-YAML cache like any first run
        wall([*fleet_cmd, "--out", f"{tmp}/warm2"], env)
        single, plan = [], []
        for i in range(args.runs):  # interleaved, so background load hits both alike
            single.append(wall([*single_cmd, "--out", f"{tmp}/s{i}"], env))
            plan.append(wall([*fleet_cmd, "--out", f"{tmp}/f{i}"], env))
        script = (root / "f0" / "ceph-config.sh").read_text().splitlines()
        entries = [x for x in script if x.startswith("ceph config set")]
        masks = {"class": sum("/class:" in x for x in entries), "host": sum("/host:" in x for x in entries)}
        files = sum(1 for p in (root / "f0").rglob("*") if p.is_file())
    out = {
        "hosts": args.hosts,
        "kinds": args.kinds,
        "runs": args.runs,
        "single_host_s": round(statistics.median(single), 3),
        "fleet_s": round(statistics.median(plan), 3),
        "ratio": round(statistics.median(plan) / statistics.median(single), 2),
        "config_set_lines": len(entries),
        "masked": masks,
        "files_written": files,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for k, v in out.items():
            print(f"{k:>18}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: lint a generated N-line ceph.conf (default 100,000) and compare with real ceph-conf reading it.

Prints lines/s for parse only and for parse + lint, and the ratio of our time to `ceph-conf -c FILE -L`
(which parses the whole file, then lists its sections) measured in the same run. Goal (issue 5): at least
50,000 lines/s and no worse than 5x ceph-conf.
Run: .venv/bin/python bench/bench_lint.py [--lines N] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from flashtune.lint import lint_text
from flashtune.lint.ruledata import ceph_option_names
from flashtune.parse import parse_text


def generate(lines: int, seed: int = 5) -> str:
    """A ceph.conf of many [osd.N] sections with real option names, comments and some spaced keys."""
    rng = random.Random(seed)
    names = sorted(ceph_option_names("tentacle") or ())
    out = ["# generated for bench_lint.py\n", "[global]\n", "fsid = 35b08d01-b688-4b9a-947b-bc2e25719370\n"]
    osd = 0
    while len(out) < lines:
        out.append(f"[osd.{osd}]\n")
        osd += 1
        for key in rng.sample(names, 48):
            if len(out) >= lines:
                break
            r = rng.random()
            if r < 0.05:
                out.append(f"; note about {key}\n")
            elif r < 0.15:
                out.append(f"{key.replace('_', ' ')} = {rng.randint(0, 100)}  # spaced key\n")
            else:
                out.append(f"{key} = {rng.randint(0, 100)}\n")
    return "".join(out[:lines])


def best_of(repeat: int, fn: object) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    text = generate(args.lines)
    n = text.count("\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.conf"
        path.write_text(text)
        env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS")}

        def ceph_conf() -> None:
            r = subprocess.run(["ceph-conf", "-c", str(path), "-L"], capture_output=True, text=True, env=env)
            if r.returncode != 0 or "parse error" in r.stderr:
                raise SystemExit(f"ceph-conf failed on the generated file: {r.stderr}")

        lint_text("[osd]\nosd_max_backfills = 1\n", "ceph.conf")  # load catalog and name lists once
        t_parse = best_of(args.repeat, lambda: parse_text(text, "ceph.conf"))
        findings: list[object] = []
        t_lint = best_of(
            args.repeat, lambda: findings.extend(lint_text(text, "ceph.conf", filename=str(path)))
        )
        t_ceph = best_of(args.repeat, ceph_conf)
    print(f"lines: {n}")
    print(f"parse only:   {t_parse:.3f} s  {n / t_parse:,.0f} lines/s")
    print(
        f"parse + lint: {t_lint:.3f} s  {n / t_lint:,.0f} lines/s  ({len(findings) // args.repeat} findings)"
    )
    print(f"ceph-conf -L: {t_ceph:.3f} s  {n / t_ceph:,.0f} lines/s (includes process start)")
    print(f"ratio lint / ceph-conf: {t_lint / t_ceph:.2f}x   (goal: >= 50,000 lines/s and <= 5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

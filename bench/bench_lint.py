"""Benchmark: lint generated N-line ceph.conf files (default 100,000 lines) and compare with real ceph-conf
reading the same file in the same run.

Three contents, so there is no cliff for any of them (issue 15): all-known (real option names), all-unknown
(every key a distinct name Ceph does not have: each one asks for a did-you-mean), all-duplicate (one key set
again and again). For each: lines/s for parse + lint, and the ratio of our time to `ceph-conf -c FILE -L` (which
parses the whole file, then lists its sections). Goal: at least 50,000 lines/s on every content.
Run: .venv/bin/python bench/bench_lint.py [--lines N] [--repeat R] [--content known,unknown,duplicate]
"""

from __future__ import annotations

import argparse
import os
import random
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from flashtune.catalog.names import ceph_option_names
from flashtune.lint import lint_text
from flashtune.lint.suggest import clear_caches
from flashtune.parse import parse_text

CONTENTS = ("known", "unknown", "duplicate")
GOAL_LINES_PER_S = 50_000


def generate(lines: int, seed: int = 5, content: str = "known") -> str:
    """A ceph.conf of many [osd.N] sections: real option names (known), distinct made-up names (unknown), or
    one option repeated (duplicate); with comments and some spaced keys."""
    rng = random.Random(seed)
    names = sorted(ceph_option_names("tentacle") or ())
    out = ["# generated for bench_lint.py\n", "[global]\n", "fsid = 35b08d01-b688-4b9a-947b-bc2e25719370\n"]
    osd = 0
    serial = 0
    while len(out) < lines:
        out.append(f"[osd.{osd}]\n")
        osd += 1
        for key in rng.sample(names, 48):
            if len(out) >= lines:
                break
            if content == "unknown":
                serial += 1
                word = "".join(rng.choice(string.ascii_lowercase) for _ in range(6))
                key = f"{key}_{word}{serial}"
            elif content == "duplicate":
                key = "osd_max_backfills"
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


def run_one(text: str, repeat: int, content: str) -> tuple[float, float, float, int]:
    """(parse s, parse + lint s, ceph-conf s, findings) for one file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.conf"
        path.write_text(text)
        env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS")}

        def ceph_conf() -> None:
            r = subprocess.run(["ceph-conf", "-c", str(path), "-L"], capture_output=True, text=True, env=env)
            if r.returncode != 0 or "parse error" in r.stderr:
                raise SystemExit(f"ceph-conf failed on the generated file: {r.stderr}")

        t_parse = best_of(repeat, lambda: parse_text(text, "ceph.conf"))
        found: list[int] = []

        def lint() -> None:
            clear_caches()  # cold did-you-mean answers every time: the first run is what a user waits for
            found.append(len(lint_text(text, "ceph.conf", filename=str(path))))

        t_lint = best_of(repeat, lint)
        t_ceph = best_of(repeat, ceph_conf)
    return t_parse, t_lint, t_ceph, found[-1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--content", default=",".join(CONTENTS))
    args = ap.parse_args(argv)
    lint_text(
        "[osd]\nosd_max_backfills = 1\nosd_max_backfill = 1\n", "ceph.conf"
    )  # load catalog, lists, index
    worst = float("inf")
    for content in args.content.split(","):
        text = generate(args.lines, content=content)
        n = text.count("\n")
        t_parse, t_lint, t_ceph, found = run_one(text, args.repeat, content)
        rate = n / t_lint
        worst = min(worst, rate)
        print(
            f"{content:>9}: {n} lines  parse {t_parse:.3f} s  parse+lint {t_lint:.3f} s  {rate:,.0f} lines/s  "
            f"({found} findings)  ceph-conf -L {t_ceph:.3f} s  ratio lint/ceph-conf {t_lint / t_ceph:.2f}x"
        )
    print(f"slowest content: {worst:,.0f} lines/s (goal: >= {GOAL_LINES_PER_S:,} on every content)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Extract the configs printed in the seed wiki page verbatim into tests/fixtures/seed-configs/.

The seed text interleaves redmine rows ("<line> <version> <author>") with the page's lines; each row is
followed by that wiki line's text, or directly by the next row when the line is empty. We rebuild the
wiki lines, then cut each config between the headings that surround it in the page. Typos and odd
indentation are kept on purpose: they are what the linter must find. (Seed 001 is version 6 of the same
page with older formatting; the configs come from version 14, seed 000.)
Run: python scripts/extract_seed_configs.py SEEDS_DIR      (the folder of seed documents)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "seed-configs"
ROW = re.compile(r"^(\d+) (\d+) Patrick McGarry$")

# (file name, start marker: the wiki line before the config, end marker: the wiki line after it;
#  'after' skips to the first occurrence of a line that precedes the start marker)
BLOCKS = (
    ("000-kernel-sysctl.conf", "# Modify system control in /etc/sysctl.conf", "</pre>", None),
    ("000-sample-ceph.conf", "Sample Ceph.conf ", "Sample sysctl.conf ", "Appendix"),
    (
        "000-sample-sysctl.conf",
        "Sample sysctl.conf ",
        "All-NVMe Ceph Cluster Tuning for MySQL workload",
        "Appendix",
    ),
    ("000-mysql-ceph.conf", "Ceph.conf ", "CBT YAML", "All-NVMe Ceph Cluster Tuning for MySQL workload"),
    (
        "000-cbt.yaml",
        "CBT YAML",
        "MySQL configuration file (my.cnf)",
        "All-NVMe Ceph Cluster Tuning for MySQL workload",
    ),
    ("000-my.cnf", "MySQL configuration file (my.cnf)", "Sample Ceph Vendor Solutions", "CBT YAML"),
)


def wiki_lines(text: str) -> list[str]:
    lines: list[str] = []
    current: str | None = None
    for raw in text.split("\n"):
        if ROW.match(raw):
            if current is not None:
                lines.append(current)
            current = ""
        elif current is not None:
            current = raw if current == "" else current + "\n" + raw
    if current is not None:
        lines.append(current)
    return lines


def cut(lines: list[str], start: str, end: str, after: str | None) -> list[str]:
    i = lines.index(after) if after else 0
    i = lines.index(start, i) + 1
    if start == "# Modify system control in /etc/sysctl.conf":
        i = lines.index("<pre>", i) + 1
    j = lines.index(end, i)
    block = lines[i:j]
    while block and not block[0].strip():
        block.pop(0)
    while block and not block[-1].strip():
        block.pop()
    return block


def extract(path: Path) -> dict[str, str]:
    lines = wiki_lines(path.read_text(encoding="utf-8"))
    return {name: "\n".join(cut(lines, s, e, a)) + "\n" for name, s, e, a in BLOCKS}


def main() -> int:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    seeds = Path(sys.argv[1])
    v14 = extract(seeds / "000_9cb515bbecf4ebcc.txt")
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in v14.items():
        (OUT / name).write_text(text, encoding="utf-8")
        print(f"{OUT / name}: {text.count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())

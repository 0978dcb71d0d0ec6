"""lint-config: check existing ceph.conf, sysctl.conf, my.cnf and CBT YAML files against the knob catalog."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from flashtune.cli.common import Parser, guarded
from flashtune.fileio import read_text


def build_parser() -> Parser:
    p = Parser(prog="lint-config", description=__doc__)
    p.add_argument("files", nargs="+", metavar="FILE")
    return p


@guarded
def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for f in args.files:
        read_text(f)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())

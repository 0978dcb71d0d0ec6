"""flashtune: umbrella command (knob look-up, ingest, ...)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from flashtune import __version__
from flashtune.cli import envelope, ingest, knob, prove
from flashtune.cli.common import Parser, guarded


def build_parser() -> Parser:
    p = Parser(prog="flashtune", description=__doc__)
    p.add_argument("--version", action="version", version=f"flashtune {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    envelope.add_parser(sub)
    ingest.add_parser(sub)
    knob.add_parser(sub)
    prove.add_parser(sub)
    return p


@guarded
def run(argv: Sequence[str] | None = None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    if args.command is None:
        p.print_help()
        return 2
    if args.command == "ingest":
        return ingest.run(args)
    if args.command == "knob":
        return knob.run(args)
    if args.command == "envelope":
        return envelope.run(args)
    if args.command == "prove":
        return prove.run(args)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())

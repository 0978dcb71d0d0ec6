"""`flashtune knob NAME`: print a knob's card, or suggest names for an unknown one (exit 2)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from flashtune import datapackage
from flashtune.catalog import load_catalog
from flashtune.catalog.card import card_dict, render_card
from flashtune.catalog.knob import DOMAINS, Knob
from flashtune.errors import UsageError


def add_parser(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "knob",
        help="show what the catalog knows about a knob (type, defaults, safety, ...)",
        description=__doc__,
    )
    p.add_argument("name", metavar="NAME", help="knob name as written in ceph.conf, my.cnf, sysctl.conf, ...")
    p.add_argument("--domain", choices=DOMAINS, help="look only in this domain")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(handler=run)


def _evidence(knob: Knob) -> dict[str, dict[str, str] | None]:
    if not knob.evidence:
        return {}
    return {ref: datapackage.resolve(ref) for ref in knob.evidence}


def run(args: argparse.Namespace) -> int:
    catalog = load_catalog()
    knob = catalog.resolve(args.name, args.domain)
    if knob is None:
        close = catalog.suggest(args.name, args.domain)
        hint = (
            f"did you mean {' or '.join(repr(c) for c in close)}?"
            if close
            else ("no similar name; run 'flashtune knob --help'")
        )
        raise UsageError(f"no knob named {args.name!r} in the catalog", suggestion=hint)
    rows = _evidence(knob)
    if args.format == "json":
        json.dump(card_dict(knob, rows), sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_card(knob, rows))
    return 0

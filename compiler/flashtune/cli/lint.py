"""lint-config: check ceph.conf, sysctl.conf, my.cnf and CBT YAML files against the knob catalog.

Exit status: 0 no error-level findings, 1 error-level findings, 2 usage error or unreadable input.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from flashtune.cli.common import Parser, guarded
from flashtune.errors import FlashtuneError
from flashtune.lint import Finding, lint_file
from flashtune.parse import KINDS
from flashtune.releases import CEPH_RELEASES, DEFAULT_CEPH_RELEASE, DEFAULT_MYSQL_FLAVOUR, MYSQL_FLAVOURS


def build_parser() -> Parser:
    p = Parser(prog="lint-config", description=__doc__)
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--kind", choices=KINDS, help="file kind (default: detected from name and content)")
    p.add_argument("--ceph-release", default=DEFAULT_CEPH_RELEASE, choices=CEPH_RELEASES)
    p.add_argument("--mysql", dest="mysql_flavour", default=DEFAULT_MYSQL_FLAVOUR, choices=MYSQL_FLAVOURS)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--ram", metavar="GiB", type=float, help="RAM of the target machine (innodb buffer pool check)"
    )
    p.add_argument("--failure-domains", type=int, metavar="N", help="hosts (or racks) for the EC width check")
    return p


@guarded
def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    context: dict[str, object] = {}
    if args.ram:
        context["ram_bytes"] = int(args.ram * (1 << 30))
    if args.failure_domains:
        context["failure_domains"] = args.failure_domains
    findings: list[Finding] = []
    unreadable: list[FlashtuneError] = []
    for f in args.files:
        try:
            findings += lint_file(f, args.kind, ceph_release=args.ceph_release, mysql_flavour=args.mysql_flavour,
                                  context=context)  # fmt: skip
        except FlashtuneError as err:
            unreadable.append(err)
    if args.format == "json":
        items = [f.as_dict() for f in findings]
        items += [{"file": u.file, "line": u.line or 0, "column": u.column or 0, "severity": "error",
                   "code": "FT002", "name": "unreadable-input", "key": "", "message": u.message,
                   "suggestion": u.suggestion or ""} for u in unreadable]  # fmt: skip
        print(json.dumps(items, indent=2))
    else:
        for finding in findings:
            print(finding.render())
        for u in unreadable:
            print(str(u), file=sys.stderr)
        errors = sum(1 for f in findings if f.severity == "error")
        warnings = sum(1 for f in findings if f.severity == "warning")
        if findings:
            print(f"{errors} error(s), {warnings} warning(s) in {len(args.files)} file(s)", file=sys.stderr)
    if unreadable:
        return 2
    return 1 if any(f.severity == "error" for f in findings) else 0


def main(argv: Sequence[str] | None = None) -> int:
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())

"""lint-config: check ceph.conf, sysctl.conf, my.cnf, CBT YAML and `ceph config dump/show --format json` files
against the knob catalog.

Without --kind each file's kind is detected from its content (then its name); a note (FT003) says when
that was needed. Exit status: 0 no error-level findings, 1 error-level findings, 2 usage error or unreadable input.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from flashtune import __version__
from flashtune.cli.common import Parser, guarded
from flashtune.errors import FlashtuneError
from flashtune.fileio import STDIN, read_stdin
from flashtune.lint import Finding, lint_file, report
from flashtune.parse import KINDS
from flashtune.releases import CEPH_RELEASES, DEFAULT_CEPH_RELEASE, MYSQL_FLAVOURS

FORMATS = ("text", "json", "sarif", "github")


def build_parser() -> Parser:
    p = Parser(prog="lint-config", description=__doc__)
    p.add_argument("--version", action="version", version=f"lint-config {__version__}")
    p.add_argument("files", nargs="+", metavar="FILE", help="config files; - reads standard input")
    p.add_argument("--kind", choices=KINDS, help="file kind (default: detected from content, then name)")
    p.add_argument("--ceph-release", default=DEFAULT_CEPH_RELEASE, choices=CEPH_RELEASES)
    p.add_argument(
        "--mysql",
        dest="mysql_flavour",
        default=None,
        choices=MYSQL_FLAVOURS,
        help="MySQL flavour (default: mariadb-10.11, or mysql-8.0 for files using MySQL-only options)",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text (repeated findings grouped), json, sarif (GitHub code scanning), github (annotations)",
    )
    p.add_argument("--no-group", action="store_true", help="text: one entry per finding, even when repeated")
    p.add_argument(
        "--ram", metavar="GiB", type=float, help="RAM of the target machine (innodb buffer pool check)"
    )
    p.add_argument("--failure-domains", type=int, metavar="N", help="hosts (or racks) for the EC width check")
    p.add_argument(
        "--osd-memory-target",
        metavar="GiB",
        type=float,
        help="the OSDs' osd_memory_target (CBT plans: is the data set twice the OSDs' cache? default Ceph's 4)",
    )
    p.add_argument(
        "--gateways",
        metavar="N",
        type=int,
        help="radosgw daemons the cluster runs (CBT plans: does the S3 benchmark drive every gateway?)",
    )
    # facts the catalog's dependency rules (FT401/FT402) need but a file cannot tell
    p.add_argument(
        "--tuned-profile",
        metavar="NAME",
        help="tuned profile the hosts run (or include), e.g. "
        "latency-performance: reports sysctl lines it already sets",
    )
    p.add_argument("--sockets", type=int, metavar="N", help="CPU sockets (NUMA nodes) per host")
    p.add_argument(
        "--kernel-clients",
        action="store_true",
        help="clients use the kernel RBD/CephFS drivers, which ignore ceph.conf [client] settings",
    )
    p.add_argument(
        "--existing-cluster",
        action="store_true",
        help="the file is for a running cluster: report options only read when pools are created",
    )
    return p


def lint_paths(
    files: Sequence[str],
    kind: str | None,
    *,
    ceph_release: str,
    mysql_flavour: str | None,
    context: dict[str, object],
) -> list[Finding]:
    """Every finding for every file; an unreadable file is an FT002 finding (and the others are still linted)."""
    findings: list[Finding] = []
    for f in files:
        try:
            text = None
            if f == "-":  # standard input (a file named - is ./-)
                f, text = STDIN, read_stdin()
            findings += lint_file(
                f, kind, ceph_release=ceph_release, mysql_flavour=mysql_flavour, context=context, text=text
            )
        except FlashtuneError as err:
            findings.append(
                Finding(
                    err.file or f,
                    err.line or 1,
                    err.column or 1,
                    "error",
                    "FT002",
                    "",
                    err.message,
                    err.suggestion or "",
                )
            )
    return findings


@guarded
def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    context: dict[str, object] = {}
    if args.ram:
        context["ram_bytes"] = int(args.ram * (1 << 30))
    if args.failure_domains:
        context["failure_domains"] = args.failure_domains
    if args.osd_memory_target:
        context["osd_memory_target"] = int(args.osd_memory_target * (1 << 30))
    if args.gateways:
        context["gateways"] = args.gateways
    facts = {
        "tuned_include": args.tuned_profile,
        "sockets": args.sockets,
        "ceph_clients": "kernel" if args.kernel_clients else None,
        "cluster": "existing" if args.existing_cluster else None,
    }
    context.update({k: v for k, v in facts.items() if v is not None})
    findings = lint_paths(
        args.files,
        args.kind,
        ceph_release=args.ceph_release,
        mysql_flavour=args.mysql_flavour,
        context=context,
    )
    if args.format == "json":
        sys.stdout.write(report.as_json(findings))
    elif args.format == "sarif":
        sys.stdout.write(json.dumps(report.sarif(findings), indent=1) + "\n")
    elif args.format == "github":
        sys.stdout.write(report.github(findings))
    else:
        sys.stdout.write(report.text([f for f in findings if f.code != "FT002"], group=not args.no_group))
        for u in findings:
            if u.code == "FT002":
                print(
                    f"{u.file}: error: {u.message}" + (f"\n  fix: {u.suggestion}" if u.suggestion else ""),
                    file=sys.stderr,
                )
        errors = sum(1 for f in findings if f.severity == "error")
        warnings = sum(1 for f in findings if f.severity == "warning")
        if findings:
            print(f"{errors} error(s), {warnings} warning(s) in {len(args.files)} file(s)", file=sys.stderr)
    if any(f.code == "FT002" for f in findings):
        return 2
    return 1 if any(f.severity == "error" for f in findings) else 0


def main(argv: Sequence[str] | None = None) -> int:
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())

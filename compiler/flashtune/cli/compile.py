"""compile-config: hardware tier x workload x Ceph release -> ceph.conf, sysctl.conf, my.cnf, OS files, CBT YAML,
explain.md and manifest.json (every value with the rule, rationale, evidence and safety behind it)."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from flashtune.cli.common import Parser, guarded
from flashtune.compile import CompileRequest, compile_bundle
from flashtune.compile.hardware import tier_names
from flashtune.compile.pipeline import WORKLOADS
from flashtune.errors import FlashtuneError, UsageError
from flashtune.fileio import write_atomic
from flashtune.releases import (
    DEFAULT_CEPH_RELEASE,
    DEFAULT_MYSQL_FLAVOUR,
    MYSQL_FLAVOURS,
    SUPPORTED_CEPH_RELEASES,
)


def _ec(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*\+\s*(\d+)\s*", text)
    if not m or int(m.group(1)) < 2 or int(m.group(2)) < 1:
        raise UsageError(f"--ec {text!r} is not K+M", suggestion="e.g. --ec 8+2 (k data chunks + m coding chunks)")
    return int(m.group(1)), int(m.group(2))


def build_parser() -> Parser:
    p = Parser(prog="compile-config", description=__doc__)
    hw = p.add_mutually_exclusive_group()
    hw.add_argument("--tier", choices=tier_names(), help="shipped hardware tier (default: iops)")
    hw.add_argument("--hardware", type=Path, metavar="FILE.yaml", help="your own hardware file")
    p.add_argument("--workload", required=True, choices=WORKLOADS)
    p.add_argument("--ceph-release", default=DEFAULT_CEPH_RELEASE, choices=SUPPORTED_CEPH_RELEASES,
                   help=f"target Ceph release (default {DEFAULT_CEPH_RELEASE}; jewel = the 2017 legacy setup)")
    p.add_argument("--mysql", dest="mysql_flavour", default=DEFAULT_MYSQL_FLAVOUR, choices=MYSQL_FLAVOURS,
                   help="database flavour/version for my.cnf (mysql workload)")
    p.add_argument("--nodes", type=int, help="OSD nodes in the cluster (default: the tier's)")
    p.add_argument("--clients", type=int, help="client (load generator / database) nodes (default: the tier's)")
    prot = p.add_mutually_exclusive_group()
    prot.add_argument("--replication", type=int, metavar="N", help="replicated pools of size N (default 3)")
    prot.add_argument("--ec", metavar="K+M", help="erasure-coded data pools, e.g. 8+2")
    p.add_argument("--db-ram-gib", type=float, metavar="GIB",
                   help="RAM of the database host (its own machine) that sizes my.cnf (default: the tier's "
                   "client_ram_gib)")
    p.add_argument("--osds-per-device", type=int, metavar="N",
                   help="OSDs per data device (default: derived from cores per device; 1 on SATA/HDD)")
    p.add_argument("--out", type=Path, help="output folder (default: ./flashtune-<tier>-<workload>-<release>)")
    p.add_argument("--force", action="store_true", help="overwrite files in an existing output folder")
    p.add_argument("--explain", action="store_true", help="also print explain.md after writing")
    p.add_argument("--format", choices=("text", "json"), default="text", help="what to print (default text)")
    p.add_argument("--allow-unsafe", action="append", default=[], metavar="KNOB",
                   help="emit this data-unsafe or insecure knob anyway (repeatable)")  # fmt: skip
    return p  # fmt: skip


@guarded
def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    req = CompileRequest(workload=args.workload, tier=args.tier or "iops", hardware_file=args.hardware,
                         ceph_release=args.ceph_release, mysql_flavour=args.mysql_flavour,
                         allow_unsafe=frozenset(args.allow_unsafe), nodes=args.nodes, clients=args.clients,
                         replication=args.replication, ec=_ec(args.ec) if args.ec else None,
                         db_ram_gib=args.db_ram_gib, osds_per_device=args.osds_per_device)  # fmt: skip
    if args.db_ram_gib is not None and not args.db_ram_gib > 0:
        raise UsageError(f"--db-ram-gib {args.db_ram_gib:g} must be more than 0", suggestion="e.g. --db-ram-gib 64")
    bundle = compile_bundle(req)
    label = args.hardware.stem if args.hardware else req.tier
    out: Path = args.out or Path(f"flashtune-{label}-{req.workload}-{req.ceph_release}")
    clashes = [out / name for name in bundle.files if (out / name).exists()]
    if clashes and not args.force:
        raise FlashtuneError("exists already; refusing to overwrite it", file=str(clashes[0]),
                             suggestion="choose another --out folder or pass --force")  # fmt: skip
    written = []
    for name, text in bundle.files.items():
        write_atomic(out / name, text, force=args.force)
        written.append(str(out / name))
    if args.format == "json":
        print(json.dumps({"out": str(out), "files": written, "manifest": json.loads(bundle.files["manifest.json"])},
                         indent=1))  # fmt: skip
    else:
        print("\n".join(written))
    if args.explain:
        print(bundle.files["explain.md"], file=sys.stdout if args.format == "text" else sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())

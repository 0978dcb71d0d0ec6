"""compile-config: hardware tier x workload x Ceph release -> ceph.conf, sysctl.conf, my.cnf, CBT YAML."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from flashtune.cli.common import Parser, guarded
from flashtune.compile import CompileRequest, compile_bundle
from flashtune.compile.hardware import tier_names
from flashtune.compile.pipeline import WORKLOADS
from flashtune.errors import FlashtuneError
from flashtune.fileio import write_atomic
from flashtune.releases import (
    DEFAULT_CEPH_RELEASE,
    DEFAULT_MYSQL_FLAVOUR,
    MYSQL_FLAVOURS,
    SUPPORTED_CEPH_RELEASES,
)


def build_parser() -> Parser:
    p = Parser(prog="compile-config", description=__doc__)
    hw = p.add_mutually_exclusive_group()
    hw.add_argument("--tier", choices=tier_names(), help="shipped hardware tier (default: iops)")
    hw.add_argument("--hardware", type=Path, metavar="FILE.yaml", help="your own hardware file")
    p.add_argument("--workload", required=True, choices=WORKLOADS)
    p.add_argument("--ceph-release", default=DEFAULT_CEPH_RELEASE, choices=SUPPORTED_CEPH_RELEASES)
    p.add_argument("--mysql", dest="mysql_flavour", default=DEFAULT_MYSQL_FLAVOUR, choices=MYSQL_FLAVOURS)
    p.add_argument(
        "--out", type=Path, help="output folder (default: ./flashtune-<tier>-<workload>-<release>)"
    )
    p.add_argument("--force", action="store_true", help="overwrite files in an existing output folder")
    p.add_argument("--allow-unsafe", action="append", default=[], metavar="KNOB",
                   help="emit this data-unsafe or insecure knob anyway (repeatable)")  # fmt: skip
    return p


@guarded
def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    req = CompileRequest(workload=args.workload, tier=args.tier or "iops", hardware_file=args.hardware,
                         ceph_release=args.ceph_release, mysql_flavour=args.mysql_flavour,
                         allow_unsafe=frozenset(args.allow_unsafe))  # fmt: skip
    bundle = compile_bundle(req)
    label = args.hardware.stem if args.hardware else req.tier
    out: Path = args.out or Path(f"flashtune-{label}-{req.workload}-{req.ceph_release}")
    clashes = [out / name for name in bundle.files if (out / name).exists()]
    if clashes and not args.force:
        raise FlashtuneError("exists already; refusing to overwrite it", file=str(clashes[0]),
                             suggestion="choose another --out folder or pass --force")  # fmt: skip
    for name, text in bundle.files.items():
        write_atomic(out / name, text, force=args.force)
        print(out / name)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())

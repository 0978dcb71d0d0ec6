"""compile-config: hardware tier x workload x Ceph release -> ceph.conf, sysctl.conf, my.cnf, OS files, CBT YAML,
explain.md and manifest.json (every value with the rule, rationale, evidence and safety behind it)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flashtune import __version__
from flashtune.cli.common import Parser, bounded_float, bounded_int, ec_pair, guarded, path_arg
from flashtune.compile import CompileRequest, central, compile_bundle, fleet, plan
from flashtune.compile.pipeline import WORKLOADS
from flashtune.emit import cephcentral
from flashtune.errors import UsageError
from flashtune.fileio import (
    refuse_replacing_inputs,
    write_folder,  # a module attribute: bench probes time it by name
)
from flashtune.hardware import LIMITS, tier_names
from flashtune.model import Bundle, CentralConfig
from flashtune.progress import Progress
from flashtune.releases import (
    DEFAULT_CEPH_RELEASE,
    DEFAULT_MYSQL_FLAVOUR,
    MYSQL_FLAVOURS,
    SUPPORTED_CEPH_RELEASES,
)


def build_parser() -> Parser:
    p = Parser(prog="compile-config", description=__doc__)
    _what_options(p)
    _cluster_options(p)
    _output_options(p)
    return p


def _what_options(p: Parser) -> None:
    """What to compile: the hardware (a tier, a file or a fleet), the workload and the software releases."""
    p.add_argument("--version", action="version", version=f"compile-config {__version__}")
    hw = p.add_mutually_exclusive_group()
    hw.add_argument("--tier", choices=tier_names(), help="shipped hardware tier (default: iops)")
    hw.add_argument(
        "--hardware",
        type=path_arg,
        metavar="FILE.yaml",
        action="append",
        help="your own hardware file; several (each with hosts:) make a fleet plan",
    )
    hw.add_argument(
        "--fleet",
        type=path_arg,
        metavar="FLEET.yaml",
        help="host groups (name, tier or hardware, hosts) compiled into one central-config plan",
    )
    p.add_argument("--workload", required=True, choices=WORKLOADS)
    p.add_argument(
        "--ceph-release",
        default=DEFAULT_CEPH_RELEASE,
        choices=SUPPORTED_CEPH_RELEASES,
        help=f"target Ceph release (default {DEFAULT_CEPH_RELEASE}; jewel = the 2017 legacy setup)",
    )
    p.add_argument(
        "--mysql",
        dest="mysql_flavour",
        default=DEFAULT_MYSQL_FLAVOUR,
        choices=MYSQL_FLAVOURS,
        help="database flavour/version for my.cnf (mysql workload)",
    )


def _cluster_options(p: Parser) -> None:
    """The cluster's shape where it differs from the hardware file: nodes, protection, the database host, OSDs."""
    # --nodes/--clients/--db-ram-gib/--db-vcpus override hardware-file fields: the same bounds as the file's
    p.add_argument(
        "--nodes",
        type=bounded_int(1, int(LIMITS["nodes"])),
        help="OSD nodes in the cluster (default: the tier's)",
    )
    p.add_argument(
        "--clients",
        type=bounded_int(1, int(LIMITS["clients"])),
        help="client (load generator / database) nodes (default: the tier's)",
    )
    prot = p.add_mutually_exclusive_group()
    prot.add_argument(
        "--replication",
        type=bounded_int(1, 10),
        metavar="N",
        help="replicated pools of size N (default 3; 2 needs --allow-unsafe, see the error)",
    )
    prot.add_argument("--ec", metavar="K+M", help="erasure-coded data pools, e.g. 8+2")
    p.add_argument(
        "--db-ram-gib",
        type=bounded_float(1, LIMITS["client_ram_gib"]),
        metavar="GIB",
        help="RAM of the database host (its own machine) that sizes my.cnf (default: the tier's "
        "client_ram_gib)",
    )
    p.add_argument(
        "--db-vcpus",
        type=bounded_int(1, int(LIMITS["client_vcpus"])),
        metavar="N",
        help="logical processors of the database host; MySQL 8.4 sizes its redo log from them (default: the "
        "tier's client_vcpus)",
    )
    p.add_argument(
        "--db-bind-address",
        metavar="ADDR",
        default="127.0.0.1",
        help="address(es) the database listens on, comma-separated (default 127.0.0.1: loopback only)",
    )
    p.add_argument(
        "--osds-per-device",
        type=bounded_int(1, 16),
        metavar="N",
        help="OSDs per data device (default: derived from cores per device; 1 on SATA/HDD)",
    )
    p.add_argument("--encrypted", action="store_true", help="cephadm/Rook OSDs on dm-crypt (default: not)")


def _output_options(p: Parser) -> None:
    """What to write and print: a plan against a live cluster, the folder, the benchmark plans' scale."""
    p.add_argument(
        "--against",
        type=path_arg,
        metavar="FILE",
        help="plan against a live cluster: `ceph config dump --format json` output or a ceph.conf; "
        "writes plan.txt and ceph-config-delta.sh (nothing is applied)",
    )
    p.add_argument(
        "--out", type=path_arg, help="output folder (default: ./flashtune-<tier>-<workload>-<release>)"
    )
    p.add_argument(
        "--bench-scale",
        choices=("full", "smoke"),
        default="full",
        help="CBT plan sizes and durations: full (default), or smoke (seconds and MiB, for a test cluster; "
        "same cases)",
    )
    p.add_argument(
        "--cephfs-client",
        choices=("kernel", "fuse"),
        default="kernel",
        help="scratch: the CephFS client the CBT plans mount with: kernel (default; the faster client, needs "
        "the ceph kernel module) or fuse (ceph-fuse: no kernel module, reads ceph.conf [client], slower)",
    )
    p.add_argument("--force", action="store_true", help="replace an earlier output folder (as a whole)")
    p.add_argument("--explain", action="store_true", help="also print explain.md after writing")
    p.add_argument("--format", choices=("text", "json"), default="text", help="what to print (default text)")
    p.add_argument(
        "--allow-unsafe",
        action="append",
        default=[],
        metavar="KNOB",
        help="emit this data-unsafe or insecure knob anyway (repeatable)",
    )


def _request_options(args: argparse.Namespace) -> dict[str, Any]:
    """The CompileRequest fields one hardware and a fleet take from the command line alike (a fleet writes no
    my.cnf, so --db-bind-address is the single compile's only)."""
    return {
        "mysql_flavour": args.mysql_flavour,
        "allow_unsafe": frozenset(args.allow_unsafe),
        "nodes": args.nodes,
        "clients": args.clients,
        "replication": args.replication,
        "ec": ec_pair(args.ec) if args.ec is not None else None,
        "db_ram_gib": args.db_ram_gib,
        "db_vcpus": args.db_vcpus,
        "osds_per_device": args.osds_per_device,
        "encrypted": args.encrypted,
    }


def _fleet(args: argparse.Namespace) -> tuple[dict[str, str], str, Path]:
    if args.fleet:
        groups = fleet.load_fleet(Path(args.fleet))
    else:
        groups = fleet.groups_from_hardware([Path(p) for p in args.hardware])
    # on a terminal, for fleets that take more than a few seconds: kinds of hardware compiled, then each step
    with Progress("compile-config", "kinds of hardware compiled") as progress:
        f = fleet.compile_fleet(groups, args.workload, args.ceph_release, **_request_options(args))
        label = args.fleet.stem if args.fleet else "fleet"
        inputs = {
            "fleet": str(args.fleet) if args.fleet else ",".join(map(str, args.hardware)),
            "workload": args.workload,
            "ceph_release": args.ceph_release,
            "hosts": f.hosts,
        }
        progress.status(f"{len(groups)} groups, {f.hosts:,} hosts: building the files")
        files = fleet.outputs(f, inputs, encrypted=args.encrypted)
        if args.against:
            progress.status(f"planning against {args.against}")
        report = _plan_files(files, f.config, args.against, inputs) if args.against else ""
    args.read += [str(g.hardware_file) for g in groups if g.hardware_file is not None]
    return files, report, args.out or Path(f"flashtune-{label}-{args.workload}-{args.ceph_release}")


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # every file the run reads: the output may not replace any of them, even with --force
    args.read = [p for p in (*(args.hardware or ()), args.fleet, args.against) if p]
    if args.out is not None:  # refused before compiling, and again when writing
        refuse_replacing_inputs(args.out, args.read)
    if args.fleet or (args.hardware and len(args.hardware) > 1):
        files, report, fleet_out = _fleet(args)
        return _write(args, files, report, fleet_out, None)
    args.hardware = args.hardware[0] if args.hardware else None
    req = CompileRequest(
        workload=args.workload,
        tier=args.tier or "iops",
        hardware_file=args.hardware,
        ceph_release=args.ceph_release,
        db_bind_address=args.db_bind_address,
        bench_scale=args.bench_scale,
        cephfs_client=args.cephfs_client,
        **_request_options(args),
    )
    if req.cephfs_client != "kernel" and req.workload != "scratch":
        raise UsageError(
            f"--cephfs-client {req.cephfs_client} applies to the scratch workload only (its CBT plans mount CephFS)",
            suggestion="drop --cephfs-client, or use --workload scratch",
        )
    if args.db_ram_gib is not None and not args.db_ram_gib > 0:
        raise UsageError(
            f"--db-ram-gib {args.db_ram_gib:g} must be more than 0", suggestion="e.g. --db-ram-gib 64"
        )
    if args.against is not None and req.ceph_release == "jewel":
        raise UsageError(
            "--against plans for the monitors' config database, which Jewel did not have",
            suggestion="compile for a current release (e.g. --ceph-release pacific)",
        )
    bundle = compile_bundle(req)
    report = ""
    if args.against is not None:
        report = against(bundle, args.against)
    label = args.hardware.stem if args.hardware else req.tier
    out: Path = args.out or Path(f"flashtune-{label}-{req.workload}-{req.ceph_release}")
    return _write(args, bundle.files, report, out, bundle.files.get("manifest.json"))


def _write(
    args: argparse.Namespace, files: dict[str, str], report: str, out: Path, manifest: str | None
) -> int:
    written = [str(p) for p in write_folder(out, files, force=args.force, inputs=args.read)]
    if args.format == "json":
        print(
            json.dumps(
                {
                    "out": str(out),
                    "files": written,
                    "manifest": json.loads(manifest) if manifest else None,
                    "plan": report or None,
                },
                indent=1,
            )
        )
    else:
        print("\n".join(written))
        if report:
            print(report, end="")
    if args.explain:
        print(files["explain.md"], file=sys.stdout if args.format == "text" else sys.stderr)
    return 0


def against(bundle: Bundle, path: str) -> str:
    """Add plan.txt and ceph-config-delta.sh (only the changes) to the bundle; return the report."""
    return _plan_files(bundle.files, central.split(bundle.settings), path, bundle.request.echo())


def _plan_files(files: dict[str, str], config: CentralConfig, path: str, inputs: dict[str, Any]) -> str:
    p = plan.diff(config, plan.read_live(path), str(path))
    files["plan.txt"] = plan.render(p)
    files["ceph-config-delta.sh"] = cephcentral.script(
        plan.delta_commands(p),
        {**inputs, "against": str(path)},
        f"Only what differs from {Path(path).name}: run it to reach the compiled state.",
    )
    return files["plan.txt"]


def main(argv: Sequence[str] | None = None) -> int:
    return guarded(run)(argv)


if __name__ == "__main__":
    sys.exit(main())

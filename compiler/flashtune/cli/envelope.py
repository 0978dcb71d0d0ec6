"""`flashtune envelope`: the most a cluster can do per resource, and how close measured results came.

flashtune envelope --tier iops                              # the shipped tier's four standard cases
flashtune envelope --hardware nodes.yaml --ec 8+2           # your hardware, another protection
flashtune envelope --hardware nodes.yaml --results results.csv   # `flashtune ingest` output vs ceilings
flashtune envelope --validation                             # predicted vs every published headline
flashtune envelope --drives                                 # the drive models a hardware file can name
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from flashtune.cli.common import bounded_int, ec_pair, path_arg
from flashtune.envelope import drives, report
from flashtune.envelope.ceilings import Cluster
from flashtune.envelope.cluster import load_cluster, tier_cluster
from flashtune.errors import DataError, UsageError
from flashtune.hardware import LIMITS, tier_names
from flashtune.model import Protection
from flashtune.yamlio import line_of, load_yaml

# The help ends with the note the output prints where a limit names more than one resource (one wording).
EPILOG = textwrap.fill(
    f"The limit is the resource with the lowest ceiling; {report.LIMIT_NOTE}.",
    width=110,
    break_on_hyphens=False,
)
HEADROOM = "headroom (*: estimate, else bound)"  # the text table's column: the other resources' headroom
HELP = (
    "predict a cluster's ceilings (media, network, CPU, per-node ops) and compare measured results with them"
)


def _field(key: str) -> Callable[[str], int]:
    """An argparse type for a flag overriding the hardware file's `key`: the file's bounds, as compile-config's
    flags have them (hardware.LIMITS)."""
    return bounded_int(1, int(LIMITS[key]))


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "envelope",
        help=HELP,
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--hardware",
        metavar="FILE",
        type=path_arg,
        help="hardware file (see data/tiers/*.yaml; optional per-drive "
        f"read_iops/write_iops/read_mb_s/write_mb_s, else those of the model, if {drives.CATALOG} names it; "
        "cpu_ghz, nics role, cluster.client_nic_gbps)",
    )
    src.add_argument("--tier", choices=tier_names(), help="a shipped hardware tier (default: iops)")
    p.add_argument(
        "--nodes", type=_field("nodes"), help="storage nodes (default: the hardware file's cluster.nodes)"
    )
    p.add_argument(
        "--clients",
        type=_field("clients"),
        help="client nodes (default: the hardware file's cluster.clients)",
    )
    prot = p.add_mutually_exclusive_group()
    prot.add_argument(
        "--replication", type=int, metavar="N", help="replica count (default: the file's, else 3)"
    )
    prot.add_argument("--ec", metavar="K+M", help="erasure coding, e.g. 4+2")
    p.add_argument(
        "--results",
        metavar="CSV",
        type=path_arg,
        help="`flashtune ingest --out` CSV: measured / predicted per case",
    )
    p.add_argument(
        "--validation",
        action="store_true",
        help="print predicted vs measured for every published "
        "headline (constants fitted without the headline's own study)",
    )
    p.add_argument(
        "--drives",
        action="store_true",
        help="list the drive catalog: the models a data_devices entry's model: may name, with the "
        "data-sheet figures it then takes",
    )
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text (default): tables and notes; json: every ceiling, a limit's resources as a list",
    )
    p.set_defaults(handler=run)


def _cluster(args: argparse.Namespace) -> Any:
    c = load_cluster(Path(args.hardware)) if args.hardware else tier_cluster(args.tier or "iops")
    for flag in ("nodes", "clients"):
        v = getattr(args, flag)
        if v is not None:
            c = replace(c, **{flag: v})
    if args.replication is not None:
        if args.replication < 1:
            raise UsageError("--replication must be at least 1", suggestion="e.g. --replication 3")
        c = replace(c, protection=Protection("replicated", args.replication))
    if args.ec is not None:  # --ec '' is a K+M to refuse, not an absent flag
        k, m = ec_pair(args.ec)
        c = replace(c, protection=Protection("erasure", 1, k, m))
    _refuse_pool_wider_than_the_osds(c, args)
    return c


def _refuse_pool_wider_than_the_osds(c: Cluster, args: argparse.Namespace) -> None:
    """A pool needs an OSD for each copy (or EC chunk): wider than the cluster has OSDs, CRUSH maps fewer, so
    every placement group stays undersized, and serves no I/O at all where fewer OSDs than min_size hold it
    (PeeringState.cc choose_acting: below min_size a PG goes 'peered, but not active'). There is no ceiling of
    the pool as configured to give (a UsageError where a flag made it so, else a DataError at the hardware
    file's protection line)."""
    p = c.protection
    width = p.k + p.m if p.kind == "erasure" else (p.size if p.kind == "replicated" else 1)
    osds = c.nodes * c.osds_per_node
    if width <= osds:
        return
    what = "chunk" if p.kind == "erasure" else "copy"
    message = (
        f"a pool of {p.label()} needs {width} OSDs, one for each {what} of an object; the cluster has {osds} "
        f"({c.nodes} x {c.osds_per_node} per node): its placement groups would all stay undersized (and "
        "inactive below min_size)"
    )
    fix = f"a pool at most {osds} wide (e.g. --replication {min(3, osds)}), or more nodes or OSDs per node"
    if args.ec is not None or args.replication is not None or args.nodes is not None or not args.hardware:
        raise UsageError(message, suggestion=fix)
    doc = load_yaml(args.hardware)
    cluster = doc.get("cluster") if isinstance(doc, dict) else None
    line = line_of(cluster, "protection") if isinstance(cluster, dict) else None
    raise DataError(message, file=str(args.hardware), line=line or 1, suggestion=fix)


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:,.0f}"


def _print_table(rows: list[dict[str, Any]], cols: list[str]) -> None:
    cells = [[("-" if r.get(c) is None else str(r.get(c))) for c in cols] for r in rows]
    widths = [max(len(c), *(len(x[i]) for x in cells)) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)))
    for x in cells:
        print("  ".join(v.ljust(w) for v, w in zip(x, widths, strict=True)))


def _print_drives(fmt: str) -> None:
    rows = drives.catalog_rows()
    if fmt == "json":
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    figures = ("read_iops", "write_iops", "read_mb_s", "write_mb_s")
    table = [
        {
            "model": r["model"] + (f" ({r['default_for']} default)" if r["default_for"] else ""),
            "type": r["type"],
            **{f: _fmt(r[f]) for f in figures},
            "aliases": ", ".join(r["aliases"]),
        }
        for r in rows
    ]
    _print_table(table, ["model", "type", *figures, "aliases"])
    print(
        "\nA data_devices entry whose model: is one of these names or aliases (case and spaces ignored) takes "
        "these figures unless it gives its own ('default': a shipped tier's drive, its type's defaults); "
        "`--drives --format json` adds each drive's interface and source."
    )


# the flags that describe a cluster or its results: --drives and --validation print data of their own, so one
# of these beside them would be ignored without a word
CLUSTER_FLAGS = ("hardware", "tier", "nodes", "clients", "replication", "ec", "results")


def _refuse_flags_a_listing_ignores(args: argparse.Namespace) -> None:
    modes = [m for m in ("drives", "validation") if getattr(args, m)]
    given = [f"--{f}" for f in CLUSTER_FLAGS if getattr(args, f) is not None]
    if len(modes) > 1 or (modes and given):
        others = [f"--{m}" for m in modes[1:]] + given
        raise UsageError(
            f"--{modes[0]} lists data of its own: {', '.join(others)} would be ignored",
            suggestion=f"run `flashtune envelope --{modes[0]}` alone, or drop --{modes[0]} to see the cluster's "
            "ceilings",
        )


def run(args: argparse.Namespace) -> int:
    _refuse_flags_a_listing_ignores(args)
    if args.drives:
        _print_drives(args.format)
        return 0
    if args.validation:
        rows = report.validation_records()
        if args.format == "json":
            json.dump(rows, sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            _print_table(
                rows,
                [
                    "headline",
                    "measured_MB_s",
                    "predicted_MB_s",
                    "error_pct",
                    "bottleneck_predicted",
                    "bottleneck_stated",
                    "goal_met",
                    "in_study_constants",
                ],
            )
            s = report.validation_summary()
            print()
            for name in ("all", "2014-2017", "2018+"):
                g = s[name]
                print(
                    f"{name}: {g['met']} of {g['headlines']} goal headlines ({100 * g['share']:.0f} %) within "
                    f"+-25 % with the stated bottleneck (goal {100 * s['goal_share']:.0f} %); "
                    f"{g['met_with_limit_in_study']} of them limited by a constant only their own study gives; "
                    f"{g['missed_with_source_conflict']} misses where the source conflicts with its own numbers"
                )
            print(f"note: {report.LIMIT_NOTE}")
            for r in rows:
                if r["missing_fact"]:
                    print(
                        f"\n{r['headline']} ({r['error_pct']:+} %): missing from the source: {r['missing_fact']}"
                    )
                if r["source_conflict"]:
                    print(f"  the source conflicts with itself: {r['source_conflict']}")
        return 0
    cluster = _cluster(args)
    if args.results:
        rows = report.results_records(cluster, Path(args.results))
        if args.format == "json":
            json.dump(rows, sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            for r in rows:
                print(r["sentence"])
            if any(len(r["likely_limit_resources"]) > 1 for r in rows):
                print(f"note: {report.LIMIT_NOTE}")
        return 0
    doc = report.envelope_dict(cluster)
    if args.format == "json":
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{doc['cluster']}: {doc['shape']}")
    for case in doc["cases"]:
        span = case.get("range_IOPS")
        case["validated_range_IOPS"] = f"{span[0]:,}-{span[1]:,}" if span else None
        # the others' headroom with the estimates marked, so a bound's and an estimate's read differently
        head = {r: None if pct is None else pct / 100 for r, pct in case["headroom_pct"].items()}
        case[HEADROOM] = report.headroom_text(head, case["kinds"])
    _print_table(
        doc["cases"],
        [
            "case",
            "predicted_IOPS",
            "predicted_MB_s",
            "limit",
            "limit_kind",
            "validated_range_IOPS",
            HEADROOM,
        ],
    )
    for n in doc["notes"]:
        print(f"note: {n}")
    return 0

"""`flashtune prove`: an A/B of the cluster's current settings against the compiled central config.

flashtune prove --out DIR --tier iops --workload block           # the running cluster, as `ceph` finds it
flashtune prove --out DIR --compiled flashtune-iops-block-pacific # an existing compile-config folder
flashtune prove --out DIR --workload block --dry-run              # health, saved dump and the plan only
flashtune prove --out DIR --lab --workload block                  # a throwaway loopback cluster
flashtune prove --out DIR --workload rgw                          # S3 through every gateway (needs boto3)
flashtune prove --out DIR --workload block --cbt ~/cbt --case 4k-randwrite-qd32   # the CBT plan's cases in CBT
flashtune prove --restore DIR                                     # after a crash: put everything back

Before anything changes it checks health (HEALTH_ERR refuses; HEALTH_WARN refuses unless --allow-warn), saves
`ceph config dump` and prints the plan. Every change is journaled first and undone at the end, on Ctrl-C or
with --restore: the config database ends byte-identical to the saved dump, and the test pool is deleted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from flashtune import cbtrun
from flashtune.catalog import load_catalog
from flashtune.cli.common import path_arg
from flashtune.compile import CompileRequest, compile_bundle
from flashtune.compile.deploy import central_config
from flashtune.compile.pipeline import WORKLOADS
from flashtune.envelope.bundle import for_bundle
from flashtune.envelope.report import limit_notes
from flashtune.errors import FlashtuneError, UsageError
from flashtune.hardware import tier_names
from flashtune.lab import ceph_cluster, free_ports, missing_tools
from flashtune.prove import cbtcases, report
from flashtune.prove.arms import read_script
from flashtune.prove.cluster import Cluster
from flashtune.prove.journal import restore
from flashtune.prove.predict import predicted
from flashtune.prove.probes import PROBES, probes_for
from flashtune.prove.rgw import require_boto3
from flashtune.prove.run import Options, execute, plan_text, prepare
from flashtune.prove.stats import format_gain
from flashtune.releases import SUPPORTED_CEPH_RELEASES
from flashtune.yamlio import load_yaml

HELP = "A/B the cluster's current settings against the compiled ones (gain with a 95 %% interval)"


def add_parser(sub: Any) -> None:

    p = sub.add_parser(
        "prove", help=HELP, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    _run_options(p)
    _benchmark_options(p)
    _cluster_options(p)


def _run_options(p: argparse.ArgumentParser) -> None:
    """Where the run writes, and which compiled config it compares (a tier, a hardware file or a compiled folder)."""
    p.add_argument(
        "--out",
        metavar="DIR",
        type=path_arg,
        help="output folder (report.md, results.csv, chart.svg, journal)",
    )
    p.add_argument(
        "--restore",
        metavar="DIR",
        type=path_arg,
        help="undo an interrupted run from its journal, then compare",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="check health, save the dump, print the plan; change nothing"
    )
    p.add_argument("--force", action="store_true", help="use an --out folder that already has files")
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--tier", choices=tier_names(), help="shipped hardware tier to compile for (default iops)"
    )
    src.add_argument("--hardware", metavar="FILE", type=path_arg, help="your hardware file to compile for")
    src.add_argument(
        "--compiled",
        metavar="DIR",
        type=path_arg,
        help="an existing compile-config folder (its ceph-config.sh)",
    )
    p.add_argument(
        "--workload", choices=WORKLOADS, default="block", help="workload to compile and probe (default block)"
    )
    p.add_argument(
        "--ceph-release",
        choices=SUPPORTED_CEPH_RELEASES,
        help="release to compile for (default: the running cluster's)",
    )
    p.add_argument("--nodes", type=int, help="OSD nodes to compile for (default: the tier's)")
    p.add_argument("--clients", type=int, help="client nodes to compile for (default: the tier's)")
    p.add_argument("--replication", type=int, metavar="N", help="replica count to compile for")


def _benchmark_options(p: argparse.ArgumentParser) -> None:
    """How each arm is measured: samples, warm-up, data sizes, the built-in probes or the compiled CBT plan."""
    p.add_argument("--repeat", type=int, default=3, help="samples per arm and case (at least 3; default 3)")
    p.add_argument("--seconds", type=int, default=10, help="length of each sample (default 10)")
    p.add_argument(
        "--warmup", type=int, default=3, help="warm-up before each sample, same in both arms (default 3)"
    )
    p.add_argument(
        "--prefill-seconds", type=int, default=10, help="rados bench write that makes the read data"
    )
    p.add_argument(
        "--image-mib", type=int, default=2048, help="RBD image size for the fio probes (default 2048)"
    )
    p.add_argument(
        "--file-mib", type=int, default=1024, help="CephFS file size for the scratch probes (default 1024)"
    )
    p.add_argument("--fs", metavar="NAME", help="CephFS the scratch probes mount (default: the first listed)")
    p.add_argument("--pg-num", type=int, default=32, help="PGs of the test pool (default 32)")
    p.add_argument(
        "--probe", action="append", default=[], metavar="NAME", help="run only these probes (repeatable)"
    )
    p.add_argument(
        "--s3-endpoint",
        action="append",
        default=[],
        metavar="URL",
        help="a gateway the S3 probes drive (repeatable; default: every rgw daemon `ceph service dump` lists)",
    )
    p.add_argument(
        "--s3-threads",
        type=int,
        default=16,
        metavar="N",
        help="S3 requests in flight over all gateways, one per thread (default 16; rounded up to a multiple "
        "of the gateways)",
    )
    p.add_argument(
        "--cbt",
        nargs="?",
        const="",
        metavar="PATH",
        help="run the compiled CBT plan's cases through CBT in every arm (PATH: a ceph/cbt checkout or its "
        "cbt.py; without PATH: $CBT, else cbt.py on PATH); librbdfio plans (block, mysql)",
    )
    p.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="NAME",
        help="with --cbt: run only these CBT cases, e.g. 4k-randwrite-qd32 (repeatable; default all)",
    )
    p.add_argument(
        "--cbt-iterations",
        type=int,
        default=1,
        metavar="N",
        help="with --cbt: CBT iterations per arm run, folded into one sample (their median); default 1",
    )
    p.add_argument(
        "--bench-scale",
        choices=("full", "smoke"),
        default="full",
        help="CBT plan sizes and durations to compile (smoke: seconds and MiB, for a test cluster)",
    )


def _cluster_options(p: argparse.ArgumentParser) -> None:
    """How to reach the cluster (or boot the lab) and what the run may do to it."""
    p.add_argument("--allow-warn", action="store_true", help="run on a HEALTH_WARN cluster")
    p.add_argument(
        "--restart-command",
        metavar="CMD",
        help="consent to restart daemons: CMD restarts them (e.g. 'ceph orch restart osd'); settings read only "
        "at start are then part of arm B, with CMD run at every arm switch",
    )
    p.add_argument(
        "--lab-restart",
        action="store_true",
        help="with --lab: settings read only at start are part of arm B, the lab restarting its OSDs per arm",
    )
    p.add_argument("--conf", help="ceph.conf (default: as the ceph CLI finds it)")
    p.add_argument("--keyring", help="keyring (default: as the ceph CLI finds it)")
    p.add_argument("--name", help="client name, e.g. client.admin")
    p.add_argument(
        "--lab", action="store_true", help="boot a throwaway single-node loopback cluster, run, tear down"
    )
    p.add_argument("--lab-ports", metavar="V2,V1,RGW", help="the lab's loopback ports (default: free ones)")
    p.set_defaults(handler=run)


def _check(args: argparse.Namespace) -> None:
    if args.restore:
        return
    if not args.out:
        raise UsageError(
            "--out DIR is required", suggestion="flashtune prove --out prove-run --workload block"
        )
    if args.repeat < 3:
        raise UsageError(f"--repeat {args.repeat}: at least 3 samples per arm", suggestion="--repeat 3")
    if args.seconds < 1 or args.warmup < 0:
        raise UsageError("--seconds must be at least 1 and --warmup at least 0")
    if args.s3_threads < 1:
        raise UsageError(f"--s3-threads {args.s3_threads}: at least 1", suggestion="--s3-threads 16")
    for url in args.s3_endpoint:
        if not url.startswith(("http://", "https://")):
            raise UsageError(
                f"--s3-endpoint {url!r} is not an http:// or https:// URL",
                suggestion="--s3-endpoint http://rgw1.example:7480",
            )
    if args.file_mib < 1:
        raise UsageError(f"--file-mib {args.file_mib}: at least 1", suggestion="--file-mib 1024")
    out = Path(args.out)
    if out.exists() and any(out.iterdir()) and not args.force:
        raise UsageError(
            f"{out} already has files", file=str(out), suggestion="choose a new --out folder, or --force"
        )
    for probe in args.probe:
        if probe not in PROBES:
            raise UsageError(f"unknown probe {probe!r}", suggestion="one of " + ", ".join(PROBES))
    if args.cbt is None and (args.case or args.cbt_iterations != 1):
        raise UsageError("--case and --cbt-iterations go with --cbt", suggestion="add --cbt PATH")
    if args.cbt is not None:
        if args.probe:
            raise UsageError(
                "--probe chooses built-in probes; with --cbt the benchmark is the CBT plan's cases",
                suggestion="--case NAME chooses CBT cases",
            )
        if args.cbt_iterations < 1:
            raise UsageError(
                f"--cbt-iterations {args.cbt_iterations}: at least 1", suggestion="--cbt-iterations 1"
            )
        if args.name and args.name != "client.admin":
            raise UsageError(
                f"--name {args.name}: CBT's fio connects as client.admin (benchmark/librbdfio.py: --clientname=admin)",
                suggestion="leave --name out with --cbt, or use the built-in probes",
            )
        # CBT and its interpreter are checked before anything reaches the cluster
        args.cbt_script = cbtrun.find_cbt(args.cbt or None)
        args.cbt_python = cbtrun.check_python(args.cbt_script)


def _compiled(args: argparse.Namespace, release: str | None) -> tuple[Any, str, Any]:
    """The central config to prove: the compiler's own result, or a compiled folder's ceph-config.sh."""

    if args.compiled:
        return read_script(Path(args.compiled) / "ceph-config.sh"), f"{args.compiled}/ceph-config.sh", None

    if args.ceph_release is None and release not in SUPPORTED_CEPH_RELEASES:
        raise UsageError(
            f"the cluster runs {release or 'a release flashtune does not recognise'}, which compile-config does "
            "not compile for",
            suggestion="give --ceph-release (one of " + ", ".join(SUPPORTED_CEPH_RELEASES) + ")",
        )
    req = CompileRequest(
        workload=args.workload,
        tier=args.tier or "iops",
        hardware_file=args.hardware,
        ceph_release=args.ceph_release or str(release),
        nodes=args.nodes,
        clients=args.clients,
        replication=args.replication,
        bench_scale=args.bench_scale,
    )
    bundle = compile_bundle(req)
    label = f"compile-config --{'hardware ' + str(args.hardware) if args.hardware else 'tier ' + (args.tier or 'iops')}"
    label += f" --workload {req.workload} --ceph-release {req.ceph_release}"
    config = central_config(bundle)
    return config, label + f" (ceph-config.sh, {len(config.values)} lines)", bundle


def _predict(bundle: Any, run: Any) -> None:
    """The compiled hardware's envelope beside each probe (flashtune.envelope's public model)."""
    if bundle is None:
        run.envelope_notes.append("no prediction: --compiled gives no hardware description")
        return
    objectstore = load_catalog().default_objectstore(bundle.request.ceph_release)
    if run.cbt is not None:  # the compiled plan's own predicted ceilings (as its cbt.yaml header shows them)
        doc = for_bundle(
            bundle.hardware, bundle.shape, bundle.plans, objectstore, bundle.request.ceph_release
        )
        rows = {r["case"]: r for plan in doc["benchmarks"].values() for r in plan}
        run.predicted = {c.name: rows[c.name] for c in run.cbt.cases if c.name in rows}
        run.envelope_cluster = str(doc["cluster"])
    else:
        run.predicted, run.envelope_cluster = predicted(
            bundle.hardware, bundle.shape, run.cases, objectstore, bundle.request.ceph_release
        )
    run.envelope_notes += limit_notes(list(run.predicted.values()))  # what 'a = b' / 'a ~ b' mean


def _lab_ports(text: str | None) -> tuple[int, int, int]:

    if not text:
        return free_ports()
    try:
        v2, v1, rgw = (int(x) for x in text.split(","))
    except ValueError:
        raise UsageError(
            f"--lab-ports {text!r} is not V2,V1,RGW", suggestion="--lab-ports 3330,3331,8092"
        ) from None
    return v2, v1, rgw


def run(args: argparse.Namespace) -> int:
    _check(args)
    try:
        import pandas  # noqa: F401  (the ingest parsers read the tools' output into the tidy schema)
    except ImportError:
        raise FlashtuneError(
            "flashtune prove reads the benchmark output with flashtune's ingest parsers, which need pandas",
            suggestion="pip install 'flashtune[ingest]'",
        ) from None

    if args.restore:
        result = restore(Cluster(args.conf, args.keyring, args.name), Path(args.restore))
        print(result.summary())
        return 0 if result.clean else 1
    chosen = probes_for(args.workload, args.probe or None)
    if args.cbt is None and any(p.needs_s3 for p in chosen):
        require_boto3()  # before a lab boots or anything is asked of the cluster
    if args.lab:
        # the CephFS probes need an MDS and a file system, the S3 probes a gateway: the lab boots them only
        # then (they cost boot time); CBT's librbdfio plans need neither
        mds = args.cbt is None and any(p.needs_file for p in chosen)
        rgw = args.cbt is None and any(p.needs_s3 for p in chosen)
        missing = missing_tools(rgw=rgw, mds=mds)
        if missing:
            raise FlashtuneError(
                "--lab needs the Ceph daemons: " + ", ".join(missing) + " not found",
                suggestion="install ceph-mon ceph-osd ceph-mgr ceph-common"
                + (" ceph-mds" if mds else "")
                + (" radosgw" if rgw else "")
                + " (Debian/Ubuntu packages)",
            )
        print("booting the lab cluster (single node, loopback; about 30 s) ...", file=sys.stderr)
        with ceph_cluster(rgw=rgw, mds=mds, ports=_lab_ports(args.lab_ports)) as lab:
            hook = (lambda: lab.restart_with("", daemons=("osd",))) if args.lab_restart else None
            if args.cbt is not None:
                # a compiled plan's pool is sized for the compiled nodes (512 PGs x 3 replicas for the iops tier):
                # the lab's 3 OSDs refuse it under the default 250 PGs per OSD; the lab is throwaway, and this
                # is set before prove saves its dump (part of the cluster "as it was")
                lab.run("ceph", "config", "set", "mon", "mon_max_pg_per_osd", "2000")
            return _prove(args, Cluster(conf=str(lab.conf_path)), hook)
    return _prove(args, Cluster(args.conf, args.keyring, args.name))


def _plans(
    args: argparse.Namespace, bundle: Any
) -> tuple[dict[str, dict[str, Any]], dict[str, str], list[str]]:
    """The CBT plans to run (file -> document) and the cases' notes: the compile's, or the folder's files."""
    if bundle is not None:
        plans, notes = dict(bundle.plans), dict(bundle.case_notes)
    else:
        folder = Path(args.compiled)
        files = [folder / "cbt.yaml", *sorted((folder / "cbt").glob("*.yaml"))]
        plans = {
            str(f.relative_to(folder)): json.loads(json.dumps(load_yaml(f))) for f in files if f.is_file()
        }
        notes = {}
    if not plans:
        raise FlashtuneError(
            "no CBT plan to run",
            suggestion="compile one (compile-config writes cbt.yaml), or leave --cbt out",
        )
    skipped = cbtcases.unsupported(plans)
    plans = {k: v for k, v in plans.items() if cbtcases.MODULE in (v.get("benchmarks") or {})}
    if not plans:
        raise UsageError(
            "prove --cbt runs CBT's librbdfio plans (workloads block and mysql); these plans use "
            + "; ".join(skipped),
            suggestion="leave --cbt out: the built-in probes stand in for them",
        )
    return plans, notes, skipped


def _cbt_source(args: argparse.Namespace, bundle: Any) -> cbtcases.CbtSource:
    script, python = args.cbt_script, args.cbt_python
    plans, notes, skipped = _plans(args, bundle)
    cbtcases.choose(cbtcases.all_cases(plans, notes), args.case)  # an unknown --case stops here
    return cbtcases.CbtSource(
        script, python, plans, notes, tuple(args.case), args.cbt_iterations, tuple(skipped)
    )


def _prove(args: argparse.Namespace, cluster: Any, restart_hook: Any = None) -> int:

    options = Options(
        out=Path(args.out),
        repeat=args.repeat,
        seconds=args.seconds,
        warmup=args.warmup,
        prefill_seconds=args.prefill_seconds,
        image_mib=args.image_mib,
        file_mib=args.file_mib,
        fs=args.fs,
        pg_num=args.pg_num,
        allow_warn=args.allow_warn,
        restart_command=args.restart_command,
        restart_hook=restart_hook,
        probe_names=tuple(args.probe),
        workload=args.workload,
        dry_run=args.dry_run,
        lab=args.lab,
        s3_endpoints=tuple(args.s3_endpoint),
        s3_threads=args.s3_threads,
    )
    config, label, bundle = _compiled(args, cluster.release())
    if args.cbt is not None:
        options.cbt = _cbt_source(args, bundle)
    prove_run, saved = prepare(cluster, config, options, label)
    _predict(bundle, prove_run)
    print(plan_text(prove_run), end="")
    if args.dry_run:
        print("dry run: nothing was changed")
        return 0
    execute(prove_run, cluster, saved)
    cases = report.write(prove_run)
    print(f"wrote {options.out / 'report.md'}, results.csv, chart.svg")
    for c in cases:
        if c.comparison:
            print(f"  {c.case}: {c.comparison.verdict}, {format_gain(c.comparison)}")
    restored = prove_run.restored
    if prove_run.interrupted:
        print(prove_run.interrupted, file=sys.stderr)
        return 130
    return 0 if restored is not None and restored.clean else 1

"""One prove run: check, save, plan, then A B A B ... with the same warm-up and data, then always restore.

    prepare()  health check, config dump saved, arm B classified, plan printed (--dry-run stops here)
    execute()  pool + data written once (rgw: an S3 user, its buckets and the GET probes' objects, through every
               gateway); per round: arm A (the cluster as it was), arm B (compiled values set);
               in each arm every case gets the same warm-up, then one sample (the CephFS probes: the file
               system is mounted with ceph-fuse for the arm, after its settings are set, and unmounted after)
    finally    restore (journal.restore): pools deleted, touched keys put back, dump compared byte for byte

SIGINT and SIGTERM end the benchmark where it is (the running tool is killed), then the restore runs with
both signals ignored, so a second Ctrl-C cannot leave the cluster half-restored. A SIGKILL or a crash leaves
the journal: `flashtune prove --restore DIR` finishes the job.
"""

from __future__ import annotations

import contextlib
import secrets
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from flashtune import cbtrun
from flashtune.errors import FlashtuneError
from flashtune.fileio import write_atomic
from flashtune.model import CentralConfig
from flashtune.progress import Progress
from flashtune.prove import arms, cbtcases, cephfs, probes, rgw
from flashtune.prove.cluster import CephCommandError, Cluster
from flashtune.prove.journal import (
    POOL_PREFIX,
    Journal,
    Restored,
    dump_entries,
    put_back,
    restore,
    save_dump,
    set_value,
)

SETTLE_S = 2.0  # after a config change: the monitors push it to the daemons asynchronously


class HealthRefused(FlashtuneError):
    pass


@dataclass
class Options:
    out: Path
    repeat: int = 3
    seconds: int = 10
    warmup: int = 3
    prefill_seconds: int = 10
    image_mib: int = 2048
    file_mib: int = 1024  # the CephFS probes' file
    fs: str | None = None  # the CephFS to mount (default: the first `ceph fs ls` lists)
    pg_num: int = 32
    allow_warn: bool = False
    restart_command: str | None = None
    restart_hook: Callable[[], None] | None = None  # --lab-restart: the lab restarts its own OSDs
    probe_names: tuple[str, ...] = ()
    workload: str = "block"
    dry_run: bool = False
    lab: bool = False
    s3_endpoints: tuple[
        str, ...
    ] = ()  # the gateways the S3 probes drive (default: every rgw in the service map)
    s3_threads: int = 16  # S3 requests in flight over all gateways (rounded up to a multiple of them)
    cbt: cbtcases.CbtSource | None = None  # --cbt: the compiled CBT plan's cases through the user's CBT

    @property
    def restarts_allowed(self) -> bool:
        return bool(self.restart_command or self.restart_hook)


@dataclass
class Sample:
    case: str
    arm: str
    index: int
    file: str  # relative to the output folder
    started: float
    seconds: float


@dataclass
class Run:
    """What a run decided and measured; the report renders it."""

    options: Options
    version: str
    health: dict[str, Any]
    settings: list[arms.ArmSetting]
    shadow_notes: list[str]
    cases: list[probes.Probe]
    pool: str
    image: str
    compiled_from: str
    fs: str = ""  # the CephFS the file probes mount ("" when no probe needs it)
    mountpoint: str = ""
    gateways: list[rgw.Gateway] = field(default_factory=list)  # the S3 probes' gateways (every one is driven)
    s3_threads: int = 0
    s3: rgw.Target | None = None  # made in execute(): the user's keys are never written down
    predicted: dict[str, dict[str, Any]] = field(default_factory=dict)  # case -> envelope case_dict
    envelope_cluster: str = ""
    envelope_notes: list[str] = field(default_factory=list)
    method_notes: list[str] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    restored: Restored | None = None
    interrupted: str = ""  # why the benchmark ended early
    started: float = 0.0
    finished: float = 0.0

    refused: dict[tuple[str, str], str] = field(default_factory=dict)  # (target, key) -> Ceph's refusal
    restarted_after_restore: bool = False
    cbt: cbtcases.CbtPlan | None = None  # --cbt: the CBT runs of each arm
    cbt_iterations: dict[tuple[str, str, int], list[float]] = field(default_factory=dict)  # (case, arm, n)
    cbt_archives: dict[str, tuple[int, str, int]] = field(default_factory=dict)  # archive -> (run, arm, n)
    cbt_frames: dict[str, Any] = field(default_factory=dict)  # archive -> its ingested rows (read once)

    @property
    def restarts_allowed(self) -> bool:
        return self.options.restarts_allowed

    @property
    def case_names(self) -> list[str]:
        return [c.name for c in self.cbt.cases] if self.cbt else [p.name for p in self.cases]

    @property
    def needs_file(self) -> bool:
        return any(p.needs_file for p in self.cases)

    @property
    def needs_s3(self) -> bool:
        return any(p.needs_s3 for p in self.cases)

    @property
    def needs_pool(self) -> bool:
        """The S3 probes use the gateways' own pools: a run of S3 probes only creates no pool of its own."""
        return not all(p.needs_s3 for p in self.cases)

    @property
    def s3_user(self) -> str:
        """The run's S3 user (the pool's name: unique per run); its buckets are <user>-<n>."""
        return self.pool

    @property
    def fs_dir(self) -> str:
        """The run's own folder at the root of the mounted CephFS (the pool's name: unique per run)."""
        return self.pool

    @property
    def applied(self) -> list[arms.ArmSetting]:
        return [
            s
            for s in arms.applied(self.settings, self.restarts_allowed)
            if (s.target, s.key) not in self.refused
        ]

    def expected_seconds(self) -> float:
        if self.cbt is not None:
            return self.cbt.expected_seconds(2 * self.options.repeat) + 2 * self.options.repeat * SETTLE_S
        per_sample = self.options.seconds + self.options.warmup + 3
        n = 2 * self.options.repeat * len(self.cases)
        prefill = self.options.prefill_seconds * (
            sum(p.needs_objects for p in self.cases)
            + len({p.block_size for p in self.cases if p.needs_s3_objects})
        ) + (30 if any(p.needs_image for p in self.cases) else 0)
        if self.needs_file:  # the prefill, and a mount and unmount per arm
            prefill += 30 + 2 * self.options.repeat * 2
        return n * per_sample + 2 * self.options.repeat * SETTLE_S + prefill


def check_health(cluster: Cluster, allow_warn: bool) -> dict[str, Any]:
    doc = cluster.health()
    status = str(doc.get("status", "HEALTH_UNKNOWN"))
    checks = ", ".join(
        f"{k} ({v.get('summary', {}).get('message', '')})" for k, v in (doc.get("checks") or {}).items()
    )
    if status == "HEALTH_ERR":
        raise HealthRefused(
            f"the cluster is HEALTH_ERR: {checks}; prove changes nothing on an unhealthy cluster",
            suggestion="fix the cluster first (`ceph health detail`)",
        )
    if status != "HEALTH_OK" and not allow_warn:
        raise HealthRefused(
            f"the cluster is {status}: {checks}",
            suggestion="fix it, or pass --allow-warn if these warnings do not affect a benchmark",
        )
    return doc


def prepare(
    cluster: Cluster, config: CentralConfig, options: Options, compiled_from: str
) -> tuple[Run, dict[tuple[str, str], str]]:
    """Everything before the first change: health, saved dump, arm B, the plan."""
    health = check_health(cluster, options.allow_warn)
    options.out.mkdir(parents=True, exist_ok=True)
    earlier = Journal(options.out)
    if earlier.path.exists():
        ops = [e["op"] for e in earlier.entries()]
        if ops and ops[-1] != "restored":  # its saved dump is what --restore needs: never overwrite it
            raise FlashtuneError(
                "this folder holds the journal of a run that was never restored",
                file=str(earlier.path),
                suggestion=f"run `flashtune prove --restore {options.out}` first",
            )
        if not options.dry_run:
            earlier.path.rename(options.out / f"journal.{int(time.time())}.jsonl")
    saved_text = save_dump(cluster, options.out)
    saved = dump_entries(saved_text)
    # the pools as they were: prove creates one of its own and touches no other
    pools = cluster.run("ceph", "--connect-timeout", "20", "osd", "pool", "ls", "detail", "-f", "json").stdout
    write_atomic(options.out / "pools-before.json", pools, force=True, sync=True)
    settings, notes = arms.classify(
        config,
        saved,
        cluster,
        restarts_allowed=options.restarts_allowed,
        source=str(options.out / "config-before.json"),
    )
    tag = secrets.token_hex(3)
    cases = [] if options.cbt else probes.probes_for(options.workload, options.probe_names or None)
    run = Run(
        options=options,
        version=cluster.version(),
        health=health,
        settings=settings,
        shadow_notes=notes,
        cases=cases,
        pool=f"{POOL_PREFIX}{tag}",
        image=f"flashtune-prove-{tag}",
        compiled_from=compiled_from,
    )
    if options.cbt is not None:
        run.cbt = cbtcases.build(options.cbt, tag, cluster)
        run.method_notes += cbtcases.method_notes(run.cbt, options.repeat)
    else:
        run.method_notes.append(
            "the benchmark is prove's built-in probes; the compiled CBT plans (cbt/*.yaml) are not run by prove "
            "(--cbt PATH runs them through CBT)"
        )
    if run.needs_s3:
        rgw.require_boto3()
        run.gateways = rgw.discover(cluster, options.s3_endpoints)
        rgw.check_answering(run.gateways)
        run.s3_threads = rgw.threads_for(options.s3_threads, len(run.gateways))
        run.method_notes.append(
            f"the S3 probes ran {run.s3_threads} threads, {run.s3_threads // len(run.gateways)} per gateway on "
            f"all {len(run.gateways)} gateways at once ({', '.join(g.url for g in run.gateways)}), each thread "
            "one request at a time, as a throwaway S3 user; a PUT sample's objects are deleted after it, the GET "
            "samples read the objects the prefill wrote. One client host drives them: at high rates the "
            "client, not the gateways, may be the limit"
        )
    if run.needs_file:
        run.fs = cephfs.choose(cluster, options.fs)
        run.method_notes.append(
            f"the CephFS probes run fio on one {options.file_mib} MiB file in {run.fs_dir}/ of CephFS "
            f"{run.fs!r}, mounted with ceph-fuse afresh in each arm (a client reads its settings when it "
            "starts) and unmounted after it"
        )
    lines = [s.line for s in run.applied]
    write_atomic(
        options.out / "arm-b.sh",
        "#!/usr/bin/env bash\n# arm B: what prove sets (then restores)\n" + "\n".join(lines) + "\n",
        force=True,
        sync=True,
    )
    return run, saved


def plan_text(run: Run) -> str:
    o = run.options
    order = " ".join(["A", "B"] * o.repeat)
    if run.cbt is not None:
        lines = [
            f"flashtune prove: {run.version}, health {run.health.get('status')}",
            f"compiled config: {run.compiled_from}",
            f"arms: {order}  ({o.repeat} samples per arm and case: one per arm run)",
            f"expected duration: about {run.expected_seconds() / 60:.1f} min",
            *cbtcases.plan_lines(run.cbt, o.out),
        ]
        return "\n".join(lines + _arm_b_lines(run)) + "\n"
    lines = [
        f"flashtune prove: {run.version}, health {run.health.get('status')}",
        f"compiled config: {run.compiled_from}",
        f"cases ({len(run.cases)}): " + ", ".join(p.name for p in run.cases),
        f"arms: {order}  ({o.repeat} samples per arm and case, {o.warmup} s warm-up + {o.seconds} s each)",
        f"expected duration: about {run.expected_seconds() / 60:.1f} min",
        f"creates pool {run.pool} ({o.pg_num} PGs)"
        + (
            f" and RBD image {run.image} ({o.image_mib} MiB, written once)"
            if any(p.needs_image for p in run.cases)
            else ""
        )
        + "; both are deleted at the end"
        if run.needs_pool
        else "creates no pool of its own",
        *(
            [
                f"mounts CephFS {run.fs!r} with ceph-fuse (a temporary folder) in each arm; writes one "
                f"{o.file_mib} MiB file in {run.fs_dir}/, removed at the end"
            ]
            if run.needs_file
            else []
        ),
        *(
            [
                f"drives {len(run.gateways)} S3 gateways at once ({run.s3_threads} threads): "
                + ", ".join(f"{g.name} {g.url}" for g in run.gateways),
                f"creates S3 user {run.s3_user} (radosgw-admin) and buckets {run.s3_user}-0..; the user, its "
                "buckets and objects are removed at the end",
            ]
            if run.needs_s3
            else []
        ),
    ]
    return "\n".join(lines + _arm_b_lines(run)) + "\n"


def _arm_b_lines(run: Run) -> list[str]:
    o = run.options
    lines = [
        f"saved: {o.out / 'config-before.json'} (the config database now), {o.out / 'pools-before.json'}; "
        f"journal: {o.out / 'journal.jsonl'}",
        f"arm B sets {len(run.applied)} keys, restored to the saved dump between arms and at the end:",
    ]
    lines += [
        f"  {s.line}    # now: {s.current if s.current is not None else '(default)'}" for s in run.applied
    ]
    for status, what in (
        (arms.SAME, "already set to the compiled value"),
        (arms.UNKNOWN, "NOT applied: the running release has no such option"),
        (arms.CREATE, "NOT applied: read only when an OSD is created"),
        (arms.RESTART, "needs a daemon restart"),
    ):
        group = [s for s in run.settings if s.status == status]
        if group:
            lines.append(f"{len(group)} {what}:")
            lines += [f"  {s.target} {s.key} = {s.value}  ({s.note})" for s in group]
    lines += [f"note: {n}" for n in run.shadow_notes]
    return lines


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextlib.contextmanager
def signals_interrupt() -> Iterator[None]:
    """SIGTERM ends the benchmark like Ctrl-C does (the restore then runs)."""
    old = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@contextlib.contextmanager
def signals_ignored() -> Iterator[None]:
    """The restore runs to its end: Ctrl-C and SIGTERM wait."""
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
    old_term = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)


def _restart(run: Run, cluster: Cluster, journal: Journal) -> None:
    """Restart the daemons (consent given) when arm B holds settings read only at start."""
    o = run.options
    if not o.restarts_allowed or not any(s.status == arms.RESTART for s in run.applied):
        return
    if o.restart_hook is not None:
        journal.append("restart", command="the lab's OSDs")
        o.restart_hook()
    elif o.restart_command:
        journal.append("restart", command=o.restart_command)
        cmd = shlex.split(o.restart_command)
        r = subprocess.run(
            cmd, env=cluster.env(), capture_output=True, text=True, timeout=900, start_new_session=True
        )
        if r.returncode != 0:
            raise FlashtuneError(f"--restart-command failed (exit {r.returncode}): {r.stderr.strip()[-400:]}")
    _wait_healthy(cluster)


def _wait_healthy(cluster: Cluster, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cluster.health().get("status") != "HEALTH_ERR":
            pgs = cluster.ceph("pg", "stat") or {}
            summary = pgs.get("pg_summary", pgs)
            states = {x["name"]: int(x["num"]) for x in summary.get("num_pg_by_state", [])}
            if states and sum(n for s, n in states.items() if s.startswith("active")) == int(
                summary.get("num_pgs", 0)
            ):
                return
        time.sleep(1)
    raise FlashtuneError("the cluster did not return to active PGs after the restart", suggestion="ceph -s")


def _set_arm(
    run: Run, cluster: Cluster, journal: Journal, saved: dict[tuple[str, str], str], arm: str
) -> None:
    """Arm B: the compiled values set; arm A: every touched key back to the saved dump."""
    journal.append("arm", arm=arm)
    touched = journal.touched()
    if arm == "B":
        for s in run.applied:
            try:
                set_value(cluster, journal, saved, s.target, s.key, s.value)
            except CephCommandError as e:  # a value this release refuses (range, type): reported, left out
                run.refused[(s.target, s.key)] = e.message
    elif touched:
        journal.append("put-back", keys=[list(k) for k in touched])
        put_back(cluster, saved, touched)
    if arm == "B" or touched:
        _restart(run, cluster, journal)
        time.sleep(SETTLE_S)
        started = [s.key for s in run.applied if s.status == arms.RESTART and s.target.startswith("osd")]
        if started:  # evidence that the restart made the daemons read this arm's start-time values
            journal.append("running", arm=arm, values=arms.running_values(cluster, started))


def _mount(run: Run, cluster: Cluster, journal: Journal) -> Path:
    """Mount the CephFS for an arm (journaled first: the restore unmounts it whatever happens)."""
    point = Path(run.mountpoint)
    journal.append("mount", path=run.mountpoint, fs=run.fs, dir=run.fs_dir)
    cephfs.mount(cluster, point, run.fs)
    return point / run.fs_dir


def _unmount(run: Run, journal: Journal) -> None:
    cephfs.unmount(Path(run.mountpoint))
    journal.append("unmounted", path=run.mountpoint)


def _s3_target(run: Run, cluster: Cluster, journal: Journal) -> rgw.Target:
    """The S3 user (journaled before it exists), its buckets, and the objects the GET probes read."""
    from flashtune.prove import s3load  # boto3, an optional extra (prepare() checked it is there)

    journal.append("s3-user", uid=run.s3_user, gateways=[g.url for g in run.gateways])
    credentials = rgw.create_user(cluster, run.s3_user)
    target = rgw.Target(
        run.gateways, credentials, rgw.bucket_names(run.s3_user, run.s3_threads), run.s3_threads
    )
    s3load.connect(target)
    s3load.create_buckets(target)
    for p in {p.block_size: p for p in run.cases if p.needs_s3_objects}.values():
        probes.prefill_s3(target, p, run.options.prefill_seconds)
    return target


def execute(
    run: Run,
    cluster: Cluster,
    saved: dict[tuple[str, str], str],
    *,
    on_sample: Callable[[Sample], None] | None = None,
) -> Run:
    """The A/B loop, always followed by the restore."""
    o = run.options
    journal = Journal(o.out)
    journal.append(
        "begin", pool=run.pool, image=run.image, cases=[p.name for p in run.cases], repeat=o.repeat
    )
    run.started = time.time()
    try:
        # the progress line is wiped when the loop ends, before the restore's messages
        with (
            signals_interrupt(),
            Progress("flashtune prove", total=run.expected_seconds(), after=0) as progress,
        ):
            if run.cbt is not None:
                _cbt_arms(run, run.cbt, cluster, journal, saved, progress, on_sample)
                return run
            _write_data(run, cluster, journal, progress)
            _probe_arms(run, cluster, journal, saved, progress, on_sample)
    except KeyboardInterrupt as e:
        run.interrupted = f"interrupted ({e or 'SIGINT'}) after {len(run.samples)} samples"
    except FlashtuneError as e:
        run.interrupted = f"stopped by an error after {len(run.samples)} samples: {e.message}"
        raise
    finally:
        with signals_ignored():
            _restore(run, cluster, journal)
    return run


def _write_data(run: Run, cluster: Cluster, journal: Journal, progress: Progress) -> None:
    """The test pool (journaled first) and the data every arm reads: image, objects, S3 objects, a file."""
    o = run.options
    if run.needs_pool:
        journal.append("pool", name=run.pool)
        cluster.ceph_text("osd", "pool", "create", run.pool, str(o.pg_num), str(o.pg_num))
        app = "rbd" if any(p.needs_image for p in run.cases) else "flashtune"
        cluster.ceph_text("osd", "pool", "application", "enable", run.pool, app, "--yes-i-really-mean-it")
    progress.status("writing the benchmark data")
    if run.needs_s3:
        run.s3 = _s3_target(run, cluster, journal)
    if any(p.needs_image for p in run.cases):
        journal.append("image", name=run.image, pool=run.pool)
        probes.prefill_image(cluster, run.pool, run.image, o.image_mib)
    for p in {p.block_size: p for p in run.cases if p.needs_objects}.values():
        probes.prefill_objects(cluster, run.pool, p, o.prefill_seconds)
    if run.needs_file:
        run.mountpoint = str(cephfs.new_mountpoint())
        directory = _mount(run, cluster, journal)
        directory.mkdir()
        probes.prefill_file(cluster, directory, o.file_mib)
        _unmount(run, journal)


def _each_arm(
    run: Run, cluster: Cluster, journal: Journal, saved: dict[tuple[str, str], str]
) -> Iterator[tuple[str, int]]:
    """A B A B ... (options.repeat pairs): each (arm, index) once that arm's settings are applied; what
    overrides arm B's values is noted the first time."""
    for index in range(1, run.options.repeat + 1):
        for arm in ("A", "B"):
            _set_arm(run, cluster, journal, saved, arm)
            if arm == "B" and index == 1:
                run.shadow_notes += arms.overridden(cluster, run.applied)
            yield arm, index


def _record(
    run: Run, journal: Journal, sample: Sample, on_sample: Callable[[Sample], None] | None, **extra: Any
) -> None:
    """One measured sample: kept in the run, journaled (with `extra`), handed to on_sample."""
    run.samples.append(sample)
    journal.append("sample", case=sample.case, arm=sample.arm, index=sample.index, file=sample.file, **extra)
    if on_sample:
        on_sample(sample)


def _probe_arms(
    run: Run,
    cluster: Cluster,
    journal: Journal,
    saved: dict[tuple[str, str], str],
    progress: Progress,
    on_sample: Callable[[Sample], None] | None,
) -> None:
    """The built-in probes: in each arm every case warmed up and measured."""
    o = run.options
    directory: Path | None = None
    for arm, index in _each_arm(run, cluster, journal, saved):
        if run.needs_file:
            directory = _mount(run, cluster, journal)
        journal.append("measure", arm=arm, index=index)
        for probe in run.cases:
            progress.status(f"{probe.name}: arm {arm} {index}/{o.repeat}, warm-up")
            if o.warmup:
                probes.run(
                    cluster,
                    probe,
                    run.pool,
                    run.image,
                    o.warmup,
                    None,
                    f"w{arm}{index}",
                    directory=directory,
                    file_mib=o.file_mib,
                    s3=run.s3,
                )
            progress.status(f"{probe.name}: arm {arm} {index}/{o.repeat}")
            rel = f"raw/{probes.file_name(probe, arm, index)}"
            t0 = time.time()
            probes.run(
                cluster,
                probe,
                run.pool,
                run.image,
                o.seconds,
                o.out / rel,
                f"{arm}{index}",
                directory=directory,
                file_mib=o.file_mib,
                s3=run.s3,
            )
            _record(run, journal, Sample(probe.name, arm, index, rel, t0, time.time() - t0), on_sample)
        if run.needs_file:
            _unmount(run, journal)


def _restore(run: Run, cluster: Cluster, journal: Journal) -> None:
    """Everything back as it was (config database, pool, folder, S3 user), and the daemons restarted where
    arm B changed start-time settings."""
    o = run.options
    print(
        "restoring the config database"
        + (" and removing the test pool" if run.needs_pool else "")
        + (" and CephFS folder (then unmounting)" if run.needs_file else "")
        + (" and removing the S3 user with its buckets" if run.needs_s3 else "")
        + " ...",
        file=sys.stderr,
    )
    run.restored = restore(cluster, o.out)
    if any(e["op"] == "restart" for e in journal.entries()):
        # the daemons still run with arm B's start-time values: one more restart reads the restored ones
        print("restarting the daemons to read the restored start-time settings ...", file=sys.stderr)
        _restart(run, cluster, journal)
        journal.append("daemons-restarted")
        run.restarted_after_restore = True
        run.restored.restarted_with = ""
    run.finished = time.time()
    print(run.restored.summary(), file=sys.stderr)


def _cbt_arms(
    run: Run,
    plan: cbtcases.CbtPlan,
    cluster: Cluster,
    journal: Journal,
    saved: dict[tuple[str, str], str],
    progress: Progress,
    on_sample: Callable[[Sample], None] | None,
) -> None:
    """--cbt: per arm, each plan run through CBT; one sample per case from that arm's archive."""
    o = run.options
    env = cbtcases.cbt_env(cluster)
    for arm, index in _each_arm(run, cluster, journal, saved):
        journal.append("measure", arm=arm, index=index)
        label = f"arm {arm} {index}/{o.repeat}"
        for k, prun in enumerate(plan.runs, start=1):
            reuse = not (prun.first_of_pool and index == 1 and arm == "A")
            if not reuse:  # CBT creates them in this run: journaled first, removed by the restore
                for pool in prun.pools:
                    journal.append("pool", name=pool, by="cbt", plan=prun.plan)
                for image in prun.images(plan.clients):
                    journal.append("image", name=image, pool=prun.pool, by="cbt")
            rel = f"cbt/{arm}{index}-{k}"
            doc = cbtrun.localize(
                cbtcases.arm_doc(prun, reuse=reuse, iterations=plan.iterations),
                conf=plan.conf,
                scratch=o.out / rel,
                mon_addr=plan.mon_addr,
            )
            inv = cbtrun.prepare(plan.script, doc, o.out / rel, env, plan.python)
            journal.append(
                "cbt",
                arm=arm,
                index=index,
                plan=prun.plan,
                cases=[c.name for c in prun.cases],
                archive=f"{rel}/archive",
                reuse=reuse,
            )
            first = prun.cases[0].name + ("" if reuse else ", CBT creating the pool and writing the images")
            progress.status(f"{first}: {label}")

            def seen(line: str, prun: cbtcases.PlanRun = prun, label: str = label) -> None:
                case = cbtcases.case_of_line(line, prun)
                if case:
                    progress.status(f"{case}: {label} (CBT)")

            t0 = time.time()
            proc = cbtrun.run(inv, timeout=plan.timeout(prun, reuse), on_line=seen)
            if proc.returncode != 0:
                tail = "".join(proc.stdout.splitlines(keepends=True)[-15:])
                raise FlashtuneError(
                    f"CBT failed (exit {proc.returncode}) in {label}, plan {prun.plan}:\n{tail}",
                    file=str(inv.log),
                    suggestion="the whole log is in that file; `ceph -s` for the cluster's state",
                )
            run.cbt_archives[f"{rel}/archive"] = (k - 1, arm, index)
            frame = cbtcases.archive_frame(inv.archive)
            run.cbt_frames[f"{rel}/archive"] = frame
            totals = cbtcases.arm_totals(frame, inv.archive, prun)
            for case in prun.cases:
                values = totals[case.name]
                run.cbt_iterations[(case.name, arm, index)] = values
                sample = Sample(case.name, arm, index, f"{rel}/archive", t0, time.time() - t0)
                _record(run, journal, sample, on_sample, value=cbtcases.arm_sample(values), iterations=values)

"""explain.md emitter: why every value is what it is, in prose tables a storage engineer can review."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flashtune import __version__
from flashtune.emit.common import render_scalar
from flashtune.envelope.bundle import markdown
from flashtune.model import Bundle, OltpPlan


def _cell(v: Any) -> str:
    if type(v) is str:  # most cells (render_scalar would hand it back as it is)
        return v.replace("|", "\\|").replace("\n", " ")
    if isinstance(v, (list, tuple)):
        v = " ".join(render_scalar(x) for x in v)
    return render_scalar(v).replace("|", "\\|").replace("\n", " ")


def _memory_budget(bundle: Bundle) -> list[str]:
    """The node memory budget table: every daemon on the busiest OSD node and the rule that sized the OSDs."""
    rows = bundle.memory_budget()
    if not rows:
        return []
    ram = bundle.hardware.ram_gib
    mem = bundle.shape["memory"]
    out = [
        "\n## Node memory budget\n\n",
        f"The busiest OSD node ({ram:g} GiB RAM) runs the OSDs and "
        f"{', '.join(bundle.shape['daemons_gib']) or 'no other daemon'}. {mem.reason}.\n\n"
        "| on the node | GiB | share of RAM |\n|---|---|---|\n",
    ]
    out.extend(f"| {name} | {gib:.2f} | {gib / ram:.1%} |\n" for name, gib in rows)
    total = sum(g for _, g in rows)
    out.append(f"| **total** | **{total:.2f}** | **{total / ram:.1%}** |\n\n")
    out.append(
        f"Rules (data/layout/layout.yaml): OSD targets + other Ceph daemons <= "
        f"{mem.inputs['autotune_ratio']:g} x RAM (cephadm's autotuner), and everything including the OS "
        f"<= {1 - mem.inputs['headroom']:g} x RAM (the hardware recommendations' headroom for memory "
        f"spikes). OSDs per device: {bundle.shape['osds_per_device_reason']}.\n"
    )
    return out


def _pools(bundle: Bundle) -> list[str]:
    """The pools pools.sh creates, and why the EC profile needs a command on an existing cluster."""
    pools = bundle.shape.get("pools") or []
    if not pools or bundle.legacy:
        return []
    out = ["\n## Pools (pools.sh)\n\n"]
    ec = bundle.shape.get("ec")
    if ec is not None:
        out.append(
            f"`osd_pool_default_erasure_code_profile` in ceph.conf only seeds the default profile when a "
            f"cluster is created; on a running cluster `pools.sh` creates the profile "
            f"`{ec.value.profile_name}` (`{ec.value.as_profile()}`) by command and the pools name it.\n\n"
        )
    target = bundle.shape.get("pg_target_per_osd")
    out.append(
        f"pg_num = {target} PGs per OSD (mon_target_pg_per_osd) x OSDs x the pool's share over the sum of the "
        "shares / size (k+m for EC), to the nearest power of two. pools.sh sets each share as the pool's "
        "`target_size_ratio`: the PG autoscaler (on by default) divides the ratios by their sum the same way, "
        "so it aims at this pg_num instead of shrinking the empty pool to its minimum.\n\n"
    )
    out.extend(_store(pools))
    out.append(
        "| pool | type | pg_num | share of data (target_size_ratio) | flags |\n|---|---|---|---|---|\n"
    )
    for p in pools:
        kind = f"erasure ({p['profile']})" if p["type"] == "erasure" else f"replicated, size {p['size']}"
        flags = ["allow_ec_overwrites"] if p.get("ec_overwrites") else []
        if p.get("ec_optimizations_on"):
            flags.append("allow_ec_optimizations (cluster.ec_optimizations; 16 KiB stripe_unit)")
        elif p.get("ec_optimizations"):
            flags.append(
                "allow_ec_optimizations (commented in pools.sh: opt in with cluster.ec_optimizations after "
                "checking the point release; the profile keeps the 4 KiB default stripe_unit until then)"
            )
        if p.get("device_class"):
            flags.append(
                f"device class {p['device_class']}" + (f" ({p['crush_rule']})" if p.get("crush_rule") else "")
            )
        out.append(
            f"| {p['name']} | {kind} | {p['pg_num']} | {p['share']:.0%} | {', '.join(flags) or '-'} |\n"
        )
    flash = bundle.shape.get("flash_class")
    if flash:
        out.append(
            f"\nThe nodes have flash data devices beside their HDDs: the omap-heavy pools (bucket index, CephFS "
            f"metadata, the replicated pool beside an EC pool, and the pools the daemons make themselves: "
            f"{', '.join(f'`{n}`' for n in bundle.shape.get('flash_pools') or [])}) are placed on the `{flash}` "
            "device class and the data pools on `hdd` (CRUSH rules restricted to a class; the EC profile's "
            "crush-device-class), so small omap operations do not wait behind HDD seeks and the small flash OSDs "
            "do not fill with data. pg_num counts each class's own OSDs, as the autoscaler does per CRUSH root. "
            "Run pools.sh again once the daemons have made their pools: a pool left on the class-less default "
            "rule overlaps both roots, and the autoscaler then leaves every pool alone.\n"
        )
    return out


def _store(pools: list[dict[str, Any]]) -> list[str]:
    """What pools.sh makes of the pools, so the data lands in the pool that has the PGs."""
    ec = next((p for p in pools if p["type"] == "erasure"), None)
    partner = next((p for p in pools if p.get("ec_data_pool")), None)
    out: list[str] = []
    fs = next((p["filesystem"] for p in pools if p.get("filesystem")), None)
    if fs:
        out.append(
            f"pools.sh makes the file system `{fs}` (`ceph fs new`; on cephadm it also applies the MDS service)"
        )
        if ec is not None and partner is not None:
            out.append(
                f", adds `{ec['name']}` as a data pool and creates the subvolume `{ec['subvolume']}` laid out "
                f"in it: files written under the path it prints go to the EC pool, while `{partner['name']}`, "
                "the default data pool, keeps only each file's backtrace object"
            )
        out.append(". Every command succeeds when run again.\n\n")
        first = next(p for p in pools if p.get("filesystem"))
        daemons, ranks = int(first.get("mds_daemons", 2)), int(first.get("max_mds", 1))
        out.append(
            f"MDS: {daemons} daemon(s) (hardware file `cluster.mds_daemons`; cephadm's placement count), "
            f"{ranks} active rank(s) (`max_mds`), the rest standby to take over a failed rank. "
        )
        if ranks > 1:
            out.append(
                f"pools.sh sets `max_mds {ranks}` and makes the subvolume `{first['subvolume']}` even without EC; "
                "on one client, set the ephemeral distributed pin on the folder you mount "
                "(`setfattr -n ceph.dir.pin.distributed -v 1 /mnt/scratch`): every folder directly under it is "
                "then pinned to a rank by a hash of its inode number, so jobs that each work in their own folder "
                "there spread their metadata over every active MDS, while files directly in the mounted folder "
                "stay with one rank. `ceph fs subvolume pin` would set the pin one level too high (on the "
                "subvolume's own folder, whose only child is the path clients mount). The CBT fio plans cannot "
                "use this: CBT's endpoint makes its own file system with one rank and writes every job's file in "
                "its root.\n\n"
            )
        else:
            out.append(
                "One active MDS serves all metadata; with more daemons in `cluster.mds_daemons` the compile sets "
                "`max_mds` to all but one and spreads job folders over the ranks.\n\n"
            )
    elif ec is not None and partner is not None and partner["application"] == "rbd":
        out.append(
            f"pools.sh sets `rbd_default_data_pool` = `{ec['name']}` on the pool `{partner['name']}`: every "
            f"`rbd create` there puts image data in the EC pool and only headers in `{partner['name']}`.\n\n"
        )
    return out


def _duration(seconds: float) -> str:
    if seconds >= 2 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s"


def _recovery(bundle: Bundle) -> list[str]:
    """The recovery-time estimate (compile/recovery.py) with its arithmetic."""
    est = bundle.shape.get("recovery")
    if not est:
        return []
    queue = (
        "wpq (Pacific's op queue: the mclock profiles do nothing there)"
        if est["queue"] == "wpq"
        else f"mclock_scheduler, profile {est['profile'] or 'balanced (the default)'}"
    )
    io = (
        f"k + 1 = {est['k'] + 1} device bytes (k chunks read, one written) and k = {est['k']} network bytes"
        if est["ec"]
        else "2 device bytes (one read from a surviving copy, one written) and 1 network byte"
    )
    out = [
        "\n## Recovery time (estimate)\n\n",
        f"An estimate, not a measurement: how long the cluster takes to rebuild the copies of a failed OSD or "
        f"host, for {est['device_type']} OSDs (mclock class {est['device_class']}) under {queue}. The rebuild "
        f"starts {est['down_out_s'] // 60} min after the failure (mon_osd_down_out_interval), when the OSD is "
        f"marked out. Each OSD holds {est['fill']:.0%} of its {est['per_osd_bytes'] / est['fill'] / 1e9:.0f} GB "
        f"(the nearfull ratio, the most a healthy cluster holds): {est['per_osd_bytes'] / 1e9:.0f} GB. "
        f"Per OSD: {est['rate_why']}. Each rebuilt byte costs {io}; the work is spread over the surviving "
        "OSDs and their nodes' cluster network (the fastest cluster port of each node). Time = lost data x "
        "device bytes per byte / (surviving OSDs x rate per OSD), or the network's time if longer.\n\n",
        "| failure | data to rebuild | surviving OSDs | clients busy | clients idle | network alone |\n"
        "|---|---|---|---|---|---|\n",
    ]
    for c in est["cases"]:
        if not c.possible:
            out.append(
                f"| {c.case} | {c.lost_bytes / 1e12:.2f} TB | - | no spare host: the copies cannot be rebuilt "
                "until the host returns | - | - |\n"
            )
            continue
        out.append(
            f"| {c.case} | {c.lost_bytes / 1e12:.2f} TB | {c.osds} | {_duration(c.seconds(busy=True))} "
            f"({c.busy_mib_s:.0f} MiB/s per OSD) | {_duration(c.seconds(busy=False))} ({c.idle_mib_s:.0f} MiB/s "
            f"per OSD) | {_duration(c.net_seconds)} ({c.nodes} nodes x {c.net_gbps:g} Gbit/s) |\n"
        )
    if est["queue"] == "wpq":
        advice = (
            "\nwpq gives recovery no share of its own: client load slows it further. For a faster rebuild raise "
            "osd_max_backfills and osd_recovery_max_active for a while (at the cost of client latency)"
        )
    else:
        advice = (
            "\nThe busy figure counts only mclock's recovery reservation; backfill has none, so with clients "
            "saturating the OSDs it can take longer. For a faster rebuild switch for a while to "
            "`ceph config set osd osd_mclock_profile high_recovery_ops`"
        )
    out.append(f"{advice} (sources: {est['source']}).\n")
    return out


def emit(bundle: Bundle, inputs: Mapping[str, Any]) -> str:
    out = [
        f"<!-- Generated by flashtune {__version__} (compile-config); recompile instead of editing. -->\n",
        "<!-- inputs: " + ", ".join(f"{k}={v}" for k, v in inputs.items()) + " -->\n\n",
        f"# Why these settings: {bundle.hardware.name} x {bundle.request.workload} x Ceph "
        f"{bundle.request.ceph_release}\n\n",
    ]
    if bundle.legacy:
        out.append(
            "Legacy mode: the 2017 All-NVMe MySQL files from the Intel tuning guide, reproduced with "
            "their errors corrected. Every deliberate difference is listed below.\n\n"
        )
    out.append("## Inputs\n\n| input | value |\n|---|---|\n")
    out.extend(f"| {k} | {_cell(v)} |\n" for k, v in inputs.items())
    out.append("\n## Cluster shape (derived)\n\n| fact | value |\n|---|---|\n")
    out.extend(f"| {k} | {_cell(v)} |\n" for k, v in bundle.cluster_facts().items() if v is not None)
    out.extend(_memory_budget(bundle))
    out.extend(_pools(bundle))
    out.extend(_recovery(bundle))
    if bundle.warnings:
        out.append("\n## Warnings (sizing, release lifecycle)\n\n")
        out.extend(f"- {w}\n" for w in bundle.warnings)
    out.append(f"\nProfile layers, later ones winning: {' -> '.join(bundle.layers)}.\n")
    out.extend(_safety(bundle))
    out.extend(_settings(bundle))
    out.extend(_benchmark(bundle))
    if bundle.oltp is not None:
        out.append(_oltp(bundle.oltp))
    if bundle.envelope:
        out.append(markdown(bundle.envelope))
    out.extend(_left_out(bundle))
    return "".join(out)


def _safety(bundle: Bundle) -> list[str]:
    """What is unsafe and why it was emitted, or that nothing is."""
    out: list[str] = []
    unsafe = [s for s in bundle.settings if s.unsafe_opt_in]
    out.append("\n## Safety\n\n")
    if unsafe:
        out.append("These values are **unsafe** and were emitted only because of `--allow-unsafe`:\n\n")
        out.extend(
            f"- `{s.key} = {_cell(s.value)}` ({s.file}, {s.safety}): {'; '.join(s.notes)}\n" for s in unsafe
        )
    else:
        out.append(
            "Nothing data-unsafe or insecure is set (cephx stays on, checksums and CRCs stay on, InnoDB "
            "flushes its log at every commit). `--allow-unsafe KNOB` would be needed for that.\n"
        )
    return out


def _settings(bundle: Bundle) -> list[str]:
    """One table per emitted file: every setting with its reason, rule, evidence and safety."""
    out: list[str] = []
    for file in dict.fromkeys(s.file for s in bundle.settings):
        out.append(
            f"\n## {file}\n\n| section | key | value | why this value here | what the knob does | rule | "
            "evidence | release facts | safety |\n|---|---|---|---|---|---|---|---|---|\n"
        )
        for s in (x for x in bundle.settings if x.file == file):
            out.append(
                f"| {s.section} | `{s.key}` | `{_cell(s.value)}` | {_cell(s.why)} | {_cell(s.rationale)} | "
                f"{s.rule} | {', '.join(s.evidence)} | {_cell('; '.join(s.release_facts))} | "
                f"{'UNSAFE ' + s.safety if s.unsafe_opt_in else s.safety} |\n"
            )
    return out


def _benchmark(bundle: Bundle) -> list[str]:
    """The benchmark plans' derived sizes and what each case answers."""
    out: list[str] = []
    if bundle.derived:
        out.append("\n## Benchmark sizing\n\n")
        out.extend(f"- `{k}` = {_cell(d.value)}: {d.reason}\n" for k, d in bundle.derived.items())
    if bundle.cases:
        out.append(
            f"\n## Benchmark cases ({len(bundle.cases)})\n\nEach case below is one permutation of a plan's "
            "lists (CBT runs each into its own archive folder, results/<iteration>/id-<hash>, once is_teuthology "
            "lets its run loop run them all) or its own file. Each runs time-based after a ramp, "
            "cluster.iterations times, on "
            "a data set at least twice every cache it could sit in (Benchmark sizing above). What each case "
            "answers and which setting it is meant to prove:\n\n"
        )
        out.extend(
            f"- `{c}`: {_cell(bundle.case_notes[c])}\n" if bundle.case_notes.get(c) else f"- `{c}`\n"
            for c in bundle.cases
        )
    return out


def _left_out(bundle: Bundle) -> list[str]:
    """What a profile asked for and was not emitted, the legacy files' differences, linter notes."""
    out: list[str] = []
    if bundle.omitted:
        out.append(
            "\n## Not emitted\n\nLines a profile layer asks for that would change nothing (or lower what the "
            "system already sets), with the catalog fact that says so:\n\n"
        )
        out.extend(
            f"- {o['file']} [{o['section']}] `{o['key']}`"
            f"{' = `' + _cell(o['value']) + '`' if o.get('value') is not None else ''}: {o['why']}"
            f"{' Source: ' + str(o['source']) if o.get('source') else ''}\n"
            for o in bundle.omitted
        )
    if bundle.differences:
        out.append(
            "\n## Differences from the published 2017 files\n\n| file | key | seed | emitted | why |\n"
            "|---|---|---|---|---|\n"
        )
        out.extend(
            f"| {d.get('file')} | `{_cell(d.get('key'))}` | {_cell(d.get('seed'))} | {_cell(d.get('emitted'))} "
            f"| {_cell(d.get('why'))} |\n"
            for d in bundle.differences
        )
    notes = {n: f for n, f in bundle.lint.items() if f}
    if notes:
        out.append("\n## Linter notes on the emitted files\n\n")
        for name, findings in notes.items():
            out.extend(f"- {name}: {_cell(f)}\n" for f in findings)
    return out


def _oltp(plan: OltpPlan) -> str:
    """explain.md's section on bench/sysbench-oltp.sh: what it runs, how it is sized, what each case proves."""
    runs = plan.iterations * len(plan.tests) * len(plan.threads)
    seconds = runs * (plan.time + plan.warmup_time)
    took = f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"
    out = [
        "\n## Application-level run (bench/sysbench-oltp.sh)\n\n",
        f"CBT has no sysbench module, so the compiler writes this run itself. It creates the image "
        f"`{plan.pool}/{plan.image}` ({plan.image_gib} GiB) in the compiled pool, maps it (krbd by default; "
        "`MAP_METHOD=nbd` for rbd-nbd, `MAP_METHOD=fuse` for rbd-fuse and a loop device with direct I/O on hosts "
        f"without the kernel modules), makes {plan.fs} on it, starts its own {plan.flavour} ({plan.server}) with "
        "the compiled my.cnf and its datadir there (a private socket, no TCP listener), loads "
        f"{plan.tables} tables x {plan.table_size} rows, and runs {runs} measured runs: "
        f"{plan.iterations} iterations x {len(plan.tests)} tests x {len(plan.threads)} thread counts, each "
        f"time-based ({plan.time} s, interval lines every {plan.report_interval} s) after {plan.warmup_time} s of "
        f"warm-up that is not kept (about {took} after the load). Iterations are the outer loop, so a "
        "drift over the run spreads over every case. Rows are chosen uniformly (`--rand-type=uniform`): "
        "sysbench's default puts most reads on 1 % of the rows, a hot set any buffer pool holds. Each run's "
        "output is one file, `<test>-threads<N>-iter<i>.txt`, that `flashtune ingest` reads. On any exit the "
        "script stops the server, unmounts, unmaps, and removes the image it created (`KEEP_IMAGE=1` keeps it); "
        "it refuses an image that exists and a results folder that is not empty.\n\n",
        f"- Data set: {plan.sizing.reason}\n",
        "- Which client settings apply: krbd (the default) is the kernel's own RBD client; it reads none of "
        "ceph.conf's [client] rbd_* options and has no cache of its own (with O_DIRECT nothing is cached between "
        "InnoDB and the OSDs). rbd-nbd and rbd-fuse run librbd, which reads the compiled [client] section "
        "(rbd_cache = false: no second copy beside the buffer pool).\n",
    ]
    if plan.server_overrides:
        out.append(
            "- This scale also replaces the server's sizes in the run's own option file: "
            + ", ".join(f"`{k} = {v}`" for k, v in plan.server_overrides.items())
            + " (the compiled my.cnf itself is unchanged).\n"
        )
    for fs, choices in sorted(plan.mkfs.items()):
        out.extend(f"- mkfs.{fs} `{c.option}`: {c.why}\n" for c in choices)
    for fs, choices in sorted(plan.mount.items()):
        out.extend(f"- mount ({fs}) `{c.option}`: {c.why}\n" for c in choices)
    out.extend(f"- rbd device map `-o {c.option}`: {c.why}\n" for c in plan.map_options)
    out.append("\nWhat each case answers and which setting it is meant to prove:\n\n")
    out.extend(f"- `{name}`: {_cell(note)}\n" for name, note in plan.case_notes.items())
    return "".join(out)

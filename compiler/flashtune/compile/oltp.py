"""The mysql workload's application-level run: sysbench OLTP against the compiled my.cnf on an RBD image.

CBT has no sysbench module, so the compiler writes the run itself (bench/sysbench-oltp.sh, emit/sysbench.py).
The plan's choices come from the workload profile's `benchmark.application` block; this module sizes it:
- the data set is at least twice every cache a row could sit in at once: the InnoDB buffer pool, the rest of the
  database host's RAM (the page cache: O_DIRECT keeps InnoDB's pages out of it, but the fuse method's loop device,
  the binary log and tmp files go through it), and the OSDs' caches (osd_memory_target x every OSD: the image's
  objects spread over all of them);
- the image holds that data set with room for page splits and the redo log;
- `--bench-scale smoke` replaces sizes and durations only (tables, rows, image, buffer pool and redo sizes, run
  and warm-up times), never the tests, thread counts, iterations or file-system choices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from flashtune.errors import DataError
from flashtune.model import Choice, Derived, GiB, OltpPlan, Setting

IMAGE = "flashtune-oltp"
MiB = 1 << 20
# what InnoDB uses when my.cnf sets nothing (MariaDB 10.11 / MySQL 8.x defaults)
DEFAULT_BUFFER_POOL = 128 * MiB
DEFAULT_LOG_FILE = 96 * MiB
# my.cnf keys that are sizes a smoke run may replace (the redo key the flavour uses)
REDO_KEYS = ("innodb_log_file_size", "innodb_redo_log_capacity")


def _mycnf(settings: Sequence[Setting], key: str) -> int | None:
    for s in settings:
        if s.file == "my.cnf" and s.key == key:
            return int(s.value)
    return None


def _choices(rows: Any) -> tuple[Choice, ...]:
    if isinstance(rows, dict):  # {option: {value, why}} -> option=value
        return tuple(Choice(f"{k}={v['value']}", str(v["why"])) for k, v in rows.items())
    return tuple(Choice(str(r["option"]), str(r["why"])) for r in rows or ())


def plan(
    app: dict[str, Any], pool: str, ctx: dict[str, Any], settings: Sequence[Setting], scale: str = "full"
) -> OltpPlan:
    """The sysbench OLTP plan for this compile (see the module docstring)."""
    flavour = str(ctx["mysql_flavour"])
    tools = (app.get("flavours") or {}).get(flavour)
    if tools is None:
        raise DataError(
            f"the mysql workload's application run names no server commands for {flavour}",
            suggestion="add the flavour under benchmark.application.flavours in workload-mysql.yaml",
        )
    table_size, image_gib, sizing = _data_set(app, ctx, settings)
    run = {
        "time": int(app["time"]),
        "warmup_time": int(app["warmup_time"]),
        "report_interval": int(app["report_interval"]),
        "tables": int(app["tables"]),
        "table_size": table_size,
        "image_gib": image_gib,
    }
    overrides: dict[str, int] = {}
    if scale != "full":
        overrides, sizing = _scaled(app, scale, settings, run, sizing)
    proves = app.get("proves") or {}
    tests = tuple(str(t) for t in app["tests"])
    threads = tuple(int(n) for n in app["threads"])
    notes = {
        f"{t}-threads{n}": _note(t, n, run, int(app["iterations"]), str(proves.get(t, "")))
        for t in tests
        for n in threads
    }
    fs = str(app["fs"])
    return OltpPlan(
        flavour=flavour,
        server=str(tools["server"]),
        client=str(tools["client"]),
        admin=str(tools["admin"]),
        install=tuple(str(x) for x in tools["install"]),
        pool=pool,
        image=IMAGE,
        image_gib=run["image_gib"],
        tables=run["tables"],
        table_size=run["table_size"],
        tests=tests,
        threads=threads,
        iterations=int(app["iterations"]),
        time=run["time"],
        warmup_time=run["warmup_time"],
        report_interval=run["report_interval"],
        map_method=str(app["map"]),
        map_options=_choices(app.get("map_options")),
        fs=fs,
        mkfs={k: _choices(v) for k, v in (app.get("mkfs") or {}).items()},
        mount={k: _choices(v) for k, v in (app.get("mount") or {}).items()},
        server_overrides=overrides,
        scale=scale,
        sizing=sizing,
        case_notes=notes,
    )


def _data_set(
    app: dict[str, Any], ctx: dict[str, Any], settings: Sequence[Setting]
) -> tuple[int, int, Derived]:
    """Rows per table and the image size: the data set is twice every cache it could sit in (buffer pool, the
    database host's page cache, the OSDs' caches), the image holds it and the redo with headroom."""
    pool_bytes = _mycnf(settings, "innodb_buffer_pool_size") or DEFAULT_BUFFER_POOL
    ram = int(float(ctx["db_ram_gib"]) * GiB)
    page_cache = max(0, ram - pool_bytes)
    osd_cache = int(ctx["osds"]) * int(ctx["osd_memory_target"])
    caches = pool_bytes + page_cache + osd_cache
    tables = int(app["tables"])
    row = int(app["row_bytes"])
    table_size = math.ceil(2 * caches / (tables * row))
    data = tables * table_size * row
    redo = max(
        _mycnf(settings, "innodb_redo_log_capacity") or 0,
        2 * (_mycnf(settings, "innodb_log_file_size") or DEFAULT_LOG_FILE),
    )
    image_gib = max(
        int(app["min_image_gib"]),
        math.ceil((data * float(app["image_headroom"]) + 2 * redo) / GiB) + int(app["image_extra_gib"]),
    )
    sizing = Derived(
        table_size,
        f"{tables} tables x {table_size} rows x {row} B = {data / GiB:.1f} GiB >= 2 x (buffer pool "
        f"{pool_bytes / GiB:.1f} GiB + page cache {page_cache / GiB:.1f} GiB (the rest of the database host's "
        f"{ram / GiB:g} GiB) + OSD caches {ctx['osds']} x {int(ctx['osd_memory_target']) / GiB:.2f} GiB = "
        f"{osd_cache / GiB:.1f} GiB) = {2 * caches / GiB:.1f} GiB; image {image_gib} GiB = tables x "
        f"{app['image_headroom']} + 2 x redo {redo / GiB:.2f} GiB + {app['image_extra_gib']} GiB "
        f"(at least {app['min_image_gib']} GiB); sysbench --rand-type=uniform spreads the rows read over all of it",
        {
            "tables": tables,
            "row_bytes": row,
            "buffer_pool": pool_bytes,
            "db_ram": ram,
            "osd_cache": osd_cache,
        },
    )
    return table_size, image_gib, sizing


def _scaled(
    app: dict[str, Any], scale: str, settings: Sequence[Setting], run: dict[str, int], sizing: Derived
) -> tuple[dict[str, int], Derived]:
    """A smaller --bench-scale: its sizes and durations put into `run`, the my.cnf sizes the script's server
    overrides, and the sizing's reason with the full-scale one after it."""
    overrides: dict[str, int] = {}
    table = (app.get("scales") or {}).get(scale)
    if table is None:
        raise DataError(f"unknown bench scale {scale!r}", suggestion="use full or smoke")
    run.update({k: int(v) for k, v in table.items() if k in run})
    overrides["innodb_buffer_pool_size"] = int(table["innodb_buffer_pool_size"])
    redo_key = next((k for k in REDO_KEYS if _mycnf(settings, k) is not None), "innodb_log_file_size")
    overrides[redo_key] = int(table["innodb_log_file_size"])
    sizing = Derived(
        run["table_size"],
        f"--bench-scale {scale} (sizes and durations only): {run['tables']} tables x {run['table_size']} "
        f"rows on a {run['image_gib']} GiB image, buffer pool {overrides['innodb_buffer_pool_size'] // MiB} "
        f"MiB, {redo_key} {overrides[redo_key] // MiB} MiB, {run['time']} s runs after {run['warmup_time']} s "
        f"of warm-up. At full scale: {sizing.reason}",
        sizing.inputs,
    )
    return overrides, sizing


def _note(test: str, threads: int, run: dict[str, int], iterations: int, proves: str) -> str:
    """What one case (test x thread count) answers, then which setting it is meant to prove."""
    writes = test != "oltp_read_only"
    if threads == 1:
        what = (
            "one transaction at a time: its latency is the sum of its round trips, each read that misses the "
            "buffer pool" + (" and the commit's redo write" if writes else "") + " one RBD request"
        )
    else:
        what = (
            f"the transaction rate {threads} connections reach together (concurrent buffer-pool misses"
            + (", group commit sharing redo writes" if writes else "")
            + ")"
        )
    return (
        f"sysbench {test} at {threads} thread(s), {run['time']} s after {run['warmup_time']} s of warm-up, "
        f"{iterations} iterations: {what}. {proves}"
    )

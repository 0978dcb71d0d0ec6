"""Rules between keys: full ratios in order, min_size <= size, EC width vs failure domains, memory vs RAM,
the ephemeral port range vs Ceph's ports. Missing keys take the defaults in data/lint/rules.yaml."""

from __future__ import annotations

import re
from typing import Any

from flashtune.lint import ruledata
from flashtune.lint.ceph import merged
from flashtune.lint.common import Context
from flashtune.lint.mycnf import is_server_group
from flashtune.lint.values import ceph_value, mysql_value
from flashtune.parse.confdoc import ConfDoc, Entry
from flashtune.releases import CEPH_RELEASES, ceph_index


def _num(e: Entry | None, type_: str = "float") -> float | None:
    if e is None or e.value is None:
        return None
    try:
        v = ceph_value(type_, e.value)
    except ValueError:
        return None  # reported as wrong-type elsewhere
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _message_budget(keys: dict[str, Entry], mb: dict[str, Any], ctx: Context) -> None:
    """FT607: the message throttles a file sets take more than a quarter of osd_memory_target."""
    names: list[str] = list(mb["keys"])
    release = ctx.ceph_release
    if release in CEPH_RELEASES and ceph_index(release) < ceph_index("luminous"):
        return  # FileStore era: no osd_memory_target, no cache autotuner to take it from
    if not any(keys.get(k) is not None for k in names):
        return
    defaults: dict[str, float] = {k: float(v) for k, v in mb["defaults"].items()}
    vals = {k: _num(keys.get(k), "size") for k in [*names, "osd_memory_target"]}
    eff = {k: v if v is not None else defaults[k] for k, v in vals.items()}
    target, share = eff["osd_memory_target"], float(mb["share_of_target"])
    total = sum(eff[k] for k in names)
    if total <= share * target:
        return
    worst = max((k for k in names if vals[k] is not None), key=lambda k: eff[k])
    at = keys[worst]
    mib = 1 << 20
    ctx.add(
        at,
        "warning",
        "FT607",
        at.key,
        f"messages an OSD may hold ({' + '.join(f'{k} {eff[k] / mib:g} MiB' for k in names)} = "
        f"{total / mib:g} MiB) are more than {share:.0%} of osd_memory_target ({target / mib:g} MiB): they come "
        "out of the caches",
        f"keep them within {share * target / mib:g} MiB (e.g. ms_dispatch_throttle_bytes = 1/16 of the target)",
        on_value=True,
    )


_STRIPE_UNIT = re.compile(r"\bstripe_unit=(\d+)\b")


def _stripe_unit(keys: dict[str, Entry], ctx: Context) -> None:
    """FT608: an EC stripe unit above the 4 KiB default where the file does not turn Tentacle's EC
    optimisations on for new pools: without them a partial write rewrites the whole (larger) stripe."""
    unit_e = keys.get("osd_pool_erasure_code_stripe_unit")
    unit = _num(unit_e, "size")
    profile = keys.get("osd_pool_default_erasure_code_profile")
    m = _STRIPE_UNIT.search(profile.value or "") if profile is not None else None
    at, value = (profile, float(m[1])) if m and profile is not None else (unit_e, unit)
    if at is None or value is None or value <= 4096:
        return
    flag = keys.get("osd_pool_default_flag_ec_optimizations")
    release = ctx.ceph_release
    modern = release not in CEPH_RELEASES or ceph_index(release) >= ceph_index("tentacle")
    if modern and flag is not None and (flag.value or "").strip().lower() in ("true", "1", "yes", "on"):
        return
    ctx.add(
        at,
        "warning",
        "FT608",
        at.key,
        f"a {value / 1024:g} KiB EC stripe unit without EC optimisations on new pools"
        f"{'' if modern else f' ({release} has none)'}: every partial write rewrites the whole stripe and small "
        "objects are padded to it",
        "leave the 4 KiB default, or on Tentacle set osd_pool_default_flag_ec_optimizations = true with it",
        on_value=True,
    )


_EC_KM = re.compile(r"\b([km])=(\d+)")


def ceph(doc: ConfDoc, ctx: Context) -> None:
    rules: dict[str, Any] = ruledata.rules()["ceph"]
    keys = merged(doc)
    for group in rules["ordered_ratios"]:
        names: list[str] = list(group["keys"])
        vals = [_num(keys.get(k)) for k in names]
        lo, hi = group["range"]
        for k, v in zip(names, vals, strict=True):
            if v is not None and not (lo < v <= hi):
                ctx.add(
                    keys[k],
                    "error",
                    "FT601",
                    k,
                    f"{k} = {keys[k].value} must be a ratio in ({lo}, {hi}]",
                    "write it as a fraction, e.g. 0.95",
                    on_value=True,
                )
        eff = [v if v is not None else d for v, d in zip(vals, group["defaults"], strict=True)]
        for i in range(len(names) - 1):
            a, b = names[i], names[i + 1]
            if (vals[i] is not None or vals[i + 1] is not None) and not eff[i] < eff[i + 1]:
                at = keys.get(b) if vals[i + 1] is not None else keys[a]
                assert at is not None
                ctx.add(
                    at,
                    "error",
                    "FT601",
                    at.key,
                    f"{a} ({eff[i]:g}) must be below {b} ({eff[i + 1]:g}): {group['why']}",
                    f"order them {' < '.join(names)}",
                    on_value=True,
                )
    ps = rules["pool_size"]
    size_e, min_e = keys.get(ps["size"]), keys.get(ps["min_size"])
    size = _num(size_e, "uint")
    min_size = _num(min_e, "uint")
    eff_size = size if size is not None else float(ps["size_default"])
    if min_e is not None and min_size is not None and min_size > eff_size:
        ctx.add(
            min_e,
            "error",
            "FT602",
            min_e.key,
            f"{ps['min_size']} = {min_size:g} is above {ps['size']} = {eff_size:g}: every new pool blocks I/O",
            f"use {ps['min_size']} <= {eff_size:g} (usually size - 1)",
            on_value=True,
        )
    if size_e is not None and size == 1:
        allow = keys.get(ps["size_one_needs"])
        if allow is None or (allow.value or "").strip().lower() not in ("true", "1", "yes", "on"):
            ctx.add(
                size_e,
                "warning",
                "FT602",
                size_e.key,
                f"{ps['size']} = 1 keeps a single copy of every object, and monitors refuse it unless "
                f"{ps['size_one_needs']} = true",
                "use 3 (or 2 with min_size 2)",
                on_value=True,
            )
    _message_budget(keys, rules["message_budget"], ctx)
    _stripe_unit(keys, ctx)
    ec = keys.get("osd_pool_default_erasure_code_profile")
    domains = ctx.extra.get("failure_domains")
    if ec is not None and ec.value and domains:
        km = dict(_EC_KM.findall(ec.value))
        if "k" in km and "m" in km and int(km["k"]) + int(km["m"]) > int(domains):
            ctx.add(
                ec,
                "error",
                "FT603",
                ec.key,
                f"k+m = {int(km['k']) + int(km['m'])} chunks need as many failure domains, but there are "
                f"{domains}: PGs stay undersized",
                "lower k+m or add failure domains",
                on_value=True,
            )


def mycnf(doc: ConfDoc, ctx: Context) -> None:
    rules: dict[str, Any] = ruledata.rules()["mysql"]
    ram = ctx.extra.get("ram_bytes")
    if not ram:
        return
    for e in doc.entries:
        if e.key != "innodb_buffer_pool_size" or e.value is None or not is_server_group(e.section, rules):
            continue
        try:
            size = mysql_value("size", e.value)
        except ValueError:
            continue
        if not isinstance(size, int):
            continue
        if size >= int(ram):
            ctx.add(
                e,
                "error",
                "FT604",
                e.key,
                f"innodb_buffer_pool_size ({e.value}) is not below the machine's RAM ({int(ram) >> 30} GiB): "
                "the server fails to start (out of memory)",
                "use about 70% of RAM",
                on_value=True,
            )
        elif size > float(rules["ram_warn_fraction"]) * int(ram):
            ctx.add(
                e,
                "warning",
                "FT604",
                e.key,
                f"innodb_buffer_pool_size ({e.value}) is over {rules['ram_warn_fraction']:.0%} of RAM "
                f"({int(ram) >> 30} GiB): little is left for connections and the OS",
                "use about 70% of RAM",
                on_value=True,
            )


def sysctl(doc: ConfDoc, ctx: Context) -> None:
    rules: dict[str, Any] = ruledata.rules()["sysctl"]
    eff = doc.effective().get("", {})
    e = eff.get(rules["port_range_key"])
    if e is None or e.value is None:
        return
    parts = e.value.split()
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        return
    lo, hi = int(parts[0]), int(parts[1])
    reserved = eff.get(rules["reserved_ports_key"])
    clash = [f"{a}-{b}" if a != b else str(a) for a, b in rules["ceph_ports"] if a <= hi and b >= lo]
    if clash and reserved is None:
        ctx.add(
            e,
            "warning",
            "FT605",
            e.key,
            f"the ephemeral port range {lo}-{hi} covers Ceph's daemon ports ({', '.join(clash)}): outgoing "
            "connections can take them and a restarting daemon cannot bind",
            f"start the range above {max(b for _, b in rules['ceph_ports'])}, or reserve them: "
            f"{rules['reserved_ports_key']} = {','.join(f'{a}-{b}' if a != b else str(a) for a, b in rules['ceph_ports'])}",
            on_value=True,
        )

"""sysctl.conf rules: catalogued kernel knobs (removed keys, ranges, unsafe values), names that exist on no kernel
(with did-you-mean), names that exist only on some kernels, and syntax problems.

Which names exist comes from data/sysctl-names/ (a real kernel's /proc/sys and the kernel's documentation), not
from the machine running the linter: the file may be meant for another host.
"""

from __future__ import annotations

import fnmatch
import re
from functools import cache
from typing import Any

from flashtune.catalog import load_catalog
from flashtune.fileio import read_text
from flashtune.lint.common import Context, check_duplicates, check_value
from flashtune.lint.values import sysctl_value
from flashtune.parse.confdoc import ConfDoc, Entry
from flashtune.paths import data_path
from flashtune.yamlio import load_data

# Per-device keys: <prefix><device>.<name>, listed in the name lists as <prefix>*.<name>
_PER_DEVICE = re.compile(r"(net\.ipv[46]\.(?:conf|neigh)|net\.mpls\.conf)\.([^.]+)\.(.+)")


@cache
def name_data() -> tuple[
    dict[str, frozenset[str]], dict[str, dict[str, Any]], tuple[str, ...], frozenset[str]
]:
    """({kernel: names}, {name: range row}, module prefixes, kernels whose list is complete)."""
    index = dict(load_data("sysctl-names/index.yaml"))
    lists = {
        str(r["kernel"]): name_list(read_text(data_path(f"sysctl-names/{r['file']}"))) for r in index["lists"]
    }
    ranges = {str(n): dict(r) for r in index["ranges"] for n in r["names"]}
    complete = frozenset(str(r["kernel"]) for r in index["lists"] if r.get("complete"))
    return lists, ranges, tuple(str(p) for p in index["module_prefixes"]), complete


def name_list(text: str) -> frozenset[str]:
    """The names in a list file, one a line; blank lines and '#' comment lines are none. One split for the
    lines, and a search for the comment lines (a few, in the header) rather than a test of every line."""
    names = set(text.split("\n"))
    names.discard("")
    for comment in ("\n" + text).split("\n#")[1:]:
        names.discard("#" + comment.partition("\n")[0])
    return frozenset(names)


@cache
def suggestion_pool() -> frozenset[str]:
    lists, ranges, _, _ = name_data()
    names = {n for names in lists.values() for n in names if "*" not in n}
    return frozenset(names | set(ranges))


@cache
def _by_last_part() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for n in suggestion_pool():
        out.setdefault(n.rsplit(".", 1)[-1], []).append(n)
    return out


def _with_prefix(key: str) -> list[str]:
    """`ip_local_port_range = ...` (the prefix left out, as in public Oracle tuning files): the one full name
    that ends with it, if exactly one does."""
    if "." in key:
        return []
    found = _by_last_part().get(key, [])
    return found if len(found) == 1 else []


def _forms(key: str) -> tuple[str, ...]:
    """The key, and for a per-device key also its listed form (the device part as *)."""
    m = _PER_DEVICE.fullmatch(key)
    return (key, f"{m[1]}.*.{m[3]}") if m else (key,)


def is_glob(key: str) -> bool:
    """Does a sysctl.d key hold a glob(7) wildcard?"""
    return "*" in key or "?" in key or "[" in key


@cache
def _glob_matches(pattern: str) -> bool:
    """Does a sysctl.d glob (systemd-sysctl, glob(7)) match a name of some kernel? Names of per-device keys
    are listed as `net.ipv4.conf.*.x`, so the pattern is also tried with its device part as `*`."""
    lists, ranges, _, _ = name_data()
    names = {n for ns in lists.values() for n in ns} | set(ranges)
    pats = {pattern, *_forms(pattern)[1:]}
    return any(fnmatch.fnmatchcase(n, p) for p in pats for n in names)


def check_glob(e: Entry, ctx: Context) -> None:
    """A glob key sets every matching sysctl (systemd-sysctl and procps 4 expand it; a pattern that matches
    nothing sets nothing and fails nothing, so it is a warning)."""
    if _glob_matches(e.key):
        return
    ctx.add(
        e,
        "warning",
        "FT101",
        e.key,
        f"the pattern {e.key} matches no sysctl of any kernel flashtune knows: the line sets nothing",
        "check the pattern against `sysctl -a`",
    )


def check_name(e: Entry, ctx: Context, *, catalogued: bool = False) -> None:
    """Is the key a sysctl of some kernel? catalogued: the knob catalog knows it exists (on some kernels), so
    only whether this kernel list has it is said."""
    if is_glob(e.key):
        check_glob(e, ctx)
        return
    lists, ranges, modules, complete = name_data()
    soft = "ignore-errors" in e.flags
    forms = _forms(e.key)
    if e.key in ranges:
        r = ranges[e.key]
        ctx.add(
            e,
            "warning",
            "FT108",
            e.key,
            f"{e.key} exists only on kernels before {r['until']}: {r['why']}; on a newer kernel `sysctl -p` "
            "fails on this line",
            "delete the line if the hosts run a newer kernel",
        )
        return
    where = [k for k, names in lists.items() if any(f in names for f in forms)]
    if any(k in complete for k in where):
        return
    if where:
        missing = sorted(complete)
        ctx.add(
            e,
            "info",
            "FT108",
            e.key,
            f"{e.key} exists on some kernels only: documented for Linux {', '.join(sorted(where))}, absent "
            f"from Linux {', '.join(missing)} as flashtune's list has it (a kernel option or module decides)",
            "check `sysctl -a` on the target hosts",
        )
        return
    if catalogued:
        ctx.add(
            e,
            "info",
            "FT108",
            e.key,
            f"{e.key} exists on some kernels only: Linux {', '.join(sorted(complete))} as flashtune's list "
            "has it lacks it (a kernel option or module decides)",
            "check `sysctl -a` on the target hosts",
        )
        return
    if e.key.startswith(modules):
        ctx.add(
            e,
            "info",
            "FT108",
            e.key,
            f"{e.key} belongs to a module or feature flashtune has no name list for; it exists only where "
            "that module is loaded",
            "check `sysctl -a` on the target hosts",
        )
        return
    close = _with_prefix(e.key) or ctx.suggest(e.key, suggestion_pool())
    ctx.add(
        e,
        "warning" if soft else "error",
        "FT101",
        e.key,
        f"unknown sysctl {e.key}: no kernel flashtune knows has it"
        + ("" if soft else "; `sysctl -p` reports 'cannot stat' and fails"),
        f"did you mean {close[0]}?" if close else "delete the line, or check `sysctl -a`",
    )


def trailing_comment(e: Entry, ctx: Context) -> Entry:
    """procps `sysctl -p` has whole-line comments only (sysctl.c Preload): a trailing '# ...' is sent to the
    kernel as part of the value. Report it, and check the value before it."""
    ctx.add(
        e,
        "warning",
        "FT204",
        e.key,
        f"{e.key}: '#' after the value is not a comment in sysctl.conf; `sysctl -p` sends it to the kernel "
        "with the value",
        "move the comment to a line of its own",
        on_value=True,
    )
    head = (e.value or "").split("#", 1)[0].rstrip()
    return Entry(
        e.section, e.key, e.raw_key, head, e.line, e.column, e.value_line, e.value_column, e.quoted, e.flags
    )


def quoted_value(e: Entry, ctx: Context) -> Entry:
    """procps `sysctl -p` does not unquote: `kernel.core_pattern = "/dev/null"` writes the quotes too (its
    --dry-run echoes them), so a number is refused and a path or name gets quote characters. Report it, and
    check the value inside the quotes."""
    v = e.value or ""
    ctx.add(
        e,
        "warning",
        "FT204",
        e.key,
        f"{e.key} = {v}: sysctl.conf has no quoting; `sysctl -p` writes the quote characters to the kernel "
        "with the value",
        f"write {e.key} = {v[1:-1]}",
        on_value=True,
    )
    return Entry(
        e.section,
        e.key,
        e.raw_key,
        v[1:-1],
        e.line,
        e.column,
        e.value_line,
        e.value_column,
        e.quoted,
        e.flags,
    )


def lint(doc: ConfDoc, ctx: Context) -> None:
    catalog = load_catalog()
    check_duplicates(doc, ctx, what="file")
    for e in doc.entries:
        if "glob-exclude" in e.flags:
            continue  # `-key` alone: only keeps glob patterns off that key, sets nothing and cannot fail
        if e.value and "#" in e.value:
            e = trailing_comment(e, ctx)
        if e.value and len(e.value) >= 2 and e.value[0] == e.value[-1] and e.value[0] in "\"'":
            e = quoted_value(e, ctx)
        knob = catalog.get(e.key, "sysctl")
        if knob is None:
            check_name(e, ctx)
            continue
        status = catalog.status(knob, None)
        if status.state == "misspelt":
            ctx.add(
                e,
                "error",
                "FT101",
                e.key,
                f"unknown sysctl {e.key} (a misspelling of {status.target})",
                f"did you mean {status.target}?",
            )
            continue
        if not status.in_effect:
            soft = "ignore-errors" in e.flags
            ctx.add(
                e,
                "warning" if soft else "error",
                "FT102",
                e.key,
                f"{e.key} no longer exists (removed in {_kernel(status.since)})"
                + ("" if soft else ": `sysctl -p` fails on this line ('cannot stat')"),
                f"use {status.target}" if status.state == "renamed" else "delete the line",
            )
            continue
        check_name(e, ctx, catalogued=True)
        check_value(knob, e, ctx, sysctl_value)


def _kernel(version: str | None) -> str:
    v = str(version or "?")
    return v.replace("linux-", "Linux ") if v.startswith("linux") else f"Linux {v}"

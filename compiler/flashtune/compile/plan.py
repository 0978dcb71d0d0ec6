"""Diff a compiled central config against a live cluster: what would be added, changed, removed, or is right.

The live side is `ceph config dump --format json` (a list of {section, name, value, mask}) or a ceph.conf.
Values are compared canonically (flashtune.compile.central.canonical: sizes, booleans, numbers), so `4G` and
`4294967296` are the same. Nothing is applied: the result is a report and the delta commands.

Removed = the live database sets a key flashtune manages at a scope the plan does not use (it would
shadow or contradict the plan); keys flashtune does not set are left alone and only counted.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from flashtune.compile.central import canonical, key_type
from flashtune.emit.cephcentral import ordered, rm_command, set_command
from flashtune.fileio import read_text
from flashtune.model import CentralConfig, CentralValue
from flashtune.parse import parse_text

KINDS = ("add", "change", "remove", "same")
_JSON_LIST = re.compile(r"\s*\[\s*[{\]]")  # a dump starts `[{` (or is `[]`); a ceph.conf starts `[global]`


@dataclass(frozen=True)
class LiveValue:
    target: str  # who or who/mask, as `ceph config set` takes it
    key: str
    value: str
    where: str  # file:line the value came from
    in_file: bool = False  # from a ceph.conf (not the config database)

    @property
    def daemon(self) -> str:
        return self.target.split("/", 1)[0].split(".", 1)[0]


@dataclass(frozen=True)
class Change:
    kind: str  # add | change | remove | same
    target: str
    key: str
    current: str | None
    wanted: str | None
    where: str = ""  # where the live value came from
    in_file: bool = False  # a ceph.conf line: `ceph config rm` cannot remove it

    @property
    def daemon(self) -> str:
        return self.target.split("/", 1)[0].split(".", 1)[0]


@dataclass
class Plan:
    changes: list[Change]
    unmanaged: int  # live keys flashtune does not set (left alone)
    source: str

    def count(self) -> dict[str, int]:
        c = Counter(ch.kind for ch in self.changes)
        return {k: c.get(k, 0) for k in KINDS}

    @property
    def delta(self) -> list[Change]:
        return [c for c in self.changes if c.kind != "same"]


def read_live(path: str | Path) -> list[LiveValue]:
    """Live values from a `ceph config dump --format json` file or a ceph.conf (the project's parsers:
    flashtune.parse.cephjson and flashtune.parse.cephconf; the last of repeated keys wins, as in Ceph)."""
    text = read_text(path)
    kind = "ceph-config.json" if _JSON_LIST.match(text) else "ceph.conf"
    doc = parse_text(text, kind, str(path))
    out: dict[tuple[str, str], LiveValue] = {}
    for e in doc.entries:
        mask = next((f.split(":", 1)[1] for f in e.flags if f.startswith("mask:")), "")
        target = f"{e.section}/{mask}" if mask else e.section
        out[(target, e.key)] = LiveValue(
            target, e.key, e.value or "", f"{path}:{e.line}", kind == "ceph.conf"
        )
    return list(out.values())


def diff(config: CentralConfig, live: list[LiveValue], source: str = "") -> Plan:
    wanted = {(v.target, v.key): v for v in config.values}
    have = {(lv.target, lv.key): lv for lv in live}
    managed = {v.key for v in config.values}
    changes: list[Change] = []
    for v in ordered(config.values):
        cur = have.get((v.target, v.key))
        if cur is None:
            changes.append(Change("add", v.target, v.key, None, v.value))
        elif canonical(cur.value, v.type) == canonical(v.value, v.type):
            changes.append(Change("same", v.target, v.key, cur.value, v.value, cur.where))
        else:
            changes.append(Change("change", v.target, v.key, cur.value, v.value, cur.where))
    unmanaged = 0
    for (target, key), lv in have.items():
        if (target, key) in wanted:
            continue
        if key in managed:
            changes.append(Change("remove", target, key, lv.value, None, lv.where, lv.in_file))
        else:
            unmanaged += 1
    return Plan(changes, unmanaged, source)


def delta_commands(plan: Plan) -> list[str]:
    out = []
    for c in plan.delta:
        if c.kind == "remove" and c.in_file:
            out.append(
                f"# remove `{c.key}` from [{c.target}] in {c.where} (a local file: ceph config rm cannot)"
            )
        elif c.kind == "remove":
            out.append(rm_command(c.target, c.key))
        else:
            out.append(
                set_command(
                    CentralValue(
                        who=c.target.split("/", 1)[0],
                        key=c.key,
                        value=c.wanted or "",
                        mask=c.target.split("/", 1)[1] if "/" in c.target else "",
                    )
                )
            )
    return out


def render(plan: Plan) -> str:
    """A plain-text report, grouped by daemon type: one line per key, then the totals."""
    counts = plan.count()
    out = [
        f"plan against {plan.source}: "
        + ", ".join(f"{counts[k]} {k}" for k in KINDS)
        + f"; {plan.unmanaged} live keys flashtune does not set are left alone\n"
    ]
    mark = {"add": "+", "change": "~", "remove": "-", "same": "="}
    by_daemon: dict[str, list[Change]] = {}
    for c in plan.changes:
        by_daemon.setdefault(c.daemon, []).append(c)
    for daemon, items in by_daemon.items():
        tally = Counter(x.kind for x in items)
        out.append(f"\n[{daemon}] " + ", ".join(f"{tally.get(k, 0)} {k}" for k in KINDS) + "\n")
        for ch in items:
            if ch.kind == "change":
                out.append(f"  {mark[ch.kind]} {ch.target} {ch.key}: {ch.current} -> {ch.wanted}\n")
            elif ch.kind == "remove":
                out.append(f"  {mark[ch.kind]} {ch.target} {ch.key} (now {ch.current})\n")
            else:
                out.append(f"  {mark[ch.kind]} {ch.target} {ch.key} = {ch.wanted}\n")
    return "".join(out)


def canonical_live(lv: LiveValue) -> str:
    return canonical(lv.value, key_type(lv.key))

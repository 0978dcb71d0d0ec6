"""Central-config emitters: the `ceph config set` script, the `ceph config assimilate-conf` input, the
minimal ceph.conf (keys that only work from a local file) and the explain.md section saying why.

The script is idempotent: `ceph config set` stores a value (setting the same value again changes nothing,
src/mon/ConfigMonitor.cc drops no-op changes), and flashtune never runs it: the operator does.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from typing import Any

from flashtune.emit.common import header
from flashtune.model import DAEMON_TYPES, CentralConfig, CentralValue, LocalValue

SCRIPT_NAME = "ceph-config.sh"
ASSIMILATE_NAME = "ceph-assimilate.conf"
MINIMAL_NAME = "ceph.minimal.conf"


def _rank(v: CentralValue) -> tuple[int, str, str, str]:
    base = v.daemon
    return (DAEMON_TYPES.index(base) if base in DAEMON_TYPES else len(DAEMON_TYPES), v.who, v.mask, v.key)


def ordered(values: Iterable[CentralValue]) -> list[CentralValue]:
    """Widest scope first (global, then daemon types, then masks), so a reader sees overrides last."""
    return sorted(values, key=_rank)


def set_command(v: CentralValue) -> str:
    return f"ceph config set {shlex.quote(v.target)} {v.key} {shlex.quote(v.value)}"


def rm_command(target: str, key: str) -> str:
    return f"ceph config rm {shlex.quote(target)} {key}"


def script(lines: Iterable[str], inputs: Mapping[str, Any], what: str) -> str:
    """A bash script of ceph commands that stops at the first one Ceph refuses."""
    body = list(lines)
    out = [
        "#!/usr/bin/env bash\n",
        header("#", inputs),
        f"# {what}\n",
        "# flashtune never runs this: review it, then run it where `ceph` reaches the cluster (admin key).\n",
        "set -euo pipefail\n",
    ]
    if not body:
        out.append("# nothing to do\n")
    out.extend(f"{line}\n" for line in body)
    return "".join(out)


def emit_script(config: CentralConfig, inputs: Mapping[str, Any]) -> str:
    return script(
        (set_command(v) for v in ordered(config.values)),
        inputs,
        "Stores every compiled option in the monitors' config database; safe to run again.",
    )


def emit_assimilate(config: CentralConfig, inputs: Mapping[str, Any]) -> str:
    """`ceph config assimilate-conf -i FILE -o minimal.conf` input: one section per target.

    Ceph stores a key only where the database has no different value for that section yet (it hands the
    others back in -o), so this is for a first import; the script above also updates existing values.
    Masked values of a key that also has an unmasked value in the same section would be handed back
    (the mon sees a conflict), so those are left to the script."""
    unmasked = {(v.who, v.key) for v in config.values if not v.mask}
    sections: dict[str, list[tuple[str, str]]] = {}
    skipped: list[CentralValue] = []
    for v in ordered(config.values):
        if v.mask and (v.who, v.key) in unmasked:
            skipped.append(v)
            continue
        sections.setdefault(v.target, []).append((v.key, v.value))
    for loc in config.local:
        sections.setdefault(loc.section, []).append((loc.key, loc.value))
    out = [
        header("#", inputs),
        "# Input for: ceph config assimilate-conf -i ceph-assimilate.conf -o ceph.minimal.conf\n",
        "# Ceph keeps any different value the database already holds (and hands that line back), and hands\n",
        "# back the keys that only work from a local file: use ceph-config.sh to update a running cluster.\n",
    ]
    if skipped:
        out.append(
            "# Masked overrides of keys also set unmasked in the same section are only in ceph-config.sh:\n"
        )
        out.extend(f"#   {set_command(v)}\n" for v in skipped)
    for target, kv in sections.items():
        out.append(f"\n[{target}]\n")
        out.extend(f"{k} = {val}\n" for k, val in kv)
    return "".join(out)


def emit_minimal(local: Iterable[LocalValue], inputs: Mapping[str, Any]) -> str:
    """The keys a daemon must find in its own ceph.conf (add fsid and mon_host of your cluster)."""
    sections: dict[str, list[LocalValue]] = {}
    for loc in local:
        sections.setdefault(loc.section, []).append(loc)
    out = [
        header("#", inputs),
        "# Minimal ceph.conf: fsid and mon_host of your cluster (`ceph config generate-minimal-conf`)\n",
        "# plus the compiled keys that only work from a local file; everything else is in ceph-config.sh.\n",
    ]
    for section in sorted(sections, key=lambda s: (s != "global", s)):
        out.append(f"\n[{section}]\n")
        out.extend(f"{loc.key} = {loc.value}\n" for loc in sections[section])
    return "".join(out)


def explain_section(config: CentralConfig) -> str:
    """explain.md: where each ceph.conf key goes on a config-database cluster, and why."""
    out = [
        "\n## Central config (ceph-config.sh, ceph-assimilate.conf, ceph.minimal.conf)\n\n",
        f"{len(config.values)} keys go to the monitors' config database, {len(config.local)} stay in the local "
        "ceph.conf. A key stays local only when its Ceph option flags say the monitors cannot serve it.\n\n",
        "| who | key | value | where | why there |\n|---|---|---|---|---|\n",
    ]
    for v in ordered(config.values):
        why = (
            "config database: every daemon and client gets it from the monitors"
            if v.who == "global"
            else f"config database: `{v.daemon}` daemons get it from the monitors"
        )
        if v.who != v.daemon:
            why += f" (only `{v.who}.*` reads it)"
        if v.mask:
            why += f"; masked to `{v.mask}`, where the hosts differ"
        if v.note:
            why += f"; {v.note}"
        out.append(f"| {v.target} | `{v.key}` | `{v.value}` | config db | {why.replace('|', '/')} |\n")
    for loc in config.local:
        out.append(
            f"| {loc.section} | `{loc.key}` | `{loc.value}` | ceph.conf | {loc.why.replace('|', '/')} |\n"
        )
    return "".join(out)

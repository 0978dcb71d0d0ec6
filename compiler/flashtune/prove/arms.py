"""Arm B: the compiled central config's `ceph config set` lines, sorted into what prove applies and what not.

The lines are the compiler's own (flashtune.compile.deploy.central_config, rendered by
flashtune.emit.cephcentral.set_command: the same text ceph-config.sh holds), or read back from a compiled
folder's ceph-config.sh. Each is compared with the saved config dump (flashtune.compile.plan.diff) and with
the running release's option table:

- apply: differs from the cluster now and the daemons take it at run time;
- same: the cluster already has this value (nothing to change; it is the same in both arms);
- unknown: the running release has no such option. `ceph config set` refuses it (16.2.15: `Error EINVAL:
  unrecognized config option`, and with --force it would store it as level "unknown", read by nobody), so
  it is reported and not applied;
- restart: read only when a daemon starts (flag `startup`): applied only with consent to restart daemons
  (--restart-command, or --lab-restart in the lab), else left out with a note; the daemons are
  restarted at every arm switch and once more after the restore;
- create: read only when an OSD is created (flag `create`): never part of an A/B on existing OSDs.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from flashtune.compile.plan import LiveValue, diff
from flashtune.emit.cephcentral import set_command
from flashtune.errors import FlashtuneError
from flashtune.model import CentralConfig, CentralValue
from flashtune.prove.cluster import Cluster
from flashtune.prove.journal import Key

APPLY, SAME, UNKNOWN, RESTART, CREATE = "apply", "same", "unknown", "restart", "create"


@dataclass(frozen=True)
class ArmSetting:
    target: str
    key: str
    value: str  # compiled (arm B)
    current: str | None  # in the saved dump (arm A); None = not set, the daemons use their default
    status: str
    line: str  # the `ceph config set` line as ceph-config.sh has it
    note: str = ""


def read_script(path: Path) -> CentralConfig:
    """The `ceph config set WHO KEY VALUE` lines of a compiled ceph-config.sh."""
    if not path.exists():
        raise FlashtuneError(
            "no ceph-config.sh in the compiled folder",
            file=str(path.parent),
            suggestion="compile with compile-config (Ceph releases with a config database), or give "
            "--tier/--hardware and --workload instead of --compiled",
        )
    out = CentralConfig()
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.startswith("ceph config set "):
            continue
        words = shlex.split(line)
        if len(words) != 6:
            raise FlashtuneError("not a `ceph config set WHO KEY VALUE` line", file=str(path), line=no)
        who, _, mask = words[3].partition("/")
        out.values.append(CentralValue(who=who, mask=mask, key=words[4], value=words[5]))
    return out


def live_values(saved: dict[Key, str], source: str) -> list[LiveValue]:
    return [LiveValue(t, k, v, f"{source} ({t} {k})") for (t, k), v in saved.items()]


def classify(
    config: CentralConfig, saved: dict[Key, str], cluster: Cluster, *, restarts_allowed: bool, source: str
) -> tuple[list[ArmSetting], list[str]]:
    """The arm-B settings with their status, and notes on live keys that would shadow compiled ones."""
    plan = diff(config, live_values(saved, source), source)
    by_key = {(v.target, v.key): v for v in config.values}
    known = cluster.option_names()
    out: list[ArmSetting] = []
    notes: list[str] = []
    for ch in plan.changes:
        if ch.kind == "remove":
            notes.append(
                f"`{ch.target} {ch.key} = {ch.current}` in the config database is more specific than, or "
                "besides, the compiled scope: daemons it covers keep that value in arm B"
            )
            continue
        v = by_key[(ch.target, ch.key)]
        line = set_command(v)
        if ch.kind == "same":
            out.append(ArmSetting(ch.target, ch.key, v.value, ch.current, SAME, line, "already set"))
            continue
        info = cluster.option_help(ch.key) if (ch.key in known or ch.key.startswith("debug_")) else None
        if info is None:
            out.append(
                ArmSetting(
                    ch.target,
                    ch.key,
                    v.value,
                    ch.current,
                    UNKNOWN,
                    line,
                    "the running release has no such option: `ceph config set` would refuse it (EINVAL)",
                )
            )
            continue
        flags = set(info.get("flags") or ())
        if "create" in flags:
            out.append(
                ArmSetting(
                    ch.target, ch.key, v.value, ch.current, CREATE, line, "read only when an OSD is created"
                )
            )
        elif "startup" in flags or not info.get("can_update_at_runtime", True):
            note = (
                "daemons restarted for each arm (consent given)"
                if restarts_allowed
                else "read only at daemon start: left out (--restart-command, or --lab-restart in the lab, restarts daemons per arm)"
            )
            out.append(ArmSetting(ch.target, ch.key, v.value, ch.current, RESTART, line, note))
        else:
            out.append(ArmSetting(ch.target, ch.key, v.value, ch.current, APPLY, line))
    return out, notes


def applied(settings: list[ArmSetting], restarts_allowed: bool) -> list[ArmSetting]:
    return [s for s in settings if s.status == APPLY or (s.status == RESTART and restarts_allowed)]


def overridden(cluster: Cluster, settings: list[ArmSetting]) -> list[str]:
    """Arm-B keys an OSD does not take from the config database: a local ceph.conf (or the command line)
    beats the monitors' value in a daemon (ceph-real.md 2.1), so arm B would silently not be arm B there.
    Asked of one OSD (`ceph config show osd.N`: each value's source and what it overrides)."""
    ids = cluster.ceph("osd", "ls") or []
    keys = {s.key for s in settings if s.target.split("/", 1)[0].split(".", 1)[0] in ("osd", "global")}
    if not ids or not keys:
        return []
    daemon = f"osd.{ids[0]}"
    out = []
    for e in cluster.ceph("config", "show", daemon) or []:
        if e.get("name") in keys and e.get("source") != "mon":
            out.append(
                f"{daemon} takes `{e['name']}` = {e.get('value')} from its {e.get('source')}, not the config "
                "database: arm B does not change it on that daemon (remove it from the local ceph.conf)"
            )
    return out


def running_values(cluster: Cluster, keys: list[str]) -> dict[str, str | None]:
    """What one OSD runs with for these keys now (`ceph config show osd.N`; None = its default)."""
    ids = cluster.ceph("osd", "ls") or []
    if not ids or not keys:
        return {}
    shown = {
        e.get("name"): str(e.get("value")) for e in cluster.ceph("config", "show", f"osd.{ids[0]}") or []
    }
    return {k: shown.get(k) for k in keys}

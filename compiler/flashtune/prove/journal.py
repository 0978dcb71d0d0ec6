"""The journal of a prove run, and the restore that reads it.

Before prove changes anything it saves `ceph config dump -f json` (config-before.json) and opens journal.jsonl
in the output folder; every change is appended (and fsynced) *before* it is made: a `ceph config set`, a pool
it creates, a config key it needs for its own clean-up, a ceph-fuse mount of the CephFS, the S3 user the rgw
probes run as. Whatever ends the run (success, a failure, Ctrl-C, a crash followed by `flashtune prove
--restore DIR`), the restore removes the run's CephFS folder and unmounts the file system, removes the S3 user
with its buckets and objects, deletes the pools the journal names and puts back every key it touched: the saved value where the dump had one, `ceph config rm` where it had none. Then it
dumps the config database again and compares it with the saved dump byte for byte. Keys prove never touched
are left alone: a difference there is someone else's change during the run, reported, not overwritten.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashtune import userjson
from flashtune.errors import FlashtuneError
from flashtune.fileio import write_atomic
from flashtune.prove import cephfs, rgw
from flashtune.prove.cluster import CephCommandError, Cluster

DUMP_NAME = "config-before.json"
JOURNAL_NAME = "journal.jsonl"
POOL_PREFIX = "flashtune-prove-"

Key = tuple[str, str]  # (target as `ceph config set` takes it: who or who/mask, option name)


def dump_entries(text: str, file: str = "ceph config dump") -> dict[Key, str]:
    """`ceph config dump -f json` -> {(target, key): value}; a file that is not such a dump is an error naming it."""
    doc = userjson.loads(text or "[]", file=file, what="`ceph config dump -f json` output")
    out: dict[Key, str] = {}
    if not isinstance(doc, list):
        raise FlashtuneError("not a `ceph config dump -f json` list", file=file, line=1)
    for n, e in enumerate(doc):
        if not isinstance(e, dict) or not all(
            isinstance(e.get(k), str) for k in ("section", "name", "value")
        ):
            raise FlashtuneError(
                f"entry {n} of the config dump has no section, name and value",
                file=file,
                suggestion="the folder's config-before.json must be the dump prove saved, unedited",
            )
        mask = str(e.get("mask") or "")
        target = f"{e['section']}/{mask}" if mask else str(e["section"])
        out[(target, str(e["name"]))] = str(e["value"])
    return out


class Journal:
    """Append-only, one JSON object per line, fsynced before the change it announces is made."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / JOURNAL_NAME

    def append(self, op: str, **fields: Any) -> None:
        line = json.dumps({"op": op, "time": round(time.time(), 3), **fields}, sort_keys=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def entries(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        out = []
        for no, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                if not isinstance(entry, dict) or not isinstance(entry.get("op"), str):
                    raise FlashtuneError("journal line is not a journal entry", file=str(self.path), line=no)
                out.append(entry)
            except json.JSONDecodeError:
                # the crash came in the middle of this line: the change it announced was never made
                if no != len(self.path.read_text(encoding="utf-8").splitlines()):
                    raise FlashtuneError(
                        "journal line is not JSON", file=str(self.path), line=no, suggestion="was it edited?"
                    ) from None
        return out

    def touched(self) -> list[Key]:
        """Every (target, key) the run set or removed, in first-touched order."""
        keys: dict[Key, None] = {}
        for e in self.entries():
            if e["op"] in ("set", "rm"):
                if not isinstance(e.get("target"), str) or not isinstance(e.get("key"), str):
                    raise FlashtuneError(
                        f"a journal `{e['op']}` entry without target and key", file=str(self.path)
                    )
                keys[(e["target"], e["key"])] = None
        return list(keys)

    def pools(self) -> list[str]:
        return list(dict.fromkeys(e["name"] for e in self.entries() if e["op"] == "pool"))

    def mounts(self) -> list[dict[str, Any]]:
        return [e for e in self.entries() if e["op"] == "mount"]

    def s3_users(self) -> list[str]:
        """The S3 users the run created (or was about to create: the entry comes first)."""
        return list(dict.fromkeys(str(e["uid"]) for e in self.entries() if e["op"] == "s3-user"))


def save_dump(cluster: Cluster, folder: Path) -> str:
    text = cluster.config_dump_text()
    dump_entries(text)  # a dump that is not the JSON list we can restore from stops the run here
    # force: a dump here is an earlier run's, restored (prepare refuses a folder whose run was not)
    write_atomic(folder / DUMP_NAME, text, force=True, sync=True)
    return text


def set_value(
    cluster: Cluster, journal: Journal, saved: dict[Key, str], target: str, key: str, value: str
) -> None:
    """One journaled `ceph config set`."""
    journal.append("set", target=target, key=key, value=value, before=saved.get((target, key)))
    cluster.config_set(target, key, value)


def put_back(
    cluster: Cluster, saved: dict[Key, str], keys: list[Key], now: dict[Key, str] | None = None
) -> None:
    """Return keys to their saved state: the saved value, or removed where the dump had none."""
    now = dump_entries(cluster.config_dump_text()) if now is None else now
    for target, key in keys:
        want = saved.get((target, key))
        have = now.get((target, key))
        if want is None and have is not None:
            cluster.config_rm(target, key)
        elif want is not None and have != want:
            cluster.config_set(target, key, want)


def delete_pool(cluster: Cluster, journal: Journal, saved: dict[Key, str], pool: str) -> None:
    """Delete a pool prove created; where the monitors forbid deleting pools, allow it for this one delete
    (journaled, so the restore puts mon_allow_pool_delete back)."""
    if not pool.startswith(POOL_PREFIX):
        raise FlashtuneError(f"refusing to delete pool {pool!r}: prove only deletes the pools it named")
    if pool not in cluster.pools():
        return
    args = ("osd", "pool", "delete", pool, pool, "--yes-i-really-really-mean-it")
    r = cluster.ceph_text(*args, check=False)
    if r.returncode != 0 and "mon_allow_pool_delete" in (r.stderr + r.stdout):
        set_value(cluster, journal, saved, "mon", "mon_allow_pool_delete", "true")
        time.sleep(1)  # the monitors read the new value from their config database
        r = cluster.ceph_text(*args, check=False)
    if r.returncode != 0:
        raise CephCommandError(f"could not delete pool {pool}: {r.stderr.strip()}")


@dataclass
class Restored:
    identical: bool
    removed_pools: list[str] = field(default_factory=list)
    put_back: list[Key] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)  # (target key: before -> after) when not identical
    after_text: str = ""
    restarted_with: str = ""  # a crashed run's restart command: --restore cannot know it is safe to run it
    removed_folders: list[str] = field(default_factory=list)  # CephFS folders of the run, removed
    cleanup_errors: list[str] = field(default_factory=list)  # what could not be cleaned up (CephFS)
    unmounted: list[str] = field(default_factory=list)  # ceph-fuse mount points, unmounted
    removed_s3_users: list[str] = field(
        default_factory=list
    )  # S3 users removed with their buckets and objects
    new_pools: list[str] = field(default_factory=list)  # pools that appeared during the run, not prove's own

    @property
    def clean(self) -> bool:
        """The config database is as saved and everything the run made is gone."""
        return self.identical and not self.cleanup_errors

    def summary(self) -> str:
        left = (
            "; NOT cleaned up: " + "; ".join(self.cleanup_errors) + " (run --restore again once fixed)"
            if self.cleanup_errors
            else ""
        )
        restarts = (
            f"; the run restarted daemons ({self.restarted_with}): restart them again so that they read the "
            "restored start-time settings"
            if self.restarted_with
            else ""
        )
        appeared = (
            "; pools that appeared during the run and were left in place (the gateways make their data and index "
            "pools on first use): " + ", ".join(self.new_pools)
            if self.new_pools
            else ""
        )
        return self._summary() + left + restarts + appeared

    def _summary(self) -> str:
        fs = ", the CephFS test folder removed and ceph-fuse unmounted" if self.unmounted else ""
        if self.removed_s3_users:
            fs += f", S3 user {', '.join(self.removed_s3_users)} removed with its buckets and objects"
        if self.identical:
            return (
                f"config database byte-identical to the saved dump ({len(self.put_back)} keys put back, "
                f"{len(self.removed_pools)} test pools removed{fs})"
            )
        return "config database DIFFERS from the saved dump: " + "; ".join(self.differences)


def clean_cephfs(cluster: Cluster, journal: Journal) -> tuple[list[str], list[str]]:
    """Remove the run's CephFS folder (mounting again if a crash left it unmounted), then unmount every
    mount point the journal names. Returns (folders removed, mount points unmounted)."""
    mounts = journal.mounts()
    if not mounts:
        return [], []
    done = {e.get("dir") for e in journal.entries() if e["op"] == "folder-removed"}
    last = mounts[-1]
    path, name = Path(str(last["path"])), str(last["dir"])
    removed = []
    if name not in done:
        if not cephfs.mounted(path):
            journal.append("mount", path=str(path), fs=last["fs"], dir=name)
            cephfs.mount(cluster, path, str(last["fs"]))
        cephfs.remove_folder(path, name)
        journal.append("folder-removed", dir=name)
        removed.append(name)
    points = list(dict.fromkeys(str(e["path"]) for e in mounts))
    for point in points:
        cephfs.unmount(Path(point))
        journal.append("unmounted", path=point)
    return removed, points


def clean_s3(cluster: Cluster, journal: Journal) -> list[str]:
    """Remove the run's S3 users with their buckets and objects; check that no bucket of the run is left."""
    removed = []
    for uid in journal.s3_users():
        if rgw.remove_user(cluster, uid):
            journal.append("s3-user-removed", uid=uid)
            removed.append(uid)
        left = rgw.buckets_of_run(cluster, uid + "-")
        if left:
            raise CephCommandError(f"buckets of S3 user {uid} left after its removal: {', '.join(left)}")
    return removed


def _new_pools(cluster: Cluster, folder: Path) -> list[str]:
    """Pools there now that pools-before.json (saved before the first change) does not list."""
    before = folder / "pools-before.json"
    if not before.exists():
        return []
    doc = userjson.loads(before.read_text(encoding="utf-8") or "[]", file=str(before))
    names = {str(p.get("pool_name")) for p in doc if isinstance(p, dict)} if isinstance(doc, list) else set()
    return [p for p in cluster.pools() if p not in names and not p.startswith(POOL_PREFIX)]


def restore(cluster: Cluster, folder: Path) -> Restored:
    """Undo everything the journal in `folder` records, then compare the config database with the saved dump."""
    dump_path = folder / DUMP_NAME
    if not dump_path.exists():
        raise FlashtuneError(
            f"no saved config dump ({DUMP_NAME}) in this folder",
            file=str(folder),
            suggestion="give the --out folder of the prove run to restore",
        )
    saved_text = dump_path.read_text(encoding="utf-8")
    saved = dump_entries(saved_text, str(dump_path))
    journal = Journal(folder)
    journal.append("restore-begin")
    errors: list[str] = []
    try:
        folders, unmounted = clean_cephfs(cluster, journal)
    except FlashtuneError as e:  # the config database and the pools are restored all the same
        folders, unmounted = [], []
        errors.append(f"the CephFS test folder or mount: {e.message}")
    try:
        users = clean_s3(cluster, journal)
    except FlashtuneError as e:
        users = []
        errors.append(f"the S3 user and its buckets: {e.message}")
    pools = journal.pools()
    for pool in pools:
        delete_pool(cluster, journal, saved, pool)
    keys = journal.touched()  # after the pool deletes: they may have touched mon_allow_pool_delete
    put_back(cluster, saved, keys)
    after = cluster.config_dump_text()
    result = Restored(
        after == saved_text,
        pools,
        keys,
        after_text=after,
        removed_folders=folders,
        unmounted=unmounted,
        cleanup_errors=errors,
        removed_s3_users=users,
        new_pools=_new_pools(cluster, folder),
    )
    ops = [e["op"] for e in journal.entries()]
    last = {op: i for i, op in enumerate(ops)}
    if last.get("restart", -1) > last.get("daemons-restarted", -1):
        result.restarted_with = next(str(e["command"]) for e in journal.entries() if e["op"] == "restart")
    if not result.identical:
        now = dump_entries(after)
        for k in sorted(set(saved) | set(now)):
            if saved.get(k) != now.get(k):
                result.differences.append(f"{k[0]} {k[1]}: {saved.get(k)!r} -> {now.get(k)!r}")
        if not result.differences:
            result.differences.append("same entries, different bytes (order or formatting)")
    write_atomic(folder / "config-after.json", after, force=True, sync=True)
    journal.append("restored", identical=result.identical, differences=result.differences)
    return result

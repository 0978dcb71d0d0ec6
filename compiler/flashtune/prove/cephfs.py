"""The scratch workload's file system: mounted with ceph-fuse for the fio probes, and always unmounted.

ceph-fuse is a Ceph client that reads its client_* settings from the monitors when it starts, so prove mounts
the file system afresh in each arm (after that arm's settings are set) and unmounts it at the end of the arm.
The probes write one file in a folder of the run's own (`flashtune-prove-<tag>` at the file system's root).
Every mount is journaled before it is made; the restore (journal.restore) removes the run's folder, mounting
once more if a crash left it unmounted, and unmounts every mount point the journal names.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from flashtune.errors import FlashtuneError
from flashtune.prove.cluster import CephCommandError, Cluster

DIR_PREFIX = "flashtune-prove-"
_OCTAL = re.compile(r"\\([0-7]{3})")  # /proc/self/mounts escapes space, tab, newline and backslash


def file_systems(cluster: Cluster) -> list[str]:
    """The CephFS file systems (`ceph fs ls`), in the order Ceph lists them."""
    return [str(fs["name"]) for fs in cluster.ceph("fs", "ls") or ()]


def choose(cluster: Cluster, wanted: str | None) -> str:
    names = file_systems(cluster)
    if wanted:
        if wanted not in names:
            raise FlashtuneError(
                f"the cluster has no CephFS named {wanted!r}",
                suggestion="one of: " + (", ".join(names) or "(none: `ceph fs ls` lists no file system)"),
            )
        return wanted
    if not names:
        raise FlashtuneError(
            "the scratch probes need a CephFS, and `ceph fs ls` lists none",
            suggestion="create one (`ceph fs volume create NAME`), or choose other probes with --probe",
        )
    return names[0]


def new_mountpoint() -> Path:
    return Path(tempfile.mkdtemp(prefix="flashtune-prove-mnt-"))


def mounted(mountpoint: Path) -> bool:
    """Whether something is mounted at this path now (/proc/self/mounts)."""
    want = str(mountpoint.resolve(strict=False))
    with open("/proc/self/mounts", encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) > 1 and _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), fields[1]) == want:
                return True
    return False


def pid_file(mountpoint: Path) -> Path:
    """Each mount's own pid file, beside the mount point: the ceph.conf default ($run_dir/$cluster-$name.pid)
    is shared by every client of that name, and a ceph-fuse still exiting from the last arm holds its lock."""
    return mountpoint.with_name(mountpoint.name + ".pid")


def mount(cluster: Cluster, mountpoint: Path, fs: str) -> None:
    """ceph-fuse the file system's root at mountpoint (it returns once the mount is there)."""
    mountpoint.mkdir(parents=True, exist_ok=True)
    try:
        cluster.run(
            "ceph-fuse",
            "--client_fs",
            fs,
            "--pid_file",
            str(pid_file(mountpoint)),
            str(mountpoint),
            timeout=120,
        )
    except CephCommandError as e:
        if "is not installed" in e.message:
            raise CephCommandError(
                "`ceph-fuse` is not installed: the scratch probes mount the CephFS with it",
                suggestion="apt install ceph-fuse (or choose other probes with --probe)",
            ) from None
        raise
    deadline = time.monotonic() + 30
    while not mounted(mountpoint):
        if time.monotonic() > deadline:
            raise CephCommandError(f"ceph-fuse reported success but {mountpoint} is not mounted")
        time.sleep(0.2)


def unmount(mountpoint: Path) -> None:
    """Unmount (lazily if a killed tool still holds a file open) and remove the empty mount point."""
    for args in (["fusermount", "-u"], ["fusermount", "-uz"], ["umount", "-l"]):
        if not mounted(mountpoint):
            break
        try:
            subprocess.run([*args, str(mountpoint)], capture_output=True, text=True, timeout=60)
        except FileNotFoundError:
            continue
    if mounted(mountpoint):
        raise CephCommandError(
            f"could not unmount {mountpoint}", suggestion=f"unmount it by hand: fusermount -u {mountpoint}"
        )
    _wait_exited(pid_file(mountpoint))
    if mountpoint.is_dir():
        mountpoint.rmdir()


def _wait_exited(pids: Path, timeout: float = 30) -> None:
    """Wait for the unmounted ceph-fuse to exit (it removes its pid file), so the next mount starts clean."""
    deadline = time.monotonic() + timeout
    while pids.exists() and time.monotonic() < deadline:
        try:
            os.kill(int(pids.read_text().strip() or "0"), 0)
        except (ValueError, ProcessLookupError, FileNotFoundError):
            break
        time.sleep(0.1)
    pids.unlink(missing_ok=True)


def remove_folder(mountpoint: Path, name: str) -> None:
    """Remove the run's folder from the mounted file system (only a folder prove named)."""
    if not name.startswith(DIR_PREFIX) or "/" in name:
        raise FlashtuneError(f"refusing to remove {name!r}: prove only removes the folders it named")
    folder = mountpoint / name
    if folder.exists():
        shutil.rmtree(folder)

"""The database host's own files (db-host/) read by the programs that apply them: procps sysctl's dry run (every
key exists in this kernel's /proc/sys, nothing written), tuned's own profile loader (the child profile merges
with its stock parent into what explain.md says), the kernel's transparent-hugepage switch (offers `never`), and
the guest file-system options the OLTP run uses on a real loop device (ext4 and xfs accept them; the mount shows
them). The limits drop-in is measured in tests/real/test_compile_rules_real.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from flashtune.compile import CompileRequest, compile_bundle
from flashtune.hardware import tier_names
from flashtune.releases import MYSQL_FLAVOURS

pytestmark = pytest.mark.kernel

SYSCTL = "db-host/sysctl.d/90-flashtune-db.conf"
TUNED = "db-host/tuned/flashtune-db/tuned.conf"
STOCK_TUNED = Path("/usr/lib/tuned")
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's tuned package installs its modules for this interpreter

# tuned's loader, run by the system interpreter: the merged profile as JSON (units -> options)
LOAD = """
import json, sys
import tuned.utils.global_config as gc
from tuned.profiles.factory import Factory
from tuned.profiles.loader import Loader
from tuned.profiles.locator import Locator
from tuned.profiles.merger import Merger
from tuned.profiles.variables import Variables
loader = Loader(Locator(sys.argv[1:-1]), Factory(), Merger(), gc.GlobalConfig(), Variables())
profile = loader.load([sys.argv[-1]])
print(json.dumps({"main": dict(profile.options), **{n: dict(u.options) for n, u in profile.units.items()}}))
"""


@pytest.mark.parametrize("flavour", MYSQL_FLAVOURS)
@pytest.mark.parametrize("tier", tier_names())
def test_procps_accepts_every_db_host_sysctl(tier: str, flavour: str, tmp_path: Path) -> None:
    b = compile_bundle(CompileRequest(workload="mysql", tier=tier, mysql_flavour=flavour))
    f = tmp_path / "90-flashtune-db.conf"
    f.write_text(b.files[SYSCTL])
    try:
        r = subprocess.run(["sysctl", "--dry-run", "-p", str(f)], capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        pytest.skip("procps sysctl is not installed")
    assert r.returncode == 0 and not r.stderr, r.stderr
    wanted = {s.key: str(s.value) for s in b.settings if s.file == "db-host-sysctl.conf"}
    echoed = dict(line.split(" = ", 1) for line in r.stdout.splitlines())
    assert echoed == wanted and wanted
    for key in wanted:
        assert Path("/proc/sys", *key.split(".")).exists(), key


def test_tuned_loads_the_child_profile_over_its_stock_parent(tmp_path: Path) -> None:
    if not (STOCK_TUNED / "latency-performance" / "tuned.conf").is_file():
        pytest.skip("tuned is not installed: run scripts/install-system-deps.sh")
    b = compile_bundle(CompileRequest(workload="mysql", tier="iops"))
    profile = tmp_path / "flashtune-db" / "tuned.conf"
    profile.parent.mkdir()
    profile.write_text(b.files[TUNED])
    r = subprocess.run(
        [SYSTEM_PYTHON, "-c", LOAD, str(STOCK_TUNED), str(tmp_path), "flashtune-db"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    merged = json.loads(r.stdout)
    # the child's own line, and what its parent brings that explain.md's reason for the include names
    assert merged["vm"]["transparent_hugepages"] == "never"
    assert merged["cpu"]["governor"] == "performance" and "force_latency" in merged["cpu"]
    assert merged["sysctl"]["vm.dirty_ratio"] == "10" and merged["sysctl"]["vm.dirty_background_ratio"] == "3"
    # the parent's swappiness 10 is what the sysctl.d drop-in's 1 replaces (tuned re-applies sysctl.d after it)
    assert merged["sysctl"]["vm.swappiness"] == "10"
    include = next(s for s in b.settings if (s.file, s.key) == ("db-host-tuned.conf", "include"))
    assert "dirty_ratio 10" in include.why and "dirty_background_ratio 3" in include.why
    main = Path("/etc/tuned/tuned-main.conf")
    if main.is_file():
        assert any(line.replace(" ", "") == "reapply_sysctl=1" for line in main.read_text().splitlines()), (
            "tuned-main.conf no longer re-applies sysctl.d after a profile"
        )


def test_the_kernel_offers_transparent_hugepages_never() -> None:
    f = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if not f.exists():
        pytest.skip("this kernel has no transparent hugepages")
    assert "never" in f.read_text().replace("[", " ").replace("]", " ").split()


def _loop(image: Path) -> str:
    return subprocess.run(
        ["losetup", "--find", "--show", str(image)], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.parametrize("fs", ["ext4", "xfs"])
def test_the_guest_file_system_options_work_on_a_real_block_device(fs: str, tmp_path: Path) -> None:
    if os.geteuid() != 0 or not Path("/dev/loop-control").exists() or shutil.which(f"mkfs.{fs}") is None:
        pytest.skip(f"needs root, loop devices and mkfs.{fs}")
    if fs not in Path("/proc/filesystems").read_text():
        pytest.skip(f"this kernel has no {fs}")
    b = compile_bundle(CompileRequest(workload="mysql", tier="iops"))
    assert b.oltp is not None
    image = tmp_path / "disk.img"
    with image.open("wb") as f:
        f.truncate(512 << 20)
    dev = _loop(image)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    try:
        words = [w for c in b.oltp.mkfs[fs] for w in c.option.split()]
        if fs == "ext4":  # the script joins the -E lists (mke2fs keeps one)
            ext = [w for i, w in enumerate(words) if i and words[i - 1] == "-E"]
            words = [w for w in words if w != "-E" and w not in ext] + ["-E", ",".join(ext)]
        r = subprocess.run([f"mkfs.{fs}", "-q", *words, dev], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        opts = ",".join(c.option for c in b.oltp.mount[fs])
        subprocess.run(["mount", "-o", opts, dev, str(mnt)], check=True, capture_output=True, timeout=60)
        line = next(x for x in Path("/proc/mounts").read_text().splitlines() if x.split()[1] == str(mnt))
        shown = line.split()[3].split(",")
        assert "noatime" in shown and "discard" not in shown, line
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
        subprocess.run(["losetup", "-d", dev], capture_output=True)

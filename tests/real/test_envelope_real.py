"""A real fio run, ingested by `flashtune ingest`, compared with a hardware file's ceilings."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from flashtune.cli.main import main
from flashtune.envelope.cluster import bluestore_deferred_writes
from flashtune.lab import CephLab, ceph_cluster, free_ports


@pytest.mark.fio
def test_real_fio_results_against_the_envelope(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A real fio run, ingested by `flashtune ingest`, compared with a hardware file's ceilings."""
    if shutil.which("fio") is None:
        pytest.fail("fio is not installed: run scripts/install-system-deps.sh")
    out = tmp_path / "fio.json"
    subprocess.run(
        [
            "fio",
            f"--filename={tmp_path / 'data'}",
            "--size=16m",
            "--runtime=1",
            "--time_based=1",
            "--name=rw",
            "--rw=randwrite",
            "--bs=4k",
            "--ioengine=psync",
            "--output-format=json",
            f"--output={out}",
        ],
        check=True,
        capture_output=True,
    )
    csv = tmp_path / "results.csv"
    assert main(["ingest", str(out), "--out", str(csv)]) == 0
    measured = json.loads(out.read_text())["jobs"][0]["write"]["iops"]
    capsys.readouterr()
    assert main(["envelope", "--tier", "tco", "--results", str(csv), "--format", "json"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert rec["read_fraction"] == 0.0 and rec["block_size_bytes"] == 4096
    assert rec["measured_IOPS"] == pytest.approx(measured, rel=1e-3)
    assert rec["of_ceiling_pct"] == pytest.approx(100 * measured / rec["predicted_IOPS"], rel=1e-2)
    assert main(["envelope", "--tier", "tco", "--results", str(csv)]) == 0
    assert "% of the" in capsys.readouterr().out


def _ceph_default(name: str) -> int:
    if shutil.which("ceph-conf") is None:
        pytest.fail("ceph-conf is not installed: run scripts/install-system-deps.sh")
    r = subprocess.run(
        ["ceph-conf", "-c", "/dev/null", "--show-config-value", name],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(r.stdout.strip())


def _yaml_default(text: str, name: str) -> str:
    """The default of option `name` in a global.yaml.in text ('64_K', '0', ...)."""
    match = re.search(rf"^- name: {name}\n(?:  .*\n)*?  default: (\S+)", text, re.MULTILINE)
    assert match is not None, name
    return match.group(1)


@pytest.mark.ceph
def test_the_deferred_write_limits_are_the_real_16_2_15_defaults() -> None:
    """Today's min_alloc_size (the knob catalog's) and prefer_deferred_size (constants.yaml's) per device
    class, the ones the envelope gives a release its tables do not list, are what Pacific 16.2.15 starts
    with: so an HDD OSD without a DB device defers writes below 64 KiB, a flash one below 4 KiB."""
    rule = bluestore_deferred_writes()
    for cls in ("hdd", "ssd"):
        assert _ceph_default(f"bluestore_min_alloc_size_{cls}") == rule.min_alloc_today[cls]
        assert _ceph_default(f"bluestore_prefer_deferred_size_{cls}") == rule.prefer_deferred[cls]
    assert _ceph_default("bluestore_prefer_deferred_size") == 0  # 0: the _hdd/_ssd variant applies
    assert (rule.below("hdd", "pacific"), rule.below("ssd", "pacific")) == (65536, 4096)


def test_the_deferred_write_limits_match_the_later_releases_option_files(shared: Path) -> None:
    """Quincy 17.2.7, Reef 18.2.7 and Tentacle 20.2.4 ship the same defaults (their global.yaml.in)."""
    rule = bluestore_deferred_writes()
    size = {"0": 0, "4_K": 4096, "64_K": 65536}
    for release in ("quincy-17.2.7", "reef-18.2.7", "tentacle-20.2.4"):
        text = (shared / "reference" / "ceph-options" / release / "global.yaml.in").read_text()
        for cls in ("hdd", "ssd"):
            assert size[_yaml_default(text, f"bluestore_min_alloc_size_{cls}")] == rule.min_alloc_today[cls]
            assert (
                size[_yaml_default(text, f"bluestore_prefer_deferred_size_{cls}")]
                == rule.prefer_deferred[cls]
            )


def _deferred_bytes(lab: CephLab) -> int:
    """Client data BlueStore on osd.0 has sent through its WAL so far (bluestore_write_deferred_bytes)."""
    return int(lab.daemon("osd.0", "perf", "dump")["bluestore"]["bluestore_write_deferred_bytes"])


@pytest.mark.ceph
def test_a_real_16_2_15_osd_defers_the_overwrites_the_envelope_doubles(tmp_path: Path) -> None:
    """One real Pacific OSD, run with the hard-disk and then the flash settings (the drive class is what
    bluestore_debug_enforce_settings forces; the allocation unit is 4 KiB either way, the unit Pacific gives
    both): random overwrites of a written object go through the WAL exactly when the envelope's limit for
    that class says so, 4K and 32K on a hard disk, none of 4K/32K/64K on flash."""
    rule = bluestore_deferred_writes()
    with ceph_cluster(rgw=False, mds=False, osds=1, ports=free_ports()) as lab:
        lab.run("ceph", "config", "set", "global", "mon_allow_pool_size_one", "true")
        lab.run("ceph", "osd", "pool", "create", "p", "8")
        lab.run("ceph", "osd", "pool", "set", "p", "size", "1", "--yes-i-really-mean-it")
        whole = tmp_path / "whole"
        whole.write_bytes(os.urandom(4 << 20))
        for cls in ("hdd", "ssd"):
            lab.restart_with(f"[osd]\nbluestore_debug_enforce_settings = {cls}\n", daemons=("osd",))
            lab.run("rados", "-p", "p", "put", cls, str(whole))  # the object the overwrites land in
            for size in (4096, 32768, 65536):
                part = tmp_path / f"{cls}-{size}"
                part.write_bytes(os.urandom(size))
                before = _deferred_bytes(lab)
                for i in range(4):  # aligned, apart: each its own allocation units
                    lab.run("rados", "-p", "p", "put", cls, str(part), "--offset", str(size * (2 * i + 1)))
                deferred = _deferred_bytes(lab) - before
                # the OSD's own small objects (such as the osdmap epochs it stores) may go through the WAL meanwhile
                # with the hard-disk settings: never as much as one client write
                if size < rule.below(cls, "pacific"):
                    assert deferred >= 4 * size, (cls, size, deferred)
                else:
                    assert deferred < size, (cls, size, deferred)

"""`flashtune prove` without a cluster: arm B is the compiler's own ceph-config.sh, the journal and dump readers,
the chart, and the refusals that come before anything touches a cluster (tests/real/test_prove_real.py has the rest).
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from flashtune.compile import CompileRequest, compile_bundle
from flashtune.compile.deploy import central_config
from flashtune.emit.cephcentral import ordered, set_command
from flashtune.errors import FlashtuneError
from flashtune.prove import cephfs
from flashtune.prove.arms import read_script
from flashtune.prove.journal import Journal, dump_entries
from flashtune.prove.predict import predicted
from flashtune.prove.probes import PROBES, probes_for
from flashtune.prove.report import CaseResult, svg
from flashtune.prove.stats import compare


def flashtune(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flashtune.cli.main", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


@pytest.mark.parametrize("workload", ["block", "mysql"])
def test_arm_b_is_the_compiled_ceph_config_sh(workload: str, tmp_path: Path) -> None:
    bundle = compile_bundle(CompileRequest(workload=workload, tier="iops", ceph_release="pacific"))
    script = bundle.files["ceph-config.sh"]
    (tmp_path / "ceph-config.sh").write_text(script)
    read = read_script(tmp_path / "ceph-config.sh")
    lines = [line for line in script.splitlines() if line.startswith("ceph config set ")]
    assert lines and [set_command(v) for v in read.values] == lines
    # the compiler's own central-config result, not a re-derivation: the same lines in the same order
    assert [set_command(v) for v in ordered(central_config(bundle).values)] == lines


def test_dump_entries_keep_masks_as_config_set_takes_them() -> None:
    text = json.dumps(
        [
            {"section": "global", "name": "a", "value": "1", "mask": ""},
            {"section": "osd", "name": "b", "value": "3", "mask": "class:ssd", "device_class": "ssd"},
            {"section": "osd.1", "name": "c", "value": "0.500000", "mask": ""},
        ]
    )
    assert dump_entries(text) == {
        ("global", "a"): "1",
        ("osd/class:ssd", "b"): "3",
        ("osd.1", "c"): "0.500000",
    }


def test_journal_survives_a_line_cut_by_a_crash(tmp_path: Path) -> None:
    j = Journal(tmp_path)
    j.append("set", target="osd", key="k", value="1", before=None)
    j.append("pool", name="flashtune-prove-abc")
    with open(j.path, "a") as f:
        f.write('{"op": "set", "target": "osd", "key": "half')  # the crash came mid-write
    assert j.touched() == [("osd", "k")]
    assert j.pools() == ["flashtune-prove-abc"]


def test_chart_is_well_formed_svg() -> None:
    a, b = [100.0, 104.0, 98.0], [120.0, 125.0, 119.0]
    doc = ET.fromstring(svg([CaseResult("rados-write-4k <&>", a, b, compare(a, b))]))
    assert doc.tag.endswith("svg")
    assert len(doc.findall(".//{http://www.w3.org/2000/svg}circle")) == 6


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--out", "o", "--repeat", "2"], "at least 3 samples per arm"),
        (["--repeat", "3"], "--out DIR is required"),
        (["--out", "o", "--probe", "nope"], "unknown probe 'nope'"),
        (["--out", "o", "--file-mib", "0"], "--file-mib 0: at least 1"),
        (["--restore", "empty"], "no saved config dump"),
        (["--out", "o", "--conf", "missing.conf", "--dry-run"], "error:"),
    ],
)
def test_refusals_are_one_message_and_no_traceback(args: list[str], message: str, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    r = flashtune("prove", *args, cwd=tmp_path)
    assert r.returncode == 2, r
    assert message in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "o" / "journal.jsonl").exists()


def test_an_out_folder_with_files_is_not_reused_without_force(tmp_path: Path) -> None:
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "keep.txt").write_text("mine")
    r = flashtune("prove", "--out", "o", cwd=tmp_path)
    assert r.returncode == 2 and "already has files" in r.stderr
    assert (tmp_path / "o" / "keep.txt").read_text() == "mine"


def test_each_probe_gets_the_envelope_of_the_compiled_hardware() -> None:
    bundle = compile_bundle(CompileRequest(workload="block", tier="iops", ceph_release="pacific"))
    probes = probes_for("block")
    pred, cluster = predicted(bundle.hardware, bundle.shape, probes, "bluestore")
    assert set(pred) == {p.name for p in probes}
    assert all(r["predicted_IOPS"] > 0 and r["limit"] for r in pred.values())
    # three replicas: a 4 KiB write costs three media writes, a read one, so reads have the higher ceiling
    assert pred["rbd-randread-4k"]["predicted_IOPS"] > pred["rbd-randwrite-4k"]["predicted_IOPS"]
    assert "3 replicas" in cluster and f"{bundle.shape['nodes']} nodes" in cluster
    big = predicted(bundle.hardware, bundle.shape, [PROBES["rados-write-4m"]], "bluestore")[0][
        "rados-write-4m"
    ]
    assert big["predicted_MB_s"] > pred["rados-write-4k"]["predicted_MB_s"]


def test_a_predicted_limit_of_several_resources_comes_with_its_note(tmp_path: Path) -> None:
    """The iops tier's rgw probes include a 4 MiB PUT whose media and public-network ceilings are equal: the
    report's notes say what 'a = b' means; the block probes have single limits and no such note."""
    from flashtune.cli.prove import _predict
    from flashtune.prove.run import Options, Run

    for workload, listed in (("rgw", True), ("block", False)):
        bundle = compile_bundle(CompileRequest(workload=workload, tier="iops", ceph_release="pacific"))
        run = Run(Options(tmp_path), "16.2.15", {}, [], [], probes_for(workload), "p", "i", "tier iops")
        _predict(bundle, run)
        several = [r["limit"] for r in run.predicted.values() if len(r["limit_resources"]) > 1]
        assert bool(several) is listed and all(" = " in x or " ~ " in x for x in several)
        assert any("'a ~ b' a co-limit" in n for n in run.envelope_notes) is listed


@pytest.mark.parametrize(
    ("dump", "message"),
    [
        ('[{"section": "osd", "name": "k"', "config-before.json:1:"),
        ('{"section": "osd"}', "not a `ceph config dump -f json` list"),
        ('[{"section": "osd", "name": "k"}]', "entry 0 of the config dump has no section, name and value"),
    ],
)
def test_restore_names_a_damaged_saved_dump(dump: str, message: str, tmp_path: Path) -> None:
    (tmp_path / "run1").mkdir()
    (tmp_path / "run1" / "config-before.json").write_text(dump)
    r = flashtune("prove", "--restore", "run1", cwd=tmp_path)
    assert r.returncode == 2, r
    assert message in r.stderr and "Traceback" not in r.stderr


def test_scratch_is_probed_with_fio_on_the_mounted_cephfs(tmp_path: Path) -> None:
    scratch = probes_for("scratch")
    assert scratch and all(p.needs_file and p.tool == "fio-cephfs" for p in scratch)
    assert {p.engine for p in scratch} == {"psync", "libaio"}  # the plain and the asynchronous file path
    assert not any(p.needs_file for p in probes_for("block") + probes_for("mysql"))
    # the journal names every mount, so a restore after a crash knows what to unmount and remove
    j = Journal(tmp_path)
    j.append("mount", path="/tmp/flashtune-prove-mnt-x", fs="labfs", dir="flashtune-prove-abc")
    j.append("unmounted", path="/tmp/flashtune-prove-mnt-x")
    assert [e["dir"] for e in j.mounts()] == ["flashtune-prove-abc"]
    # the restore removes only a folder prove named, never another path on the user's file system
    (tmp_path / "home").mkdir()
    for name in ("home", "flashtune-prove-x/../home", ".."):
        with pytest.raises(FlashtuneError, match="prove only removes the folders it named"):
            cephfs.remove_folder(tmp_path, name)
    assert (tmp_path / "home").is_dir()

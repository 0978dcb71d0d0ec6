"""Every identifier flashtune emits for cephadm is one cephadm's own validator accepts (ServiceSpec.validate of
python3-ceph-common, the Debian Ceph 16.2.15 packages), however odd the hardware or fleet file names are."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from support.hostile import REPO, check, run

SYSTEM_PYTHON = "/usr/bin/python3"  # the Debian Ceph packages install python-common (cephadm's specs) there


_VALIDATE = """
import sys, yaml
from ceph.deployment.service_spec import ServiceSpec
for doc in yaml.safe_load_all(sys.stdin):
    spec = ServiceSpec.from_json(doc)
    spec.validate()
    print(spec.service_id)
"""


@pytest.fixture(scope="module")
def cephadm_python() -> str:
    r = subprocess.run(
        [SYSTEM_PYTHON, "-c", "import ceph.deployment.service_spec"], capture_output=True, text=True
    )
    if r.returncode != 0:
        pytest.skip(f"cephadm's python-common is not importable: {r.stderr.strip()[-160:]}")
    return SYSTEM_PYTHON


def _validated(python: str, spec: Path) -> list[str]:
    r = subprocess.run([python, "-c", _VALIDATE], input=spec.read_text(), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-800:]
    return r.stdout.split()


@pytest.mark.ceph
def test_a_free_text_hardware_name_gives_a_service_id_cephadm_accepts(
    tmp_path: Path, cephadm_python: str
) -> None:
    doc = yaml.safe_load((REPO / "data" / "tiers" / "iops.yaml").read_text())
    doc["name"] = "Dell R740xd NVMe (rack 4/row B) — 2024"
    hw = tmp_path / "nodes.yaml"
    hw.write_text(yaml.safe_dump(doc, allow_unicode=True))
    out = tmp_path / "o"
    check(
        run("flashtune.cli.compile", "--hardware", hw, "--workload", "block", "--out", out, cwd=tmp_path),
        rc=0,
    )
    assert _validated(cephadm_python, out / "cephadm" / "osd-spec.yaml") == [
        "flashtune-Dell-R740xd-NVMe-rack-4-row-B-2024"
    ]


@pytest.mark.ceph
def test_fleet_group_names_from_file_names_are_valid_service_ids(tmp_path: Path, cephadm_python: str) -> None:
    tier = yaml.safe_load((REPO / "data" / "tiers" / "iops.yaml").read_text())
    files = []
    for i, stem in enumerate(("rack 1 nodes", "rack#2")):
        f = tmp_path / f"{stem}.yaml"
        f.write_text(yaml.safe_dump({**tier, "hosts": f"r{i}n[01-04]"}))
        files += ["--hardware", f]
    out = tmp_path / "o"
    check(run("flashtune.cli.compile", *files, "--workload", "block", "--out", out, cwd=tmp_path), rc=0)
    ids = _validated(cephadm_python, out / "cephadm" / "osd-spec.yaml")
    assert ids == ["flashtune-rack-1-nodes", "flashtune-rack-2"], ids

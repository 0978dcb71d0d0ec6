"""Evidence references (flashtune.evidence): compile-config resolves them from what the snapshot build checked,
with the answers the data package gives (a broken table fails that build: tests/unit/test_snapshot.py); a bad
profile value still names its file and line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from flashtune import datapackage, evidence
from flashtune.paths import SOURCE_DATA, snapshot_dir

REPO = Path(__file__).resolve().parents[2]


def test_the_index_resolves_every_reference_as_the_data_package_does() -> None:
    assert snapshot_dir() is not None  # from checked/evidence.json, written by the snapshot build
    tables = datapackage.checked_tables()
    assert "sources" in tables
    for name, rows in tables.items():
        for row in rows:
            ref = f"{name}/{row['id']}"
            want = {k: row[k] for k in evidence.PLACE if row.get(k)}
            assert evidence.place(ref) == want, ref
            assert datapackage.resolve(ref) is not None
    for ref in ("sources/no-such-row", "no-such-table/guide-osd", "sources", "sources/", "/guide-osd"):
        assert evidence.place(ref) is None and datapackage.resolve(ref) is None, ref
    place = evidence.place("sources/guide-osd")
    assert place is not None and set(place) <= set(evidence.PLACE) and place.get("seed_file")


def test_a_profile_reference_that_names_no_row_stops_the_compile(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(SOURCE_DATA, data)
    profile = data / "profiles" / "workload-mysql.yaml"
    text = profile.read_text(encoding="utf-8")
    assert "evidence: [sources/guide-mycnf]" in text
    profile.write_text(text.replace("evidence: [sources/guide-mycnf]", "evidence: [sources/no-such-row]", 1))
    env = {**os.environ, "FLASHTUNE_DATA": str(data), "PYTHONPATH": str(REPO / "compiler")}
    cmd = [sys.executable, "-m", "flashtune.cli.compile", "--tier", "iops", "--workload", "mysql"]
    r = subprocess.run([*cmd, "--out", str(tmp_path / "out")], capture_output=True, text=True, env=env)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "'sources/no-such-row'" in r.stderr and "names no row" in r.stderr
    assert "workload-mysql.yaml:" in r.stderr
    assert not (tmp_path / "out").exists()


def test_a_profile_key_the_release_lacks_is_named_with_the_line_of_the_layer_that_sets_it(
    tmp_path: Path,
) -> None:
    """validate_settings names the last profile layer that sets a bad key, and its line."""
    data = tmp_path / "data"
    shutil.copytree(SOURCE_DATA, data)
    profile = data / "profiles" / "workload-mysql.yaml"
    lines = profile.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("rbd_cache:"))
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    lines.insert(at + 1, f"{indent}rbd_cache_no_such_option: {{value: 1, why: a key no release has}}\n")
    profile.write_text("".join(lines), encoding="utf-8")
    env = {**os.environ, "FLASHTUNE_DATA": str(data), "PYTHONPATH": str(REPO / "compiler")}
    cmd = [sys.executable, "-m", "flashtune.cli.compile", "--tier", "iops", "--workload", "mysql"]
    r = subprocess.run([*cmd, "--out", str(tmp_path / "out")], capture_output=True, text=True, env=env)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "'rbd_cache_no_such_option' does not exist in Ceph" in r.stderr
    assert f"workload-mysql.yaml:{at + 2}" in r.stderr

"""The evidence index (flashtune.evidence): compile-config resolves references from it, with the answers the
data package gives, and a broken table still fails; a bad profile value still names its file and line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from flashtune import datapackage, digests, evidence
from flashtune.errors import DataError
from flashtune.paths import SNAPSHOT_DIR, SOURCE_DATA, data_dir

REPO = Path(__file__).resolve().parents[1]


def test_the_index_resolves_every_reference_as_the_data_package_does() -> None:
    assert evidence._index(data_dir()) is not None  # the shipped snapshot has a matching index
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


def _snapshot_copy(tmp_path: Path) -> Path:
    snap = tmp_path / "_data"
    shutil.copytree(SNAPSHOT_DIR, snap)
    (snap / evidence.EVIDENCE_INDEX).unlink(missing_ok=True)
    return snap


def _restamp(snap: Path, rel: str) -> None:
    """Record a changed snapshot file in index.json, as a snapshot build does."""
    index = json.loads((snap / "index.json").read_text(encoding="utf-8"))
    data = (snap / rel).read_bytes()
    index["sources"][rel] = [len(data), 0, zlib.crc32(data)]
    (snap / "index.json").write_text(json.dumps(index), encoding="utf-8")


def test_a_broken_table_fails_the_index_build_with_its_file_and_line_and_writes_nothing(
    tmp_path: Path,
) -> None:
    snap = _snapshot_copy(tmp_path)
    sources = snap / "tables" / "sources.csv"
    lines = sources.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.append(lines[2])  # a duplicate id
    sources.write_text("".join(lines), encoding="utf-8")
    _restamp(snap, "tables/sources.csv")
    with pytest.raises(DataError, match="duplicate id") as err:
        evidence.write_index(snap)
    assert "tables/sources.csv" in str(err.value) and f":{len(lines)}" in str(err.value)
    assert not (snap / evidence.EVIDENCE_INDEX).exists()


def test_an_index_written_for_other_data_or_code_is_not_used(tmp_path: Path) -> None:
    snap = _snapshot_copy(tmp_path)
    assert evidence.write_index(snap)
    stamps = evidence._stamps(snap)
    assert stamps is not None
    found = digests.read(snap / evidence.EVIDENCE_INDEX, stamps)
    assert found is not None and "sources" in found[1]
    claims = snap / "tables" / "claims.csv"
    claims.write_text(claims.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    _restamp(snap, "tables/claims.csv")  # a table changed since the index was written
    changed = evidence._stamps(snap)
    assert changed is not None and changed != stamps
    assert digests.read(snap / evidence.EVIDENCE_INDEX, changed) is None
    assert (
        digests.read(snap / evidence.EVIDENCE_INDEX, {**stamps, "code": [*stamps["code"], 0]}) is None
    )  # other code wrote it
    text = (snap / evidence.EVIDENCE_INDEX).read_text(encoding="utf-8")
    (snap / evidence.EVIDENCE_INDEX).write_text(text[:20], encoding="utf-8")  # cut short
    assert digests.read(snap / evidence.EVIDENCE_INDEX, stamps) is None


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

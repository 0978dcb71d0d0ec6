"""The data snapshot (flashtune._data): data/ compiled to checked JSON at build time is what the CLIs read; it is
built only by the build, a bad data file fails the build with its file and line, and a snapshot built from other
data is never used."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashtune import paths
from flashtune.catalog import load_catalog
from flashtune.catalog.store import KNOBS, checked_knobs, load_from
from flashtune.compile import profiles
from flashtune.compile.profiles import read_profile
from flashtune.errors import DataError
from flashtune.evidence import EVIDENCE, checked_evidence
from flashtune.hardware import load_tier, read_hardware, tier_names
from flashtune.paths import compiled, data_dir, data_names, snapshot_dir
from flashtune.snapshot import CHECKED, build, compile_file, encode, matches
from flashtune.yamlio import YDict, YList, decode, line_of, load_data, load_yaml, parse_yaml

REPO = Path(__file__).resolve().parents[2]
SOURCE_DATA, SNAPSHOT_DIR = paths.SOURCE_DATA, paths.SNAPSHOT_DIR


def test_the_checkout_snapshot_is_a_fresh_build_of_data() -> None:
    assert matches(SOURCE_DATA, SNAPSHOT_DIR), "the snapshot is stale: make snapshot"
    assert data_dir() == SOURCE_DATA and snapshot_dir() == SNAPSHOT_DIR
    assert compiled(SOURCE_DATA / "knobs" / "ceph.yaml") == SNAPSHOT_DIR / "knobs" / "ceph.yaml"
    stamp = json.loads((SNAPSHOT_DIR / paths.STAMP).read_text(encoding="utf-8"))
    assert set(stamp) == {"flashtune", "sources"}  # the one stamp: version and data CRCs, nothing else
    for path in sorted(p for p in SOURCE_DATA.rglob("*") if p.is_file()):
        rel = path.relative_to(SOURCE_DATA).as_posix()
        assert (SNAPSHOT_DIR / rel).read_bytes() == compile_file(rel, path), f"stale: data/{rel}"
        if rel.endswith(".yaml"):  # one form of each file: a single line of JSON
            assert (SNAPSHOT_DIR / rel).read_text(encoding="utf-8").count("\n") == 0, rel
    for name, make in CHECKED.items():
        on_disk = json.loads((SNAPSHOT_DIR / paths.CHECKED / name).read_text(encoding="utf-8"))
        assert on_disk == json.loads(json.dumps(make(SOURCE_DATA, "data"))), name
    written = {p.relative_to(SNAPSHOT_DIR).as_posix() for p in SNAPSHOT_DIR.rglob("*") if p.is_file()}
    assert written == set(stamp["sources"]) | {paths.STAMP} | {f"{paths.CHECKED}/{n}" for n in CHECKED}


def _bad_build(tmp_path: Path, rel: str, edit: Any) -> str:
    """Build a snapshot of a data copy with one file edited; the build must fail and leave `out` as it was."""
    data, out = tmp_path / "data", tmp_path / "_data"
    shutil.copytree(SOURCE_DATA, data)
    build(data, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    path = data / rel
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(DataError) as err:
        build(data, out)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_data", "data"]  # no half-built folder left
    return str(err.value)


def test_a_bad_knob_fails_the_build_with_its_file_and_line_and_writes_nothing(tmp_path: Path) -> None:
    lines = (SOURCE_DATA / "knobs" / "nic.yaml").read_text(encoding="utf-8").splitlines()
    at = lines.index("    domain: nic")  # the first knob's domain

    def edit(text: str) -> str:
        return text.replace("\n    domain: nic\n", "\n    domain: nonsense\n", 1)

    error = _bad_build(tmp_path, "knobs/nic.yaml", edit)
    assert "'nonsense' is not one of" in error and f"data/knobs/nic.yaml:{at + 1}" in error


def test_a_bad_profile_fails_the_build_with_its_file_and_line(tmp_path: Path) -> None:
    lines = (SOURCE_DATA / "profiles" / "workload-mysql.yaml").read_text(encoding="utf-8").splitlines()
    error = _bad_build(tmp_path, "profiles/workload-mysql.yaml", lambda t: t + "bogus_field: 1\n")
    assert "unknown profile field 'bogus_field'" in error
    assert f"data/profiles/workload-mysql.yaml:{len(lines) + 1}" in error


def test_a_bad_table_fails_the_build_with_its_file_and_line(tmp_path: Path) -> None:
    def duplicate_a_row(text: str) -> str:
        lines = text.splitlines(keepends=True)
        return "".join([*lines, lines[2]])

    error = _bad_build(tmp_path, "tables/sources.csv", duplicate_a_row)
    rows = (SOURCE_DATA / "tables" / "sources.csv").read_text(encoding="utf-8").splitlines()
    assert "duplicate id" in error and f"tables/sources.csv:{len(rows) + 1}" in error


def test_a_checkout_whose_data_changed_reads_data_and_never_writes_its_snapshot(tmp_path: Path) -> None:
    """A copy of the checkout: the CLI sees an edited knob at once, checked as the build checks it, and the
    stale snapshot is neither used nor rewritten (only the build writes it)."""
    root = tmp_path / "repo"
    shutil.copytree(REPO / "compiler", root / "compiler", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(SOURCE_DATA, root / "data")
    env = {**os.environ, "PYTHONPATH": str(root / "compiler")}
    env.pop("FLASHTUNE_DATA", None)
    cmd = [sys.executable, "-m", "flashtune.cli.main", "knob", "osd_memory_target", "--format", "json"]
    before = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
    snapshot = root / "compiler" / "flashtune" / "_data"
    files = {p: p.read_bytes() for p in snapshot.rglob("*") if p.is_file()}
    knobs = root / "data" / "knobs" / "ceph.yaml"
    knobs.write_text(knobs.read_text().replace(before["rationale"].split()[0], "Edited-here", 1))
    after = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
    assert after["rationale"].startswith("Edited-here") and not before["rationale"].startswith("Edited-here")
    assert {p: p.read_bytes() for p in snapshot.rglob("*") if p.is_file()} == files
    knobs.write_text(knobs.read_text().replace("type: size", "type: sise", 1))  # a bad knob: the same check
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert r.returncode != 0 and "data/knobs/ceph.yaml:" in r.stderr and "Traceback" not in r.stderr
    assert {p: p.read_bytes() for p in snapshot.rglob("*") if p.is_file()} == files


def test_a_snapshot_built_from_other_data_or_by_another_version_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = tmp_path / "_data"
    shutil.copytree(SNAPSHOT_DIR, snap)
    assert matches(SOURCE_DATA, snap)
    stamp = json.loads((snap / paths.STAMP).read_text(encoding="utf-8"))
    for changed in (
        {**stamp, "flashtune": "0.0.0"},
        {**stamp, "sources": {**stamp["sources"], "tables/claims.csv": 0}},
        {**stamp, "sources": {k: v for k, v in stamp["sources"].items() if k != "tiers/iops.yaml"}},
    ):
        (snap / paths.STAMP).write_text(json.dumps(changed), encoding="utf-8")
        assert not matches(SOURCE_DATA, snap)
    monkeypatch.setattr(paths, "SNAPSHOT_DIR", snap)
    paths._checkout_snapshot_matches.cache_clear()
    try:
        assert snapshot_dir() is None and compiled(SOURCE_DATA / "tiers" / "iops.yaml") is None
    finally:
        paths._checkout_snapshot_matches.cache_clear()


def test_every_compiled_file_holds_the_yaml_tree_with_its_lines() -> None:
    for path in sorted(SOURCE_DATA.rglob("*.yaml")):
        rel = path.relative_to(SOURCE_DATA).as_posix()
        parsed = parse_yaml(path.read_text(), rel)
        snap = load_yaml(path)  # a data file: read from the snapshot
        assert snap == parsed, rel
        assert _lines(snap) == _lines(parsed), rel


def test_loaders_give_the_same_facts_from_the_snapshot_and_from_yaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = {(k.domain, k.name): k for k in load_catalog()}
    tiers = {t: load_tier(t) for t in tier_names()}
    shipped = {n: read_profile(n) for n in data_names("profiles")}
    shutil.copytree(SOURCE_DATA, tmp_path / "data")
    monkeypatch.setenv("FLASHTUNE_DATA", str(tmp_path / "data"))  # a copy: parsed as YAML, checked here
    assert snapshot_dir() is None
    yaml = {(k.domain, k.name): k for k in load_catalog()}
    assert snap.keys() == yaml.keys()
    for key, k in snap.items():
        y = yaml[key]
        assert k.source_line == y.source_line and k.source_file == f"data/knobs/{Path(y.source_file).name}"
        assert (k.default, k.unsafe_values, k.rationale, k.dead_when) == (
            y.default,
            y.unsafe_values,
            y.rationale,
            y.dead_when,
        )
    for name, a in shipped.items():
        b = read_profile(name, tmp_path / "data" / "profiles")
        assert (a.settings, a.unsafe, a.lines, a.benchmark) == (b.settings, b.unsafe, b.lines, b.benchmark)
    for t, hw in tiers.items():
        path = tmp_path / "data" / "tiers" / f"{t}.yaml"
        assert hw == read_hardware(load_yaml(path), Path(f"data/tiers/{t}.yaml"), tier=True)


def test_the_compile_path_parses_no_data_yaml_and_keeps_no_cache_at_home(tmp_path: Path) -> None:
    code = (
        "import sys\nimport flashtune.yamlio as y\n"
        "parsed = []\nrun = y._Composer.run\n"
        "def counted(self):\n    parsed.append(self.filename)\n    return run(self)\n"
        "y._Composer.run = counted\n"
        "from flashtune.cli.compile import main\n"
        f"rc = main(['--tier', 'iops', '--workload', 'mysql', '--out', {str(tmp_path / 'o')!r}])\n"
        "print(rc, parsed)\n"
    )
    home = tmp_path / "home"
    home.mkdir()
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "HOME": str(home)}
    )
    assert r.returncode == 0, r.stderr
    # every data file is read from the snapshot's JSON; the YAML parsed is the compile's own CBT plans, which
    # it re-reads (as lint-config would) before writing them
    assert r.stdout.split("\n")[-2] == "0 ['cbt.yaml', 'cbt/latency-qd1.yaml']"
    assert not list(home.rglob("*"))


text = st.text(
    st.characters(blacklist_categories=("Cc", "Cs")), max_size=8
)  # YAML refuses control characters
trees = st.recursive(
    st.none() | st.booleans() | st.integers() | text | st.floats(allow_nan=False),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(text | st.integers(), kids, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(trees)
def test_encode_decode_keeps_values_and_lines(tree: object) -> None:
    loaded = parse_yaml(json.dumps({"doc": tree}, ensure_ascii=False, indent=1))  # JSON is YAML: lines too
    again = decode(json.dumps(encode(loaded)))
    assert again == loaded
    assert _lines(again) == _lines(loaded)


def _lines(node: object) -> list[object]:
    if isinstance(node, dict):
        assert isinstance(node, YDict)
        return [
            line_of(node),
            *[line_of(node, k) for k in node],
            *[x for v in node.values() for x in _lines(v)],
        ]
    if isinstance(node, list):
        assert isinstance(node, YList)
        return [line_of(node), *[x for v in node for x in _lines(v)]]
    return []


# ---- what the build checked: the catalog, the profiles, the data package


def test_the_catalog_is_the_checked_one_every_knob_as_the_yaml_gives_it() -> None:
    catalog = load_catalog()
    eager = load_from(SOURCE_DATA / "knobs")  # every knob built from YAML and checked, here
    assert [(k.domain, k.name) for k in catalog] == [(k.domain, k.name) for k in eager]  # the same order
    for k in eager:
        got = catalog.get(k.name, k.domain)
        assert got is not None and got.source_file == f"data/knobs/{Path(k.source_file).name}"
        assert got == _with_file(
            k, got.source_file
        )  # every field, tuples as tuples, dataclasses as dataclasses
        for a in k.aliases:
            assert catalog.get(a, k.domain) == got
    for domain in ("ceph", "mysql", "sysctl"):
        assert [k.name for k in catalog.with_dependencies(domain)] == [
            k.name for k in eager.in_domain(domain) if k.dead_when
        ]
        assert catalog.names_with_dependencies(domain) == eager.names_with_dependencies(domain)
    written = json.loads((SNAPSHOT_DIR / paths.CHECKED / KNOBS).read_text(encoding="utf-8"))
    assert written == json.loads(json.dumps(checked_knobs(SOURCE_DATA, "data")))


def _with_file(k: Any, source_file: str) -> Any:
    from dataclasses import replace

    return replace(k, source_file=source_file)


def test_the_checked_profiles_are_each_profile_as_reading_and_checking_its_file_gives_it() -> None:
    for name in data_names("profiles"):
        checked = profiles._profile(name, f"data/profiles/{name}.yaml", load_data(f"profiles/{name}.yaml"))
        assert read_profile(name) == checked, name
        assert read_profile(name).lines == checked.lines  # errors still name the line
    assert read_profile("base").lines
    with pytest.raises(DataError, match="no profile 'no-such-profile'"):
        read_profile("no-such-profile")


def test_the_checked_evidence_is_the_data_package_as_checked() -> None:
    written = json.loads((SNAPSHOT_DIR / paths.CHECKED / EVIDENCE).read_text(encoding="utf-8"))
    assert written == checked_evidence(SOURCE_DATA, "data") and "sources" in written

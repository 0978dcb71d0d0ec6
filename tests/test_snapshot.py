"""The data snapshot (flashtune._data): data/ compiled to JSON is what the CLIs read, and it never goes stale."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from flashtune import paths
from flashtune.catalog import load_catalog
from flashtune.catalog.store import load_from
from flashtune.compile.hardware import hardware_from, load_tier, tier_names
from flashtune.compile.profiles import read_profile
from flashtune.paths import compiled, data_dir, data_names, load_data
from flashtune.snapshot import build, compile_file, compile_yaml, decode, decode_plain, encode, stale
from flashtune.yamlio import YDict, YList, line_of, load_plain, load_yaml, parse_yaml

REPO = Path(__file__).resolve().parents[1]
SOURCE_DATA, SNAPSHOT_DIR = Path(paths.SOURCE_DATA), Path(paths.SNAPSHOT_DIR)  # (flashtune names them as str)


def test_the_checkout_snapshot_equals_a_fresh_compile_of_data() -> None:
    assert data_dir() == str(SOURCE_DATA)  # a checkout: reading data brings the snapshot up to date first
    assert compiled(SOURCE_DATA / "knobs" / "ceph.yaml") == str(SNAPSHOT_DIR / "knobs" / "ceph.yaml")
    changed, _, _ = stale(SOURCE_DATA, SNAPSHOT_DIR)
    assert changed == []
    for path in sorted(p for p in SOURCE_DATA.rglob("*") if p.is_file()):
        rel = path.relative_to(SOURCE_DATA).as_posix()
        name, content = compile_file(rel, path)
        assert (SNAPSHOT_DIR / name).read_bytes() == content, f"stale: data/{rel}"


def test_an_edited_data_file_is_detected_and_recompiled_alone(tmp_path: Path) -> None:
    data, out = tmp_path / "data", tmp_path / "_data"
    shutil.copytree(SOURCE_DATA, data)
    assert len(build(data, out)) == sum(1 for p in data.rglob("*") if p.is_file())
    assert build(data, out) == []  # nothing changed: nothing compiled
    tier = data / "tiers" / "tco.yaml"
    tier.write_text(tier.read_text().replace("cores:", "cores: 24 #", 1))
    assert stale(data, out)[0] == ["tiers/tco.yaml"]
    assert build(data, out) == ["tiers/tco.yaml"]
    assert decode((out / "tiers" / "tco.yaml").read_text())["node"]["cores"] == 24
    os.utime(data / "tiers" / "iops.yaml", ns=(1, 1))  # a new mtime alone (git checkout) is not a change
    assert build(data, out) == []
    (data / "tiers" / "standard.yaml").unlink()
    assert build(data, out) == ["tiers/standard.yaml"] and not (out / "tiers" / "standard.yaml").exists()


def test_a_checkout_rebuilds_its_snapshot_when_data_changes(tmp_path: Path) -> None:
    """A copy of the checkout: the CLI sees an edited knob at once, through the snapshot it rewrote."""
    root = tmp_path / "repo"
    shutil.copytree(
        REPO / "compiler", root / "compiler", ignore=shutil.ignore_patterns("_data", "__pycache__")
    )
    shutil.copytree(SOURCE_DATA, root / "data")
    env = {**os.environ, "PYTHONPATH": str(root / "compiler")}
    env.pop("FLASHTUNE_DATA", None)
    cmd = [sys.executable, "-m", "flashtune.cli.main", "knob", "osd_memory_target", "--format", "json"]
    before = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
    assert (root / "compiler" / "flashtune" / "_data" / "index.json").is_file()
    knobs = root / "data" / "knobs" / "ceph.yaml"
    knobs.write_text(knobs.read_text().replace(before["rationale"].split()[0], "Edited-here", 1))
    after = json.loads(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
    assert after["rationale"].startswith("Edited-here") and not before["rationale"].startswith("Edited-here")


def test_every_compiled_file_holds_the_yaml_tree_with_its_lines() -> None:
    for path in sorted(SOURCE_DATA.rglob("*.yaml")):
        rel = path.relative_to(SOURCE_DATA).as_posix()
        parsed = parse_yaml(path.read_text(), rel)
        snap = load_yaml(path)  # a data file: read from the snapshot
        assert snap == parsed, rel
        assert _lines(snap) == _lines(parsed), rel
        plain = load_plain(path)  # its second line: the same values, plain dicts and lists
        assert plain == parsed and _plain_types(plain), rel


def test_loaders_give_the_same_facts_from_the_snapshot_and_from_yaml(
    tmp_path: Path, monkeypatch: Any
) -> None:
    snap = {(k.domain, k.name): k for k in load_catalog()}
    tiers = {t: load_tier(t) for t in tier_names()}
    profiles = {n: read_profile(n) for n in data_names("profiles")}
    shutil.copytree(SOURCE_DATA, tmp_path / "data")
    monkeypatch.setenv("FLASHTUNE_DATA", str(tmp_path / "data"))  # a copy: parsed as YAML
    yaml = {(k.domain, k.name): k for k in load_from(tmp_path / "data" / "knobs")}
    assert snap.keys() == yaml.keys()
    for key, k in snap.items():
        y = yaml[key]
        assert k.source_line == y.source_line and k.source_file == f"data/knobs/{Path(y.source_file).name}"
        assert (k.default, k.unsafe_values, k.rationale) == (y.default, y.unsafe_values, y.rationale)
    for name, a in profiles.items():
        b = read_profile(name, tmp_path / "data" / "profiles")
        assert (a.settings, a.unsafe, a.lines, a.benchmark) == (b.settings, b.unsafe, b.lines, b.benchmark)
    for t, hw in tiers.items():
        path = tmp_path / "data" / "tiers" / f"{t}.yaml"
        assert hw == hardware_from(load_yaml(path), Path(f"data/tiers/{t}.yaml"), tier=True)


def test_the_compile_path_reads_no_yaml_and_keeps_no_cache_at_home(tmp_path: Path) -> None:
    code = (  # every YAML file is read through yamlio's loader: count the times it is asked for one
        "import sys\nimport flashtune.yamlio as y\nread = []\nreal = y._loader_class\n"
        "y._loader_class = lambda schema: read.append(schema) or real(schema)\n"
        "from flashtune.cli.compile import main\n"
        f"rc = main(['--tier', 'iops', '--workload', 'mysql', '--out', {str(tmp_path / 'o')!r}])\n"
        "print(rc, read, sorted(m for m in sys.modules if m.split('.')[0] in ('ruamel', 'pickle')))\n"
    )
    home = tmp_path / "home"
    home.mkdir()
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "HOME": str(home)}
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[-2] == "0 [] []"
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
    text = json.dumps({"doc": tree}, ensure_ascii=False, indent=1)
    loaded = parse_yaml(text)  # JSON is YAML: a tree with lines for every node
    again = decode(json.dumps(encode(loaded)))
    assert again == loaded
    assert _lines(again) == _lines(loaded)


@settings(max_examples=150, deadline=None)
@given(trees)
def test_the_plain_line_holds_the_same_values_where_json_can(tree: object) -> None:
    loaded = parse_yaml(json.dumps({"doc": tree}, ensure_ascii=False, indent=1))
    text = compile_yaml(json.dumps({"doc": tree}, ensure_ascii=False, indent=1), "t.yaml")
    assert decode(text) == loaded and _lines(decode(text)) == _lines(loaded)
    plain = decode_plain(text)
    assert plain == loaded
    # a key that is not a string (YAML has them, JSON objects do not): no plain line, decode reads the first
    assert ("\n" in text) == _str_keys(loaded) == _plain_types(plain)


def _str_keys(node: object) -> bool:
    if isinstance(node, dict):
        return all(isinstance(k, str) and _str_keys(v) for k, v in node.items())
    return all(_str_keys(v) for v in node) if isinstance(node, list) else True


def _plain_types(node: object) -> bool:
    """No YDict/YList anywhere: values as json.loads gives them."""
    if isinstance(node, YDict | YList):
        return False
    if isinstance(node, dict):
        return all(_plain_types(v) for v in node.values())
    return all(_plain_types(v) for v in node) if isinstance(node, list) else True


def _lines(node: object) -> list[object]:
    if isinstance(node, dict):
        return [
            line_of(node),
            *[line_of(node, k) for k in node],
            *[x for v in node.values() for x in _lines(v)],
        ]
    if isinstance(node, list):
        return [line_of(node), *[x for v in node for x in _lines(v)]]
    return []


# ---- the catalog from the snapshot: checked as a whole once, then built knob by knob


def test_the_lazy_catalog_holds_the_same_knobs_as_a_fully_checked_load() -> None:
    from flashtune.catalog.store import CHECKED, Catalog, _knob_stamps

    catalog = load_catalog()
    assert isinstance(catalog, Catalog)
    assert json.loads((SNAPSHOT_DIR / CHECKED).read_text(encoding="utf-8")) == _knob_stamps(SNAPSHOT_DIR)
    eager = load_from(SOURCE_DATA / "knobs")
    assert len(catalog) == len(eager)
    for k in eager:
        lazy = catalog.get(k.name, k.domain)
        assert lazy is not None and lazy.name == k.name and lazy.source_line == k.source_line
        assert lazy.dead_when == k.dead_when and lazy.default == k.default and lazy.aliases == k.aliases
    for domain in ("ceph", "mysql", "sysctl"):
        assert [k.name for k in catalog.with_dependencies(domain)] == [
            k.name for k in eager.in_domain(domain) if k.dead_when
        ]
        with_deps = [k for k in eager.in_domain(domain) if k.dead_when]
        names = {n for k in with_deps for n in (k.name, *k.aliases)}
        assert catalog.names_with_dependencies(domain) == eager.names_with_dependencies(domain) == names


def test_a_changed_knob_file_is_checked_as_a_whole_before_knobs_are_built_lazily(tmp_path: Path) -> None:
    import pytest

    from flashtune.catalog.store import CHECKED, KNOB_INDEX, _checked_before, check_snapshot
    from flashtune.errors import DataError

    snap = tmp_path / "_data"
    shutil.copytree(SNAPSHOT_DIR, snap)
    (snap / CHECKED).unlink()
    (snap / KNOB_INDEX).unlink()
    assert _checked_before(snap)  # never checked: load_catalog would check every knob
    check_snapshot(snap)
    assert _checked_before(snap) is None  # checked: load_catalog builds knobs on demand
    index = json.loads((snap / "index.json").read_text(encoding="utf-8"))
    index["sources"]["knobs/nic.yaml"][2] += 1  # the knob file changed since
    (snap / "index.json").write_text(json.dumps(index), encoding="utf-8")
    assert _checked_before(snap)
    # a bad knob: the whole-catalog check names its file and line, and records nothing
    (snap / CHECKED).unlink()
    (snap / KNOB_INDEX).unlink()
    doc = decode((snap / "knobs" / "nic.yaml").read_text(encoding="utf-8"))
    items = doc.get("knobs") if isinstance(doc, dict) else doc
    items[0]["domain"] = "nonsense"
    (snap / "knobs" / "nic.yaml").write_text(json.dumps(encode(doc)), encoding="utf-8")
    with pytest.raises(DataError) as err:
        check_snapshot(snap)
    assert "data/knobs/nic.yaml:" in str(err.value) and "nonsense" in str(err.value)
    assert not (snap / CHECKED).exists()
    assert not (snap / KNOB_INDEX).exists()  # no knob is taken as checked either


def test_the_knob_index_builds_the_same_knobs_and_a_stale_one_is_not_used(tmp_path: Path) -> None:
    """knobs.index.jsonl: every knob built and checked once, so a compile reads only the knobs it uses and
    neither decodes the knob files nor checks a knob again."""
    from flashtune.catalog.store import (
        CHECKED,
        KNOB_INDEX,
        _indexed,
        _knob_stamps,
        _load,
        check_snapshot,
    )

    snap = tmp_path / "_data"
    shutil.copytree(SNAPSHOT_DIR, snap)
    (snap / KNOB_INDEX).unlink(missing_ok=True)
    (snap / CHECKED).unlink()
    check_snapshot(snap)  # the whole-catalog check writes the index with its stamps
    stamps = _knob_stamps(snap)
    assert stamps is not None
    rels = [f"knobs/{p.name}" for p in sorted((snap / "knobs").glob("*.yaml"))]
    catalog = _indexed(snap, rels, stamps)
    assert catalog is not None
    assert all(isinstance(v, int) for v in catalog._by_key.values())  # lazy: each knob's line in the index
    files = sorted((snap / "knobs").glob("*.yaml"))
    eager = _load((Path(f"data/knobs/{p.name}"), decode(p.read_text(encoding="utf-8"))) for p in files)
    assert len(catalog) == len(eager)
    assert [(k.domain, k.name) for k in catalog] == [(k.domain, k.name) for k in eager]  # the same order
    for k in eager:
        got = catalog.get(k.name, k.domain)
        assert got == k  # every field, tuples as tuples, records as records (a list is no tuple here)
        assert got is not None and repr(got) == repr(k)
        for a in k.aliases:
            assert catalog.get(a, k.domain) == k
    for domain in ("ceph", "mysql", "sysctl"):
        assert catalog.with_dependencies(domain) == [k for k in eager.in_domain(domain) if k.dead_when]
    changed = {**stamps, "knobs": {**stamps["knobs"], "knobs/nic.yaml": 0}}  # a knob file changed since
    assert _indexed(snap, rels, changed) is None
    assert _indexed(snap, rels[1:], stamps) is None  # a knob file added or removed
    index = snap / KNOB_INDEX
    text = index.read_text(encoding="utf-8")
    header, body = text.split("\n", 1)
    head = json.loads(header)
    head["code"][0] += 1  # written by code with another digest layout
    index.write_text(json.dumps(head) + "\n" + body, encoding="utf-8")
    assert _indexed(snap, rels, stamps) is None
    index.write_text(text[: len(header) // 2], encoding="utf-8")  # cut short
    assert _indexed(snap, rels, stamps) is None


def test_the_knob_index_is_not_written_for_a_knob_that_would_not_come_back_the_same(tmp_path: Path) -> None:
    from dataclasses import replace

    from flashtune.catalog.store import KNOB_INDEX, Catalog, _knob_stamps, _record_index

    snap = tmp_path / "_data"
    shutil.copytree(SNAPSHOT_DIR, snap)
    (snap / KNOB_INDEX).unlink(missing_ok=True)
    stamps = _knob_stamps(snap)
    assert stamps is not None
    knobs = list(load_catalog())
    odd = replace(knobs[0], default={"*": (1, 2)})  # a tuple JSON would turn into a list
    _record_index(snap, stamps, Catalog([odd, *knobs[1:]]))
    assert not (snap / KNOB_INDEX).exists()
    _record_index(snap, stamps, Catalog(knobs))
    assert (snap / KNOB_INDEX).exists()


# ---- the profile digest: every shipped profile checked once, then read from its part


def test_the_profile_digest_gives_each_profile_as_reading_and_checking_its_file_does() -> None:
    from flashtune import digests
    from flashtune.compile import profiles

    assert profiles._index(data_dir()) is not None  # the shipped snapshot has a matching digest
    for name in data_names("profiles"):
        checked = profiles._profile(name, f"data/profiles/{name}.yaml", load_data(f"profiles/{name}.yaml"))
        assert read_profile(name) == checked, name
        assert read_profile(name).lines == checked.lines  # errors still name the line
    assert read_profile("base").lines
    index = profiles._index(data_dir())
    assert index is not None and digests.part(index, "no-such-profile") is None


def test_a_bad_profile_fails_the_digest_build_with_its_file_and_line_and_writes_nothing(
    tmp_path: Path,
) -> None:
    import pytest

    from flashtune import digests
    from flashtune.compile import profiles
    from flashtune.errors import DataError

    snap = tmp_path / "_data"
    shutil.copytree(SNAPSHOT_DIR, snap)
    (snap / profiles.PROFILE_INDEX).unlink(missing_ok=True)
    assert profiles.write_index(snap)
    stamps = profiles._stamps(snap)
    assert stamps is not None and digests.read(snap / profiles.PROFILE_INDEX, stamps) is not None
    path = snap / "profiles" / "workload-mysql.yaml"
    doc = decode(path.read_text(encoding="utf-8"))
    doc["settings"]["my.cnf"] = "innodb_buffer_pool_size=1G"  # a line where a section mapping belongs
    path.write_text(json.dumps(encode(doc)), encoding="utf-8")
    index = json.loads((snap / "index.json").read_text(encoding="utf-8"))
    index["sources"]["profiles/workload-mysql.yaml"][2] += 1  # the profile changed since the digest
    (snap / "index.json").write_text(json.dumps(index), encoding="utf-8")
    changed = profiles._stamps(snap)
    assert changed is not None and changed != stamps
    assert digests.read(snap / profiles.PROFILE_INDEX, changed) is None  # the old digest is not used
    (snap / profiles.PROFILE_INDEX).unlink()
    with pytest.raises(DataError, match=r"'settings\.my\.cnf' must map section") as err:
        profiles.write_index(snap)
    assert "data/profiles/workload-mysql.yaml:" in str(err.value)
    assert not (snap / profiles.PROFILE_INDEX).exists()

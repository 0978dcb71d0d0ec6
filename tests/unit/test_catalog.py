"""The knob catalog as data: schema, seed coverage, release facts, safety classes, the knob card CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from ruamel.yaml import YAML

from flashtune.catalog import load_catalog
from flashtune.catalog.store import load_from
from flashtune.errors import DataError

REPO = Path(__file__).resolve().parents[2]
KNOBS = REPO / "data" / "knobs"
BIN = Path(sys.executable).parent


def _seed(shared: Path, prefix: str) -> list[str]:
    """A seed's lines without the wiki's redmine 'N M Author' rows."""
    path = next((shared / "seeds").glob(f"{prefix}_*.txt"))
    return [ln for ln in path.read_text().splitlines() if not re.fullmatch(r"\d+ \d+ Patrick McGarry", ln)]


def _block(lines: list[str], start: str, end: str, nth: int = 0) -> list[str]:
    """Lines after the nth line equal to `start` (stripped) up to the next line starting with `end`."""
    starts = [i for i, ln in enumerate(lines) if ln.strip() == start]
    i = starts[nth] + 1
    out = []
    while i < len(lines) and not lines[i].strip().startswith(end):
        out.append(lines[i])
        i += 1
    assert out, f"no block after {start!r}"
    return out


def _keys(block: list[str]) -> list[str]:
    keys = []
    for ln in block:
        s = ln.strip()
        if not s or s.startswith(("#", "[", "!", "<")):
            continue
        keys.append(s.split("=", 1)[0].strip())
    return keys


def seed_config_keys(shared: Path) -> dict[str, set[str]]:
    """Every key the seeds' config listings set, by domain (parsed from the seed text itself)."""
    wiki = _seed(shared, "000")
    ceph = set(_keys(_block(wiki, "Sample Ceph.conf", "Sample sysctl.conf")))
    ceph |= set(_keys(_block(wiki, "Ceph.conf", "CBT YAML")))  # All-NVMe MySQL ceph.conf
    # tuning lines in the prose: "name = value" / "name=value" with an option-like name
    prose = _block(wiki, "OSD: RADOS", "Appendix")
    ceph |= {
        m.group(1)
        for ln in prose
        if (m := re.fullmatch(r"\s*([a-z][a-z0-9_]+)\s*=\s*\S+.*", ln)) and "_" in m.group(1)
    }
    sysctl = {k for k in _keys(_block(wiki, "<pre>", "</pre>"))}
    sysctl |= set(_keys(_block(wiki, "Sample sysctl.conf", "All-NVMe")))
    mysql = {k for k in _keys(_block(wiki, "MySQL configuration file (my.cnf)", "Sample Ceph Vendor"))}
    slides = _seed(shared, "004")
    conf_start = slides.index("Software Configuration")
    for ln in slides[conf_start:]:
        m = re.match(r'^\W*"([a-z][a-z0-9_ ]+)":', ln.strip())
        if m and m.group(1) not in ("global", "client", "mon", "osd", "disk"):
            ceph.add(m.group(1))
    ceph.discard("read_ahead_kb")  # the slides' "disk" section: a block-device setting
    return {"ceph": ceph, "sysctl": sysctl, "mysql": mysql}


# ---- the files themselves ----------------------------------------------------------------------


def test_every_catalog_file_matches_the_json_schema() -> None:
    schema = json.loads((KNOBS / "knob.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    files = sorted(KNOBS.glob("*.yaml"))
    assert {p.stem for p in files} >= {"ceph", "sysctl", "mysql", "mount", "blockdev", "cpu", "allocator"}
    for path in files:
        doc = YAML(typ="safe").load(path.read_text())
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
        assert not errors, f"{path.name}:\n" + "\n".join(errors[:10])
        assert all(k["domain"] == doc["domain"] for k in doc["knobs"]), f"{path.name}: one domain per file"


def test_schema_rejects_a_knob_without_rationale_or_with_an_unknown_safety_class() -> None:
    validator = jsonschema.Draft202012Validator(json.loads((KNOBS / "knob.schema.json").read_text()))
    good = {
        "name": "x",
        "domain": "ceph",
        "location": "ceph.conf",
        "type": "int",
        "rationale": "a long enough explanation",
    }
    assert validator.is_valid({"domain": "ceph", "knobs": [good]})
    assert not validator.is_valid({"domain": "ceph", "knobs": [{**good, "rationale": ""}]})
    assert not validator.is_valid({"domain": "ceph", "knobs": [{**good, "safety": "mostly-fine"}]})
    assert not validator.is_valid({"domain": "ceph", "knobs": [{**good, "removed": "hammer"}]})


def test_a_broken_knob_file_is_reported_with_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "ceph.yaml").write_text(
        "domain: ceph\nknobs:\n  - name: a\n    domain: ceph\n    location: ceph.conf\n    type: int\n"
        "    rationale: fine\n  - name: b\n    domain: ceph\n    location: ceph.conf\n    type: integer\n"
        "    rationale: bad type\n"
    )
    with pytest.raises(DataError) as e:
        load_from(tmp_path)
    assert e.value.file and e.value.file.endswith("ceph.yaml") and e.value.line == 11
    (tmp_path / "ceph.yaml").write_text(
        "domain: ceph\nknobs:\n  - name: a\n    domain: ceph\n    location: ceph.conf\n    type: int\n"
        "    misspelling_of: nothing_like_it\n    rationale: dangling\n"
    )
    with pytest.raises(DataError, match="nothing_like_it"):
        load_from(tmp_path)


@pytest.mark.slow
def test_derived_ceph_facts_are_in_sync_with_the_reference_schemas(shared: Path) -> None:
    """Re-deriving type/default/range/existence from Ceph's schemas changes nothing in ceph.yaml."""
    r = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "derive_ceph_facts.py"),
            "--check",
            str(shared / "reference"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, (
        f"data/knobs/ceph.yaml is out of date; run scripts/derive_ceph_facts.py\n{r.stderr}"
    )


# ---- coverage of the seeds ---------------------------------------------------------------------


def test_every_key_the_seed_configs_set_is_catalogued(shared: Path) -> None:
    cat = load_catalog()
    keys = seed_config_keys(shared)
    assert len(keys["ceph"]) > 80 and len(keys["sysctl"]) > 25 and len(keys["mysql"]) > 25
    missing = {d: sorted(k for k in ks if cat.resolve(k, d) is None) for d, ks in keys.items()}
    assert not any(missing.values()), f"seed keys missing from the catalog: {missing}"


def test_seed_typos_removed_and_renamed_knobs_are_recorded_as_such() -> None:
    cat = load_catalog()
    typos = {
        "debug_objectcatcher": "debug_objectcacher",
        "objecter_infilght_op_bytes": "objecter_inflight_op_bytes",
        "journal_queueu_max_ops": "journal_queue_max_ops",
    }
    for typo, meant in typos.items():
        k = cat.get(typo)
        assert k is not None and k.misspelling_of == meant and not k.exists_in("jewel")
        assert cat.get(meant) is not None
    for name in ("ms_nocrc", "journal_queue_max_ops", "filestore_queue_committing_max_ops"):
        k = cat.get(name)
        assert k is not None and not k.exists_in("jewel"), f"{name} was already gone in Jewel"
    for name, gone in (
        ("osd_op_threads", "luminous"),
        ("mon_pg_warn_max_per_osd", "luminous"),
        ("rgw_num_rados_handles", "quincy"),
        ("osd_pg_bits", "mimic"),
    ):
        k = cat.get(name)
        assert k is not None and k.removed == gone and k.exists_in("jewel") and not k.exists_in("tentacle")
    assert cat.get("mon_pg_warn_max_per_osd").renamed_to == "mon_max_pg_per_osd"  # type: ignore[union-attr]
    assert not cat.get("net.ipv4.tcp_tw_recycle").exists_in(None)  # type: ignore[union-attr]
    assert cat.get("nobarrier", "mount").removed == "linux-4.19"  # type: ignore[union-attr]


def test_current_deployment_knobs_are_present_with_release_facts() -> None:
    cat = load_catalog()
    for name in (
        "osd_memory_target",
        "bluestore_min_alloc_size_ssd",
        "osd_op_num_shards_ssd",
        "osd_op_num_threads_per_shard_ssd",
        "osd_mclock_profile",
        "osd_max_backfills",
        "osd_recovery_max_active",
        "rgw_frontends",
        "rgw_thread_pool_size",
        "mds_cache_memory_limit",
        "client_oc_size",
        "osd_pool_default_pg_autoscale_mode",
        "mon_target_pg_per_osd",
        "osd_numa_node",
    ):
        k = cat.get(name, "ceph")
        assert k is not None and k.exists_in("tentacle"), name
    for name, domain in (
        ("ec.technique", "ceph"),
        ("ec.plugin", "ceph"),
        ("net.core.rmem_max", "sysctl"),
        ("scheduler", "blockdev"),
        ("read_ahead_kb", "blockdev"),
        ("scaling_governor", "cpu"),
        ("numactl_cpunodebind", "cpu"),
        ("TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES", "allocator"),
    ):
        assert cat.get(name, domain) is not None, name
    # release-aware facts the compiler depends on
    mclock = cat.get("osd_mclock_override_recovery_settings")
    assert mclock is not None and not mclock.exists_in("pacific") and mclock.exists_in("quincy")
    queue = cat.get("osd_op_queue")
    assert queue is not None and queue.default_for("pacific") == "wpq"
    assert queue.default_for("tentacle") == "mclock_scheduler"
    assert "squid" in queue.inferred
    mysql = {k.name: k for k in cat.in_domain("mysql")}
    assert mysql["query_cache_size"].exists_in("mysql-5.7") and not mysql["query_cache_size"].exists_in(
        "mysql-8.0"
    )
    assert mysql["innodb_redo_log_capacity"].exists_in("mysql-8.4")
    assert not mysql["innodb_redo_log_capacity"].exists_in("mariadb-10.11")


def test_every_knob_has_its_own_rationale_not_a_copy_of_ceph_desc(shared: Path) -> None:
    """Rationales are ours: no knob's text contains Ceph's own description of the option."""
    descs = {
        o["name"]: o.get("desc", "")
        for o in json.loads((shared / "reference" / "ceph-options" / "pacific-16.2.15.json").read_text())[
            "options"
        ]
    }
    copied = [
        k.name
        for k in load_catalog()
        if len(descs.get(k.name, "")) > 25 and descs[k.name].lower() in k.rationale.lower()
    ]
    assert not copied, copied
    texts = [k.rationale for k in load_catalog()]
    assert all(len(t) >= 20 for t in texts)


# ---- safety ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "domain", "value", "safety"),
    [
        ("auth_cluster_required", "ceph", "none", "security-risk"),
        ("auth_client_required", "ceph", "cephx, none", "security-risk"),
        ("auth_cluster_required", "ceph", "cephx", "safe"),
        ("ms_crc_data", "ceph", "false", "integrity-risk"),
        ("ms_crc_header", "ceph", "0", "integrity-risk"),
        ("ms_crc_data", "ceph", "true", "safe"),
        ("ms_nocrc", "ceph", "true", "integrity-risk"),
        ("cephx_sign_messages", "ceph", "false", "security-risk"),
        (
            "enable_experimental_unrecoverable_data_corrupting_features",
            "ceph",
            "bluestore rocksdb",
            "durability-risk",
        ),
        ("osd_pool_default_size", "ceph", "2", "durability-risk"),
        ("innodb_flush_log_at_trx_commit", "mysql", "0", "durability-risk"),
        ("innodb_flush_log_at_trx_commit", "mysql", "2", "durability-risk"),
        ("innodb_flush_log_at_trx_commit", "mysql", "1", "safe"),
        ("sync_binlog", "mysql", "0", "durability-risk"),
        ("innodb_doublewrite", "mysql", "OFF", "durability-risk"),
        ("innodb_checksums", "mysql", "0", "integrity-risk"),
        ("innodb_checksum_algorithm", "mysql", "none", "integrity-risk"),
        ("innodb_checksum_algorithm", "mysql", "crc32", "safe"),
        ("nobarrier", "mount", True, "durability-risk"),
        ("net.ipv4.tcp_syncookies", "sysctl", "0", "security-risk"),
    ],
)
def test_value_safety_classes(name: str, domain: str, value: object, safety: str) -> None:
    knob = load_catalog().get(name, domain)
    assert knob is not None
    assert knob.value_safety(value)[0] == safety


def test_removed_values_name_when_they_stopped_working() -> None:
    cat = load_catalog()
    fe = cat.get("rgw_frontends")
    assert fe is not None
    rule = fe.removed_value("civetweb port=80")
    assert rule is not None and rule.removed == "quincy"
    assert fe.removed_value("beast port=8080") is None
    sched = cat.get("scheduler", "blockdev")
    assert (
        sched is not None and sched.removed_value("cfq") is not None and sched.removed_value("none") is None
    )


def test_config_file_spellings_resolve() -> None:
    cat = load_catalog()
    assert cat.resolve("rgw  thread pool size", "ceph") is cat.get("rgw_thread_pool_size")
    assert cat.resolve("innodb-buffer-pool-size", "mysql") is cat.get("innodb_buffer_pool_size")
    assert cat.resolve("loose-innodb_checksums", "mysql") is cat.get("innodb_checksums")
    assert cat.resolve("pg_size", "ceph") is cat.get("pool.pg_num")  # CBT's name
    assert cat.resolve("net/core/somaxconn", "sysctl") is cat.get("net.core.somaxconn")


# ---- evidence ----------------------------------------------------------------------------------


def test_every_evidence_link_resolves_to_a_dataset_row() -> None:
    from flashtune import datapackage

    refs = [(k.name, ref) for k in load_catalog() for ref in k.evidence]
    assert len(refs) >= 10, "recommendations should cite the measurements behind them"
    dangling = [(n, r) for n, r in refs if datapackage.resolve(r) is None]
    assert not dangling, dangling


# ---- the card ----------------------------------------------------------------------------------


def _flashtune(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "flashtune"), *args], capture_output=True, text=True, timeout=60)


def test_knob_card_shows_type_defaults_by_release_safety_and_rationale() -> None:
    r = _flashtune("knob", "osd_op_queue")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "type str" in out and "wpq" in out and "mclock_scheduler" in out
    rows = {
        ln.split()[0]: ln.split()[1:]
        for ln in out.splitlines()
        if ln.startswith("  ")
        and ln.split()
        and ln.split()[0].rstrip("*") in ("jewel", "pacific", "tentacle")
    }
    assert rows["pacific"] == ["in", "effect", "wpq"] and rows["tentacle"] == [
        "in",
        "effect",
        "mclock_scheduler",
    ]
    r = _flashtune("knob", "osd_op_threads")  # removed in luminous: the card says so per release
    assert "removed" in r.stdout.split("\n  tentacle")[1].splitlines()[0]
    r = _flashtune("knob", "ms_crc_data")
    assert "integrity-risk" in r.stdout
    r = _flashtune("knob", "osd_memory_target", "--format", "json")
    card = json.loads(r.stdout)
    assert card["exists"]["jewel"] is False and card["defaults"]["tentacle"] == 4 << 30
    assert card["status"] == {"jewel": "not yet", **{r: "in effect" for r in card["status"] if r != "jewel"}}
    assert card["type"] == "size" and card["min"] == 939524096


def test_knob_card_for_an_unknown_name_suggests_and_exits_2() -> None:
    r = _flashtune("knob", "osd_memry_target")
    assert r.returncode == 2
    assert "did you mean" in r.stderr and "osd_memory_target" in r.stderr
    assert "Traceback" not in r.stderr


def test_knob_card_does_not_import_the_notebook_stack() -> None:
    code = (
        "import sys; from flashtune.cli import main; main.run(['knob', 'rbd_cache']); "
        "bad = [m for m in ('pandas', 'altair', 'jupyter_core', 'nbformat') if m in sys.modules]; "
        "sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_the_object_stores_are_worked_out_once_and_callers_get_a_copy() -> None:
    catalog = load_catalog()
    knob = catalog.get("filestore_max_sync_interval", "ceph")
    assert knob is not None
    before = catalog.status(knob, "pacific", "bluestore")
    stores = catalog.objectstores()
    assert stores["filestore"] is not None and stores["bluestore"] is None
    stores.clear()  # a caller's copy: the catalog's own table is unchanged
    assert catalog.objectstores()["filestore"] is not None
    assert catalog.status(knob, "pacific", "bluestore") == before and before.state == "dead"

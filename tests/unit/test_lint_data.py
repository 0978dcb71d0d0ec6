"""The linter's data files: valid against their schemas, consistent with the code and the sources they came from."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

from flashtune.catalog.names import ceph_option_names
from flashtune.lint.codes import lint_codes
from flashtune.yamlio import load_yaml

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"
sys.path.insert(0, str(REPO / "scripts"))
import derive_option_names  # noqa: E402


def _plain(x: object) -> object:
    return json.loads(json.dumps(x, default=str))


@pytest.mark.parametrize(
    ("doc", "schema"),
    [
        ("cbt/schema.yaml", "cbt/schema.schema.json"),
        ("lint/rules.yaml", "lint/rules.schema.json"),
        ("lint/codes.yaml", "lint/codes.schema.json"),
    ],
)
def test_data_matches_schema(doc: str, schema: str) -> None:
    jsonschema.Draft202012Validator(json.loads((DATA / schema).read_text())).validate(
        _plain(load_yaml(DATA / doc))
    )


def test_rule_codes_exist() -> None:
    rules = load_yaml(DATA / "lint" / "rules.yaml")
    assert all(r["code"] in lint_codes() for r in rules["ceph"]["value_rules"])


def test_cbt_schema_knows_cbts_top_level_and_modules() -> None:
    schema = load_yaml(DATA / "cbt" / "schema.yaml")
    # the five keys settings.initialize() reads, and the benchmark modules in CBT's benchmark/ at HEAD
    assert set(schema["top_level"]) == {
        "cluster",
        "benchmarks",
        "client_endpoints",
        "monitoring_profiles",
        "common",
    }
    assert {
        "librbdfio",
        "fio",
        "radosbench",
        "rbdfio",
        "kvmrbdfio",
        "rawfio",
        "hsbench",
        "getput",
        "cosbench",
        "nullbench",
        "cephtestrados",
    } == set(schema["benchmarks"])
    assert (
        schema["cluster"]["iterations"]["required"] is True
        and schema["cluster"]["iterations"]["default"] == 0
    )


def test_option_name_lists_match_the_schemas(shared: Path) -> None:
    ref = shared / "reference" / "ceph-options"
    for rel, folder in (
        ("quincy", "quincy-17.2.7"),
        ("reef", "reef-18.2.7"),
        ("tentacle", "tentacle-20.2.4"),
    ):
        names = ceph_option_names(rel)
        assert names is not None
        assert derive_option_names.yaml_names(ref / folder) <= names
    pacific = json.loads((ref / "pacific-16.2.15.json").read_text())
    assert {o["name"] for o in pacific["options"]} <= (ceph_option_names("pacific") or set())
    assert ceph_option_names("jewel") is None

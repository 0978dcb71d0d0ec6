"""compile-config lints its CBT plans from the documents it emitted (no YAML parser at start-up): the
ConfDoc it builds must be exactly what the YAML parser reads back from the emitted text."""

from __future__ import annotations

import pytest

from flashtune.compile import CompileRequest, compile_bundle
from flashtune.compile.pipeline import WORKLOADS
from flashtune.hardware import tier_names
from flashtune.parse import parse_text
from flashtune.parse.cbtplan import from_plan

CASES = [(t, w, "tentacle") for t in tier_names() for w in WORKLOADS] + [("iops", "mysql", "jewel")]


@pytest.mark.parametrize(("tier", "workload", "release"), CASES)
def test_plan_doc_equals_the_parsed_text(tier: str, workload: str, release: str) -> None:
    b = compile_bundle(CompileRequest(workload=workload, tier=tier, ceph_release=release))
    assert b.plans
    for name, plan in b.plans.items():
        text = b.files[name]
        fast, parsed = from_plan(plan, text, name), parse_text(text, "cbt.yaml", name)
        assert fast is not None and fast.data == parsed.data
        where = [(e.section, e.key, e.line, e.column) for e in fast.entries]
        assert where == [(e.section, e.key, e.line, e.column) for e in parsed.entries]


def test_a_key_missing_from_the_text_falls_back_to_parsing() -> None:
    assert from_plan({"cluster": {"user": "root"}}, "cluster:\n  head: x\n", "p.yaml") is None
    doc = from_plan({"cluster": {"user": "root"}}, "# c\ncluster:\n  user: root\n", "p.yaml")
    assert doc is not None and [(e.key, e.line, e.column) for e in doc.entries] == [
        ("cluster", 2, 1),
        ("user", 3, 3),
    ]


def test_quoted_keys_and_list_items_are_placed_like_the_parser_places_them() -> None:
    from flashtune.emit.cbt import dump

    plan = {
        "cluster": {"user": "root", "pool_profiles": {"rbd pool": {"pg_size": 64}, "true": {"pg_size": 8}}},
        "benchmarks": {"librbdfio": {"op_size": [4096, 65536], "volumes": [{"a b": 1, "c": "x y"}]}},
    }
    text = dump(plan)
    assert '"rbd pool":' in text and '"true":' in text and '"a b":' in text  # the keys are written quoted
    fast, parsed = from_plan(plan, text, "p.yaml"), parse_text(text, "cbt.yaml", "p.yaml")
    assert fast is not None and fast.data == parsed.data
    where = [(e.section, e.key, e.line, e.column) for e in fast.entries]
    assert where == [(e.section, e.key, e.line, e.column) for e in parsed.entries]

"""The review of the compiled configs (data/review/compiled-configs.yaml): every item has a known class and a
source, every decision it states holds in the compiled output, and the book's compiler guide shows it."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from flashtune.catalog import load_catalog
from flashtune.catalog.deps import source_ok
from flashtune.compile.pipeline import CompileRequest, compile_bundle
from flashtune.datapackage import resolve
from flashtune.yamlio import load_yaml

REPO = Path(__file__).resolve().parents[2]
CLASSES = ("wrong-value", "no-op", "missing", "contradiction", "unsafe", "kept")
ITEMS: list[dict[str, Any]] = list(load_yaml(REPO / "data" / "review" / "compiled-configs.yaml")["items"])
OUTPUT = {
    "ceph.conf": "ceph.conf",
    "sysctl.conf": "sysctl.conf",
    "my.cnf": "my.cnf",
    "tuned.conf": "tuned/flashtune/tuned.conf",
    "systemd-numa.conf": "systemd/numa-node0.conf",
    "pools.sh": "pools.sh",
    "cbt.yaml": "cbt.yaml",
    "ceph-config.sh": "ceph-config.sh",
    "rook/cephcluster.yaml": "rook/cephcluster.yaml",
    "cephadm/osd-spec.yaml": "cephadm/osd-spec.yaml",
}


def test_every_item_has_a_class_a_reason_and_a_source() -> None:
    counts = Counter(i["class"] for i in ITEMS)
    assert set(counts) <= set(CLASSES) and sum(counts.values()) == len(ITEMS) >= 50
    for i in ITEMS:
        assert len(i["why"]) > 15, i
        assert source_ok(i["source"]) or resolve(i["source"]) is not None, i["source"]
        if str(i["source"]).startswith("tests/"):  # a cited measurement exists as a test
            path, name = i["source"].split("::")
            assert f"def {name}(" in (REPO / path).read_text(), i["source"]


def _ec(item: dict[str, Any]) -> tuple[int, int] | None:
    """The item's `ec: K+M` (compiled with erasure coding), if it names one."""
    if not item.get("ec"):
        return None
    k, m = str(item["ec"]).split("+")
    return int(k), int(m)


def _file(item: dict[str, Any]) -> tuple[str, str]:
    file = item["file"]
    workload = item.get("workload") or ("mysql" if file == "my.cnf" else "block")
    b = compile_bundle(
        CompileRequest(
            workload=workload,
            tier=item.get("tier", "iops"),
            ceph_release=item.get("release", "tentacle"),
            mysql_flavour=item.get("flavour", "mariadb-10.11"),
            nodes=item.get("nodes"),
            ec=_ec(item),
        )
    )
    if file == "udev.rules":
        return "".join(t for n, t in b.files.items() if n.startswith("udev/")), "="
    return b.files.get(OUTPUT[file], ""), "=" if file in ("tuned.conf", "systemd-numa.conf") else " = "


@pytest.mark.parametrize(
    "item",
    [i for i in ITEMS if i["check"] != "none"],
    ids=lambda i: f"{i['file']}:{i['key']}:{i.get('workload') or i.get('flavour') or ''}",
)
def test_the_decision_holds_in_the_compiled_output(item: dict[str, Any]) -> None:
    text, sep = _file(item)
    lines = [ln for ln in text.splitlines() if not ln.startswith("#")]
    keys = [k.strip() for k in str(item["key"]).split(",")]
    if isinstance(item["check"], dict) and "contains" in item["check"]:  # a command or a YAML line
        for want in str(item["check"]["contains"]).split(" | "):
            assert any(ln.strip() == want for ln in lines), (want, text)
        return
    if item["check"] == "absent":
        for key in keys:
            name = key.removeprefix("queue/")
            assert not any(re.match(rf"(ATTR\{{queue/)?{re.escape(name)}\b", ln) for ln in lines), (key, text)
    else:
        want = f"{keys[0]}{sep}{item['check']['present']}"
        flag = (
            item["file"] == "my.cnf" and str(item["check"]["present"]) == "true"
        )  # my.cnf writes true as a bare flag
        assert want in lines or (flag and keys[0] in lines), (want, text)


def test_dependency_facts_and_review_are_in_the_compiler_guide() -> None:
    sys.path.insert(0, str(REPO / "scripts"))
    from bookgen import rules_pages

    deps = rules_pages.dependencies_table(load_catalog())
    review = rules_pages.review_table(REPO / "data" / "review" / "compiled-configs.yaml")
    facts = [(k, d) for k in load_catalog() for d in k.dead_when]
    for k, d in facts:
        assert f"`{k.name}`" in deps and d.source in deps
    assert review.count("\n| ") >= len(ITEMS)
    for cls in CLASSES:
        assert f"| {cls} |" in review
    guide = (REPO / "book" / "compiler-guide.md").read_text()
    assert "_generated/dependencies.md" in guide and "_generated/review.md" in guide

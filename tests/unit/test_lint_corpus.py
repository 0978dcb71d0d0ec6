"""lint-config on real public configs (tests/fixtures/lint-corpus/, provenance in manifest.yaml): every file is
classified right from its content, nothing crashes, every finding has been judged (judged.yaml) and under 2 % are
false positives, and the real programs agree: ceph-conf 16.2.15 on syntax and option names, mariadbd 10.11 on
what stops it, and procps sysctl (dry run, read-only) on unknown keys."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from flashtune.lint import Finding, lint_file
from flashtune.lint.detect import detect
from flashtune.lint.report import github, sarif
from flashtune.releases import CEPH_RELEASES, MYSQL_FLAVOURS
from flashtune.yamlio import load_yaml
from support.lint_corpus import CORPUS, MANIFEST, by_kind

KINDS = ("ceph.conf", "my.cnf", "sysctl.conf", "cbt.yaml")
MAX_FP_RATE = 0.02


def finding_id(rel: str, f: Finding) -> str:
    return f"{rel}:{f.line}:{f.code}:{f.key}"


def release_args(m: dict[str, Any]) -> dict[str, str]:
    """The release a file states or implies (manifest `ceph_release` / `mysql`), as a user would pass it."""
    out = {}
    if "ceph_release" in m:
        out["ceph_release"] = str(m["ceph_release"])
    if "mysql" in m:
        out["mysql_flavour"] = str(m["mysql"])
    return out


@functools.cache
def findings() -> dict[str, list[Finding]]:
    """file (relative to the corpus) -> findings, linted as a user would: kind detected, the release the file
    states (else the default)."""
    return {m["file"]: lint_file(CORPUS / m["file"], **release_args(m)) for m in MANIFEST}


def test_corpus_is_large_varied_and_sourced() -> None:
    assert len(MANIFEST) >= 50
    for kind in KINDS:
        assert len(by_kind(kind)) >= 10, kind
    assert len({m["repo"] for m in MANIFEST}) >= 30
    for m in MANIFEST:
        assert re.fullmatch(r"[0-9a-f]{40}", m["commit"]) and m["repo"].count("/") == 1 and m["path"]
        assert (CORPUS / m["file"]).is_file()
        if (
            "ceph_release" in m or "mysql" in m
        ):  # a stated release says where it comes from and is one we know
            assert m.get("release_why") and m.get("ceph_release", "tentacle") in CEPH_RELEASES
            assert m.get("mysql", "mysql-8.0") in MYSQL_FLAVOURS


def test_only_settings_are_kept() -> None:
    """Comments (other people's prose) were removed; the settings and the line layout stay."""
    for m in MANIFEST:
        text = (CORPUS / m["file"]).read_text(encoding="utf-8")
        assert not [ln for ln in text.split("\n") if ln.lstrip().startswith(("#", ";"))], m["file"]
        assert any("=" in ln or ":" in ln for ln in text.split("\n")), m["file"]


@pytest.mark.parametrize("name", ["original", "site.conf"])
def test_kind_is_detected_from_content(name: str) -> None:
    """Under its own name and under a neutral one (a ceph.conf kept as /etc/ceph/site.conf)."""
    for m in MANIFEST:
        path = CORPUS / m["file"] if name == "original" else Path("/etc/ceph") / name
        got = detect(path, (CORPUS / m["file"]).read_text(encoding="utf-8"))
        assert got.kind == m["kind"], (m["file"], got)


def test_every_finding_is_judged_and_few_are_false() -> None:
    judged: dict[str, dict[str, str]] = dict(load_yaml(CORPUS / "judged.yaml")["findings"])
    seen = {finding_id(rel, f) for rel, fs in findings().items() for f in fs}
    assert seen - set(judged) == set(), "findings nobody judged"
    assert set(judged) - seen == set(), "judged findings the linter no longer reports"
    assert all(v["verdict"] in ("tp", "fp") and v["why"] for v in judged.values())
    fp = [k for k, v in judged.items() if v["verdict"] == "fp"]
    assert len(fp) / len(judged) < MAX_FP_RATE, fp


def test_repeated_findings_are_grouped_in_text_output() -> None:
    from flashtune.lint.report import text

    all_findings = [f for fs in findings().values() for f in fs]
    out = text(all_findings)
    assert len(out.splitlines()) < len(all_findings)  # 176 FileStore lines become one entry with a place list
    assert "same in" in out


def test_sarif_output_is_valid_sarif_2_1_0() -> None:
    schema = json.loads(
        (Path(__file__).parents[1] / "fixtures" / "sarif-2.1.0-subset.schema.json").read_text()
    )
    log = sarif([f for fs in findings().values() for f in fs])
    jsonschema.Draft202012Validator(schema).validate(log)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    for r in log["runs"][0]["results"]:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]


def test_github_annotations() -> None:
    fs = findings()["sysctl/sysctl-03-sysctl.conf"]
    lines = github(fs).splitlines()
    assert len(lines) == len(fs)
    assert all(
        re.fullmatch(r"::(error|warning|notice) file=[^,]+,line=\d+,col=\d+,title=FT\d{3} [a-z-]+::.+", ln)
        for ln in lines
    )

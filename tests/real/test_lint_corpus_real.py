"""lint-config on the public configs of tests/fixtures/lint-corpus/, judged by the real programs: ceph-conf
16.2.15 on syntax and option names, mariadbd 10.11 on what stops it, and procps sysctl (dry run, read-only) on
unknown keys."""

from __future__ import annotations

import re
from typing import Any

import pytest

from flashtune.lint import Finding, lint_file, lint_text
from support.lint_corpus import CORPUS, by_kind
from support.lint_oracles import (
    ceph_conf_accepts,
    ceph_option_exists,
    mariadb_verdict,
    sysctl_dry_run,
    sysctl_path,
)


@pytest.mark.ceph
@pytest.mark.parametrize("entry", by_kind("ceph.conf"), ids=lambda m: m["id"])
def test_ceph_conf_agrees(entry: dict[str, Any]) -> None:
    """Linted for Pacific (the release of the ceph-conf here): the file is refused by ceph-conf exactly when we
    report a syntax error, every key ceph-conf does not know is reported, and no key it knows is called unknown."""
    from flashtune.parse import parse_text

    path = CORPUS / entry["file"]
    text = path.read_text(encoding="utf-8")
    found = lint_text(text, "ceph.conf", filename=str(path), ceph_release="pacific")
    assert ceph_conf_accepts(path) == (not any(f.code == "FT001" for f in found))
    doc = parse_text(text, "ceph.conf", recover=True)
    reported = {(f.line, f.key) for f in found if f.code in KEY_CODES}
    for e in doc.entries:
        if e.key.startswith("mgr/") or (e.key == "mon_addr" and e.section.startswith("mon.")):
            continue  # manager module options; `mon addr` in [mon.X] is read by MonMap, not the option schema
        unknown = not ceph_option_exists(e.key)
        assert unknown == ((e.line, e.key) in reported), (e.line, e.key, unknown)


@pytest.mark.mariadb
@pytest.mark.parametrize("entry", by_kind("my.cnf"), ids=lambda m: m["id"])
def test_mariadbd_agrees(entry: dict[str, Any]) -> None:
    """For files checked as MariaDB 10.11: every option mariadbd refuses is reported as an error, every
    'refuses to start' claim is an option mariadbd refuses, and every 'accepts, warns and ignores' claim is an
    option mariadbd says was removed."""
    path = CORPUS / entry["file"]
    if str(entry.get("mysql", "mariadb")).startswith("mysql"):
        pytest.skip(f"the file is for {entry['mysql']} ({entry['release_why']}): mariadbd is not its judge")
    found = lint_file(path)
    if any(f.code == "FT003" for f in found):
        pytest.skip("the file is for MySQL (FT003): mariadbd is not its judge")
    verdict = mariadb_verdict(path.read_text(encoding="utf-8"))
    by_key: dict[str, list[Finding]] = {}
    for f in found:
        by_key.setdefault(f.key.replace("-", "_").lower(), []).append(f)
    for key in [*verdict.aborts, *verdict.rejects]:
        assert any(f.severity == "error" for f in by_key.get(key, [])), (key, verdict)
    for f in found:
        key = f.key.replace("-", "_").lower()
        if "refuses to start" in f.message:
            assert key in verdict.aborts or key in verdict.rejects, (f, verdict)
        if "warns, and ignores" in f.message:
            assert key in verdict.removed, (f, verdict)
        if "unique prefix" in f.message:
            assert key in verdict.prefixes, (f, verdict)


@pytest.mark.kernel
@pytest.mark.parametrize("entry", by_kind("sysctl.conf"), ids=lambda m: m["id"])
def test_sysctl_agrees(entry: dict[str, Any]) -> None:
    """Every key this kernel lacks is reported (unknown, removed, or only on some kernels), and procps' dry run
    fails on each key we call unknown. Nothing is written: see support/lint_oracles.py."""
    from flashtune.parse import parse_text

    path = CORPUS / entry["file"]
    text = path.read_text(encoding="utf-8")
    found = lint_file(path)
    reported = {(f.line, f.key) for f in found if f.code in ("FT101", "FT102", "FT108")}
    doc = parse_text(text, "sysctl.conf")
    for e in doc.entries:
        if re.search(r"\.(conf|neigh)\.(?!all\.|default\.)", e.key):
            continue  # per-device keys depend on this machine's interfaces
        if not sysctl_path(e.key).exists():
            assert (e.line, e.key) in reported, e.key
    dry = sysctl_dry_run(text)
    for f in found:
        if f.code == "FT101" and " " not in f.key:
            assert f"cannot stat {sysctl_path(f.key)}" in dry.stderr, (f.key, dry.stderr)


# --- real programs ------------------------------------------------------------------------------------------
KEY_CODES = {"FT101", "FT102", "FT103", "FT105"}

"""One implementation per catalog fact (issue 12 item 3): the linter, the compiler's validation, the knob
card, the book and the notebook helpers all ask the catalog, and so they agree everywhere.

Each test either replaces the catalog's function and sees every caller follow, or checks that all callers
agree on every knob (x release) — a caller that re-derived the fact would fail one or the other.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from flashtune.catalog import Knob, load_catalog
from flashtune.catalog import names as names_mod
from flashtune.catalog import status as status_mod
from flashtune.catalog.card import card_dict, render_card
from flashtune.catalog.knob import canon_value, human_size
from flashtune.catalog.spelling import mysql_key
from flashtune.compile import CompileRequest, compile_bundle
from flashtune.errors import FlashtuneError
from flashtune.lint import lint_text
from flashtune.parse import mycnf as parse_mycnf
from flashtune.parse import parse_text

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
from bookgen import knob_pages  # noqa: E402

STATUS_CODES = {"FT101", "FT102", "FT103", "FT401"}


def _one_line(knob: Knob, release: str | None, key: str | None = None) -> list[Any]:
    """Lint a config holding one line that sets knob (to a harmless value) for release."""
    key = key or knob.name
    value = knob.default_for(release) if knob.default_for(release) not in (None, "") else "1"
    value = canon_value(value, knob.type)
    if knob.domain == "ceph":
        return lint_text(f"[global]\n{key} = {value}\n", "ceph.conf", ceph_release=release or "tentacle")
    if knob.domain == "mysql":
        return lint_text(f"[mysqld]\n{key} = {value}\n", "my.cnf", mysql_flavour=release or "mariadb-10.11")
    return lint_text(f"{key} = {value}\n", "sysctl.conf")


def _lintable(knob: Knob) -> bool:
    return knob.location.file in ("ceph.conf", "my.cnf", "sysctl.conf") and " " not in knob.name


def _expected_codes(state: str, domain: str) -> set[str]:
    return {
        "in effect": set(),
        "misspelt": {"FT101"},
        "not yet": {"FT102"} if domain == "mysql" else {"FT101"},
        "renamed": {"FT103"},
        "removed": {"FT102"},
        "dead": {"FT401"},
    }[state]


def test_status_the_linter_card_book_and_notebooks_agree_on_every_knob_and_release(tmp_path: Path) -> None:
    import pandas as pd

    from flashtune import nb

    catalog = load_catalog()
    pages = {p.stem: p.read_text() for p in knob_pages.write(catalog, tmp_path)}
    checked = 0
    seen_states: set[str] = set()
    for knob in catalog:
        card = card_dict(knob)
        card_status = card["status"] if knob.releases else {None: card["status"]}
        assert list(card_status) == list(knob.releases or (None,)), knob.name  # one release list
        grid = nb.status_grid(
            pd.DataFrame([{"key": knob.name, "value": "1"}]), knob.domain, list(card_status)
        )
        section = pages[knob.domain].split(f"({knob_pages.knob_label(knob)})=", 1)[1].split("\n(knob-", 1)[0]
        for release, state in card_status.items():
            assert state == catalog.status(knob, release).state
            seen_states.add(state)
            assert grid.set_index("release").state[release] == state, (knob.name, release)
            assert state in section, (knob.name, release)
            if not _lintable(knob):
                continue
            findings = _one_line(knob, release)
            codes = {f.code for f in findings if f.code in STATUS_CODES}
            if state != "dead" and knob.dead_when:
                codes.discard("FT401")  # a dependency fact (dead_when), not the release status
            assert codes == _expected_codes(state, knob.domain), (knob.name, release, state, findings)
            checked += 1
    assert checked > 1000
    assert seen_states == set(status_mod.STATES), "every state occurs in the catalog"


def test_status_has_one_implementation_that_linter_card_and_notebooks_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Make the catalog call every knob removed: all callers must say so at once."""
    import pandas as pd

    from flashtune import nb

    catalog = load_catalog()
    knob = catalog.get("osd_memory_target", "ceph")
    assert knob is not None and catalog.status(knob, "tentacle").in_effect
    assert not {f.code for f in _one_line(knob, "tentacle")} & STATUS_CODES

    fake = status_mod.Status("removed", since="squid")
    monkeypatch.setattr("flashtune.catalog.store.knob_status", lambda *a, **k: fake)
    assert "FT102" in {f.code for f in _one_line(knob, "tentacle")}
    assert card_dict(knob)["status"]["tentacle"] == "removed"
    assert re.search(r"tentacle\s+removed", render_card(knob))
    grid = nb.status_grid(pd.DataFrame([{"key": knob.name, "value": "4G"}]), "ceph", ["tentacle"])
    assert list(grid.state) == ["removed"]


def test_option_name_lists_are_read_once_for_linter_and_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    """The linter's "unknown option" and the compiler's "does not exist" read the same lists."""
    real = names_mod.option_names
    asked: list[tuple[str, str]] = []

    def without_memory_target(domain: str, release: str) -> frozenset[str] | None:
        asked.append((domain, release))
        got = real(domain, release)
        return None if got is None else got - {"osd_memory_target", "bluestore_cache_autotune_interval"}

    monkeypatch.setattr(names_mod, "option_names", without_memory_target)
    assert load_catalog().get("bluestore_cache_autotune_interval") is None  # judged by the list alone
    found = lint_text("[osd]\nbluestore_cache_autotune_interval = 5\n", "ceph.conf", ceph_release="tentacle")
    assert [f.code for f in found] == ["FT101"]
    with pytest.raises(FlashtuneError, match="osd_memory_target"):
        compile_bundle(CompileRequest(workload="block", tier="iops", ceph_release="tentacle"))
    assert ("ceph", "tentacle") in asked
    monkeypatch.undo()
    assert (
        lint_text("[osd]\nbluestore_cache_autotune_interval = 5\n", "ceph.conf", ceph_release="tentacle")
        == []
    )


def test_value_canonicalisation_is_shared_by_linter_compiler_and_catalog() -> None:
    """Spellings of one value that the catalog calls equal are equal for the linter's enum check, the
    unsafe-value test and the compiler's "equals the default" test."""
    catalog = load_catalog()
    checked = 0
    for knob in catalog:
        if (
            knob.location.file != "ceph.conf"
            or not knob.enum
            or not catalog.status(knob, "tentacle").in_effect
        ):
            continue
        for v in knob.enum:
            for variant in (v.upper(), f'"{v}"', f" {v} "):
                assert canon_value(variant, knob.type) == canon_value(v, knob.type)
                found = lint_text(f"[global]\n{knob.name} = {variant}\n", "ceph.conf")
                assert "FT203" not in {f.code for f in found}, (knob.name, variant)
                assert knob.is_default(variant, "tentacle") == knob.is_default(v, "tentacle")
                checked += 1
    assert checked > 20
    bools = [k for k in catalog if k.type == "bool" and k.default_for("tentacle") is not None]
    for knob in bools:
        d = bool(knob.default_for("tentacle"))
        for spelling in ("true", "1", "on", "yes") if d else ("false", "0", "off", "no"):
            assert knob.is_default(spelling, "tentacle"), (knob.name, spelling)
    assert canon_value(1.0) == canon_value(1) == "1"  # the compiler's float/int defaults


def test_unsafe_test_has_one_implementation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiler refuses exactly what the linter flags: both ask Knob.value_safety."""
    catalog = load_catalog()
    risky = [
        (k, v) for k in catalog for r in k.unsafe_values for v in r.values if k.location.file == "ceph.conf"
    ]
    assert len(risky) >= 3
    for knob, value in risky:
        assert knob.unsafe(value)
        codes = {f.code for f in lint_text(f"[global]\n{knob.name} = {value}\n", "ceph.conf")}
        assert codes & {"FT501", "FT502"}, (knob.name, value)
    compile_bundle(CompileRequest(workload="block", tier="iops"))  # safe by default
    monkeypatch.setattr(Knob, "value_safety", lambda self, value: ("integrity-risk", "test"))
    with pytest.raises(FlashtuneError, match="--allow-unsafe"):
        compile_bundle(CompileRequest(workload="block", tier="iops"))
    knob = catalog.get("osd_memory_target", "ceph")
    assert knob is not None
    assert "FT501" in {f.code for f in lint_text("[osd]\nosd_memory_target = 4G\n", "ceph.conf")}


def test_mysql_name_spelling_has_one_implementation() -> None:
    """my.cnf dashes, underscores and loose- mean one option to the parser, the catalog, linter and compiler."""
    assert parse_mycnf.normalize_key is mysql_key
    catalog = load_catalog()
    for knob in catalog.in_domain("mysql"):
        if knob.location.file != "my.cnf":
            continue
        dashed = knob.name.replace("_", "-")
        for written in (knob.name, dashed, f"loose-{dashed}", f"loose_{knob.name}"):
            doc = parse_text(f"[mysqld]\n{written} = 1\n", "my.cnf")
            assert doc.entries[0].key == knob.name, written
            assert catalog.resolve(written, "mysql") is knob, written
            codes = {f.code for f in _one_line(knob, "mariadb-10.11", key=written)}
            plain = {f.code for f in _one_line(knob, "mariadb-10.11")}
            assert codes & STATUS_CODES == plain & STATUS_CODES, (written, codes, plain)


def _size_parts(text: str) -> list[str]:
    return re.findall(r"\((\d[\d.]* [KMGT]iB)\)", text)


def test_size_display_is_the_same_in_card_and_book(tmp_path: Path) -> None:
    catalog = load_catalog()
    pages = {p.stem: p.read_text() for p in knob_pages.write(catalog, tmp_path)}
    checked = 0
    for knob in catalog:
        if knob.type != "size":
            continue
        values = [knob.default_for(r) for r in knob.releases or (None,) if knob.exists_in(r)]
        shown = [h for v in values if isinstance(v, int) and (h := human_size(v))]
        if not shown:
            continue
        section = pages[knob.domain].split(f"({knob_pages.knob_label(knob)})=", 1)[1].split("\n(knob-", 1)[0]
        card = render_card(knob)
        for h in shown:
            assert f"({h})" in card and f"({h})" in section, (knob.name, h)
        assert set(_size_parts(card)) <= set(_size_parts(section)) | {human_size(int(knob.min or 0)) or ""}
        checked += 1
    assert checked > 20
    assert (
        human_size(4 << 20) == "4 MiB" and human_size(1536 << 20) == "1536 MiB" and human_size(1000) is None
    )

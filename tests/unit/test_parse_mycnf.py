"""my.cnf parser: agreement with real my_print_defaults (MariaDB 10.11), round trips, fuzzing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashtune.parse import ConfSyntaxError, parse_text, render_text
from support.conf_samples import MYCNF_CORPUS, MYCNF_SEED


def test_seed_model() -> None:
    doc = parse_text(MYCNF_SEED.read_text(), "my.cnf", str(MYCNF_SEED))
    eff = doc.effective()
    assert eff["mysqld"]["thread_cache_size"].value == "16"  # the later duplicate wins
    assert eff["mysqld"]["skip_external_locking"].value is None  # bare flag
    assert eff["mysqld"]["pid_file"].raw_key == "pid-file"
    assert [i.value for i in doc.includes] == ["/etc/mysql/conf.d/"]
    assert (
        eff["mysqld"]["innodb_buffer_pool_size"].line
        == MYCNF_SEED.read_text().splitlines().index("innodb_buffer_pool_size = 25G") + 1
    )


_NAME = st.from_regex(r"[a-z][a-z0-9_-]{0,15}", fullmatch=True)
_VAL = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=20)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(["mysqld", "client", "mysqldump"]), _NAME, st.none() | _VAL),
        min_size=1,
        max_size=10,
    )
)
def test_round_trip(items: list[tuple[str, str, str | None]]) -> None:
    text = "".join(f"[{g}]\n{k}\n" if v is None else f'[{g}]\n{k} = "{_q(v)}"\n' for g, k, v in items)
    doc = parse_text(text, "my.cnf")
    assert [(e.section, e.raw_key, e.value) for e in doc.entries] == [(g, k, v) for g, k, v in items]
    again = parse_text(render_text(doc), "my.cnf")
    assert again.model() == doc.model()


def _q(v: str) -> str:
    return v.replace("\\", "\\\\").replace('"', '\\"')


@settings(max_examples=200)
@given(st.binary(max_size=300))
def test_fuzz_never_crashes(data: bytes) -> None:
    try:
        parse_text(data.decode("utf-8", "replace"), "my.cnf")
    except ConfSyntaxError as e:
        assert e.line is not None


def _both(text: str) -> tuple[object, object]:
    from flashtune.parse.mycnf import parse
    from support.grammars import mycnf_pyparsing

    try:
        fast: object = [(e.section, e.raw_key, e.value) for e in parse(text).entries]
    except ConfSyntaxError:
        fast = None
    try:
        ref: object = mycnf_pyparsing(text)
    except ConfSyntaxError:
        ref = None
    return fast, ref


@pytest.mark.parametrize(("name", "text"), MYCNF_CORPUS, ids=[c[0] for c in MYCNF_CORPUS])
def test_scanner_matches_pyparsing_grammar(name: str, text: str) -> None:
    fast, ref = _both(text)
    assert fast == ref


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("[]=#;!\\\"' \tab\n")), max_size=60))
def test_fuzz_scanner_and_pyparsing_agree(text: str) -> None:
    fast, ref = _both(text)
    assert fast == ref, repr(text)

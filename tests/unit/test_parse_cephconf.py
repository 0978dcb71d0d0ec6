"""ceph.conf parser: agreement with real ceph-conf, with the pyparsing reference grammar, round trips, fuzzing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashtune.parse import ConfSyntaxError, parse_text, render_text
from flashtune.parse.cephconf import parse
from support.conf_samples import CEPH_CONF_CORPUS
from support.grammars import cephconf_pyparsing


@pytest.mark.parametrize(("name", "text"), CEPH_CONF_CORPUS, ids=[c[0] for c in CEPH_CONF_CORPUS])
def test_scanner_matches_pyparsing_grammar(name: str, text: str) -> None:
    try:
        fast: list[tuple[str, str, str | None]] | None = parse(text).model()
    except ConfSyntaxError:
        fast = None
    try:
        ref: list[tuple[str, str, str | None]] | None = list(cephconf_pyparsing(text))
    except ConfSyntaxError:
        ref = None
    assert fast == ref


def test_positions_point_at_key_and_value() -> None:
    doc = parse("[osd]\n  osd max backfills =   7\n")
    e = doc.entries[0]
    assert (e.key, e.raw_key, e.value) == ("osd_max_backfills", "osd max backfills", "7")
    line = "  osd max backfills =   7"
    assert (e.line, e.column, e.value_line, e.value_column) == (2, 3, 2, line.index("7") + 1)


def test_syntax_error_has_position() -> None:
    with pytest.raises(ConfSyntaxError) as info:
        parse("[global]\nfoo = 1\nbar\n", "x.conf")
    assert (info.value.file, info.value.line) == ("x.conf", 3)


def test_non_ascii_outside_comments_is_refused() -> None:
    # ceph-conf 16.2 aborts (assertion) on these; comments may hold any UTF-8
    assert parse("[osd]\n# café\nfoo = 1\n").model() == [("osd", "foo", "1")]
    with pytest.raises(ConfSyntaxError, match="non-ASCII"):
        parse("[osd]\nfoo = café\n")


_KEY = st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True)
_VALUE = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30)
_SECTION = st.from_regex(r"(global|osd|mon|client)(\.[a-z0-9]{1,5})?", fullmatch=True)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_SECTION, _KEY, _VALUE), min_size=1, max_size=12))
def test_round_trip_parse_emit_parse(items: list[tuple[str, str, str]]) -> None:
    text = "".join(f"[{s}]\n{k} = {_escape(v)}\n" for s, k, v in items)
    doc = parse(text)
    again = parse(render_text(doc))
    assert _eff(again) == _eff(doc)
    expected: dict[tuple[str, str], str] = {}
    for s, k, v in items:
        expected[(s, k)] = v.strip(" ")  # last duplicate wins
    assert _eff(doc) == expected


def _escape(v: str) -> str:
    out = v.replace("\\", "\\\\").replace("#", "\\#").replace(";", "\\;")
    body = out.lstrip(" ")
    if body[:1] and body[0] in "\"'":  # a leading quote would start a quoted value
        return out[: len(out) - len(body)] + "\\" + body
    return out


def _eff(doc: object) -> dict[tuple[str, str], str]:
    from flashtune.parse.confdoc import ConfDoc

    assert isinstance(doc, ConfDoc)
    return {(s, k): e.value or "" for s, keys in doc.effective().items() for k, e in keys.items()}


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_fuzz_bytes_never_crash(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    try:
        parse(text)
    except ConfSyntaxError as e:
        assert e.line is not None and e.line >= 1


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("[]=#;\\\"' \t\nab.")), max_size=60))
def test_fuzz_grammar_chars_scanner_and_pyparsing_agree(text: str) -> None:
    try:
        fast: list[tuple[str, str, str | None]] | None = parse(text).model()
    except ConfSyntaxError:
        fast = None
    try:
        ref: list[tuple[str, str, str | None]] | None = list(cephconf_pyparsing(text))
    except ConfSyntaxError:
        ref = None
    assert fast == ref, repr(text)


def test_parse_text_dispatch_and_unknown_kind() -> None:
    assert parse_text("[osd]\na = 1\n", "ceph.conf").kind == "ceph.conf"
    with pytest.raises(ValueError):
        parse_text("", "nginx.conf")

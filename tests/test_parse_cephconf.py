"""ceph.conf parser: agreement with real ceph-conf, with the pyparsing reference grammar, round trips, fuzzing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashtune.parse import ConfSyntaxError, parse_text, render_text
from flashtune.parse.cephconf import parse, parse_pyparsing

# Edge cases of Ceph's grammar (ConfUtils.cc and its tests); each either parses or must be refused.
CORPUS: list[tuple[str, str]] = [
    ("plain", "[global]\nfoo = 1\n[osd]\nbar = 2\n"),
    ("spaces-in-key", "[osd]\n  osd   max backfills = 3\n"),
    ("tabs", "[osd]\npid file\t=\tfoo2\n"),
    ("tab-inside-value", "[osd]\nfoo = a\tb\n"),
    ("inline-comments", "[osd]\nlog dir = out # a comment ;;; right?\nx = 1 ; y\n"),
    ("comment-after-heading", "[osd] # c\nfoo = 1\n"),
    ("escapes", "[osd]\na = a\\#b\nb = back\\\\slash\nc = semi\\;colon\n"),
    ("continuation", "[osd]\nbaz = one \\\n  two\npid = \\\n   spork\\\n\n"),
    ("double-quoted", '[osd]\nfoo = "a b"  ; c\n'),
    ("single-quoted", "[osd]\nfoo = 'x y'  # c\n"),
    ("escaped-hash-in-quotes", '[osd]\nfoo = "a \\# b"\n'),
    ("interior-quotes", '[osd]\nfoo = the "scare quotes" stay\n'),
    ("empty-values", '[osd]\nfoo =\nbar = ""\n'),
    ("equals-in-value", "[osd]\nfoo = a=b=c\n"),
    ("dup-key-last-wins", "[osd]\nfoo = 1\nfoo = 2\nosd max backfills = 3\nosd_max_backfills = 4\n"),
    ("repeated-section-merges", "[osd]\nfoo = 1\n[global]\nbar = 1\n[osd]\nfoo = 5\nbaz = 6\n"),
    ("headerless-single-line", "log dir = barfoo\n\n"),
    ("comments-before-heading", "# top\n; also\n  # indented comment\n\n[osd]\nfoo = 1\n"),
    ("blank-lines-in-section", "[osd]\nfoo = 1\n  \n\t\nbar = 2\n"),
    ("crlf", "[osd]\r\nfoo = 1\r\n"),
    ("bracket-in-key", "[osd]\nk]x = 1\n"),
    ("escaped-bracket-section", "[a\\]b]\nfoo = 1\n[osd]\nbar = 2\n"),
    ("section-with-space", "[os d]\nfoo = 1\n[osd]\nbar = 2\n"),
    ("dashes-kept", "[osd]\nosd-max-backfills = 1\n"),
    ("trailing-blanks", "[osd]\n  foo   =   1   \n[global]  \nbar = 2\n"),
    ("empty-file", ""),
    ("only-newline", "\n"),
    # refused by Ceph
    ("err-no-final-newline", "[global]\nlog dir = foobar"),
    ("err-no-equals", "[osd]\nfoo bar\n"),
    ("err-unclosed-heading", "[global\nfoo = 1\n"),
    ("err-empty-heading", "[osd]\n[]\nfoo = 1\n"),
    ("err-indented-heading", "[osd]\n   [global]\nfoo = 1\n"),
    ("err-text-after-heading", "[osd]x\nfoo = 1\n"),
    ("err-unterminated-quote", '[osd]\nfoo = "x\n'),
    ("err-hash-in-quotes", '[osd]\nfoo = "a # b"\n'),
    ("err-text-after-quote", '[osd]\nfoo = "x" y\n'),
    ("err-continuation-in-quotes", '[osd]\nfoo = "a\\\n b"\n'),
    ("err-key-after-headerless", "log dir = x\nother = y\n"),
    ("err-heading-after-headerless", "log dir = x\n[osd]\nfoo = 1\n"),
    ("err-headerless-not-first", "\n# c\nlog dir = x\n"),
    ("err-blank-line-before-heading", "  \n[osd]\nfoo = 1\n"),
    ("err-comment-in-key", "[osd]\nk#x = 1\n"),
    ("err-bracket-in-key", "[osd]\nk[x = 1\n"),
    ("err-continuation-at-eof", "[osd]\nfoo = x\\\n"),
    ("comment-at-eof-without-newline", "[osd]\nfoo = 1\n  # c"),
    ("err-blank-at-eof-without-newline", "[osd]\nfoo = 1\n "),
    ("err-value-comment-at-eof-without-newline", "[osd]\nfoo = 1 # c"),
]


def _ours(text: str) -> dict[str, dict[str, str]] | None:
    try:
        doc = parse(text)
    except ConfSyntaxError:
        return None
    return {s: {k: e.value or "" for k, e in keys.items()} for s, keys in doc.effective().items()}


def _ceph_conf(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS")}
    return subprocess.run(
        ["ceph-conf", "-c", str(path), *args], capture_output=True, text=True, env=env, timeout=30
    )


@pytest.mark.ceph
@pytest.mark.parametrize(("name", "text"), CORPUS, ids=[c[0] for c in CORPUS])
def test_agrees_with_real_ceph_conf(name: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / "edge.conf"
    path.write_bytes(text.encode())
    ours = _ours(text)
    listing = _ceph_conf(path, "-L")
    refused = "parse error" in listing.stderr
    assert refused == (ours is None), f"ceph-conf {'refused' if refused else 'accepted'}: {listing.stderr}"
    assert name.startswith("err-") == refused, "corpus label disagrees with ceph-conf"
    if ours is None:
        return
    assert sorted(listing.stdout.splitlines()) == sorted(ours), "section lists differ"
    for section, keys in ours.items():
        for key, value in keys.items():
            # client.zz matches no section, so ceph-conf searches [section] then [global]
            r = _ceph_conf(path, "-s", section, "--name", "client.zz", "--lookup", key)
            assert r.returncode == 0, f"ceph-conf cannot find [{section}] {key}: {r.stderr}"
            assert r.stdout.rstrip("\n") == value, f"[{section}] {key}"


@pytest.mark.ceph
def test_emitted_text_reads_the_same_in_ceph_conf(tmp_path: Path) -> None:
    doc = parse('[global]\nlog dir = a\\#b\n[osd]\nx = " padded "\ny = semi\\;c\n[osd]\nx = 2\n')
    path = tmp_path / "emitted.conf"
    path.write_text(render_text(doc))
    for section, key, value in [("global", "log_dir", "a#b"), ("osd", "x", "2"), ("osd", "y", "semi;c")]:
        r = _ceph_conf(path, "-s", section, "--name", "client.zz", "--lookup", key)
        assert r.stdout.rstrip("\n") == value


@pytest.mark.parametrize(("name", "text"), CORPUS, ids=[c[0] for c in CORPUS])
def test_scanner_matches_pyparsing_grammar(name: str, text: str) -> None:
    try:
        fast: list[tuple[str, str, str | None]] | None = parse(text).model()
    except ConfSyntaxError:
        fast = None
    try:
        ref: list[tuple[str, str, str | None]] | None = list(parse_pyparsing(text))
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
        ref: list[tuple[str, str, str | None]] | None = list(parse_pyparsing(text))
    except ConfSyntaxError:
        ref = None
    assert fast == ref, repr(text)


def test_parse_text_dispatch_and_unknown_kind() -> None:
    assert parse_text("[osd]\na = 1\n", "ceph.conf").kind == "ceph.conf"
    with pytest.raises(ValueError):
        parse_text("", "nginx.conf")


META_CONF = (
    "[global]\nfoo = $cluster-$name\nbar = ${type}.${id}-$num\nbaz = $osd_data/x\nosd data = /d/$id\n"
    "loop = $loop\nlone = a $ b\nunk = $nosuch\n[osd]\nq = 1\n[osd.0]\nq = 2\n[osd.1]\nq = 3\n"
)


@pytest.mark.ceph
def test_lookup_precedence_and_metavariables_agree_with_ceph_conf(tmp_path: Path) -> None:
    from flashtune.catalog.names import ceph_option_names
    from flashtune.parse.cephconf import expand_meta, lookup

    path = tmp_path / "ceph.conf"  # the file name keeps ceph-conf's $cluster at "ceph"
    path.write_text(META_CONF)
    doc = parse(META_CONF)
    options = ceph_option_names("pacific") or frozenset()

    def option(var: str) -> str | None:
        e = lookup(doc, "osd.0", var)
        return (e.value or "") if var in options and e is not None else None

    for key in ("foo", "bar", "baz", "osd_data", "loop", "lone", "unk", "q"):
        e = lookup(doc, "osd.0", key)
        assert e is not None and e.value is not None
        ours = expand_meta(e.value, name="osd.0", option=option)
        real = _ceph_conf(path, "--name", "osd.0", "--lookup", key)
        assert real.stdout.rstrip("\n") == ours, key


@pytest.mark.ceph
def test_key_of_only_an_escaped_blank_is_accepted_like_ceph_conf(tmp_path: Path) -> None:
    """Found by hypothesis: `\\ = 1` normalises to an empty key, which Ceph accepts (no 'missing key' error)."""
    text = "[global]\n\\ = 1\nfoo = 2\n"
    path = tmp_path / "c.conf"
    path.write_text(text)
    r = _ceph_conf(path, "-L")
    assert r.returncode == 0 and r.stdout.split() == ["global"]
    assert [(e.section, e.key, e.value) for e in parse(text).entries] == [
        ("global", "", "1"),
        ("global", "foo", "2"),
    ]
    assert parse_pyparsing(text) == [("global", "", "1"), ("global", "foo", "2")]

"""my.cnf parser: agreement with real my_print_defaults (MariaDB 10.11), round trips, fuzzing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashtune.parse import ConfSyntaxError, parse_text, render_text
from flashtune.parse.confdoc import ConfDoc

SEED = Path(__file__).parent / "fixtures" / "seed-configs" / "000-my.cnf"

CORPUS: list[tuple[str, str]] = [
    ("comments-and-quotes", "[mysqld]\na = 1 # c\nb = x#y\nc = \"q # r\" # s\nd = 'sq'\n"),
    ("escapes", "[mysqld]\ne = tab\\there\nk = \\\\x\nn = new\\nline\ns = a\\sb\nq = keep\\qit\n"),
    (
        "bare-and-spaced",
        "[mysqld]\nskip-external-locking\n  indented = 5\nf=\ng key value\nl   =   spaced  \n",
    ),
    ("loose-and-dashes", "[mysqld]\nloose-h = 2\ninnodb-buffer-pool-size = 1G\n"),
    ("unterminated-quote", '[mysqld]\ni = "unterminated\nj = a "b" c\n'),
    (
        "groups-repeat-and-case",
        "[mysqld]\nm = 1\n[client]\nport=1\n[mysqld]\nm = again\n;c\n#c\n[Mysqld]\nn = case\n",
    ),
    ("no-final-newline", "[mysqld]\na=1"),
    ("tab-inside-value", "[mysqld]\nx = a\tb\n"),
    ("group-with-blanks", "[ mysqld ]\nx = 1\n[mysqld ]\ny = 2\n[mysqld] junk\nz = 3\n"),
]


def _ours(doc: ConfDoc, group: str) -> list[str]:
    return [
        f"--{e.raw_key}" if e.value is None else f"--{e.raw_key}={e.value}"
        for e in doc.entries
        if e.section == group
    ]


@pytest.mark.mariadb
@pytest.mark.parametrize(
    ("name", "text"),
    [*CORPUS, ("seed", SEED.read_text().replace("!includedir", "#"))],
    ids=[c[0] for c in CORPUS] + ["seed"],
)
def test_agrees_with_real_my_print_defaults(name: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / "t.cnf"
    path.write_text(text)
    doc = parse_text(text, "my.cnf")
    for group in ("mysqld", "client", "mysqld_safe", "mysqldump"):
        r = subprocess.run(
            ["my_print_defaults", f"--defaults-file={path}", group],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        assert r.stdout == "".join(line + "\n" for line in _ours(doc, group)), group


@pytest.mark.mariadb
@pytest.mark.parametrize("text", ["a=1\n", "[mysqld\na=1\n"], ids=["no-group", "bad-heading"])
def test_fatal_files_are_fatal_for_both(text: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.cnf"
    path.write_text(text)
    r = subprocess.run(
        ["my_print_defaults", f"--defaults-file={path}", "mysqld"], capture_output=True, text=True, timeout=30
    )
    assert r.returncode != 0
    with pytest.raises(ConfSyntaxError) as info:
        parse_text(text, "my.cnf", "bad.cnf")
    assert info.value.line == 1


def test_seed_model() -> None:
    doc = parse_text(SEED.read_text(), "my.cnf", str(SEED))
    eff = doc.effective()
    assert eff["mysqld"]["thread_cache_size"].value == "16"  # the later duplicate wins
    assert eff["mysqld"]["skip_external_locking"].value is None  # bare flag
    assert eff["mysqld"]["pid_file"].raw_key == "pid-file"
    assert [i.value for i in doc.includes] == ["/etc/mysql/conf.d/"]
    assert (
        eff["mysqld"]["innodb_buffer_pool_size"].line
        == SEED.read_text().splitlines().index("innodb_buffer_pool_size = 25G") + 1
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
    from flashtune.parse.mycnf import parse, parse_pyparsing

    try:
        fast: object = [(e.section, e.raw_key, e.value) for e in parse(text).entries]
    except ConfSyntaxError:
        fast = None
    try:
        ref: object = parse_pyparsing(text)
    except ConfSyntaxError:
        ref = None
    return fast, ref


@pytest.mark.parametrize(("name", "text"), CORPUS, ids=[c[0] for c in CORPUS])
def test_scanner_matches_pyparsing_grammar(name: str, text: str) -> None:
    fast, ref = _both(text)
    assert fast == ref


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("[]=#;!\\\"' \tab\n")), max_size=60))
def test_fuzz_scanner_and_pyparsing_agree(text: str) -> None:
    fast, ref = _both(text)
    assert fast == ref, repr(text)

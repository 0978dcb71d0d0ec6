"""CBT YAML parser: positions for every key, duplicates kept, last-wins data, hostile input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashtune.parse import ConfSyntaxError, parse_text, render_text

PLAN = """cluster:
  user: bmpa
  iterations: 1
  iterations: 3
  pool_profiles:
    2rep: {pg_size: 8192, replication: 2}
benchmarks:
  librbdfio:
    iodepth: [4, 8]
"""


def test_entries_have_positions_and_duplicates_survive() -> None:
    doc = parse_text(PLAN, "cbt.yaml")
    its = [e for e in doc.entries if e.key == "iterations"]
    assert [(e.section, e.line, e.column) for e in its] == [("cluster", 3, 3), ("cluster", 4, 3)]
    assert doc.data["cluster"]["iterations"] == 3  # PyYAML semantics: the later key wins
    pg = next(e for e in doc.entries if e.key == "pg_size")
    assert pg.section == "cluster.pool_profiles.2rep" and pg.line == 6


def test_misindented_seed_plan_is_a_positioned_syntax_error() -> None:
    text = "cluster:\n  user: a\nosds_per_node: 16\n  fs: xfs\n"
    with pytest.raises(ConfSyntaxError) as info:
        parse_text(text, "cbt.yaml", "plan.yaml")
    assert (info.value.line, info.value.column) == (4, text.splitlines()[3].index(":") + 1)


@pytest.mark.parametrize(
    "text", ["[" * 5000 + "]" * 5000, "a: &x [*x]\n", "? [a]\n: 1\n", "a: !!python/object:os.system x\n"]
)
def test_hostile_yaml_is_a_clean_error_or_plain_data(text: str) -> None:
    try:
        doc = parse_text(text, "cbt.yaml")
    except ConfSyntaxError as e:
        assert e.message
    else:
        assert doc.data is not None


@settings(max_examples=100)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z_]{1,8}", fullmatch=True),
        st.integers(-5, 10**6)
        | st.booleans()
        | st.lists(st.integers(0, 100), max_size=4)
        | st.from_regex(r"[a-z0-9/]{1,10}", fullmatch=True),
        max_size=8,
    )
)
def test_round_trip(cluster: dict[str, object]) -> None:
    doc = parse_text(
        render_text(parse_text("cluster: {}\n", "cbt.yaml")) if not cluster else _dump(cluster), "cbt.yaml"
    )
    again = parse_text(render_text(doc), "cbt.yaml")
    assert again.data == doc.data


def _dump(cluster: dict[str, object]) -> str:
    import io

    from ruamel.yaml import YAML

    buf = io.StringIO()
    YAML(typ="safe", pure=True).dump({"cluster": cluster}, buf)
    return buf.getvalue()


@settings(max_examples=200)
@given(st.binary(max_size=300))
def test_fuzz_never_crashes(data: bytes) -> None:
    try:
        parse_text(data.decode("utf-8", "replace"), "cbt.yaml")
    except ConfSyntaxError as e:
        assert e.message

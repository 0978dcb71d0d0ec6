"""sysctl.conf parser: procps rules, round trip, fuzzing."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from flashtune.parse import parse_text, render_text

SEEDS = Path(__file__).parents[1] / "fixtures" / "seed-configs"


def test_separators_prefix_comments_and_multi_values() -> None:
    text = "# c\n; c\n-net/ipv4/conf/eth0.100/rp_filter = 1\nkernel.sem = 250  32000 100 128\n  vm.swappiness=10\nbad line\n"
    doc = parse_text(text, "sysctl.conf")
    assert doc.model() == [
        ("", "net.ipv4.conf.eth0/100.rp_filter", "1"),
        ("", "kernel.sem", "250  32000 100 128"),
        ("", "vm.swappiness", "10"),
    ]
    assert doc.entries[0].flags == ("ignore-errors",)
    assert doc.entries[2].column == 3
    assert [p.line for p in doc.problems] == [6]


def test_seed_files_parse_completely() -> None:
    for name in ("000-kernel-sysctl.conf", "000-sample-sysctl.conf"):
        text = (SEEDS / name).read_text()
        doc = parse_text(text, "sysctl.conf")
        setting_lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        assert len(doc.entries) == len(setting_lines) and not doc.problems


_KEY = st.from_regex(r"(net|vm|kernel|fs)(\.[a-z0-9_]{1,10}){1,3}", fullmatch=True)
_VAL = st.from_regex(r"[0-9]{1,6}( [0-9]{1,6}){0,3}", fullmatch=True)


@settings(max_examples=200)
@given(st.lists(st.tuples(_KEY, _VAL, st.booleans()), min_size=1, max_size=10))
def test_round_trip(items: list[tuple[str, str, bool]]) -> None:
    text = "".join(f"{'-' if soft else ''}{k} = {v}\n" for k, v, soft in items)
    doc = parse_text(text, "sysctl.conf")
    again = parse_text(render_text(doc), "sysctl.conf")
    assert again.model() == doc.model() == [("", k, v) for k, v, _ in items]
    assert [e.flags for e in again.entries] == [e.flags for e in doc.entries]


@settings(max_examples=200)
@given(st.binary(max_size=300))
def test_fuzz_never_crashes(data: bytes) -> None:
    doc = parse_text(data.decode("utf-8", "replace"), "sysctl.conf")
    assert all(p.line is not None for p in doc.problems)

"""The place an error names: one offset -> line:column reckoning (flashtune.errors.position) for the YAML
reader, the config-database JSON parser and ingested tool output."""

from __future__ import annotations

from pathlib import Path

import pytest

from flashtune.errors import DataError, position
from flashtune.ingest.common import line_of_offset
from flashtune.yamlio import load_yaml


@pytest.mark.parametrize(
    ("text", "offset", "where"),
    [
        ("abc", 0, (1, 1)),
        ("abc", 2, (1, 3)),
        ("ab\ncd\nef", 3, (2, 1)),  # just after a newline: the next line's first column
        ("ab\ncd\nef", 4, (2, 2)),
        ("ab\ncd\nef", 8, (3, 3)),
        ("ab\n", -5, (1, 1)),  # a negative offset (nothing read yet) is the start
    ],
)
def test_position_is_one_based_line_and_column(text: str, offset: int, where: tuple[int, int]) -> None:
    assert position(text, offset) == where
    assert line_of_offset(text, offset) == where[0]


def test_the_yaml_reader_names_the_line_and_column_of_a_bad_character(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text("a: 1\nb: x\x07y\n")
    with pytest.raises(DataError) as e:
        load_yaml(f)
    assert (e.value.line, e.value.column) == (2, 5) and "U+0007" in str(e.value)


@pytest.mark.parametrize("value", ["9" * 5000, "-" + "9" * 5000, '!!int "' + "9" * 5000 + '"'])
def test_the_yaml_reader_names_the_line_of_an_integer_too_long_to_convert(tmp_path: Path, value: str) -> None:
    """Python converts at most 4300 decimal digits: a longer integer was a ValueError traceback."""
    f = tmp_path / "x.yaml"
    f.write_text(f"a: 1\nb: {value}\n")
    with pytest.raises(DataError) as e:
        load_yaml(f)
    assert (e.value.line, e.value.column) == (2, 4) and "5000 digits" in str(e.value)


def test_a_yaml_merge_key_is_named_as_such(tmp_path: Path) -> None:
    """'<<: *base' (YAML 1.1 merge) was read as a key named '<<': 'unknown field' in a hardware file."""
    f = tmp_path / "x.yaml"
    f.write_text("base: &b {cores: 8}\nnode:\n  <<: *b\n  ram_gib: 64\n")
    with pytest.raises(DataError) as e:
        load_yaml(f)
    assert (e.value.line, e.value.column) == (3, 3) and "YAML merge key" in str(e.value)
    f.write_text('node:\n  "<<": 1\n')  # a quoted '<<' is a plain key
    assert load_yaml(f) == {"node": {"<<": 1}}


@pytest.mark.parametrize(
    ("sep", "code", "col"), [(":\u00a0", "U+00A0", 9), ("\uff1a ", "U+FF1A", 8), (":\u3000", "U+3000", 9)]
)
def test_a_space_or_colon_yaml_does_not_read_as_one_is_named_where_it_is(
    tmp_path: Path, sep: str, code: str, col: int
) -> None:
    """'cores:<no-break space>8' was 'could not find expected ':'' on the line after it."""
    f = tmp_path / "x.yaml"
    f.write_text(f"node:\n  cores{sep}8\n  ram_gib: 64\n")
    with pytest.raises(DataError) as e:
        load_yaml(f)
    assert (e.value.line, e.value.column) == (2, col) and code in str(e.value), str(e.value)


def test_a_no_break_space_inside_a_value_is_not_blamed_for_another_error(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text('name: "a\u00a0b"\nnode:\n  cores: [8\n')
    with pytest.raises(DataError) as e:
        load_yaml(f)
    assert "U+00A0" not in str(e.value)

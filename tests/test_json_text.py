"""emit.common.json_text writes what json.dumps(value, indent=N, default=...) writes, byte for byte.

manifest.json is written with it (json.dumps with an indent is json's slow pure-Python encoder); configs/
holds every tier x workload's manifest.json, which tests/test_compile.py compares with a fresh compile.
"""

from __future__ import annotations

import enum
import json
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashtune.compile import CompileRequest, compile_bundle
from flashtune.emit import manifest
from flashtune.emit.common import json_text


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


class Ratio(float):
    pass


class Thing:
    def __str__(self) -> str:
        return 'a "thing"\n'


TRICKY: list[Any] = [
    {},
    [],
    (),
    "",
    {"a": {}, "b": [], "c": [{}], "d": [[[]]]},
    ["plain", "é ü 雪 🙂", 'quote " back \\ slash', "\x00\x01\x1f\x7f tab\t nl\n", "</script>"],
    [0, -1, 2**70, -(2**70), True, False, None],
    [0.0, -0.0, 0.1, 1e300, 1e-300, 123456789.125, math.inf, -math.inf, math.nan],
    {1: "int key", 2.5: "float key", math.inf: "inf key", None: "none key", "s": "str key"},
    {True: "true key", False: "false key"},
    {Name("sub"): Name("str subclass"), "level": Level.HIGH, "ratio": Ratio(0.5)},
    {"path": Path("/tmp/x"), "decimal": Decimal("1.10"), "thing": Thing(), "set": {1}},
    (1, ("nested", ("tuples",)), {"in": ("a", "dict")}),
    {"deep": {"er": {"est": [1, {"x": [None, {"y": "z"}]}]}}},
    "a bare string",
    42,
    Thing(),
]


@pytest.mark.parametrize("indent", [0, 1, 2, 4])
@pytest.mark.parametrize("value", TRICKY, ids=range(len(TRICKY)))
def test_the_same_text_as_json_dumps(value: Any, indent: int) -> None:
    assert json_text(value, indent=indent, default=str) == json.dumps(value, indent=indent, default=str)


def test_default_may_return_containers() -> None:
    def default(o: Any) -> Any:
        return {"set": sorted(o)} if isinstance(o, set) else [str(o), {"of": type(o).__name__}]

    value = {"s": {3, 1, 2}, "things": [Thing(), Path("p")], "top": {5}}
    assert json_text(value, indent=1, default=default) == json.dumps(value, indent=1, default=default)


def test_bad_keys_raise_like_json() -> None:
    for value in ({(1, 2): "tuple key"}, {"ok": {Thing(): 1}}):
        with pytest.raises(TypeError) as ours:
            json_text(value)
        with pytest.raises(TypeError) as theirs:
            json.dumps(value, indent=1, default=str)
        assert str(ours.value) == str(theirs.value)


scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text() | st.decimals(places=2)
)
keys = st.text() | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
trees = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=4) | st.tuples(kids, kids) | st.dictionaries(keys, kids, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(trees, st.integers(0, 3))
def test_any_tree_the_same_text_as_json_dumps(value: Any, indent: int) -> None:
    assert json_text(value, indent=indent, default=str) == json.dumps(value, indent=indent, default=str)


@pytest.mark.parametrize(("tier", "workload"), [("iops", "mysql"), ("tco", "rgw")])
def test_manifest_json_is_json_dumps_of_the_manifest(
    tier: str, workload: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[dict[str, Any]] = []

    def as_dict(*args: Any) -> dict[str, Any]:
        seen.append(build(*args))
        return seen[-1]

    build = manifest.as_dict
    monkeypatch.setattr(manifest, "as_dict", as_dict)
    b = compile_bundle(CompileRequest(workload=workload, tier=tier))
    assert b.files["manifest.json"] == json.dumps(seen[0], indent=1, default=str) + "\n"

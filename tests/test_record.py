"""flashtune.record: every record class in the package behaves like the stdlib dataclass built from the same
fields (constructor, defaults, eq/hash, repr, frozen, replace, asdict). That the compile path imports neither
`dataclasses` nor `inspect` (the start-up cost records avoid) is checked in tests/test_startup.py."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pickle
import pkgutil
import typing
from collections import namedtuple
from typing import Any

import pytest

import flashtune
from flashtune import record


def _record_classes() -> list[type]:
    """Every class the record mechanism made, found by importing every flashtune module (so a new record class
    is covered without naming it here)."""
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(flashtune.__path__, "flashtune."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and "__record_fields__" in vars(value):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[k] for k in sorted(found)]


RECORDS = _record_classes()


@functools.cache
def twin(cls: type) -> type:
    """The stdlib dataclass with cls's fields, defaults, options and bases (and none of its own methods)."""
    spec = []
    for f in record.fields(cls):
        kw: dict[str, Any] = {"repr": f.repr, "compare": f.compare}
        if f.default is not record.MISSING:
            kw["default"] = f.default
        if f.default_factory is not record.MISSING:
            kw["default_factory"] = f.default_factory
        spec.append((f.name, f.type, dataclasses.field(**kw)))
    made = dataclasses.make_dataclass(
        cls.__name__,
        spec,
        bases=cls.__bases__,
        frozen=vars(cls)["__record_frozen__"],
        slots="__slots__" in vars(cls),
        namespace={"__module__": cls.__module__},
    )
    made.__qualname__ = cls.__qualname__
    return made


def names(cls: type) -> list[str]:
    return [f.name for f in record.fields(cls)]


def required(cls: type) -> list[str]:
    return [
        f.name
        for f in record.fields(cls)
        if f.default is record.MISSING and f.default_factory is record.MISSING
    ]


def values(cls: type, tag: str = "") -> list[Any]:
    """One hashable, distinct value per field (records check no types at run time, like dataclasses)."""
    return [(f"{tag}{name}", i) if i % 2 else f"{tag}{name}" for i, name in enumerate(names(cls))]


def state(obj: object) -> list[Any]:
    """The field values in field order (of a record or of its twin: the names are the same)."""
    return [getattr(obj, name) for name in obj.__match_args__]


def both(cls: type, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """(record instance, dataclass instance) from the same arguments, or the TypeError both raise."""
    out = []
    for c in (cls, twin(cls)):
        try:
            out.append(c(*args, **kwargs))
        except TypeError as e:
            out.append(e)
    return out[0], out[1]


def test_the_package_has_record_classes_and_no_stdlib_dataclasses() -> None:
    assert len(RECORDS) >= 40
    for info in pkgutil.walk_packages(flashtune.__path__, "flashtune."):
        if info.name.endswith("__main__"):
            continue
        for value in vars(importlib.import_module(info.name)).values():
            if isinstance(value, type) and value.__module__.startswith("flashtune"):
                assert not dataclasses.is_dataclass(value), f"{value.__qualname__}: use flashtune.record"


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__qualname__)
def test_constructor_takes_the_same_arguments(cls: type) -> None:
    # the twin is built from record.fields: check them against the class's own annotations
    assert names(cls) == list(vars(cls)["__annotations__"])
    vals = values(cls)
    n, req = len(vals), len(required(cls))
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        (tuple(vals), {}),  # all positional
        ((), dict(zip(names(cls), vals, strict=True))),  # all keyword
        (tuple(vals[:req]), {}),  # defaults apply
        (tuple(vals[: n // 2]), dict(zip(names(cls)[n // 2 :], vals[n // 2 :], strict=True))),  # mixed
        ((), dict(zip(names(cls)[req:], vals[req:], strict=True))),  # keywords only: required missing if any
        ((*vals, "extra"), {}),  # too many
        (tuple(vals), {"no_such_field": 1}),  # unknown keyword
        (tuple(vals), {names(cls)[0]: 1}),  # twice
    ]
    if req:
        calls.append((tuple(vals[: req - 1]), {}))  # one required missing
    for args, kwargs in calls:
        ours, theirs = both(cls, *args, **kwargs)
        assert isinstance(ours, TypeError) == isinstance(theirs, TypeError), (args, kwargs, ours, theirs)
        if not isinstance(ours, TypeError):
            assert state(ours) == state(theirs)
            assert isinstance(ours, cls)
    assert getattr(cls, "__match_args__", None) == twin(cls).__match_args__


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__qualname__)
def test_defaults_and_fresh_default_factories(cls: type) -> None:
    req = values(cls)[: len(required(cls))]
    a, b = cls(*req), cls(*req)
    for f, g in zip(record.fields(cls), dataclasses.fields(twin(cls)), strict=True):
        assert (f.name, f.default, f.default_factory, f.repr, f.compare) == (
            g.name,
            g.default if g.default is not dataclasses.MISSING else record.MISSING,
            g.default_factory if g.default_factory is not dataclasses.MISSING else record.MISSING,
            g.repr,
            g.compare,
        )
        if f.default_factory is not record.MISSING:
            assert getattr(a, f.name) == f.default_factory()
            made = getattr(a, f.name)
            if type(made).__hash__ is None:  # mutable: each instance gets its own
                assert made is not getattr(b, f.name)
        elif f.default is not record.MISSING:
            assert getattr(a, f.name) == f.default
            if "__slots__" not in vars(cls):  # dataclasses leave a plain default as the class attribute
                assert vars(cls)[f.name] == f.default


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__qualname__)
def test_eq_hash_and_repr_as_dataclasses(cls: type) -> None:
    vals = values(cls)
    ours, theirs = cls(*vals), twin(cls)(*vals)
    assert repr(ours) == repr(theirs)
    assert ours == cls(*vals) and not ours != cls(*vals)  # noqa: SIM202 (ne is what is tested)
    assert ours != theirs and ours != tuple(vals)  # other classes are never equal
    for i, f in enumerate(record.fields(cls)):
        changed = [*vals[:i], ("changed", i), *vals[i + 1 :]]
        assert (ours == cls(*changed)) == (theirs == twin(cls)(*changed)) == (not f.compare)
    if twin(cls).__hash__ is None:
        assert cls.__hash__ is None
    else:
        assert hash(ours) == hash(theirs) == hash(cls(*vals))
    if not cls.__doc__ or cls.__doc__.startswith(f"{cls.__name__}("):  # no docstring: the generated one
        assert cls.__doc__ == twin(cls).__doc__


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__qualname__)
def test_frozen_as_dataclasses(cls: type) -> None:
    vals = values(cls)
    ours, theirs = cls(*vals), twin(cls)(*vals)
    name = names(cls)[0]
    if vars(cls)["__record_frozen__"]:
        for obj, error in ((ours, record.FrozenInstanceError), (theirs, dataclasses.FrozenInstanceError)):
            with pytest.raises(error, match=f"cannot assign to field '{name}'"):
                setattr(obj, name, 1)
            with pytest.raises(error, match=f"cannot delete field '{name}'"):
                delattr(obj, name)
            with pytest.raises(AttributeError):
                obj.not_a_field = 1
        assert issubclass(record.FrozenInstanceError, AttributeError)
    else:
        for obj in (ours, theirs):
            setattr(obj, name, "new")
            assert getattr(obj, name) == "new"
        assert hasattr(ours, "__dict__") == hasattr(theirs, "__dict__")  # slots=True: no instance dict


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__qualname__)
def test_replace_and_asdict_as_dataclasses(cls: type) -> None:
    vals = values(cls)
    Point = namedtuple("Point", "x y")  # asdict keeps a named tuple's type
    ours_inner, theirs_inner = cls(*values(cls, "inner-")), twin(cls)(*values(cls, "inner-"))
    nested = lambda inner: [inner, {"k": (inner, Point(inner, 1))}, {"set": frozenset({1})}]  # noqa: E731
    ours = cls(nested(ours_inner), *vals[1:])
    theirs = twin(cls)(nested(theirs_inner), *vals[1:])
    got = record.asdict(ours)
    assert got == dataclasses.asdict(theirs)
    assert got[names(cls)[0]][1]["k"][1].__class__ is Point
    assert got[names(cls)[0]] is not getattr(ours, names(cls)[0])  # copies, not the instance's own containers
    for name in names(cls):
        mine, stdlib = record.replace(ours, **{name: "new"}), dataclasses.replace(theirs, **{name: "new"})
        assert repr(state(mine)) == repr(state(stdlib))  # repr: the nested instances are of two classes
    assert state(record.replace(ours)) == state(ours)
    with pytest.raises(TypeError):
        record.replace(ours, no_such_field=1)
    with pytest.raises(TypeError):
        record.asdict(cls)  # a class, not an instance


def test_definitions_dataclasses_refuse_are_refused() -> None:
    with pytest.raises(ValueError, match="mutable default"):

        @record.dataclass
        class MutableDefault:
            x: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="non-default argument 'y' follows default argument"):

        @record.dataclass
        class Order:
            x: int = 0
            y: int

    with pytest.raises(TypeError, match="not supported"):

        @record.dataclass(frozen=True)
        class Base:
            x: int

        @record.dataclass(frozen=True)
        class Child(Base):
            y: int

    with pytest.raises(TypeError, match="__post_init__"):

        @record.dataclass
        class PostInit:
            x: int

            def __post_init__(self) -> None:
                pass

    # ClassVar as written in a module with `from __future__ import annotations`, and as an object (record.py finds
    # typing.ClassVar without importing typing itself)
    with pytest.raises(TypeError, match="ClassVar"):

        @record.dataclass
        class Counter:
            n: typing.ClassVar[int] = 0

    for annotation in (typing.ClassVar, typing.ClassVar[int]):
        with pytest.raises(TypeError, match="ClassVar"):
            record.dataclass(type("Obj", (), {"__annotations__": {"n": annotation}}))

    with pytest.raises(TypeError):
        record.dataclass(order=True)
    with pytest.raises(TypeError):
        record.field(init=False)


def test_own_init_is_kept() -> None:
    @record.dataclass
    class Own:
        x: int

        def __init__(self, x: int) -> None:
            self.x = x * 2

    assert Own(2).x == 4
    assert Own(2) == Own(2) and repr(Own(2)) == "test_own_init_is_kept.<locals>.Own(x=4)"


class _Sample(record.NamedTuple):
    """A doc."""

    name: str
    size: int = 4
    tags: tuple[str, ...] = ()

    @property
    def double(self) -> int:
        return self.size * 2

    def label(self) -> str:
        return f"{self.name}:{self.size}"


class _SampleTwin(typing.NamedTuple):
    """A doc."""

    name: str
    size: int = 4
    tags: tuple[str, ...] = ()

    @property
    def double(self) -> int:
        return self.size * 2

    def label(self) -> str:
        return f"{self.name}:{self.size}"


def test_named_tuples_are_made_as_typing_makes_them() -> None:
    """record.NamedTuple (no typing import at run time) against typing.NamedTuple on the same class body."""
    mine, theirs = _Sample("a"), _SampleTwin("a")
    assert record.NamedTuple is not typing.NamedTuple  # the test compares two mechanisms
    assert mine == theirs == ("a", 4, ()) and hash(mine) == hash(theirs)
    assert repr(mine) == repr(theirs).replace("_SampleTwin", "_Sample")
    assert _Sample.__bases__ == _SampleTwin.__bases__ == (tuple,)
    for attr in ("_fields", "_field_defaults", "__doc__", "__slots__", "__match_args__"):
        assert getattr(_Sample, attr) == getattr(_SampleTwin, attr), attr
    assert (_Sample.__module__, _Sample.__qualname__) == (__name__, "_Sample")
    assert list(_Sample.__annotations__) == list(_SampleTwin.__annotations__) == ["name", "size", "tags"]
    assert mine.double == theirs.double == 8 and mine.label() == theirs.label() == "a:4"
    assert mine._replace(size=1) == theirs._replace(size=1) and mine._asdict() == theirs._asdict()
    assert _Sample._make(["b", 2, ("x",)]) == _SampleTwin._make(["b", 2, ("x",)])
    assert pickle.loads(pickle.dumps(mine)) == mine  # found again by module and qualname
    with pytest.raises(AttributeError):
        mine.size = 5
    with pytest.raises(TypeError):
        _Sample()


def test_named_tuple_definitions_typing_refuses_are_refused() -> None:
    for base in (record.NamedTuple, typing.NamedTuple):
        with pytest.raises(TypeError):

            class Order(base):
                a: int = 0
                b: int

        with pytest.raises(AttributeError):

            class Own(base):
                a: int
                _fields = ()


def test_finding_is_a_named_tuple() -> None:
    from flashtune.lint.findings import Finding

    assert issubclass(Finding, tuple) and Finding._fields == tuple(Finding.__annotations__)
    f = Finding("f", 1, 2, "error", "E1", "k", "msg")
    assert f == ("f", 1, 2, "error", "E1", "k", "msg", "") and f.render() == "f:1:2: error E1 msg"
    assert f.as_dict()["suggestion"] == "" and f._replace(line=3).line == 3


def test_a_plain_subclass_behaves_as_with_dataclasses() -> None:
    """Record methods are shared by all record classes and __init__ is built on first use: a plain subclass
    (as FlashtuneError's are) instantiated before its record base gets the base's __init__, may set its own
    attributes, and not the frozen fields."""

    def make(decorator: Any, frozen_error: type[Exception]) -> list[Any]:
        @decorator(frozen=True)
        class Base:
            x: int
            y: str = "y"

        class Sub(Base):
            pass

        sub = Sub(1)  # the subclass first: Base's __init__ is built through it
        sub.extra = 2
        with pytest.raises(frozen_error, match="cannot assign to field 'x'"):
            sub.x = 3
        with pytest.raises(frozen_error, match="cannot delete field 'y'"):
            del sub.y
        del sub.extra
        return [
            repr(sub).split(".")[-1],
            sub == Sub(1),
            sub == Base(1),
            hash(sub) == hash(Base(1)),
            Base(2, "z").y,
        ]

    assert make(record.dataclass, record.FrozenInstanceError) == make(
        dataclasses.dataclass, dataclasses.FrozenInstanceError
    )


def test_methods_are_shared_and_init_is_built_at_the_first_instance() -> None:
    """Start-up: making a record class only sets shared functions on it (a cold compile makes 38 and
    instantiates about half); the per-class __init__ is built by the first instance and replaces the stub."""

    @record.dataclass(frozen=True)
    class A:
        x: int

    @record.dataclass
    class B:
        y: str = ""

    assert A.__repr__ is B.__repr__ and A.__eq__ is B.__eq__
    assert vars(A)["__init__"] is vars(B)["__init__"]  # the same stub until each has an instance
    assert A(1) == A(1) and B() == B("")
    assert vars(A)["__init__"] is not vars(B)["__init__"]
    assert vars(A)["__init__"].__qualname__.endswith("A.__init__")
    built = vars(A)["__init__"]
    A(2)
    assert vars(A)["__init__"] is built  # built once

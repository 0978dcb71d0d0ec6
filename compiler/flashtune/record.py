"""Record classes: the part of `dataclasses` flashtune uses, built without generating source code.

`dataclasses` writes each generated method as source text and exec()s it: ~1 ms per class (38 classes: 44 ms of a
195 ms cold `compile-config`), and importing it imports `inspect` (~12 ms). Here the methods are closures over the
field names, ~60 us a class; the cold compile runs a third fewer instructions (556M -> 369M).

Semantics follow `dataclasses` (Python 3.11) for what we use: `@dataclass` with `frozen=` and `slots=`,
`field(default=, default_factory=, repr=, compare=)`, `fields`, `replace`, `asdict`; anything else raises
TypeError when the class is made. A class's own `__init__`, `__repr__` or `__eq__` is kept, as dataclasses do (a
hot class may write its `__init__` out for speed). Type checkers see the stdlib functions, so mypy checks record
classes as dataclasses; tests/test_record.py checks every record class behaves like its stdlib dataclass twin.
"""

from __future__ import annotations

import reprlib
import sys
from collections import namedtuple
from collections.abc import Callable
from itertools import repeat
from operator import attrgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["FrozenInstanceError", "NamedTuple", "asdict", "dataclass", "field", "fields", "replace"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
# the default of a default_factory field's parameter in __init__ (also in an __init__ written out by hand)
FACTORY: Any = type("_HasDefaultFactory", (), {"__slots__": (), "__repr__": lambda self: "<factory>"})()
_REQUIRED: Any = _Missing()


class _FrozenInstanceError(AttributeError):
    """Assigning to or deleting a field of a frozen record (dataclasses.FrozenInstanceError's twin)."""


class Field:
    """One field of a record class: its name, annotation, default or default factory, and whether it is shown
    in repr and compared in eq/hash."""

    __slots__ = ("compare", "default", "default_factory", "name", "repr", "type")

    def __init__(self, default: Any, default_factory: Any, repr: bool, compare: bool) -> None:
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, type={self.type!r}, default={self.default!r})"


def _field(
    *, default: Any = MISSING, default_factory: Any = MISSING, repr: bool = True, compare: bool = True
) -> Any:
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, repr, compare)


def _fields(class_or_instance: Any) -> tuple[Field, ...]:
    try:
        found: tuple[Field, ...] = class_or_instance.__record_fields__
    except AttributeError:
        raise TypeError("must be called with a dataclass type or instance") from None
    return found


def _is_record_instance(obj: object) -> bool:
    return hasattr(type(obj), "__record_fields__")


def _replace(obj: Any, /, **changes: Any) -> Any:
    for f in _fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def _asdict(obj: Any, *, dict_factory: Callable[[list[tuple[str, Any]]], Any] = dict) -> Any:
    if not _is_record_instance(obj):
        raise TypeError("asdict() should be called on dataclass instances")
    import copy  # only here: leaves are deep-copied, as dataclasses.asdict does

    def inner(o: Any) -> Any:
        if _is_record_instance(o):
            return dict_factory([(f.name, inner(getattr(o, f.name))) for f in o.__record_fields__])
        if isinstance(o, tuple) and hasattr(o, "_fields"):  # a named tuple keeps its type
            return type(o)(*[inner(v) for v in o])
        if isinstance(o, list | tuple):
            return type(o)(inner(v) for v in o)
        if isinstance(o, dict):
            return type(o)((inner(k), inner(v)) for k, v in o.items())
        return copy.deepcopy(o)

    return inner(obj)


if TYPE_CHECKING:
    # names and defaults of the fields after k positional arguments, the required ones among them, (index, factory)
    # of their default factories, and their defaults when there is no factory to call
    _Plan = tuple[
        tuple[str, ...], tuple[Any, ...], frozenset[str], tuple[tuple[int, Any], ...], tuple[Any, ...] | None
    ]

_UNSUPPORTED = ("ClassVar", "typing.ClassVar", "InitVar", "dataclasses.", "KW_ONLY")


def _class_fields(cls: type) -> tuple[Field, ...]:
    """The fields from the class's own annotations; defaults left as class attributes as dataclasses leave them."""
    if any(hasattr(b, "__record_fields__") for b in cls.__mro__[1:]):
        raise TypeError(f"{cls.__name__}: inheriting from a record class is not supported")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: __post_init__ is not supported (write the __init__ out)")
    out = []
    seen_default = False
    # typing.ClassVar as an object (a module without `from __future__ import annotations`) can only exist once
    # typing is imported: look it up there rather than import typing for every compile (start-up)
    class_var = getattr(sys.modules.get("typing"), "ClassVar", _Missing)
    for name, annotation in cls.__annotations__.items():
        if (
            (isinstance(annotation, str) and annotation.startswith(_UNSUPPORTED))
            or annotation is class_var
            or getattr(annotation, "__origin__", None) is class_var
        ):
            raise TypeError(f"{cls.__name__}.{name}: ClassVar / InitVar / KW_ONLY fields are not supported")
        value = getattr(cls, name, MISSING)
        if isinstance(value, Field):
            f = value
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        else:
            f = Field(value, MISSING, True, True)
        f.name, f.type = name, annotation
        if f.default is not MISSING and type(f.default).__hash__ is None:
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory"
            )
        if f.default is MISSING and f.default_factory is MISSING:
            if seen_default:
                raise TypeError(f"non-default argument {name!r} follows default argument")
        else:
            seen_default = True
        out.append(f)
    for name, value in cls.__dict__.items():
        if isinstance(value, Field) and name not in cls.__annotations__:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    return tuple(out)


def _make_init(cls: type, fields: tuple[Field, ...]) -> Callable[..., None]:
    """__init__(self, *args, **kwargs) binding arguments as the generated dataclass __init__ does. A call with
    every field positional goes straight to the assignments; others follow the plan for their number of
    positional arguments, made on first use, so that binding is a few C-level operations."""
    names = tuple(f.name for f in fields)
    n = len(names)
    required = sum(1 for f in fields if f.default is MISSING and f.default_factory is MISSING)
    defaults = tuple(
        f.default if f.default is not MISSING else _REQUIRED if f.default_factory is MISSING else FACTORY
        for f in fields
    )
    where = f"{cls.__qualname__}.__init__()"
    plans: dict[int, _Plan] = {}

    def refuse(args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
        k = len(args)
        if k > n:
            return TypeError(f"{where} takes {n + 1} positional arguments but {k + 1} were given")
        for name in kwargs:
            if name not in names:
                return TypeError(f"{where} got an unexpected keyword argument {name!r}")
            if name in names[:k]:
                return TypeError(f"{where} got multiple values for argument {name!r}")
        missing = [repr(name) for name in names[k:required] if name not in kwargs]
        return TypeError(f"{where} missing {len(missing)} required argument(s): {', '.join(missing)}")

    def complete(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        k = len(args)
        plan = plans.get(k)
        if plan is None:
            if k > n:
                raise refuse(args, kwargs)
            factories = tuple(
                (i - k, f.default_factory)
                for i, f in enumerate(fields[k:], k)
                if f.default_factory is not MISSING
            )
            fill = defaults[k:] if k >= required and not factories else None
            plan = plans[k] = (names[k:], defaults[k:], frozenset(names[k:required]), factories, fill)
        rest_names, rest_defaults, needed, factories, fill = plan
        if fill is not None and not kwargs:
            return args + fill
        if not kwargs.keys() >= needed:
            raise refuse(args, kwargs)
        rest = list(map(kwargs.pop, rest_names, rest_defaults))
        if kwargs:
            raise refuse(args, kwargs)
        for i, factory in factories:
            if rest[i] is FACTORY:
                rest[i] = factory()
        return (*args, *rest)

    setter = object.__setattr__  # past a frozen record's __setattr__, as the generated dataclass __init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if kwargs or len(args) != n:
            args = complete(args, kwargs)
        # each field in order, in one C-level loop (setter returns None: any() runs it to the end); values set
        # one by one stay inline in the object (a materialised __dict__, as self.__dict__.update makes, made
        # every later attribute read 4-6x slower)
        any(map(setter, repeat(self, n), names, args))

    return __init__


def _make_slots_class(cls: type, fields: tuple[Field, ...]) -> type:
    """A new class with __slots__ (slots cannot be added to a class once made), as dataclasses does."""
    if "__slots__" in cls.__dict__:
        raise TypeError(f"{cls.__name__} already specifies __slots__")
    ns = dict(cls.__dict__)
    names = tuple(f.name for f in fields)
    ns["__slots__"] = names
    for name in (*names, "__dict__", "__weakref__"):
        ns.pop(name, None)
    new = type(cls)(cls.__name__, cls.__bases__, ns)
    new.__qualname__ = cls.__qualname__
    return new


def _doc(cls: type, fields: tuple[Field, ...]) -> str:
    """The docstring dataclasses gives a class without one: its name and __init__ signature."""
    params = []
    for f in fields:
        text = f"{f.name}: {f.type!r}"
        if f.default is not MISSING:
            text += f" = {f.default!r}"
        elif f.default_factory is not MISSING:
            text += " = <factory>"
        params.append(text)
    return f"{cls.__name__}({', '.join(params)})"


def _set_new(cls: type, name: str, fn: Callable[..., Any]) -> bool:
    """Set a generated method unless the class defines its own (then True), as dataclasses does."""
    if name in cls.__dict__:
        return True
    fn.__name__ = name
    fn.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, fn)
    return False


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of these fields' values, which eq and hash compare (as dataclasses' generated methods do)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        (name,) = names
        return lambda self: (getattr(self, name),)
    return lambda self: ()


def _process(cls: type[Any], frozen: bool, slots: bool) -> type:
    if frozen and slots:
        raise TypeError(f"{cls.__name__}: frozen=True with slots=True is not supported")
    fields = _class_fields(cls)
    if slots:
        cls = _make_slots_class(cls, fields)
    own_hash = cls.__dict__.get("__hash__", MISSING)
    has_explicit_hash = not (own_hash is MISSING or (own_hash is None and "__eq__" in cls.__dict__))
    made: dict[str, Any] = {"__record_fields__": fields, "__record_frozen__": frozen}
    _set_new(cls, "__init__", _make_init(cls, fields))

    shown = tuple(f.name for f in fields if f.repr)

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        return f"{self.__class__.__qualname__}({', '.join([f'{n}={getattr(self, n)!r}' for n in shown])})"

    _set_new(cls, "__repr__", __repr__)

    key = _key(tuple(f.name for f in fields if f.compare))

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    _set_new(cls, "__eq__", __eq__)

    if frozen:
        names = tuple(f.name for f in fields)

        def __setattr__(self: Any, name: str, value: Any) -> None:
            if type(self) is cls or name in names:
                raise _FrozenInstanceError(f"cannot assign to field {name!r}")
            super(cls, self).__setattr__(name, value)

        def __delattr__(self: Any, name: str) -> None:
            if type(self) is cls or name in names:
                raise _FrozenInstanceError(f"cannot delete field {name!r}")
            super(cls, self).__delattr__(name)

        for name, fn in (("__setattr__", __setattr__), ("__delattr__", __delattr__)):
            if _set_new(cls, name, fn):
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")

    if not has_explicit_hash:  # eq=True: frozen records hash their compared fields, others are unhashable
        if frozen:

            def __hash__(self: Any) -> int:
                return hash(key(self))

            __hash__.__qualname__ = f"{cls.__qualname__}.__hash__"
            made["__hash__"] = __hash__
        else:
            made["__hash__"] = None
    if not cls.__doc__:
        made["__doc__"] = _doc(cls, fields)
    if "__match_args__" not in cls.__dict__:
        made["__match_args__"] = tuple(f.name for f in fields)
    for name, value in made.items():
        setattr(cls, name, value)
    return cls


def _dataclass(cls: type | None = None, /, *, frozen: bool = False, slots: bool = False) -> Any:
    def wrap(c: type) -> type:
        return _process(c, frozen, slots)

    return wrap if cls is None else wrap(cls)


if TYPE_CHECKING:
    from dataclasses import FrozenInstanceError as FrozenInstanceError
    from dataclasses import asdict as asdict
    from dataclasses import dataclass as dataclass
    from dataclasses import field as field
    from dataclasses import fields as fields
    from dataclasses import replace as replace
else:
    FrozenInstanceError = _FrozenInstanceError
    asdict = _asdict
    dataclass = _dataclass
    field = _field
    fields = _fields
    replace = _replace


# namedtuple's own attributes, which a class body may not redefine (typing.NamedTuple refuses them too)
_NAMEDTUPLE_OWN = frozenset(
    {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults", "_make", "_replace"}
    | {"_asdict", "_source"}
)
# called through a plain callable: mypy reads a namedtuple() call as a class definition with literal fields
_make_namedtuple: Callable[..., Any] = namedtuple


class _NamedTupleMeta(type):
    """`class C(NamedTuple)` made as typing.NamedTuple makes it (a collections.namedtuple of the annotated fields,
    the class body's methods copied onto it) without importing typing at run time (start-up cost). Annotations
    stay as written: typing makes a ForwardRef of each string, whose compile() builds all of `ast`'s classes."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if not bases:  # the NamedTuple base itself
            return super().__new__(mcls, name, bases, ns)
        if bases != (_NamedTuple,):
            raise TypeError("can only inherit from NamedTuple")
        names = list(ns.get("__annotations__", {}))
        defaults = [n for n in names if n in ns]
        if defaults and names[-len(defaults) :] != defaults:
            raise TypeError(f"{name}: a field without a default follows one with a default")
        made = _make_namedtuple(name, names, defaults=[ns[n] for n in defaults], module=ns["__module__"])
        made.__annotations__ = made.__new__.__annotations__ = dict(ns.get("__annotations__", {}))
        for key, value in ns.items():
            if key in _NAMEDTUPLE_OWN:
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            if key not in ("__name__", "__module__", "__annotations__") and key not in names:
                setattr(made, key, value)
        return made


class _NamedTuple(metaclass=_NamedTupleMeta):
    __slots__ = ()


if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    NamedTuple = _NamedTuple

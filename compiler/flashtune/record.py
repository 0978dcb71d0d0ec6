"""Record classes: the part of `dataclasses` flashtune uses, built without generating source code.

`dataclasses` writes each generated method as source text and exec()s it: ~1 ms per class (38 classes: 44 ms of a
195 ms cold `compile-config`), and importing it imports `inspect` (~12 ms). Here __repr__, __eq__, __hash__ and the
frozen __setattr__/__delattr__ are functions shared by every record class, reading the facts the class keeps
(__record_key__, __record_shown__, __record_fields__), and a class's __init__ is built when its first instance is
made (a cold compile makes 38 record classes and instantiates about half: 4.1M instructions in the decorator, 7.3M
with methods made per class).

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
from functools import partial
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

    def __init__(
        self, default: Any, default_factory: Any, repr: bool, compare: bool, name: str = "", type: Any = None
    ) -> None:
        self.name = name
        self.type = type
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
        if isinstance(o, (list, tuple)):
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
    """The fields from the class's own annotations; defaults left as class attributes as dataclasses leave them.
    (Start-up: attributes are looked up in the class's own __dict__ where it has no base but object, as a missed
    getattr on a class builds an AttributeError.)"""
    mro = cls.__mro__
    own = cls.__dict__
    for base in mro[1:]:
        if "__record_fields__" in base.__dict__:
            raise TypeError(f"{cls.__name__}: inheriting from a record class is not supported")
    for base in mro:
        if "__post_init__" in base.__dict__:
            raise TypeError(f"{cls.__name__}: __post_init__ is not supported (write the __init__ out)")
    # typing.ClassVar as an object (a module without `from __future__ import annotations`) can only exist once
    # typing is imported: look it up there rather than import typing for every compile (start-up)
    class_var = getattr(sys.modules.get("typing"), "ClassVar", _Missing)
    attribute = own.get if len(mro) == 2 else partial(getattr, cls)
    annotations = own.get("__annotations__", {})
    out = []
    seen_default = False
    for name, annotation in annotations.items():
        if (
            annotation.startswith(_UNSUPPORTED)
            if annotation.__class__ is str
            else annotation is class_var or getattr(annotation, "__origin__", None) is class_var
        ):
            raise TypeError(f"{cls.__name__}.{name}: ClassVar / InitVar / KW_ONLY fields are not supported")
        value = attribute(name, MISSING)
        if value.__class__ is Field:
            f = value
            f.name, f.type = name, annotation
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        else:
            f = Field(value, MISSING, True, True, name, annotation)
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
    for name, value in own.items():
        if value.__class__ is Field and name not in annotations:
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


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of these fields' values, which eq and hash compare (as dataclasses' generated methods do)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        (name,) = names
        return lambda self: (getattr(self, name),)
    return lambda self: ()


# The methods below are shared by every record class: they read the class's own facts (__record_key__,
# __record_shown__, __record_fields__) instead of being closures made per class, and __init__ is built the first
# time a class is instantiated. Making a class is then a few attribute assignments (start-up: a cold compile
# makes 38 record classes and instantiates about half of them).


def _record_class(cls: type) -> type:
    """The record class itself, for an instance of it or of a plain subclass of it."""
    for c in cls.__mro__:
        if "__record_fields__" in c.__dict__:
            return c
    raise TypeError(
        f"{cls.__name__} is not a record class"
    )  # pragma: no cover (only records get the methods)


def _init_on_first_use(self: Any, *args: Any, **kwargs: Any) -> None:
    """Every record class's __init__ until its first instance is made: builds the class's own __init__, puts it in
    this one's place, and runs it."""
    cls = _record_class(type(self))
    init = _make_init(cls, cls.__record_fields__)  # type: ignore[attr-defined]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]
    init(self, *args, **kwargs)


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    shown = self.__class__.__record_shown__
    return f"{self.__class__.__qualname__}({', '.join([f'{n}={getattr(self, n)!r}' for n in shown])})"


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        key = self.__class__.__record_key__
        return key(self) == key(other)
    return NotImplemented


def _hash(self: Any) -> int:  # eq=True and frozen: the compared fields' hash
    return hash(self.__class__.__record_key__(self))


def _past_frozen(self: Any, name: str, action: str) -> type:
    """The record class, past whose __setattr__/__delattr__ a plain subclass sets its own attributes; for a field,
    or any name on an instance of the record class itself, FrozenInstanceError (as dataclasses)."""
    cls = _record_class(type(self))
    if cls is type(self) or any(f.name == name for f in cls.__record_fields__):  # type: ignore[attr-defined]
        raise _FrozenInstanceError(f"cannot {action} field {name!r}")
    return cls


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    past: Any = _past_frozen(self, name, "assign to")
    super(past, self).__setattr__(name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    past: Any = _past_frozen(self, name, "delete")
    super(past, self).__delattr__(name)


def _process(cls: type[Any], frozen: bool, slots: bool) -> type:
    if frozen and slots:
        raise TypeError(f"{cls.__name__}: frozen=True with slots=True is not supported")
    fields = _class_fields(cls)
    if slots:
        cls = _make_slots_class(cls, fields)
    own = cls.__dict__
    own_hash = own.get("__hash__", MISSING)
    has_explicit_hash = not (own_hash is MISSING or (own_hash is None and "__eq__" in own))
    made: dict[str, Any] = {
        "__record_fields__": fields,
        "__record_frozen__": frozen,
        "__record_key__": _key(tuple([f.name for f in fields if f.compare])),
        "__record_shown__": tuple([f.name for f in fields if f.repr]),
    }
    # a class's own __init__, __repr__ and __eq__ are kept, as dataclasses keep them
    if "__init__" not in own:
        made["__init__"] = _init_on_first_use
    if "__repr__" not in own:
        made["__repr__"] = _repr
    if "__eq__" not in own:
        made["__eq__"] = _eq
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in own:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        made["__setattr__"] = _frozen_setattr
        made["__delattr__"] = _frozen_delattr
    if not has_explicit_hash:  # eq=True: frozen records hash their compared fields, others are unhashable
        made["__hash__"] = _hash if frozen else None
    if not cls.__doc__:
        made["__doc__"] = _doc(cls, fields)
    if "__match_args__" not in own:
        made["__match_args__"] = tuple([f.name for f in fields])
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

"""Knob dependencies: when a value set in a file changes nothing (data/knobs/*.yaml `dead_when:`).

One entry is one condition under which the knob is dead (or harmful), with its reason and source:

    dead_when:
      - kind: requires            # what makes it dead (see KINDS)
        knob: rbd_cache           # another knob of the same domain ...
        is: [false]               # ... whose effective value (set in the file, else the default) is one of these
        is_not: [0]               # ... or is none of these
        given: true               # ... counting only a value the file sets (the program reacts to the line)
        above: innodb_io_capacity_max   # only when this knob's own value is above that knob's effective value
        context: {objectstore: [bluestore]}   # facts about the deployment (see FACTS)
        value_in: [10]            # only when this knob's own value is one of these
        below: 4194304            # only when this knob's own value is below this number
        formula: ceph_min_size    # only when the value equals what the program derives itself (FORMULAS)
        why: "..."                # the reason, in one sentence
        source: https://...       # where the fact comes from (document, upstream file or test)

Every given condition must hold (AND). The compiler never emits a dead value and lists it in explain.md;
lint-config reports it (FT401) with the same reason. Conditions whose facts are unknown never fire.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashtune.catalog import vocab
from flashtune.catalog.values import canon_value
from flashtune.errors import DataError

# The vocabulary of dependency facts lives in data/knobs/knob.schema.json (one meaning per value).
KINDS = vocab.meanings("deadWhen.kind")
# Facts a condition may test: the compiler knows them all, lint-config the ones it can read or is told.
FACTS = vocab.meanings("deadWhen.context")
_FIELDS = set(vocab.fields("deadWhen"))


def _canon(value: Any) -> str:
    # facts and values compare with booleans folded (on/yes/1 = true): the catalog's one canonicalisation
    return canon_value(value, "bool")


def _number(value: Any) -> float | None:
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None  # "nan"/"inf" parse as floats but are no setting


def _ceph_min_size(value: Any, effective: Callable[[str], Any]) -> bool:
    """Ceph's own min_size for a replicated pool when osd_pool_default_min_size is 0: size - size/2
    (src/osd/OSDMap.h, get_osd_pool_default_min_size)."""
    size = _number(effective("osd_pool_default_size"))
    v = _number(value)
    return size is not None and v is not None and int(v) == int(size) - int(size) // 2


def _io_capacity_max_auto(value: Any, effective: Callable[[str], Any]) -> bool:
    """InnoDB's own innodb_io_capacity_max when unset: twice innodb_io_capacity, at least 2000 (MariaDB
    ha_innodb.cc innodb_init_params; MySQL manual, innodb_io_capacity_max)."""
    cap = _number(effective("innodb_io_capacity"))
    v = _number(value)
    return cap is not None and v is not None and int(v) == max(2000, 2 * int(cap))


FORMULAS: dict[str, Callable[[Any, Callable[[str], Any]], bool]] = {
    "ceph_min_size": _ceph_min_size,
    "innodb_io_capacity_max_auto": _io_capacity_max_auto,
}
FORMULA_TEXT = vocab.meanings("deadWhen.formula")


@dataclass(frozen=True)
class DeadWhen:
    """One dependency fact of a knob (dead_when): when its line changes nothing, and why."""

    kind: str
    why: str
    source: str
    knob: str | None = None
    is_: tuple[str, ...] = ()
    is_not: tuple[str, ...] = ()
    given: bool = False
    context: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    value_in: tuple[str, ...] = ()
    below: float | None = None
    above: str | None = None
    formula: str | None = None

    def holds(
        self,
        value: Any,
        effective: Callable[[str], Any],
        facts: Mapping[str, Any],
        given: Callable[[str], Any] | None = None,
    ) -> bool | None:
        """True if this condition makes `value` dead; None when a fact it needs is unknown.
        `effective(name)` is a knob's value as set, else its default; `given(name)` only a value set (None if
        the file leaves it out)."""
        for fact, allowed in self.context.items():
            if fact not in facts or facts[fact] is None:
                return None
            if _canon(facts[fact]) not in allowed:
                return False
        if self.value_in and _canon(value) not in self.value_in:
            return False
        if self.below is not None:
            v = _number(value)
            if v is None or v >= self.below:
                return False
        if self.above is not None:
            v, limit = _number(value), _number(effective(self.above))
            if v is None or limit is None:
                return None
            if v <= limit:
                return False
        if self.knob is not None:
            if self.given:
                if given is None:
                    return None
                other = given(self.knob)
                if other is None:
                    return False  # the file leaves it out: the program never reacts to it
            else:
                other = effective(self.knob)
                if other is None:
                    return None
            if self.is_ and _canon(other) not in self.is_:
                return False
            if self.is_not and _canon(other) in self.is_not:
                return False
        return self.formula is None or FORMULAS[self.formula](value, effective)

    def condition(self) -> str:
        """The condition in words, for explain.md and lint messages (a folded boolean shown as 0/off)."""

        def shown(values: tuple[str, ...]) -> str:
            return " or ".join(dict.fromkeys({"false": "0/off", "true": "1/on"}.get(v, v) for v in values))

        parts = [f"{k} is {' or '.join(v)}" for k, v in self.context.items()]
        if self.knob:
            said = "is set to" if self.given else "="
            if self.is_:
                parts.append(f"{self.knob} {said} {' or '.join(self.is_)}")
            if self.is_not:
                parts.append(f"{self.knob} {said} anything but {shown(self.is_not)}")
        if self.above:
            parts.append(f"the value is above {self.above}")
        if self.value_in:
            parts.append(f"the value is {shown(self.value_in)}")
        if self.below is not None:
            parts.append(f"the value is below {int(self.below) if self.below.is_integer() else self.below}")
        if self.formula:
            parts.append(f"the value equals {FORMULA_TEXT[self.formula]}")
        return " and ".join(parts)


def parse(raw: Any, name: str, path: str | Path, line: int | None) -> tuple[DeadWhen, ...]:
    """The `dead_when:` list of one knob (validated: unknown fields, kinds, facts and formulas are errors)."""
    if raw is None:
        return ()
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for item in items:
        if not isinstance(item, dict):
            raise DataError(
                f"knob {name!r}: each dead_when entry must be a mapping", file=str(path), line=line
            )
        extra = set(item) - _FIELDS
        if extra:
            raise DataError(
                f"knob {name!r}: unknown dead_when field(s) {sorted(extra)}",
                file=str(path),
                line=line,
                suggestion=f"allowed: {', '.join(sorted(_FIELDS))}",
            )
        kind = str(item.get("kind", ""))
        if kind not in KINDS:
            raise DataError(
                f"knob {name!r}: dead_when kind {kind!r} is not one of {', '.join(KINDS)}",
                file=str(path),
                line=line,
            )
        for need in ("why", "source"):
            if not item.get(need):
                raise DataError(
                    f"knob {name!r}: a dead_when entry needs '{need}:'",
                    file=str(path),
                    line=line,
                    suggestion="say why the value is dead and where that is documented",
                )
        context = {
            str(k): tuple(_canon(x) for x in (v if isinstance(v, list) else [v]))
            for k, v in (item.get("context") or {}).items()
        }
        unknown = [k for k in context if k not in FACTS]
        if unknown:
            raise DataError(
                f"knob {name!r}: dead_when fact {unknown[0]!r} is unknown",
                file=str(path),
                line=line,
                suggestion=f"known facts: {', '.join(FACTS)}",
            )
        formula = item.get("formula")
        if formula is not None and formula not in FORMULAS:
            raise DataError(
                f"knob {name!r}: dead_when formula {formula!r} is unknown",
                file=str(path),
                line=line,
                suggestion=f"known: {', '.join(FORMULAS)}",
            )
        if "knob" in item and "is" not in item and "is_not" not in item:
            raise DataError(
                f"knob {name!r}: dead_when names a knob but no 'is:' or 'is_not:' values",
                file=str(path),
                line=line,
            )
        if ("is_not" in item or "given" in item) and "knob" not in item:
            raise DataError(
                f"knob {name!r}: dead_when 'is_not:'/'given:' need the 'knob:' they are about",
                file=str(path),
                line=line,
            )
        is_ = item.get("is")
        is_not = item.get("is_not")
        value_in = item.get("value_in")
        out.append(
            DeadWhen(
                kind=kind,
                why=" ".join(str(item["why"]).split()),
                source=str(item["source"]),
                knob=str(item["knob"]) if item.get("knob") else None,
                is_=tuple(_canon(x) for x in (is_ if isinstance(is_, list) else [is_]))
                if is_ is not None
                else (),
                is_not=tuple(_canon(x) for x in (is_not if isinstance(is_not, list) else [is_not]))
                if is_not is not None
                else (),
                given=bool(item.get("given", False)),
                context=context,
                value_in=tuple(_canon(x) for x in (value_in if isinstance(value_in, list) else [value_in]))
                if value_in is not None
                else (),
                below=float(item["below"]) if item.get("below") is not None else None,
                above=str(item["above"]) if item.get("above") else None,
                formula=formula,
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class Dead:
    """Why one value is dead: the condition that holds, the reason and its source."""

    kind: str
    condition: str
    why: str
    source: str

    def text(self) -> str:
        return f"{self.why} (dead because {self.condition}; source: {self.source})"


def dead_reason(
    rules: tuple[DeadWhen, ...],
    value: Any,
    effective: Callable[[str], Any],
    facts: Mapping[str, Any],
    given: Callable[[str], Any] | None = None,
) -> Dead | None:
    """The first rule that makes `value` dead, or None."""
    for rule in rules:
        if rule.holds(value, effective, facts, given):
            return Dead(rule.kind, rule.condition(), rule.why, rule.source)
    return None


_URL = re.compile(r"^(https?://\S+|[\w.-]+/[\w.-]+:\S+|tests/\S+)$")


def source_ok(source: str) -> bool:
    """A source is a URL, an upstream 'owner/repo:path' or a test 'tests/<file>::<name>'."""
    return bool(_URL.match(source))

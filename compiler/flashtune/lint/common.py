"""Shared linting machinery: the run context, finding construction, duplicate keys, catalog value checks."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flashtune.catalog import Knob
from flashtune.catalog.values import canon_value
from flashtune.lint.findings import Finding
from flashtune.lint.suggest import did_you_mean as suggest
from flashtune.lint.suggest import index_for
from flashtune.parse.confdoc import ConfDoc, Entry
from flashtune.releases import CEPH_RELEASES

SUGGESTION_BUDGET = 200
ValueParser = Callable[[str, str], float | int | bool | None]


@dataclass
class Context:
    """What the linter knows about the target: release, flavour and optional facts about the hardware.

    extra keys understood: ram_bytes (int), failure_domains (int: hosts/racks for EC), objectstore (str),
    osd_memory_target (int bytes: CBT plans' cache sizing), gateways (int: radosgw daemons the cluster runs).
    """

    filename: str
    ceph_release: str
    mysql_flavour: str | None  # None: decided from the file (MariaDB 10.11 unless it is evidently MySQL 8)
    extra: Mapping[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    _said: set[tuple[int, str, str]] = field(default_factory=set)
    # did-you-mean look-ups left for this file: a file with thousands of unknown keys is of another kind or
    # generated, and one look-up per key would make linting it slow for no use
    suggestions_left: int = SUGGESTION_BUDGET

    def suggest(self, key: str, names: frozenset[str]) -> list[str]:
        """[the closest of names] or []; names must be the file kind's own (see lint.suggest)."""
        if self.suggestions_left <= 0:
            return []
        self.suggestions_left -= 1

        best = index_for(names).suggest(key)
        return [best] if best else []

    def add(
        self,
        at: Entry | tuple[int, int],
        severity: str,
        code: str,
        key: str,
        message: str,
        suggestion: str = "",
        *,
        on_value: bool = False,
    ) -> None:
        if isinstance(at, Entry):
            line, col = (at.value_line, at.value_column) if on_value else (at.line, at.column)
        else:
            line, col = at
        if (line, code, key) in self._said:
            return  # the catalog and a data rule may both know the same fact: say it once
        self._said.add((line, code, key))
        self.findings.append(Finding(self.filename, line, col, severity, code, key, message, suggestion))


def did_you_mean(name: str, candidates: Iterable[str]) -> list[str]:
    """[the closest name] or []: candidates must be the file kind's own names (see lint.suggest)."""

    best = suggest(name, candidates)
    return [best] if best else []


def check_duplicates(
    doc: ConfDoc,
    ctx: Context,
    what: str = "section",
    skip: frozenset[str] = frozenset(),
    scope: Callable[[Entry], Hashable] | None = None,
) -> None:
    """The last occurrence wins in all four formats; earlier ones are silently dead (skip: list options,
    where every line adds a value; scope: what else besides the section makes two keys the same place, e.g. which
    of two same-named YAML mappings they sit in)."""
    seen: dict[tuple[str, str, Hashable], Entry] = {}
    for e in doc.entries:
        if e.key in skip:
            continue
        k = (e.section, e.key, scope(e) if scope is not None else None)
        first = seen.get(k)
        if first is not None:
            where = f" in [{e.section}]" if e.section and what == "section" else ""
            if e.value is None and e.node is not None and first.node is not None:
                what_goes = f"this block replaces the whole block on line {first.line}, which is never read"
            else:
                what_goes = (
                    f"this value ({e.value!r}) replaces the one on line {first.line} ({first.value!r})"
                )
            ctx.add(
                e,
                "warning",
                "FT301",
                e.key,
                f"duplicate key {e.key!r}{where}: {what_goes}",
                f"keep one {e.raw_key} line",
            )
        seen[k] = e


def check_value(knob: Knob, e: Entry, ctx: Context, parse: ValueParser) -> None:
    """Type, range, allowed values, removed values and unsafe values of one entry against its catalog knob."""
    if e.value is None:
        return
    value = e.value
    if knob.domain == "ceph" and "$" in value:
        return  # Ceph expands $var metavariables before it parses the value; the result is unknown here
    if knob.type not in ("str", "enum", "addr", "addrvec"):
        try:
            number = parse(knob.type, value)
        except ValueError as err:
            ctx.add(
                e,
                "error",
                "FT201",
                e.key,
                f"{e.key}: {err}; expected {knob.type}"
                + (" (Ceph silently uses the default instead)" if knob.domain == "ceph" else ""),
                _type_hint(knob),
                on_value=True,
            )
            return
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            if knob.min is not None and number < knob.min:
                ctx.add(
                    e,
                    "error",
                    "FT202",
                    e.key,
                    f"{e.key} = {value} is below the minimum {knob.min:g}",
                    f"use a value >= {knob.min:g}",
                    on_value=True,
                )
            elif knob.max is not None and number > knob.max:
                ctx.add(
                    e,
                    "error",
                    "FT202",
                    e.key,
                    f"{e.key} = {value} is above the maximum {knob.max:g}",
                    f"use a value <= {knob.max:g}",
                    on_value=True,
                )
    if knob.enum:
        allowed = {canon_value(x, knob.type) for x in knob.enum}
        word = canon_value(value, knob.type)
        if knob.domain == "mysql" and word.isdigit():
            # MySQL/MariaDB take an enum's position: query_cache_type = 1 is ON; past the end is refused
            if int(word) >= len(knob.enum):
                ctx.add(
                    e,
                    "error",
                    "FT203",
                    e.key,
                    f"{e.key} = {value}: position {word} is past the last of "
                    f"{len(knob.enum)} values ({', '.join(knob.enum)}); the server refuses it",
                    f"use 0..{len(knob.enum) - 1} or a name: {', '.join(knob.enum)}",
                    on_value=True,
                )
        elif word not in allowed:
            ctx.add(
                e,
                "error",
                "FT203",
                e.key,
                f"{e.key} = {value!r} is not one of: {', '.join(knob.enum)}",
                f"pick one of {', '.join(knob.enum)}",
                on_value=True,
            )
    gone = knob.removed_value(value)
    if gone is not None and _removed_applies(gone.removed, ctx, knob):
        ctx.add(
            e,
            "error",
            "FT104",
            e.key,
            f"{e.key} = {value!r}: "
            + (gone.note or "this value no longer works")
            + (f" (since {gone.removed})" if gone.removed else ""),
            _default_hint(knob),
            on_value=True,
        )
    safety, note = knob.value_safety(value)
    if safety != "safe" and not (knob.safety != "safe" and knob.is_a_default(value)):
        code = "FT502" if safety == "security-risk" else "FT501"
        sev = "warning" if safety == "durability-risk" else "error"
        ctx.add(
            e,
            sev,
            code,
            e.key,
            f"{e.key} = {value!r} is a {safety}" + (f": {note}" if note else ""),
            _safe_hint(knob),
            on_value=True,
        )


def _removed_applies(removed: str | None, ctx: Context, knob: Knob) -> bool:
    if removed is None or knob.domain != "ceph" or removed not in CEPH_RELEASES:
        return True
    if ctx.ceph_release not in CEPH_RELEASES:
        return True
    return CEPH_RELEASES.index(ctx.ceph_release) >= CEPH_RELEASES.index(removed)


def _type_hint(knob: Knob) -> str:
    return {
        "bool": "use true or false",
        "size": "use a byte count, optionally with K/M/G (e.g. 4G)",
        "int": "use a whole number",
        "uint": "use a non-negative whole number",
        "float": "use a number such as 0.5",
        "uuid": "use a UUID such as 35b08d01-b688-4b9a-947b-bc2e25719370",
    }.get(knob.type, f"use a {knob.type} value")


def _safe_hint(knob: Knob) -> str:
    d = knob.default_for(None)
    if d is not None and d != "":
        return f"use the default ({d}) unless you accept the risk"
    return "remove the line unless you accept the risk"


def _default_hint(knob: Knob) -> str:
    d = knob.default_for(None)
    return f"{knob.name} = {d}" if d not in (None, "") else "remove the line"

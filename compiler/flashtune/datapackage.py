"""The published-measurements data package (data/datapackage.json + data/tables/*.csv), stdlib only.

The compiler and linter use this module to check evidence references ("<resource>/<id>") without
pulling in pandas. Every table is validated against its Frictionless table schema when first read:
header, types, required, enum/minimum/maximum/pattern constraints, unique primary key and foreign keys.
Results are cached per data directory; the public functions hand out copies, so callers may mutate them.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import math
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from flashtune.errors import DataError
from flashtune.fileio import read_text
from flashtune.paths import data_dir

DESCRIPTOR = "datapackage.json"
_BOOL = {"true": True, "false": False}
_INTEGER = re.compile(r"[+-]?\d+")

Row = dict[str, str]


def package_path() -> Path:
    return data_dir() / DESCRIPTOR


def _root() -> Path:
    return data_dir()


@cache
def _descriptor(root: Path) -> dict[str, Any]:
    path = root / DESCRIPTOR
    text = read_text(path)
    try:
        desc = json.loads(text)
    except json.JSONDecodeError as e:
        raise DataError(
            f"invalid JSON: {e.msg}",
            file=str(path),
            line=e.lineno,
            column=e.colno,
            suggestion="fix the JSON syntax (commas, quotes, brackets)",
        ) from None
    resources = desc.get("resources") if isinstance(desc, dict) else None
    if not isinstance(resources, list) or not all(
        isinstance(r, dict) and isinstance(r.get("name"), str) for r in resources
    ):
        raise DataError(
            "the descriptor needs a 'resources' list of objects with a 'name'",
            file=str(path),
            suggestion="see https://specs.frictionlessdata.io/data-package/",
        )
    checked: dict[str, Any] = desc  # json.loads gives Any: the checks above made it this
    return checked


def _resource(root: Path, name: str) -> dict[str, Any]:
    for res in _descriptor(root)["resources"]:
        if res["name"] == name:
            return dict(res)
    names = [r["name"] for r in _descriptor(root)["resources"]]
    close = difflib.get_close_matches(name, names, n=3)
    raise DataError(
        f"no resource named {name!r} in the data package",
        file=str(root / DESCRIPTOR),
        suggestion=f"did you mean {', '.join(close)}?" if close else f"known: {', '.join(names)}",
    )


def resource_names() -> list[str]:
    """Names of all tables in the package, in descriptor order."""
    return [r["name"] for r in _descriptor(_root())["resources"]]


def schema(resource: str) -> dict[str, Any]:
    """The table schema (fields with type/unit/constraints, primaryKey, foreignKeys) of a resource."""
    # a deep copy, so callers cannot alter the cached descriptor
    copy: dict[str, Any] = json.loads(json.dumps(_resource(_root(), resource)["schema"]))
    return copy


def describe(resource: str) -> dict[str, Any]:
    """The whole resource descriptor (title, description, path, schema, sources)."""
    copy: dict[str, Any] = json.loads(json.dumps(_resource(_root(), resource)))
    return copy


def resource_path(resource: str) -> Path:
    return _root() / str(_resource(_root(), resource)["path"])


def _checker(field: dict[str, Any]) -> Callable[[str], str | None]:
    """The check of one field's cells: why a value does not fit the field (None if it does), for the raw CSV
    cell, "" meaning missing. The field's constraints are looked up once per table, not once per cell."""
    cons: dict[str, Any] = field.get("constraints", {})
    required = bool(cons.get("required"))
    ftype = field.get("type", "string")
    enum = [str(v) for v in cons["enum"]] if "enum" in cons else None
    allowed = frozenset(enum) if enum is not None else None
    ranged = "minimum" in cons or "maximum" in cons
    pattern = re.compile(cons["pattern"]) if "pattern" in cons else None

    def check(value: str) -> str | None:
        if value == "":
            return "a value is required" if required else None
        if ftype == "string" and not ranged:  # the common cell: only enum and pattern apply
            if allowed is not None and value not in allowed:
                return f"{value!r} is not one of the allowed values: {', '.join(enum or ())}"
            if pattern is not None and not pattern.fullmatch(value):
                return f"{value!r} does not match the pattern {pattern.pattern}"
            return None
        return _check_value(field, value)

    return check


def _check_value(field: dict[str, Any], value: str) -> str | None:
    """Why value does not fit field (None if it does); value is the raw CSV cell, "" meaning missing."""
    cons: dict[str, Any] = field.get("constraints", {})
    if value == "":
        return "a value is required" if cons.get("required") else None
    ftype = field.get("type", "string")
    number: float | None = None
    if ftype == "integer":
        if not _INTEGER.fullmatch(value):
            return f"{value!r} is not an integer"
        number = int(value)
    elif ftype == "number":
        try:
            number = float(value)
        except ValueError:
            return f"{value!r} is not a number"
        if math.isnan(number):
            return "NaN is not allowed; leave the cell empty for a missing value"
    elif ftype == "boolean":
        if value not in _BOOL:
            return f"{value!r} is not a boolean (write true or false)"
    elif ftype != "string":
        return f"field type {ftype!r} is not supported by flashtune's reader"
    if "enum" in cons and value not in [str(v) for v in cons["enum"]]:
        allowed = ", ".join(str(v) for v in cons["enum"])
        return f"{value!r} is not one of the allowed values: {allowed}"
    if number is not None:
        if "minimum" in cons and number < cons["minimum"]:
            return f"{value} is below the minimum {cons['minimum']}"
        if "maximum" in cons and number > cons["maximum"]:
            return f"{value} is above the maximum {cons['maximum']}"
    if "pattern" in cons and not re.fullmatch(cons["pattern"], value):
        return f"{value!r} does not match the pattern {cons['pattern']}"
    return None


@cache
def _rows(root: Path, name: str) -> tuple[tuple[int, Row], ...]:
    """(CSV line number, row) pairs of a resource, validated against its schema."""
    res = _resource(root, name)
    path = Path(root, str(res["path"]))
    where = str(path)
    fields: list[dict[str, Any]] = res["schema"]["fields"]
    names = [f["name"] for f in fields]
    checks = [(f["name"], _checker(f)) for f in fields]
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    out: list[tuple[int, Row]] = []
    line = 1  # where the record being read starts (a quoted cell may span lines)
    try:
        header = next(reader, None)
        if header != names:
            raise DataError(
                f"header {header} does not match the schema's fields {names}",
                file=where,
                line=1,
                suggestion=f"make the first line exactly: {','.join(names)}",
            )
        while True:
            line = reader.line_num + 1
            cells = next(reader, None)
            if cells is None:
                break
            if not cells:
                continue
            if len(cells) != len(names):
                raise DataError(
                    f"row has {len(cells)} cells, the schema has {len(names)} fields",
                    file=where,
                    line=line,
                    suggestion="check for a stray or missing comma, or quote cells that contain commas",
                )
            row = dict(zip(names, cells, strict=True))
            for fname, check in checks:
                problem = check(row[fname])
                if problem:
                    raise DataError(
                        f"field {fname!r}: {problem}",
                        file=where,
                        line=line,
                        suggestion=f"see the schema of resource {name!r} in {DESCRIPTOR}",
                    )
            out.append((line, row))
    except csv.Error as e:
        raise DataError(
            f"malformed CSV: {e}",
            file=where,
            line=line,
            suggestion="quote cells that contain commas, quotes or line breaks",
        ) from None
    _check_keys(root, name, res, where, out)
    return tuple(out)


def _as_list(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _check_keys(root: Path, name: str, res: dict[str, Any], where: str, rows: list[tuple[int, Row]]) -> None:
    sch = res["schema"]
    pk = _as_list(sch.get("primaryKey", []))
    unique = pk + [
        f["name"] for f in sch["fields"] if f.get("constraints", {}).get("unique") and [f["name"]] != pk
    ]
    for key in [pk] + [[u] for u in unique if u not in pk]:
        if not key:
            continue
        seen: dict[tuple[str, ...], int] = {}
        for line, row in rows:
            k = tuple(row[c] for c in key)
            if k in seen:
                raise DataError(
                    f"duplicate {'/'.join(key)} {'/'.join(k)!r} (first on line {seen[k]})",
                    file=where,
                    line=line,
                    suggestion="ids must be unique within a table; rename one",
                )
            seen[k] = line
    for fk in sch.get("foreignKeys", []):
        cols = _as_list(fk["fields"])
        ref = fk["reference"]
        target = ref.get("resource") or name
        ref_cols = _as_list(ref["fields"])
        if target == name:
            known = {tuple(r[c] for c in ref_cols) for _, r in rows}
        else:
            known = {tuple(r[c] for c in ref_cols) for _, r in _rows(root, target)}
        for line, row in rows:
            k = tuple(row[c] for c in cols)
            if all(v == "" for v in k) or k in known:
                continue
            close = difflib.get_close_matches("/".join(k), ["/".join(x) for x in known], n=3)
            raise DataError(
                f"{'/'.join(cols)} {'/'.join(k)!r} is not an {'/'.join(ref_cols)} of resource {target!r}",
                file=where,
                line=line,
                suggestion=f"did you mean {', '.join(close)}?" if close else f"add it to {target} first",
            )


def rows(resource: str) -> list[Row]:
    """All rows of a resource as raw strings ("" for a missing value), validated."""
    return [dict(r) for _, r in _rows(_root(), resource)]


def rows_with_lines(resource: str) -> list[tuple[int, Row]]:
    """Like rows(), with each row's CSV line number (for error messages elsewhere)."""
    return [(line, dict(r)) for line, r in _rows(_root(), resource)]


def row_ids(resource: str) -> set[str]:
    """The primary-key ids of a resource."""
    return {r["id"] for _, r in _rows(_root(), resource)}


def resolve(ref: str) -> dict[str, str] | None:
    """The row named by an evidence reference "<resource>/<id>", or None if there is no such row.

    An unknown resource is also None (the reference is dangling); a broken data file raises DataError.
    """
    resource, sep, row_id = ref.partition("/")
    if not sep or not row_id or resource not in resource_names():
        return None
    for _, row in _rows(_root(), resource):
        if row["id"] == row_id:
            return dict(row)
    return None


def checked_tables(root: Path | None = None) -> dict[str, list[Row]]:
    """Every resource's rows, of the package in root (default: the data in use), each table validated:
    raises DataError on the first problem."""
    at = root if root is not None else _root()
    return {r["name"]: [dict(row) for _, row in _rows(at, r["name"])] for r in _descriptor(at)["resources"]}


def validate() -> None:
    """Read and check every resource (raises DataError on the first problem)."""
    for name in resource_names():
        _rows(_root(), name)


def clear_cache() -> None:
    """Forget cached descriptors and tables (after editing data files in a running process)."""
    _descriptor.cache_clear()
    _rows.cache_clear()

"""Typed pandas access to the published measurements (for notebooks, ingest and tests).

`load(name)` reads one table of data/datapackage.json through flashtune.datapackage (which validates
types, constraints, primary and foreign keys with file:line errors) and gives it pandas dtypes from the
schema: categoricals for string enum fields, Int64/float64/boolean/string otherwise. Units from the schema are
in `df.attrs["units"]` (column -> unit). Frames are cached per data directory; each call returns a
fresh copy, so callers may modify what they get.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pandas as pd

from flashtune import datapackage
from flashtune.paths import data_dir


def resources() -> list[str]:
    """Names of all tables in the data package."""
    return datapackage.resource_names()


def describe(name: str) -> dict[str, Any]:
    """Resource metadata: title, description, path, schema (fields with type, unit, constraints)."""
    return datapackage.describe(name)


def units(name: str) -> dict[str, str]:
    """Column -> unit for the fields of a table that carry one.

    Where the unit varies by row (claims, setup_parameters) the schema names the column holding it
    (`unitField`), and the unit is given as "column:<that column>".
    """
    out: dict[str, str] = {}
    for f in datapackage.schema(name)["fields"]:
        if f.get("unit"):
            out[f["name"]] = str(f["unit"])
        elif f.get("unitField"):
            out[f["name"]] = f"column:{f['unitField']}"
    return out


def _dtype(field: dict[str, Any]) -> Any:
    cons = field.get("constraints", {})
    ftype = field.get("type", "string")
    if "enum" in cons and ftype == "string":
        # categories in the schema's order (often the source's order); integer enums stay numeric
        return pd.CategoricalDtype(categories=[str(v) for v in cons["enum"]], ordered=False)
    if ftype == "integer":
        return "int64" if cons.get("required") else "Int64"
    if ftype == "number":
        return "float64"
    if ftype == "boolean":
        return "boolean"
    return "string"


def _convert(field: dict[str, Any], values: list[str]) -> pd.Series:
    ftype = field.get("type", "string")
    raw: list[Any]
    if ftype == "integer":
        raw = [int(v) if v != "" else None for v in values]
    elif ftype == "number":
        raw = [float(v) if v != "" else float("nan") for v in values]
    elif ftype == "boolean":
        raw = [{"true": True, "false": False}[v] if v != "" else None for v in values]
    else:
        raw = [v if v != "" else None for v in values]
    return pd.Series(raw, dtype=_dtype(field), name=field["name"])


@cache
def _frame(root: str, name: str) -> pd.DataFrame:
    del root  # part of the cache key only: a different FLASHTUNE_DATA is a different package
    fields = datapackage.schema(name)["fields"]
    rows = datapackage.rows(name)
    df = pd.DataFrame({f["name"]: _convert(f, [r[f["name"]] for r in rows]) for f in fields})
    df.attrs["units"] = units(name)
    df.attrs["resource"] = name
    return df


def load(name: str) -> pd.DataFrame:
    """One table of the data package as a typed DataFrame (a copy: safe to modify)."""
    df = _frame(str(data_dir()), name)
    out = df.copy(deep=True)
    out.attrs = {"units": dict(df.attrs["units"]), "resource": name}
    return out


def clear_cache() -> None:
    """Forget cached frames and tables (after editing data files in a running process)."""
    _frame.cache_clear()
    datapackage.clear_cache()

"""Reading one value out of an ingested results frame (the long table flashtune.ingest returns)."""

from __future__ import annotations

from typing import Any


def one_value(df: Any, **where: Any) -> float:
    """The single summary row (no time_s) matching every column=value given."""
    rows = df
    for k, v in where.items():
        rows = rows[rows[k] == v]
    rows = rows[rows["time_s"].isna()]
    assert len(rows) == 1, (where, len(rows))
    return float(rows["value"].iloc[0])

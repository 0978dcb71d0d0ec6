"""The published headlines (data/envelope/headlines.yaml) and the constants' definitions (constants.yaml)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from flashtune import datapackage
from flashtune.envelope.hardware import envelope_dir
from flashtune.envelope.model import Case
from flashtune.errors import DataError
from flashtune.yamlio import line_of, load_yaml

BOTTLENECKS = ("media", "network", "cpu", "none")
# cpu.<direction>_op_<objectstore>: cycles per OSD operation of that store; cpu.<direction>_byte: shared
CONSTANTS = (
    "net_efficiency",
    "cpu.read_op_filestore",
    "cpu.read_op_bluestore",
    "cpu.read_byte",
    "cpu.write_op_filestore",
    "cpu.write_op_bluestore",
    "cpu.write_byte",
)
# unit as printed -> (factor to IOPS, factor to MB/s); one of the two is None
UNITS: dict[str, tuple[float | None, float | None]] = {
    "IOPS": (1.0, None),
    "K IOPS": (1e3, None),
    "M IOPS": (1e6, None),
    "MB/s": (None, 1.0),
    "GB/s": (None, 1e3),
}


@dataclass(frozen=True)
class Headline:
    id: str
    study: str
    setup: str
    case: Case
    clients: int | None  # the client count of this measurement when it differs from the setup's
    value: float  # as printed
    unit: str
    field: str
    evidence: str
    stated_bottleneck: str
    goal: bool
    why_no_goal: str
    calibrates: str | None
    busy: float | None  # share of the calibrated resource in use (1.0 = saturated)
    bound: bool  # the resource was not the limit: the observation gives an upper bound on the constant
    expected_miss: bool  # a goal headline the model is known not to meet (why_miss says why)
    why_miss: str
    missing: str  # for a miss: the fact the source does not give that the prediction would need
    line: int | None

    @property
    def iops(self) -> float:
        to_iops, to_mb = UNITS[self.unit]
        return (
            self.value * to_iops if to_iops else self.value * float(to_mb or 0) * 1e6 / self.case.block_size
        )

    @property
    def mb_s(self) -> float:
        return self.iops * self.case.block_size / 1e6


def _busy(h: Mapping[str, Any], row: Mapping[str, str] | None, where: str) -> float | None:
    cal = h.get("calibrates") or {}
    if "busy" in cal:
        return float(cal["busy"])
    fields = cal.get("busy_fields")
    if fields:
        if row is None:
            raise DataError(f"{where}: busy_fields need a table row as evidence")
        values = [float(row[f]) for f in fields if row.get(f)]
        if not values:
            raise DataError(f"{where}: the evidence row has none of {fields}")
        return sum(values) / len(values) / 100.0
    return None


@cache
def headlines() -> tuple[Headline, ...]:
    path = os.path.join(envelope_dir(), "headlines.yaml")
    doc = load_yaml(path)
    items = doc.get("headlines") if isinstance(doc, Mapping) else None
    if not isinstance(items, list):
        raise DataError("headlines.yaml needs a 'headlines:' list", file=str(path), line=1)
    out = []
    for h in items:
        where = f"{path}:{line_of(h)}"
        m, c, cal = h.get("measured") or {}, h.get("case") or {}, h.get("calibrates") or {}
        if m.get("unit") not in UNITS:
            raise DataError(
                f"unit {m.get('unit')!r} is not one of {', '.join(UNITS)}", file=str(path), line=line_of(m)
            )
        if h.get("stated_bottleneck") not in BOTTLENECKS:
            raise DataError(
                f"stated_bottleneck must be one of {', '.join(BOTTLENECKS)}",
                file=str(path),
                line=line_of(h, "stated_bottleneck"),
            )
        if cal and cal.get("constant") not in CONSTANTS:
            raise DataError(
                f"unknown constant {cal.get('constant')!r}",
                file=str(path),
                line=line_of(cal),
                suggestion=f"one of {', '.join(CONSTANTS)}",
            )
        evidence = str(h["evidence"])
        # Rows are read only where a busy share comes from them (the data package checks a whole table on its
        # first read); tests/unit/test_envelope.py checks every headline's value against its evidence row.
        row = datapackage.resolve(evidence) if cal.get("busy_fields") else None
        if cal.get("busy_fields") and row is None:
            raise DataError(
                f"evidence {evidence!r} does not resolve to a data-package row",
                file=str(path),
                line=line_of(h, "evidence"),
                suggestion="use <resource>/<id> from data/tables",
            )
        out.append(
            Headline(
                id=str(h["id"]),
                study=str(h["study"]),
                setup=str(h["setup"]),
                case=Case(
                    str(c["name"]),
                    int(c["block_size"]),
                    float(c["read_fraction"]),
                    bool(c.get("sequential", False)),
                ),
                clients=int(h["clients"]) if "clients" in h else None,
                value=float(m["value"]),
                unit=str(m["unit"]),
                field=str(m["field"]),
                evidence=evidence,
                stated_bottleneck=str(h["stated_bottleneck"]),
                goal=bool(h.get("goal", True)),
                why_no_goal=str(h.get("why_no_goal", "")),
                calibrates=str(cal["constant"]) if cal else None,
                busy=_busy(h, row, where),
                bound=bool(cal.get("bound", False)),
                expected_miss=h.get("expected") == "miss",
                why_miss=" ".join(str(h.get("why_miss", "")).split()),
                missing=" ".join(str(h.get("missing", "")).split()),
                line=line_of(h),
            )
        )
    return tuple(out)


@cache
def constants_doc() -> dict[str, Any]:
    path = os.path.join(envelope_dir(), "constants.yaml")
    doc = load_yaml(path)
    if not isinstance(doc, Mapping) or "message_overhead_bytes" not in doc:
        raise DataError(
            "constants.yaml needs message_overhead_bytes, net_efficiency and cpu", file=str(path), line=1
        )
    return dict(doc)


def message_overhead_bytes() -> float:
    return float(constants_doc()["message_overhead_bytes"]["value"])

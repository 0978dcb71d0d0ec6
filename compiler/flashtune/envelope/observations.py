"""The published headlines (data/envelope/headlines.yaml) and the constants' definitions (constants.yaml)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from flashtune import datapackage
from flashtune.envelope.ceilings import Case
from flashtune.envelope.cluster import envelope_dir
from flashtune.errors import DataError
from flashtune.yamlio import line_of, load_yaml

# osd: the per-node small-op wall; cpu_media: the source names both (either one predicted counts)
BOTTLENECKS = ("media", "network", "cpu", "osd", "cpu_media", "none")
# cpu.<direction>_op_<objectstore>: cycles per OSD operation of that store; cpu.<direction>_byte: shared
CONSTANTS = (
    "net_efficiency",
    "net_efficiency_write",
    "cpu.read_op_filestore",
    "cpu.read_op_bluestore",
    "cpu.read_byte",
    "cpu.write_op_filestore",
    "cpu.write_op_bluestore",
    "cpu.write_byte",
    *(
        f"cpu.{d}_{kind}_{family}"
        for family in ("luminous", "pacific", "quincy")
        for d in ("read", "write")
        for kind in ("op", "byte")
    ),
    "cpu.rgw_read_op",
    "cpu.rgw_read_byte",
    "cpu.rgw_write_op",
    "cpu.rgw_write_byte",
)
# unit as printed -> (factor to IOPS, factor to MB/s); one of the two is None
UNITS: dict[str, tuple[float | None, float | None]] = {
    "IOPS": (1.0, None),
    "K IOPS": (1e3, None),
    "M IOPS": (1e6, None),
    "MB/s": (None, 1.0),
    "GB/s": (None, 1e3),
    "GiB/s": (None, 1073.741824),
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
    listed: bool = True  # False: a calibration-only copy of a headline that calibrates several constants
    conflict: str = (
        ""  # the source's statement conflicts with its own numbers: the reasoning (headlines.yaml)
    )
    per_node: int = (
        0  # the value is printed per storage node of a set-up with this many nodes (0: cluster-wide)
    )

    @property
    def iops(self) -> float:
        to_iops, to_mb = UNITS[self.unit]
        value = self.value * (self.per_node or 1)
        return value * to_iops if to_iops else value * float(to_mb or 0) * 1e6 / self.case.block_size

    @property
    def mb_s(self) -> float:
        return self.iops * self.case.block_size / 1e6


def _busy(
    h: Mapping[str, Any], cal: Mapping[str, Any], row: Mapping[str, str] | None, where: str
) -> float | None:
    if "busy" in cal:
        return float(cal["busy"])
    cores = cal.get("cores_fields")
    if cores:
        # CPU cores in use (as top counts them) over the cores the OSDs could use: a thread on each idle
        # physical core first, so up to the physical count they are physical cores; beyond it, saturated
        if row is None:
            raise DataError(f"{where}: cores_fields need a table row as evidence")
        from flashtune.envelope.cluster import load_setup

        values = [float(row[f]) for f in cores if row.get(f)]
        if not values:
            raise DataError(f"{where}: the evidence row has none of {cores}")
        c = load_setup(str(h["setup"]))
        used = sum(values) / len(values) * (c.osds_per_node * c.nodes if cal.get("per") == "osd" else 1)
        return min(1.0, used / (c.nodes * c.sockets * c.cores))
    fields = cal.get("busy_fields")
    if fields:
        if row is None:
            raise DataError(f"{where}: busy_fields need a table row as evidence")
        values = [float(row[f]) for f in fields if row.get(f)]
        if not values:
            raise DataError(f"{where}: the evidence row has none of {fields}")
        return sum(values) / len(values) / 100.0
    return None


def _nodes(setup: str) -> int:
    from flashtune.envelope.cluster import load_setup

    return load_setup(setup).nodes


@cache
def headlines() -> tuple[Headline, ...]:
    path = envelope_dir() / "headlines.yaml"
    doc = load_yaml(path)
    items = doc.get("headlines") if isinstance(doc, Mapping) else None
    if not isinstance(items, list):
        raise DataError("headlines.yaml needs a 'headlines:' list", file=str(path), line=1)
    out = []
    for item in items:
        # a headline may calibrate several constants (a list): the first is the headline's own, the others
        # become calibration-only copies (id#constant) the validation does not list again
        cals = item.get("calibrates") if isinstance(item, Mapping) else None
        for n, cal in enumerate(cals if isinstance(cals, list) else [cals or {}]):
            out.append(_headline(item, cal or {}, path, n))
    return tuple(out)


def _headline(h: Any, cal: Mapping[str, Any], path: str | Path, copy: int) -> Headline:
    where = f"{path}:{line_of(h)}"
    m, c = h.get("measured") or {}, h.get("case") or {}
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
    wants_row = cal.get("busy_fields") or cal.get("cores_fields")
    row = datapackage.resolve(evidence) if wants_row else None
    if wants_row and row is None:
        raise DataError(
            f"evidence {evidence!r} does not resolve to a data-package row",
            file=str(path),
            line=line_of(h, "evidence"),
            suggestion="use <resource>/<id> from data/tables",
        )
    return Headline(
        id=str(h["id"]) + (f"#{cal['constant']}" if copy else ""),
        study=str(h["study"]),
        setup=str(h["setup"]),
        case=Case(
            str(c["name"]),
            int(c["block_size"]),
            float(c["read_fraction"]),
            bool(c.get("sequential", False)),
            str(c.get("interface", "rbd")),
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
        busy=_busy(h, cal, row, where),
        bound=bool(cal.get("bound", False)),
        expected_miss=h.get("expected") == "miss",
        why_miss=" ".join(str(h.get("why_miss", "")).split()),
        missing=" ".join(str(h.get("missing", "")).split()),
        line=line_of(h),
        listed=not copy,
        conflict=" ".join(str(h.get("conflict", "")).split()),
        per_node=_nodes(str(h["setup"])) if m.get("per") == "node" else 0,
    )


@cache
def constants_doc() -> dict[str, Any]:
    path = envelope_dir() / "constants.yaml"
    doc = load_yaml(path)
    if not isinstance(doc, Mapping) or "message_overhead_bytes" not in doc:
        raise DataError(
            "constants.yaml needs message_overhead_bytes, net_efficiency and cpu", file=str(path), line=1
        )
    return dict(doc)


def message_overhead_bytes() -> float:
    return float(constants_doc()["message_overhead_bytes"]["value"])


def claim_value(ref: str, use: str, where: str) -> tuple[float, str]:
    """(value, study) of a published_claims row: its value, value_max or their midpoint."""
    row = datapackage.resolve(ref)
    if row is None or not ref.startswith("published_claims/"):
        raise DataError(f"{where}: {ref!r} is not a published_claims row", suggestion="published_claims/<id>")
    lo = float(row["value"])
    hi = float(row["value_max"]) if row.get("value_max") else lo
    value = {"value": lo, "value_max": hi, "midpoint": (lo + hi) / 2}[use]
    return value, str(row["study"])


@cache
def fixed_constants() -> dict[str, tuple[float, str, str]]:
    """constants.yaml's sourced BlueStore-era constants: name -> (value, study of its source, claim)."""
    doc = constants_doc()
    path = envelope_dir() / "constants.yaml"
    out = {}
    for name in ("osd_max_cores", "node_op_ceiling", "rgw_put_round_trips"):
        entry = doc.get(name)
        if not isinstance(entry, Mapping) or "claim" not in entry:
            raise DataError(
                f"constants.yaml needs {name}: {{claim, use}}", file=str(path), line=line_of(doc, name) or 1
            )
        value, study = claim_value(
            str(entry["claim"]), str(entry.get("use", "value")), f"{path}:{line_of(entry)}"
        )
        out[name] = (value, study, str(entry["claim"]))
    return out


@dataclass(frozen=True)
class ClaimObservation:
    """A CPU cost a source states as throughput per core used: cycles = the set-up's clock / that rate."""

    constant: str
    claim: str
    study: str
    setup: str
    value: float  # cycles per operation


@cache
def claim_observations() -> tuple[ClaimObservation, ...]:
    from flashtune.envelope.cluster import load_setup

    doc = constants_doc()
    path = envelope_dir() / "constants.yaml"
    out = []
    for entry in doc.get("cpu_from_claims") or []:
        where = f"{path}:{line_of(entry)}"
        if entry.get("constant") not in CONSTANTS:
            raise DataError(f"{where}: unknown constant {entry.get('constant')!r}")
        rate, study = claim_value(str(entry["claim"]), "value", where)
        c = load_setup(str(entry["setup"]))
        out.append(
            ClaimObservation(
                str(entry["constant"]), str(entry["claim"]), study, str(entry["setup"]), c.ghz * 1e9 / rate
            )
        )
    return tuple(out)

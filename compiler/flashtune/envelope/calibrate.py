"""Fit the envelope's constants from published measurements, optionally leaving one study out.

Each calibration observation (a headline with `calibrates:`) says which constant it pins and how busy the
resource was (1.0 = the source says it saturated; a CPU percentage otherwise). Per observation the constant
is solved so the model's ceiling for that resource, times the busy share, equals the measurement:

- net_efficiency: measured / (network ceiling at efficiency 1) / busy;
- cpu.*: cycles per client I/O = busy x cluster cycles per second / measured IOPS, and that total is
  ops x cycles-per-op (of the set-up's object store) + bytes x cycles-per-byte, solved for the one
  constant with the other at its current value (the op and byte constants of a direction are fitted
  together by repeating the pass; an op cost no observation measures counts as 0 there).

A constant is the mean of its observations' solutions. Leaving a study out drops its observations; a
constant that no other study measures then keeps its all-study value and is reported as `in-study`.
An observation marked `bound` comes from a result another resource limited: the busy share is at most
1, so its solution is an upper bound on a cost (a lower bound on the ceiling). A constant fitted only
from bounds is listed in Constants.bounds, and never kept in-study: a bound taken from the held-out
result itself could only set its own CPU ceiling equal to the measurement.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from flashtune.envelope.ceilings import (
    MODERN_FAMILIES,
    Cluster,
    Constants,
    CpuCosts,
    ceilings,
    cpu_cycles,
    demand,
    usable_cores,
)
from flashtune.envelope.cluster import load_setup
from flashtune.envelope.observations import (
    CONSTANTS,
    Headline,
    claim_observations,
    fixed_constants,
    headlines,
    message_overhead_bytes,
)
from flashtune.errors import DataError

NETWORK = ("client network", "public network", "cluster network")
PASSES = 6


@dataclass(frozen=True)
class Fit:
    constants: Constants
    sources: dict[str, tuple[str, ...]]  # constant -> the observations it was fitted from
    in_study: tuple[str, ...]  # constants that kept their all-study value (no other study measures them)


def cluster_for(h: Headline) -> Cluster:
    c = load_setup(h.setup)
    return replace(c, clients=h.clients) if h.clients else c


NET = ("net_efficiency", "net_efficiency_write")


def _get(k: Constants, name: str) -> float | None:
    if name == "net_efficiency":
        return k.net_efficiency
    if name == "net_efficiency_write":
        values = list(k.net_write_by_class.values())
        return sum(values) / len(values) if values else None
    return getattr(k.cpu, name.split(".", 1)[1])  # type: ignore[no-any-return]


def _set(k: Constants, name: str, value: float | None) -> Constants:
    if name == "net_efficiency":
        return replace(k, net_efficiency=float(value or 0.0))
    if name == "net_efficiency_write":
        return k  # per class only (fit() sets net_write_by_class)
    return replace(k, cpu=replace(k.cpu, **{name.split(".", 1)[1]: value}))


def _family(name: str) -> str | None:
    """The cost family an op constant (or a family's byte constant) belongs to; None: shared or RGW."""
    field_name = name.split(".", 1)[1]
    if field_name.startswith("rgw_"):
        return None
    parts = field_name.split("_")
    return parts[2] if len(parts) == 3 else (parts[2] if parts[1] == "op" else None)


def _cycles(h: Headline, c: Cluster, k: Constants, name: str, value: float) -> float:
    """Cycles per client I/O of h with the constant `name` at `value` (unknown others count 0)."""
    costs = replace(k.cpu, **{f: (v if v is not None else 0.0) for f, v in vars(k.cpu).items()})
    costs = replace(costs, **{name.split(".", 1)[1]: value})
    if name.startswith("cpu.rgw_"):  # the gateways' own share of the cycles
        write = h.case.read_fraction < 1
        d = demand(c, write, h.case.block_size, h.case.interface, k.rgw_put_round_trips)
        rgw = costs.rgw(write)
        assert rgw is not None
        return d.gateway_requests * rgw[0] + d.gateway_bytes * rgw[1]
    cycles = cpu_cycles(c, h.case, costs)
    if cycles is None:
        raise DataError(f"{h.id}: no CPU model for set-up {h.setup} ({c.software})")
    if h.case.interface == "rgw" and c.colocated_gateways:  # the OSDs' share only
        write = h.case.read_fraction < 1
        d = demand(c, write, h.case.block_size, h.case.interface, k.rgw_put_round_trips)
        rgw = costs.rgw(write)
        assert rgw is not None
        cycles -= d.gateway_requests * rgw[0] + d.gateway_bytes * rgw[1]
    return cycles


def solve(h: Headline, k: Constants) -> float:
    """The value of h's constant that makes the model reproduce h (see the module docstring)."""
    assert h.calibrates is not None and h.busy is not None
    c = cluster_for(h)
    if h.calibrates in NET:
        ceil = ceilings(c, h.case, replace(k, net_efficiency=1.0, net_by_class={}, net_write_by_class={}))
        net = min(v for r, v in ceil.items() if r in NETWORK and v)
        return h.iops / h.busy / net
    family = _family(h.calibrates)
    if family is not None and family != c.family:
        raise DataError(
            f"{h.id} calibrates {h.calibrates} but its set-up {h.setup} is of cost family {c.family}"
        )
    target = h.busy * c.nodes * usable_cores(c, k) * c.ghz * 1e9 / h.iops
    at0 = _cycles(h, c, k, h.calibrates, 0.0)
    at1 = _cycles(h, c, k, h.calibrates, 1.0)
    return (target - at0) / (at1 - at0)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def fit(leave_out: str | None = None) -> Fit:
    """Constants fitted from every study's observations except `leave_out`'s.

    Network efficiency is fitted per link class (the storage nodes' fastest port) and pooled over all
    classes for a class no observation has; CPU costs stated per core used (constants.yaml
    cpu_from_claims) count as observations of their study; the fixed constants come from their claims."""
    obs = [h for h in headlines() if h.calibrates]
    claims = [o for o in claim_observations() if o.study != leave_out]
    full = None if leave_out is None else fit(None)
    fixed = fixed_constants()
    k = Constants(
        net_efficiency=1.0,
        message_overhead_bytes=message_overhead_bytes(),
        cpu=CpuCosts(),
        osd_max_cores=fixed["osd_max_cores"][0],
        node_op_ceiling=fixed["node_op_ceiling"][0],
        rgw_put_round_trips=fixed["rgw_put_round_trips"][0],
    )
    sources: dict[str, tuple[str, ...]] = {}
    in_study: list[str] = []
    for name in CONSTANTS:
        used = tuple(h.id for h in obs if h.calibrates == name and h.study != leave_out)
        used += tuple(o.claim for o in claims if o.constant == name)
        sources[name] = used
        # a BlueStore-era family's cost no other study measures is left out: it borrows from the nearest
        # family (CpuCosts), an out-of-study value; other constants keep their all-study value, in-study
        borrows = _family(name) in MODERN_FAMILIES if name.startswith("cpu.") else False
        if (
            not used
            and not borrows
            and full is not None
            and any(h.calibrates == name and not h.bound for h in obs)
        ):
            in_study.append(name)
            sources[name] = full.sources[name]
            k = _set(k, name, _get(full.constants, name))
            if name == "net_efficiency":
                k = replace(k, net_by_class=dict(full.constants.net_by_class))
            if name == "net_efficiency_write":
                k = replace(k, net_write_by_class=dict(full.constants.net_write_by_class))
    for _ in range(PASSES):
        for name in CONSTANTS:
            if name in in_study:
                continue
            chosen = [h for h in obs if h.id in sources[name]]
            stated = [o.value for o in claims if o.constant == name]
            if not chosen and not stated:
                continue
            values = [solve(h, k) for h in chosen] + stated
            # upper bounds (results another resource limited) count only where nothing measures the
            # constant itself, and then the tightest one
            measured = [v for h, v in zip(chosen, values, strict=False) if not h.bound] + stated
            k = _set(k, name, _mean(measured) if measured else min(values))
            if name in NET:
                by_class: dict[str, list[float]] = {}
                for h, v in zip(chosen, values, strict=False):
                    by_class.setdefault(cluster_for(h).link, []).append(v)
                means = {cls: _mean(v) for cls, v in sorted(by_class.items())}
                if name == "net_efficiency":
                    k = replace(k, net_by_class=means)
                else:
                    k = replace(k, net_write_by_class=means)
    bounds = tuple(
        n
        for n in CONSTANTS
        if sources[n]
        and all(h.bound for h in obs if h.id in sources[n])
        and not any(o.constant == n for o in claims)
    )
    return Fit(replace(k, bounds=bounds), sources, tuple(in_study))


def per_observation(leave_out: str | None = None) -> list[dict[str, object]]:
    """Every calibration observation's own solution under the (leave-one-out) fit: the spread behind a mean."""
    f = fit(leave_out)
    return [
        {
            "constant": h.calibrates,
            "observation": h.id,
            "study": h.study,
            "evidence": h.evidence,
            "busy": h.busy,
            "upper_bound": h.bound,
            "value": solve(h, f.constants),
        }
        for h in headlines()
        if h.calibrates
    ]

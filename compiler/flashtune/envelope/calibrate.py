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

from flashtune.envelope.hardware import load_setup
from flashtune.envelope.model import Cluster, Constants, CpuCosts, ceilings, demand
from flashtune.envelope.observations import CONSTANTS, Headline, headlines, message_overhead_bytes
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


def _get(k: Constants, name: str) -> float | None:
    if name == "net_efficiency":
        return k.net_efficiency
    return getattr(k.cpu, name.split(".", 1)[1])  # type: ignore[no-any-return]


def _set(k: Constants, name: str, value: float) -> Constants:
    if name == "net_efficiency":
        return replace(k, net_efficiency=value)
    return replace(k, cpu=replace(k.cpu, **{name.split(".", 1)[1]: value}))


def solve(h: Headline, k: Constants) -> float:
    """The value of h's constant that makes the model reproduce h (see the module docstring)."""
    assert h.calibrates is not None and h.busy is not None
    c = cluster_for(h)
    if h.calibrates == "net_efficiency":
        ceil = ceilings(c, h.case, replace(k, net_efficiency=1.0))
        net = min(v for r, v in ceil.items() if r in NETWORK and v)
        return h.iops / h.busy / net
    direction, kind = h.calibrates.split(".", 1)[1].split("_")[:2]
    write = direction == "write"
    if kind == "op" and not h.calibrates.endswith(c.objectstore):
        raise DataError(f"{h.id} calibrates {h.calibrates} but its set-up {h.setup} runs {c.objectstore}")
    d = demand(c, write, h.case.block_size)
    target = h.busy * c.cycles_per_s / h.iops
    op = k.cpu.op(write, c.objectstore) or 0.0
    per_byte = k.cpu.byte(write) or 0.0
    if kind == "op":
        return (target - d.osd_bytes * per_byte) / d.osd_ops
    return (target - d.osd_ops * op) / d.osd_bytes


def fit(leave_out: str | None = None) -> Fit:
    """Constants fitted from every study's observations except `leave_out`'s."""
    obs = [h for h in headlines() if h.calibrates]
    full = None if leave_out is None else fit(None)
    k = Constants(net_efficiency=1.0, message_overhead_bytes=message_overhead_bytes(), cpu=CpuCosts())
    sources: dict[str, tuple[str, ...]] = {}
    in_study: list[str] = []
    for name in CONSTANTS:
        used = tuple(h.id for h in obs if h.calibrates == name and h.study != leave_out)
        sources[name] = used
        if not used and full is not None and any(h.calibrates == name and not h.bound for h in obs):
            in_study.append(name)
            sources[name] = full.sources[name]
            k = _set(k, name, float(_get(full.constants, name) or 0.0))
    for _ in range(PASSES):
        for name in CONSTANTS:
            if name in in_study:
                continue
            chosen = [h for h in obs if h.id in sources[name]]
            if chosen:
                values = [solve(h, k) for h in chosen]
                k = _set(k, name, sum(values) / len(values))
    bounds = tuple(n for n in CONSTANTS if sources[n] and all(h.bound for h in obs if h.id in sources[n]))
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

"""The predicted ceiling beside each probe: flashtune.envelope's model for the hardware the config was compiled
for, with the compile's own cluster shape (nodes, clients, protection), as compile-config predicts its CBT cases.
It describes that hardware, not necessarily the cluster measured (never the lab)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flashtune.envelope import Case, envelope
from flashtune.envelope.bundle import cluster_for
from flashtune.envelope.fitted import constants
from flashtune.envelope.report import case_dict, shape
from flashtune.model import Hardware
from flashtune.prove.probes import Probe

LARGE = 1 << 20  # a streaming case from 1 MiB blocks up


def case_of(probe: Probe) -> Case:
    if probe.needs_s3:  # whole objects through the gateways, as compile-config models its hsbench cases
        return Case(probe.name, probe.block_size, probe.read_fraction, sequential=True, interface="rgw")
    sequential = probe.mode in ("write", "seq", "read") and probe.block_size >= LARGE
    return Case(probe.name, probe.block_size, probe.read_fraction, sequential=sequential)


def predicted(
    hw: Hardware,
    shape_facts: Mapping[str, Any],
    probes: Sequence[Probe],
    objectstore: str | None = None,
    release: str | None = None,
) -> tuple[dict[str, dict[str, Any]], str]:
    """{probe name: the envelope's case_dict (predicted_IOPS, limit, ...)} and the modelled cluster's shape.
    release: the compiled Ceph release (the envelope's CPU cost family), as compile-config passes it."""
    c = cluster_for(hw, shape_facts, objectstore, release)
    k = constants()
    return {p.name: case_dict(envelope(c, case_of(p), k)) for p in probes}, shape(c)

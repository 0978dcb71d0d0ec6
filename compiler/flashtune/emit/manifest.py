"""manifest.json emitter: every emitted value with inputs, rule, rationale, evidence, release facts, safety."""

from __future__ import annotations

import json
from collections.abc import Mapping
from hashlib import sha256
from typing import Any

from flashtune import __version__
from flashtune.evidence import place
from flashtune.model import Bundle, DeviceGroup


def evidence(refs: tuple[str, ...]) -> list[dict[str, Any]]:
    """Each evidence reference with the seed place it resolves to in the data package."""
    out = []
    for ref in refs:
        where = place(ref)
        if where is None:
            out.append({"ref": ref, "resolved": False})
            continue
        out.append({"ref": ref, "resolved": True, **where})
    return out


def _devices(g: DeviceGroup) -> dict[str, Any]:
    """A device group as the manifest lists it (the envelope's data-sheet figures are in its own key)."""
    return {"count": g.count, "type": g.type, "size_gb": g.size_gb}


def _jsonable(v: Any) -> Any:
    if hasattr(v, "as_profile"):
        return v.as_profile()
    if isinstance(v, tuple):
        return list(v)
    return v


def as_dict(bundle: Bundle, inputs: Mapping[str, Any]) -> dict[str, Any]:
    hw = bundle.hardware
    return {
        "generated_by": {"tool": "flashtune compile-config", "version": __version__},
        "inputs": dict(inputs),
        "hardware": {
            "name": hw.name,
            "source": hw.source,
            "cores": hw.cores,
            "sockets": hw.sockets,
            "ram_gib": hw.ram_gib,
            "nic_gbps": hw.nic_gbps,
            "data_devices": [_devices(g) for g in hw.data_devices],
            "db_devices": [_devices(g) for g in hw.db_devices],
        },
        "cluster": bundle.cluster_facts(),
        "memory_budget_gib": {name: round(gib, 3) for name, gib in bundle.memory_budget()},
        "warnings": bundle.warnings,
        "layers": bundle.layers,
        "legacy": bundle.legacy,
        "files": {
            name: sha256(text.encode()).hexdigest()
            for name, text in sorted(bundle.files.items())
            if name not in ("explain.md", "manifest.json")
        },
        "settings": [
            {
                "file": s.file,
                "section": s.section,
                "key": s.key,
                "value": _jsonable(s.value),
                "rule": s.rule,
                "why": s.why,
                "rationale": s.rationale,
                "inputs": {k: _jsonable(v) for k, v in s.inputs.items()},
                "evidence": evidence(s.evidence),
                "release_facts": list(s.release_facts),
                "safety": s.safety,
                "unsafe_opt_in": s.unsafe_opt_in,
                "notes": list(s.notes),
            }
            for s in bundle.settings
        ],
        "derived": {
            k: {
                "value": _jsonable(d.value),
                "reason": d.reason,
                "inputs": d.inputs,
                "evidence": evidence(d.evidence),
            }
            for k, d in bundle.derived.items()
        },
        "omitted": bundle.omitted,
        "differences_from_seed": bundle.differences,
        "benchmark_cases": bundle.cases,
        "envelope": bundle.envelope,
        "lint": bundle.lint,
    }


def emit(bundle: Bundle, inputs: Mapping[str, Any]) -> str:
    return json.dumps(as_dict(bundle, inputs), indent=1, default=str) + "\n"

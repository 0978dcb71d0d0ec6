"""The envelope's constants as compile-config uses them: the fit of the shipped data, stored in
data/envelope/fitted.json so a compile need not redo it, and used only while the CRCs of the data it was fitted
on are those of the data in use (else the constants are fitted afresh). `python -m flashtune.envelope.fitted`
rewrites the file; tests/unit/test_envelope.py fails when it is stale (any fitted constant, per-class efficiency
or validated range that differs from what the data gives)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, replace
from functools import cache

from flashtune.envelope.calibrate import cluster_for, fit
from flashtune.envelope.ceilings import Constants, CpuCosts
from flashtune.envelope.validate import Row, validation
from flashtune.paths import SOURCE_DATA, data_crcs, data_path

FITTED = "envelope/fitted.json"


@cache
def constants() -> Constants:
    """The constants fitted from every published study (what users' predictions use)."""
    stored = stored_constants()
    if stored is not None:
        return stored
    return fitted_constants()


def fitted_constants() -> Constants:
    """The fit of every study's data with the validation's measured/predicted range per resource class."""
    return replace(fit().constants, ranges=validation_ranges(validation()))


def validation_ranges(rows: list[Row]) -> dict[str, tuple[float, float]]:
    """Per predicted bottleneck class: the 10th-90th percentile of measured / predicted over the Ceph goal
    headlines the validation (leave-one-study-out) predicts limited by it, where the source does not name
    another bottleneck and does not contradict its own numbers (a `conflict:` row's measured value is in doubt
    by its source's own figures, so it says nothing about how far the model may be off)."""
    ratios: dict[str, list[float]] = {}
    for r in rows:
        if (
            not r.headline.goal
            or r.headline.conflict
            or r.bottleneck_match is False
            or cluster_for(r.headline).software != "ceph"
        ):
            continue
        for cls in r.loso.bottleneck_class.split("/"):
            ratios.setdefault(cls, []).append(r.headline.iops / r.loso.iops)
    out = {}
    for cls, values in sorted(ratios.items()):
        v = sorted(values)
        lo, hi = v[int(0.1 * (len(v) - 1))], v[round(0.9 * (len(v) - 1))]
        out[cls] = (round(lo, 3), round(hi, 3))
    return out


def fit_inputs(sources: Mapping[str, int]) -> dict[str, int]:
    """CRC-32 of every data file the fit reads (the envelope data and the tables), of all data files' CRCs."""
    return {
        rel: crc
        for rel, crc in sorted(sources.items())
        if rel != FITTED and (rel.startswith(("envelope/", "tables/")) or rel == "datapackage.json")
    }


def stored_constants() -> Constants | None:
    """The stored fit, if the data it was fitted on is unchanged since it was written; None: fit afresh."""
    try:
        with open(data_path(FITTED), encoding="utf-8") as f:
            doc = json.loads(f.read())
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("inputs") != fit_inputs(data_crcs()):
        return None
    k = doc["constants"]
    return Constants(
        float(k["net_efficiency"]),
        float(k["message_overhead_bytes"]),
        CpuCosts(**k["cpu"]),
        tuple(k.get("bounds", ())),
        net_by_class={str(c): float(v) for c, v in k.get("net_by_class", {}).items()},
        net_write_by_class={str(c): float(v) for c, v in k.get("net_write_by_class", {}).items()},
        osd_max_cores=k.get("osd_max_cores"),
        node_op_ceiling=k.get("node_op_ceiling"),
        rgw_put_round_trips=float(k.get("rgw_put_round_trips", 1.0)),
        ranges={str(c): (float(v[0]), float(v[1])) for c, v in k.get("ranges", {}).items()},
    )


def fitted_document() -> str:
    """fitted.json for the data in use: the fit and the CRCs of its inputs."""
    doc = {"constants": asdict(fitted_constants()), "inputs": fit_inputs(data_crcs())}
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def main() -> int:
    """`python -m flashtune.envelope.fitted`: store the shipped data's fit (data/envelope/fitted.json)."""
    with open(SOURCE_DATA / FITTED, "w", encoding="utf-8") as f:
        f.write(fitted_document())
    print(f"wrote data/{FITTED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

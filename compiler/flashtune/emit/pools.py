"""pools.sh emitter: the `ceph` commands that create the erasure-code profile and the workload's pools on a
running cluster.

ceph.conf's osd_pool_default_erasure_code_profile only seeds the default profile when a cluster is created,
so an existing cluster needs the profile created by command, and pools name it when they are created.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flashtune.emit.common import header, shell_quote
from flashtune.model import Bundle

FASTEC_TRACKER = "https://tracker.ceph.com/issues/74813"


def commands(bundle: Bundle) -> list[str]:
    """The commands, in order (one per line, no comments): profile first, then each pool."""
    out: list[str] = []
    ec = bundle.shape.get("ec")
    if ec is not None:
        out.append(ec.value.set_command())
    for p in bundle.shape.get("pools", []):
        name = shell_quote(p["name"])
        if p["type"] == "erasure":
            out.append(f"ceph osd pool create {name} {p['pg_num']} {p['pg_num']} erasure {p['profile']}")
            if p.get("ec_overwrites"):
                out.append(f"ceph osd pool set {name} allow_ec_overwrites true")
            if p.get("ec_optimizations"):
                # Opt-in, left commented: 20.2.0 OSDs crash with it (see FASTEC_TRACKER) and flashtune cannot
                # tell which point release the cluster runs; a pool flag cannot be cleared once set.
                out.append(f"# ceph osd pool set {name} allow_ec_optimizations true")
        else:
            out.append(f"ceph osd pool create {name} {p['pg_num']} {p['pg_num']} replicated")
            out.append(f"ceph osd pool set {name} size {p['size']}")
        # The autoscaler (on by default) sizes a pool by the data it holds: an empty pool created with
        # pg_num N would be shrunk to its minimum. The pool's share of the cluster as target_size_ratio
        # makes the autoscaler's own target the pg_num above (same formula: mon_target_pg_per_osd).
        out.append(f"ceph osd pool set {name} target_size_ratio {p['share']:g}")
        for key, field in (
            ("pg_autoscale_bias", "autoscale_bias"),
            ("recovery_priority", "recovery_priority"),
        ):
            if (
                p.get(field) is not None
            ):  # what RGW and `ceph fs new` give such pools (data/layout/layout.yaml)
                out.append(f"ceph osd pool set {name} {key} {p[field]:g}")
        if p["application"] == "rbd" and p["type"] == "replicated":
            out.append(f"rbd pool init {name}")
        else:
            out.append(f"ceph osd pool application enable {name} {p['application']}")
    return out


def emit(bundle: Bundle, inputs: Mapping[str, Any]) -> str:
    lead = header("#", inputs)
    out = [
        "#!/bin/sh\n",
        lead,
        "# Run once on a host with the client.admin keyring. `pool create` leaves an existing pool as it\n",
        "# is; `erasure-code-profile set` fails rather than change an existing profile of the same name.\n",
        "# ceph.conf's osd_pool_default_erasure_code_profile only seeds the default profile of a NEW\n",
        "# cluster: on a running cluster the profile below must be created by command.\n",
        "# target_size_ratio is each pool's share of the data: it makes the PG autoscaler (on by default) aim\n",
        "# at the pg_num given here; without it the autoscaler shrinks an empty pool to its minimum.\n",
        "set -eu\n",
    ]
    pools = bundle.shape.get("pools", [])
    if any(p.get("ec_optimizations") for p in pools):
        out.append(
            "# allow_ec_optimizations switches a pool to Tentacle's new EC code (FastEC: partial reads and\n"
            f"# writes). OSDs of 20.2.0 crash with it ({FASTEC_TRACKER}), so its line is left commented:\n"
            "# uncomment it once your point release has the fix.\n"
        )
    out.extend(f"{line}\n" for line in commands(bundle))
    apps = {p["application"] for p in pools}
    data = [p for p in pools if p["type"] == "erasure"]
    if "rbd" in apps and data:
        out.append(
            f"# RBD images keep their headers in the replicated pool and data in the EC pool:\n"
            f"#   rbd create --size 100G --data-pool {data[0]['name']} rbd/IMAGE\n"
        )
    if "cephfs" in apps:
        meta = next(p["name"] for p in pools if p["type"] == "replicated" and not p.get("data"))
        default = next(p["name"] for p in pools if p["type"] == "replicated" and p.get("data"))
        out.append(f"# CephFS: ceph fs new scratch {meta} {default}\n")
        out.append("#   then its MDS daemons, e.g. with cephadm: ceph orch apply mds scratch --placement=2\n")
        if data:
            out.append(
                f"#   ceph fs add_data_pool scratch {data[0]['name']}\n"
                f"#   setfattr -n ceph.dir.layout.pool -v {data[0]['name']} /mnt/scratch/DIR\n"
            )
    return "".join(out)

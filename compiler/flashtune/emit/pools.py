"""pools.sh emitter: the `ceph` commands that create the erasure-code profile and the workload's pools on a
running cluster.

ceph.conf's osd_pool_default_erasure_code_profile only seeds the default profile when a cluster is created,
so an existing cluster needs the profile created by command, and pools name it when they are created.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from flashtune.emit.common import header
from flashtune.model import Bundle

FASTEC_TRACKER = "https://tracker.ceph.com/issues/74813"


def commands(bundle: Bundle) -> list[str]:
    """The commands, in order (one per line, no comments): profile first, then each pool, then what makes the
    pools a working file system or block store (data/layout/layout.yaml `filesystem`)."""
    out: list[str] = []
    ec = bundle.shape.get("ec")
    if ec is not None:
        out.append(ec.value.set_command())
    # flash OSDs beside HDDs: one replicated rule per device class (create-replicated answers success when the
    # rule exists with the same definition)
    for rule, cls in (bundle.shape.get("crush_rules") or {}).items():
        out.append(
            f"ceph osd crush rule create-replicated {shlex.quote(rule)} default host {shlex.quote(cls)}"
        )
    pools = bundle.shape.get("pools", [])
    for p in pools:
        name = shlex.quote(p["name"])
        if p["type"] == "erasure":
            out.append(f"ceph osd pool create {name} {p['pg_num']} {p['pg_num']} erasure {p['profile']}")
            if p.get("ec_overwrites"):
                out.append(f"ceph osd pool set {name} allow_ec_overwrites true")
            if p.get("ec_optimizations_on"):  # the hardware file's cluster.ec_optimizations: true
                out.append(f"ceph osd pool set {name} allow_ec_optimizations true")
            elif p.get("ec_optimizations"):
                # Opt-in, left commented: 20.2.0 OSDs crash with it (see FASTEC_TRACKER) and flashtune cannot
                # tell which point release the cluster runs; a pool flag cannot be cleared once set.
                out.append(f"# ceph osd pool set {name} allow_ec_optimizations true")
        else:
            out.append(f"ceph osd pool create {name} {p['pg_num']} {p['pg_num']} replicated")
            out.append(f"ceph osd pool set {name} size {p['size']}")
            if p.get("crush_rule"):  # moves the pool's PGs when it existed under another rule
                out.append(f"ceph osd pool set {name} crush_rule {shlex.quote(p['crush_rule'])}")
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
        elif p["application"] != "cephfs":  # `ceph fs new` / add_data_pool tag the CephFS pools themselves
            out.append(f"ceph osd pool application enable {name} {p['application']}")
    for p in pools:  # RBD: images put their data in the EC pool without --data-pool
        if p["application"] == "rbd" and p.get("ec_data_pool"):
            out.append(
                f"rbd config pool set {shlex.quote(p['name'])} rbd_default_data_pool {shlex.quote(p['ec_data_pool'])}"
            )
    rule = bundle.shape.get("mgr_rule")
    for name in bundle.shape.get("flash_pools") or []:  # pools the daemons make (run pools.sh again after)
        out.append(
            f"if ceph osd pool ls | grep -qx {shlex.quote(name)}; then "
            f"ceph osd pool set {shlex.quote(name)} crush_rule {shlex.quote(str(rule))}; fi"
        )
    out.extend(_cephfs(pools))
    return out


def _cephfs(pools: list[dict[str, Any]]) -> list[str]:
    """The scratch file system: `ceph fs new` (succeeds again when the file system exists with these pools), its
    MDS daemons and active ranks (max_mds), and where a subvolume is needed (the EC pool's layout, or a folder
    to pin across several ranks) the subvolume clients mount."""
    cephfs = [p for p in pools if p["application"] == "cephfs"]
    if not cephfs:
        return []
    fs = str(cephfs[0]["filesystem"])
    name = shlex.quote(fs)
    meta = next(p["name"] for p in cephfs if p["type"] == "replicated" and not p.get("data"))
    default = next(p["name"] for p in cephfs if p["type"] == "replicated" and p.get("data"))
    daemons, ranks = int(cephfs[0].get("mds_daemons", 2)), int(cephfs[0].get("max_mds", 1))
    out = [
        f"ceph fs new {name} {shlex.quote(meta)} {shlex.quote(default)}",
        # cephadm deploys the MDS daemons itself; elsewhere they must be started
        f"if ceph orch status 2>/dev/null | grep -q cephadm; then ceph orch apply mds {name} --placement={daemons}; fi",
    ]
    if ranks > 1:  # each rank is taken by a standby daemon; the one left over stays standby
        out.append(f"ceph fs set {name} max_mds {ranks}")
    ec = next((p for p in cephfs if p["type"] == "erasure"), None)
    sub_pool = next((p for p in cephfs if p.get("subvolume")), None)
    if sub_pool is None:
        return out
    sub = shlex.quote(str(sub_pool["subvolume"]))
    if ec is not None:
        out.append(f"ceph fs add_data_pool {name} {shlex.quote(str(ec['name']))}")
    out.append(
        # the manager mounts the file system to make a subvolume: that needs an active MDS
        f"i=0; until ceph fs get {name} --format json | grep -q up:active; do i=$((i + 1)); "
        f'if [ "$i" -gt 60 ]; then echo "pools.sh: file system {fs} has no active MDS after 5 minutes: '
        f'start its MDS daemons, then run pools.sh again" >&2; exit 1; fi; sleep 5; done'
    )
    if ec is not None:
        ec_pool = str(ec["name"])
        out += [
            f"ceph fs subvolume create {name} {sub} --pool_layout {shlex.quote(ec_pool)}",
            f'echo "mount this path (files land in {ec_pool}): $(ceph fs subvolume getpath {name} {sub})"',
        ]
    else:
        out += [
            f"ceph fs subvolume create {name} {sub}",
            f'echo "mount this path: $(ceph fs subvolume getpath {name} {sub})"',
        ]
    if ranks > 1:
        out.append(
            f'echo "then, once on one client with it mounted at /mnt/scratch: setfattr -n ceph.dir.pin.distributed '
            f'-v 1 /mnt/scratch (spreads the folders directly under it over the {ranks} active MDS ranks)"'
        )
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
    if any(p.get("ec_optimizations_on") for p in pools):
        out.append(
            "# allow_ec_optimizations (the hardware file's cluster.ec_optimizations) switches the EC pool to\n"
            f"# Tentacle's new EC code (FastEC). OSDs of 20.2.0 crash with it ({FASTEC_TRACKER}): run\n"
            "# this only on a point release with the fix. The profile's stripe_unit=16384 is upstream's for it.\n"
        )
    elif any(p.get("ec_optimizations") for p in pools):
        out.append(
            "# allow_ec_optimizations switches a pool to Tentacle's new EC code (FastEC: partial and parity-delta\n"
            "# writes, reads of just the bytes asked; without it Tentacle already reads only the shards a small\n"
            f"# read touches). OSDs of 20.2.0 crash with it ({FASTEC_TRACKER}), so its line is left commented.\n"
            "# To use it, recompile with cluster.ec_optimizations: true in the hardware file before the first\n"
            "# run: the profile then gets the 16 KiB stripe_unit made for it (fixed once a pool uses it).\n"
        )
    out.extend(f"{line}\n" for line in commands(bundle))
    if any(p["application"] == "cephfs" for p in pools):
        out.append(
            "# CephFS needs MDS daemons: on cephadm the script applies them (ceph orch apply mds); elsewhere start them.\n"
            "# Mount with: mount -t ceph :/PATH /mnt/scratch -o fs=NAME,name=USER (the path printed above, or /\n"
            "# without erasure coding); a directory elsewhere in the file system can name the EC pool itself:\n"
            "#   setfattr -n ceph.dir.layout.pool -v POOL /mnt/scratch/DIR\n"
        )
    return "".join(out)

"""Rook CephCluster snippet: cephConfig (the config database, with masks), OSD resources from the memory
budget, storage settings; plus the rook-config-override ConfigMap for keys that only work from ceph.conf.

Field names and types follow the CephCluster CRD (rook/rook deploy/examples/crds.yaml, checked in tests).
Rook applies `cephConfig` with `ceph config set WHO KEY VALUE` (pkg/operator/ceph/config/monstore.go), so a
who may carry a mask. osd_memory_target is not put there: Rook passes the OSD pod's memory request to Ceph
(POD_MEMORY_REQUEST), which sets osd_memory_target above the config database; resources carry it instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from flashtune.emit.cbt import dump
from flashtune.emit.cephcentral import ordered
from flashtune.emit.common import header
from flashtune.model import CentralConfig, LocalValue
from flashtune.placement import companion_keys, placement

NAME = "rook/cephcluster.yaml"
MEMORY_KEY = "osd_memory_target"


def quantity(nbytes: int) -> str:
    """A Kubernetes memory quantity: exact binary units where they divide, else bytes."""
    for unit, size in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if nbytes % size == 0:
            return f"{nbytes // size}{unit}"
    return str(nbytes)


def osd_resources(memory_target: int) -> dict[str, Any]:
    ratio = float(placement().rook["memory_limit_ratio"])
    limit = -(-int(memory_target / ratio) // (1 << 20)) * (1 << 20)  # round up to MiB
    return {"requests": {"memory": quantity(memory_target)}, "limits": {"memory": quantity(limit)}}


def cluster(
    config: CentralConfig,
    *,
    release: str,
    osd_memory: Mapping[str, int],
    osds_per_device: int,
    encrypted: bool = False,
    nodes: Mapping[str, tuple[int, str, int]] | None = None,
    metadata_device: str | None = None,
    metadata_hosts: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """osd_memory: CRUSH device class -> osd_memory_target bytes (one entry per class in a fleet).
    nodes: host -> (OSDs per device, device class, osd_memory_target), for fleets whose hosts differ.
    metadata_device: the device name Rook puts every OSD's block.db on (nodes with DB devices); without it
    `useAllDevices` would turn the DB device into one more OSD of the data devices' class. In a fleet,
    metadata_hosts are the hosts that have one (each gets it in its nodes[] entry unless all do)."""
    facts = placement()
    skip = {MEMORY_KEY, *companion_keys()}  # Rook has no cephadm autotuner to switch off
    ceph_config: dict[str, dict[str, str]] = {}
    for v in ordered(config.values):
        if v.key in skip:
            continue
        ceph_config.setdefault(v.target, {})[v.key] = v.value
    spec: dict[str, Any] = {
        "cephVersion": {"image": facts.ceph_images[release]},
        "dataDirHostPath": facts.rook["data_dir_host_path"],
        "cephConfig": ceph_config,
        "resources": {f"osd-{cls}": osd_resources(m) for cls, m in sorted(osd_memory.items())},
        "storage": {
            "useAllNodes": True,
            "useAllDevices": True,
            "config": {"osdsPerDevice": str(osds_per_device), "encryptedDevice": str(encrypted).lower()},
        },
    }
    if len(osd_memory) == 1:
        spec["storage"]["config"]["deviceClass"] = next(iter(osd_memory))
    if metadata_device:
        spec["storage"]["config"]["metadataDevice"] = metadata_device
    hosts = nodes or {}
    if metadata_hosts and set(metadata_hosts) == set(hosts):
        spec["storage"]["config"]["metadataDevice"] = facts.rook["metadata_device"]
    some_meta = bool(metadata_hosts) and set(metadata_hosts) != set(hosts)
    differ = len({(per, cls) for per, cls, _ in hosts.values()}) > 1 or some_meta
    if differ or any(mem != osd_memory.get(cls) for _, cls, mem in hosts.values()):
        # hosts differ: storage.config per node (Rook's nodes[] entries override the cluster-wide config), and
        # the OSD memory of a host whose target differs from its class's as that node's resources
        spec["storage"]["useAllNodes"] = False
        spec["storage"]["config"] = {"encryptedDevice": str(encrypted).lower()}
        spec["storage"]["nodes"] = []
        for h, (per, cls, mem) in hosts.items():
            node: dict[str, Any] = {"name": h, "config": {"osdsPerDevice": str(per), "deviceClass": cls}}
            if h in metadata_hosts:
                node["config"]["metadataDevice"] = facts.rook["metadata_device"]
            if mem != osd_memory.get(cls):
                node["resources"] = osd_resources(mem)
            spec["storage"]["nodes"].append(node)
    return {
        "apiVersion": "ceph.rook.io/v1",
        "kind": "CephCluster",
        "metadata": {"name": facts.rook["name"], "namespace": facts.rook["namespace"]},
        "spec": spec,
    }


def override_configmap(local: Iterable[LocalValue]) -> dict[str, Any] | None:
    sections: dict[str, list[LocalValue]] = {}
    for loc in local:
        sections.setdefault(loc.section, []).append(loc)
    if not sections:
        return None
    text = "".join(
        f"[{s}]\n" + "".join(f"{x.key} = {x.value}\n" for x in items) for s, items in sections.items()
    )
    facts = placement()
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "rook-config-override", "namespace": facts.rook["namespace"]},
        "data": {"config": text},
    }


def emit(docs: Iterable[Mapping[str, Any]], inputs: Mapping[str, Any]) -> str:
    docs = list(docs)
    out = [
        header("#", inputs),
        "# Rook: merge into your CephCluster (kubectl apply --dry-run=server -f first). OSD memory is in\n",
        "# resources (the request becomes osd_memory_target); everything else is cephConfig.\n",
    ]
    meta = docs[0]["spec"]["storage"]["config"].get("metadataDevice") if docs else None
    if meta:
        out.append(
            f"# storage.config.metadataDevice {meta} is a placeholder: name your nodes' DB device (lsblk); Rook\n"
            "# puts every OSD's block.db on it (ceph-volume lvm batch --db-devices) instead of making it an OSD.\n"
        )
    for i, doc in enumerate(docs):
        out.append("---\n" if i else "")
        out.append(dump(doc))
    return "".join(out)


POOLS_NAME = "rook/pools.yaml"
# CR names are Kubernetes object names (lowercase letters, digits, '-', '.'): pools.sh's rbd_data becomes rbd-data
_NOT_IN_NAME = re.compile(r"[^a-z0-9.-]+")


def _cr_name(pool: str) -> str:
    return _NOT_IN_NAME.sub("-", pool.lower()).strip("-.") or "pool"


def pool_spec(pool: Mapping[str, Any], ec: Any, failure_domain: str = "host") -> dict[str, Any]:
    """One pool as Rook's PoolSpec: protection, failure domain, device class and the autoscaler hints."""
    spec: dict[str, Any] = {"failureDomain": failure_domain}
    if pool["type"] == "erasure":
        spec["erasureCoded"] = {"dataChunks": ec.k, "codingChunks": ec.m}
    else:
        spec["replicated"] = {"size": pool["size"]}
    if pool.get("device_class"):
        spec["deviceClass"] = pool["device_class"]
    params = {"target_size_ratio": f"{pool['share']:g}"}
    if pool.get("autoscale_bias") is not None:
        params["pg_autoscale_bias"] = f"{pool['autoscale_bias']:g}"
    spec["parameters"] = params
    return spec


def pool_docs(
    pools: Sequence[Mapping[str, Any]], ec: Any, *, namespace: str, flash: str | None, mgr_pool: str | None
) -> list[dict[str, Any]]:
    """The workload's pools as Rook CRs: CephBlockPool (RBD; with EC a replicated pool and an EC pool),
    CephFilesystem (scratch: metadata pool, replicated default data pool, EC data pool) or CephObjectStore
    (rgw: metadataPool holds the index and RGW's other small pools, dataPool the objects)."""

    def cr(kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
        return {
            "apiVersion": "ceph.rook.io/v1",
            "kind": kind,
            "metadata": {"name": name, "namespace": namespace},
            "spec": spec,
        }

    docs: list[dict[str, Any]] = []
    apps = {p["application"] for p in pools}
    if "rbd" in apps:
        for p in pools:
            docs.append(cr("CephBlockPool", _cr_name(p["name"]), {**pool_spec(p, ec), "application": "rbd"}))
    if "cephfs" in apps:
        fs = next(str(p["filesystem"]) for p in pools if p.get("filesystem"))
        meta = next(p for p in pools if p.get("metadata"))
        data = [p for p in pools if not p.get("metadata")]
        docs.append(
            cr(
                "CephFilesystem",
                _cr_name(fs),
                {
                    "metadataPool": pool_spec(meta, ec),
                    # the first data pool is the default one (backtraces; replicated); files go to the EC pool
                    # through a layout (a subvolume group with --pool_layout, or CSI's `pool` parameter)
                    "dataPools": [{"name": _cr_name(p["name"]), **pool_spec(p, ec)} for p in data],
                    "preserveFilesystemOnDelete": True,
                    "metadataServer": {"activeCount": 1, "activeStandby": True},
                },
            )
        )
    if "rgw" in apps:
        meta = next(p for p in pools if p.get("metadata"))
        objects = next(p for p in pools if not p.get("metadata"))
        docs.append(
            cr(
                "CephObjectStore",
                "flashtune",
                {
                    "metadataPool": pool_spec(meta, ec),
                    "dataPool": pool_spec(objects, ec),
                    "preservePoolsOnDelete": True,
                    "gateway": {"port": 80, "instances": 1},
                },
            )
        )
    if flash and mgr_pool:  # the manager's own pool on the flash class too (Rook's built-in pool CR)
        docs.append(
            cr(
                "CephBlockPool",
                "builtin-mgr",
                {"name": ".mgr", "failureDomain": "host", "replicated": {"size": 3}, "deviceClass": flash},
            )
        )
    return docs


def emit_pools(docs: Iterable[Mapping[str, Any]], inputs: Mapping[str, Any]) -> str:
    out = [
        header("#", inputs),
        "# Rook: the workload's pools as CRs (kubectl apply --dry-run=server -f first), the same pools, shares and\n",
        "# device classes as pools.sh. Rook names each pool after its CR (rbd_data -> rbd-data; a CephFilesystem's\n",
        "# pools are <fs>-metadata and <fs>-<dataPools[].name>; a CephObjectStore's <store>.rgw.*), sets\n",
        "# allow_ec_overwrites on EC block and file data pools itself, and creates the gateways and MDS daemons.\n",
    ]
    for i, doc in enumerate(docs):
        out.append("---\n" if i else "")
        out.append(dump(doc))
    return "".join(out)

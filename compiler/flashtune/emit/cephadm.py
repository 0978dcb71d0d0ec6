"""cephadm OSD service spec (`ceph orch apply -i osd-spec.yaml`): which devices become OSDs and how.

Field names follow cephadm's DriveGroupSpec (ceph/ceph src/python-common/ceph/deployment/drive_group.py):
data_devices/db_devices are device filters (rotational, size 'LOW:HIGH' in decimal GB/TB), osds_per_device,
encrypted, crush_device_class (set so `osd/class:<class>` masks in the config database reach these OSDs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from flashtune.emit.cbt import dump
from flashtune.emit.common import header
from flashtune.model import DeviceGroup, Hardware
from flashtune.placement import placement

NAME = "cephadm/osd-spec.yaml"
# cephadm refuses a service_id with any other character (ServiceSpec.validate, ceph/ceph
# src/python-common/ceph/deployment/service_spec.py: `^[a-zA-Z0-9_.-]+$`).
_NOT_IN_ID = re.compile(r"[^a-zA-Z0-9_.-]+")


def service_id(label: str) -> str:
    """`flashtune-<label>` with what cephadm does not allow in a service_id turned into '-' (a hardware
    file's free-text name, "Dell R740xd (rack 4)", becomes flashtune-Dell-R740xd-rack-4)."""
    plain = _NOT_IN_ID.sub("-", label).strip("-")
    return f"flashtune-{plain}" if plain else "flashtune"


def _size_window(groups: Sequence[DeviceGroup]) -> str:
    """A size filter that takes these devices and not the others of the same rotational kind (+-10 %)."""
    low = min(g.size_gb for g in groups)
    high = max(g.size_gb for g in groups)
    return f"{int(low * 0.9)}GB:{int(high * 1.1) + 1}GB"


def _filter(groups: Sequence[DeviceGroup], others: Sequence[DeviceGroup]) -> dict[str, Any]:
    rotational = groups[0].type == "hdd"
    f: dict[str, Any] = {"rotational": 1 if rotational else 0}
    # same rotational kind on both sides (SATA SSD data + NVMe DB): tell them apart by size
    if any((o.type == "hdd") == rotational for o in others):
        f["size"] = _size_window(groups)
    return f


def spec(
    hw: Hardware,
    osds_per_device: int,
    *,
    service_id: str,
    hosts: Sequence[str] = (),
    encrypted: bool = False,
    device_type: str | None = None,
) -> dict[str, Any]:
    """One OSD service spec for one kind of host (a fleet emits one per host group); device_type: the spec
    for another type of data device on the same hosts (flash beside HDDs), without DB devices."""
    kind = device_type or hw.data_type
    data = [g for g in hw.data_devices if g.type == kind]
    others = [g for g in hw.data_devices if g.type != kind] + list(hw.db_devices)
    doc: dict[str, Any] = {
        "service_type": "osd",
        "service_id": service_id,
        "placement": {"hosts": list(hosts)} if hosts else {"host_pattern": "*"},
        "spec": {"data_devices": _filter(data, others)},
    }
    s = doc["spec"]
    if hw.db_devices and not device_type:
        s["db_devices"] = _filter(hw.db_devices, list(hw.data_devices))
    s["osds_per_device"] = osds_per_device
    s["encrypted"] = encrypted
    s["crush_device_class"] = placement().device_class[kind]
    s["objectstore"] = "bluestore"
    return doc


def emit(specs: Sequence[Mapping[str, Any]], inputs: Mapping[str, Any]) -> str:
    out = [
        header("#", inputs),
        "# cephadm OSD service spec(s): review, then `ceph orch apply -i osd-spec.yaml --dry-run`.\n",
    ]
    for i, doc in enumerate(specs):
        out.append("---\n" if i else "")
        out.append(dump(doc))
    return "".join(out)

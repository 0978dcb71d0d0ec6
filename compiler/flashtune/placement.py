"""Where compiled settings and daemons go on a running cluster: the facts of data/deploy.yaml (which Ceph option
flags keep a key in the local ceph.conf, the `who` a [client] key narrows to, the CRUSH class of each device
type, container images and Rook defaults). Read by the central-config split and by the deployment emitters.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from flashtune.errors import DataError
from flashtune.paths import data_path
from flashtune.yamlio import load_yaml


@dataclass(frozen=True)
class Placement:
    """Where compiled Ceph keys go (config database or local ceph.conf) and the deployment facts that decide it."""

    local_flags: dict[str, str]  # flag -> why a key with it stays in ceph.conf
    central_notes: dict[str, str]  # flag -> note for a key that goes to the config database with it
    narrow_client_to: dict[str, str]  # catalog location section -> who
    device_class: dict[str, str]  # flashtune device type -> CRUSH device class
    ceph_images: dict[str, str]  # Ceph release -> container image (Rook)
    rook: dict[str, Any]  # CephCluster name, namespace, dataDirHostPath, memory limit ratio
    # compiled key -> the (who, key, value, why) the config-database outputs add beside it
    central_companions: dict[str, tuple[tuple[str, str, str, str], ...]]


def _companions(rows: list[dict[str, Any]]) -> dict[str, tuple[tuple[str, str, str, str], ...]]:
    out: dict[str, list[tuple[str, str, str, str]]] = {}
    for r in rows:
        out.setdefault(str(r["when"]), []).append(
            (str(r["who"]), str(r["key"]), str(r["value"]), str(r["why"]))
        )
    return {k: tuple(v) for k, v in out.items()}


@lru_cache(maxsize=1)
def placement() -> Placement:
    path = data_path("deploy.yaml")
    doc = load_yaml(path)
    try:
        return Placement(
            local_flags={str(k): str(v["why"]) for k, v in doc["local_flags"].items()},
            central_notes={str(k): str(v["why"]) for k, v in doc["central_notes"].items()},
            narrow_client_to={str(k): str(v) for k, v in doc["narrow_client_to"].items()},
            device_class={str(k): str(v) for k, v in doc["device_class"].items()},
            ceph_images={str(k): str(v) for k, v in doc["ceph_images"].items()},
            rook=dict(doc["rook"]),
            central_companions=_companions(doc.get("central_companions") or []),
        )
    except (KeyError, TypeError, AttributeError) as e:
        raise DataError(
            f"malformed placement rules ({e})",
            file=str(path),
            line=1,
            suggestion="compare with data/deploy.schema.json",
        ) from None


def companion_keys() -> set[str]:
    """Keys only the config-database outputs carry beside a compiled key (not ceph.conf, not Rook)."""
    return {extra for rows in placement().central_companions.values() for _, extra, _, _ in rows}

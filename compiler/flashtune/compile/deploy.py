"""The deployment outputs of one compile: central config (script, assimilate-conf input, minimal ceph.conf),
the cephadm OSD service spec and the Rook CephCluster snippet, all from the same Settings as ceph.conf.
Registered as rows of the output-format table (flashtune.compile.formats)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flashtune.compile import central
from flashtune.emit import cephadm, cephcentral, rook
from flashtune.model import Bundle, CentralConfig, Setting
from flashtune.placement import placement


def osds_per_data_device(bundle: Bundle) -> int:
    """OSDs per data device as the compile's node layout decided it."""
    return int(bundle.shape["osds_per_device"])


def _encrypted(bundle: Bundle) -> bool:
    return bool(getattr(bundle.request, "encrypted", False))


def central_config(bundle: Bundle) -> CentralConfig:
    """The compile's ceph.conf settings split into config-database values and local keys, once per compile:
    the config-database files, the Rook cluster and explain.md all show it."""
    if bundle.central is None:
        bundle.central = central.split(s for s in bundle.settings if s.file == "ceph.conf")
    return bundle.central


def central_files(bundle: Bundle, _settings: Sequence[Setting], inputs: Mapping[str, Any]) -> dict[str, str]:
    cfg = central_config(bundle)
    return {
        cephcentral.SCRIPT_NAME: cephcentral.emit_script(cfg, inputs),
        cephcentral.ASSIMILATE_NAME: cephcentral.emit_assimilate(cfg, inputs),
        cephcentral.MINIMAL_NAME: cephcentral.emit_minimal(cfg.local, inputs),
    }


def cephadm_spec(bundle: Bundle, _settings: Sequence[Setting], inputs: Mapping[str, Any]) -> str:
    hw = bundle.hardware
    label = bundle.request.tier if bundle.request.hardware_file is None else hw.name
    spec = cephadm.spec(
        hw,
        osds_per_data_device(bundle),
        service_id=cephadm.service_id(str(label)),
        encrypted=_encrypted(bundle),
    )
    specs = [spec]
    flash = hw.flash_beside_hdd
    if flash is not None:  # the flash data devices beside the HDDs: OSDs of their own class (metadata pools)
        specs.append(
            cephadm.spec(
                hw,
                osds_per_data_device(bundle),
                service_id=cephadm.service_id(f"{label}-{flash}"),
                encrypted=_encrypted(bundle),
                device_type=flash,
            )
        )
    return cephadm.emit(specs, inputs)


def rook_cluster(bundle: Bundle, _settings: Sequence[Setting], inputs: Mapping[str, Any]) -> str:
    cfg = central_config(bundle)
    cls = placement().device_class[bundle.hardware.data_type]
    memory = {cls: int(bundle.shape["osd_memory_target"])}
    flash = bundle.shape.get("flash_class")
    if flash:  # two classes: not forced to one (Ceph labels each OSD by its device), each with the target
        memory[str(flash)] = memory[cls]
    docs = [
        rook.cluster(
            cfg,
            release=bundle.request.ceph_release,
            osd_memory=memory,
            osds_per_device=osds_per_data_device(bundle),
            encrypted=_encrypted(bundle),
            metadata_device=placement().rook["metadata_device"] if bundle.hardware.db_devices else None,
        )
    ]
    cm = rook.override_configmap(cfg.local)
    if cm:
        docs.append(cm)
    return rook.emit(docs, inputs)


def rook_pools(bundle: Bundle, _settings: Sequence[Setting], inputs: Mapping[str, Any]) -> str:
    ec = bundle.shape.get("ec")
    docs = rook.pool_docs(
        bundle.shape.get("pools") or [],
        ec.value if ec is not None else None,
        namespace=placement().rook["namespace"],
        flash=bundle.shape.get("flash_class"),
        mgr_pool=(bundle.shape.get("flash_pools") or [None])[0],
    )
    return rook.emit_pools(docs, inputs)


def explain(bundle: Bundle) -> str:
    """The explain.md section on where each ceph.conf key goes (nothing for the legacy Jewel mode)."""
    if bundle.legacy:
        return ""
    return cephcentral.explain_section(central_config(bundle))

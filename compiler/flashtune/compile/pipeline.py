"""The compile pipeline: inputs -> layered profile -> Settings -> emitted files."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashtune.catalog import load_catalog
from flashtune.compile.hardware import Hardware, load_hardware, load_tier
from flashtune.compile.profiles import merge, resolve
from flashtune.emit import cbt, cephconf, mycnf, sysctl
from flashtune.releases import DEFAULT_CEPH_RELEASE, DEFAULT_MYSQL_FLAVOUR
from flashtune.settings import Setting

WORKLOADS = ("block", "rgw", "mysql", "scratch")
EMITTERS = {
    "ceph.conf": cephconf.emit,
    "sysctl.conf": sysctl.emit,
    "my.cnf": mycnf.emit,
    "cbt.yaml": cbt.emit,
}


@dataclass(frozen=True)
class CompileRequest:
    workload: str
    tier: str | None = "iops"
    hardware_file: Path | None = None
    ceph_release: str = DEFAULT_CEPH_RELEASE
    mysql_flavour: str = DEFAULT_MYSQL_FLAVOUR
    allow_unsafe: frozenset[str] = frozenset()

    def echo(self) -> dict[str, Any]:
        return {"tier": self.tier if self.hardware_file is None else None, "hardware": self.hardware_file,
                "workload": self.workload, "ceph_release": self.ceph_release,
                "mysql_flavour": self.mysql_flavour}  # fmt: skip


@dataclass
class Bundle:
    request: CompileRequest
    hardware: Hardware
    settings: list[Setting]
    files: dict[str, str] = field(default_factory=dict)


def compile_bundle(req: CompileRequest) -> Bundle:
    hw = load_hardware(req.hardware_file) if req.hardware_file else load_tier(req.tier or "iops")
    catalog = load_catalog()
    chain = resolve(f"workload-{req.workload}")
    settings = []
    for (file, section, key), (value, layer) in merge(chain).items():
        knob = catalog.get(key)
        settings.append(Setting(file=file, section=section, key=key, value=value, rule=f"profile:{layer}",
                                rationale=knob.rationale if knob else ""))  # fmt: skip
    bundle = Bundle(request=req, hardware=hw, settings=settings)
    inputs = {k: v for k, v in req.echo().items() if v is not None}
    for file, emit in EMITTERS.items():
        if file == "my.cnf" and req.workload != "mysql":
            continue
        bundle.files[file] = emit([s for s in settings if s.file == file], inputs)
    return bundle

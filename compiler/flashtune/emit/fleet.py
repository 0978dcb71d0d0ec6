"""Fleet outputs: one central-config plan for all host groups, one cephadm OSD spec per group, one Rook
snippet, and the OS drop-ins per host group laid out as the files they become on a host (fleet/<group>/etc/...)
with an Ansible-style inventory naming each group's hosts, so configuration management can copy them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from flashtune.emit import cephadm, cephcentral, rook
from flashtune.emit.common import header
from flashtune.model import Fleet
from flashtune.placement import placement

# compile output -> where it goes on a host of the group
OS_FILES = {
    "sysctl.conf": "etc/sysctl.d/90-flashtune.conf",
    "tuned/flashtune/tuned.conf": "etc/tuned/flashtune/tuned.conf",
    "udev/60-flashtune-blockdev.rules": "etc/udev/rules.d/60-flashtune-blockdev.rules",
}


def _inventory(fleet: Fleet, inputs: Mapping[str, Any]) -> str:
    out = [
        header("#", inputs),
        "# One group per kind of hardware. Copy fleet/<group>/etc/ onto every host of the group, then:\n",
        "#   sysctl --system; tuned-adm profile flashtune; udevadm control --reload && udevadm trigger\n",
    ]
    for g in fleet.groups:
        out.append(f"\n[{g.name}]\n")
        out.extend(f"{h}\n" for h in g.hosts)
    return "".join(out)


def _explain(fleet: Fleet, inputs: Mapping[str, Any]) -> str:
    out = [
        f"<!-- inputs: {', '.join(f'{k}={v}' for k, v in inputs.items())} -->\n\n",
        f"# Fleet plan: {len(fleet.groups)} host groups, {fleet.hosts} hosts\n\n",
        "| group | hardware | data devices | CRUSH class | hosts |\n|---|---|---|---|---|\n",
    ]
    for g in fleet.groups:
        hw = fleet.bundles[g.name].hardware
        shown = ", ".join(g.hosts[:3]) + (f", ... ({len(g.hosts)})" if len(g.hosts) > 3 else "")
        out.append(
            f"| {g.name} | {g.tier or g.hardware_file} | {hw.data_type} | "
            f"{placement().device_class[hw.data_type]} | {shown} |\n"
        )
    out.append(
        "\n## Where each key is set\n\nShared: every host wants the same value (one unmasked entry). "
        "Class: hosts differ but agree per CRUSH device class (`osd/class:...`). Host: `who/host:...` "
        "entries for the hosts that differ from the value most hosts want. Clients: a `client` key the groups "
        "differ on gets the value most hosts want and no masks (librbd clients run on hosts of their own).\n\n"
        "| who | key | scope | entries | value per group |\n|---|---|---|---|---|\n"
    )
    for d in fleet.decisions:
        vals = "; ".join(f"{g}: {v if v is not None else '(not set)'}" for g, v in d.values.items())
        out.append(f"| {d.who} | `{d.key}` | {d.scope} | {d.entries} | {vals} |\n")
    out.append(cephcentral.explain_section(fleet.config))
    out.append("\nEach group's own explain.md (why every value) is under fleet/<group>/explain.md.\n")
    return "".join(out)


def files(fleet: Fleet, inputs: Mapping[str, Any], *, encrypted: bool = False) -> dict[str, str]:
    cfg = fleet.config
    out = {
        cephcentral.SCRIPT_NAME: cephcentral.emit_script(cfg, inputs),
        cephcentral.ASSIMILATE_NAME: cephcentral.emit_assimilate(cfg, inputs),
        cephcentral.MINIMAL_NAME: cephcentral.emit_minimal(cfg.local, inputs),
    }
    specs = []
    memory: dict[str, int] = {}
    nodes: dict[str, tuple[int, str, int]] = {}
    meta: set[str] = set()  # hosts with a DB device (Rook's metadataDevice)
    for g in fleet.groups:
        b = fleet.bundles[g.name]
        if b.hardware.db_devices:
            meta.update(g.hosts)
        per = int(b.shape["osds_per_device"])
        cls = placement().device_class[b.hardware.data_type]
        target = int(b.shape["osd_memory_target"])
        nodes.update((h, (per, cls, target)) for h in g.hosts)
        specs.append(
            cephadm.spec(
                b.hardware, per, service_id=cephadm.service_id(g.name), hosts=g.hosts, encrypted=encrypted
            )
        )
        # the class's memory request is the most common target of its hosts; other hosts get their own (nodes[])
        memory.setdefault(cls, 0)
    for cls in memory:
        votes = Counter(t for _, c, t in nodes.values() if c == cls)
        memory[cls] = max(votes, key=lambda t: (votes[t], -t))
    out[cephadm.NAME] = cephadm.emit(specs, inputs)
    release = fleet.bundles[fleet.groups[0].name].request.ceph_release
    docs = [
        rook.cluster(
            cfg,
            release=release,
            osd_memory=memory,
            osds_per_device=min(p for p, _, _ in nodes.values()),
            encrypted=encrypted,
            nodes=nodes,
            metadata_hosts=frozenset(meta),
        )
    ]
    cm = rook.override_configmap(cfg.local)
    if cm:
        docs.append(cm)
    out[rook.NAME] = rook.emit(docs, inputs)
    out["fleet/inventory.ini"] = _inventory(fleet, inputs)
    for g in fleet.groups:
        b = fleet.bundles[g.name]
        for name, text in b.files.items():
            if name in OS_FILES:
                out[f"fleet/{g.name}/{OS_FILES[name]}"] = text
            elif name.startswith("systemd/"):
                out[f"fleet/{g.name}/{name}"] = text
        out[f"fleet/{g.name}/explain.md"] = b.files["explain.md"]
    out["explain.md"] = _explain(fleet, inputs)
    return out

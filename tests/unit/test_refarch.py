"""The compiler against published all-flash Ceph deployments (tests/fixtures/refarch/).

Each deployment's hardware file is compiled for the workload and Ceph release it ran; every setting it ran is
compared with what flashtune emits, key by key, and classified (agree / default / differ / not-emitted / gap,
see the manifest's header). The test fails on a compile that refuses a published machine, on a verdict that
no longer matches the recorded one, on a difference or omission without a reason, and on a node layout or
memory budget that contradicts what the source states. The rendered comparison table is kept in
notes/history/refarch.md; `python tests/unit/test_refarch.py` prints it, `--write` puts it there.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from flashtune.catalog import load_catalog
from flashtune.catalog.values import canon_value
from flashtune.compile import CompileRequest, compile_bundle
from flashtune.compile.layout import layout_data, memory_rules
from flashtune.compile.profiles import compose, merge
from flashtune.hardware import read_hardware
from flashtune.model import Bundle

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "refarch"
NOTES = ROOT / "notes" / "history" / "refarch.md"
GiB = 1 << 30
VERDICTS = ("agree", "default", "differ", "not-emitted", "gap")
FILES = ("ceph.conf", "sysctl.conf", "tuned.conf")  # compared with the emitted settings
LAYOUT_CHECKS = {
    "stated",
    "osds_per_node",
    "osds",
    "osds_per_device_ran",
    "osds_per_device_differs",
    "osd_memory_target_gib_min",
    "osd_memory_gib_max",
    "memory_per_nvme_gib_max",
    "rgw_daemons_per_node",
}
START, END = "<!-- refarch-table:start -->", "<!-- refarch-table:end -->"


@dataclass(frozen=True)
class Row:
    deployment: str
    file: str
    key: str
    theirs: Any
    ours: Any
    verdict: str
    reason: str


def manifest() -> list[dict[str, Any]]:
    doc = yaml.safe_load((CORPUS / "manifest.yaml").read_text())
    return list(doc["deployments"])


def ids() -> list[str]:
    return [d["id"] for d in manifest()]


def deployment(name: str) -> dict[str, Any]:
    return next(d for d in manifest() if d["id"] == name)


@cache
def bundle(name: str, osds_per_device: int | None = None) -> Bundle:
    """The deployment compiled as its manifest entry says (OSDs per device derived unless given)."""
    d = deployment(name)
    c = d["compile"]
    req = CompileRequest(
        workload=c["workload"],
        tier=None,
        hardware_file=CORPUS / d["hardware"],
        ceph_release=c["ceph_release"],
        encrypted=bool(c.get("encrypted", False)),
        osds_per_device=osds_per_device,
    )
    return compile_bundle(req)


def _canon(value: Any, key: str) -> str:
    knob = load_catalog().get(key, "ceph")
    return canon_value(value, knob.type if knob else None)


def _unsafe(b: Bundle) -> dict[str, str]:
    """Keys a profile layer of this compile offers only as an unsafe opt-in, with its why."""
    merged = merge(compose(b.layers), part="unsafe")
    out: dict[str, str] = {}
    for (_, _, key), (raw, _) in merged.items():
        why = raw.get("why", "") if isinstance(raw, dict) else ""
        safety = raw.get("safety", "unsafe") if isinstance(raw, dict) else "unsafe"
        out[key] = f"refused by default ({safety}): {why}"
    return out


def classify(name: str, ran: dict[str, Any]) -> Row:
    """One setting a deployment ran, against this compile: the verdict and the reason flashtune has."""
    b = bundle(name)
    file, key, theirs = ran["file"], ran["key"], ran["value"]
    recorded = str(ran.get("reason", ""))
    if file == "cluster":
        ours = b.cluster_facts()[key]
        same = canon_value(ours) == canon_value(theirs)
        return Row(name, file, key, theirs, ours, "agree" if same else "differ", "" if same else recorded)
    if file == "pools":  # the pg_num pools.sh creates the pool with
        pool = next((p for p in b.shape["pools"] if p["name"] == key), None)
        ours = None if pool is None else pool["pg_num"]
        same = ours == theirs
        return Row(name, file, key, theirs, ours, "agree" if same else "differ", "" if same else recorded)
    if file == "layout":  # daemons the source ran on the OSD nodes: each must be in the node's budget
        budget = b.shape["daemons_gib"]
        items = [k for d in ran["daemons"] for k in budget if k == d or k.endswith(f" x {d}")]
        found = len(items) == len(ran["daemons"])
        ours = ", ".join(f"{k} {budget[k]:g} GiB" for k in items) or None
        return Row(name, file, key, theirs, ours, "agree" if found else "gap", "" if found else recorded)
    if file not in FILES:  # BIOS, kernel command line, ceph CLI flags: nothing flashtune writes
        return Row(name, file, key, theirs, None, str(ran["verdict"]), recorded)
    ours_s = next((s for s in b.settings if s.file == file and s.key == key), None)
    if ours_s is not None:
        same = _canon(ours_s.value, key) == _canon(theirs, key)
        return Row(
            name, file, key, theirs, ours_s.value, "agree" if same else "differ", "" if same else ours_s.why
        )
    dropped = next((o for o in b.omitted if o["file"] == file and o["key"] == key), None)
    if dropped is not None:
        return Row(name, file, key, theirs, None, "not-emitted", str(dropped["why"]))
    unsafe = _unsafe(b)
    if key in unsafe:
        return Row(name, file, key, theirs, None, "not-emitted", unsafe[key])
    knob = load_catalog().get(key, "ceph") if file == "ceph.conf" else None
    release = b.request.ceph_release
    if knob is not None and _canon(knob.default_for(release), key) == _canon(theirs, key):
        return Row(
            name, file, key, theirs, None, "default", f"the {release} default is {knob.default_for(release)}"
        )
    return Row(
        name, file, key, theirs, None, "gap" if ran.get("verdict") == "gap" else "not-emitted", recorded
    )


def rows() -> list[Row]:
    return [classify(d["id"], r) for d in manifest() for r in d["ran"]]


def _cell(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, int) and not isinstance(value, bool) and value >= GiB:
        return f"{value / GiB:.2f} GiB"
    text = canon_value(value) if isinstance(value, bool | list) else str(value)
    return (text if len(text) <= 48 else text[:45] + "...").replace("|", "/")


def _short(reason: str) -> str:
    first = re.split(r"(?<=\.)\s", reason.strip(), maxsplit=1)[0]
    return (first if len(first) <= 140 else first[:137] + "...").replace("|", "/")


def render() -> str:
    """The comparison table as markdown (the block notes/history/refarch.md keeps between the markers)."""
    out = ["| deployment | file | key | theirs | ours | verdict | reason |", "|---|---|---|---|---|---|---|"]
    for r in rows():
        out.append(
            f"| {r.deployment} | {r.file} | `{r.key}` | {_cell(r.theirs)} | {_cell(r.ours)} | {r.verdict} "
            f"| {_short(r.reason) if r.reason else ''} |"
        )
    counts = {v: sum(r.verdict == v for r in rows()) for v in VERDICTS}
    out.append("")
    out.append(", ".join(f"{v}: {n}" for v, n in counts.items()))
    return "\n".join(out)


def test_every_manifest_entry_is_complete() -> None:
    for d in manifest():
        src = d["source"]
        assert src["url"].startswith("https://") and re.fullmatch(r"[0-9a-f]{40}", src["commit"]), d["id"]
        assert (CORPUS / d["hardware"]).is_file(), d["id"]
        assert d["facts"] and all(f.get("stated") for f in d["facts"]), d["id"]
        assert set(d["layout"]) <= LAYOUT_CHECKS, set(d["layout"]) - LAYOUT_CHECKS
        for r in d["ran"]:  # (an unquoted comma in a flow mapping would add a stray key)
            assert set(r) <= {"file", "section", "key", "value", "stated", "verdict", "reason", "daemons"}, r
            assert r["verdict"] in VERDICTS and r.get("stated"), (d["id"], r["key"])


@pytest.mark.parametrize("name", ids())
def test_hardware_file_holds_only_stated_facts(name: str) -> None:
    """Every node/cluster field of the hardware file has a `facts:` row saying where the source states it."""
    d = deployment(name)
    doc = yaml.safe_load((CORPUS / d["hardware"]).read_text())
    fields = {f"node.{k}" for k in doc["node"]} | {f"cluster.{k}" for k in doc.get("cluster", {})}
    lay = doc.get("layout") or {}
    fields |= {f"layout.placement.{k}" for k in lay.get("placement", {})}
    fields |= {f"layout.{k}" for k in lay if k != "placement"}
    stated = {f["field"] for f in d["facts"]}
    assert fields <= stated, sorted(fields - stated)
    hw = read_hardware(doc, CORPUS / d["hardware"])
    assert hw.data_devices and hw.ram_gib > 0


@pytest.mark.parametrize("name", ids())
def test_published_machine_compiles(name: str) -> None:
    """A real, published machine is never refused, and the compile carries no sizing warning.

    Release-lifecycle warnings (an end-of-life release the source ran) are about the date, not the machine."""
    b = bundle(name)
    assert b.files["ceph.conf"] and b.settings
    assert b.shape["warnings"] == [], b.shape["warnings"]
    # the protection the source ran (the hardware file's cluster.protection) is the one compiled
    prot, sh = b.hardware.protection, b.shape
    if prot is None:  # the source's protection is not in the file (e.g. 2 copies, which need --allow-unsafe)
        assert (sh["protection"], sh["pool_size"]) == ("replication", 3)
    elif prot.kind == "replicated":
        assert (sh["protection"], sh["pool_size"]) == ("replication", prot.size), sh["protection_reason"]
    else:
        assert sh["ec"] is not None and (sh["ec"].value.k, sh["ec"].value.m) == (prot.k, prot.m)


def test_command_line_protection_wins_over_the_hardware_file() -> None:
    """cluster.protection is the hardware file's default; --ec / --replication on the command line still win."""
    d = deployment("upstream-reef-freeze-rgw")
    req = CompileRequest(
        workload="rgw", tier=None, hardware_file=CORPUS / d["hardware"], ceph_release="reef", ec=(4, 2)
    )
    sh = compile_bundle(req).shape
    assert sh["protection"] == "erasure" and (sh["ec"].value.k, sh["ec"].value.m) == (4, 2)
    sh = bundle("upstream-reef-freeze-rgw").shape
    assert (sh["protection"], sh["protection_reason"]) == (
        "replication",
        "3 replicas (hardware file protection)",
    )


@pytest.mark.parametrize("name", ids())
def test_layout_and_budget_match_the_source(name: str) -> None:
    d, b = deployment(name), bundle(name)
    want, sh = d["layout"], b.shape
    assert want.get("stated"), name
    if "osds_per_node" in want:
        assert sh["osds_per_node"] == want["osds_per_node"], sh["osds_per_device_reason"]
    if "osds" in want:
        assert sh["osds"] == want["osds"]
    if "osds_per_device_ran" in want:
        if sh["osds_per_device"] not in want["osds_per_device_ran"]:  # only with a recorded reason
            assert want.get("osds_per_device_differs"), sh["osds_per_device_reason"]
        for n in want["osds_per_device_ran"]:  # every layout the source ran compiles, within its memory
            other = bundle(name, n)
            per_osd = other.shape["osd_memory_target"] / GiB
            sizing = other.shape["warnings"]  # release-lifecycle warnings are about the date, not the layout
            assert other.shape["osds_per_device"] == n and sizing == [], sizing
            assert per_osd * n <= want.get("memory_per_nvme_gib_max", per_osd * n)
            assert per_osd <= want.get("osd_memory_gib_max", per_osd)  # below the OSD's memory limit there
    target_gib = sh["osd_memory_target"] / GiB
    # the node's whole budget fits its RAM, with the headroom rule, and no OSD is under the documented floor
    used = sum(gib for _, gib in b.memory_budget())
    assert used <= (1 - memory_rules()["headroom"]) * b.hardware.ram_gib + 1e-6, b.memory_budget()
    assert target_gib >= memory_rules()["osd_memory_target_floor_gib"]
    if "osd_memory_target_gib_min" in want:
        assert target_gib >= want["osd_memory_target_gib_min"]
    if "memory_per_nvme_gib_max" in want:  # the source's comfortable figure per drive, which we must not pass
        per_nvme = target_gib * sh["osds_per_device"]
        assert 0.8 * want["memory_per_nvme_gib_max"] <= per_nvme <= want["memory_per_nvme_gib_max"]
    if "rgw_daemons_per_node" in want:  # every gateway on the node is in the budget
        n = want["rgw_daemons_per_node"]
        one = float(layout_data()["daemons"]["rgw"]["memory_gib"])
        assert sh["daemons_gib"].get(f"{n} x rgw") == n * one, sh["daemons_gib"]


@pytest.mark.parametrize("name", ids())
def test_every_setting_they_ran_has_a_checked_verdict(name: str) -> None:
    """Recorded verdicts match a fresh compile; every difference and omission has a reason."""
    for ran in deployment(name)["ran"]:
        row = classify(name, ran)
        assert row.verdict == ran["verdict"], (row, "update tests/fixtures/refarch/manifest.yaml")
        if row.verdict in ("differ", "not-emitted", "gap"):
            assert row.reason.strip(), f"{name} {row.key}: {row.verdict} without a reason"


def test_notes_table_is_current() -> None:
    """notes/history/refarch.md shows the comparison this compiler produces (python tests/unit/test_refarch.py)."""
    text = NOTES.read_text()
    block = text.split(START, 1)[1].split(END, 1)[0].strip()
    assert block == render().strip(), "re-render with: python tests/unit/test_refarch.py --write"


def write_notes() -> None:
    """Replace the table block of notes/history/refarch.md with the current comparison."""
    head, rest = NOTES.read_text().split(START, 1)
    NOTES.write_text(f"{head}{START}\n{render()}\n{END}{rest.split(END, 1)[1]}")


def test_compiler_guide_shows_the_comparison() -> None:
    """The book's compiler guide includes the table the book build extracts from the notes."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from bookgen.rules_pages import refarch_table

    assert "_generated/refarch.md" in (ROOT / "book" / "compiler-guide.md").read_text()
    assert refarch_table(NOTES).strip() == render().strip()


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_notes()
    else:
        sys.stdout.write(render() + "\n")

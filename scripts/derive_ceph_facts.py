"""Fill the Ceph facts of data/knobs/ceph.yaml from Ceph's own option schemas.

For every ceph.conf knob (not misspellings, not pool/EC properties) this writes: type, unit, level, flags,
effect, default per release (pacific always, later releases only where the default changes; a
hand-written jewel default is kept), min, max, enum, added/removed for the releases we have schemas
for, and `inferred` for facts not read from a schema (squid = reef; debug_* beyond pacific, because the
Quincy+ YAML does not list log subsystems). Hand-kept fields (rationale, safety, seeds, jewel facts,
history before pacific) are left alone; comments survive (ruamel round trip).

Run: .venv/bin/python scripts/derive_ceph_facts.py [--check] [REFERENCE_DIR]
  --check  exit 1 if the file would change (CI can use it to catch hand edits of derived facts).
"""

from __future__ import annotations

import argparse
import io
import itertools
import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap

from flashtune.catalog.cephschema import CephOption, load_json, load_yaml_in_dir
from flashtune.releases import CEPH_RELEASES

REPO = Path(__file__).resolve().parents[1]
CATALOG = REPO / "data" / "knobs" / "ceph.yaml"
SCHEMA_RELEASES = (
    ("pacific", "pacific-16.2.15.json"),
    ("quincy", "quincy-17.2.7"),
    ("reef", "reef-18.2.7"),
    ("tentacle", "tentacle-20.2.4"),
)
UNIT_OF_TYPE = {"size": "bytes", "secs": "seconds", "millisecs": "milliseconds"}
DERIVED = (
    "type",
    "unit",
    "level",
    "flags",
    "effect",
    "default",
    "min",
    "max",
    "enum",
    "added",
    "removed",
    "inferred",
)


def load_schemas(ref: Path) -> dict[str, dict[str, CephOption]]:
    out: dict[str, dict[str, CephOption]] = {}
    for rel, sub in SCHEMA_RELEASES:
        path = ref / "ceph-options" / sub
        out[rel] = load_json(path) if sub.endswith(".json") else load_yaml_in_dir(path)
    return out


def _flow(m: dict[str, Any]) -> CommentedMap:
    cm = CommentedMap(m)
    cm.fa.set_flow_style()
    return cm


def _seq(items: list[Any]) -> Any:
    from ruamel.yaml.comments import CommentedSeq

    s = CommentedSeq(items)
    s.fa.set_flow_style()
    return s


def facts_for(name: str, raw: CommentedMap, schemas: dict[str, dict[str, CephOption]]) -> dict[str, Any]:
    """Derived fields of one knob; raises ValueError when hand facts contradict the schemas."""
    is_debug = name.startswith("debug_")
    have: dict[str, CephOption | None] = {}
    inferred: list[str] = []
    for rel, _ in SCHEMA_RELEASES:
        opt = schemas[rel].get(name)
        if opt is None and is_debug and rel != "pacific" and have.get("pacific") is not None:
            opt = have["pacific"]  # log subsystems are not in the YAML; assume they live on
            inferred.append(rel)
        have[rel] = opt
    # squid has no schema here: assume it matches reef (it branched from reef's successors' base)
    have_squid = have["reef"]
    inferred.append("squid")
    present = [
        r
        for r in ("pacific", "quincy", "reef", "squid", "tentacle")
        if (have_squid if r == "squid" else have[r]) is not None
    ]
    facts: dict[str, Any] = {}
    if not present:
        if not raw.get("removed") and not raw.get("misspelling_of"):
            raise ValueError(f"{name}: in no schema; add 'removed:' (with the release) or 'misspelling_of:'")
        if CEPH_RELEASES.index(str(raw["removed"])) > CEPH_RELEASES.index("pacific"):
            raise ValueError(f"{name}: absent from pacific but removed: {raw['removed']}")
        return {}
    ref = have["pacific"] or next(o for o in have.values() if o is not None)
    facts["type"] = ref.type
    if ref.type in UNIT_OF_TYPE:
        facts["unit"] = UNIT_OF_TYPE[ref.type]
    facts["level"] = ref.level
    if ref.flags:
        facts["flags"] = _seq(list(ref.flags))
    facts["effect"] = ref.effect
    defaults: dict[str, Any] = {}
    for rel in CEPH_RELEASES[: CEPH_RELEASES.index("pacific")]:  # hand-kept history before the schemas
        if rel in (raw.get("default") or {}):
            defaults[rel] = raw["default"][rel]
    last: Any = object()
    for rel, _ in SCHEMA_RELEASES:
        o = have[rel]
        if o is None:
            continue
        if o.default != last or rel == "pacific":
            defaults[rel] = o.default
        last = o.default
    facts["default"] = _flow(defaults)
    if ref.min is not None:
        facts["min"] = ref.min
    if ref.max is not None:
        facts["max"] = ref.max
    if ref.enum:
        facts["enum"] = _seq(list(ref.enum))
    first = present[0]
    if first != "pacific":
        facts["added"] = first
    elif raw.get("added"):
        facts["added"] = raw["added"]  # hand fact: history before pacific
    order = ("pacific", "quincy", "reef", "squid", "tentacle")
    gone = [r for r in order[order.index(present[-1]) + 1 :]]
    if gone:
        facts["removed"] = gone[0]
    elif raw.get("removed"):
        raise ValueError(f"{name}: exists in tentacle but hand-written removed: {raw['removed']}")
    # hand-kept inferences about history before pacific (e.g. an unverified 'added') stay
    before = CEPH_RELEASES[: CEPH_RELEASES.index("pacific")]
    kept = [str(r) for r in raw.get("inferred") or [] if str(r) in before]
    facts["inferred"] = _seq(kept + [r for r in inferred if r in present or r == "squid"])
    return facts


def changes_between(name: str, schemas: dict[str, dict[str, CephOption]]) -> list[str]:
    """Type/min/max/enum changes across releases (the catalog keeps one value; report the rest)."""
    seen = [(rel, schemas[rel][name]) for rel, _ in SCHEMA_RELEASES if name in schemas[rel]]
    notes = []
    for (r1, a), (r2, b) in itertools.pairwise(seen):
        for f in ("type", "min", "max", "enum"):
            if getattr(a, f) != getattr(b, f):
                notes.append(f"{name}: {f} {getattr(a, f)!r} ({r1}) -> {getattr(b, f)!r} ({r2})")
    return notes


def derive(text: str, schemas: dict[str, dict[str, CephOption]]) -> tuple[str, list[str]]:
    yaml = YAML(typ="rt")
    yaml.width = 4096  # never re-wrap; hand-written folded text keeps its own line breaks
    yaml.indent(mapping=2, sequence=4, offset=2)
    doc = yaml.load(text)
    notes: list[str] = []
    for raw in doc["knobs"]:
        loc = raw.get("location")
        file = loc.get("file") if isinstance(loc, dict) else loc
        if file != "ceph.conf" or raw.get("misspelling_of"):
            continue
        name = str(raw["name"])
        facts = facts_for(name, raw, schemas)
        notes += changes_between(name, schemas)
        if not facts:
            continue
        for key in DERIVED:
            if key in raw and key not in facts:
                if key in ("removed", "added", "type", "unit"):
                    continue  # hand facts the schemas cannot contradict
                del raw[key]
        pos = list(raw.keys()).index("location") + 1
        for key in DERIVED:
            if key in facts:
                if key in raw:
                    raw[key] = facts[key]
                else:
                    raw.insert(pos, key, facts[key])
                pos = list(raw.keys()).index(key) + 1
    buf = io.StringIO()
    yaml.dump(doc, buf)
    return buf.getvalue(), notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "reference", help="folder with ceph-options/ (Ceph's option schemas: JSON dump, options/*.yaml.in)"
    )
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    schemas = load_schemas(Path(args.reference))
    before = CATALOG.read_text(encoding="utf-8")
    try:
        after, notes = derive(before, schemas)
    except ValueError as e:
        print(f"{CATALOG}: error: {e}", file=sys.stderr)
        return 2
    for n in notes:
        print("note:", n, file=sys.stderr)
    if args.check:
        return 0 if after == before else 1
    if after != before:
        CATALOG.write_text(after, encoding="utf-8")
        print(f"updated {CATALOG}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

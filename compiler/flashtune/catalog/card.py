"""A knob's card: everything the catalog knows about one knob, as a dict or as text.

Used by `flashtune knob NAME`; notebooks and the book can call card_dict()/render_card() too.
"""

from __future__ import annotations

import textwrap
from typing import Any

from flashtune.catalog import vocab
from flashtune.catalog.knob import Knob
from flashtune.catalog.store import Catalog, load_catalog

MEANT = ("type", "effect", "safety", "level")  # fields whose value's meaning a card prints


def meanings(knob: Knob) -> dict[str, str]:
    """field -> what the knob's value of it means, from the knob schema (the card and the book print these)."""
    out = {}
    for name in MEANT:
        value = getattr(knob, name)
        if value is not None:
            out[name] = vocab.meanings(name).get(value, "")
    return out


def statuses(knob: Knob, catalog: Catalog | None = None) -> dict[str | None, str]:
    """release -> status state for each release the card tabulates (None: kernel-side, release-free)."""
    cat = catalog or load_catalog()
    return {r: cat.status(knob, r).state for r in (knob.releases or (None,))}


def card_dict(knob: Knob, evidence_rows: dict[str, dict[str, str] | None] | None = None) -> dict[str, Any]:
    """The card as plain data (JSON-serialisable)."""
    rels = knob.releases
    status = statuses(knob)
    return {
        "name": knob.name,
        "domain": knob.domain,
        "location": {"file": knob.location.file, "sections": list(knob.location.sections)},
        "type": knob.type,
        "unit": knob.unit,
        "level": knob.level,
        "meanings": meanings(knob),
        "effect": knob.effect,
        "flags": list(knob.flags),
        "min": knob.min,
        "max": knob.max,
        "enum": list(knob.enum),
        "exists": {r: knob.exists_in(r) for r in rels} if rels else knob.exists_in(None),
        "status": status if rels else status[None],
        "defaults": {r: knob.default_for(r) for r in rels} if rels else knob.default.get("*"),
        "inferred": list(knob.inferred),
        "added": knob.added,
        "removed": knob.removed,
        "renamed_to": knob.renamed_to,
        "misspelling_of": knob.misspelling_of,
        "safety": knob.safety,
        "safety_note": knob.safety_note,
        "unsafe_values": [
            {"values": list(r.values), "safety": r.safety, "note": r.note} for r in knob.unsafe_values
        ],
        "removed_values": [
            {"values": list(r.values), "removed": r.removed, "note": r.note} for r in knob.removed_values
        ],
        "applies_to": list(knob.applies_to),
        "aliases": list(knob.aliases),
        "seeds": list(knob.seeds),
        "rationale": knob.rationale,
        "evidence": [{"ref": ref, "row": (evidence_rows or {}).get(ref)} for ref in knob.evidence],
        "source": f"{knob.source_file}:{knob.source_line}",
    }


def _wrap(label: str, text: str, width: int = 100) -> list[str]:
    pad = " " * 11
    body = textwrap.wrap(text, width=width - len(pad)) or [""]
    return [f"  {label:<9}" + body[0], *(pad + line for line in body[1:])]


def render_card(knob: Knob, evidence_rows: dict[str, dict[str, str] | None] | None = None) -> str:
    """The card as text for a terminal."""
    where = knob.location.file + (f" [{', '.join(knob.location.sections)}]" if knob.location.sections else "")
    lines = [f"{knob.name}  ({knob.domain}; {where})"]
    typ = knob.type + (f", {knob.unit}" if knob.unit else "")
    status = statuses(knob)
    alive = any(knob.exists_in(r) for r in status)
    meant = meanings(knob)
    meta = [f"type {typ} ({meant['type']})"] + (
        [f"takes effect: {knob.effect} ({meant['effect']})"] if alive else []
    )
    if knob.level:
        meta.append(f"level {knob.level} ({meant['level']})")
    if knob.flags:
        meta.append(f"flags {','.join(knob.flags)}")
    lines += _wrap("facts", "; ".join(meta))
    rng = []
    if knob.min is not None:
        rng.append(f"min {knob.show(knob.min)}")
    if knob.max is not None:
        rng.append(f"max {knob.show(knob.max)}")
    if knob.enum:
        rng.append("one of " + ", ".join(knob.enum))
    if rng:
        lines += _wrap("values", "; ".join(rng))
    rels = knob.releases
    if rels:
        width = max(len(r) for r in rels) + 2
        swidth = max(len(s) for s in status.values()) + 2
        lines.append(f"  {'release':<{width}}{'status':<{swidth}}default")
        for r in rels:
            mark = "*" if r in knob.inferred else " "
            lines.append(f"  {r + mark:<{width}}{status[r]:<{swidth}}{knob.show(knob.default_for(r))}")
        if any(r in knob.inferred for r in rels):
            lines.append("  (* inferred: no schema for that release here)")
    else:
        lines += _wrap("status", status[None])
        if "*" in knob.default:
            lines += _wrap("default", knob.show(knob.default["*"]))
    if knob.history():
        lines += _wrap("history", "; ".join(knob.history()))
    other = [r for r in knob.inferred if r not in rels]
    if other:
        lines += _wrap("inferred", f"facts about {', '.join(other)} are inferred, not read from a schema")
    if knob.safety_shown != knob.safety:
        safety = f"{knob.safety_shown}: the values under 'unsafe' put it at risk; the others change performance only"
    else:
        safety = f"{knob.safety} ({meant['safety']})" + (f": {knob.safety_note}" if knob.safety_note else "")
    lines += _wrap("safety", safety)
    for rule in knob.unsafe_values:
        lines += _wrap(
            "unsafe", f"{', '.join(rule.values)} -> {rule.safety}" + (f": {rule.note}" if rule.note else "")
        )
    for rule in knob.removed_values:
        gone = f"{', '.join(rule.values)}: stopped working in {rule.removed}" + (
            f": {rule.note}" if rule.note else ""
        )
        lines += _wrap("gone", gone)
    if knob.applies_to:
        lines += _wrap("only for", ", ".join(knob.applies_to))
    if knob.aliases:
        lines += _wrap("aliases", ", ".join(knob.aliases))
    if knob.seeds:
        lines += _wrap("seeds", ", ".join(knob.seeds))
    lines += _wrap("why", knob.rationale)
    for ref in knob.evidence:
        row = (evidence_rows or {}).get(ref)
        summary = (
            ", ".join(f"{k}={v}" for k, v in list(row.items())[:7] if v and k != "id")
            if row
            else "(row not found)"
        )
        lines += _wrap("evidence", f"{ref}: {summary}")
    return "\n".join(lines) + "\n"

"""Knob reference pages: one page per catalog domain, one section per knob (from flashtune.catalog)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bookgen import myst
from bookgen.evidence import evidence_line
from flashtune.catalog import Catalog, Knob, vocab
from flashtune.catalog.card import meanings, statuses
from flashtune.catalog.knob import DOMAINS, human_size
from flashtune.catalog.status import STATES

DOMAIN_TITLES = {
    "ceph": "Ceph options (ceph.conf)",
    "sysctl": "Kernel settings (sysctl)",
    "mysql": "MySQL and MariaDB variables (my.cnf)",
    "mount": "File-system mount options",
    "blockdev": "Block-device settings",
    "cpu": "CPU and NUMA settings",
    "allocator": "Memory allocator settings",
    "nic": "Network interface settings",
}


def shown(knob: Knob, v: Any) -> str:
    """A value as written in a config file; sizes also in binary units (the catalog's size display)."""
    text = myst.value(v)
    human = human_size(v) if knob.type == "size" and isinstance(v, int) and not isinstance(v, bool) else None
    return f"{text} ({human})" if human else text


def knob_label(knob: Knob) -> str:
    return myst.label("knob", knob.domain, knob.name)


def _release_table(knob: Knob, catalog: Catalog) -> str:
    releases = knob.releases
    status = statuses(knob, catalog)
    if not releases:
        return f"Status: {status[None]}. Default: {shown(knob, knob.default_for(None))}\n"
    marks = ["†" if r in knob.inferred else "" for r in releases]
    header = ["", *(r + m for r, m in zip(releases, marks, strict=True))]
    exists = ["status", *(status[r] for r in releases)]
    defaults = [
        "default",
        *(shown(knob, knob.default_for(r)) if knob.exists_in(r) else "—" for r in releases),
    ]
    text = myst.table(header, [exists, defaults])
    if any(marks):
        text += "\n† inferred, not read from that release's option schema.\n"
    return text


def _facts(knob: Knob, catalog: Catalog) -> list[tuple[str, str]]:
    where = knob.location.file
    if knob.location.sections:
        where += " [" + ", ".join(knob.location.sections) + "]"
    kind = myst.code(knob.type) + (f" ({knob.unit})" if knob.unit else "")
    facts = [("Set in", myst.code(where)), ("Type", kind)]
    if knob.min is not None or knob.max is not None:
        low = shown(knob, knob.min) if knob.min is not None else "−∞"
        high = shown(knob, knob.max) if knob.max is not None else "∞"
        facts.append(("Range", f"{low} … {high}"))
    if knob.enum:
        facts.append(("Allowed values", myst.value(knob.enum)))
    meant = meanings(knob)  # the knob schema's words, as `flashtune knob` prints them
    facts[1] = ("Type", f"{kind}: {meant['type']}")
    facts.append(("Takes effect", f"{knob.effect}: {meant['effect']}"))
    safety = f"**{knob.safety}**: {meant['safety']}"
    if knob.safety_shown != knob.safety:
        safety = f"**{knob.safety_shown}**: the risky values below put it at risk; the others change performance only"
    if knob.safety_note:
        safety += f". {myst.plain(knob.safety_note)}"
    facts.append(("Safety", safety))
    if knob.level:
        facts.append(("Ceph level", f"{knob.level}: {meant['level']}"))
    if knob.applies_to:
        facts.append(("Only matters for", ", ".join(knob.applies_to)))
    if knob.history():
        facts.append(("History", myst.plain("; ".join(knob.history()))))
    if knob.aliases:
        facts.append(("Also spelled", myst.value(knob.aliases)))
    for rule in knob.unsafe_values:
        note = f": {myst.plain(rule.note)}" if rule.note else ""
        facts.append(("Risky values", f"{myst.value(rule.values)} ({rule.safety}){note}"))
    for rule in knob.removed_values:
        when = f" (gone in {rule.removed})" if rule.removed else ""
        note = f": {myst.plain(rule.note)}" if rule.note else ""
        facts.append(("Values that stopped working", f"{myst.value(rule.values)}{when}{note}"))
    if knob.seeds:
        facts.append(("Named in seed documents", ", ".join(knob.seeds)))
    for field, target in (("Renamed to", knob.renamed_to), ("Misspelling of", knob.misspelling_of)):
        if target:
            other = catalog.get(target, knob.domain)
            facts.append((field, myst.ref(target, knob_label(other)) if other else myst.code(target)))
    return facts


def knob_section(knob: Knob, catalog: Catalog) -> str:
    out = [f"({knob_label(knob)})=", f"## {myst.code(knob.name)}", ""]
    out += [f"- **{name}**: {text}" for name, text in _facts(knob, catalog)]
    out += ["", _release_table(knob, catalog), myst.plain(knob.rationale), ""]
    if knob.evidence:
        out.append("**Evidence**\n")
        out += [f"- {evidence_line(ref)}" for ref in knob.evidence]
        out.append("")
    return "\n".join(out) + "\n"


def domain_page(domain: str, knobs: list[Knob], catalog: Catalog) -> str:
    title = DOMAIN_TITLES.get(domain, domain)
    lines = [
        f"# {title}",
        "",
        f"{len(knobs)} knobs in the `{domain}` domain, generated from `data/knobs/` "
        "(see {ref}`knob-reference` for how to read a card).",
        "",
        myst.table(
            ["knob", "type", "safety", "takes effect"],
            [(myst.ref(k.name, knob_label(k)), k.type, k.safety_shown, k.effect) for k in knobs],
        ),
    ]
    lines += [knob_section(k, catalog) for k in knobs]
    return "\n".join(lines)


def index_page(catalog: Catalog, domains: list[str]) -> str:
    rows = [(myst.ref(DOMAIN_TITLES.get(d, d), f"knobs-{d}"), d, len(catalog.in_domain(d))) for d in domains]
    safety = [(myst.code(s), m) for s, m in vocab.meanings("safety").items()]
    effect = [(myst.code(s), m) for s, m in vocab.meanings("effect").items()]
    fields = [(myst.code(f), myst.plain(m)) for f, m in vocab.fields().items()]
    return "\n".join(
        [
            "(knob-reference)=",
            "# Knob reference",
            "",
            f"Every tuning knob flashtune knows ({len(catalog)} in all), generated from the catalog in "
            "`data/knobs/`: the same records the compiler, the linter and the notebooks read. "
            "Each knob's card gives where it is set, its type and unit, its limits, when a change takes "
            "effect, its safety class, whether it exists and what its default is in each Ceph release "
            "(or MySQL/MariaDB flavour), why flashtune sets it, and the dataset rows behind that advice. "
            "Use the search box to jump to a knob by name.",
            "",
            myst.table(["domain", "name", "knobs"], rows),
            "Safety classes:",
            "",
            myst.table(["class", "meaning"], safety),
            "When a change takes effect:",
            "",
            myst.table(["effect", "meaning"], effect),
            "What a line setting the knob does in a release (the status row of each card; `lint-config` "
            "reports the same):",
            "",
            myst.table(["status", "meaning"], [(myst.code(s), m) for s, m in STATES.items()]),
            "The fields of a knob record (from `data/knobs/knob.schema.json`, the vocabulary's one source):",
            "",
            myst.table(["field", "meaning"], fields),
            "Misspelled and removed knobs from the 2017 documents are catalogued too, so that the linter "
            "can say what was meant; their cards point to the knob that replaced them.",
            "",
        ]
    )


def write(catalog: Catalog, out: Path) -> list[Path]:
    """Write index.md plus one page per non-empty domain into out; return the pages written."""
    out.mkdir(parents=True, exist_ok=True)
    domains = [d for d in DOMAINS if catalog.in_domain(d)]
    pages = [out / "index.md"]
    pages[0].write_text(index_page(catalog, domains), encoding="utf-8")
    for d in domains:
        knobs = sorted(catalog.in_domain(d), key=lambda k: k.name)
        page = out / f"{d}.md"
        page.write_text(f"(knobs-{d})=\n" + domain_page(d, knobs, catalog), encoding="utf-8")
        pages.append(page)
    return pages

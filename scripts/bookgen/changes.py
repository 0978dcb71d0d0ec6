"""The "what changed since 2017" page: the catalog's release facts, read from jewel (the seeds) to the newest release."""

from __future__ import annotations

from pathlib import Path

from bookgen import myst
from bookgen.knob_pages import knob_label
from flashtune.catalog import Catalog, Knob
from flashtune.releases import DEFAULT_CEPH_RELEASE

THEN = "jewel"


def page(catalog: Catalog, now: str = DEFAULT_CEPH_RELEASE) -> str:
    ceph = sorted(catalog.in_domain("ceph"), key=lambda k: k.name)
    gone = [k for k in ceph if k.exists_in(THEN) and not k.exists_in(now)]
    new = [k for k in ceph if not k.exists_in(THEN) and k.exists_in(now) and not k.misspelling_of]
    both = [k for k in ceph if k.exists_in(THEN) and k.exists_in(now)]
    # The catalog records defaults where they are known; an unrecorded jewel default is not a change.
    unknown = [k for k in both if k.default_for(THEN) is None]
    moved = [k for k in both if k.default_for(THEN) is not None and k.default_for(THEN) != k.default_for(now)]
    typos = sorted((k for k in catalog if k.misspelling_of), key=lambda k: k.name)

    def link(k: Knob) -> str:
        return myst.ref(k.name, knob_label(k))

    def replacement(k: Knob) -> str:
        target = catalog.get(k.renamed_to, k.domain) if k.renamed_to else None
        return link(target) if target else myst.code(k.renamed_to) if k.renamed_to else "—"

    lines = [
        "(changes-since-2017)=",
        "# What changed since 2017",
        "",
        f"The 2017 documents tuned Ceph {THEN} with FileStore. This page compares the catalog's facts for "
        f"{THEN} with {now}, the newest release flashtune compiles for. It is generated from "
        "`data/knobs/`, so it grows with the catalog.",
        "",
        f"## Gone by {now} ({len(gone)})",
        "",
        "Setting one of these today does nothing: Ceph ignores unknown keys without a word, which is why "
        "`lint-config` reports them.",
        "",
    ]
    lines.append(
        myst.table(
            ["knob", "removed in", "replacement"],
            [(link(k), k.removed or "—", replacement(k)) for k in gone],
        )
        if gone
        else "None recorded.\n"
    )
    lines += [f"## New since {THEN} ({len(new)})", ""]
    lines.append(
        myst.table(
            ["knob", "added in", f"default in {now}", "safety"],
            [(link(k), k.added or "—", myst.value(k.default_for(now)), k.safety) for k in new],
        )
        if new
        else "None recorded.\n"
    )
    lines += [
        f"## Defaults that moved ({len(moved)})",
        "",
        f"Among the {len(both)} options that exist in both releases; {len(unknown)} of them have no "
        f"recorded {THEN} default in the catalog and are not compared.",
        "",
    ]
    lines.append(
        myst.table(
            ["knob", f"default in {THEN}", f"default in {now}"],
            [(link(k), myst.value(k.default_for(THEN)), myst.value(k.default_for(now))) for k in moved],
        )
        if moved
        else "None recorded.\n"
    )
    lines += [f"## Misspelled in the 2017 documents ({len(typos)})", ""]
    lines.append(
        myst.table(
            ["as printed", "meant"],
            [(link(k), myst.code(k.misspelling_of)) for k in typos],
        )
        if typos
        else "None recorded.\n"
    )
    return "\n".join(lines)


def write(catalog: Catalog, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "changes-since-2017.md"
    path.write_text(page(catalog), encoding="utf-8")
    return path

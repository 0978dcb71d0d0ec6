"""Compiler-guide inserts: the catalog's dependency facts (dead_when), the review of the compiled configs, and
the comparison with published all-flash clusters (kept current by tests/unit/test_refarch.py)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bookgen import myst
from flashtune.catalog import Catalog
from flashtune.catalog.deps import KINDS
from flashtune.yamlio import load_yaml


def _source(src: str) -> str:
    return f"[{src.split('//')[-1][:60]}]({src})" if src.startswith("http") else myst.code(src)


def dependencies_table(catalog: Catalog) -> str:
    """Every dead_when fact: the knob, when it does nothing, why, and the source."""
    rows = [
        (myst.code(k.name), d.kind, myst.cell(d.condition()), myst.cell(d.why), _source(d.source))
        for k in sorted(catalog, key=lambda k: (k.domain, k.name))
        for d in k.dead_when
    ]
    kinds = "\n".join(f"- **{k}**: {v}" for k, v in KINDS.items())
    return (
        f"The compiler drops these lines from its output (and lists them under *Not emitted* in explain.md);\n"
        f"`lint-config` reports them in your files (FT401, FT402 for create-only). Kinds:\n\n{kinds}\n\n"
        + myst.table(("knob", "kind", "dead when", "why", "source"), rows)
        + "\n"
    )


def review_table(path: Path) -> str:
    """The review items with their class, decision, reason and source, and the count per class."""
    items = list(load_yaml(path)["items"])
    counts = Counter(str(i["class"]) for i in items)
    summary = ", ".join(f"{n} {c}" for c, n in counts.most_common())
    rows = [
        (
            myst.cell(i["file"]),
            myst.code(i["key"]),
            myst.cell(" ".join(str(i[k]) for k in ("tier", "workload", "release", "flavour") if i.get(k))),
            i["class"],
            myst.cell(i["before"]),
            myst.cell(i["after"]),
            myst.cell(i["why"]),
            _source(str(i["source"])),
        )
        for i in items
    ]
    return (
        f"{len(items)} points ({summary}). *kept* items were reviewed and left as they are, for the "
        "reason given.\n\n"
        + myst.table(("file", "key", "case", "class", "before", "after", "why", "source"), rows)
        + "\n"
    )


REFARCH_START, REFARCH_END = "<!-- refarch-table:start -->", "<!-- refarch-table:end -->"


def refarch_table(notes: Path) -> str:
    """The key-by-key comparison with published clusters, as notes/history/refarch.md keeps it (a tree
    without the notes, such as a throwaway book root, gets a pointer instead)."""
    if not notes.is_file():
        return "The comparison table is kept in `notes/history/refarch.md` of a full checkout.\n"
    text = notes.read_text(encoding="utf-8")
    return text.split(REFARCH_START, 1)[1].split(REFARCH_END, 1)[0].strip() + "\n"


def write(root: Path, catalog: Catalog, gen: Path) -> list[Path]:
    gen.mkdir(parents=True, exist_ok=True)
    deps, review, refarch = gen / "dependencies.md", gen / "review.md", gen / "refarch.md"
    deps.write_text(dependencies_table(catalog), encoding="utf-8")
    review.write_text(review_table(root / "data" / "review" / "compiled-configs.yaml"), encoding="utf-8")
    refarch.write_text(refarch_table(root / "notes" / "history" / "refarch.md"), encoding="utf-8")
    return [deps, review, refarch]

"""Dataset pages: one page per table of data/datapackage.json (fields, units, sources, errata)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bookgen import myst
from bookgen.evidence import dataset_label, has_package
from flashtune import datapackage

PREVIEW_ROWS = 8
SOURCES = "sources"  # the package's table of places in the seed documents
# Columns through which an errata table names the table an erratum is about.
ERRATA_TARGET_FIELDS = ("resource", "table", "dataset")


def _constraints(field: dict[str, Any]) -> str:
    cons = field.get("constraints", {})
    parts = []
    if cons.get("required"):
        parts.append("required")
    if cons.get("unique"):
        parts.append("unique")
    for key, sign in (("minimum", "≥"), ("maximum", "≤")):
        if key in cons:
            parts.append(f"{sign} {cons[key]}")
    if "enum" in cons:
        parts.append("one of " + ", ".join(str(v) for v in cons["enum"]))
    if "pattern" in cons:
        parts.append(f"matches {cons['pattern']}")
    return "; ".join(parts)


def _sources(desc: dict[str, Any]) -> list[str]:
    out = []
    for src in desc.get("sources", []) or []:
        if isinstance(src, dict):
            text = str(src.get("title") or src.get("path") or "")
            extra = [str(src[k]) for k in ("path", "description") if src.get(k) and str(src[k]) != text]
            out.append(myst.plain(" — ".join([text, *extra])))
        else:
            out.append(myst.plain(str(src)))
    return out


def referenced_sources(name: str, sch: dict[str, Any], rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Rows of the package's sources table that this table's rows point at (through a foreign key)."""
    wanted: set[str] = set()
    target: str | None = None
    for fk in sch.get("foreignKeys", []):
        ref = fk["reference"]
        if ref.get("resource") == SOURCES and name != SOURCES:
            cols = fk["fields"] if isinstance(fk["fields"], list) else [fk["fields"]]
            wanted |= {r[cols[0]] for r in rows if r.get(cols[0])}
            target = SOURCES
    if target is None:
        return []
    return [r for r in datapackage.rows(target) if r.get("id") in wanted]


def _errata_resources(names: list[str]) -> list[str]:
    return [n for n in names if "errat" in n.lower()]


def errata_for(resource: str, names: list[str]) -> list[dict[str, str]]:
    """Rows of the package's errata tables that are about resource."""
    found = []
    for errata in _errata_resources(names):
        for row in datapackage.rows(errata):
            if any(row.get(f) == resource for f in ERRATA_TARGET_FIELDS):
                found.append(row)
    return found


def resource_page(name: str, names: list[str]) -> str:
    desc = datapackage.describe(name)
    sch = desc.get("schema", {})
    rows = datapackage.rows(name)
    title = str(desc.get("title") or name)
    lines = [f"({dataset_label(name)})=", f"# {myst.plain(title)}", ""]
    if desc.get("description"):
        lines += [myst.plain(str(desc["description"])), ""]
    pk = sch.get("primaryKey")
    facts = [
        ("Resource", myst.code(name)),
        ("File", myst.code("data/" + str(desc.get("path", "")))),
        ("Rows", str(len(rows))),
    ]
    if pk:
        facts.append(("Primary key", myst.value(pk if isinstance(pk, list) else [pk])))
    lines += [*(f"- **{k}**: {v}" for k, v in facts), ""]
    sources = _sources(desc)
    used = referenced_sources(name, sch, rows)
    if sources or used:
        lines += ["## Sources", "", *(f"- {s}" for s in sources), ""]
    if used:
        keys = [k for k in used[0] if used[0][k] or any(r[k] for r in used)]
        lines.append(myst.table(keys, [[myst.plain(r[k]) for k in keys] for r in used]))
    lines += ["## Fields", ""]
    lines.append(
        myst.table(
            ["field", "type", "unit", "description", "constraints"],
            [
                (
                    myst.code(f["name"]),
                    f.get("type", "string"),
                    f.get("unit", ""),
                    myst.plain(str(f.get("description", f.get("title", "")))),
                    _constraints(f),
                )
                for f in sch.get("fields", [])
            ],
        )
    )
    fks = sch.get("foreignKeys", [])
    if fks:
        lines += ["## Links to other tables", ""]
        for fk in fks:
            target = fk["reference"].get("resource") or name
            cols = fk["fields"] if isinstance(fk["fields"], list) else [fk["fields"]]
            lines.append(f"- {myst.value(cols)} → {myst.ref(target, dataset_label(target))}")
        lines.append("")
    errata = errata_for(name, names)
    lines += ["## Errata", ""]
    if errata:
        lines.append(
            "Where the source document is ambiguous or self-contradictory, the data keeps what it printed "
            "and records the problem here:\n"
        )
        keys = [k for k in errata[0] if k not in ERRATA_TARGET_FIELDS]
        lines.append(myst.table(keys, [[myst.plain(r.get(k, "")) for k in keys] for r in errata]))
    else:
        lines += ["No errata recorded for this table.", ""]
    if rows:
        cols = list(rows[0])
        lines += [f"## First rows ({min(PREVIEW_ROWS, len(rows))} of {len(rows)})", ""]
        lines.append(myst.table(cols, [[myst.plain(r[c]) for c in cols] for r in rows[:PREVIEW_ROWS]]))
    return "\n".join(lines) + "\n"


def index_page(names: list[str]) -> str:
    lines = [
        "(dataset-reference)=",
        "# Datasets",
        "",
    ]
    if not names:
        return "\n".join(
            [*lines, "The data package (`data/datapackage.json`) was not present at build time.", ""]
        )
    rows = []
    for n in names:
        desc = datapackage.describe(n)
        rows.append(
            (myst.ref(n, dataset_label(n)), myst.plain(str(desc.get("title", ""))), len(datapackage.rows(n)))
        )
    lines += [
        f"The published measurements as {len(names)} tidy tables of a Frictionless data package "
        "(`data/datapackage.json`). Every table is validated against its schema when it is loaded; "
        "units sit in the schema, next to each field. Each row names the document, table or section it "
        "was transcribed from; problems in the sources are kept as they were printed and listed as errata.",
        "",
        "In a notebook, `flashtune.tables.load(name)` returns a table as a typed pandas DataFrame "
        "(units in `df.attrs['units']`).",
        "",
        myst.table(["table", "title", "rows"], rows),
    ]
    return "\n".join(lines)


def write(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    names = datapackage.resource_names() if has_package() else []
    pages = [out / "index.md"]
    pages[0].write_text(index_page(names), encoding="utf-8")
    for n in names:
        page = out / f"{myst.label(n)}.md"
        page.write_text(resource_page(n, names), encoding="utf-8")
        pages.append(page)
    return pages

"""sysctl.conf rules: catalogued kernel knobs (removed keys, ranges, unsafe values) and syntax problems.

Keys the catalog does not hold are not reported: which /proc/sys entries exist depends on the kernel
and its modules, and the linter must not depend on the machine it runs on.
"""

from __future__ import annotations

from flashtune.catalog import load_catalog
from flashtune.lint.common import Context, check_duplicates, check_value
from flashtune.lint.values import sysctl_value
from flashtune.parse.confdoc import ConfDoc


def lint(doc: ConfDoc, ctx: Context) -> None:
    catalog = load_catalog()
    for p in doc.problems:
        ctx.add((p.line or 1, p.column or 1), "error", "FT001", "", p.message, p.suggestion or "")
    check_duplicates(doc, ctx, what="file")
    for e in doc.entries:
        knob = catalog.get(e.key, "sysctl")
        if knob is None:
            continue
        if knob.misspelling_of:
            ctx.add(e, "error", "FT101", e.key, f"unknown sysctl {e.key} (a misspelling of {knob.misspelling_of})",
                    f"did you mean {knob.misspelling_of}?")  # fmt: skip
            continue
        if not knob.exists_in(None):
            soft = "ignore-errors" in e.flags
            ctx.add(e, "warning" if soft else "error", "FT102", e.key,
                    f"{e.key} no longer exists (removed in {_kernel(knob.removed)})"
                    + ("" if soft else ": `sysctl -p` fails on this line ('cannot stat')"),
                    f"use {knob.renamed_to}" if knob.renamed_to else "delete the line")  # fmt: skip
            continue
        check_value(knob, e, ctx, sysctl_value)


def _kernel(version: str | None) -> str:
    v = str(version or "?")
    return v.replace("linux-", "Linux ") if v.startswith("linux") else f"Linux {v}"

"""lint: check ceph.conf, my.cnf, sysctl.conf, CBT YAML and Ceph config-database JSON against the knob catalog
and each tool's rules.

    lint_text(text, kind, *, filename, ceph_release, mysql_flavour, context) -> list[Finding]
    lint_file(path, kind=None, ...) -> list[Finding]        (raises FlashtuneError if unreadable)
    detect_kind(path, text) -> str
Syntax errors come back as FT001 findings (never exceptions), every one of them where the format lets the
parser go on, so the compiler and the CLI can report them like any other defect.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from flashtune.errors import UsageError
from flashtune.fileio import read_text
from flashtune.lint import cbt, ceph, crosskey, deadknobs, mycnf, sysctl
from flashtune.lint.ceph import only_set
from flashtune.lint.common import Context
from flashtune.lint.detect import detect
from flashtune.lint.findings import SEVERITIES, Finding, sort_key
from flashtune.lint.placeholders import check_debug_levels, check_placeholders
from flashtune.parse import KINDS, ConfSyntaxError, parse_text
from flashtune.parse.confdoc import ConfDoc
from flashtune.releases import CEPH_RELEASES, DEFAULT_CEPH_RELEASE, MYSQL_FLAVOURS

__all__ = ["SEVERITIES", "Finding", "detect_kind", "lint_file", "lint_text"]

Rule = Callable[[ConfDoc, Context], None]


def linters() -> dict[str, tuple[Rule, ...]]:
    """The lint layer's registry: kind -> the rule modules that check it (config-database JSON gets the
    ceph.conf rules: the options and their meaning are the same)."""

    # deadknobs: the catalog's dependency facts (dead_when), shared with the compiler
    return {
        "ceph.conf": (ceph.lint, crosskey.ceph, deadknobs.lint),
        "ceph-config.json": (ceph.lint, crosskey.ceph, deadknobs.lint),
        "my.cnf": (mycnf.lint, crosskey.mycnf, deadknobs.lint),
        "sysctl.conf": (sysctl.lint, crosskey.sysctl, deadknobs.lint),
        "cbt.yaml": (cbt.lint,),
    }


def lint_text(
    text: str,
    kind: str,
    *,
    filename: str = "<string>",
    ceph_release: str = DEFAULT_CEPH_RELEASE,
    mysql_flavour: str | None = None,
    context: Mapping[str, Any] | None = None,
) -> list[Finding]:
    """mysql_flavour None: MariaDB 10.11 unless the file uses options only MySQL 8 has (then an FT003 note)."""

    if kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r}", suggestion=f"use one of {', '.join(KINDS)}")
    if ceph_release not in CEPH_RELEASES:
        raise UsageError(
            f"unknown Ceph release {ceph_release!r}", suggestion=f"use one of {', '.join(CEPH_RELEASES)}"
        )
    if mysql_flavour is not None and mysql_flavour not in MYSQL_FLAVOURS:
        raise UsageError(
            f"unknown MySQL flavour {mysql_flavour!r}", suggestion=f"use one of {', '.join(MYSQL_FLAVOURS)}"
        )
    ctx = Context(filename, ceph_release, mysql_flavour, dict(context or {}))
    try:
        doc = parse_text(text, kind, filename, recover=True)
    except ConfSyntaxError as e:
        if kind == "cbt.yaml":
            cbt.lint_broken(text, e, ctx)
            return sorted(ctx.findings, key=sort_key)
        return [
            Finding(filename, e.line or 1, e.column or 1, "error", "FT001", "", e.message, e.suggestion or "")
        ]
    for p in doc.problems:
        ctx.add((p.line or 1, p.column or 1), "error", "FT001", "", p.message, p.suggestion or "")
    if not doc.entries and not doc.problems and kind == "cbt.yaml":
        ctx.add(
            (1, 1), "error", "FT701", "", "empty CBT test plan", "add 'cluster:' and 'benchmarks:' mappings"
        )
    else:
        if kind == "ceph-config.json":
            doc = only_set(doc)

        check_placeholders(doc, ctx)
        if kind in ("ceph.conf", "ceph-config.json"):
            check_debug_levels(doc, ctx)
        for rule in linters()[kind]:
            rule(doc, ctx)
    placeholders = {(f.line, f.key) for f in ctx.findings if f.code == "FT205"}
    found = [f for f in ctx.findings if f.code != "FT201" or (f.line, f.key) not in placeholders]
    return sorted(without_risks_of_dead_lines(found), key=sort_key)


def without_risks_of_dead_lines(findings: list[Finding]) -> list[Finding]:
    """A line that changes nothing (FT401) carries no risk of its own: `osd_pool_default_min_size = 1` beside
    `osd_pool_default_size = 2` is what Ceph derives anyway, and the risk is the size, reported on its own line.
    An FT501/FT502 there would advise deleting a line whose deletion changes nothing."""
    dead = {(f.line, f.key) for f in findings if f.code == "FT401"}
    if not dead:
        return findings
    return [f for f in findings if f.code not in ("FT501", "FT502") or (f.line, f.key) not in dead]


def detect_kind(path: str | Path, text: str) -> str:
    """The file's kind from its content, else its name (FlashtuneError if neither says)."""

    return detect(path, text).kind


def lint_file(
    path: str | Path,
    kind: str | None = None,
    *,
    ceph_release: str = DEFAULT_CEPH_RELEASE,
    mysql_flavour: str | None = None,
    context: Mapping[str, Any] | None = None,
    text: str | None = None,
) -> list[Finding]:
    """Lint one file (or `text` under that name: standard input); without kind, the kind is detected and an
    FT003 note says so when the name alone would not have given it."""
    text = read_text(path) if text is None else text
    note: list[Finding] = []
    if kind is None:
        found = detect(path, text)
        kind = found.kind
        if found.by_name != found.kind:
            note.append(
                Finding(
                    str(path),
                    1,
                    1,
                    "info",
                    "FT003",
                    "kind",
                    f"linted as {kind}: {found.reason}",
                    f"pass --kind {kind} to say so, or --kind with the right kind",
                )
            )
    found_all = lint_text(
        text,
        kind,
        filename=str(path),
        ceph_release=ceph_release,
        mysql_flavour=mysql_flavour,
        context=context,
    )
    return sorted(note + found_all, key=sort_key)

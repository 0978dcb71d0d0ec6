"""lint: check ceph.conf, my.cnf, sysctl.conf and CBT YAML against the knob catalog and each tool's rules.

    lint_text(text, kind, *, filename, ceph_release, mysql_flavour, context) -> list[Finding]
    lint_file(path, kind=None, ...) -> list[Finding]        (raises FlashtuneError if unreadable)
    detect_kind(path, text) -> str
Syntax errors come back as FT001 findings (never exceptions) so the compiler and the CLI can report
them like any other defect.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flashtune.errors import FlashtuneError, UsageError
from flashtune.fileio import read_text
from flashtune.lint.findings import CODES, SEVERITIES, Finding, sort_key
from flashtune.parse import KINDS, ConfSyntaxError, parse_text
from flashtune.releases import CEPH_RELEASES, DEFAULT_CEPH_RELEASE, DEFAULT_MYSQL_FLAVOUR, MYSQL_FLAVOURS

__all__ = ["CODES", "SEVERITIES", "Finding", "detect_kind", "lint_file", "lint_text"]


def lint_text(text: str, kind: str, *, filename: str = "<string>", ceph_release: str = DEFAULT_CEPH_RELEASE,
              mysql_flavour: str = DEFAULT_MYSQL_FLAVOUR, context: Mapping[str, Any] | None = None) -> list[Finding]:  # fmt: skip
    from flashtune.lint import cbt, ceph, crosskey, mycnf, sysctl
    from flashtune.lint.common import Context

    if kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r}", suggestion=f"use one of {', '.join(KINDS)}")
    if ceph_release not in CEPH_RELEASES:
        raise UsageError(
            f"unknown Ceph release {ceph_release!r}", suggestion=f"use one of {', '.join(CEPH_RELEASES)}"
        )
    if mysql_flavour not in MYSQL_FLAVOURS:
        raise UsageError(f"unknown MySQL flavour {mysql_flavour!r}",
                         suggestion=f"use one of {', '.join(MYSQL_FLAVOURS)}")  # fmt: skip
    ctx = Context(filename, ceph_release, mysql_flavour, dict(context or {}))
    try:
        doc = parse_text(text, kind, filename)
    except ConfSyntaxError as e:
        if kind == "cbt.yaml":
            cbt.lint_broken(text, e, ctx)
            return sorted(ctx.findings, key=sort_key)
        return [
            Finding(filename, e.line or 1, e.column or 1, "error", "FT001", "", e.message, e.suggestion or "")
        ]
    if not doc.entries and not doc.problems and kind == "cbt.yaml":
        ctx.add(
            (1, 1), "error", "FT701", "", "empty CBT test plan", "add 'cluster:' and 'benchmarks:' mappings"
        )
    elif kind == "ceph.conf":
        ceph.lint(doc, ctx)
        crosskey.ceph(doc, ctx)
    elif kind == "my.cnf":
        mycnf.lint(doc, ctx)
        crosskey.mycnf(doc, ctx)
    elif kind == "sysctl.conf":
        sysctl.lint(doc, ctx)
        crosskey.sysctl(doc, ctx)
    else:
        cbt.lint(doc, ctx)
    if kind != "cbt.yaml" and (doc.entries or doc.problems):
        from flashtune.lint import deadknobs  # catalog dependency facts (dead_when), shared with the compiler

        deadknobs.lint(doc, ctx)
    return sorted(ctx.findings, key=sort_key)


def detect_kind(path: str | Path, text: str) -> str:
    """Guess the file kind from its name, then from its content."""
    name = Path(path).name.lower()
    if name.endswith((".yaml", ".yml")):
        return "cbt.yaml"
    if "sysctl" in name or str(path).startswith("/etc/sysctl.d/"):
        return "sysctl.conf"
    if name.endswith(".cnf") or name in ("my.cnf", "mariadb.cnf"):
        return "my.cnf"
    if "ceph" in name:
        return "ceph.conf"
    head = text[:20000]
    if re.search(r"^\s*(cluster|benchmarks)\s*:", head, re.M):
        return "cbt.yaml"
    if re.search(
        r"^\s*\[(mysqld|client|mysql|mariadb|server|mysqld_safe|mysqldump)[^\]]*\]", head, re.M | re.I
    ):
        return "my.cnf"
    if re.search(r"^\s*\[(global|osd|mon|mgr|mds|client)(\.[^\]]*)?\]", head, re.M):
        return "ceph.conf"
    if re.search(r"^\s*-?(net|vm|kernel|fs)[./][\w./-]+\s*=", head, re.M):
        return "sysctl.conf"
    raise FlashtuneError("cannot tell what kind of config this is", file=str(path),
                         suggestion=f"pass --kind ({', '.join(KINDS)})")  # fmt: skip


def lint_file(path: str | Path, kind: str | None = None, *, ceph_release: str = DEFAULT_CEPH_RELEASE,
              mysql_flavour: str = DEFAULT_MYSQL_FLAVOUR, context: Mapping[str, Any] | None = None) -> list[Finding]:  # fmt: skip
    text = read_text(path)
    k = kind or detect_kind(path, text)
    return lint_text(text, k, filename=str(path), ceph_release=ceph_release, mysql_flavour=mysql_flavour,
                     context=context)  # fmt: skip

"""FT401/FT402 from the catalog's dependency facts (`dead_when:`): lines that change nothing where they are.

The compiler drops the same lines from its own output (flashtune.compile.dead); here they are reported in
users' files with the condition that makes them dead. A condition that needs a fact the linter cannot read
from the file (the tuned profile in use, sockets, client type, whether the cluster exists) only fires when
the caller passes that fact in the context (`lint-config` options, or the compiler's own run).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from flashtune.catalog import Knob, load_catalog
from flashtune.catalog.deps import dead_reason
from flashtune.lint.ceph import objectstore_of
from flashtune.lint.common import Context
from flashtune.parse.confdoc import ConfDoc, Entry

_DOMAIN = {"ceph.conf": "ceph", "ceph-config.json": "ceph", "sysctl.conf": "sysctl", "my.cnf": "mysql"}
# Facts the linter takes from its context when given; init defaults to systemd (every supported distro).
_FACTS = ("device_type", "sockets", "tuned_include", "ceph_clients", "cluster")


def _facts(doc: ConfDoc, ctx: Context) -> dict[str, Any]:
    facts: dict[str, Any] = {k: ctx.extra.get(k) for k in _FACTS}
    facts["init"] = ctx.extra.get("init", "systemd")
    facts["mysql_flavour"] = ctx.mysql_flavour  # --mysql, else what the my.cnf rules detected
    if doc.kind in ("ceph.conf", "ceph-config.json"):
        facts["objectstore"] = objectstore_of(doc, ctx)
    return facts


def _lookup_order(section: str) -> tuple[str, ...]:
    """Where Ceph looks for a key a daemon in `section` reads: its own section, its type, [global]."""
    kind = section.split(".", 1)[0]
    return tuple(dict.fromkeys((section, kind, "global", "")))


@cache
def _dead_names(domain: str) -> frozenset[str]:
    """Names and aliases of the knobs of a domain that have dependency facts."""
    return load_catalog().names_with_dependencies(domain)


def _spelling(key: str, domain: str) -> str:
    """The key as the catalog spells it (Catalog.resolve's rules, for the common spellings)."""
    key = key.strip()
    if domain == "ceph":
        return "_".join(key.split())
    if domain == "mysql":
        low = key.lower().replace("-", "_")
        return low[6:] if low.startswith("loose_") else low
    return key.replace("/", ".")


def lint(doc: ConfDoc, ctx: Context) -> None:
    domain = _DOMAIN.get(doc.kind)
    if domain is None:
        return
    catalog = load_catalog()
    release = ctx.ceph_release if domain == "ceph" else ctx.mysql_flavour if domain == "mysql" else None
    eff = doc.effective()
    facts = _facts(doc, ctx)
    candidates = _dead_names(domain)
    for section, entries in eff.items():
        for e in entries.values():
            if _spelling(e.key, domain) not in candidates:
                continue  # most keys have no dependency facts: skip the catalog look-up (speed on 100k lines)
            knob = catalog.resolve(e.key, domain)
            if not isinstance(knob, Knob) or not knob.dead_when or e.value is None:
                continue
            status = catalog.status(knob, release) if release is not None else None
            if status is not None and not status.in_effect:
                continue  # not an option of this release at all: reported as such (FT101/FT102), not as dead

            def given(name: str, sec: str = section) -> Any:
                for s in _lookup_order(sec):
                    hit = eff.get(s, {}).get(name)
                    if hit is not None:
                        return hit.value
                return None

            def effective(name: str, sec: str = section) -> Any:
                value = given(name, sec)
                if value is not None:
                    return value
                other = catalog.get(name, domain)
                return other.default_for(release) if isinstance(other, Knob) else None

            dead = dead_reason(knob.dead_when, e.value, effective, facts, given)
            if dead is not None:
                _report(ctx, e, dead.kind, dead.why, dead.condition, dead.source)


def _report(ctx: Context, e: Entry, kind: str, why: str, condition: str, source: str) -> None:
    if kind == "create-only":
        ctx.add(
            e,
            "info",
            "FT402",
            e.key,
            f"{e.key}: {why} (here {condition}; {source})",
            "change existing pools and profiles with ceph osd pool set / erasure-code-profile set",
        )
        return
    what = {
        "lowers": "lowers what the system already sets",
        "overridden": "is not what the program runs with",
    }.get(kind, "does nothing here")
    ctx.add(
        e,
        "warning",
        "FT401",
        e.key,
        f"{e.key} = {e.value} {what}: {why} (because {condition}; {source})",
        {
            "requires": "delete the line, or change the setting it depends on",
            "overridden": "delete the line, or change what overrides it (above)",
        }.get(kind, "delete the line"),
    )

"""ceph.conf rules: every key against the catalog and the release's option list, values, dead knobs.

Ceph itself ignores unknown keys and replaces unparsable values with defaults without a word
(ceph-real.md section 2), so each of these findings is something the cluster would silently not do.
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from functools import cache
from typing import Any

from flashtune.catalog import Knob, load_catalog
from flashtune.catalog.names import all_ceph_option_names, ceph_option_names, last_ceph_release_with
from flashtune.catalog.status import Status
from flashtune.lint import ruledata
from flashtune.lint.common import Context, check_duplicates, check_value
from flashtune.lint.findings import Finding
from flashtune.lint.values import ceph_value
from flashtune.parse.confdoc import ConfDoc, Entry
from flashtune.releases import CEPH_RELEASES, ceph_index

# Lookup order Ceph uses for a daemon: [type.id] > [type] > [global]; for file-wide rules we merge
# global then the daemon-type sections, later winning.
_MERGE_ORDER = ("global", "mon", "mgr", "osd", "mds", "client")


def objectstore_of(doc: ConfDoc, ctx: Context) -> str:
    explicit = ctx.extra.get("objectstore")
    if explicit:
        return str(explicit)
    eff = doc.effective()
    for section in ("osd", "global"):
        e = eff.get(section, {}).get("osd_objectstore")
        if e is not None and e.value:
            return e.value.strip().lower()
    return load_catalog().default_objectstore(ctx.ceph_release) or "bluestore"


def merged(doc: ConfDoc) -> dict[str, Entry]:
    """key -> winning entry across [global] and the daemon-type sections (for cross-key rules)."""
    eff = doc.effective()
    out: dict[str, Entry] = {}
    for section in _MERGE_ORDER:
        out.update(eff.get(section, {}))
    return out


def _release_at_or_after(release: str, boundary: str | None) -> bool:
    if boundary is None or boundary not in CEPH_RELEASES or release not in CEPH_RELEASES:
        return True
    return ceph_index(release) >= ceph_index(boundary)


@cache
def _file_only_names() -> frozenset[str]:
    return frozenset(str(item["key"]) for item in ruledata.rules()["ceph"]["file_only_keys"])


def _is_file_only(e: Entry, rules: dict[str, Any]) -> bool:
    if e.key not in _file_only_names():
        return False
    for item in rules["file_only_keys"]:
        if item["key"] == e.key and any(fnmatch.fnmatchcase(e.section, pat) for pat in item["sections"]):
            return True
    return False


@cache
def _renamed() -> dict[str, dict[str, str]]:
    """old name -> {new, since}: upstream renames of options the catalog does not hold (rules.yaml)."""
    return {
        str(r["old"]): {k: str(v) for k, v in r.items()} for r in ruledata.rules()["ceph"]["renamed_options"]
    }


@cache
def _suggest_pool(release: str) -> frozenset[str]:
    """The names a did-you-mean may offer for this release: its option list plus the catalog's Ceph knobs."""
    pool = set(ceph_option_names(release) or all_ceph_option_names())
    pool |= {
        k.name for k in load_catalog().in_domain("ceph") if not k.misspelling_of and k.exists_in(release)
    }
    return frozenset(pool)


class CephLinter:
    def __init__(self, doc: ConfDoc, ctx: Context) -> None:
        self.doc = doc
        self.ctx = ctx
        self.rules: dict[str, Any] = ruledata.rules()["ceph"]
        self.catalog = load_catalog()
        self.release = ctx.ceph_release
        self.names = ceph_option_names(self.release)
        self.objectstore = objectstore_of(doc, ctx)
        self.filestore_prefixes = tuple(self.rules["filestore_prefixes"])
        self.value_rules = [  # each rule's pattern compiled once, here
            {**r, "pattern": re.compile(r["match"])}
            for r in self.rules["value_rules"]
            if _release_at_or_after(self.release, r.get("from"))
        ]
        self.suggest_pool: frozenset[str] | None = None

    def run(self) -> None:
        # the config database keys an option by section, mask and name: `osd_memory_target` for host:a and for
        # host:b (or class:ssd) in [osd] are two settings, not one set twice
        check_duplicates(self.doc, self.ctx, scope=_mask)
        daemons = self.rules["old_style_daemons"]
        for s in self.doc.sections:
            typ = s.name.rstrip("0123456789")
            num = s.name[len(typ) :]
            if num and typ in daemons:
                self.ctx.add(
                    (s.line, s.column),
                    "warning",
                    "FT107",
                    s.name,
                    f"old-style section name [{s.name}]: daemons look for [{typ}.{num}] and ignore it",
                    f"rename it to [{typ}.{num}]",
                )
        self.entries()

    def entries(self) -> None:
        """Every entry; a key = value written many times is judged once and its findings repeated
        at each place (a file of one key set 10,000 times must not cost 10,000 judgements)."""
        ctx = self.ctx
        # the section matters only to keys Ceph reads from the file in some sections (mon addr in [mon.X])
        file_only = _file_only_names()
        keys = [(e.raw_key, e.value, e.section if e.key in file_only else "") for e in self.doc.entries]
        seen = Counter(keys)
        memo: dict[tuple[str, str | None, str], list[tuple[Finding, bool]]] = {}
        for e, mk in zip(self.doc.entries, keys, strict=True):
            if seen[mk] == 1:
                self.entry(e)
                continue
            got = memo.get(mk)
            if got is None:
                rec = Context(ctx.filename, ctx.ceph_release, ctx.mysql_flavour, ctx.extra)
                rec.suggestions_left = ctx.suggestions_left
                self.ctx = rec
                try:
                    self.entry(e)
                finally:
                    self.ctx = ctx
                ctx.suggestions_left = rec.suggestions_left
                got = memo[mk] = [
                    (f, (f.line, f.column) == (e.value_line, e.value_column)) for f in rec.findings
                ]
            for f, on_value in got:
                ctx.add(e, f.severity, f.code, f.key, f.message, f.suggestion, on_value=on_value)

    def candidates(self) -> frozenset[str]:
        if self.suggest_pool is None:
            self.suggest_pool = _suggest_pool(self.release)
        return self.suggest_pool

    def entry(self, e: Entry) -> None:
        ctx = self.ctx
        key = e.key
        if key.startswith("mgr/"):
            return  # mgr/<module>/<option>: a manager module's option; the module checks it when it loads
        if "-" in key or key != key.lower():
            canon = key.replace("-", "_").lower()
            ctx.add(
                e,
                "error",
                "FT105",
                key,
                f"{e.raw_key!r}: ceph.conf keys are not case-folded and '-' is not '_' there, so Ceph "
                "silently ignores this line",
                f"write {canon} = {e.value}",
            )
            return
        if _is_file_only(e, self.rules):
            return
        knob = self.catalog.get(key, "ceph")
        if knob is not None:
            status = self.catalog.status(knob, self.release, self.objectstore)
            if status.state == "misspelt":
                self.misspelt(e, knob)
                return
            if status.state in ("not yet", "renamed", "removed"):
                self.not_in_release(e, status)
                return
            self.noop(e, status)
            check_value(knob, e, ctx, ceph_value)
            self.value_rule(e)
            return
        known = self.names if self.names is not None else all_ceph_option_names()
        if key in known:
            if key.startswith(self.filestore_prefixes):  # uncatalogued FileStore keys, by name
                self.noop(e, self.catalog.component_status("filestore", self.release, self.objectstore))
            self.value_rule(e)
            return
        renamed = _renamed().get(key)
        if renamed is not None and _release_at_or_after(self.release, renamed["since"]):
            self.ctx.add(
                e,
                "error",
                "FT103",
                key,
                f"{key} was renamed to {renamed['new']} in {renamed['since']}; Ceph {self.release} "
                "silently ignores the old name",
                f"{renamed['new']} = {e.value}",
            )
            return
        last = last_ceph_release_with(key)
        if last is not None and self.names is not None and ceph_index(last) < ceph_index(self.release):
            nxt = CEPH_RELEASES[ceph_index(last) + 1]
            ctx.add(
                e,
                "error",
                "FT102",
                key,
                f"{key} was removed after {last} (absent from {nxt} on); Ceph {self.release} silently ignores it",
                "delete the line",
            )
            return
        close = ctx.suggest(key, self.candidates())
        hint = f"did you mean {close[0]}?" if close else "check the spelling against `ceph config ls`"
        if self.names is None:
            ctx.add(
                e,
                "info",
                "FT101",
                key,
                f"{key} is not an option flashtune knows; it has no full option list for {self.release} "
                "to be sure",
                hint,
            )
            return
        if key.startswith("debug_") and self.release not in self.rules["debug_names_complete"]:
            ctx.add(
                e,
                "info",
                "FT101",
                key,
                f"{key} is not a debug subsystem flashtune knows for {self.release}; its list of subsystems is "
                "Pacific's, and later releases added some (src/common/subsys.h)",
                hint,
            )
            return
        ctx.add(
            e, "error", "FT101", key, f"unknown option {key!r}: Ceph {self.release} silently ignores it", hint
        )

    def misspelt(self, e: Entry, knob: Knob) -> None:
        target = knob.misspelling_of or ""
        real = self.catalog.get(target, "ceph")
        msg = f"unknown option {e.key!r} (a misspelling of {target}): Ceph silently ignores it"
        hint = f"did you mean {target}?"
        gone = self.catalog.status(real, self.release) if real is not None else None
        if gone is not None and gone.state in ("renamed", "removed"):
            msg += f"; {target} itself was removed in {gone.since}"
            hint = f"use {gone.target}" if gone.target else "delete the line"
        elif real is None and self.names is not None and target not in self.names:
            hint = "delete the line"
        self.ctx.add(e, "error", "FT101", e.key, msg, hint)

    def not_in_release(self, e: Entry, status: Status) -> None:
        if status.state == "renamed":
            self.ctx.add(
                e,
                "error",
                "FT103",
                e.key,
                f"{e.key} was renamed to {status.target} in {status.since}; Ceph {self.release} "
                "silently ignores the old name",
                f"{status.target} = {e.value}",
            )
        elif status.state == "removed":
            self.ctx.add(
                e,
                "error",
                "FT102",
                e.key,
                f"{e.key} was removed in {status.since}; Ceph {self.release} silently ignores it",
                "delete the line",
            )
        else:
            self.ctx.add(
                e,
                "error",
                "FT101",
                e.key,
                f"{e.key} does not exist yet in {self.release} (added in {status.since})",
                f"use a release from {status.since} on, or delete the line",
            )

    def noop(self, e: Entry, status: Status) -> None:
        """FT401 for a key only FileStore reads, where the catalog's status says no FileStore runs."""
        if status.state != "dead":
            return
        if status.component is None:
            self.ctx.add(
                e,
                "warning",
                "FT401",
                e.key,
                f"{e.key} tunes FileStore, which {self.release} no longer has (removed in "
                f"{status.since}): the line does nothing",
                "delete the line",
            )
        else:
            self.ctx.add(
                e,
                "warning",
                "FT401",
                e.key,
                f"{e.key} tunes FileStore, but the OSDs use {status.component}: the line does nothing",
                "delete the line, or tune the BlueStore equivalent",
            )

    def value_rule(self, e: Entry) -> None:
        for r in self.value_rules:
            if r["key"] == e.key and e.value is not None and r["pattern"].search(e.value.strip()):
                self.ctx.add(
                    e,
                    r["severity"],
                    r["code"],
                    e.key,
                    f"{e.key} = {e.value}: {r['message']}",
                    r.get("suggestion", ""),
                    on_value=True,
                )


def _mask(e: Entry) -> tuple[str, ...]:
    return tuple(f for f in e.flags if f.startswith("mask:"))


def _first_sentence(text: str) -> str:
    s = text.strip().split(". ")[0].strip()
    return s if len(s) < 200 else ""


def lint(doc: ConfDoc, ctx: Context) -> None:
    CephLinter(doc, ctx).run()


SHOW_METAVARIABLES = ("name", "cluster")  # printed first by `config show`, not options


def only_set(doc: ConfDoc) -> ConfDoc:
    """The settings someone made, from Ceph config JSON that lists defaults too: `ceph config show-with-defaults`
    items whose source is "default", and in `ceph daemon X config show` (every option, no source) the name and
    cluster metavariables, options flashtune has no catalog entry for (the daemon printing them proves they
    exist; their values cannot be told from defaults) and values that are the option's default in some release
    (the dump does not say its release)."""
    if not any("source:default" in e.flags or "every-option" in e.flags for e in doc.entries):
        return doc
    catalog = load_catalog()
    kept = []
    for e in doc.entries:
        if "source:default" in e.flags:
            continue
        if "every-option" in e.flags:
            knob = catalog.get(e.key, "ceph")
            if e.key in SHOW_METAVARIABLES or knob is None or knob.is_a_default(e.value):
                continue
        kept.append(e)
    return ConfDoc(
        doc.kind, doc.filename, kept, doc.sections, doc.includes, doc.data, doc.problems, doc.line_count
    )

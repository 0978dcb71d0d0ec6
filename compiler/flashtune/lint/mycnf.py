"""my.cnf rules: server-group options against the catalog and the flavour's option list.

MariaDB refuses to start on an unknown option (unless written `loose-`), warns and ignores removed ones,
and disables InnoDB (still exit 0) on a bad innodb_* value (mariadb-fio-sysctl.md section 1).
"""

from __future__ import annotations

import fnmatch
from typing import Any

from flashtune.catalog import Knob, load_catalog
from flashtune.lint import ruledata
from flashtune.lint.common import Context, check_duplicates, check_value, did_you_mean
from flashtune.lint.values import mysql_value
from flashtune.parse.confdoc import ConfDoc, Entry


def is_server_group(group: str, rules: dict[str, Any]) -> bool:
    return any(fnmatch.fnmatchcase(group, pat) for pat in rules["server_groups"])


class MycnfLinter:
    def __init__(self, doc: ConfDoc, ctx: Context) -> None:
        self.doc = doc
        self.ctx = ctx
        self.rules: dict[str, Any] = ruledata.rules()["mysql"]
        self.catalog = load_catalog()
        self.flavour = ctx.mysql_flavour
        self.names = ruledata.mysql_option_names(self.flavour)

    def run(self) -> None:
        check_duplicates(self.doc, self.ctx)
        for e in self.doc.entries:
            if is_server_group(e.section, self.rules):
                self.entry(e)

    def resolve(self, key: str) -> tuple[str, Knob | None, bool]:
        """(name, knob, negated) with MySQL's skip-/disable-/enable- prefixes for booleans resolved."""
        knob = self.catalog.get(key, "mysql")
        if knob is not None or (self.names is not None and key in self.names):
            return key, knob, False
        for prefix in self.rules["bool_prefixes"]:
            if key.startswith(prefix):
                base = key[len(prefix) :]
                bk = self.catalog.get(base, "mysql")
                if bk is not None or (self.names is not None and base in self.names):
                    return base, bk, prefix != "enable_"
        return key, None, False

    def entry(self, e: Entry) -> None:
        ctx = self.ctx
        loose = "loose" in e.flags
        name, knob, _neg = self.resolve(e.key)
        if knob is not None and knob.misspelling_of:
            ctx.add(e, "warning" if loose else "error", "FT101", e.key,
                    f"unknown option {e.key!r} (a misspelling of {knob.misspelling_of})",
                    f"did you mean {knob.misspelling_of}?")  # fmt: skip
            return
        if knob is not None and not knob.exists_in(self.flavour):
            accepted = name in self.rules["accepted_removed"].get(self.flavour, [])
            if knob.renamed_to:
                ctx.add(e, "error", "FT103", e.key, f"{e.key} is not in {self.flavour}; it was replaced by "
                        f"{knob.renamed_to}", f"use {knob.renamed_to}")  # fmt: skip
            elif accepted:
                ctx.add(e, "warning", "FT102", e.key,
                        f"{e.key} was removed from {self.flavour}: the server accepts it, warns, and ignores it",
                        "delete the line")  # fmt: skip
            else:
                ctx.add(e, "warning" if loose else "error", "FT102", e.key,
                        f"{e.key} does not exist in {self.flavour}"
                        + ("" if loose else ": the server refuses to start ('unknown variable')"),
                        "delete the line")  # fmt: skip
            return
        if knob is not None:
            if e.value is not None:
                check_value(knob, e, ctx, mysql_value)
            return
        if self.names is None or name in self.names:
            return  # no full option list for this flavour: only catalogued facts are checked
        close = did_you_mean(name, self.names)
        ctx.add(e, "warning" if loose else "error", "FT101", e.key,
                f"unknown option {e.key!r} for {self.flavour}"
                + (" (loose-: the server only warns)" if loose else ": the server refuses to start"),
                f"did you mean {close[0]}?" if close else "check the name against `mariadbd --help --verbose`")  # fmt: skip


def lint(doc: ConfDoc, ctx: Context) -> None:
    MycnfLinter(doc, ctx).run()

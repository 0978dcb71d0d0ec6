"""my.cnf rules: server-group options against the catalog and the flavour's option list.

What MariaDB 10.11 does with an option it does not list (each probed with `mariadbd --defaults-file=F --help
--verbose`; tests/real/test_lint_mycnf_real.py re-checks every claim on real files):
- an unknown name aborts start-up ("unknown variable"), unless written `loose-` (a warning);
- a removed option kept for old files is accepted with a warning and does nothing (rules.yaml accepted_removed,
  the catalog's when_absent);
- a unique prefix of a longer option name is accepted with a note ("Using unique option prefix");
- a bad value of an innodb_* option disables the InnoDB plugin rather than stopping the parse.
Enum options take their position as a number (query_cache_type = 1 is ON).
"""

from __future__ import annotations

import bisect
import fnmatch
from dataclasses import replace
from functools import cache
from typing import Any

from flashtune.catalog import Knob, load_catalog
from flashtune.catalog.names import mysql_negative_values, mysql_option_minimums, mysql_option_names
from flashtune.catalog.spelling import mysql_option
from flashtune.lint import ruledata
from flashtune.lint.common import Context, check_duplicates, check_value, did_you_mean
from flashtune.lint.values import mysql_value
from flashtune.parse.confdoc import ConfDoc, Entry
from flashtune.releases import DEFAULT_MYSQL_FLAVOUR


def is_server_group(group: str, rules: dict[str, Any]) -> bool:
    return any(fnmatch.fnmatchcase(group, pat) for pat in rules["server_groups"])


def reads_group(group: str, flavour: str, rules: dict[str, Any]) -> bool:
    """Does this flavour's server read the group? [mysqld-5.7] is for 5.7 only, [mariadb-10.6] for 10.6 only:
    options there are not this server's business (files written for several versions rely on that)."""
    read = rules["groups_read"].get(flavour)
    return group in read if read is not None else is_server_group(group, rules)


@cache
def _sorted_names(flavour: str) -> list[str]:
    return sorted(mysql_option_names(flavour) or ())


def prefix_matches(name: str, flavour: str) -> list[str]:
    """Option names of the flavour that start with name (MySQL's getopt accepts a unique prefix)."""
    names = _sorted_names(flavour)
    i = bisect.bisect_left(names, name)
    out = []
    while i < len(names) and names[i].startswith(name):
        out.append(names[i])
        i += 1
    return out


def detect_flavour(doc: ConfDoc, rules: dict[str, Any]) -> tuple[str, list[str]]:
    """(flavour, marker keys): a MySQL flavour when server groups use options only MySQL has (the newest
    flavour any marker needs), else MariaDB 10.11."""
    by_flavour: dict[str, set[str]] = {f: set(names) for f, names in rules["mysql_markers"].items()}
    found: dict[str, list[str]] = {}
    for e in doc.entries:
        key = e.key.lower()
        if not is_server_group(e.section, rules):
            continue
        for flavour, names in by_flavour.items():
            if key in names or (key.startswith("group_replication_") and flavour == "mysql-5.7"):
                found.setdefault(flavour, []).append(key)
    if not found:
        return DEFAULT_MYSQL_FLAVOUR, []
    newest = max(found, key=list(by_flavour).index)
    hints = [e.key.lower() for e in doc.entries if e.key.lower() in set(rules.get("mysql8_hints", ()))]
    if newest == "mysql-5.7" and hints:
        newest = "mysql-8.0"
        found["mysql-8.0"] = hints
    return newest, list(dict.fromkeys(k for keys in found.values() for k in keys))


def loaded_plugins(doc: ConfDoc, rules: dict[str, Any]) -> tuple[str, ...]:
    """Option-name prefixes of the plugins the file loads: plugin_load_add = file_key_management makes
    file_key_management_* options (the server registers them when it loads the library)."""
    out: list[str] = []
    for e in doc.entries:
        if e.key.lower() not in ("plugin_load_add", "plugin_load", "early_plugin_load") or not e.value:
            continue
        if not is_server_group(e.section, rules):
            continue
        for item in e.value.replace(",", ";").split(";"):
            name, _, lib = item.strip().partition("=")
            base = (lib or name).strip().rsplit("/", 1)[-1].removesuffix(".so").removesuffix(".dll")
            for p in {name.strip(), base, base.removeprefix("ha_")}:
                if p:
                    out.append(p.lower().replace("-", "_") + "_")
    return tuple(dict.fromkeys(out))


class MycnfLinter:
    def __init__(self, doc: ConfDoc, ctx: Context) -> None:
        self.doc = doc
        self.ctx = ctx
        self.rules: dict[str, Any] = ruledata.rules()["mysql"]
        self.catalog = load_catalog()
        if ctx.mysql_flavour is None:
            flavour, markers = detect_flavour(doc, self.rules)
            if markers:
                shown = ", ".join(markers[:4]) + (" ..." if len(markers) > 4 else "")
                ctx.add(
                    (1, 1),
                    "info",
                    "FT003",
                    "mysql-flavour",
                    f"checked as {flavour}, not {DEFAULT_MYSQL_FLAVOUR}: the file sets options only MySQL "
                    f"has ({shown})",
                    f"pass --mysql {flavour} (or another flavour) to say so",
                )
            ctx.mysql_flavour = flavour
        self.flavour: str = ctx.mysql_flavour
        self.names = mysql_option_names(self.flavour)
        self.repeatable = frozenset(self.rules["repeatable"])
        self.plugins = loaded_plugins(doc, self.rules)

    def run(self) -> None:
        check_duplicates(self.doc, self.ctx, skip=self.repeatable)
        for e in self.doc.entries:
            if reads_group(e.section, self.flavour, self.rules):
                self.entry(e)

    def known(self, name: str) -> bool:
        return self.names is not None and name in self.names

    def resolve(self, key: str) -> tuple[str, Knob | None, bool]:
        """(name, knob, negated) with MySQL's skip-/disable-/enable- prefixes for booleans resolved."""
        name, negated = mysql_option(
            key.lower(), lambda n: self.catalog.get(n, "mysql") is not None or self.known(n)
        )
        return name, self.catalog.get(name, "mysql"), negated

    def optimizer_switch(self, e: Entry) -> None:
        """Each flag=on|off|default must be a flag this flavour has: an unknown one stops the server."""
        flags = self.rules["optimizer_switch_flags"].get(self.flavour)
        if not flags:
            return
        for item in (e.value or "").split(","):
            flag, _, value = item.strip().partition("=")
            if not flag:
                continue
            if flag not in flags or value.strip().lower() not in ("on", "off", "default"):
                close = did_you_mean(flag, frozenset(flags))
                ctx_hint = (
                    f"did you mean {close[0]}?" if close else "see `mariadbd --help --verbose` for the flags"
                )
                self.ctx.add(
                    e,
                    "error",
                    "FT203",
                    e.key,
                    f"optimizer_switch: {item.strip()!r} is not a flag=on|off of {self.flavour}: the "
                    "server refuses to start ('Error while setting value')",
                    ctx_hint,
                    on_value=True,
                )

    def minimum(self, e: Entry, name: str) -> None:
        """A number the server does not take as written (data/mysql-option-minimums/, measured with mariadbd):
        below the option's minimum it raises the value and warns ("unsigned value 0 adjusted to 4096"), so the
        file does not say what runs; a negative one it refuses, and stops or leaves the option's plugin out."""
        if e.value is None:
            return
        try:
            value = mysql_value("int", e.value)
        except ValueError:
            return  # not a plain number: the option's own type rules apply
        if not isinstance(value, int):
            return
        negative = mysql_negative_values(self.flavour).get(name)
        if value < 0 and negative in ("stops", "plugin-off"):
            does = (
                "the server refuses to start"
                if negative == "stops"
                else "the server does not load the plugin the option belongs to"
                + (
                    " (InnoDB: it then stops, 'Unknown/unsupported storage engine')"
                    if name.startswith("innodb_")
                    else ""
                )
            )
            self.ctx.add(
                e,
                "error",
                "FT201",
                e.key,
                f"{e.key} = {e.value}: {self.flavour} takes no negative number here ('Incorrect unsigned value'): "
                f"{does}",
                "use 0 or a positive number (or delete the line)",
                on_value=True,
            )
            return
        low = mysql_option_minimums(self.flavour).get(name)
        if low is not None and value < low:
            self.ctx.add(
                e,
                "warning",
                "FT202",
                e.key,
                f"{e.key} = {e.value} is below {self.flavour}'s minimum {low}: the server raises it to {low} "
                "and warns at start",
                f"use at least {low} (or delete the line)",
                on_value=True,
            )

    def accepted_removed(self, name: str) -> bool:
        return name in self.rules["accepted_removed"].get(self.flavour, [])

    def absent(self, e: Entry, knob: Knob, loose: bool) -> None:
        ctx = self.ctx
        how = knob.when_absent.get(self.flavour) if knob.when_absent else None
        if how is None and self.accepted_removed(knob.name):
            how = "warn"
        if knob.renamed_to:
            ctx.add(
                e,
                "error",
                "FT103",
                e.key,
                f"{e.key} is not in {self.flavour}; it was replaced by {knob.renamed_to}",
                f"use {knob.renamed_to}",
            )
        elif how in ("warn", "ignore"):
            ctx.add(
                e,
                "warning",
                "FT102",
                e.key,
                f"{e.key} was removed from {self.flavour}: the server accepts it"
                + (", warns," if how == "warn" else "")
                + " and ignores it",
                "delete the line",
            )
        elif how == "abort" and not loose:
            ctx.add(
                e,
                "error",
                "FT102",
                e.key,
                f"{e.key} does not exist in {self.flavour}: the server refuses to start ('unknown variable')",
                f"delete the line, or write loose-{e.raw_key} to make it a warning",
            )
        else:
            ctx.add(
                e,
                "warning" if loose else "error",
                "FT102",
                e.key,
                f"{e.key} does not exist in {self.flavour}"
                + (" (loose-: the server only warns)" if loose else ""),
                "delete the line",
            )

    def entry(self, e: Entry) -> None:
        ctx = self.ctx
        loose = "loose" in e.flags
        name, knob, negated = self.resolve(e.key)
        status = self.catalog.status(knob, self.flavour) if knob is not None else None
        if knob is not None and status is not None and status.state == "misspelt":
            ctx.add(
                e,
                "warning" if loose else "error",
                "FT101",
                e.key,
                f"unknown option {e.key!r} (a misspelling of {status.target})",
                f"did you mean {status.target}?",
            )
            return
        if knob is not None and status is not None and not status.in_effect:
            self.absent(e, knob, loose)
            return
        if knob is not None:
            if e.value is None and knob.type == "bool":
                # a bare boolean option is ON (`skip-` or `disable-` before it: OFF), as the server reads it
                e = replace(e, value="OFF" if negated else "ON", value_line=e.line, value_column=e.column)
            if e.value is not None:
                check_value(knob, e, ctx, mysql_value)
                if knob.min is None:
                    self.minimum(e, name)
            return
        if name == "optimizer_switch" and e.value is not None:
            self.optimizer_switch(e)
        if not loose and not name.startswith(self.plugins) and self.plugin_option(e, name):
            return
        if self.names is None or self.known(name):
            if e.value is not None:
                self.minimum(e, name)
            return  # no full option list for this flavour: only catalogued facts are checked
        if name.startswith(self.plugins):
            return  # an option of a plugin the file loads (plugin_load_add): the plugin checks it
        if self.accepted_removed(name):
            ctx.add(
                e,
                "warning",
                "FT102",
                e.key,
                f"{e.key} was removed from {self.flavour}: the server accepts it, warns, and ignores it",
                "delete the line",
            )
            return
        longer = prefix_matches(name, self.flavour)
        if len(longer) == 1:
            full = longer[0]
            ctx.add(
                e,
                "warning",
                "FT101",
                e.key,
                f"{e.key} is not an option name but a unique prefix of {full}, which {self.flavour} accepts "
                "with a note that it is error-prone",
                f"write {full}",
            )
            full_knob = self.catalog.get(full, "mysql")
            if full_knob is not None and e.value is not None:
                check_value(full_knob, e, ctx, mysql_value)
            return
        if longer:
            shown = ", ".join(longer[:4])
            ctx.add(
                e,
                "warning" if loose else "error",
                "FT101",
                e.key,
                f"{e.key} is a prefix of several options ({shown}): the server reports an ambiguous option"
                + (" and disables InnoDB" if name.startswith("innodb_") else ""),
                "write the full option name",
            )
            return
        close = ctx.suggest(name, self.names)
        bare = e.raw_key.lstrip("-").strip()
        if e.raw_key.startswith("--") and bare.replace("-", "_").lower() in self.names:
            # mariadbd 10.11 reads `--max_connections = 200` in a file as a variable named '--max_connections'
            # and refuses it ('unknown variable'); the command-line dashes do not belong in an option file
            close = [f"{bare} (without the leading '--')"]
        ctx.add(
            e,
            "warning" if loose else "error",
            "FT101",
            e.key,
            f"unknown option {e.key!r} for {self.flavour}"
            + (
                " (loose-: the server only warns)"
                if loose
                else ": the server refuses to start ('unknown variable')"
            ),
            f"did you mean {close[0]}?" if close else "check the name against `mariadbd --help --verbose`",
        )

    def plugin_option(self, e: Entry, name: str) -> bool:
        """FT101 for an option that exists only with a plugin the file does not load (rules.yaml
        plugin_options): say which plugin, and that the server refuses to start without it."""
        for p in self.rules["plugin_options"].get(self.flavour, ()):
            plugin = p.get("plugin")
            if not name.startswith(p["prefix"]) or (
                plugin is not None and plugin.removesuffix(".so").lower() + "_" in self.plugins
            ):
                continue
            if plugin is None:
                why, fix = p["elsewhere"], "delete the line"
            else:
                why = f"an option of the {plugin} plugin, which this file does not load"
                fix = f"load the plugin first (plugin_load_add = {plugin}), or write loose-{name} to skip it without"
            self.ctx.add(
                e,
                "error",
                "FT101",
                e.key,
                f"{e.key} is {why}: {self.flavour} refuses to start ('unknown variable')",
                fix,
            )
            return True
        return False


def lint(doc: ConfDoc, ctx: Context) -> None:
    MycnfLinter(doc, ctx).run()

"""Values left behind: FT205, a template's placeholder never filled in (`<SIZE>`, `{{ mon_ip }}`, `CHANGEME`);
FT206, a Ceph debug level left at a debugging verbosity (`debug_osd = 20/20`).

The program reads the placeholder literally: Ceph and MariaDB take `<NETWORK>` as a string where the option is
a string (public_network then matches no interface), and refuse or default it where it is a number (which
FT201 also says; the placeholder finding says why). Ceph expands `$name` and `${name}` metavariables itself,
so those are not placeholders in a ceph.conf.
"""

from __future__ import annotations

import re

from flashtune.lint.common import Context
from flashtune.parse.confdoc import ConfDoc

# <your network>, <SIZE>; {{ jinja }}; %(python)s; ${SHELL_VAR} (except in ceph.conf: Ceph's own)
_MARKED = re.compile(r"<[A-Za-z_][\w .:/-]*>|\{\{.*?\}\}|%\([A-Za-z_]\w*\)s")
_SHELL = re.compile(r"\$\{[A-Za-z_]\w*\}")
_WORDS = re.compile(r"(?:CHANGE[_-]?ME|REPLACE[_-]?ME|FILL[_-]?ME|FIXME|TODO|TBD|XXX+|YOUR[_-]\w+)", re.I)


def check_placeholders(doc: ConfDoc, ctx: Context) -> None:
    for e in doc.entries:
        if e.value is None:
            continue
        v = e.value.strip()
        m = _MARKED.search(v) or (None if doc.kind.startswith("ceph") else _SHELL.search(v))
        found = m.group(0) if m else (v if _WORDS.fullmatch(v) else None)
        if found is None:
            continue
        ctx.add(
            e,
            "error",
            "FT205",
            e.key,
            f"{e.key} = {e.value!r}: {found!r} is a placeholder that was never filled in; the program reads it "
            "as written",
            "put the real value in (or delete the line to keep the default)",
            on_value=True,
        )


# Ceph's debug_<subsystem> = LOG or LOG/MEMORY levels (documented 1 terse .. 20 verbose); 10 and above are for a
# debugging session: every step of every operation is formatted (and at the first number, written to the log)
_DEBUG = re.compile(r"\s*(\d+)\s*(?:/\s*(\d+)\s*)?")
DEBUG_LEVEL = 10


def check_debug_levels(doc: ConfDoc, ctx: Context) -> None:
    for e in doc.entries:
        if e.value is None or not e.key.startswith("debug_"):
            continue
        m = _DEBUG.fullmatch(e.value)
        if m is None:
            continue
        levels = [int(x) for x in m.groups() if x is not None]
        if max(levels) < DEBUG_LEVEL:
            continue
        ctx.add(
            e,
            "warning",
            "FT206",
            e.key,
            f"{e.key} = {e.value}: debug level {max(levels)} is a debugging session's; every operation's "
            "steps are formatted"
            + (" and written to the log" if levels[0] >= DEBUG_LEVEL else " into memory"),
            "remove the line once the debugging is done (or set e.g. 0/5: nothing written, the crash ring kept)",
            on_value=True,
        )

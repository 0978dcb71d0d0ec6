"""Which kind of config a file is, from its content first (section names, known keys, structure), then its name.

A ceph.conf named after a custom cluster (/etc/ceph/backup.conf) or a my.cnf dropped in as server.conf must
not be judged by the wrong rules, so content wins over the name; the reason says which signal decided.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from flashtune import userjson
from flashtune.catalog.names import all_ceph_option_names, mysql_option_names
from flashtune.errors import FlashtuneError
from flashtune.parse import KINDS

_SECTION = re.compile(r"^[ \t]*\[([^\]\n]+)\][ \t]*(?:[#;].*)?$", re.M)
_CBT_TOP = re.compile(r"^(cluster|benchmarks)[ \t]*:", re.M)
_SYSCTL_LINE = re.compile(r"^[ \t]*-?[ \t]*[a-z0-9_]+[./][\w./*:@-]+[ \t]*=", re.M)
_KEY_LINE = re.compile(r"^[ \t]*([A-Za-z][\w .-]*?)[ \t]*(?:=|$)", re.M)
_CEPH_SECTION = re.compile(r"^(global|osd|mon|mgr|mds|client\..+|(osd|mon|mgr|mds)\.[\w.-]+)$")
_MYSQL_GROUP = re.compile(
    r"^(mysqld.*|mysql|mariadb.*|server|client-server|client-mariadb|mysqldump|mysqld_safe|mysqlhotcopy|"
    r"mysqladmin|myisamchk|isamchk|galera|embedded|xtrabackup|mariabackup|sst|mysql_upgrade|mysqlimport|"
    r"mysqlcheck|mysqlshow|mysqlslap|mysqlbinlog|safe_mysqld|manager|mysql_cluster|ndbd|ndb_mgmd|ndb_mgm)$"
)
HEAD = 200_000  # characters looked at: enough for any real file's sections, bounded for huge input


@dataclass(frozen=True)
class Detection:
    kind: str
    reason: str
    by_name: str | None  # what the file name alone suggests (None: nothing)


def kind_from_name(path: str | Path) -> str | None:
    p = str(path)
    name = Path(p).name.lower()
    if name.endswith((".yaml", ".yml")):
        return "cbt.yaml"
    if name.endswith(".json"):
        return "ceph-config.json"
    if "sysctl" in name or "sysctl.d" in Path(p).parts[:-1]:  # any sysctl.d folder (/etc, /usr/lib, /run)
        return "sysctl.conf"
    if name.endswith(".cnf") or name in ("my.cnf", "mariadb.cnf"):
        return "my.cnf"
    if "ceph" in name or p.startswith("/etc/ceph/"):
        return "ceph.conf"
    return None


def _keys_known(text: str) -> tuple[int, int]:
    """How many key names are Ceph options and how many are MySQL options (for files with only [client])."""

    ceph = all_ceph_option_names()
    mysql = mysql_option_names("mariadb-10.11") or frozenset()
    c = m = 0
    for match in _KEY_LINE.finditer(text):
        raw = match[1].strip()
        if "_".join(raw.split()) in ceph:
            c += 1
        if raw.replace("-", "_").lower() in mysql:
            m += 1
    return c, m


def _show(names: list[str]) -> str:
    shown = ", ".join(f"[{n}]" for n in names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


_JSON_START = re.compile(r'\s*(?:\{|\[\s*[\[\]{"\d-])')  # `[global]` is a ceph.conf's, not JSON's


def from_content(text: str, file: str = "<string>") -> tuple[str, str] | None:
    head = text[:HEAD]
    if _JSON_START.match(head):
        try:
            data = userjson.parse(text, file=file)  # past a limit: a DataError (FT002), not another kind
        except json.JSONDecodeError:
            data = None
        if isinstance(data, list) and data and all(isinstance(x, dict) and "name" in x for x in data):
            what = "config dump" if any("section" in x for x in data) else "config show"
            return (
                "ceph-config.json",
                f"a JSON list of name/value items as `ceph {what} --format json` prints",
            )
        if isinstance(data, dict) and data:
            names = all_ceph_option_names()
            if sum(1 for k in data if k in names) * 2 > len(data):
                return (
                    "ceph-config.json",
                    "a JSON object of Ceph options and values as `ceph daemon NAME config show` prints",
                )
    if _CBT_TOP.search(head):
        return "cbt.yaml", "top-level 'cluster:' / 'benchmarks:' keys of a CBT test plan"
    sections = list(dict.fromkeys(m[1].strip() for m in _SECTION.finditer(head)))
    ceph = [s for s in sections if _CEPH_SECTION.match(s)]
    mysql = [s for s in sections if _MYSQL_GROUP.match(s.lower())]
    if ceph and len(ceph) >= len(mysql):
        return "ceph.conf", f"sections {_show(ceph)} are Ceph sections"
    if mysql:
        return "my.cnf", f"groups {_show(mysql)} are MySQL/MariaDB option groups"
    if sections or "=" in head.split("\n", 1)[0]:
        c, m = _keys_known(head)
        if c or m:
            if c >= m:
                return "ceph.conf", f"{c} of its keys are Ceph options (against {m} MySQL options)"
            return "my.cnf", f"{m} of its keys are MySQL options (against {c} Ceph options)"
    lines = [ln for ln in head.split("\n") if ln.strip() and ln.lstrip()[:1] not in "#;"]
    if lines and not sections and sum(1 for ln in lines if _SYSCTL_LINE.match(ln)) * 2 >= len(lines):
        return "sysctl.conf", "dotted keys such as net.ipv4.* / vm.* as sysctl.conf has"
    return None


def detect(path: str | Path, text: str) -> Detection:
    by_name = kind_from_name(path)
    found = from_content(text, str(path))
    if found is not None:
        return Detection(found[0], found[1], by_name)
    if by_name is not None:
        return Detection(by_name, "its file name (the content does not say)", by_name)
    raise FlashtuneError(
        "cannot tell what kind of config this is",
        file=str(path),
        suggestion=f"pass --kind ({', '.join(KINDS)})",
    )

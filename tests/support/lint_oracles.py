"""Real programs as judges of lint findings: ceph-conf 16.2.15, mariadbd 10.11 and procps sysctl (dry run).

Nothing here changes the machine: ceph-conf only reads the file, mariadbd runs with --help --verbose (it
parses the options and exits without starting a server), and sysctl runs with --dry-run on a copy of the file
whose values are replaced by the kernel's current ones (read from /proc/sys), so even a write would change nothing.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

CEPH_ENV = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS")}


@functools.cache
def ceph_known_options() -> frozenset[str]:
    """Every option name ceph-conf 16.2.15 knows (its full config schema, printed with defaults)."""
    r = subprocess.run(
        ["ceph-conf", "-c", "/dev/null", "--show-config"],
        capture_output=True,
        text=True,
        env=CEPH_ENV,
        timeout=60,
    )
    return frozenset(line.split(" = ", 1)[0].strip() for line in r.stdout.splitlines() if " = " in line)


def ceph_option_exists(name: str) -> bool:
    if name in ceph_known_options():
        return True
    r = subprocess.run(
        ["ceph-conf", "-c", "/dev/null", "--show-config-value", name],
        capture_output=True,
        text=True,
        env=CEPH_ENV,
        timeout=30,
    )
    return r.returncode == 0


def ceph_conf_accepts(path: Path) -> bool:
    r = subprocess.run(
        ["ceph-conf", "-c", str(path), "-L"], capture_output=True, text=True, env=CEPH_ENV, timeout=30
    )
    return r.returncode == 0 and "parse error" not in r.stderr


@dataclass
class MariadbVerdict:
    aborts: dict[str, str] = field(default_factory=dict)  # option -> the error line (start-up refused)
    rejects: dict[str, str] = field(
        default_factory=dict
    )  # option -> error line (value refused, plugin disabled)
    removed: set[str] = field(default_factory=set)  # "'x' was removed ... compatibility": accepted, ignored
    prefixes: set[str] = field(default_factory=set)  # accepted as a unique prefix


def _norm(name: str) -> str:
    name = name.strip().lstrip("-").split("=", 1)[0].replace("-", "_").lower()
    return name[6:] if name.startswith("loose_") else name


_ABORT = re.compile(r"\[ERROR\] [^:]*: (?:unknown variable|unknown option|ambiguous option) '(?:--)?([^'=]+)")
_VALUE = re.compile(
    r"\[ERROR\] (?:[^:]*: Error while setting value '[^']*' to '([^']+)'|Incorrect \w+ value: '[^']*' for ([\w-]+)|Unknown suffix '[^']*' used for variable '([^']+)')"
)
_REMOVED = re.compile(r"\[Warning\] '([^']+)' (?:was removed|is MySQL 5\.6 / 5\.7 compatible option)")
_PREFIX = re.compile(r"Using unique option prefix '([^']+)'")


def mariadb_verdict(cnf_text: str, max_runs: int = 40) -> MariadbVerdict:
    """What mariadbd 10.11 does with a my.cnf: run it, and while it refuses to start, drop the refused line and
    run again, so every refused option is found (the server stops at the first)."""
    lines = [ln for ln in cnf_text.split("\n") if not ln.lstrip().startswith("!")]
    verdict = MariadbVerdict()
    with tempfile.TemporaryDirectory() as tmp:
        cnf = Path(tmp) / "my.cnf"
        wsrep_off = False
        for _ in range(max_runs):
            cnf.write_text("\n".join(lines) + "\n")
            r = subprocess.run(
                ["mariadbd", f"--defaults-file={cnf}", "--help", "--verbose"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            err = r.stderr
            for m in _REMOVED.finditer(err):
                verdict.removed.add(_norm(m[1]))
            for m in _PREFIX.finditer(err):
                verdict.prefixes.add(_norm(m[1]))
            for m in _VALUE.finditer(err):
                name = _norm(next(g for g in m.groups() if g))
                verdict.rejects.setdefault(name, m[0])
            m = _ABORT.search(err)
            bad = _norm(m[1]) if m else ""
            if m:
                verdict.aborts[bad] = m[0]
            elif r.returncode != 0:
                v = _VALUE.search(err)
                bad = _norm(next(g for g in v.groups() if g)) if v else ""
            if not bad and "[ERROR] WSREP:" in err and not wsrep_off:
                # a Galera node gets wsrep_cluster_address from its cluster manager at start; without it
                # mariadbd stops before the InnoDB options are read, so judge the options with WSREP off
                lines = [*lines, "[mysqld]", "wsrep_on=OFF"]
                wsrep_off = True
                continue
            if r.returncode == 0 or not bad:
                break
            keep = [ln for ln in lines if _norm(ln.split("=", 1)[0]) != bad]
            if keep == lines:
                break
            lines = keep
    return verdict


def sysctl_path(key: str) -> Path:
    return Path("/proc/sys") / key.replace(".", "/")


def sysctl_dry_run(text: str) -> subprocess.CompletedProcess[str]:
    """`sysctl --dry-run -p` on a copy whose values are the kernel's current ones (read-only reads)."""
    safe: list[str] = []
    for line in text.split("\n"):
        key, eq, value = line.partition("=")
        k = key.strip().lstrip("-").strip()
        p = sysctl_path(k.replace("/", ".")) if k and eq and not k.startswith(("#", ";")) else None
        if p is not None and p.is_file():
            try:
                current = " ".join(p.read_text().split())
            except OSError:
                current = value.strip()
            tail = " #" if "#" in value else ""
            safe.append(f"{key}={current}{tail}")
        else:
            safe.append(line)
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "sysctl.conf"
        f.write_text("\n".join(safe))
        return subprocess.run(
            ["sysctl", "--dry-run", "-p", str(f)], capture_output=True, text=True, timeout=30
        )

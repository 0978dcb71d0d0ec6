"""Running a CBT plan with the real CBT (ceph/cbt), which is the user's own checkout: found from a path given on
the command line, the `CBT` environment variable or `cbt.py` on PATH. flashtune never ships or copies it.

CBT is a set of Python scripts (not a package on PyPI or in Debian); cbt.py names its interpreter in its first
line (`#!/usr/bin/python3`) and needs PyYAML and lxml there (cbt.py imports benchmarkfactory, which imports
every benchmark module, cosbench's lxml too).

What is changed in a compiled plan before CBT runs it is what a user changes by hand (`localize`): host names
that are still the compiler's placeholders (client01, osd01, mon01, ...) become `localhost` and the ssh user
goes, so CBT runs every command on this host without pdsh or ssh (common.py get_localnode; a `user@localhost`
name would send it through pdsh); the cluster's ceph.conf is the one the `ceph` CLI uses; CBT's scratch folders
are the run's own. Nothing CBT measures is touched.

CBT prefixes its commands with `sudo`, which resets the environment (CEPH_CONF, which fio's rbd engine needs to
find a cluster whose conf is not /etc/ceph/ceph.conf). `run` puts a `sudo` first on CBT's PATH that runs its
arguments as they are: every local CBT command runs as the user who started flashtune, with flashtune's
environment, as the commands flashtune runs itself do. As root that is what `sudo` would do, minus the reset.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flashtune.emit.cbt import dump
from flashtune.errors import FlashtuneError

CBT_ENV = "CBT"  # the environment variable naming a CBT checkout (its folder or its cbt.py)
HOST_GROUPS = ("head", "clients", "osds", "rgws", "mdss", "mgrs")
# the compiler's placeholder host names (compile.benchmark._hosts and cluster_section)
PLACEHOLDER = re.compile(r"^(?:client|osd|mon|rgw|mds|mgr)\d+$")
_SUDO_SHIM = (
    '#!/bin/sh\n# flashtune: run CBT\'s `sudo CMD` as CMD, keeping the environment (CEPH_CONF)\nexec "$@"\n'
)


class CbtError(FlashtuneError):
    pass


def find_cbt(given: str | Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """The cbt.py to run: `given` (cbt.py itself or the folder holding it), else $CBT, else cbt.py on PATH."""
    env = os.environ if env is None else env
    where = "--cbt"
    if given is None and env.get(CBT_ENV):
        given, where = env[CBT_ENV], f"${CBT_ENV}"
    if given is None:
        found = shutil.which("cbt.py", path=env.get("PATH"))
        if found is None:
            raise CbtError(
                "no CBT found: give --cbt PATH (a ceph/cbt checkout or its cbt.py), set $CBT, or put cbt.py on PATH",
                suggestion="git clone https://github.com/ceph/cbt, then --cbt ./cbt",
            )
        return Path(found).resolve()
    path = Path(given).expanduser()
    script = path / "cbt.py" if path.is_dir() else path
    if not script.is_file():
        raise CbtError(
            f"{where} {given}: no cbt.py there",
            file=str(path),
            suggestion="give a ceph/cbt checkout (the folder holding cbt.py) or cbt.py itself",
        )
    return script.resolve()


def interpreter(script: Path) -> str:
    """The Python cbt.py asks for in its first line (`#!/usr/bin/python3`), else `python3` on PATH."""
    with open(script, encoding="utf-8", errors="replace") as f:
        first = f.readline().strip()
    if first.startswith("#!"):
        words = first[2:].split()
        if words and Path(words[0]).name == "env" and len(words) > 1:
            return words[1]
        if words:
            return words[0]
    return "python3"


def check_python(script: Path) -> str:
    """The interpreter, after checking it can import what CBT needs; a clear error otherwise."""
    python = interpreter(script)
    try:
        r = subprocess.run(
            [python, "-c", "import yaml, lxml"], capture_output=True, text=True, timeout=60, check=False
        )
    except FileNotFoundError:
        raise CbtError(
            f"CBT's interpreter {python} (first line of {script}) is not installed", file=str(script)
        ) from None
    if r.returncode != 0:
        raise CbtError(
            f"CBT's interpreter {python} cannot import yaml and lxml, which cbt.py needs",
            file=str(script),
            suggestion="apt install python3-yaml python3-lxml (Debian/Ubuntu)",
        )
    return python


def is_placeholder(host: Any) -> bool:
    return isinstance(host, str) and PLACEHOLDER.match(host.rpartition("@")[2]) is not None


def localize(
    doc: Mapping[str, Any],
    *,
    conf: Path,
    scratch: Path,
    mon_addr: str | None = None,
    s3_urls: list[str] | None = None,
) -> dict[str, Any]:
    """The plan as CBT runs it on this host (see the module's text); the input is not changed."""
    plan = copy.deepcopy(dict(doc))
    cluster = plan["cluster"]
    remote = False  # a host the user named is left: CBT reaches it as user@host with pdsh
    for group in HOST_GROUPS:
        hosts = cluster.get(group)
        names = hosts if isinstance(hosts, list) else [hosts] if hosts is not None else []
        if names and all(is_placeholder(h) for h in names):
            cluster[group] = "localhost" if isinstance(hosts, str) else ["localhost"]
        elif names:
            remote = True
    mons = cluster.get("mons")
    if isinstance(mons, dict) and mons and all(is_placeholder(h) for h in mons):
        first = next(iter(mons.values()))
        addr = mon_addr or (next(iter(first.values())) if isinstance(first, dict) and first else "")
        cluster["mons"] = {"localhost": {"a": addr}}
    elif mons:
        remote = True
    if not remote:
        # hosts are written user@host when a user is set: not `localhost` to get_localnode (it would use pdsh)
        cluster.pop("user", None)
    cluster["conf_file"] = str(conf)
    cluster["tmp_dir"] = str(scratch / "tmp")
    cluster["mnt_dir"] = str(scratch / "mnt")
    for ep in (plan.get("client_endpoints") or {}).values():
        if ep.get("driver") == "s3" and s3_urls:
            ep["urls"] = list(s3_urls)
            ep["endpoints_per_client"] = len(s3_urls)
    return plan


@dataclass(frozen=True)
class Invocation:
    """One `cbt.py -a ARCHIVE PLAN` run: where its plan, archive and log are."""

    plan: Path
    archive: Path
    log: Path
    command: list[str]
    env: dict[str, str]
    cwd: Path


def prepare(
    script: Path,
    plan_doc: Mapping[str, Any],
    scratch: Path,
    env: Mapping[str, str],
    python: str | None = None,
) -> Invocation:
    """Write the plan and the `sudo` shim into `scratch`; the archive is scratch/archive."""
    scratch.mkdir(parents=True, exist_ok=True)
    shim = scratch / "bin"
    shim.mkdir(exist_ok=True)
    sudo = shim / "sudo"
    sudo.write_text(_SUDO_SHIM, encoding="utf-8")
    sudo.chmod(0o755)
    plan = scratch / "plan.yaml"
    plan.write_text(dump(dict(plan_doc)), encoding="utf-8")
    run_env = dict(env)
    run_env["PATH"] = f"{shim}{os.pathsep}{run_env.get('PATH', os.defpath)}"
    run_env.pop("PYTHONPATH", None)  # CBT imports its own modules from its folder, not flashtune's venv
    return Invocation(
        plan=plan,
        archive=scratch / "archive",
        log=scratch / "cbt.log",
        command=[python or interpreter(script), str(script), "-a", str(scratch / "archive"), str(plan)],
        env=run_env,
        cwd=script.parent,
    )


def run(
    inv: Invocation, *, timeout: float, on_line: Callable[[str], None] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run CBT, its output (stdout and stderr, in order) to inv.log and line by line to on_line.
    CBT runs in a session of its own: a Ctrl-C reaches flashtune, which then ends CBT and everything it
    started (its process group) before it restores."""
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    with open(inv.log, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            inv.command,
            cwd=inv.cwd,
            env=inv.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                log.write(line)
                log.flush()
                lines.append(line)
                if on_line is not None:
                    on_line(line)
                if time.monotonic() > deadline:
                    raise CbtError(f"CBT did not finish in {timeout:.0f} s", file=str(inv.log))
            proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
    return subprocess.CompletedProcess(inv.command, proc.returncode, "".join(lines), "")

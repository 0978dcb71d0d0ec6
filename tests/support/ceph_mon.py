"""A throw-away Ceph 16.2.15 monitor on 127.0.0.1 (no OSD, no mgr): enough to read the option schema.

Ports 3310 (msgr2) / 6799 (v1), state under a tmp dir, auth off (loopback only, test-only). Starts in
about a second (ceph-mon --mkfs with a one-monitor monmap, then `ceph-mon -f`). ceph-mon runs in the foreground
as our child and is stopped and reaped when the context ends, also when a test fails.

    with throwaway_mon(tmp_path) as mon:
        mon.asok_config_help()          # {name: entry} from `ceph daemon mon.a config help`
        mon.config_help(["debug_osd"])  # per-name mon command `config help` (via python3-rados)

    start_failure(tmp_path, "ms_type = simple\n")  # (exit code, stderr) of a monitor that refuses to run
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

# Fixed loopback ports; FLASHTUNE_CEPHMON_PORTS=v2,v1 moves them when two test runs share a machine.
V2_PORT, V1_PORT = (int(p) for p in os.environ.get("FLASHTUNE_CEPHMON_PORTS", "3310,6799").split(","))

# Run by the system python (python3-rados comes from Debian's ceph packages, not from PyPI).
_HELP_SCRIPT = r"""
import json, sys, rados
r = rados.Rados(conffile='')
r.connect(timeout=20)
out = {}
for name in json.load(sys.stdin):
    ret, buf, err = r.mon_command(json.dumps({"prefix": "config help", "key": name, "format": "json"}), b'')
    out[name] = json.loads(buf) if ret == 0 else {"error": ret, "message": err}
r.shutdown()
json.dump(out, sys.stdout)
"""


class Mon:
    def __init__(self, root: Path, fsid: str) -> None:
        self.root = root
        self.fsid = fsid
        self.conf = root / "ceph.conf"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "CEPH_CONF": str(self.conf)}

    def run(self, *cmd: str, input: str | None = None, timeout: float = 60) -> str:
        r = subprocess.run(cmd, env=self.env, input=input, capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr[-2000:]}")
        return r.stdout

    def asok_config_help(self) -> dict[str, Any]:
        """The schema as the running monitor's admin socket reports it."""
        doc = json.loads(self.run("ceph", "daemon", "mon.a", "config", "help", "-f", "json"))
        entries = doc["options"] if isinstance(doc, dict) and "options" in doc else doc
        return {e["name"]: e for e in entries}

    def config_help(self, names: Sequence[str]) -> dict[str, Any]:
        """Per-name `config help` from the monitor; unknown names come back as {"error": -2, ...}."""
        out = self.run("/usr/bin/python3", "-c", _HELP_SCRIPT, input=json.dumps(list(names)))
        result: dict[str, Any] = json.loads(out)
        return result


def _write_conf(root: Path, fsid: str, extra: str = "") -> None:
    addrs = f"[v2:127.0.0.1:{V2_PORT},v1:127.0.0.1:{V1_PORT}]"
    (root / "ceph.conf").write_text(
        "[global]\n"
        f"fsid = {fsid}\n"
        f"mon_host = {addrs}\n"
        "auth_cluster_required = none\nauth_service_required = none\nauth_client_required = none\n"
        f"run_dir = {root}/run\n"
        f"admin_socket = {root}/run/$cluster-$name.asok\n"
        f"pid_file = {root}/run/$cluster-$name.pid\n"
        f"log_file = {root}/log/$cluster-$name.log\n"
        f"mon_cluster_log_file = {root}/log/$cluster.log\n"
        f"mon_data = {root}/mon/$cluster-$id\n" + extra
    )


def _prepare(root: Path, extra_conf: str) -> Mon:
    for sub in ("run", "log", "mon"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    fsid = str(uuid.uuid4())
    _write_conf(root, fsid, extra_conf)
    mon = Mon(root, fsid)
    addrs = f"[v2:127.0.0.1:{V2_PORT},v1:127.0.0.1:{V1_PORT}]"
    mon.run("monmaptool", "--create", "--fsid", fsid, "--addv", "a", addrs, str(root / "monmap"))
    mon.run("ceph-mon", "--mkfs", "-i", "a", "--monmap", str(root / "monmap"))
    return mon


def _foreground(mon: Mon) -> subprocess.Popen[str]:
    # -f keeps ceph-mon in the foreground as our child: we reap it, no daemonised orphan is left
    return subprocess.Popen(
        ["ceph-mon", "-f", "-i", "a"],
        env=mon.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


@contextlib.contextmanager
def throwaway_mon(root: Path, extra_conf: str = "", timeout: float = 30) -> Iterator[Mon]:
    mon = _prepare(root, extra_conf)
    proc = _foreground(mon)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"ceph-mon exited with {proc.returncode}: {proc.communicate()[1][-2000:]}")
            r = subprocess.run(
                ["ceph", "fsid", "--connect-timeout", "5"], env=mon.env, capture_output=True, text=True
            )
            if r.returncode == 0:
                # another monitor on our ports (e.g. a leftover) would answer with its own fsid
                if r.stdout.strip() != mon.fsid:
                    raise RuntimeError(
                        f"ports {V2_PORT}/{V1_PORT} are served by another cluster ({r.stdout.strip()})"
                    )
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"ceph-mon did not answer within {timeout}s")
            time.sleep(0.2)
        yield mon
    finally:
        _stop(proc)


def start_failure(root: Path, extra_conf: str, timeout: float = 20) -> tuple[int, str]:
    """Start a monitor with extra ceph.conf lines that should make it refuse to run: (exit code, stderr).

    Raises if it is still running after `timeout` (then it is stopped)."""
    mon = _prepare(root, extra_conf)
    proc = _foreground(mon)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(proc)
        raise RuntimeError(f"ceph-mon with {extra_conf!r} kept running") from None
    return proc.returncode, err


def _stop(proc: subprocess.Popen[str], timeout: float = 20) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stderr is not None:
        proc.stderr.close()

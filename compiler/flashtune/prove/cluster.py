"""Reaching a running cluster with the `ceph`, `rados`, `rbd` and `fio` programs, as an operator would.

ceph.conf and the keyring are found as the `ceph` CLI finds them ($CEPH_CONF, /etc/ceph/ceph.conf, the
keyring the conf names or /etc/ceph/ceph.client.admin.keyring), or given (--conf, --keyring, --name).
Every command has a timeout: a cluster that stops answering ends the run (and the restore says so), it does
not hang it. Each runs in a session of its own, so a Ctrl-C at the terminal reaches prove alone: prove stops
the running tool and restores, and a second Ctrl-C cannot kill a `ceph config set` of the restore half-way.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flashtune.errors import FlashtuneError

# Ceph releases by major version (`ceph version`): the names compile-config takes for --ceph-release.
RELEASE_NAMES = {
    12: "luminous",
    13: "mimic",
    14: "nautilus",
    15: "octopus",
    16: "pacific",
    17: "quincy",
    18: "reef",
    19: "squid",
    20: "tentacle",
}


class CephCommandError(FlashtuneError):
    """A ceph/rados/rbd/fio command failed (its stderr is in the message)."""


@dataclass(frozen=True)
class Cluster:
    """How to reach the cluster: None = as the ceph CLI finds it."""

    conf: str | None = None
    keyring: str | None = None
    name: str | None = None  # client.admin
    timeout: float = 60.0
    extra_env: Mapping[str, str] = field(default_factory=dict)

    @property
    def client_id(self) -> str:
        """The id without `client.` (fio's clientname)."""
        name = self.name or "client.admin"
        return name.split(".", 1)[1] if name.startswith("client.") else name

    def args(self) -> list[str]:
        """The connection arguments every Ceph tool takes (-c, -k, -n)."""
        out: list[str] = []
        if self.conf:
            out += ["-c", self.conf]
        if self.keyring:
            out += ["-k", self.keyring]
        if self.name:
            out += ["-n", self.name]
        return out

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.extra_env)
        if self.conf:
            env["CEPH_CONF"] = self.conf
        return env

    def run(
        self,
        tool: str,
        *args: str,
        timeout: float | None = None,
        check: bool = True,
        input: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        cmd = [tool, *self.args(), *args]
        try:
            r = subprocess.run(
                cmd,
                env=self.env(),
                capture_output=True,
                text=True,
                timeout=timeout or self.timeout,
                input=input,
                start_new_session=True,  # a terminal's Ctrl-C reaches prove, which stops the tool itself
            )
        except FileNotFoundError:
            raise CephCommandError(
                f"`{tool}` is not installed", suggestion="install ceph-common (and fio for the rbd probes)"
            ) from None
        except subprocess.TimeoutExpired:
            raise CephCommandError(
                f"`{' '.join(cmd)}` did not finish in {timeout or self.timeout:g} s",
                suggestion="is the cluster reachable? check `ceph -s` with the same --conf/--keyring/--name",
            ) from None
        if check and r.returncode != 0:
            raise CephCommandError(
                f"`{' '.join(cmd)}` failed (exit {r.returncode}): {(r.stderr or r.stdout).strip()[-600:]}",
                suggestion="check that the cluster answers `ceph -s` with the same --conf/--keyring/--name",
            )
        return r

    def ceph(self, *args: str, timeout: float | None = None) -> Any:
        """`ceph ARGS -f json`, parsed (None when it prints nothing)."""
        out = self.run("ceph", "--connect-timeout", "20", *args, "-f", "json", timeout=timeout).stdout
        return json.loads(out) if out.strip() else None

    def ceph_text(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("ceph", "--connect-timeout", "20", *args, check=check)

    # ---- facts --------------------------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.ceph("health")
        return doc

    def version(self) -> str:
        """`ceph version`'s text, e.g. 'ceph version 16.2.15 (...) pacific (stable)'."""
        doc = self.ceph("version")
        return str(doc.get("version", "")) if isinstance(doc, dict) else ""

    def release(self) -> str | None:
        """The release name of the answering monitor (pacific for 16.x), None if unknown."""
        words = self.version().split()
        if len(words) >= 3 and words[2].split(".", 1)[0].isdigit():
            return RELEASE_NAMES.get(int(words[2].split(".", 1)[0]))
        return None

    def config_dump_text(self) -> str:
        """`ceph config dump -f json` exactly as printed: what the restore compares byte for byte."""
        return self.run("ceph", "--connect-timeout", "20", "config", "dump", "-f", "json").stdout

    def option_names(self) -> set[str]:
        """Every option the running monitors know (`config ls`; the debug_* levels are not listed there)."""
        names = self.ceph("config", "ls")
        return {str(n) for n in names or ()}

    def option_help(self, key: str) -> dict[str, Any] | None:
        """`ceph config help KEY`: type, flags (startup = read at daemon start); None if the release lacks it."""
        r = self.run("ceph", "--connect-timeout", "20", "config", "help", key, "-f", "json", check=False)
        if r.returncode != 0 or not r.stdout.strip():
            return None
        doc: dict[str, Any] = json.loads(r.stdout)
        return doc

    def config_set(self, target: str, key: str, value: str) -> None:
        self.run("ceph", "--connect-timeout", "20", "config", "set", target, key, value)

    def config_rm(self, target: str, key: str) -> None:
        self.run("ceph", "--connect-timeout", "20", "config", "rm", target, key)

    def pools(self) -> list[str]:
        return [str(p) for p in self.ceph("osd", "pool", "ls") or ()]

    def tool(self, tool: str, args: Sequence[str], *, timeout: float) -> subprocess.CompletedProcess[str]:
        """A benchmark tool: rados/rbd get the connection arguments, fio reads CEPH_CONF."""
        if tool == "fio":
            cmd = ["fio", *args]
            try:
                r = subprocess.run(
                    cmd,
                    env=self.env(),
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                    start_new_session=True,
                )
            except FileNotFoundError:
                raise CephCommandError("`fio` is not installed", suggestion="apt install fio") from None
            if r.returncode != 0:
                raise CephCommandError(f"`{' '.join(cmd)}` failed (exit {r.returncode}): {r.stderr[-600:]}")
            return r
        return self.run(tool, *args, timeout=timeout)

"""A throwaway single-node Ceph 16.2.15 cluster on 127.0.0.1: `flashtune prove --lab` and the real-software tests.

mon + mgr + bluestore OSDs on sparse files, optionally radosgw (beast, 127.0.0.1) and an MDS with a
CephFS. No systemd: every daemon is started by hand and stopped by its pid file, and the cluster
directory is removed afterwards. The bootstrap follows Ceph's manual deployment steps (ceph/ceph
doc/install/manual-deployment.rst): keys and monmap, mon --mkfs, then ceph-osd --mkfs per OSD.
Such a cluster says nothing about real hardware: every OSD is a sparse file on one disk of one host.

    with ceph_cluster(rgw=False, mds=False) as lab:
        lab.ceph("osd", "pool", "create", "p", "8")           # parsed JSON of `ceph ... -f json`
        lab.rados_bench("p", seconds=3)                          # {"bandwidth_mb_s", "iops", ...}
        lab.restart_with(compiled_conf_text)                     # tuned conf -> restart daemons
        lab.config_diff("osd.0")                                 # {"key": {"file": ..., ...}}

Ports: mon 3300 (msgr2) / 6789 (v1), rgw 8080, all on 127.0.0.1, or FLASHTUNE_CEPHLAB_PORTS="v2,v1,rgw"
(keep them out of 6800-7300, the OSDs' range); `free_ports()` picks three unused ones. A busy port fails
the boot loudly.

`restart_with` merges a compiled ceph.conf into the lab's own conf: the lab keeps the keys it needs to
run on one host (paths, fsid, mon address, keyrings) and reports which compiled keys it overrode.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flashtune.errors import FlashtuneError

# Sections in the order ceph.conf conventionally lists them; daemons read their own plus [global].
Conf = dict[str, dict[str, str]]
_RGW_CAPS = ("mon", "allow rw", "osd", "allow rwx", "mgr", "allow rw")  # a gateway's cephx caps


_SPACES = re.compile(r"\s+")
_SECTION = re.compile(r"\[([^\]]+)\]")


def parse_conf(text: str) -> Conf:
    """Ceph-style INI: `[section]`, `key = value`, `#`/`;` comments; spaces in keys mean `_`."""
    conf: Conf = {}
    section = "global"
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        m = _SECTION.fullmatch(line)
        if m:
            section = m.group(1).strip()
            conf.setdefault(section, {})
            continue
        if "=" in line:
            k, v = line.split("=", 1)
            key = _SPACES.sub("_", k.strip())
            conf.setdefault(section, {})[key] = v.split(" #", 1)[0].strip()
    return conf


def render_conf(conf: Conf) -> str:
    return "".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) for s, kv in conf.items())


LAB_FS = "labfs"  # the lab's own CephFS (not "scratch": that is the name compiled pools.sh files make)


class CephLab:
    """One cluster under `root`; all state (data, sockets, logs, pids) lives there."""

    def __init__(
        self,
        root: Path,
        *,
        osds: int = 3,
        osd_size: str = "6G",
        mon_v2: int = 3300,
        mon_v1: int = 6789,
        rgw_port: int = 8080,
    ) -> None:
        self.root = root
        self.n_osds = osds
        self.osd_size = osd_size
        self.mon_v2, self.mon_v1, self.rgw_port = mon_v2, mon_v1, rgw_port
        self.conf_path = root / "ceph.conf"
        self.fsid = str(uuid.uuid4())
        self.rgw = False
        self.more_gateways: dict[str, int] = {}  # start_rgw: gateway id -> its port (besides "gw")
        self.mds = False
        self.extra: Conf = {}  # the compiled conf currently merged in
        self.last_restart: dict[str, float] = {}  # seconds per phase of the last restart_with
        self._mds_view: tuple[Any, Any] = (None, None)  # [global]/[mds] the running MDS was started with

    # ---- environment and commands -------------------------------------------------------------
    @property
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("CEPH_ARGS",)}
        env["CEPH_CONF"] = str(self.conf_path)
        return env

    def run(
        self, *cmd: str, timeout: float = 120, check: bool = True, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        """Run a Ceph tool against this cluster (CEPH_CONF points at the lab's conf)."""
        r = subprocess.run(
            list(cmd), env=self.env, capture_output=True, text=True, timeout=timeout, input=input
        )
        if check and r.returncode != 0:
            raise RuntimeError(
                f"{' '.join(cmd)} -> rc={r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
            )
        return r

    def ceph(self, *args: str, timeout: float = 60) -> Any:
        """`ceph ARGS -f json`, parsed (None when the command prints nothing)."""
        out = self.run("ceph", "--connect-timeout", "20", *args, "-f", "json", timeout=timeout).stdout
        return json.loads(out) if out.strip() else None

    def daemon(self, name: str, *args: str) -> Any:
        """Admin-socket command on a daemon of this cluster, e.g. daemon("osd.0", "config", "diff")."""
        return json.loads(self.run("ceph", "daemon", name, *args, timeout=30).stdout)

    def config_diff(self, name: str) -> dict[str, dict[str, Any]]:
        """What the daemon changed from defaults and where from: {key: {"default", "file", "final", ...}}."""
        diff: dict[str, dict[str, Any]] = self.daemon(name, "config", "diff")["diff"]
        return diff

    # ---- configuration ------------------------------------------------------------------------
    def base_conf(self) -> Conf:
        d = self.root
        conf: Conf = {
            "global": {
                "fsid": self.fsid,
                "mon_host": f"[v2:127.0.0.1:{self.mon_v2},v1:127.0.0.1:{self.mon_v1}]",
                "public_network": "127.0.0.0/8",
                "auth_cluster_required": "cephx",
                "auth_service_required": "cephx",
                "auth_client_required": "cephx",
                "run_dir": f"{d}/run",
                "pid_file": f"{d}/run/$cluster-$name.pid",
                "log_file": f"{d}/log/$cluster-$name.log",
                "mon_cluster_log_file": f"{d}/log/$cluster.log",
                "crash_dir": f"{d}/crash",
                # one host: replicas go to OSDs, not hosts; the test cluster may delete its pools
                "osd_crush_chooseleaf_type": "0",
                "mon_allow_pool_delete": "true",
                "osd_pool_default_pg_autoscale_mode": "off",
                "mon_allow_pool_size_one": "true",
                "mon_warn_on_pool_no_redundancy": "false",
            },
            "mon": {
                "mon_data": f"{d}/mon/$cluster-$id",
                "auth_allow_insecure_global_id_reclaim": "false",
                "mon_data_avail_warn": "5",
            },
            "mgr": {"mgr_data": f"{d}/mgr/$cluster-$id"},
            "osd": {
                "osd_data": f"{d}/osd/$cluster-$id",
                "osd_objectstore": "bluestore",
                "bluestore_block_create": "true",
                "bluestore_block_size": self.osd_size,
            },
            "mds": {"mds_data": f"{d}/mds/$cluster-$id", "keyring": f"{d}/mds/$cluster-$id/keyring"},
            "client": {"keyring": f"{d}/ceph.client.admin.keyring"},
        }
        if self.rgw:
            conf["client.rgw.gw"] = {
                "keyring": f"{d}/rgw/keyring",
                "rgw_data": f"{d}/rgw",
                "admin_socket": f"{d}/run/$cluster-$name.asok",
                "rgw_frontends": f"beast endpoint=127.0.0.1:{self.rgw_port}",
            }
            for name, port in self.more_gateways.items():
                conf[f"client.rgw.{name}"] = {
                    "keyring": f"{d}/rgw-{name}/keyring",
                    "rgw_data": f"{d}/rgw-{name}",
                    "admin_socket": f"{d}/run/$cluster-$name.asok",
                    "rgw_frontends": f"beast endpoint=127.0.0.1:{port}",
                }
        return conf

    # Keys the lab must own to run on one loopback host; a compiled value for them is overridden.
    LAB_OWNED = frozenset(
        {
            "fsid",
            "mon_host",
            "public_network",
            "cluster_network",
            "run_dir",
            "pid_file",
            "log_file",
            "mon_cluster_log_file",
            "crash_dir",
            "mon_data",
            "mgr_data",
            "osd_data",
            "mds_data",
            "keyring",
            "rgw_data",
            "admin_socket",
            "rgw_frontends",
            "osd_crush_chooseleaf_type",
            "bluestore_block_create",
            "bluestore_block_size",
            "osd_objectstore",
        }
    )

    def merged_conf(self, compiled: Conf) -> tuple[Conf, list[tuple[str, str]]]:
        """Compiled conf + the lab's own keys; returns the conf and the compiled (section, key)s overridden."""
        base = self.base_conf()
        out: Conf = {s: dict(kv) for s, kv in base.items()}
        overridden: list[tuple[str, str]] = []
        for section, kv in compiled.items():
            for key, value in kv.items():
                if key in self.LAB_OWNED:
                    overridden.append((section, key))
                    continue
                out.setdefault(section, {})[key] = value
                # a compiled [global] value must not be shadowed by the lab's per-daemon default
                if section == "global":
                    for s in out:
                        if s != "global" and key in base.get(s, {}):
                            del out[s][key]
        return out, overridden

    def write_conf(self) -> list[tuple[str, str]]:
        conf, overridden = self.merged_conf(self.extra)
        self.conf_path.write_text(render_conf(conf))
        return overridden

    # ---- lifecycle ----------------------------------------------------------------------------
    def _pid(self, name: str) -> int | None:
        f = self.root / "run" / f"ceph-{name}.pid"
        try:
            return int(f.read_text().strip())
        except (OSError, ValueError):
            return None

    def _stop(self, *names: str, timeout: float = 10) -> None:
        """SIGTERM the named daemons together, wait for all of them (SIGKILL after timeout: radosgw
        sometimes hangs in shutdown, and a test lab loses nothing by a kill)."""
        pids = {n: p for n in names if (p := self._pid(n)) is not None}
        for name, pid in pids.items():
            # radosgw keeps no state worth a clean shutdown and sometimes hangs in it: kill it outright
            sig = signal.SIGKILL if name.startswith("client.rgw") else signal.SIGTERM
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        for name, pid in pids.items():
            while True:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                if time.monotonic() > deadline:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                    break
                time.sleep(0.1)
            (self.root / "run" / f"ceph-{name}.pid").unlink(missing_ok=True)

    def _wait(self, what: str, ok: Any, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                if ok():
                    return
            time.sleep(0.3)
        raise TimeoutError(f"ceph lab: {what} not reached in {timeout} s (logs in {self.root / 'log'})")

    def _osds_up(self) -> bool:
        return int(self.ceph("osd", "stat")["num_up_osds"]) == self.n_osds

    def _check_ports(self) -> None:
        for port in (self.mon_v2, self.mon_v1, self.rgw_port):
            with socket.socket() as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    raise FlashtuneError(  # a user's choice (--lab-ports, the environment), not a bug
                        f"127.0.0.1:{port} is in use (another cluster or server?)",
                        suggestion="give other free ports: --lab-ports V2,V1,RGW or "
                        "FLASHTUNE_CEPHLAB_PORTS=V2,V1,RGW (the OSDs take ports in 6800-7300 of their own)",
                    ) from None

    def start(self, *, rgw: bool = True, mds: bool = False) -> None:
        """Create and boot the cluster (mon, mgr, OSDs; rgw and MDS+CephFS on request)."""
        self._check_ports()
        d = self.root
        for sub in ("run", "log", "mon", "mgr/ceph-x", "osd", "rgw", "crash", "mds/ceph-a"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        self.rgw = rgw
        self.write_conf()
        self._start_mon()
        self._start_mgr()
        self._create_osds()
        self._start_osds()
        if rgw:
            self._rgw_keyring("gw", d / "rgw")
            self._start_rgw()
        if mds:
            self.start_cephfs()

    def _start_mon(self) -> None:
        """The keyrings (mon., client.admin), the monmap and monitor a, answering."""
        d = self.root
        self.run(
            "ceph-authtool",
            "--create-keyring",
            f"{d}/mon.keyring",
            "--gen-key",
            "-n",
            "mon.",
            "--cap",
            "mon",
            "allow *",
        )
        self.run(
            "ceph-authtool",
            "--create-keyring",
            f"{d}/ceph.client.admin.keyring",
            "--gen-key",
            "-n",
            "client.admin",
            "--cap",
            "mon",
            "allow *",
            "--cap",
            "osd",
            "allow *",
            "--cap",
            "mds",
            "allow *",
            "--cap",
            "mgr",
            "allow *",
        )
        self.run("ceph-authtool", f"{d}/mon.keyring", "--import-keyring", f"{d}/ceph.client.admin.keyring")
        self.run(
            "monmaptool",
            "--create",
            "--fsid",
            self.fsid,
            "--addv",
            "a",
            f"[v2:127.0.0.1:{self.mon_v2},v1:127.0.0.1:{self.mon_v1}]",
            f"{d}/monmap",
        )
        self.run("ceph-mon", "--mkfs", "-i", "a", "--monmap", f"{d}/monmap", "--keyring", f"{d}/mon.keyring")
        self.run("ceph-mon", "-i", "a")
        self._wait("mon answering", lambda: self.ceph("mon", "stat") is not None, 60)

    def _start_mgr(self) -> None:
        d = self.root
        keyring = self.run(
            "ceph",
            "auth",
            "get-or-create",
            "mgr.x",
            "mon",
            "allow profile mgr",
            "osd",
            "allow *",
            "mds",
            "allow *",
        ).stdout
        (d / "mgr/ceph-x/keyring").write_text(keyring)
        self.run("ceph-mgr", "-i", "x")

    def _create_osds(self) -> None:
        """n_osds new OSDs: each registered with its cephx key, keyring written, data folder made."""
        d = self.root
        for _ in range(self.n_osds):
            u = str(uuid.uuid4())
            key = self.run("ceph-authtool", "--gen-print-key").stdout.strip()
            osd_id = self.run(
                "ceph", "osd", "new", u, "-i", "-", input=json.dumps({"cephx_secret": key})
            ).stdout.strip()
            (d / f"osd/ceph-{osd_id}").mkdir(parents=True, exist_ok=True)
            self.run(
                "ceph-authtool",
                "--create-keyring",
                f"{d}/osd/ceph-{osd_id}/keyring",
                "--name",
                f"osd.{osd_id}",
                "--add-key",
                key,
            )
            self.run("ceph-osd", "-i", osd_id, "--mkfs", "--osd-uuid", u, timeout=180)

    def _rgw_keyring(self, name: str, folder: Path) -> None:
        """A gateway's cephx key (client.rgw.<name>) in <folder>/keyring."""
        key = self.run("ceph", "auth", "get-or-create", f"client.rgw.{name}", *_RGW_CAPS).stdout
        (folder / "keyring").write_text(key)

    def _start_osds(self) -> None:
        # ceph-osd returns once initialised; start them side by side to halve the wait on 2 cores
        procs = [
            subprocess.Popen(
                ["ceph-osd", "-i", str(i)], env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            for i in range(self.n_osds)
        ]
        for p in procs:
            p.wait(timeout=180)
        self._wait(f"{self.n_osds} OSDs up", self._osds_up, 180)

    def _rgw_answers(self, port: int | None = None) -> bool:
        with urllib.request.urlopen(f"http://127.0.0.1:{port or self.rgw_port}/", timeout=2) as r:
            return bool(r.status == 200)

    def _start_rgw(self) -> None:
        for name, port in {"gw": self.rgw_port, **self.more_gateways}.items():
            self.run("radosgw", "-n", f"client.rgw.{name}")
            self._wait(f"radosgw {name} answering", lambda port=port: self._rgw_answers(port), 120)

    def gateway_names(self) -> list[str]:
        """The daemon names of the running gateways (client.rgw.gw, then those start_rgw added)."""
        return [f"client.rgw.{n}" for n in ("gw", *self.more_gateways)] if self.rgw else []

    def start_rgw(self, name: str, port: int) -> None:
        """One more gateway, client.rgw.<name> on 127.0.0.1:<port>, in the same zone as the first (a cluster
        started with rgw=True). lab.stop() and restart_with() handle it like the first."""
        if not self.rgw:
            raise RuntimeError("start_rgw: the lab was started without rgw")
        d = self.root / f"rgw-{name}"
        d.mkdir(parents=True, exist_ok=True)
        self._rgw_keyring(name, d)
        self.more_gateways[name] = port
        self.write_conf()
        if self._pid(f"client.rgw.{name}") is None:
            self.run("radosgw", "-n", f"client.rgw.{name}")
        self._wait(f"radosgw {name} answering", lambda: self._rgw_answers(port), 120)

    def stop_rgw(self, name: str) -> None:
        """Stop a gateway start_rgw added and forget it (its entry in the service map ages out by itself)."""
        self._stop(f"client.rgw.{name}")
        self.more_gateways.pop(name, None)
        self.write_conf()

    def _mds_keyring(self, name: str) -> str:
        """The keyring of MDS `name`, with the capabilities Ceph's manual MDS deployment gives it."""
        caps = ("mon", "allow profile mds", "osd", "allow rwx", "mds", "allow *", "mgr", "allow profile mds")
        return self.run("ceph", "auth", "get-or-create", f"mds.{name}", *caps).stdout

    def start_cephfs(self) -> None:
        """An MDS plus a CephFS (LAB_FS, data + metadata pools), for the scratch workload. Its names are the lab's
        own, so a compiled pools.sh can make the scratch workload's file system beside it."""
        d = self.root
        (d / "mds/ceph-a/keyring").write_text(self._mds_keyring("a"))
        if not self.mds:
            self.ceph("osd", "pool", "create", f"{LAB_FS}_meta", "8")
            self.ceph("osd", "pool", "create", f"{LAB_FS}_data", "16")
            self.run("ceph", "fs", "new", LAB_FS, f"{LAB_FS}_meta", f"{LAB_FS}_data")
        self.mds = True
        self.run("ceph-mds", "-i", "a")
        self._wait("MDS active", lambda: "active" in json.dumps(self.ceph("fs", "status", LAB_FS)), 120)

    def start_mds(self, name: str) -> None:
        """One more MDS daemon (a standby until a file system without an active MDS takes it); lab.stop() ends
        it with the others, by its pid file."""
        d = self.root / f"mds/ceph-{name}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "keyring").write_text(self._mds_keyring(name))
        if self._pid(f"mds.{name}") is None:
            self.run("ceph-mds", "-i", name)

    def restart_with(
        self, compiled_conf: str, *, daemons: tuple[str, ...] | None = None
    ) -> list[tuple[str, str]]:
        """Merge a compiled ceph.conf into the lab's conf and restart the daemons so they read it.

        By default restarts the OSDs and rgw always, the mon only if the conf has a [mon] section and
        the MDS only if it has an [mds] section (each restart costs seconds on 2 cores). mgr keeps
        running. Returns the compiled (section, key)s the lab overrode (see LAB_OWNED).
        """
        self.extra = parse_conf(compiled_conf)
        overridden = self.write_conf()
        if daemons is None:
            sections = {s.split(".", 1)[0] for s in self.extra}
            # an MDS restart costs ~40 s (rank takeover): only when what it reads has changed
            mds_view = (self.extra.get("global"), self.extra.get("mds"))
            daemons = (
                "osd",
                "rgw",
                *(["mon"] if "mon" in sections else []),
                *(["mds"] if "mds" in sections and mds_view != self._mds_view else []),
            )
        if "mds" in daemons:
            self._mds_view = (self.extra.get("global"), self.extra.get("mds"))
        t = time.monotonic()
        phases: dict[str, float] = {}

        def lap(name: str) -> None:
            nonlocal t
            phases[name] = round(time.monotonic() - t, 1)
            t = time.monotonic()

        stop = [f"osd.{i}" for i in range(self.n_osds)] if "osd" in daemons else []
        stop += self.gateway_names() if "rgw" in daemons else []
        stop += ["mds.a"] if self.mds and "mds" in daemons else []
        self._stop(*stop)
        lap("stop")
        if "mds.a" in stop:
            # tell the mon now, instead of letting it wait out the beacon grace before a new MDS may take over
            self.run("ceph", "mds", "fail", "a", check=False)
        if "mon" in daemons:
            self._stop("mon.a")
            self.run("ceph-mon", "-i", "a")
            self._wait("mon answering", lambda: self.ceph("mon", "stat") is not None, 60)
        if "osd" in daemons:
            self._start_osds()
            lap("osds up")
        if self.rgw and "rgw" in daemons:
            self._start_rgw()
            lap("rgw")
        if self.mds and "mds" in daemons:
            self.run("ceph-mds", "-i", "a")
            self._wait("MDS active", lambda: "active" in json.dumps(self.ceph("fs", "status", LAB_FS)), 120)
            lap("mds active")
        self.last_restart = phases
        return overridden

    def wait_clean(self, timeout: float = 120) -> None:
        """Wait until every PG is active+clean."""

        def clean() -> bool:
            st = self.ceph("pg", "stat")
            summary = st.get("pg_summary", st)  # 16.2: {"pg_ready", "pg_summary": {...}}
            total = int(summary["num_pgs"])
            good = sum(int(x["num"]) for x in summary["num_pg_by_state"] if x["name"] == "active+clean")
            return total > 0 and good == total

        self._wait("all PGs active+clean", clean, timeout)

    def rados_bench(
        self, pool: str, *, seconds: int = 3, block_size: int = 65536, threads: int = 16, mode: str = "write"
    ) -> dict[str, float]:
        """A short `rados bench`; returns bandwidth (MB/s), IOPS and average latency (s) as rados reports."""
        args = [
            "timeout",
            str(seconds + 60),
            "rados",
            "bench",
            "-p",
            pool,
            str(seconds),
            mode,
            "-t",
            str(threads),
            "--format",
            "json",
        ]
        if mode == "write":
            args += ["-b", str(block_size), "--no-cleanup"]
        r = self.run(*args, timeout=seconds + 90)
        doc, _ = json.JSONDecoder().raw_decode(r.stdout[r.stdout.index("{") :])
        if mode == "write":
            self.run("rados", "-p", pool, "cleanup", timeout=120)  # keep the sparse OSD files small
        return {
            "bandwidth_mb_s": float(doc["bandwidth"]),
            "iops": float(doc.get("average_iops", doc.get("iops", 0))),
            "avg_latency_s": float(doc["average_latency"]),
            "ops": float(doc.get("total_writes_made", doc.get("total_reads_made", 0))),
        }

    def stop(self) -> None:
        """Stop every daemon of this cluster by its pid file, then delete the cluster directory."""
        names = [f.name[len("ceph-") : -len(".pid")] for f in (self.root / "run").glob("ceph-*.pid")]
        self._stop(*[n for n in names if not n.startswith("mon.")])
        self._stop(*[n for n in names if n.startswith("mon.")])
        shutil.rmtree(self.root, ignore_errors=True)


def missing_tools(*, rgw: bool = True, mds: bool = True) -> list[str]:
    """The Ceph programs a lab needs that are not on PATH."""
    tools = ["ceph", "ceph-mon", "ceph-osd", "ceph-mgr", "rados"]
    tools += ["radosgw"] if rgw else []
    tools += ["ceph-mds"] if mds else []
    return [t for t in tools if shutil.which(t) is None]


def env_ports() -> tuple[int, int, int]:
    """FLASHTUNE_CEPHLAB_PORTS (v2,v1,rgw), else Ceph's own defaults 3300, 6789 and 8080."""
    text = os.environ.get("FLASHTUNE_CEPHLAB_PORTS", "3300,6789,8080")
    v2, v1, rgw = (int(p) for p in text.split(","))
    return v2, v1, rgw


def free_ports() -> tuple[int, int, int]:
    """Three loopback ports nobody listens on now (the kernel's ephemeral range, far from the OSDs' 6800-7300)."""
    socks = []
    try:
        for _ in range(3):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        v2, v1, rgw = (s.getsockname()[1] for s in socks)
        return v2, v1, rgw
    finally:
        for s in socks:
            s.close()


@contextlib.contextmanager
def ceph_cluster(
    *, rgw: bool = True, mds: bool = True, osds: int = 3, ports: tuple[int, int, int] | None = None
) -> Iterator[CephLab]:
    """A booted cluster that is always torn down, even when the boot itself fails half-way.

    ports: (mon v2, mon v1, rgw); default FLASHTUNE_CEPHLAB_PORTS, else 3300,6789,8080."""
    for tool in missing_tools(rgw=rgw, mds=mds):
        raise RuntimeError(f"{tool} is not installed: run scripts/install-system-deps.sh")
    if ports is None:
        ports = env_ports()
    lab = CephLab(
        Path(tempfile.mkdtemp(prefix="flashtune-cephlab-")),
        osds=osds,
        mon_v2=ports[0],
        mon_v1=ports[1],
        rgw_port=ports[2],
    )
    try:
        lab.start(rgw=rgw, mds=mds)
        yield lab
    finally:
        lab.stop()

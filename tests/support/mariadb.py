"""A throwaway MariaDB 10.11 server on 127.0.0.1 for real-software tests (my.cnf checks, sysbench).

mariadb-install-db initialises the datadir, then mariadbd runs in the foreground as our child
(MariaDB's own docs: mariadb-install-db and mariadbd options). The server gets its own datadir, socket,
pid file and port under a temp dir; nothing touches /var/lib/mysql. A user `sbtest`/`sbpass` owns the
database `sbtest`, ready for sysbench.

    def test_x(mariadb_server: MariaDB) -> None:
        mariadb_server.sql("SELECT 1")                      # -> [["1"]]
        mariadb_server.variables("innodb_buffer_pool_size")  # -> {"innodb_buffer_pool_size": "..."}
        mariadb_server.sysbench("oltp_read_write", seconds=10)   # -> parsed summary

Port: 33061 on 127.0.0.1; FLASHTUNE_MARIADB_PORT picks another (two sessions on one machine).
A busy port fails loudly.

Tuned configs: `MariaDB.start(extra_cnf=text)` (or `restart_with(text)`) merges a compiled my.cnf's
[mysqld] options below the lab's own (datadir, socket, port, bind-address, user are the lab's).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Options the lab must own so the server stays private to the test (loopback, own files).
LAB_OWNED = frozenset(
    {
        "datadir",
        "socket",
        "pid-file",
        "pid_file",
        "log-error",
        "log_error",
        "port",
        "bind-address",
        "bind_address",
        "user",
        "basedir",
        "tmpdir",
        "lc-messages-dir",
        "lc_messages_dir",
    }
)


def mysqld_options(cnf_text: str, groups: tuple[str, ...] = ("mysqld", "server", "mariadb")) -> list[str]:
    """The option lines of the server groups of a my.cnf, comments and other groups dropped."""
    lines: list[str] = []
    group = ""
    for raw in cnf_text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;" or line.startswith("!"):
            continue
        m = re.fullmatch(r"\[([^\]]+)\]", line)
        if m:
            group = m.group(1).strip()
            continue
        if group in groups:
            key = re.split(r"\s*=\s*", line, maxsplit=1)[0].strip()
            if key not in LAB_OWNED:
                lines.append(line)
    return lines


class MariaDB:
    def __init__(self, root: Path, port: int = 33061) -> None:
        self.root = root
        self.port = port
        self.cnf = root / "my.cnf"
        self.proc: subprocess.Popen[bytes] | None = None

    def write_cnf(self, extra: list[str]) -> None:
        r = self.root
        base = [
            f"datadir = {r}/data",
            f"socket = {r}/mysqld.sock",
            f"pid-file = {r}/mysqld.pid",
            f"log-error = {r}/error.log",
            "bind-address = 127.0.0.1",
            f"port = {self.port}",
            "user = root",
            "skip-name-resolve",
        ]
        self.cnf.write_text(
            "[mysqld]\n" + "\n".join(base + extra) + f"\n[client]\nsocket = {r}/mysqld.sock\n"
        )

    def _client(self, tool: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [tool, f"--defaults-file={self.cnf}", "-uroot", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def start(self, extra_cnf: str = "") -> None:
        """Initialise the datadir (first time) and start mariadbd with the lab options + extra_cnf."""
        self.write_cnf(mysqld_options(extra_cnf))
        if not (self.root / "data" / "mysql").exists():
            r = subprocess.run(
                [
                    "mariadb-install-db",
                    f"--defaults-file={self.cnf}",
                    "--auth-root-authentication-method=normal",
                    "--skip-test-db",
                ],
                capture_output=True,
                text=True,
                timeout=120,
            )
            if r.returncode != 0:
                raise RuntimeError(f"mariadb-install-db failed:\n{r.stderr[-3000:]}")
            first = True
        else:
            first = False
        self.proc = subprocess.Popen(
            ["mariadbd", f"--defaults-file={self.cnf}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        while self._client("mariadb-admin", "ping").returncode != 0:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                log = (self.root / "error.log").read_text(errors="replace")[-3000:]
                self.proc = None
                raise RuntimeError(f"mariadbd did not start:\n{log}")
            time.sleep(0.1)
        if first:
            self.sql(
                "CREATE DATABASE sbtest; CREATE USER sbtest@'127.0.0.1' IDENTIFIED BY 'sbpass'; "
                "GRANT ALL ON sbtest.* TO sbtest@'127.0.0.1';"
            )

    def stop(self) -> None:
        if self.proc is None:
            return
        self._client("mariadb-admin", "shutdown")
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None

    def restart_with(self, cnf_text: str) -> None:
        self.stop()
        self.start(cnf_text)

    def error_log(self) -> str:
        return (self.root / "error.log").read_text(errors="replace")

    def sql(self, statement: str) -> list[list[str]]:
        r = self._client("mariadb", "-N", "-B", "-e", statement)
        if r.returncode != 0:
            raise RuntimeError(f"SQL failed: {statement}\n{r.stderr}")
        return [line.split("\t") for line in r.stdout.splitlines()]

    def variables(self, *names: str) -> dict[str, str]:
        quoted = ",".join(f"'{n}'" for n in names)
        return {k: v for k, v in self.sql(f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({quoted})")}

    def sysbench_options(self, tables: int, table_size: int) -> list[str]:
        """sysbench's options for this server's sbtest database: `tables` tables of `table_size` rows."""
        return [
            "--db-driver=mysql",
            "--mysql-host=127.0.0.1",
            f"--mysql-port={self.port}",
            "--mysql-user=sbtest",
            "--mysql-password=sbpass",
            "--mysql-db=sbtest",
            f"--tables={tables}",
            f"--table-size={table_size}",
        ]

    def sysbench(
        self,
        test: str = "oltp_read_write",
        *,
        seconds: int = 10,
        threads: int = 2,
        tables: int = 4,
        table_size: int = 10000,
    ) -> dict[str, Any]:
        """prepare + run + cleanup; returns the run's text output parsed (tps, qps, latency ms, errors)."""
        opts = self.sysbench_options(tables, table_size)

        def sb(*args: str) -> str:
            r = subprocess.run(
                ["sysbench", test, *opts, *args], capture_output=True, text=True, timeout=seconds + 120
            )
            if r.returncode != 0:
                raise RuntimeError(f"sysbench {args[-1]} failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
            return r.stdout

        sb("cleanup")
        sb("prepare")
        out = sb(f"--threads={threads}", f"--time={seconds}", "run")
        sb("cleanup")

        def num(pattern: str) -> float:
            m = re.search(pattern, out)
            return float(m.group(1)) if m else float("nan")

        return {
            "transactions": num(r"transactions:\s+(\d+)"),
            "tps": num(r"transactions:\s+\d+\s+\(([\d.]+) per sec"),
            "qps": num(r"queries:\s+\d+\s+\(([\d.]+) per sec"),
            "errors": num(r"ignored errors:\s+(\d+)"),
            "lat_avg_ms": num(r"avg:\s+([\d.]+)"),
            "lat_p95_ms": num(r"95th percentile:\s+([\d.]+)"),
            "total_time_s": num(r"total time:\s+([\d.]+)s"),
            "raw": out,
        }


@contextlib.contextmanager
def mariadb(port: int | None = None) -> Iterator[MariaDB]:
    port = port or int(os.environ.get("FLASHTUNE_MARIADB_PORT", "33061"))
    with socket.socket() as s:
        # as mariadbd does: connections of a previous server still in TIME_WAIT must not count as "in use"
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            raise RuntimeError(
                f"127.0.0.1:{port} is in use; set FLASHTUNE_MARIADB_PORT to a free port"
            ) from None
    for tool in ("mariadbd", "mariadb-install-db", "mariadb-admin", "mariadb", "sysbench"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is not installed: run scripts/install-system-deps.sh")
    db = MariaDB(Path(tempfile.mkdtemp(prefix="flashtune-mariadb-")), port)
    try:
        yield db
    finally:
        db.stop()
        shutil.rmtree(db.root, ignore_errors=True)


@pytest.fixture(scope="session")
def mariadb_server() -> Iterator[MariaDB]:
    """A throwaway MariaDB 10.11 on 127.0.0.1:33061, started with small lab defaults, shared per session."""
    with mariadb() as db:
        db.start("[mysqld]\ninnodb_buffer_pool_size = 256M\ninnodb_log_file_size = 64M\n")
        yield db

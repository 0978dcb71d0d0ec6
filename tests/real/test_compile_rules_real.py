"""The catalog's dependency facts and the profile review, measured with the real programs on this machine:
MariaDB 10.11 (autosized values, derived io_capacity_max), Ceph 16.2.15 (effective defaults in a running
daemon, min_size of a new pool), tuned's shipped profiles (include semantics, read only) and the systemd /
kernel defaults the sysctl file must not lower (read only)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from flashtune.catalog import load_catalog
from flashtune.catalog.deps import FORMULAS
from flashtune.compile.derive_host import kernel_min_free_kbytes, vm_min_free_kbytes
from flashtune.compile.pipeline import CompileRequest, compile_bundle
from support.cephlab import CephLab
from support.mariadb import MariaDB

TUNED = Path("/usr/lib/tuned")


def _help_verbose(*args: str) -> dict[str, str]:
    r = subprocess.run(
        ["mariadbd", "--no-defaults", *args, "--help", "--verbose"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    table = r.stdout.split("-" * 20)[-1]
    return {m.group(1): m.group(2).strip() for m in re.finditer(r"^([a-z][\w-]*)\s+(.*)$", table, re.M)}


@pytest.mark.mariadb
def test_mariadb_autosizes_thread_cache_above_the_seed_value_so_the_profile_leaves_it() -> None:
    at_default = _help_verbose()
    at_2000 = _help_verbose("--max-connections=2000")
    # 8 + max_connections / 100, capped at 256: the seed's 16 would be a 16-fold cut at 2000 connections
    assert int(at_default["thread-cache-size"]) == 151 and int(at_2000["thread-cache-size"]) == 256
    assert at_default["performance-schema"] == "FALSE"  # MariaDB's own choice; the profile leaves it alone
    b = compile_bundle(CompileRequest(workload="mysql"))
    assert "thread_cache_size" not in b.files["my.cnf"] and "performance_schema" not in b.files["my.cnf"]
    assert "max_connections = 2000" in b.files["my.cnf"]


@pytest.mark.mariadb
def test_mariadb_takes_every_compiled_flash_value() -> None:
    b = compile_bundle(CompileRequest(workload="mysql", db_ram_gib=1))
    opts = [
        ln.split(" = ") for ln in b.files["my.cnf"].splitlines() if " = " in ln and not ln.startswith("#")
    ]
    args = [f"--{k.replace('_', '-')}={v}" for k, v in opts]
    have = _help_verbose(*args)
    for k, v in opts:
        assert have[k.replace("_", "-")] == v, (k, v, have[k.replace("_", "-")])
    assert have["bind-address"] == "127.0.0.1"


@pytest.mark.mariadb
@pytest.mark.slow
def test_running_mariadb_derives_io_capacity_max_as_the_catalog_says(mariadb_server: MariaDB) -> None:
    try:
        mariadb_server.restart_with("[mysqld]\ninnodb_buffer_pool_size = 256M\ninnodb_io_capacity = 4000\n")
        have = mariadb_server.variables(
            "innodb_io_capacity", "innodb_io_capacity_max", "innodb_flush_neighbors"
        )
        assert have["innodb_io_capacity"] == "4000" and have["innodb_io_capacity_max"] == "8000"
        assert FORMULAS["innodb_io_capacity_max_auto"](have["innodb_io_capacity_max"], lambda n: have.get(n))
        # MariaDB's default flushes neighbours (1): the flash tiers must set 0 explicitly
        assert have["innodb_flush_neighbors"] == "1"
    finally:
        mariadb_server.restart_with("[mysqld]\ninnodb_buffer_pool_size = 256M\ninnodb_log_file_size = 64M\n")


@pytest.mark.ceph
@pytest.mark.slow
def test_real_ceph_defaults_behind_the_dependency_facts(ceph_lab: CephLab) -> None:
    cat = load_catalog()
    # the values the 'requires' facts test against, as a running Pacific OSD has them
    shown = {
        k: ceph_lab.run("ceph", "config", "show", "osd.0", k).stdout.strip()
        for k in ("osd_op_queue", "osd_pool_default_min_size")
    }
    assert shown["osd_op_queue"] == cat.get("osd_op_queue", "ceph").default_for("pacific") == "wpq"
    assert int(shown["osd_pool_default_min_size"]) == 0
    policy = ceph_lab.ceph("config", "help", "rbd_cache_policy")
    assert policy["default"] == cat.get("rbd_cache_policy", "ceph").default_for("pacific") == "writearound"
    # a new replicated pool of size 3 gets min_size 2 from Ceph itself: the emitted line would be a no-op
    ceph_lab.ceph("osd", "pool", "create", "ft-minsize", "8", "8", "replicated")
    try:
        ceph_lab.ceph("osd", "pool", "set", "ft-minsize", "size", "3", "--yes-i-really-mean-it")
        got = ceph_lab.ceph("osd", "pool", "get", "ft-minsize", "min_size")["min_size"]
        assert got == 2 and FORMULAS["ceph_min_size"](got, lambda n: 3)
    finally:
        ceph_lab.ceph("osd", "pool", "rm", "ft-minsize", "ft-minsize", "--yes-i-really-really-mean-it")
    # so the pacific compile emits neither min_size nor an mclock profile
    conf = compile_bundle(CompileRequest(workload="block", ceph_release="pacific")).files["ceph.conf"]
    assert "osd_pool_default_min_size" not in conf and "osd_mclock_profile" not in conf


def _tuned(profile: str, seen: tuple[str, ...] = ()) -> dict[str, dict[str, str]]:
    """A shipped tuned profile with its include= chain resolved (the included profile first, ours on top)."""
    text = (TUNED / profile / "tuned.conf").read_text()
    sections: dict[str, dict[str, str]] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if m := re.fullmatch(r"\[(.+)\]", line):
            section = m.group(1)
        elif "=" in line:
            k, v = (x.strip() for x in line.split("=", 1))
            sections.setdefault(section, {})[k] = v
    merged: dict[str, dict[str, str]] = {}
    for inc in (sections.get("main", {}).get("include") or "").split(","):
        if inc.strip() and inc.strip() not in seen:
            for s, kv in _tuned(inc.strip(), (*seen, profile)).items():
                merged.setdefault(s, {}).update(kv)
    for s, kv in sections.items():
        merged.setdefault(s, {}).update(kv)
    return merged


@pytest.mark.skipif(not TUNED.is_dir(), reason="tuned is not installed (scripts/install-system-deps.sh)")
def test_tuned_profiles_set_what_the_duplicates_and_overridden_facts_say() -> None:
    cat = load_catalog()
    where = {
        "vm.swappiness": ("sysctl", "vm.swappiness"),
        "scaling_governor": ("cpu", "governor"),
        "energy_perf_bias": ("cpu", "energy_perf_bias"),
    }
    checked = 0
    for name, (section, key) in where.items():
        domain = "sysctl" if section == "sysctl" else "cpu"
        for rule in cat.get(name, domain).dead_when:
            for profile in rule.context["tuned_include"]:
                got = _tuned(profile).get(section, {}).get(key)
                assert got is not None and got.lower() in rule.value_in, (profile, name, got)
                checked += 1
    assert checked == 12
    # throughput-performance raises every disk's read-ahead to at least 4096 after udev ran
    ra = cat.get("read_ahead_kb", "blockdev").dead_when
    assert any(
        r.kind == "overridden" and "throughput-performance" in r.context.get("tuned_include", ()) for r in ra
    )
    assert _tuned("throughput-performance")["disk"]["readahead"] == ">4096"
    assert "disk" not in _tuned("latency-performance")  # so on the flash tiers nothing overrides it


@pytest.mark.kernel
def test_sysctl_never_lowers_what_systemd_and_the_kernel_set() -> None:
    pid_max = Path("/usr/lib/sysctl.d/50-pid-max.conf")
    if pid_max.exists():
        assert re.search(r"^kernel\.pid_max\s*=\s*4194304$", pid_max.read_text(), re.M)
        rule = next(r for r in load_catalog().get("kernel.pid_max", "sysctl").dead_when if r.kind == "lowers")
        assert rule.below == 4194304
    rmem = Path("/proc/sys/net/ipv4/tcp_rmem").read_text().split()
    b = compile_bundle(CompileRequest(workload="block"))
    emitted = dict(ln.split(" = ") for ln in b.files["sysctl.conf"].splitlines() if " = " in ln)
    assert emitted["net.ipv4.tcp_rmem"].split()[1] == rmem[1] == "131072"  # the running kernel's default
    assert "kernel.pid_max" not in emitted and "fs.file-max" not in emitted
    # vm.min_free_kbytes: never below what this kernel chose for this machine's RAM
    mem_kib = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))  # type: ignore[union-attr]
    now = int(Path("/proc/sys/vm/min_free_kbytes").read_text())
    assert (
        vm_min_free_kbytes(mem_kib / (1 << 20)).value
        >= now
        >= kernel_min_free_kbytes(mem_kib / (1 << 20)) // 2
    )


@pytest.mark.mariadb
@pytest.mark.slow
def test_running_mariadb_takes_the_character_set_and_collation_as_emitted(mariadb_server: MariaDB) -> None:
    # the tier's 32 GiB my.cnf with the two sizes this machine cannot give dropped: every other line must be
    # accepted and read back as written, 2000 connections included (not cut for lack of open files)
    cnf = compile_bundle(CompileRequest(workload="mysql")).files["my.cnf"]
    keep = [
        ln
        for ln in cnf.splitlines()
        if not ln.startswith(("innodb_buffer_pool_size", "innodb_log_file_size", "bind_address"))
    ]
    want = {
        k.strip(): v.strip() for k, _, v in (ln.partition("=") for ln in keep if " = " in ln and ln[0] != "#")
    }
    assert want["character_set_server"] == "utf8mb4" and want["max_connections"] == "2000"
    at_default = _help_verbose()
    assert (at_default["character-set-server"], at_default["collation-server"]) == (
        "latin1",
        "latin1_swedish_ci",
    )
    # utf8mb4 alone would pick its old default collation: why collation_server is emitted too
    assert _help_verbose("--character-set-server=utf8mb4")["collation-server"] == "utf8mb4_general_ci"
    # the seed's 192K stack is taken as given (no raise), below the 10.11 default the catalog records
    stack = load_catalog().get("thread_stack", "mysql")
    assert stack is not None and int(_help_verbose("--thread-stack=192K")["thread-stack"]) == 196608
    assert int(at_default["thread-stack"]) == stack.default_for("mariadb-10.11") > 196608
    log_before = len(mariadb_server.error_log())
    try:
        mariadb_server.restart_with("\n".join(keep) + "\ninnodb_buffer_pool_size = 256M\n")
        log = mariadb_server.error_log()[log_before:]
        assert "[ERROR]" not in log and "Changed limits" not in log, log[-2000:]
        have = mariadb_server.variables(*want)
        for k, v in want.items():
            assert have[k].lower() == {"": "on"}.get(v, v).lower(), (k, v, have[k])
        mariadb_server.sql("CREATE DATABASE ft_charset")
        made = mariadb_server.sql(
            "SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA "
            "WHERE SCHEMA_NAME = 'ft_charset'"
        )
        assert made == [["utf8mb4", "utf8mb4_uca1400_ai_ci"]]
        mariadb_server.sql("DROP DATABASE ft_charset")
    finally:
        mariadb_server.restart_with("[mysqld]\ninnodb_buffer_pool_size = 256M\ninnodb_log_file_size = 64M\n")


@pytest.mark.kernel
@pytest.mark.mariadb
def test_listen_backlogs_stay_below_the_kernels_somaxconn_so_the_profile_leaves_both_caps() -> None:
    somaxconn = int(Path("/proc/sys/net/core/somaxconn").read_text())  # read only
    ceph = subprocess.run(
        ["ceph-conf", "-c", "/dev/null", "--show-config-value", "ms_tcp_listen_backlog"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    ceph_backlog = int(ceph.stdout.strip())
    mariadb_backlog = int(_help_verbose("--max-connections=2000")["back-log"])
    # listen(fd, n) queues min(n, somaxconn): neither daemon asks for more than the kernel already allows
    assert somaxconn >= 4096 and (ceph_backlog, mariadb_backlog) == (512, 450)
    assert max(ceph_backlog, mariadb_backlog) < somaxconn
    # SYN cookies (the default) answer a full SYN queue instead of dropping: tcp_max_syn_backlog is moot too
    assert Path("/proc/sys/net/ipv4/tcp_syncookies").read_text().strip() == "1"
    sysctl = compile_bundle(CompileRequest(workload="rgw")).files["sysctl.conf"]
    assert "net.core.somaxconn" not in sysctl and "net.ipv4.tcp_max_syn_backlog" not in sysctl


@pytest.mark.mariadb
def test_mariadb_switches_the_query_cache_on_when_given_a_size_so_legacy_mode_drops_it() -> None:
    assert _help_verbose()["query-cache-type"] == "OFF"
    assert (
        _help_verbose("--query-cache-size=16M")["query-cache-type"] == "ON"
    )  # what the seed's line did here
    legacy = compile_bundle(CompileRequest(workload="mysql", ceph_release="jewel"))
    assert "query_cache" not in legacy.files["my.cnf"]
    seed_server = compile_bundle(
        CompileRequest(workload="mysql", ceph_release="jewel", mysql_flavour="mysql-5.7")
    )
    assert "query_cache_size = 16M" in seed_server.files["my.cnf"]  # 5.7 keeps the cache OFF: as published


@pytest.mark.mariadb
@pytest.mark.slow
@pytest.mark.parametrize("db_ram_gib", [6, 16, 32])
def test_the_db_host_drop_in_allows_what_mariadb_asks_for_at_the_compiled_max_connections(
    tmp_path: Path, db_ram_gib: int
) -> None:
    """Start the real MariaDB 10.11 with the compiled max_connections under a 1024-descriptor limit: the
    request it logs ("Could not increase number of max_open_files ... (request: N)") is what the compiler
    predicts, the drop-in's LimitNOFILE covers it, and at 2000 connections it is above Debian's 32768."""
    import shutil
    import time

    from flashtune.emit import dbhost

    b = compile_bundle(CompileRequest(workload="mysql", tier="iops", db_ram_gib=db_ram_gib))
    mycnf = b.files["my.cnf"]
    m = re.search(r"^max_connections = (\d+)$", mycnf, re.M)
    assert m and "table_open_cache" not in mycnf
    conns = int(m[1])
    dropin = b.files.get(dbhost.PATH, f"LimitNOFILE={dbhost.DEBIAN_UNIT_LIMIT}\n")  # absent: Debian's unit
    found = re.search(r"^LimitNOFILE=(\d+)$", dropin, re.M)
    assert found
    limit = int(found[1])
    d = tmp_path
    (d / "my.cnf").write_text(
        f"[mysqld]\ndatadir={d}/data\nsocket={d}/sock\npid-file={d}/pid\nport=0\nskip-networking\n"
        f"log-error={d}/error.log\ninnodb_buffer_pool_size=128M\nmax_connections={conns}\n"
        f"[client]\nsocket={d}/sock\n"
    )
    subprocess.run(
        [
            "mariadb-install-db",
            f"--defaults-file={d}/my.cnf",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    if shutil.which("prlimit") is None:
        pytest.skip("prlimit (util-linux) is not installed")
    # the warning goes to stderr: MariaDB checks the limit before it opens its error log
    with (d / "stderr.txt").open("w") as err:
        proc = subprocess.Popen(
            ["prlimit", "--nofile=1024:1024", "mariadbd", f"--defaults-file={d}/my.cnf", "--user=root"],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        try:
            deadline = time.monotonic() + 60
            log = d / "error.log"
            while not (log.exists() and "ready for connections" in log.read_text(errors="replace")):
                assert proc.poll() is None and time.monotonic() < deadline, "mariadbd did not start"
                time.sleep(0.2)
        finally:
            subprocess.run(["mariadb-admin", f"--defaults-file={d}/my.cnf", "-uroot", "shutdown"], timeout=60)
            proc.wait(timeout=60)
    text = (d / "stderr.txt").read_text(errors="replace")
    asked = re.search(
        r"Could not increase number of max_open_files to more than 1024 \(request: (\d+)\)", text
    )
    assert asked, text[-2000:]
    assert int(asked[1]) == dbhost.wanted_files(conns)
    assert limit >= int(asked[1]) and limit % 1024 == 0
    if conns == 2000:
        assert int(asked[1]) > dbhost.DEBIAN_UNIT_LIMIT  # why the drop-in exists

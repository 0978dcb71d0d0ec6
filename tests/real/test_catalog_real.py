"""The knob catalog against the real thing: a live Ceph 16.2.15 monitor, MariaDB 10.11's own option
table, and the running kernel's /proc/sys and /sys (read-only: nothing here writes a kernel setting)."""

from __future__ import annotations

import gzip
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from flashtune.catalog import Knob, load_catalog
from flashtune.catalog.cephschema import CephOption, parse_help_json
from support.ceph_mon import Mon, throwaway_mon


def _ceph_conf_knobs() -> list[Knob]:
    return [k for k in load_catalog().in_domain("ceph") if k.location.file == "ceph.conf"]


@pytest.fixture(scope="module")
def mon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mon]:
    with throwaway_mon(tmp_path_factory.mktemp("cephmon")) as m:
        yield m


@pytest.fixture(scope="module")
def live_schema(mon: Mon) -> dict[str, CephOption]:
    """Core options from the admin socket dump plus, per name, what `config help` says about the rest
    (the debug_<subsys> log levels are not in the asok dump; unknown names come back as errors)."""
    core = parse_help_json(mon.asok_config_help())
    rest = [k.name for k in _ceph_conf_knobs() if k.name not in core]
    answers = mon.config_help(rest)
    per_name = parse_help_json([e for e in answers.values() if "error" not in e])
    assert len(core) > 1500, "the admin socket dump looks truncated"
    return {**core, **per_name}


@pytest.mark.ceph
def test_pacific_rows_agree_with_a_live_16_2_15_monitor(mon: Mon, live_schema: dict[str, CephOption]) -> None:
    version = mon.run("ceph", "version")
    assert "16.2.15" in version
    problems: list[str] = []
    checked = 0
    for k in _ceph_conf_knobs():
        live = live_schema.get(k.name)
        if k.exists_in("pacific") != (live is not None):
            problems.append(
                f"{k.name}: catalog exists_in(pacific)={k.exists_in('pacific')}, monitor "
                f"{'knows' if live else 'does not know'} it"
            )
            continue
        if live is None:
            continue
        checked += 1
        if k.type != live.type:
            problems.append(f"{k.name}: type {k.type} != {live.type}")
        if k.default_for("pacific") != live.default:
            problems.append(f"{k.name}: default {k.default_for('pacific')!r} != {live.default!r}")
        if k.min != live.min or k.max != live.max:
            problems.append(f"{k.name}: range {k.min}..{k.max} != {live.min}..{live.max}")
        if tuple(k.enum) != live.enum:
            problems.append(f"{k.name}: enum {k.enum} != {live.enum}")
        if k.level != live.level:
            problems.append(f"{k.name}: level {k.level} != {live.level}")
    assert not problems, "\n".join(problems)
    assert checked > 100  # the comparison really ran over the catalog's Ceph options


@pytest.mark.ceph
def test_catalogued_misspellings_and_removed_options_are_unknown_to_the_monitor(mon: Mon) -> None:
    gone = [k.name for k in _ceph_conf_knobs() if not k.exists_in("pacific")]
    assert {"ms_nocrc", "debug_objectcatcher", "osd_op_threads", "mon_pg_warn_max_per_osd"} <= set(gone)
    answers = mon.config_help(gone)
    known = [n for n, a in answers.items() if "error" not in a]
    assert not known, f"the monitor knows options the catalog calls absent in pacific: {known}"
    # and each misspelling's target is real
    targets = [k.misspelling_of for k in _ceph_conf_knobs() if k.misspelling_of]
    answers = mon.config_help([t for t in targets if t])
    assert all("error" not in answers[t] for t in targets if t and t != "journal_queue_max_ops")


# ---- MariaDB ---------------------------------------------------------------------------------------


def _mariadb_help() -> tuple[dict[str, str], set[str]]:
    """(variables table name -> value, every --option name) from `mariadbd --no-defaults --help --verbose`."""
    r = subprocess.run(
        ["mariadbd", "--no-defaults", "--help", "--verbose"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Ver 10.11" in r.stdout, "expected MariaDB 10.11"
    head, sep, table = r.stdout.partition("Variables (--variable-name=value)")
    assert sep, "no variables table in mariadbd --help --verbose"
    values: dict[str, str] = {}
    for line in table.splitlines()[3:]:
        m = re.match(r"^([a-z0-9][a-z0-9_-]*)\s+(.*?)\s*$", line)
        if m:
            values[m.group(1)] = m.group(2)
    options = set(re.findall(r"^\s+(?:-\w, )?--([a-z0-9][a-z0-9_-]*)", head, re.M))
    return values, options


def _mariadb_value(raw: str) -> Any:
    if raw in ("TRUE", "ON"):
        return True
    if raw in ("FALSE", "OFF"):
        return False
    if re.fullmatch(r"-?\d+", raw):
        return int(raw)
    return raw


@pytest.mark.mariadb
def test_mariadb_rows_agree_with_mariadbd_help_verbose() -> None:
    values, options = _mariadb_help()
    assert len(values) > 500
    problems: list[str] = []
    checked = 0
    for k in load_catalog().in_domain("mysql"):
        if "mysqld" not in k.location.sections:
            continue  # client / mysqldump / mysqld_safe groups are not server options
        dashed = k.name.replace("_", "-")
        base = dashed.removeprefix("skip-")  # skip-X is the negation of option X ...
        # ... unless skip-X is an option of its own (skip-grant-tables: mariadbd has no grant-tables)
        known = any(name in values or name in options for name in (dashed, base))
        if k.exists_in("mariadb-10.11") != known:
            problems.append(
                f"{k.name}: catalog says {'present' if k.exists_in('mariadb-10.11') else 'absent'}"
                f" in mariadb-10.11, mariadbd says {'present' if known else 'absent'}"
            )
            continue
        default = k.default.get("mariadb-10.11", k.default.get("*"))
        if known and default is not None and dashed in values:
            checked += 1
            live, ours = _mariadb_value(values[dashed]), _mariadb_value(str(default).upper())
            if isinstance(default, bool):
                ours = default
            if isinstance(live, str) and isinstance(ours, str):
                live, ours = live.lower(), ours.lower()
            if ours != live:
                problems.append(f"{k.name}: default {default!r} != mariadbd {values[dashed]!r}")
    assert not problems, "\n".join(problems)
    assert checked >= 15


@pytest.mark.mariadb
def test_mariadb_rejects_what_the_catalog_calls_unknown(tmp_path: Path) -> None:
    """innodb_checksums (the 2017 my.cnf) is absent in MariaDB: the real server refuses it."""
    assert not load_catalog().get("innodb_checksums", "mysql").exists_in("mariadb-10.11")  # type: ignore[union-attr]
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[mysqld]\ninnodb_checksums = 0\n")
    r = subprocess.run(
        ["mariadbd", f"--defaults-file={cnf}", "--help", "--verbose"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "unknown variable 'innodb_checksums" in r.stderr


@pytest.mark.mariadb
def test_variables_the_catalog_calls_absent_in_mariadb_are_refused_or_ignored(tmp_path: Path) -> None:
    """Each absent [mysqld] variable is either an unknown variable (server will not start) or one
    MariaDB keeps only to warn that it does nothing; the rationale says which."""
    sample = {"bool": "1", "int": "2", "size": "1M", "str": "x"}
    absent = [
        k
        for k in load_catalog().in_domain("mysql")
        if "mysqld" in k.location.sections and not k.exists_in("mariadb-10.11")
    ]
    assert len(absent) >= 5
    cnf = tmp_path / "my.cnf"
    cnf.write_text(
        "[mysqld]\n"
        + "".join(f"{k.name} = {sample.get(k.type, k.enum[0] if k.enum else '1')}\n" for k in absent)
    )
    r = subprocess.run(
        ["mariadbd", f"--defaults-file={cnf}", "--help", "--verbose"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    for k in absent:
        refused = f"unknown variable '{k.name}=" in r.stderr
        ignored = f"'{k.name.replace('_', '-')}' was removed" in r.stderr
        assert refused or ignored, f"{k.name}: mariadbd neither refused nor ignored it"
        if ignored:
            assert "warn" in k.rationale, f"{k.name}: rationale should say MariaDB only warns about it"


# ---- kernel (read-only) ----------------------------------------------------------------------------


def _kernel_config() -> dict[str, str]:
    """CONFIG_X -> y/m/n of the running kernel ({} when /proc/config.gz is not provided)."""
    path = Path("/proc/config.gz")
    if not path.exists():
        return {}
    text = gzip.decompress(path.read_bytes()).decode()
    conf = dict(re.findall(r"^(CONFIG_\w+)=(\S+)", text, re.M))
    conf.update({m: "n" for m in re.findall(r"^# (CONFIG_\w+) is not set", text, re.M)})
    return conf


def _expected_on_this_kernel(k: Knob, config: dict[str, str]) -> bool | None:
    """True/False if the key must (not) exist here; None if it depends on a module being loaded."""
    if not k.exists_in(None):
        return False
    needs = [a for a in k.applies_to if a.startswith("CONFIG_")]
    states = {config.get(n, "y") for n in needs}  # without a config file assume a distro-style kernel
    if "n" in states:
        return False
    return None if "m" in states else True


@pytest.mark.kernel
def test_sysctl_keys_the_catalog_says_exist_are_in_proc_sys() -> None:
    knobs = load_catalog().in_domain("sysctl")
    config = _kernel_config()
    present, missing, wrongly_present = [], [], []
    for k in knobs:
        path = Path("/proc/sys") / k.name.replace(".", "/")
        expected = _expected_on_this_kernel(k, config)
        if expected is True:
            (present if path.exists() else missing).append(k.name)
        elif expected is False and path.exists():
            wrongly_present.append(k.name)
    assert not missing, f"catalogued as existing but not under /proc/sys: {missing}"
    assert not wrongly_present, f"catalogued as removed but present: {wrongly_present}"
    assert "net.ipv4.tcp_tw_recycle" not in present and len(present) > 30


@pytest.mark.kernel
def test_block_and_cpu_paths_exist_and_removed_schedulers_are_gone() -> None:
    cat = load_catalog()
    queues = sorted(Path("/sys/block").glob("*/queue"))
    assert queues, "no block devices under /sys/block"
    for name in ("read_ahead_kb", "scheduler", "nr_requests", "rq_affinity", "rotational"):
        assert cat.get(name, "blockdev") is not None
        assert any((q / name).exists() for q in queues), name
    sched = cat.get("scheduler", "blockdev")
    assert sched is not None
    offered = {
        w.strip("[]")
        for q in queues
        if (q / "scheduler").exists()
        for w in (q / "scheduler").read_text().split()
    }
    assert offered, "no scheduler list readable"
    for rule in sched.removed_values:
        assert not set(rule.values) & offered, f"{rule.values} should be gone (removed {rule.removed})"
    assert Path("/sys/kernel/mm/transparent_hugepage/enabled").exists()

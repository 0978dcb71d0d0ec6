"""The my.cnf facts lint-config relies on, re-measured with the real mariadbd 10.11 (`--help --verbose` parses the
options and exits without starting a server): removed-but-accepted options, MySQL-only options, the catalog's
when_absent facts, optimizer_switch flags, enum positions and unique prefixes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from flashtune.catalog import load_catalog
from flashtune.catalog.names import mysql_option_names
from flashtune.lint import lint_text
from flashtune.lint.ruledata import rules
from flashtune.yamlio import load_yaml
from support.mariadb import MariaDB
from support.value_forms import MYSQL_SIZE_FORMS

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import derive_option_names

pytestmark = pytest.mark.mariadb
FLAVOUR = "mariadb-10.11"


def mariadbd(tmp_path: Path, *lines: str) -> subprocess.CompletedProcess[str]:
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[mysqld]\n" + "\n".join(lines) + "\n")
    return subprocess.run(
        ["mariadbd", f"--defaults-file={cnf}", "--help", "--verbose"],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_removed_options_are_accepted_with_a_warning(tmp_path: Path) -> None:
    names = rules()["mysql"]["accepted_removed"][FLAVOUR]
    r = mariadbd(tmp_path, *(f"{n} = 1" for n in names))
    assert r.returncode == 0, r.stderr[-500:]
    warned = {
        m.replace("-", "_")
        for m in re.findall(r"\[Warning\] '([^']+)' (?:was removed|is MySQL 5\.6)", r.stderr)
    }
    assert set(names) <= warned, set(names) - warned
    found = lint_text("[mysqld]\n" + "".join(f"{n} = 1\n" for n in names), "my.cnf", mysql_flavour=FLAVOUR)
    assert {f.key for f in found if f.code == "FT102" and f.severity == "warning"} == set(names)
    assert not [f for f in found if "refuses" in f.message]


@pytest.mark.parametrize(
    "name", sorted({n for names in rules()["mysql"]["mysql_markers"].values() for n in names})
)
def test_mysql_only_options_are_unknown_to_mariadb(name: str, tmp_path: Path) -> None:
    r = mariadbd(tmp_path, f"{name} = 1")
    assert r.returncode != 0 and "unknown variable" in r.stderr, r.stderr[-300:]


def test_catalog_when_absent_facts(tmp_path: Path) -> None:
    for knob in load_catalog().in_domain("mysql"):
        how = knob.when_absent.get(FLAVOUR)
        if how is None:
            continue
        r = mariadbd(tmp_path, f"{knob.name} = 1")
        if how == "abort":
            assert r.returncode != 0 and "unknown variable" in r.stderr, knob.name
        else:
            assert r.returncode == 0 and "was removed" in r.stderr, knob.name


def test_optimizer_switch_flags_are_the_servers(tmp_path: Path) -> None:
    r = subprocess.run(
        ["mariadbd", "--no-defaults", "--help", "--verbose"], capture_output=True, text=True, timeout=60
    )
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("optimizer-switch "))
    flags = [item.split("=")[0] for item in line.split()[1].split(",")]
    assert flags == rules()["mysql"]["optimizer_switch_flags"][FLAVOUR]
    assert mariadbd(tmp_path, "optimizer_switch = 'batched_key_access=on'").returncode != 0
    assert mariadbd(tmp_path, "optimizer_switch = 'mrr=on'").returncode == 0


def test_enum_positions_and_prefixes(tmp_path: Path) -> None:
    for value, ok in (("1", True), ("2", True), ("DEMAND", True), ("3", False)):
        r = mariadbd(tmp_path, f"query_cache_type = {value}")
        assert (r.returncode == 0) == ok, (value, r.stderr[-300:])
        found = lint_text(f"[mysqld]\nquery_cache_type = {value}\n", "my.cnf", mysql_flavour=FLAVOUR)
        assert (not found) == ok, (value, found)
    r = mariadbd(tmp_path, "key_buffer = 16M")
    assert r.returncode == 0 and "Using unique option prefix 'key_buffer'" in r.stderr
    f = lint_text("[mysqld]\nkey_buffer = 16M\n", "my.cnf", mysql_flavour=FLAVOUR)
    assert [(x.code, x.severity) for x in f] == [("FT101", "warning")] and "key_buffer_size" in f[
        0
    ].suggestion
    r = mariadbd(tmp_path, "innodb_log_file = 1")
    assert "ambiguous option" in r.stderr
    assert [
        x.severity for x in lint_text("[mysqld]\ninnodb_log_file = 1\n", "my.cnf", mysql_flavour=FLAVOUR)
    ] == ["error"]


@pytest.mark.mariadb
def test_mariadb_name_list_matches_the_installed_server() -> None:
    out = subprocess.run(
        ["mariadbd", "--no-defaults", "--help", "--verbose"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert derive_option_names.mariadb_names(out) == mysql_option_names("mariadb-10.11")
    assert re.search(r"^  --innodb-buffer-pool-size=#", out, re.M)


@pytest.mark.mariadb
def test_mariadb_reads_the_groups_the_rules_say() -> None:
    from flashtune.lint import ruledata

    try:
        r = subprocess.run(["mariadbd", "--help", "--verbose"], capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        pytest.skip("mariadbd is not installed")
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("The following groups are read:"))
    assert line.split(":", 1)[1].split() == ruledata.rules()["mysql"]["groups_read"]["mariadb-10.11"]


@pytest.mark.mariadb
def test_mysql_sizes_read_as_mariadbd_reads_them(tmp_path: Path) -> None:
    """Public my.cnf files write `innodb_buffer_pool_size = 2GB`: mariadbd 10.11 reads one suffix letter and
    ignores the rest, and refuses a blank, a decimal point or hex. lint-config says FT201 exactly when mariadbd
    refuses the value, and reads the same number otherwise."""
    from flashtune.lint.values import mysql_value

    for text in MYSQL_SIZE_FORMS:
        f = tmp_path / "s.cnf"
        f.write_text(f"[mysqld]\ninnodb_buffer_pool_size = {text}\n")
        r = subprocess.run(
            ["mariadbd", f"--defaults-file={f}", "--help", "--verbose"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        refused = "[ERROR]" in r.stderr
        got = next(
            (ln.split()[1] for ln in r.stdout.splitlines() if ln.startswith("innodb-buffer-pool-size ")), None
        )
        lint_refuses = any(x.code == "FT201" for x in lint_text(f.read_text(), "my.cnf"))
        assert lint_refuses == refused, (text, r.stderr[-300:])
        if not refused:
            assert got == str(mysql_value("size", text)), text


@pytest.mark.mariadb
def test_mariadbd_raises_exactly_the_values_reported_below_minimum() -> None:
    """Every corpus my.cnf read as MariaDB 10.11: each value mariadbd raises to a minimum ('unsigned value V
    adjusted to N', read-only --help --verbose run) is an FT202 finding, and each such FT202 is one it raises."""
    import re
    import shutil
    import subprocess
    from pathlib import Path

    from flashtune.lint import lint_file

    if shutil.which("mariadbd") is None:
        pytest.skip("mariadbd is not installed")
    corpus = Path(__file__).parents[1] / "fixtures" / "lint-corpus"
    files = [
        corpus / m["file"]
        for m in load_yaml(corpus / "manifest.yaml")["files"]
        if m["kind"] == "my.cnf" and not str(m.get("mysql", "mariadb")).startswith("mysql")
    ]
    checked = 0
    for path in [*files, Path(__file__).parents[1] / "fixtures" / "hostile" / "my-below-minimum.cnf"]:
        findings = lint_file(path)
        if any(f.code == "FT003" for f in findings):
            continue  # a MySQL file (FT003): mariadbd is not its judge
        err = subprocess.run(
            ["mariadbd", f"--defaults-file={path}", "--help", "--verbose"],
            capture_output=True,
            text=True,
            timeout=60,
        ).stderr
        raised = {
            w[1].replace("-", "_")
            for w in re.finditer(r"option '([\w-]+)': (?:un)?signed value (-?\d+) adjusted to (\d+)", err)
            if int(w[3]) > int(w[2])
        }
        reported = {
            f.key.replace("-", "_").lower() for f in findings if f.code == "FT202" and "minimum" in f.message
        }
        assert raised == reported, (path.name, raised, reported)
        checked += 1
    assert checked >= 21 and reported == {
        "innodb_buffer_pool_size",
        "innodb_io_capacity",
        "sort_buffer_size",
        "innodb_log_file_size",
    }


HOSTILE = Path(__file__).parents[1] / "fixtures" / "hostile"


def _qcache(server: MariaDB) -> dict[str, int]:
    """Query-cache counters after the same SELECT twice (a working cache stores it once and hits once)."""
    server.sql("CREATE TABLE IF NOT EXISTS sbtest.lint_qc (a INT)")
    for _ in range(2):
        server.sql("SELECT * FROM sbtest.lint_qc")
    return {k: int(v) for k, v in server.sql("SHOW GLOBAL STATUS LIKE 'Qcache_%'")}


def _ft401_lines(path: Path) -> set[int]:
    return {f.line for f in lint_text(path.read_text(), "my.cnf", mysql_flavour=FLAVOUR) if f.code == "FT401"}


def test_dead_settings_are_what_mariadbd_runs_with(mariadb_server: MariaDB) -> None:
    """The catalog's my.cnf dead_when facts, on a real start of MariaDB 10.11: innodb_io_capacity above
    innodb_io_capacity_max is lowered to it (a warning in the log); query_cache_type = 0 beside a
    query_cache_size is switched ON and caches; query_cache_type = ON with query_cache_size = 0 caches nothing.
    lint-config reports exactly those lines (FT401) and none of the control file's, which the server keeps."""
    try:
        mariadb_server.restart_with((HOSTILE / "my-dead-settings.cnf").read_text())
        got = mariadb_server.variables("innodb_io_capacity", "innodb_io_capacity_max", "query_cache_type")
        assert got == {
            "innodb_io_capacity": "1000",
            "innodb_io_capacity_max": "1000",
            "query_cache_type": "ON",
        }
        assert (
            "innodb_io_capacity cannot be set higher than innodb_io_capacity_max"
            in mariadb_server.error_log()
        )
        counters = _qcache(mariadb_server)
        assert counters["Qcache_inserts"] >= 1 and counters["Qcache_hits"] >= 1, counters
        assert _ft401_lines(HOSTILE / "my-dead-settings.cnf") == {4, 6}

        mariadb_server.restart_with((HOSTILE / "my-query-cache-no-memory.cnf").read_text())
        assert mariadb_server.variables("query_cache_type")["query_cache_type"] == "ON"
        counters = _qcache(mariadb_server)
        assert counters["Qcache_inserts"] == 0 and counters["Qcache_hits"] == 0, counters
        assert _ft401_lines(HOSTILE / "my-query-cache-no-memory.cnf") == {3, 5}

        mariadb_server.restart_with((HOSTILE / "my-live-settings.cnf").read_text())
        got = mariadb_server.variables("innodb_io_capacity", "innodb_io_capacity_max", "query_cache_type")
        assert got == {
            "innodb_io_capacity": "1000",
            "innodb_io_capacity_max": "4000",
            "query_cache_type": "OFF",
        }
        assert _ft401_lines(HOSTILE / "my-live-settings.cnf") == set()
    finally:
        mariadb_server.restart_with("[mysqld]\ninnodb_buffer_pool_size = 256M\ninnodb_log_file_size = 64M\n")


@pytest.mark.parametrize("entry", rules()["mysql"]["plugin_options"][FLAVOUR], ids=lambda e: e["prefix"])
def test_plugin_options_need_their_plugin(tmp_path: Path, entry: dict[str, str]) -> None:
    """rules.yaml plugin_options for MariaDB 10.11: the example option alone stops the server ('unknown
    variable'); with its plugin loaded (plugin_load_add) the same line is accepted."""
    option = f"{entry['example']} = 1"
    r = mariadbd(tmp_path, option)
    assert r.returncode != 0 and f"unknown variable '{entry['example']}" in r.stderr, r.stderr[-500:]
    if entry.get("plugin") is not None:
        r = mariadbd(tmp_path, f"plugin_load_add = {entry['plugin']}", option)
        assert r.returncode == 0, r.stderr[-500:]


def test_plugin_option_findings_are_the_refusals(tmp_path: Path) -> None:
    """Each FT101 error lint-config gives on the plugin fixture is one line mariadbd refuses, and without
    those lines it accepts the rest (a loose- plugin option, rpl_semi_sync_master_enabled, built into 10.11)."""
    path = HOSTILE / "my-plugin-options.cnf"
    errors = {
        f.line for f in lint_text(path.read_text(), "my.cnf", mysql_flavour=FLAVOUR) if f.severity == "error"
    }
    lines = path.read_text().splitlines()
    body = [(i, ln) for i, ln in enumerate(lines, 1) if ln and not ln.startswith(("#", "["))]
    assert errors == {5, 7}
    for line in errors:
        r = mariadbd(tmp_path, *(ln for i, ln in body if i == line or i not in errors))
        assert r.returncode != 0 and "unknown variable" in r.stderr, (line, r.stderr[-500:])
    assert mariadbd(tmp_path, *(ln for i, ln in body if i not in errors)).returncode == 0


def test_negative_values_are_refused_as_reported(tmp_path: Path) -> None:
    """Each FT201 'takes no negative number' line of the fixture, alone: mariadbd refuses the value ('Error
    while setting value'); a server option stops it, an InnoDB option only leaves the plugin out here (the
    real start then stops: 'Unknown/unsupported storage engine: InnoDB')."""
    path = HOSTILE / "my-negative-values.cnf"
    lines = path.read_text().splitlines()
    found = [f for f in lint_text(path.read_text(), "my.cnf", mysql_flavour=FLAVOUR) if f.code == "FT201"]
    assert [f.line for f in found] == [4, 5, 6]
    for f in found:
        r = mariadbd(tmp_path, lines[f.line - 1])
        assert "Error while setting value" in r.stderr, (f, r.stderr[-500:])
        stops = "refuses to start" in f.message
        assert (r.returncode != 0) == stops, (f.message, r.returncode)
        if not stops:
            assert "Parsing options for plugin 'InnoDB' failed" in r.stderr, r.stderr[-500:]

"""`ceph config dump --format json` and `ceph config show WHO --format json` from a real Ceph 16.2.15 cluster,
linted with the ceph.conf rules (issue: since Mimic most options live in the monitors' database)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from flashtune.lint import lint_file, lint_text
from flashtune.lint.detect import detect
from flashtune.parse import parse_text
from support.cephlab import CephLab

pytestmark = pytest.mark.ceph


# (who, key, value): set on the session's cluster for this module, removed again afterwards
SETTINGS = (
    ("osd", "osd_max_backfills", "3"),
    ("osd", "filestore_max_sync_interval", "10"),  # FileStore on BlueStore
    ("osd", "osd_max_scrubs", "2"),
    # a manager module option (forced: the monitors learn module options only once the mgr reports them)
    ("mgr", "mgr/balancer/sleep_interval", "90"),
    ("osd", "osd_op_threads", "4"),  # gone since Luminous (forced)
    ("global", "auth_client_required", "cephx"),
)
FORCED = {"mgr/balancer/sleep_interval", "osd_op_threads"}


@pytest.fixture(scope="module")
def lab(ceph_lab: CephLab) -> Iterator[CephLab]:
    """The session's one cluster (a second one would need other ports), with this module's keys set."""
    for who, key, value in SETTINGS:
        ceph_lab.run("ceph", "config", "set", who, key, value, *(["--force"] if key in FORCED else []))
    try:
        yield ceph_lab
    finally:
        for who, key, _ in SETTINGS:
            ceph_lab.run("ceph", "config", "rm", who, key, check=False)


def _by_key(findings: list[object]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for f in findings:
        out.setdefault(f.key, set()).add(f.code)  # type: ignore[attr-defined]
    return out


def test_config_dump_is_detected_and_linted(lab: CephLab, tmp_path: Path) -> None:
    text = lab.run("ceph", "config", "dump", "--format", "json").stdout
    path = tmp_path / "dump.json"
    path.write_text(text)
    assert detect(tmp_path / "dump.txt", text).kind == "ceph-config.json"  # from content, not the name
    doc = parse_text(text, "ceph-config.json")
    assert {("osd", "osd_max_backfills"), ("mgr", "mgr/balancer/sleep_interval")} <= {
        (e.section, e.key) for e in doc.entries
    }
    got = _by_key(lint_file(path, ceph_release="pacific"))
    assert got.get("filestore_max_sync_interval") == {"FT401"}
    assert got.get("osd_op_threads") == {"FT102"}
    for fine in (
        "osd_max_backfills",
        "osd_max_scrubs",
        "mgr/balancer/sleep_interval",
        "auth_client_required",
    ):
        assert fine not in got, (fine, got[fine])
    # the same dump judged for Reef: FileStore is gone there
    reef = _by_key(lint_text(text, "ceph-config.json", ceph_release="reef"))
    assert "FT401" in reef["filestore_max_sync_interval"]


def test_config_show_of_a_daemon(lab: CephLab, tmp_path: Path) -> None:
    deadline = time.monotonic() + 60
    while True:  # the daemon takes the monitors' values a moment after `ceph config set`
        text = lab.run("ceph", "config", "show", "osd.0", "--format", "json").stdout
        items = json.loads(text)
        names = {i["name"]: str(i["value"]) for i in items}
        if names.get("osd_max_backfills") == "3" and "filestore_max_sync_interval" in names:
            break
        assert time.monotonic() < deadline, names
        time.sleep(2)
    path = tmp_path / "osd.0.json"
    path.write_text(text)
    findings = lint_file(path, ceph_release="pacific")
    # A running daemon's options are all real Pacific options: nothing may be called unknown or removed.
    assert not [f for f in findings if f.code in ("FT101", "FT102", "FT103", "FT105")], findings
    assert "FT401" in _by_key(findings).get("filestore_max_sync_interval", set())
    assert all(f.file == str(path) for f in findings)


def test_admin_socket_config_show_lists_every_option(lab: CephLab, tmp_path: Path) -> None:
    """`ceph daemon osd.0 config show` prints every option, defaults included, as one object (hotsos's Octopus
    sosreport holds one). Only what the daemon's own `config diff` says differs from the defaults may be
    reported: before this, each FileStore and RBD default was an FT401 (111 on the Octopus dump)."""
    deadline = time.monotonic() + 60
    while True:
        shown = lab.run("ceph", "daemon", "osd.0", "config", "show", timeout=30).stdout
        if json.loads(shown).get("osd_max_backfills") == "3":
            break
        assert time.monotonic() < deadline
        time.sleep(2)
    changed = set(lab.config_diff("osd.0"))
    assert detect(tmp_path / "show.txt", shown).kind == "ceph-config.json"
    path = tmp_path / "show.txt"
    path.write_text(shown)
    findings = [
        f for f in lint_file(path, ceph_release="pacific") if f.code != "FT003"
    ]  # FT003: kind from content
    assert {f.key for f in findings} <= changed, [f for f in findings if f.key not in changed]
    assert "FT401" in _by_key(findings).get("filestore_max_sync_interval", set())
    [f] = [f for f in findings if f.key == "filestore_max_sync_interval"]
    assert shown.split("\n")[f.line - 1].lstrip().startswith('"filestore_max_sync_interval"')
    assert parse_text(shown, "ceph-config.json").entries[5].section == "osd.0"

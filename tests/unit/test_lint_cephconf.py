"""lint-config on ceph.conf files and Ceph's own dumps as public ones are written: custom cluster names, mgr module
options, upstream renames outside the catalog, size spellings, debug subsystems, `ceph config dump` masks, admin
socket `config show`, and no risk reported where a line changes nothing. ceph-conf's own reading is in
tests/real/test_lint_cephconf_real.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from flashtune.lint import lint_file, lint_text
from flashtune.parse import parse_text
from support.linting import codes_at, found, lint_cli


def test_custom_cluster_ceph_conf_is_linted_as_ceph_conf(tmp_path: Path) -> None:
    p = tmp_path / "backup.conf"  # /etc/ceph/<cluster>.conf
    p.write_text("[global]\nmon_host = 10.0.0.1\n[client.rgw.gw1]\nrgw_frontends = civetweb port=80\n")
    found = lint_file(p)
    assert [f.code for f in found] == ["FT003", "FT104"]
    assert "ceph.conf" in found[0].message and "[client.rgw.gw1]" in found[0].message
    r = lint_cli(p)
    assert r.returncode == 1 and "FT104" in r.stdout


def test_ceph_mgr_module_options_and_every_syntax_error() -> None:
    assert (
        lint_text("[mgr]\nmgr/dashboard/ssl = false\nmgr/prometheus/server_port = 9283\n", "ceph.conf") == []
    )
    broken = "[global]\nfsid 35b08d01\n[osd\nosd_max_backfills = 2\n  [mon]\nmon_host = x\n"
    errors = [f for f in lint_text(broken, "ceph.conf") if f.code == "FT001"]
    assert [f.line for f in errors] == [2, 3, 5]


def test_no_far_fetched_suggestions_across_kinds() -> None:
    # a my.cnf key read as ceph.conf: nothing to offer from Ceph's names
    f = lint_text("[client]\ninnodb_buffer_pool_size = 1G\nquery_cache_limit = 1M\n", "ceph.conf")
    assert [x.code for x in f] == ["FT101", "FT101"] and not any("did you mean" in x.suggestion for x in f)
    near = lint_text("[osd]\nosd_max_backfill = 1\n", "ceph.conf")
    assert "osd_max_backfills" in near[0].suggestion


@pytest.mark.parametrize(
    ("release", "want"),
    [("quincy", []), ("reef", [(2, "mon_cluster_log_file_level", "FT103", "error")])],
)
def test_ceph_upstream_rename_outside_the_catalog(
    release: str, want: list[tuple[int, str, str, str]]
) -> None:
    text = "[mon]\nmon cluster log file level = info\n"
    assert codes_at(text, "ceph.conf", ceph_release=release) == want
    if want:
        [f] = lint_text(text, "ceph.conf", ceph_release=release)
        assert f.suggestion == "mon_cluster_log_level = info"


def test_ceph_size_spellings_from_public_configs_are_reported() -> None:
    manual = "bluestore_cache_autotune = false\n"  # the size is live only with the autotuner off (FT401)
    for bad in ("64k", "1GiB", "128MiB", "1 G"):
        assert codes_at(f"[osd]\nbluestore_cache_size = {bad}\n{manual}", "ceph.conf") == [
            (2, "bluestore_cache_size", "FT201", "error")
        ], bad
    for good in ("64K", "4Ki", "1GB", "3G"):
        assert codes_at(f"[osd]\nbluestore_cache_size = {good}\n{manual}", "ceph.conf") == [], good


def test_config_dump_masks_are_separate_settings() -> None:
    """`ceph config dump --format json` lists one option several times under one section with different masks
    (host:..., class:ssd); each is its own setting. The same name and mask twice is still a duplicate."""
    item = '{"section": "osd", "name": "osd_memory_target", "value": "%s", "mask": "%s"}'
    dump = (
        "[\n"
        + ",\n".join(item % (v, m) for v, m in [("4G", "host:a"), ("8G", "host:b"), ("6G", "class:ssd")])
        + "\n]\n"
    )
    assert codes_at(dump, "ceph-config.json") == []
    again = dump.replace("host:b", "host:a")
    assert codes_at(again, "ceph-config.json") == [(3, "osd_memory_target", "FT301", "warning")]


def test_debug_subsystems_after_pacific_are_a_note_not_an_error() -> None:
    """Ceph makes debug_<subsystem> options from src/common/subsys.h, and flashtune's lists for Quincy on carry
    Pacific's subsystems only: `debug rgw_notification` (a later subsystem) must not be called an error there.
    On Pacific, whose list is ceph-conf's own, it is one (ceph-conf 16.2.15: 'option not found')."""
    text = "[client.rgw.a]\ndebug rgw_notification = 5\ndebug rgw = 5\n"
    assert codes_at(text, "ceph.conf", ceph_release="tentacle") == [
        (2, "debug_rgw_notification", "FT101", "info")
    ]
    assert codes_at(text, "ceph.conf", ceph_release="pacific") == [
        (2, "debug_rgw_notification", "FT101", "error")
    ]


def test_no_risk_reported_on_a_line_that_changes_nothing() -> None:
    """freeshellv2's ceph.conf: min_size 1 beside size 2 is what Ceph derives anyway (FT401); the risk is the
    size, reported on its own line. min_size 1 beside size 3 does change something and stays a risk."""
    two = "[global]\nosd pool default size = 2\nosd pool default min size = 1\n"
    assert {(ln, c) for ln, c, _ in found(two, "ceph.conf")} == {(2, "FT501"), (3, "FT401")}
    three = two.replace("size = 2", "size = 3")
    assert (3, "FT501") in {(ln, c) for ln, c, _ in found(three, "ceph.conf")}


SHOW = '{\n    "name": "osd.3",\n    "cluster": "ceph",\n    "filestore_max_sync_interval": "5.000000",\n    "osd_max_backfills": "1",\n    "rbd_cache_max_dirty_age": "2.500000",\n    "bdev_async_discard": "true"\n}\n'


def test_admin_socket_config_show_reports_only_what_differs_from_defaults() -> None:
    """hotsos's Octopus `ceph daemon osd.0 config show` (every option, no source): detected from content, placed
    in the daemon's section, and only values that are no release's default are linted (the real-daemon check
    against `config diff` is in test_lint_cephjson.py). 5.000000 is the float default 5, 2.500000 is not 1."""
    from flashtune.lint.detect import detect

    assert detect("/tmp/ceph_daemon_osd.3_config_show", SHOW).kind == "ceph-config.json"
    doc = parse_text(SHOW, "ceph-config.json")
    assert {e.section for e in doc.entries} == {"osd.3"} and doc.entries[2].line == 4
    got = [(f.line, f.code, f.key) for f in lint_text(SHOW, "ceph-config.json", ceph_release="pacific")]
    assert got == [(6, "FT401", "rbd_cache_max_dirty_age")]
    # a `config show-with-defaults` list: items whose source is "default" were set by nobody
    listed = '[{"name": "filestore_max_sync_interval", "value": "9", "source": "default"}]'
    assert lint_text(listed, "ceph-config.json", ceph_release="pacific") == []
    assert lint_text(listed.replace('"default"', '"mon"'), "ceph-config.json", ceph_release="pacific")


def test_a_risky_knob_left_at_its_default_is_no_risk() -> None:
    """`config show` prints enable_experimental_unrecoverable_data_corrupting_features = '' (nothing enabled)."""
    knob = "enable experimental unrecoverable data corrupting features"
    assert found(f"[global]\n{knob} =\n", "ceph.conf") == []
    assert (2, "FT501") in {(ln, c) for ln, c, _ in found(f"[global]\n{knob} = bluestore\n", "ceph.conf")}


def test_float_values_compare_as_numbers() -> None:
    from flashtune.catalog.values import canon_value

    assert canon_value("1.000000", "float") == canon_value(1.0, "float") == "1"
    assert canon_value("0.500000", "float") == canon_value(0.5, "float")
    assert canon_value("abc", "float") == "abc"

"""Constructs found in public configs (tests/fixtures/lint-corpus/) that broke or misled lint-config, each pinned by
a small case: systemd sysctl.d globs and `-key` exclusions, quoted sysctl values, upstream Ceph renames outside the
catalog, and kind detection by folder. procps' own dry run is the judge of what sysctl does with quotes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from flashtune.lint import detect_kind, lint_text
from flashtune.parse import parse_text, render_text


def codes(text: str, kind: str, **kw: object) -> list[tuple[int, str, str, str]]:
    return [(f.line, f.key, f.code, f.severity) for f in lint_text(text, kind, **kw)]  # type: ignore[arg-type]


SYSTEMD_RP_FILTER = (
    "net.ipv4.conf.default.rp_filter = 2\nnet.ipv4.conf.*.rp_filter = 2\n-net.ipv4.conf.all.rp_filter\n"
)


def test_sysctl_d_exclusion_line_is_an_entry_not_a_syntax_error() -> None:
    """systemd's own 50-default.conf: `-key` alone keeps glob patterns off that key (sysctl.d(5))."""
    doc = parse_text(SYSTEMD_RP_FILTER, "sysctl.conf")
    assert not doc.problems
    excl = doc.entries[2]
    assert (excl.key, excl.value, excl.column) == ("net.ipv4.conf.all.rp_filter", None, 2)
    assert "glob-exclude" in excl.flags
    assert parse_text(render_text(doc), "sysctl.conf").model() == doc.model()
    assert codes(SYSTEMD_RP_FILTER, "sysctl.conf") == []
    # without the '-' it is still a line sysctl skips, and a '-' line with blanks inside is no key either
    assert codes("net.ipv4.conf.all.rp_filter\n", "sysctl.conf") == [(1, "", "FT001", "error")]
    assert codes("-net.ipv4 .conf\n", "sysctl.conf") == [(1, "", "FT001", "error")]


def test_sysctl_glob_keys_are_matched_against_the_name_lists() -> None:
    assert (
        codes(
            "net.ipv4.conf.*.accept_source_route = 0\nnet.ipv4.tcp_*mem = 4096 87380 6291456\n", "sysctl.conf"
        )
        == []
    )
    got = codes("net.ipv4.conf.*.rp_filtre = 2\n", "sysctl.conf")
    assert got == [(1, "net.ipv4.conf.*.rp_filtre", "FT101", "warning")]


def test_sysctl_quoted_value_is_reported_and_the_inside_checked() -> None:
    got = codes('kernel.core_pattern = "/dev/null"\n', "sysctl.conf")
    assert got == [(1, "kernel.core_pattern", "FT204", "warning")]
    [f] = lint_text('kernel.core_pattern = "/dev/null"\n', "sysctl.conf")
    assert f.column == 23 and "write kernel.core_pattern = /dev/null" in f.suggestion
    assert codes("kernel.core_pattern = /dev/null\n", "sysctl.conf") == []
    # the value inside the quotes is still checked: tcp_tw_recycle is gone whatever its quoting
    assert ("net.ipv4.tcp_tw_recycle", "FT102") in {
        (k, c) for _, k, c, _ in codes("net.ipv4.tcp_tw_recycle = '1'\n", "sysctl.conf")
    }


def test_procps_keeps_the_quotes(tmp_path: Path) -> None:
    """The fact behind the FT204 above, from procps itself: its dry run (writes nothing) echoes the quotes as
    the value it would write."""
    f = tmp_path / "q.conf"
    f.write_text('kernel.core_pattern = "/dev/null"\n')
    try:
        r = subprocess.run(["sysctl", "--dry-run", "-p", str(f)], capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        pytest.skip("procps sysctl is not installed")
    assert r.stdout.strip() == 'kernel.core_pattern = "/dev/null"'


@pytest.mark.parametrize(
    ("release", "want"),
    [("quincy", []), ("reef", [(2, "mon_cluster_log_file_level", "FT103", "error")])],
)
def test_ceph_upstream_rename_outside_the_catalog(
    release: str, want: list[tuple[int, str, str, str]]
) -> None:
    text = "[mon]\nmon cluster log file level = info\n"
    assert codes(text, "ceph.conf", ceph_release=release) == want
    if want:
        [f] = lint_text(text, "ceph.conf", ceph_release=release)
        assert f.suggestion == "mon_cluster_log_level = info"


def test_kind_from_any_sysctl_d_folder() -> None:
    for path in ("/usr/lib/sysctl.d/50-default.conf", "/run/sysctl.d/x.conf", "repo/sysctl.d/10-net.conf"):
        assert detect_kind(path, "") == "sysctl.conf", path

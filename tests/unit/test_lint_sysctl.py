"""lint-config on sysctl files as public ones are written: systemd sysctl.d globs and `-key` exclusions, quoted
values, names without their prefix, kind detection by any sysctl.d folder, unknown keys and kernel ranges.
procps' own reading of the same lines is in tests/real/test_lint_sysctl_real.py."""

from __future__ import annotations

from flashtune.lint import detect_kind, lint_text
from flashtune.parse import parse_text, render_text
from support.linting import codes_at
from support.value_forms import SYSTEMD_RP_FILTER


def test_sysctl_d_exclusion_line_is_an_entry_not_a_syntax_error() -> None:
    """systemd's own 50-default.conf: `-key` alone keeps glob patterns off that key (sysctl.d(5))."""
    doc = parse_text(SYSTEMD_RP_FILTER, "sysctl.conf")
    assert not doc.problems
    excl = doc.entries[2]
    assert (excl.key, excl.value, excl.column) == ("net.ipv4.conf.all.rp_filter", None, 2)
    assert "glob-exclude" in excl.flags
    assert parse_text(render_text(doc), "sysctl.conf").model() == doc.model()
    assert codes_at(SYSTEMD_RP_FILTER, "sysctl.conf") == []
    # without the '-' it is still a line sysctl skips, and a '-' line with blanks inside is no key either
    assert codes_at("net.ipv4.conf.all.rp_filter\n", "sysctl.conf") == [(1, "", "FT001", "error")]
    assert codes_at("-net.ipv4 .conf\n", "sysctl.conf") == [(1, "", "FT001", "error")]


def test_sysctl_glob_keys_are_matched_against_the_name_lists() -> None:
    assert (
        codes_at(
            "net.ipv4.conf.*.accept_source_route = 0\nnet.ipv4.tcp_*mem = 4096 87380 6291456\n", "sysctl.conf"
        )
        == []
    )
    got = codes_at("net.ipv4.conf.*.rp_filtre = 2\n", "sysctl.conf")
    assert got == [(1, "net.ipv4.conf.*.rp_filtre", "FT101", "warning")]


def test_sysctl_quoted_value_is_reported_and_the_inside_checked() -> None:
    got = codes_at('kernel.core_pattern = "/dev/null"\n', "sysctl.conf")
    assert got == [(1, "kernel.core_pattern", "FT204", "warning")]
    [f] = lint_text('kernel.core_pattern = "/dev/null"\n', "sysctl.conf")
    assert f.column == 23 and "write kernel.core_pattern = /dev/null" in f.suggestion
    assert codes_at("kernel.core_pattern = /dev/null\n", "sysctl.conf") == []
    # the value inside the quotes is still checked: tcp_tw_recycle is gone whatever its quoting
    assert ("net.ipv4.tcp_tw_recycle", "FT102") in {
        (k, c) for _, k, c, _ in codes_at("net.ipv4.tcp_tw_recycle = '1'\n", "sysctl.conf")
    }


def test_kind_from_any_sysctl_d_folder() -> None:
    for path in ("/usr/lib/sysctl.d/50-default.conf", "/run/sysctl.d/x.conf", "repo/sysctl.d/10-net.conf"):
        assert detect_kind(path, "") == "sysctl.conf", path


def test_sysctl_name_without_its_prefix_gets_the_full_name() -> None:
    [f] = lint_text("ip_local_port_range = 9000 65500\n", "sysctl.conf")
    assert (f.code, f.suggestion) == ("FT101", "did you mean net.ipv4.ip_local_port_range?")


def test_sysctl_unknown_keys_and_kernel_ranges() -> None:
    found = {
        f.key: f
        for f in lint_text(
            "vm.swapiness = 10\nnet.ipv4.tcp_nodelay = 1\nkernel.sched_migration_cost_ns = 5000000\n"
            "net.ipv4.conf.eth7.rp_filter = 1\nvm.swappiness = 10\n",
            "sysctl.conf",
        )
    }
    assert found["vm.swapiness"].code == "FT101" and "vm.swappiness" in found["vm.swapiness"].suggestion
    assert (
        found["net.ipv4.tcp_nodelay"].code == "FT101"
        and "did you mean" not in found["net.ipv4.tcp_nodelay"].suggestion
    )
    assert found["kernel.sched_migration_cost_ns"].code in ("FT102", "FT108")
    assert "5.13" in found["kernel.sched_migration_cost_ns"].message
    assert "net.ipv4.conf.eth7.rp_filter" not in found and "vm.swappiness" not in found

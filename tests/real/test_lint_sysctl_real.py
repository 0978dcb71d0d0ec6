"""What procps sysctl does with the lines lint-config judges (its dry run, read-only): quotes kept as part of the
value, systemd-style globs expanded and `-key` exclusions honoured."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.value_forms import SYSTEMD_RP_FILTER


@pytest.mark.kernel
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


@pytest.mark.kernel
def test_procps_expands_globs_and_honours_exclusions(tmp_path: Path) -> None:
    """The facts behind the glob rules, from procps (dry run, nothing written): a pattern is expanded, `-key`
    alone keeps it off that key, and a pattern that matches nothing is no error."""
    f = tmp_path / "g.conf"
    f.write_text(SYSTEMD_RP_FILTER + "net.ipv4.conf.*.no_such_sysctl = 1\n")
    try:
        r = subprocess.run(["sysctl", "--dry-run", "-p", str(f)], capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        pytest.skip("procps sysctl is not installed")
    assert r.returncode == 0, r.stderr
    keys = [ln.split(" = ")[0] for ln in r.stdout.splitlines()]
    assert "net.ipv4.conf.lo.rp_filter" in keys and "net.ipv4.conf.all.rp_filter" not in keys

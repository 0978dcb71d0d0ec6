"""The Ceph facts behind lint-config's ceph.conf checks, on the real programs: size, integer and boolean
spellings as ceph-conf 16.2.15 reads them, and the monitor refusing a size-1 pool without the guard CBT's rule names."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.value_forms import SIZE_FORMS


@pytest.mark.ceph
def test_ceph_sizes_and_integers_read_as_ceph_conf_reads_them(tmp_path: Path) -> None:
    """Public configs write sizes as 4K, 64k, 1GiB, 128MiB: lint-config accepts exactly the forms ceph-conf
    16.2.15 takes, with the same number (a refused form makes Ceph use the default, which is also checked)."""
    from flashtune.lint.values import ceph_value
    from support.lint_oracles import CEPH_ENV

    def ceph_reads(option: str, text: str) -> str:
        f = tmp_path / "c.conf"
        f.write_text(f"[global]\n{option} = {text}\n")
        r = subprocess.run(
            ["ceph-conf", "-c", str(f), "--name", "osd.0", "--show-config-value", option],
            capture_output=True,
            text=True,
            env=CEPH_ENV,
            timeout=30,
        )
        return r.stdout.strip()

    for option, type_, default, forms in (
        ("bluestore_cache_size", "size", "0", SIZE_FORMS),
        ("osd_op_num_threads_per_shard", "int", "0", INT_FORMS),
        ("osd_scrub_auto_repair", "bool", "false", BOOL_FORMS),  # default false: a refused 'yes' stays false
        ("ms_crc_data", "bool", "true", BOOL_FORMS),  # default true: a refused 'off' keeps the CRCs on
    ):
        for text in forms:
            got = ceph_reads(option, text)
            try:
                value = ceph_value(type_, text)
                ours: str | None = str(value).lower() if isinstance(value, bool) else str(value)
            except ValueError:
                ours = None
            if ours is None:
                assert got == default, (option, text, got)
            else:
                assert got == ours, (option, text, got, ours)


@pytest.mark.ceph
def test_monitors_refuse_size_one_without_the_guard(ceph_lab: Any) -> None:
    """The fact behind the CBT rule, on the real Ceph 16.2.15 monitor: CBT's own command (`osd pool set NAME size
    1 --yes-i-really-mean-it`) fails while mon_allow_pool_size_one is false, and passes once it is true."""
    pool = "lintworld-size-one"
    ceph_lab.run("ceph", "osd", "pool", "create", pool, "8", "8")
    try:
        ceph_lab.run("ceph", "tell", "mon.*", "config", "set", "mon_allow_pool_size_one", "false")
        r = ceph_lab.run(
            "ceph", "osd", "pool", "set", pool, "size", "1", "--yes-i-really-mean-it", check=False
        )
        assert r.returncode != 0 and "size as 1 is disabled" in r.stderr, r.stderr
        ceph_lab.run("ceph", "tell", "mon.*", "config", "set", "mon_allow_pool_size_one", "true")
        ceph_lab.run("ceph", "osd", "pool", "set", pool, "size", "1", "--yes-i-really-mean-it")
    finally:
        ceph_lab.run("ceph", "tell", "mon.*", "config", "set", "mon_allow_pool_size_one", "true", check=False)
        ceph_lab.run("ceph", "osd", "pool", "rm", pool, pool, "--yes-i-really-really-mean-it", check=False)


BOOL_FORMS = [
    "true",
    "false",
    "TRUE",
    "False",
    "1",
    "0",
    "2",
    "-1",
    "+1",
    "yes",
    "no",
    "on",
    "off",
    "maybe",
    "0x1",
    "1.0",
]
INT_FORMS = ["7", "7K", "7k", "7Ki", "7KB", "+7", "-7", " 7 ", "7.5", "7e3", "0x7", "07", "7M", "7E"]

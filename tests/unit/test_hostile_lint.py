"""Lint misses found on real and hand-written files, and knob cards that called a risky knob safe; each case
runs lint-config or `flashtune knob` as a child process (tests/support/hostile.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.hostile import check, run


@pytest.mark.parametrize(
    ("text", "finding"),
    [
        ("[mysqld]\nskip-grant-tables\n", ":2:1: error FT502 skip_grant_tables = 'ON' is a security-risk"),
        (
            "[mysqld]\nskip_grant_tables = 1\n",
            ":2:21: error FT502 skip_grant_tables = '1' is a security-risk",
        ),
        (
            "[mysqld]\nskip-innodb-doublewrite\n",
            ":2:1: warning FT501 skip_innodb_doublewrite = 'OFF' is a durability-risk",
        ),
        (
            "[mysqld]\ninnodb_buffer_pool_size = <SIZE>\n",
            ":2:27: error FT205 innodb_buffer_pool_size = '<SIZE>'",
        ),
        ("[mysqld]\nbind_address = ${DB_ADDR}\n", ":2:16: error FT205 bind_address = '${DB_ADDR}'"),
    ],
)
def test_my_cnf_misses(tmp_path: Path, text: str, finding: str) -> None:
    f = tmp_path / "my.cnf"
    f.write_text(text)
    r = run("flashtune.cli.lint", "--kind", "my.cnf", f, cwd=tmp_path)
    check(r, rc=(0, 1))
    assert f"{f}{finding}" in r.out, r.out
    assert "FT201" not in r.out, r.out  # the placeholder says why; not also 'not a number'


@pytest.mark.parametrize(
    ("text", "finding"),
    [
        ("[global]\npublic_network = <YOUR-NETWORK>\n", ":2:18: error FT205"),
        ("[global]\nmon_host = {{ mon_ip }}\n", ":2:12: error FT205"),
        ("[osd]\nosd_op_num_shards = CHANGEME\n", ":2:21: error FT205"),
        ("[osd]\nms_crc_data = maybe\n", ":2:15: error FT201 ms_crc_data: 'maybe' is not a boolean"),
    ],
)
def test_ceph_conf_misses(tmp_path: Path, text: str, finding: str) -> None:
    f = tmp_path / "ceph.conf"
    f.write_text(text)
    r = run("flashtune.cli.lint", "--kind", "ceph.conf", f, cwd=tmp_path)
    check(r, rc=1)
    assert f"{f}{finding}" in r.out, r.out


def test_ceph_metavariables_are_not_placeholders(tmp_path: Path) -> None:
    f = tmp_path / "ceph.conf"
    f.write_text("[global]\nadmin_socket = $run_dir/$cluster-$name.asok\nkeyring = ${HOME}/keyring\n")
    r = run("flashtune.cli.lint", "--kind", "ceph.conf", f, cwd=tmp_path)
    assert "FT205" not in r.out, r.out


@pytest.mark.parametrize("knob", ["skip_grant_tables", "innodb_flush_log_at_trx_commit", "ms_crc_data"])
def test_a_knob_with_risky_values_is_never_called_safe(tmp_path: Path, knob: str) -> None:
    r = run("flashtune.cli.main", "knob", knob, cwd=tmp_path)
    check(r, rc=0)
    assert "no data or security is at stake" not in r.out, r.out
    assert "unsafe" in r.out

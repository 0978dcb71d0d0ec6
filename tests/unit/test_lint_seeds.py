"""Every config printed in the seeds, linted: the full set of findings must be exactly the defects in them.

The expected lists were written from reading the seed page (000) against the reference notes
(ceph-real.md 2 and 4, cbt-and-ceph-options.md 1.10 and 2.4, mariadb-fio-sysctl.md 1.3 and 3.1), not
from the linter's output. Warnings and errors are compared as a multiset of (key, code); info findings
are not defects and are listed separately where they matter.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from flashtune.lint import Finding, lint_file

SEEDS = Path(__file__).parents[1] / "fixtures" / "seed-configs"

FILESTORE_TUNING = ["filestore_queue_max_ops", "filestore_queue_max_bytes", "filestore_max_sync_interval"]
AUTH_NONE = [
    ("auth_cluster_required", "FT502"),
    ("auth_service_required", "FT502"),
    ("auth_client_required", "FT502"),
]

EXPECTED: dict[tuple[str, str], list[tuple[str, str]]] = {
    # Sample ceph.conf (appendix): FileStore-era, typos, auth off, civetweb.
    ("000-sample-ceph.conf", "tentacle"): [
        ("filestore_xattr_use_omap", "FT102"),  # gone from every schema we have
        *AUTH_NONE,
        ("debug_objectcatcher", "FT101"),  # typo of debug_objectcacher
        ("mon_pg_warn_max_per_osd", "FT103"),  # renamed mon_max_pg_per_osd in Luminous 12.2.1
        ("osd_mkfs_type", "FT102"),
        ("osd_mount_options_xfs", "FT102"),
        ("osd_mkfs_options_xfs", "FT102"),
        *[(k, "FT401") for k in FILESTORE_TUNING],
        ("filestore_merge_threshold", "FT401"),
        ("filestore_split_multiple", "FT401"),
        ("osd_op_shard_threads", "FT101"),  # never existed
        ("journal_max_write_entries", "FT401"),
        ("journal_max_write_bytes", "FT401"),
        ("journal_queueu_max_ops", "FT101"),  # typo of an option that is itself gone
        ("journal_queue_max_bytes", "FT102"),
        ("rgw_socket_path", "FT102"),  # FastCGI socket, gone with FastCGI
        ("rgw_frontends", "FT104"),  # civetweb: removed in Quincy, RGW starts without a listener
        ("ms_dispatch_throttle_bytes", "FT607"),  # 1000 MiB + the 500 MiB client cap: 37 % of a 4 GiB target
    ],
    ("000-sample-ceph.conf", "jewel"): [
        *AUTH_NONE,
        ("debug_objectcatcher", "FT101"),
        ("osd_op_shard_threads", "FT101"),
        ("journal_queueu_max_ops", "FT101"),
        ("journal_queue_max_bytes", "FT102"),  # removed just before Jewel (fullness backoff throttle)
    ],
    # The All-NVMe MySQL cluster's ceph.conf: BlueStore (experimental in 2016) with FileStore knobs left in.
    ("000-mysql-ceph.conf", "tentacle"): [
        # rbd_cache = false: librbd read-ahead never runs (catalog dead_when)
        ("rbd_readahead_disable_after_bytes", "FT401"),
        ("rbd_readahead_max_bytes", "FT401"),
        ("enable_experimental_unrecoverable_data_corrupting_features", "FT501"),
        *AUTH_NONE,
        ("filestore_xattr_use_omap", "FT102"),
        ("private_network", "FT101"),  # not an option; public_network was probably meant
        ("osd_pg_bits", "FT102"),
        ("osd_pgp_bits", "FT102"),
        ("mon_pg_warn_max_per_osd", "FT103"),
        ("mon_pg_warn_max_per_osd", "FT103"),  # [global] and [mon]
        ("mutex_perf_counter", "FT102"),
        ("mon_osd_max_split_count", "FT102"),
        ("osd_mount_options_xfs", "FT102"),
        ("osd_mkfs_options_xfs", "FT102"),
        ("osd_op_threads", "FT102"),
        ("osd_mkfs_type", "FT102"),
        ("filestore_queue_committing_max_ops", "FT102"),
        ("filestore_queue_committing_max_bytes", "FT102"),
        ("journal_queue_max_ops", "FT102"),
        ("journal_queue_max_bytes", "FT102"),
        ("objecter_infilght_op_bytes", "FT101"),  # typo of objecter_inflight_op_bytes
        *[(k, "FT401") for k in FILESTORE_TUNING],
        ("filestore_wbthrottle_enable", "FT401"),
        ("filestore_fd_cache_size", "FT401"),
        ("filestore_fd_cache_shards", "FT401"),
        ("filestore_op_threads", "FT401"),
        ("journal_max_write_entries", "FT401"),
        ("journal_max_write_bytes", "FT401"),
    ],
    ("000-mysql-ceph.conf", "jewel"): [
        # rbd_cache = false: librbd read-ahead never runs (catalog dead_when)
        ("rbd_readahead_disable_after_bytes", "FT401"),
        ("rbd_readahead_max_bytes", "FT401"),
        ("enable_experimental_unrecoverable_data_corrupting_features", "FT501"),
        *AUTH_NONE,
        ("filestore_queue_committing_max_ops", "FT102"),
        ("filestore_queue_committing_max_bytes", "FT102"),
        ("journal_queue_max_ops", "FT102"),
        ("journal_queue_max_bytes", "FT102"),
        ("objecter_infilght_op_bytes", "FT101"),
        # osd objectstore = bluestore, so every FileStore knob in the file is dead even on Jewel
        ("filestore_xattr_use_omap", "FT401"),
        *[(k, "FT401") for k in FILESTORE_TUNING],
        ("filestore_wbthrottle_enable", "FT401"),
        ("filestore_fd_cache_size", "FT401"),
        ("filestore_fd_cache_shards", "FT401"),
        ("filestore_op_threads", "FT401"),
        ("journal_max_write_entries", "FT401"),
        ("journal_max_write_bytes", "FT401"),
        # osd_mkfs_* / osd_mount_options_xfs are not reported: on Jewel ceph-disk still formatted and mounted
        # the small XFS partition of a BlueStore OSD with them.
    ],
    ("000-kernel-sysctl.conf", "tentacle"): [
        ("net.ipv4.tcp_tw_recycle", "FT102"),  # removed in Linux 4.12: sysctl -p fails
        ("net.ipv4.tcp_syncookies", "FT502"),  # SYN-flood protection off
    ],
    ("000-sample-sysctl.conf", "tentacle"): [
        ("net.ipv4.ip_local_port_range", "FT605"),  # 1024-65000 covers 3300, 6789 and 6800-7300
        ("fs.file-max", "FT401"),  # 6553600 lowers what systemd sets at boot (catalog dead_when)
    ],
    ("000-my.cnf", "tentacle"): [
        ("thread_cache_size", "FT301"),  # 8, then 16
        ("innodb_checksums", "FT102"),  # MariaDB 10.11: unknown variable, the server does not start
        ("innodb_flush_log_at_trx_commit", "FT501"),  # 0: the last second of commits is lost on a crash
        ("innodb_page_cleaners", "FT102"),  # removed; accepted with a warning, does nothing
    ],
    # The CBT plan is mis-indented: it does not load at all, and the cluster keys at column 1 would be dropped.
    ("000-cbt.yaml", "tentacle"): [
        ("", "FT001"),
        ("osds_per_node", "FT703"),
        ("iterations", "FT703"),
        ("pool_profiles", "FT703"),
        ("vol_size", "FT204"),  # 10 MiB volumes: the whole working set sits in caches
        # read with the cluster keys re-indented (issue 23): what CBT then does with the plan
        ("iterations", "FT707"),  # one run per case, no spread
        ("mode", "FT708"),  # list sweeps without is_teuthology: CBT runs only the first permutation
        ("time", "FT706"),  # no time_based: fio stops once it has covered each 10 MiB volume
        ("librbdfio", "FT709"),  # 6 clients x 10 x 10 MiB against 5 x 16 OSDs' caches
    ],
}

ERRORS_EXPECTED = {  # which of them must stop a deployment (exit 1)
    ("000-my.cnf", "tentacle"): {"innodb_checksums"},
    ("000-sample-sysctl.conf", "tentacle"): set(),
}


def _run(name: str, release: str) -> list[Finding]:
    return lint_file(SEEDS / name, ceph_release=release)


@pytest.mark.parametrize(("name", "release"), sorted(EXPECTED), ids=[f"{n}-{r}" for n, r in sorted(EXPECTED)])
def test_seed_findings_are_exactly_the_defects(name: str, release: str) -> None:
    findings = _run(name, release)
    got = Counter((f.key, f.code) for f in findings if f.severity != "info")
    assert got == Counter(EXPECTED[(name, release)])
    lines = (SEEDS / name).read_text().splitlines()
    for f in findings:
        if f.key and f.code != "FT001":
            # the position names the line that holds the key (spaces in ceph.conf keys become '_')
            text = "_".join(lines[f.line - 1].split("=")[0].split()).replace("-", "_")
            assert f.key.replace("-", "_") in text.replace("-", "_") or f.key in lines[f.line - 1], (
                f,
                lines[f.line - 1],
            )


@pytest.mark.parametrize("key", sorted(ERRORS_EXPECTED), ids=[n for n, _ in sorted(ERRORS_EXPECTED)])
def test_error_levels(key: tuple[str, str]) -> None:
    errors = {f.key for f in _run(*key) if f.severity == "error"}
    assert errors == ERRORS_EXPECTED[key]


def test_jewel_unknowns_are_only_info() -> None:
    # flashtune has no full Jewel option list, so a name it cannot place is only an info note there
    info = [f for f in _run("000-mysql-ceph.conf", "jewel") if f.severity == "info"]
    assert [(f.key, f.code) for f in info] == [("private_network", "FT101")]


def test_misspelling_says_what_was_meant() -> None:
    f = next(f for f in _run("000-mysql-ceph.conf", "tentacle") if f.key == "objecter_infilght_op_bytes")
    assert "objecter_inflight_op_bytes" in f.message + f.suggestion
    g = next(f for f in _run("000-sample-ceph.conf", "tentacle") if f.key == "mon_pg_warn_max_per_osd")
    assert "mon_max_pg_per_osd" in g.suggestion

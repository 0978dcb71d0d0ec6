"""The session's throwaway Ceph 16.2.15 cluster for real-software tests (the cluster code is flashtune.lab,
which `flashtune prove --lab` also boots).

Use the session fixture `ceph_lab` (one cluster for the whole run; ~25 s to boot on 2 cores):

    def test_x(ceph_lab: CephLab) -> None:
        ceph_lab.ceph("osd", "pool", "create", "p", "8")           # parsed JSON of `ceph ... -f json`
        ceph_lab.rados_bench("p", seconds=3)                          # {"bandwidth_mb_s", "iops", ...}
        ceph_lab.restart_with(compiled_conf_text)                     # tuned conf -> restart daemons
        ceph_lab.config_diff("osd.0")                                 # {"key": {"file": ..., ...}}

Ports: mon 3300 (msgr2) / 6789 (v1), rgw 8080, all on 127.0.0.1. Two sessions on one machine need
different ports: FLASHTUNE_CEPHLAB_PORTS="3310,3311,8090" (keep them out of 6800-7300, the OSDs' range) (v2,v1,rgw). A busy port fails the boot loudly.

`restart_with` merges a compiled ceph.conf into the lab's own conf: the lab keeps the keys it needs to
run on one host (paths, fsid, mon address, keyrings) and reports which compiled keys it overrode.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from flashtune.lab import LAB_FS, CephLab, Conf, ceph_cluster, parse_conf, render_conf

__all__ = ["LAB_FS", "CephLab", "Conf", "ceph_cluster", "ceph_lab", "parse_conf", "render_conf"]


@pytest.fixture(scope="session")
def ceph_lab() -> Iterator[CephLab]:
    """One real Ceph 16.2.15 cluster (3 OSDs, rgw, MDS + CephFS) shared by the whole test session."""
    with ceph_cluster() as lab:
        yield lab

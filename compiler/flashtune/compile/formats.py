"""The one table of output formats: what compile-config writes, where, for which machine and release, by which
emitter, and when.

Adding a format is one row here plus one emitter module. The table sits in compile/ because it binds the
emitters (below it) to the pipeline's adapters (beside it); emitters never import it. The pipeline renders the rows in order, stage by stage
(`config` and `plan` files are re-parsed and linted before the `report` files describe them); validate reads a
file's catalog domain, release and host from its row. Profiles name a format by its `kind` (the file key under
`settings:`), and every Setting carries it in `Setting.file`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flashtune.compile import deploy
from flashtune.emit import (
    cbt,
    cephconf,
    dbhost,
    explain,
    manifest,
    mycnf,
    pools,
    sysbench,
    sysctl,
    systemd,
    tuned,
    udev,
)
from flashtune.envelope.bundle import cbt_comment
from flashtune.model import Bundle, Setting

# An emitter call: the bundle, the settings of this format, the inputs to echo -> one text (written to the row's
# path) or {path: text} for a format that writes several files.
Render = Callable[[Bundle, Sequence[Setting], Mapping[str, Any]], str | dict[str, str]]
Applies = Callable[[Bundle, Sequence[Setting]], bool]


@dataclass(frozen=True)
class OutputFormat:
    """One row of the output-format table."""

    kind: str  # Setting.file of its values, and the profile's file key
    path: str  # where it goes in the output folder (several files: the folder or a pattern)
    domain: str | None  # catalog domain of its keys (None: no catalog keys)
    follows: str | None  # "ceph" | "mysql": whose release its keys are checked against; None: kernel/OS
    host: str  # the machine it is installed on: osd-node | db-host | client (its lint checks use that RAM)
    lint_kind: str | None  # flashtune.parse/lint kind that re-reads it after emitting (None: not linted)
    stage: str  # config | plan | report (report files describe the others, so they are rendered last)
    render: Render
    applies: Applies
    summary: str


def _always(_b: Bundle, _s: Sequence[Setting]) -> bool:
    return True


def _has_settings(_b: Bundle, s: Sequence[Setting]) -> bool:
    return bool(s)


def _numa(b: Bundle, s: Sequence[Setting]) -> bool:
    return bool(s) and b.hardware.sockets > 1


def _max_connections(b: Bundle) -> int:
    """The compiled my.cnf's max_connections (0 without a my.cnf)."""
    return next((int(x.value) for x in b.settings if x.file == "my.cnf" and x.key == "max_connections"), 0)


def _numa_files(b: Bundle, s: Sequence[Setting], inputs: Mapping[str, Any]) -> dict[str, str]:
    sockets = b.hardware.sockets
    per = max(1, b.shape["osds_per_node"] // sockets)
    about = f"about {per} of the node's {b.shape['osds_per_node']} OSDs"
    return {f"systemd/numa-node{n}.conf": systemd.emit(s, inputs, n, about) for n in range(sockets)}


CBT_NOTE = (
    "Host names are placeholders: replace client01.., osd01.., mon01 with yours.\n"
    "Every intended case runs: sweeps are librbdfio workloads (or one file per case), because "
    "current CBT runs only the first permutation of a benchmark."
)
LEGACY_CBT_NOTE = "CBT plan of the 2017 study, corrected (see explain.md)."


def _ceph_settings(b: Bundle) -> list[Setting]:
    return [s for s in b.settings if s.file == "ceph.conf"]


def _modern(b: Bundle, _s: Sequence[Setting]) -> bool:
    """Central config and orchestrators: not for the Jewel reproduction (neither existed then)."""
    return not b.legacy


def _explain(b: Bundle, inputs: Mapping[str, Any]) -> str:
    return explain.emit(b, inputs) + deploy.explain(b)


def _cbt_files(b: Bundle, _s: Sequence[Setting], inputs: Mapping[str, Any]) -> dict[str, str]:
    note = LEGACY_CBT_NOTE if b.legacy else CBT_NOTE
    return {
        name: cbt.emit(doc, inputs, "\n".join(x for x in (note, cbt_comment(b.envelope, name)) if x))
        for name, doc in b.plans.items()
    }


FORMATS: tuple[OutputFormat, ...] = (
    OutputFormat(
        "ceph.conf",
        "ceph.conf",
        "ceph",
        "ceph",
        "osd-node",
        "ceph.conf",
        "config",
        lambda b, s, i: cephconf.emit(s, i),
        _always,
        "Ceph daemon and client options",
    ),
    OutputFormat(
        "sysctl.conf",
        "sysctl.conf",
        "sysctl",
        None,
        "osd-node",
        "sysctl.conf",
        "config",
        lambda b, s, i: sysctl.emit(s, i),
        _has_settings,
        "kernel settings (a sysctl.d drop-in)",
    ),
    OutputFormat(
        "my.cnf",
        "my.cnf",
        "mysql",
        "mysql",
        "db-host",
        "my.cnf",
        "config",
        lambda b, s, i: mycnf.emit(s, i),
        lambda b, s: b.request.workload == "mysql",
        "MySQL/MariaDB server options for the database host",
    ),
    OutputFormat(
        "tuned.conf",
        "tuned/flashtune/tuned.conf",
        "cpu",
        None,
        "osd-node",
        None,
        "config",
        lambda b, s, i: tuned.emit(s, i),
        _has_settings,
        "tuned profile (CPU governor, included profile)",
    ),
    OutputFormat(
        "udev.rules",
        "udev/60-flashtune-blockdev.rules",
        "blockdev",
        None,
        "osd-node",
        None,
        "config",
        lambda b, s, i: udev.emit(s, i),
        _has_settings,
        "block-queue attributes per device type",
    ),
    OutputFormat(
        "systemd-numa.conf",
        "systemd/",
        "cpu",
        None,
        "osd-node",
        None,
        "config",
        _numa_files,
        _numa,
        "NUMA pinning drop-ins for ceph-osd@ (one per socket)",
    ),
    OutputFormat(
        "pools.sh",
        "pools.sh",
        None,
        "ceph",
        "client",
        None,
        "config",
        lambda b, s, i: pools.emit(b, i),
        lambda b, s: not b.legacy,
        "commands that create the erasure-code profile and the pools on a running cluster",
    ),
    OutputFormat(
        "cbt.yaml",
        "cbt.yaml",
        None,
        "ceph",
        "client",
        "cbt.yaml",
        "plan",
        _cbt_files,
        lambda b, s: bool(b.plans),
        "CBT benchmark plan(s)",
    ),
    OutputFormat(
        "sysbench-oltp",
        sysbench.PATH,
        None,
        None,
        "db-host",
        None,
        "plan",
        lambda b, s, i: sysbench.emit(b.oltp, i) if b.oltp else "",
        lambda b, s: b.oltp is not None,
        "the mysql workload's application-level run: sysbench OLTP on an RBD image (krbd, rbd-nbd or rbd-fuse)",
    ),
    OutputFormat(
        "central-config",
        "ceph-config.sh",
        None,
        "ceph",
        "client",
        None,
        "config",
        lambda b, s, i: deploy.central_files(b, _ceph_settings(b), i),
        _modern,
        "the ceph.conf values as `ceph config set` commands and assimilate-conf input, plus the minimal ceph.conf",
    ),
    OutputFormat(
        "cephadm-osd-spec",
        "cephadm/osd-spec.yaml",
        None,
        None,
        "client",
        None,
        "config",
        lambda b, s, i: deploy.cephadm_spec(b, _ceph_settings(b), i),
        _modern,
        "cephadm OSD service spec (data/db devices, OSDs per device, encryption, CRUSH class)",
    ),
    OutputFormat(
        "rook-cephcluster",
        "rook/cephcluster.yaml",
        None,
        "ceph",
        "client",
        None,
        "config",
        lambda b, s, i: deploy.rook_cluster(b, _ceph_settings(b), i),
        _modern,
        "Rook CephCluster snippet (cephConfig, OSD resources from the memory budget, storage)",
    ),
    OutputFormat(
        "rook-pools",
        "rook/pools.yaml",
        None,
        None,
        "client",
        None,
        "config",
        lambda b, s, i: deploy.rook_pools(b, _ceph_settings(b), i),
        lambda b, s: _modern(b, s) and bool(b.shape.get("pools")),
        "Rook CephBlockPool / CephFilesystem / CephObjectStore CRs for the workload's pools (shares, device classes)",
    ),
    OutputFormat(
        "db-host-limits",
        dbhost.PATH,
        None,
        None,
        "db-host",
        None,
        "config",
        lambda b, s, i: dbhost.emit(_max_connections(b), i),
        # only where MariaDB asks for more than Debian's unit already allows (else the file would change nothing)
        lambda b, s: (
            b.request.mysql_flavour == "mariadb-10.11"
            and not b.legacy
            and dbhost.wanted_files(_max_connections(b)) > dbhost.DEBIAN_UNIT_LIMIT
        ),
        "systemd drop-in for the database host: LimitNOFILE for what MariaDB asks at max_connections",
    ),
    OutputFormat(
        "db-host-sysctl.conf",
        "db-host/sysctl.d/90-flashtune-db.conf",
        "sysctl",
        None,
        "db-host",
        "sysctl.conf",
        "config",
        lambda b, s, i: sysctl.emit(s, i, host="db-host"),
        _has_settings,
        "kernel settings for the database host (a sysctl.d drop-in)",
    ),
    OutputFormat(
        "db-host-tuned.conf",
        "db-host/tuned/flashtune-db/tuned.conf",
        "cpu",
        None,
        "db-host",
        None,
        "config",
        lambda b, s, i: tuned.emit(s, i, name="flashtune-db"),
        _has_settings,
        "tuned profile for the database host (a child of a stock profile; transparent hugepages never)",
    ),
    OutputFormat(
        "explain.md",
        "explain.md",
        None,
        None,
        "client",
        None,
        "report",
        lambda b, s, i: _explain(b, i),
        _always,
        "why every value is what it is",
    ),
    OutputFormat(
        "manifest.json",
        "manifest.json",
        None,
        None,
        "client",
        None,
        "report",
        lambda b, s, i: manifest.emit(b, i),
        _always,
        "every value with its provenance, as JSON",
    ),
)
BY_KIND: dict[str, OutputFormat] = {f.kind: f for f in FORMATS}


def domain_of(kind: str) -> str | None:
    """The catalog domain of a format's keys (None for formats without catalog keys or unknown kinds)."""
    f = BY_KIND.get(kind)
    return f.domain if f else None


def release_of(kind: str, ceph_release: str, mysql_flavour: str) -> str | None:
    """The release a format's keys are checked against: the Ceph release, the MySQL flavour, or None."""
    f = BY_KIND.get(kind)
    follows = f.follows if f else None
    return {"ceph": ceph_release, "mysql": mysql_flavour}.get(follows or "")


def render(bundle: Bundle, stage: str, inputs: Mapping[str, Any]) -> None:
    """Render every format of a stage that applies into bundle.files (and record each path's kind)."""
    by_kind: dict[str, list[Setting]] = {}
    for s in bundle.settings:
        by_kind.setdefault(s.file, []).append(s)
    for fmt in FORMATS:
        if fmt.stage != stage:
            continue
        settings = by_kind.get(fmt.kind, [])
        if not fmt.applies(bundle, settings):
            continue
        out = fmt.render(bundle, settings, inputs)
        for path, text in ({fmt.path: out} if isinstance(out, str) else out).items():
            bundle.files[path] = text
            bundle.kinds[path] = fmt.kind

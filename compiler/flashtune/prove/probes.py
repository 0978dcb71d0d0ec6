"""The built-in short probes: one or a few per workload, for clusters without CBT.

Each probe is a real benchmark program run against the cluster (`rados bench`, fio with its rbd engine, fio on
files of the CephFS mounted with ceph-fuse), its whole stdout kept under raw/ and read back with flashtune's
ingest parsers: the figure compared is the one the tool printed, not a number prove computed. The rgw
workload's probes are S3 requests through every gateway at once (flashtune.prove.s3load, with boto3); their
sample is the probe's own JSON document, read back by flashtune.ingest.s3probe. Both arms read and write the
same data: the objects, the RBD image, the CephFS file and the S3 objects the GET probes read are written once,
before the first sample; a rados write probe's and an S3 PUT probe's own objects are removed after each sample.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flashtune.errors import FlashtuneError
from flashtune.fileio import write_atomic
from flashtune.prove.cluster import Cluster
from flashtune.prove.rgw import Target

DATA_RUN = "flashtune-prove-data"  # rados bench --run-name of the objects the read probes read


@dataclass(frozen=True)
class Probe:
    name: str
    tool: str  # rados-bench | fio-rbd | fio-cephfs | s3
    mode: str  # rados bench write|rand|seq; fio rw=; s3 put|get
    block_size: int
    depth: int  # rados bench -t / fio iodepth
    note: str
    engine: str = ""  # fio-cephfs: fio's ioengine on the mounted file system (psync, libaio)

    @property
    def read_fraction(self) -> float:
        return 0.0 if self.op == "write" else 1.0

    @property
    def op(self) -> str:
        return "write" if "write" in self.mode or self.mode == "put" else "read"

    @property
    def needs_s3(self) -> bool:
        """S3 requests through the gateways (flashtune.prove.s3load; needs boto3)."""
        return self.tool == "s3"

    @property
    def needs_s3_objects(self) -> bool:
        return self.tool == "s3" and self.mode == "get"

    @property
    def needs_image(self) -> bool:
        return self.tool == "fio-rbd"

    @property
    def needs_file(self) -> bool:
        """A fio probe on a file of the CephFS, mounted with ceph-fuse (flashtune.prove.cephfs)."""
        return self.tool == "fio-cephfs"

    @property
    def needs_objects(self) -> bool:
        return self.tool == "rados-bench" and self.mode in ("rand", "seq")


KIB = 1024
PROBES: dict[str, Probe] = {
    p.name: p
    for p in (
        Probe(
            "rados-write-4k",
            "rados-bench",
            "write",
            4 * KIB,
            16,
            "rados bench write, 4 KiB objects, 16 in flight",
        ),
        Probe(
            "rados-read-4k",
            "rados-bench",
            "rand",
            4 * KIB,
            16,
            "rados bench rand over the prefilled 4 KiB objects",
        ),
        Probe("rados-write-4m", "rados-bench", "write", 4096 * KIB, 16, "rados bench write, 4 MiB objects"),
        Probe(
            "rados-read-4m",
            "rados-bench",
            "seq",
            4096 * KIB,
            16,
            "rados bench seq over the prefilled 4 MiB objects",
        ),
        Probe(
            "rbd-randwrite-4k",
            "fio-rbd",
            "randwrite",
            4 * KIB,
            32,
            "fio rbd engine, 4 KiB random writes, QD 32",
        ),
        Probe(
            "rbd-randread-4k", "fio-rbd", "randread", 4 * KIB, 32, "fio rbd engine, 4 KiB random reads, QD 32"
        ),
        Probe(
            "rbd-randwrite-16k-qd1",
            "fio-rbd",
            "randwrite",
            16 * KIB,
            1,
            "fio rbd engine, 16 KiB random writes, QD 1 (InnoDB-page-like)",
        ),
        Probe(
            "rbd-randread-16k-qd1",
            "fio-rbd",
            "randread",
            16 * KIB,
            1,
            "fio rbd engine, 16 KiB random reads, QD 1",
        ),
        Probe(
            "cephfs-write-1m",
            "fio-cephfs",
            "write",
            1024 * KIB,
            1,
            "fio on a ceph-fuse mount, 1 MiB sequential writes to one file (psync, O_DIRECT)",
            "psync",
        ),
        Probe(
            "cephfs-read-1m",
            "fio-cephfs",
            "read",
            1024 * KIB,
            1,
            "fio on a ceph-fuse mount, 1 MiB sequential reads of the prefilled file (psync, O_DIRECT)",
            "psync",
        ),
        Probe(
            "cephfs-randwrite-4k",
            "fio-cephfs",
            "randwrite",
            4 * KIB,
            16,
            "fio on a ceph-fuse mount, 4 KiB random writes, QD 16 (libaio, O_DIRECT)",
            "libaio",
        ),
        Probe(
            "s3-put-64k", "s3", "put", 64 * KIB, 1, "S3 PUT of 64 KiB objects through every gateway at once"
        ),
        Probe(
            "s3-get-64k",
            "s3",
            "get",
            64 * KIB,
            1,
            "S3 GET of the prefilled 64 KiB objects through every gateway",
        ),
        Probe(
            "s3-put-4m", "s3", "put", 4096 * KIB, 1, "S3 PUT of 4 MiB objects through every gateway at once"
        ),
        Probe(
            "s3-get-4m",
            "s3",
            "get",
            4096 * KIB,
            1,
            "S3 GET of the prefilled 4 MiB objects through every gateway",
        ),
    )
}

# Per compiled workload: the probes that stand in for its CBT cases (rgw: the small- and large-object sizes
# its hsbench plans measure, obj64K and obj4M).
WORKLOAD_PROBES: dict[str, tuple[str, ...]] = {
    "block": ("rbd-randwrite-4k", "rbd-randread-4k", "rados-write-4k"),
    "mysql": ("rbd-randwrite-16k-qd1", "rbd-randread-16k-qd1"),
    "rgw": ("s3-put-64k", "s3-get-64k", "s3-put-4m", "s3-get-4m"),
    "scratch": ("cephfs-write-1m", "cephfs-read-1m", "cephfs-randwrite-4k"),
}

FILE_NAME = (
    "data"  # the one file the CephFS probes read and write, in the run's own folder of the file system
)


def probes_for(workload: str, names: Sequence[str] | None = None) -> list[Probe]:
    chosen = names or WORKLOAD_PROBES.get(workload, ("rados-write-4k", "rados-read-4k"))
    return [PROBES[n] for n in chosen]


def prefill_objects(cluster: Cluster, pool: str, probe: Probe, seconds: int) -> None:
    """The objects every read sample of this block size reads (one run name per size)."""
    cluster.tool(
        "rados",
        [
            "-p",
            pool,
            "bench",
            str(seconds),
            "write",
            "-b",
            str(probe.block_size),
            "-t",
            "16",
            "--run-name",
            f"{DATA_RUN}-{probe.block_size}",
            "--no-cleanup",
        ],
        timeout=seconds + 120,
    )


def s3_prefix(probe: Probe) -> str:
    """The key prefix of the objects the GET probes of this size read (written once, by prefill_s3)."""
    return f"data-{probe.block_size}"


def prefill_s3(target: Target, probe: Probe, seconds: int) -> None:
    """PUT the objects every GET sample of this size reads, through every gateway, for `seconds`."""
    from flashtune.prove import s3load  # boto3, an optional extra (checked before the run began)

    s3load.prefill(target, probe.block_size, seconds, s3_prefix(probe))


def prefill_image(cluster: Cluster, pool: str, image: str, size_mib: int) -> None:
    """Create the RBD image and write it once end to end: reads of never-written extents of a thin image
    return zeros without touching an OSD (ceph-real.md 1.5)."""
    cluster.tool("rbd", ["create", f"{pool}/{image}", "--size", f"{size_mib}M"], timeout=120)
    cluster.tool(
        "fio",
        [
            "--name=prefill",
            "--ioengine=rbd",
            f"--clientname={cluster.client_id}",
            f"--pool={pool}",
            f"--rbdname={image}",
            "--rw=write",
            "--bs=1M",
            "--iodepth=16",
            "--direct=1",
            f"--size={size_mib}M",
        ],
        timeout=600,
    )


def prefill_file(cluster: Cluster, directory: Path, size_mib: int) -> None:
    """Write the CephFS probes' file once end to end, so that reads read data the OSDs hold."""
    cluster.tool(
        "fio",
        [
            "--name=prefill",
            f"--directory={directory}",
            f"--filename={FILE_NAME}",
            "--ioengine=psync",
            "--rw=write",
            "--bs=1M",
            "--direct=1",
            "--end_fsync=1",
            f"--size={size_mib}M",
        ],
        timeout=600,
    )


def _fio_file_args(probe: Probe, directory: Path, size_mib: int) -> list[str]:
    return [
        f"--directory={directory}",
        f"--filename={FILE_NAME}",
        f"--ioengine={probe.engine}",
        f"--size={size_mib}M",
    ]


def run(
    cluster: Cluster,
    probe: Probe,
    pool: str,
    image: str,
    seconds: int,
    out: Path | None,
    tag: str,
    *,
    directory: Path | None = None,
    file_mib: int = 0,
    s3: Target | None = None,
) -> str:
    """One sample (or, with out=None, a warm-up whose output is dropped); returns the tool's stdout.
    The CephFS probes need `directory` (the run's folder on the mounted file system) and the file's size;
    the S3 probes the run's gateways, user and buckets (`s3`)."""
    if probe.tool == "s3":
        if s3 is None:
            raise FlashtuneError(f"{probe.name} drives S3 gateways: give the run's S3 target")
        from flashtune.prove import s3load  # boto3, an optional extra (checked before the run began)

        doc = s3load.run_sample(s3, probe.name, probe.mode, probe.block_size, seconds, f"put-{tag}")
        s3load.check_sample(doc)
        text = json.dumps(doc, indent=1) + "\n"
    elif probe.tool == "rados-bench":
        run_name = f"{DATA_RUN}-{probe.block_size}" if probe.needs_objects else f"flashtune-prove-{tag}"
        args = [
            "-p",
            pool,
            "bench",
            str(seconds),
            probe.mode,
            "-t",
            str(probe.depth),
            "--run-name",
            run_name,
            "--format",
            "json",
        ]
        if probe.mode == "write":
            args += ["-b", str(probe.block_size), "--no-cleanup"]
        text = cluster.tool("rados", args, timeout=seconds + 120).stdout
        if probe.mode == "write":  # the next sample writes to the same, empty, pool
            cluster.tool("rados", ["-p", pool, "cleanup", "--run-name", run_name], timeout=300)
    else:
        if probe.needs_file:
            if directory is None:
                raise ValueError(f"{probe.name} runs on a mounted file system: give its directory")
            target = _fio_file_args(probe, directory, file_mib)
        else:
            target = [
                "--ioengine=rbd",
                f"--clientname={cluster.client_id}",
                f"--pool={pool}",
                f"--rbdname={image}",
            ]
        args = [
            f"--name={probe.name}",
            *target,
            f"--rw={probe.mode}",
            f"--bs={probe.block_size}",
            f"--iodepth={probe.depth}",
            "--direct=1",
            "--time_based=1",
            f"--runtime={seconds}",
            "--output-format=json",
        ]
        text = cluster.tool("fio", args, timeout=seconds + 120).stdout
    if out is not None:
        write_atomic(out, text, force=True)
    return text


def file_name(probe: Probe, arm: str, index: int) -> str:
    """raw/<case>/<arm><n>-<mode>.json: the mode in the name is how the rados bench reader knows a read run."""
    return f"{probe.name}/{arm}{index}-{probe.mode}.json"

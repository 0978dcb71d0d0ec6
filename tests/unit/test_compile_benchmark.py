"""Every compiled CBT plan measures what it claims, read against what CBT's source does with it
(data/cbt/schema.yaml, from ceph/cbt at its source_commit): only keys CBT reads, time-based fio runs with a ramp,
iterations that all run, prefilled reads, data sets twice every cache, every gateway driven, a true single-queue
latency probe. Over every tier x workload x release and over random hardware files (hypothesis)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashtune.compile import CompileRequest, compile_bundle
from flashtune.compile.benchmark import GiB, _object_bytes, gateways, rbd_in_flight
from flashtune.compile.pipeline import WORKLOADS
from flashtune.hardware import tier_names
from flashtune.lint import ruledata
from flashtune.parse import parse_text

SCHEMA = ruledata.cbt_schema()
RELEASES = ("pacific", "quincy", "reef", "squid", "tentacle")


def _keys_cbt_reads(doc: dict[str, Any]) -> list[str]:
    """Every key of the plan that CBT does not read where it stands (the schema's sections per level)."""
    bad: list[str] = []
    top = SCHEMA["top_level"]
    bad += [f"top.{k}" for k in doc if k not in top]
    cluster = doc.get("cluster", {})
    bad += [f"cluster.{k}" for k in cluster if k not in SCHEMA["cluster"]]
    for name, prof in cluster.get("pool_profiles", {}).items():
        bad += [f"pool_profiles.{name}.{k}" for k in prof if k not in SCHEMA["pool_profile"]]
    for name, prof in cluster.get("erasure_profiles", {}).items():
        bad += [f"erasure_profiles.{name}.{k}" for k in prof if k not in SCHEMA["erasure_profile"]]
    for name, ep in (doc.get("client_endpoints") or {}).items():
        bad += [f"client_endpoints.{name}.{k}" for k in ep if k not in SCHEMA["client_endpoint"]]
    for module, bench in doc["benchmarks"].items():
        known = {**(SCHEMA["benchmarks"][module] or {}), **SCHEMA["benchmark_common"]}
        bad += [f"{module}.{k}" for k in bench if k not in known]
        for wname, w in (bench.get("workloads") or {}).items():
            bad += [f"{module}.workloads.{wname}.{k}" for k in w if k not in SCHEMA["librbdfio_workload"]]
    return bad


def check_plans(b: Any) -> None:
    shape = b.shape
    osd_cache = shape["osds"] * shape["osd_memory_target"]
    client_ram = shape["client_ram_gib"] * GiB
    assert b.plans
    # no plan twice (a clients axis of 1, half and all collapses on a cluster with one or two clients)
    texts = [json.dumps(doc, sort_keys=True) for doc in b.plans.values()]
    assert len(set(texts)) == len(texts), sorted(b.plans)
    for file, doc in b.plans.items():
        where = f"{b.request.workload} {file}"
        assert _keys_cbt_reads(doc) == [], where
        cluster = doc["cluster"]
        # every iteration (and fio/hsbench at all) runs only with is_teuthology (cbt.py main)
        assert cluster["iterations"] >= 3 and cluster["is_teuthology"] is True, where
        clients = len(cluster["clients"])
        ((module, bench),) = doc["benchmarks"].items()
        lists = [k for k, v in bench.items() if isinstance(v, list)]
        assert module == "librbdfio" or not lists, f"{where}: one file per case"
        if module in SCHEMA["run_loop"]["fio_modules"]:
            assert bench["time_based"] is True and bench["time"] >= 60 and bench["ramp"] >= 10, where
        if module == "librbdfio":
            assert not bench.get("use_existing_volumes") and "prefill" in bench, (
                f"{where}: reads need a prefill"
            )
            data = clients * bench["volumes_per_client"] * bench["vol_size"] * (1 << 20)
            per_client = bench["volumes_per_client"] * bench["vol_size"] * (1 << 20)
            assert data >= 2 * osd_cache and per_client >= 2 * client_ram, where
            # run_workloads archives only its last workload (CBT 9d6480fcea9e): plans sweep lists instead
            assert "workloads" not in bench, where
            if isinstance(bench["mode"], list) or bench["mode"] in ("randrw", "rw", "readwrite"):
                assert isinstance(bench.get("rwmixread", 50), int), where
            if file == "cbt/latency-qd1.yaml":
                assert clients == 1 and bench["volumes_per_client"] == 1, where
                assert bench["numjobs"] == 1 and bench["iodepth"] == 1 and "total_iodepth" not in bench, where
        elif module == "fio":
            ep = doc["client_endpoints"][bench["client_endpoints"]]
            jobs = bench["numjobs"] * bench.get("procs_per_endpoint", 1)
            per_client = ep.get("endpoints_per_client", 1) * jobs * bench["size"] * (1 << 20)
            assert per_client >= 2 * client_ram and clients * per_client >= 2 * osd_cache, where
            assert jobs * bench["size"] <= ep["endpoint_size"], (
                f"{where}: CBT refuses a job set over the endpoint"
            )
            assert bench["prefill"] is (bench["mode"] in ("read", "randread")), where
        elif module == "hsbench":
            ep = doc["client_endpoints"][bench["client_endpoints"]]
            # dedicated gateway hosts, else the memory budget's radosgw daemons on every OSD node
            gateways = shape["gateway_hosts"] or shape["nodes"] * max(1, shape["rgw_per_node"])
            assert len(ep["urls"]) == gateways and ep["endpoints_per_client"] == gateways, where
            data = clients * gateways * bench["objects"] * _object_bytes(bench["size"])
            assert data >= 2 * osd_cache and bench["prefill"] is True, where
        else:
            pytest.fail(f"{where}: no check for module {module}")
    for file in b.plans:
        assert "is_teuthology: true" in b.files[file], file
    explain = b.files["explain.md"]
    for case in b.cases:
        assert f"- `{case}`: " in explain and "Proves" in b.case_notes[case], case


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("workload", WORKLOADS)
@pytest.mark.parametrize("tier", tier_names())
def test_every_shipped_plan_measures_what_it_claims(tier: str, workload: str, release: str) -> None:
    check_plans(compile_bundle(CompileRequest(workload=workload, tier=tier, ceph_release=release)))


def test_compiled_plans_lint_clean_of_the_cbt_plan_codes(tmp_path: Path) -> None:
    from flashtune.lint import lint_file

    for workload in WORKLOADS:
        b = compile_bundle(CompileRequest(workload=workload, tier="standard", ceph_release="tentacle"))
        for file, text in b.files.items():
            if not (file == "cbt.yaml" or file.startswith("cbt/")):
                continue
            f = tmp_path / file.replace("/", "-")
            f.write_text(text)
            facts = {
                "osd_memory_target": int(b.shape["osd_memory_target"]),
                "ram_bytes": int(b.shape["client_ram_gib"] * GiB),
                "gateways": len(gateways(b.shape)),
            }
            found = lint_file(str(f), "cbt.yaml", ceph_release="tentacle", mysql_flavour=None, context=facts)
            codes = {x.code for x in found}
            assert not codes & {"FT701", "FT702", "FT706", "FT707", "FT708", "FT709", "FT711"}, (file, codes)


HARDWARE = """\
name: random
node:
  cpu: test
  sockets: {sockets}
  cores: {cores}
  cpu_ghz: 2.5
  ram_gib: {ram}
  nics:
    - {{count: 2, speed_gbps: {nic}}}
  data_devices:
    - {{count: {devices}, type: nvme, size_gb: 4000}}
  db_devices: []
cluster:
  nodes: {nodes}
  clients: {clients}
  client_ram_gib: {client_ram}
{gateways}"""
# the ways a hardware file says where the gateways run: on every OSD node (the layout's one per node), several per
# node, or on hosts of their own
GATEWAYS = ("", "  colocated: {gateways: 2}\n", "  gateways: {count: 3, nic_gbps: 25}\n")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    nodes=st.integers(3, 12),
    clients=st.integers(1, 12),
    devices=st.integers(1, 12),
    ram=st.sampled_from([96, 128, 192, 256, 384, 768]),
    client_ram=st.sampled_from([8, 16, 32, 64, 256]),
    cores=st.sampled_from([16, 24, 32, 64]),
    nic=st.sampled_from([10, 25, 100]),
    workload=st.sampled_from(WORKLOADS),
    gateway_lines=st.sampled_from(GATEWAYS),
)
def test_plans_for_random_hardware_files_measure_what_they_claim(
    tmp_path_factory: pytest.TempPathFactory,
    nodes: int,
    clients: int,
    devices: int,
    ram: int,
    client_ram: int,
    cores: int,
    nic: int,
    workload: str,
    gateway_lines: str,
) -> None:
    from flashtune.errors import FlashtuneError

    f = tmp_path_factory.mktemp("hw") / "hw.yaml"
    f.write_text(
        HARDWARE.format(
            sockets=2,
            cores=cores,
            ram=ram,
            nic=nic,
            devices=devices,
            nodes=nodes,
            clients=clients,
            client_ram=client_ram,
            gateways=gateway_lines,
        )
    )
    try:
        b = compile_bundle(CompileRequest(workload=workload, tier=None, hardware_file=str(f)))
    except FlashtuneError as e:  # hardware the compiler refuses (too little RAM per OSD...) says why
        assert e.message and e.suggestion
        return
    check_plans(b)


@pytest.mark.parametrize(
    ("lines", "layout", "urls"),
    [
        ("", "", [f"http://osd0{n}:7480" for n in range(1, 6)]),
        (
            "",
            "layout: {placement: {rgw: [rgw, rgw]}}\n",
            [f"http://osd0{n}:{p}" for n in range(1, 6) for p in (7480, 7481)],
        ),
        (GATEWAYS[1], "", [f"http://osd0{n}:{p}" for n in range(1, 6) for p in (7480, 7481)]),
        (GATEWAYS[2], "", ["http://rgw01:7480", "http://rgw02:7480", "http://rgw03:7480"]),
    ],
)
def test_the_rgw_plans_drive_every_gateway_the_hardware_has(
    lines: str, layout: str, urls: list[str], tmp_path: Path
) -> None:
    """One URL per gateway wherever the gateways run: a second daemon on a node (the layout's placement, or the
    hardware file's colocated.gateways) at the next port, dedicated gateway hosts instead of the OSD nodes; and
    lint-config --gateways agrees with the compiled plan, and flags it for a cluster with more gateways."""
    from support.linting import lint_cli

    f = tmp_path / "hw.yaml"
    text = HARDWARE.format(
        sockets=2, cores=22, ram=192, nic=25, devices=4, nodes=5, clients=6, client_ram=32, gateways=lines
    )
    f.write_text(text + layout)
    b = compile_bundle(CompileRequest(workload="rgw", tier=None, hardware_file=str(f)))
    check_plans(b)
    for file, doc in b.plans.items():
        ep = doc["client_endpoints"]["s3"]
        assert ep["urls"] == urls and ep["endpoints_per_client"] == len(urls), file
    assert f"client_endpoints.s3.urls` = {len(urls)}: one URL per gateway" in b.files["explain.md"]
    # the memory budget counts the gateways each OSD node runs, as many as the plan drives there
    budget = json.loads(b.files["manifest.json"])["memory_budget_gib"]
    per_node = sum(u.startswith("http://osd01:") for u in urls)
    counted = {k: v for k, v in budget.items() if k == "rgw" or k.endswith(" x rgw")}
    assert counted == (
        {} if per_node == 0 else {"rgw" if per_node == 1 else f"{per_node} x rgw": 4.0 * per_node}
    )
    plan = tmp_path / "plan.yaml"
    plan.write_text(b.files[next(iter(b.plans))])
    assert "FT711" not in lint_cli(plan, "--gateways", str(len(urls))).stdout
    more = lint_cli(plan, "--gateways", str(len(urls) + 2)).stdout
    assert "FT711" in more and f"drives {len(urls)} gateway(s) but the cluster runs {len(urls) + 2}" in more


def test_smoke_scale_changes_only_sizes_and_durations() -> None:
    table = SCHEMA["scales"]["smoke"]
    for workload in WORKLOADS:
        full = compile_bundle(CompileRequest(workload=workload, tier="iops"))
        smoke = compile_bundle(CompileRequest(workload=workload, tier="iops", bench_scale="smoke"))
        assert list(full.plans) == list(smoke.plans) and full.cases == smoke.cases
        for file, doc in full.plans.items():
            s = smoke.plans[file]
            assert s["cluster"] == doc["cluster"], file
            ((module, bench),) = doc["benchmarks"].items()
            scaled = dict(bench, **table[module])
            assert s["benchmarks"][module] == scaled, file
            for name, ep in (doc.get("client_endpoints") or {}).items():
                changed = {k for k in ep if ep[k] != s["client_endpoints"][name][k]}
                assert changed <= {"endpoint_size"}, file


def test_plan_text_reads_back_as_the_document() -> None:
    b = compile_bundle(CompileRequest(workload="mysql", tier="iops", bench_scale="smoke"))
    for file, doc in b.plans.items():
        assert parse_text(b.files[file], "cbt.yaml", file).data == doc
    assert math.isfinite(float(b.plans["cbt.yaml"]["cluster"]["iterations"]))


def test_lint_config_sizes_a_users_plan_against_the_hardware_it_is_told(tmp_path: Path) -> None:
    """FT709 takes the OSDs' osd_memory_target and the client's RAM from the command line: the compiled plan
    passes for its own hardware and fails for OSDs and clients with far more memory."""
    from support.linting import lint_cli

    b = compile_bundle(CompileRequest(workload="mysql", tier="iops"))
    plan = tmp_path / "cbt.yaml"
    plan.write_text(b.files["cbt.yaml"])
    own = [
        "--osd-memory-target",
        str(b.shape["osd_memory_target"] / GiB),
        "--ram",
        str(b.shape["client_ram_gib"]),
    ]
    assert "FT709" not in lint_cli(plan, *own).stdout
    big = lint_cli(plan, "--osd-memory-target", "64", "--ram", "512").stdout
    assert "FT709" in big and "20 OSDs x 64.0 GiB" in big and "512.0 GiB of RAM" in big


@pytest.mark.parametrize("client", sorted(SCHEMA["cephfs_clients"]))
def test_the_cephfs_client_chooses_cbts_endpoint_and_only_its_keys(client: str, tmp_path: Path) -> None:
    """--cephfs-client picks CBT's endpoint driver (cephfs-kernel / cephfs-fuse); a cluster key only the
    other client's mount reads (mount_cmd: cephfskernel_client_endpoints.py) is left out; explain.md says
    which client each case goes through, and what CBT's own file system needs between plans."""
    table = SCHEMA["cephfs_clients"]
    b = compile_bundle(CompileRequest(workload="scratch", tier="iops", cephfs_client=client))
    check_plans(b)
    others = {k for name, c in table.items() if name != client for k in c["cluster_keys"]}
    for file, doc in b.plans.items():
        (ep,) = doc["client_endpoints"].values()
        assert ep["driver"] == table[client]["driver"], file
        assert not others & set(doc["cluster"]), file
    if client == "kernel":
        assert all(d["cluster"]["mount_cmd"] == "/usr/sbin/mount.ceph" for d in b.plans.values())
    said = {"kernel": "through the kernel client", "fuse": "through ceph-fuse"}[client]
    assert all(said in b.case_notes[c] for c in b.cases)
    explain = b.files["explain.md"]
    assert f"`ceph fs rm {table[client]['fs_name']} --yes-i-really-mean-it`" in explain
    # the fuse client's two races (the new file system's MDS not yet active; a ceph-fuse outliving its unmount)
    # are spelled out for its plans only
    fuse = table["fuse"]
    assert (fuse["before_run"] in explain) is (client == "fuse")
    wait = fuse["after_unmount"].format(fs_name=fuse["fs_name"])
    assert (wait in explain) is (client == "fuse")
    # the wait names CBT's own ceph-fuse (its --client_mds_namespace), not every ceph-fuse on the client
    assert "`pgrep -f -- --client_mds_namespace=cbt-cephfs-fuse`" in wait
    assert ("fuse_require_active_mds" in explain) is (client == "fuse")
    assert ("cephfs_client" in b.request.echo()) is (client != "kernel")


def test_the_cephfs_client_is_refused_for_a_workload_without_cephfs(tmp_path: Path) -> None:
    cli = Path(sys.executable).parent / "compile-config"
    args = ["--workload", "block", "--cephfs-client", "fuse", "--out", str(tmp_path / "o")]
    r = subprocess.run([str(cli), *args], capture_output=True, text=True)
    assert r.returncode == 2 and "scratch" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()


def test_one_in_flight_count_of_a_librbdfio_run() -> None:
    """explain.md's '(N I/Os in flight)' and the envelope's latency at the ceiling count alike (explain.md's
    left out procs_per_volume): clients x volumes x fio processes per volume x numjobs x iodepth, or
    total_iodepth per client in place of volumes x iodepth; a list or a non-count gives no number."""
    run = {"iodepth": 8, "numjobs": 2, "procs_per_volume": 2, "volumes_per_client": 3}
    assert rbd_in_flight(run, 4) == 4 * 3 * 2 * 2 * 8
    assert rbd_in_flight({"total_iodepth": 32, "volumes_per_client": 4}, 2) == 2 * 32
    assert rbd_in_flight({}, 1) == 16  # CBT's default iodepth, one volume, one job
    assert rbd_in_flight({"iodepth": [1, 4]}, 1) is None
    assert rbd_in_flight({"iodepth": 0}, 1) is None and rbd_in_flight({"numjobs": True}, 1) is None
    assert rbd_in_flight({"iodepth": 4}, None) is None

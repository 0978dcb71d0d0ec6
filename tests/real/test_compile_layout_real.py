"""pools.sh against real Ceph 16.2.15: the compiled erasure-code profile and pool commands are accepted and
create what they say; Tentacle's allow_ec_optimizations flag is unknown to Pacific (so it is emitted for
Tentacle only)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from flashtune.compile import CompileRequest, compile_bundle
from flashtune.lab import ceph_cluster, free_ports
from support.cephlab import CephLab


def _one_nvme_nodes(name: str, nodes: int) -> str:
    """A hardware file: `nodes` small nodes with one NVMe data device (one OSD) each."""
    return f"""name: {name}
node:
  cores: 8
  ram_gib: 64
  nics: [{{count: 1, speed_gbps: 25}}]
  data_devices:
    - {{count: 1, type: nvme, size_gb: 1000}}
cluster: {{nodes: {nodes}, clients: 1}}
"""


HARDWARE = _one_nvme_nodes("small", 7)
LAB_SIZED = _one_nvme_nodes("lab", 3)  # as many OSDs as the test lab runs


SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's python3-cephfs (libcephfs) lives there, not in the venv

WRITE_CEPHFS = """
import os, sys, cephfs
fs = cephfs.LibCephFS(conffile=os.environ["CEPH_CONF"])
fs.mount(filesystem_name=sys.argv[1].encode())
path = sys.argv[2].encode() + b"/probe"
fd = fs.open(path, "w", 0o644)
fs.write(fd, b"x" * 1048576, 0)
fs.fsync(fd, 0)
fs.close(fd)
print(fs.getxattr(path, "ceph.file.layout.pool").decode())
fs.unmount()
"""


def _s3(port: int, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
    """One S3 request signed with AWS signature version 2 (RGW accepts it), with the stdlib only."""
    import base64
    import hashlib
    import hmac
    import urllib.error
    import urllib.request
    from email.utils import formatdate

    date = formatdate(usegmt=True)
    ctype = "application/octet-stream" if method == "PUT" else ""
    mac = hmac.new(b"FTSECRET", f"{method}\n\n{ctype}\n{date}\n{path}".encode(), hashlib.sha1)
    headers = {"Date": date, "Authorization": f"AWS FTACCESS:{base64.b64encode(mac.digest()).decode()}"}
    if ctype:
        headers["Content-Type"] = ctype
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=body if method == "PUT" else None,
        method=method,
        headers=headers,
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return int(r.status), r.read()
    except urllib.error.HTTPError as e:
        return int(e.code), e.read()


@pytest.mark.ceph
@pytest.mark.slow
# first in this file, rgw first of all: the tests below create and delete pools of the same names, and
# on the 3-OSD lab a gateway writing into a pool made again while the OSDs still remove its predecessor's
# PGs timed out (seen twice, and in a run of this file alone)
@pytest.mark.parametrize("workload", ["rgw", "scratch", "block"])
def test_real_pools_sh_makes_a_working_store_whose_data_lands_in_the_ec_pool(
    ceph_lab: CephLab, tmp_path: Path, workload: str
) -> None:
    """Run twice, pools.sh makes the file system / RBD pool pair / RGW pools, and a file, an image and an object
    written through the result land in the EC pool (which is why the autoscaler gives it the PGs)."""
    hw = tmp_path / "hw.yaml"
    hw.write_text(LAB_SIZED)
    bundle = compile_bundle(
        CompileRequest(workload=workload, hardware_file=hw, ceph_release="pacific", ec=(2, 1))
    )
    text = bundle.files["pools.sh"]
    # the lab is one host with three OSDs: the compiled host failure domain becomes the OSD, nothing else
    assert "crush-failure-domain=host" in text
    script = tmp_path / "pools.sh"
    script.write_text(text.replace("crush-failure-domain=host", "crush-failure-domain=osd"))
    ec = bundle.shape["ec"].value
    pools = bundle.shape["pools"]
    ec_pool = next(p["name"] for p in pools if p["type"] == "erasure")
    before = {p["pool_name"] for p in ceph_lab.ceph("osd", "pool", "ls", "detail")}
    assert not before & {p["name"] for p in pools}, before  # the lab's own pools have other names
    ceph_lab.ceph("config", "set", "mon", "mon_max_pg_per_osd", "2000")
    if workload == "scratch":
        ceph_lab.start_mds("b")  # the lab's MDS serves its own file system; the new one takes this standby
    try:
        for attempt in (1, 2):  # the second run finds everything made and changes nothing
            r = ceph_lab.run("sh", str(script), check=False, timeout=600)
            assert r.returncode == 0, (attempt, r.stdout, r.stderr)
        detail = {p["pool_name"]: p for p in ceph_lab.ceph("osd", "pool", "ls", "detail")}
        assert detail[ec_pool]["erasure_code_profile"] == ec.profile_name
        # no lab-wide wait_clean: other tests' pools may still be merging PGs; the writes below wait for ours
        if workload == "scratch":
            fs = ceph_lab.ceph("fs", "get", "scratch")["mdsmap"]
            ids = {detail[n]["pool_id"]: n for n in detail}
            assert ids[fs["metadata_pool"]] == "cephfs_metadata"
            assert [ids[i] for i in fs["data_pools"]] == ["cephfs_data", ec_pool]  # default pool replicated
            path = ceph_lab.run("ceph", "fs", "subvolume", "getpath", "scratch", "scratch").stdout.strip()
            assert f"(files land in {ec_pool}): {path}" in r.stdout
            w = ceph_lab.run(SYSTEM_PYTHON, "-c", WRITE_CEPHFS, "scratch", path, timeout=120)
            assert w.stdout.strip() == ec_pool  # the file's layout names the EC pool
        elif workload == "block":
            ceph_lab.run(
                "rbd", "create", "--size", "64M", "rbd/ft-probe"
            )  # no --data-pool: the pool's default
            assert f"data_pool: {ec_pool}" in ceph_lab.run("rbd", "info", "rbd/ft-probe").stdout
            ceph_lab.run(
                "rbd",
                "bench",
                "--io-type",
                "write",
                "--io-size",
                "4M",
                "--io-total",
                "16M",
                "rbd/ft-probe",
                timeout=120,
            )
        else:
            ceph_lab.run(
                "radosgw-admin",
                "user",
                "create",
                "--uid",
                "ft-probe",
                "--display-name",
                "ft-probe",
                "--access-key",
                "FTACCESS",
                "--secret",
                "FTSECRET",
            )
            assert _s3(ceph_lab.rgw_port, "PUT", "/ft-probe")[0] == 200
            assert _s3(ceph_lab.rgw_port, "PUT", "/ft-probe/object", b"hello" * 1000)[0] == 200
            assert _s3(ceph_lab.rgw_port, "GET", "/ft-probe/object") == (200, b"hello" * 1000)
        # the data is in the EC pool, not in the replicated pool beside it
        objects = ceph_lab.run("rados", "-p", ec_pool, "ls").stdout.split()
        assert objects, f"nothing was written to {ec_pool}"
        if workload == "block":
            assert any(o.startswith("rbd_data.") for o in objects), objects
            replicated = ceph_lab.run("rados", "-p", "rbd", "ls").stdout.split()
            assert not [o for o in replicated if o.startswith("rbd_data.")], replicated
    finally:
        if workload == "scratch":
            ceph_lab.run("ceph", "fs", "subvolume", "rm", "scratch", "scratch", check=False, timeout=120)
            ceph_lab.run("ceph", "fs", "fail", "scratch", check=False)
            ceph_lab.run("ceph", "fs", "rm", "scratch", "--yes-i-really-mean-it", check=False)
        if workload == "block":
            ceph_lab.run("rbd", "rm", "rbd/ft-probe", check=False, timeout=120)
        if workload == "rgw":
            ceph_lab.run(
                "radosgw-admin", "bucket", "rm", "--bucket", "ft-probe", "--purge-objects", check=False
            )
            ceph_lab.run("radosgw-admin", "user", "rm", "--uid", "ft-probe", check=False)
        for p in pools:
            if p["name"] not in before:
                ceph_lab.run(
                    "ceph",
                    "osd",
                    "pool",
                    "delete",
                    p["name"],
                    p["name"],
                    "--yes-i-really-really-mean-it",
                    check=False,
                )
        ceph_lab.run("ceph", "osd", "erasure-code-profile", "rm", ec.profile_name, check=False)
        ceph_lab.run("ceph", "config", "rm", "mon", "mon_max_pg_per_osd", check=False)


@pytest.fixture
def own_lab() -> Iterator[CephLab]:
    """A throwaway cluster of this test's own: it creates the RGW pools under the names the shared lab's gateway
    uses, and on the shared lab either its leftovers or its deletions broke the working-store test."""
    with ceph_cluster(rgw=False, mds=False, ports=free_ports()) as lab:
        yield lab


@pytest.mark.ceph
@pytest.mark.slow
def test_real_ceph_accepts_the_compiled_ec_profile_and_pool_commands(
    own_lab: CephLab, tmp_path: Path
) -> None:
    ceph_lab = own_lab
    # 7 one-OSD nodes: 4+2 with a spare host, and PG counts a 3-OSD lab can hold once its limit is raised
    hw = tmp_path / "hw.yaml"
    hw.write_text(HARDWARE)
    # rgw: its EC pool is all pools.sh makes (scratch would also make a file system, which needs an MDS)
    bundle = compile_bundle(CompileRequest(workload="rgw", hardware_file=hw, ceph_release="pacific"))
    ec = bundle.shape["ec"].value
    assert (ec.k, ec.m, ec.plugin, ec.technique) == (4, 2, "jerasure", "reed_sol_van")
    script = tmp_path / "pools.sh"
    script.write_text(bundle.files["pools.sh"])
    before = {p["pool_name"] for p in ceph_lab.ceph("osd", "pool", "ls", "detail")}
    ours = [p["name"] for p in bundle.shape["pools"] if p["name"] not in before]
    ceph_lab.ceph("config", "set", "mon", "mon_max_pg_per_osd", "2000")  # the lab has 3 OSDs, not 7
    try:
        r = ceph_lab.run("sh", str(script), check=False, timeout=300)
        assert r.returncode == 0, r.stderr
        profile = ceph_lab.ceph("osd", "erasure-code-profile", "get", ec.profile_name)
        assert {k: profile[k] for k in ("k", "m", "plugin", "technique", "crush-failure-domain")} == {
            "k": "4",
            "m": "2",
            "plugin": "jerasure",
            "technique": "reed_sol_van",
            "crush-failure-domain": "host",
        }
        # no EC optimisations before Tentacle: the profile leaves the stripe unit to the 4 KiB default
        assert ec.stripe_unit == 0 and "stripe_unit" not in profile
        listed = ceph_lab.ceph("osd", "pool", "ls", "detail")
        width = {p["pool_name"]: p["stripe_width"] for p in listed}
        ec_name = next(p["name"] for p in bundle.shape["pools"] if p["type"] == "erasure")
        assert width[ec_name] == 4 * 4096, width  # k x the 4 KiB default
        detail = {p["pool_name"]: p for p in ceph_lab.ceph("osd", "pool", "ls", "detail")}
        for p in bundle.shape["pools"]:
            got = detail[p["name"]]
            assert got["pg_num"] == p["pg_num"] or p["name"] in before, (p, got["pg_num"])
            assert p["application"] in got["application_metadata"]
            if p["type"] == "erasure":
                assert got["erasure_code_profile"] == ec.profile_name
                assert got["size"] == ec.k + ec.m and got["min_size"] == ec.k + 1
                assert ("ec_overwrites" in got["flags_names"]) == p["ec_overwrites"]
            else:
                assert got["size"] == p["size"]
        # running it again changes nothing and does not fail (pool create leaves existing pools alone)
        again = ceph_lab.run("sh", str(script), check=False, timeout=300)
        assert again.returncode == 0, again.stderr
        # Pacific does not know Tentacle's FastEC flag: pools.sh must not emit it before Tentacle
        ec_pool = next(p["name"] for p in bundle.shape["pools"] if p["type"] == "erasure")
        flag = ceph_lab.run(
            "ceph", "osd", "pool", "set", ec_pool, "allow_ec_optimizations", "true", check=False
        )
        assert flag.returncode != 0 and "allow_ec_optimizations" not in bundle.files["pools.sh"]
    finally:
        for name in ours:
            ceph_lab.run(
                "ceph", "osd", "pool", "delete", name, name, "--yes-i-really-really-mean-it", check=False
            )
        for p in bundle.shape["pools"]:  # the lab's own pools of the same name: the ratios pools.sh gave them
            if p["name"] in before:
                ceph_lab.run("ceph", "osd", "pool", "set", p["name"], "target_size_ratio", "0", check=False)
                ceph_lab.run("ceph", "osd", "pool", "set", p["name"], "pg_autoscale_bias", "1", check=False)
        ceph_lab.run("ceph", "osd", "erasure-code-profile", "rm", ec.profile_name, check=False)
        ceph_lab.run("ceph", "config", "rm", "mon", "mon_max_pg_per_osd", check=False)


def test_pools_sh_is_valid_shell() -> None:
    b = compile_bundle(CompileRequest(workload="rgw", tier="iops", nodes=11))
    r = subprocess.run(["sh", "-n"], input=b.files["pools.sh"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.ceph
@pytest.mark.slow
@pytest.mark.parametrize("workload", ["block", "rgw"])
def test_real_autoscaler_keeps_the_compiled_pg_num_only_with_target_size_ratio(
    ceph_lab: CephLab, tmp_path: Path, workload: str
) -> None:
    # a cluster the size of the lab (3 OSDs), so the autoscaler's target and flashtune's pg_num see the same OSDs
    hw = tmp_path / "hw.yaml"
    hw.write_text(LAB_SIZED)
    bundle = compile_bundle(CompileRequest(workload=workload, hardware_file=hw, ceph_release="pacific"))
    pools = bundle.shape["pools"]
    names = [p["name"] for p in pools]
    detail = ceph_lab.ceph("osd", "pool", "ls", "detail")
    before = {p["pool_name"] for p in detail}
    assert not before & set(names)
    # the autoscaler divides each ratio by the sum of all ratios in the root: the lab's pools must have none
    assert not [p["pool_name"] for p in detail if p.get("options", {}).get("target_size_ratio")]
    script = tmp_path / "pools.sh"
    script.write_text(bundle.files["pools.sh"])
    bare = "ft-no-ratio"  # the data pool without the ratio: what pools.sh used to create
    big = max(p["pg_num"] for p in pools)
    ceph_lab.ceph("config", "set", "mon", "mon_max_pg_per_osd", "2000")  # other tests' pools share the lab
    try:
        r = ceph_lab.run("sh", str(script), check=False, timeout=300)
        assert r.returncode == 0, r.stderr
        ceph_lab.ceph("osd", "pool", "create", bare, str(big), str(big), "replicated")
        for name in [*names, bare]:  # the lab turns the autoscaler off; clusters have it on by default
            ceph_lab.run("ceph", "osd", "pool", "set", name, "pg_autoscale_mode", "on")
        deadline = time.monotonic() + 60  # the manager sees the new pools and the ratios a moment later
        while True:
            status = {s["pool_name"]: s for s in ceph_lab.ceph("osd", "pool", "autoscale-status")}
            seen = [status.get(n, {}) for n in [*names, bare]]
            if all(s.get("pg_autoscale_mode") == "on" for s in seen) and all(
                s["effective_target_ratio"] > 0 and s["bias"] == p.get("autoscale_bias", 1)
                for s, p in zip(seen, pools, strict=False)
            ):
                break
            assert time.monotonic() < deadline, seen
            time.sleep(2)
        for p in pools:  # the autoscaler aims at what pools.sh created: it will not resize the pools
            got = status[p["name"]]
            assert got["pg_num_final"] == p["pg_num"] and not got["would_adjust"], status
            assert got["target_ratio"] == p["share"]
        # without the ratio the autoscaler aims at its minimum for the empty pool (and shrinks it once the
        # difference passes its threshold of 3x, as for the 128-PG rbd pool)
        assert status[bare]["pg_num_final"] == 32 < big, status[bare]
        assert status[bare]["would_adjust"] == (big >= 3 * 32)
        if workload == "rgw":  # what RGW itself gives a bucket index pool it creates
            index = ceph_lab.ceph("osd", "pool", "get", "default.rgw.buckets.index", "recovery_priority")
            assert index["recovery_priority"] == 5
        else:
            assert "rbd" in ceph_lab.ceph("osd", "pool", "application", "get", "rbd")  # rbd pool init
    finally:
        for name in [*names, bare]:
            if name not in before:
                ceph_lab.run(
                    "ceph", "osd", "pool", "delete", name, name, "--yes-i-really-really-mean-it", check=False
                )
        ceph_lab.run("ceph", "config", "rm", "mon", "mon_max_pg_per_osd", check=False)


# ---- pools.sh makes a working store, and data lands in the EC pool ------------------------------------------


# ---- flash beside HDD: omap-heavy pools on the flash class, data on the HDDs ------------------------------

MIXED = """name: mixed
node:
  cores: 16
  ram_gib: 96
  nics: [{count: 1, speed_gbps: 25}]
  data_devices:
    - {count: 1, type: hdd, size_gb: 4000}
    - {count: 1, type: nvme, size_gb: 1000}
  db_devices:
    - {count: 1, type: nvme, size_gb: 400}
cluster: {nodes: 3, clients: 1}
"""


@pytest.fixture
def six_osd_lab() -> Iterator[CephLab]:
    """Six OSDs, three of each device class: a size-3 rule restricted to one class can map every PG."""
    with ceph_cluster(rgw=False, mds=False, osds=6, ports=free_ports()) as lab:
        yield lab


@pytest.mark.ceph
@pytest.mark.slow
def test_real_metadata_pools_map_to_the_flash_class_and_data_to_the_hdds(
    six_osd_lab: CephLab, tmp_path: Path
) -> None:
    """Compiled for nodes with an NVMe beside their HDD, pools.sh (run twice) makes the class rules, Ceph accepts
    them, and every PG of the omap pools (RGW index, RBD's replicated pool, the manager's pool) maps to NVMe OSDs
    only, every PG of the data pools (replicated rule, EC profile class) to HDD OSDs only, and all go active."""
    lab = six_osd_lab
    flash, disk = ["0", "1", "2"], ["3", "4", "5"]
    for ids, cls in ((flash, "nvme"), (disk, "hdd")):
        lab.run("ceph", "osd", "crush", "rm-device-class", *[f"osd.{i}" for i in ids])
        lab.run("ceph", "osd", "crush", "set-device-class", cls, *[f"osd.{i}" for i in ids])
    hw = tmp_path / "hw.yaml"
    hw.write_text(MIXED)
    lab.ceph("config", "set", "mon", "mon_max_pg_per_osd", "1000")
    checked: dict[str, set[str]] = {}
    for workload, ec in (("rgw", None), ("block", (2, 1))):
        bundle = compile_bundle(
            CompileRequest(workload=workload, hardware_file=hw, ceph_release="pacific", ec=ec)
        )
        assert bundle.shape["flash_class"] == "nvme"
        text = bundle.files["pools.sh"]
        assert "ceph osd crush rule create-replicated flashtune-replicated-nvme default host nvme" in text
        # the lab is one host: the compiled host failure domain becomes the OSD, nothing else
        script = tmp_path / f"pools-{workload}.sh"
        script.write_text(
            text.replace(" default host ", " default osd ").replace(
                "crush-failure-domain=host", "crush-failure-domain=osd"
            )
        )
        for attempt in (1, 2):  # the second run finds every rule and pool made and changes nothing
            r = lab.run("sh", str(script), check=False, timeout=600)
            assert r.returncode == 0, (workload, attempt, r.stdout, r.stderr)
        rules = {x["rule_name"]: x for x in lab.ceph("osd", "crush", "rule", "dump")}
        for p in bundle.shape["pools"]:
            cls = p["device_class"]
            checked[p["name"]] = set(flash if cls == "nvme" else disk)
            if p["type"] == "replicated":
                got = lab.ceph("osd", "pool", "get", p["name"], "crush_rule")["crush_rule"]
                assert got == p["crush_rule"] == f"flashtune-replicated-{cls}", (p, got)
                # the rule takes the class's shadow tree (default~nvme / default~hdd)
                take = next(s for s in rules[got]["steps"] if s["op"] == "take")
                assert take["item_name"] == f"default~{cls}", rules[got]
            else:
                profile = lab.ceph(
                    "osd", "erasure-code-profile", "get", bundle.shape["ec"].value.profile_name
                )
                assert profile["crush-device-class"] == "hdd"
        mgr = bundle.shape["flash_pools"][0]
        assert mgr == "device_health_metrics"  # Pacific's name for the manager's pool
        if mgr in {p["pool_name"] for p in lab.ceph("osd", "pool", "ls", "detail")}:
            assert (
                lab.ceph("osd", "pool", "get", mgr, "crush_rule")["crush_rule"] == "flashtune-replicated-nvme"
            )
            checked[mgr] = set(flash)

    def placed() -> bool:
        for pool, allowed in checked.items():
            stats = lab.ceph("pg", "ls-by-pool", pool)
            pgs = stats["pg_stats"] if isinstance(stats, dict) else stats
            for pg in pgs:
                up = {str(o) for o in pg["up"] if o != 2147483647}
                assert up <= allowed, (pool, pg["pgid"], up, allowed)
                if "active" not in pg["state"] or len(up) < len(pg["up"]):
                    return False
        return True

    deadline = time.monotonic() + 300
    while not placed():  # every PG maps inside its class and goes active
        assert time.monotonic() < deadline, "PGs did not all go active in their device class"
        time.sleep(5)
    assert {"default.rgw.buckets.index", "rbd", "rbd_data", "default.rgw.buckets.data"} <= set(checked)

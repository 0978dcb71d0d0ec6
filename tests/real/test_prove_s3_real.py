"""`flashtune prove --workload rgw` on real Ceph 16.2.15 gateways (issue 24): S3 through every gateway.

The session cluster (`ceph_lab`) runs one radosgw; this module starts a second one on another port, so that
"every gateway" means two. prove finds both in `ceph service dump` by itself; the gateways' own perf
counters (`ceph daemon client.rgw.<id> perf dump`: rgw.put / rgw.get, the requests each one served) show that
both carried PUTs and GETs. Afterwards the config database equals the dump saved before, and the throwaway S3
user and its buckets are gone, also after a SIGKILL followed by `--restore`.
Durations are short (2 s samples): these prove the mechanism, not a tuning result.
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_prove_real import SCRIPT

from flashtune.ingest import load
from flashtune.lab import free_ports
from support.cephlab import CephLab
from support.proving import dump_text, finish, journal, prove, until_arm_b

pytestmark = [pytest.mark.ceph, pytest.mark.slow]

CASES = {"s3-put-64k": "put", "s3-get-64k": "get", "s3-put-4m": "put", "s3-get-4m": "get"}


@pytest.fixture(scope="module")
def two_gateways(ceph_lab: CephLab) -> Iterator[CephLab]:
    """The session cluster with a second gateway, client.rgw.gw2, for this module's tests."""
    port = free_ports()[0]
    ceph_lab.start_rgw("gw2", port)
    try:
        yield ceph_lab
    finally:
        ceph_lab.stop_rgw("gw2")


@pytest.fixture
def compiled(tmp_path: Path) -> Path:
    folder = tmp_path / "compiled"
    folder.mkdir()
    (folder / "ceph-config.sh").write_text(
        SCRIPT + "ceph config set client.rgw rgw_max_concurrent_requests 2048\n"
    )
    return folder


def served(lab: CephLab) -> dict[str, tuple[int, int]]:
    """Each gateway's (PUT, GET) requests so far, from its own perf counters."""
    out = {}
    for name in lab.gateway_names():
        rgw = lab.daemon(name, "perf", "dump")["rgw"]
        out[name] = (int(rgw["put"]), int(rgw["get"]))
    return out


def _listed(lab: CephLab, what: str) -> list[str]:
    """radosgw-admin's list of every S3 user or bucket whose name is one prove gives."""
    names = json.loads(lab.run("radosgw-admin", what, "list").stdout)
    return [str(n) for n in names if str(n).startswith("flashtune-prove-")]


def run_users(lab: CephLab) -> list[str]:
    return _listed(lab, "user")


def run_buckets(lab: CephLab) -> list[str]:
    return _listed(lab, "bucket")


def test_rgw_probes_drive_every_gateway_and_leave_nothing(
    two_gateways: CephLab, compiled: Path, tmp_path: Path
) -> None:
    lab = two_gateways
    before = dump_text(lab)
    counters = served(lab)
    assert len(counters) == 2
    out = tmp_path / "prove"
    p = prove(
        *("--out", str(out), "--compiled", str(compiled), "--workload", "rgw"),
        *("--repeat", "3", "--seconds", "2", "--warmup", "1", "--prefill-seconds", "3", "--s3-threads", "8"),
        conf=lab.conf_path,
    )
    code, stdout, stderr = finish(p, timeout=1200)
    assert code == 0, stderr[-3000:]
    # found by itself: both gateways of the service map, 4 threads each
    assert "drives 2 S3 gateways at once (8 threads)" in stdout
    assert (
        f"gw http://127.0.0.1:{lab.rgw_port}" in stdout
        and f"gw2 http://127.0.0.1:{lab.more_gateways['gw2']}" in stdout
    )
    report = (out / "report.md").read_text()
    # >= 3 samples per arm and case, each the probe's own JSON, read back with the ingest parser
    for case, op in CASES.items():
        row = next(line for line in report.splitlines() if line.startswith(f"| {case} | ") and "CI" in line)
        assert "3 / 3" in row
        for arm in "AB":
            files = sorted((out / "raw" / case).glob(f"{arm}*-{op}.json"))
            assert len(files) == 3, files
            for f in files:
                doc = json.loads(f.read_text())
                assert doc["errors"] == 0 and doc["ops"] > 0
                # every gateway served requests in every sample
                assert len(doc["gateways"]) == 2 and all(g["ops"] > 0 for g in doc["gateways"]), doc[
                    "gateways"
                ]
                df = load(f)
                iops = df[(df.metric == "iops") & (df.stat == "mean") & (df.test == case)]
                assert float(iops.value.iloc[0]) == pytest.approx(doc["iops"])
    # the gateways' own counters: both carried PUTs and GETs during the run
    after = served(lab)
    for name, (put, get) in after.items():
        assert put > counters[name][0] and get > counters[name][1], (name, counters[name], after[name])
    assert "## S3 probes" in report and "Requests served per gateway" in report
    csv = (out / "results.csv").read_text().splitlines()
    assert {f"s3-get-4m/{a}{i}" for a in "AB" for i in (1, 2, 3)} <= {line.split(",")[3] for line in csv[1:]}
    # restored: the config database as it was, the S3 user and its buckets gone, and no pool of prove's own
    assert (out / "config-after.json").read_bytes() == (out / "config-before.json").read_bytes()
    assert dump_text(lab) == before
    uid = next(str(e["uid"]) for e in journal(out) if e["op"] == "s3-user")
    assert any(e["op"] == "s3-user-removed" and e["uid"] == uid for e in journal(out))
    assert uid not in run_users(lab) and not run_buckets(lab)
    assert not [e for e in journal(out) if e["op"] == "pool"]
    assert f"S3 user {uid} removed with its buckets and objects" in report


def test_sigkill_then_restore_removes_the_s3_user_and_buckets(
    two_gateways: CephLab, compiled: Path, tmp_path: Path
) -> None:
    lab = two_gateways
    before = dump_text(lab)
    out = tmp_path / "prove"
    p = prove(
        *("--out", str(out), "--compiled", str(compiled), "--workload", "rgw", "--probe", "s3-get-64k"),
        *("--repeat", "3", "--seconds", "10", "--warmup", "0", "--prefill-seconds", "3"),
        conf=lab.conf_path,
    )
    until_arm_b(p, out)
    p.kill()
    p.communicate()
    uid = next(str(e["uid"]) for e in journal(out) if e["op"] == "s3-user")
    # the crash left arm B's values, the user and its buckets (with the prefilled objects) behind
    assert dump_text(lab) != before
    assert uid in run_users(lab) and run_buckets(lab)
    code, stdout, stderr = finish(prove("--restore", str(out), conf=lab.conf_path))
    assert code == 0, stderr
    assert "byte-identical" in stdout and f"S3 user {uid} removed" in stdout
    assert dump_text(lab) == before
    assert uid not in run_users(lab) and not run_buckets(lab)
    # a second restore finds nothing left to remove
    code, stdout, _ = finish(prove("--restore", str(out), conf=lab.conf_path))
    assert code == 0 and "byte-identical" in stdout and "S3 user" not in stdout


def test_sigint_mid_sample_stops_the_threads_and_removes_the_user(
    two_gateways: CephLab, compiled: Path, tmp_path: Path
) -> None:
    lab = two_gateways
    before = dump_text(lab)
    out = tmp_path / "prove"
    p = prove(
        *("--out", str(out), "--compiled", str(compiled), "--workload", "rgw", "--probe", "s3-put-64k"),
        *("--repeat", "3", "--seconds", "30", "--warmup", "0"),
        conf=lab.conf_path,
    )
    until_arm_b(p, out)
    time.sleep(2)  # PUTs in flight on both gateways
    p.send_signal(signal.SIGINT)
    code, _, stderr = finish(p, timeout=300)
    assert code == 130, stderr[-3000:]
    uid = next(str(e["uid"]) for e in journal(out) if e["op"] == "s3-user")
    assert f"S3 user {uid} removed with its buckets and objects" in stderr and "NOT cleaned up" not in stderr
    assert dump_text(lab) == before
    assert uid not in run_users(lab) and not run_buckets(lab)
    assert "did not finish: interrupted" in (out / "report.md").read_text()


def test_a_gateway_that_does_not_answer_stops_the_run_before_any_change(
    two_gateways: CephLab, compiled: Path, tmp_path: Path
) -> None:
    before = dump_text(two_gateways)
    dead = f"http://127.0.0.1:{free_ports()[0]}"
    alive = f"http://127.0.0.1:{two_gateways.rgw_port}"
    out = tmp_path / "prove"
    code, _, stderr = finish(
        prove(
            *("--out", str(out), "--compiled", str(compiled), "--workload", "rgw"),
            *("--s3-endpoint", alive, "--s3-endpoint", dead),
            conf=two_gateways.conf_path,
        )
    )
    assert (
        code == 2
        and "gateways that do not answer" in stderr
        and dead in stderr
        and alive not in stderr.split("answer:")[1]
    )
    assert not (out / "journal.jsonl").exists()
    assert dump_text(two_gateways) == before

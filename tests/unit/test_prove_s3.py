"""prove's S3 probe without a cluster: which gateways it finds, how a sample's figures are formed from the
requests, how the sample reaches the tidy schema, and what the journal records for the restore
(tests/real/test_prove_s3_real.py runs it against real gateways)."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from flashtune.errors import FlashtuneError
from flashtune.ingest import detect, load
from flashtune.prove import rgw, s3load
from flashtune.prove.journal import Journal, Restored
from flashtune.prove.probes import PROBES, probes_for
from flashtune.prove.rgw import Credentials, Gateway, Target


# The rgw entry of `ceph service dump -f json` from the 16.2.15 lab (trimmed to the keys read), with a second
# daemon as a cephadm-deployed gateway reports itself (port only: every address of its host).
def _daemon(gid: int, id_: str, host: str, frontend: str) -> dict[str, object]:
    return {
        "start_epoch": 2,
        "gid": gid,
        "addr": "127.0.0.1:0/3061480849",
        "metadata": {
            "ceph_version_short": "16.2.15",
            "frontend_config#0": frontend,
            "frontend_type#0": frontend.split()[0],
            "hostname": host,
            "id": id_,
            "zone_name": "default",
        },
        "task_status": {},
    }


DUMP = {
    "epoch": 2,
    "services": {
        "mgr": {"daemons": {"summary": "", "x": {"metadata": {}}}},
        "rgw": {
            "daemons": {
                "summary": "",
                "4132": _daemon(4132, "gw", "vm", "beast endpoint=127.0.0.1:8084"),
                "4377": _daemon(4377, "objects.node2.abcdef", "node2", "beast port=7480"),
            }
        },
    },
}


@pytest.mark.parametrize(
    ("config", "urls"),
    [
        ("beast endpoint=127.0.0.1:8080", ["http://127.0.0.1:8080"]),
        ("beast port=7480", ["http://node1:7480"]),
        ("beast endpoint=0.0.0.0:80", ["http://node1:80"]),
        ("beast endpoint=[::]:8000", ["http://node1:8000"]),
        ("beast endpoint=[fd00::5]:8000", ["http://[fd00::5]:8000"]),
        # plain HTTP first, whatever the order in the config
        ("beast ssl_port=443 port=80 ssl_certificate=/etc/x.pem", ["http://node1:80", "https://node1:443"]),
        ("beast ssl_endpoint=10.0.0.1:443", ["https://10.0.0.1:443"]),
        ("civetweb port=80+443s", ["http://node1:80", "https://node1:443"]),
        ("civetweb port=127.0.0.1:8080", ["http://127.0.0.1:8080"]),
        ("beast", []),  # no port written: not guessed
        ("beast endpoint=10.0.0.1", []),
    ],
)
def test_frontend_config_gives_the_gateways_urls(config: str, urls: list[str]) -> None:
    assert rgw.frontend_urls(config, "node1") == urls


def test_every_rgw_daemon_of_the_service_dump_is_a_gateway() -> None:
    assert rgw.gateways_in(DUMP) == [
        Gateway("gw", "http://127.0.0.1:8084"),
        Gateway("objects.node2.abcdef", "http://node2:7480"),
    ]
    assert rgw.gateways_in({"services": {}}) == []


def test_a_gateway_without_a_port_stops_discovery_with_a_way_out() -> None:
    dump = {"services": {"rgw": {"daemons": {"9": _daemon(9, "gw", "n1", "beast")}}}}
    with pytest.raises(FlashtuneError) as e:
        rgw.gateways_in(dump)
    assert "gateway gw on n1" in e.value.message and "--s3-endpoint" in str(e.value.suggestion)


@pytest.mark.parametrize(("wanted", "gateways", "threads"), [(16, 1, 16), (16, 3, 18), (1, 2, 2), (4, 4, 4)])
def test_threads_are_spread_evenly_over_every_gateway(wanted: int, gateways: int, threads: int) -> None:
    n = rgw.threads_for(wanted, gateways)
    assert n == threads
    target = _target(gateways, n)
    per = [sum(1 for t in range(n) if target.gateway_of(t) == g) for g in range(gateways)]
    assert per == [n // gateways] * gateways


def _target(gateways: int, threads: int) -> Target:
    return Target(
        [Gateway(f"g{i}", f"http://h{i}:80") for i in range(gateways)],
        Credentials("flashtune-prove-x", "A", "S"),
        rgw.bucket_names("flashtune-prove-x", threads),
        threads,
    )


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]  # 1..100
    assert s3load.percentile(values, 50) == 50
    assert s3load.percentile(values, 99) == 99
    assert s3load.percentile(values, 99.9) == 100
    assert s3load.percentile([7.0], 99.9) == 7.0


def _record(index: int, latencies_ms: list[float], size: int, errors: int = 0) -> s3load._Thread:
    t = s3load._Thread(index)
    t.latencies = [x / 1000 for x in latencies_ms]
    t.bytes = size * len(latencies_ms)
    t.errors = errors
    return t


def test_a_sample_sums_every_request_over_all_gateways() -> None:
    target = _target(2, 4)
    size = 65536
    # threads 0 and 2 talk to gateway g0, 1 and 3 to g1
    threads = [
        _record(0, [10.0] * 30, size),
        _record(1, [20.0] * 20, size),
        _record(2, [10.0] * 30, size),
        _record(3, [40.0] * 19 + [400.0], size, errors=1),
    ]
    doc = s3load.sample_document(
        target, threads, case="s3-put-64k", op="put", size=size, seconds=2, elapsed=2.5
    )
    assert doc[s3load.SAMPLE_KEY] == 1
    assert doc["ops"] == 100 and doc["errors"] == 1 and doc["threads"] == 4
    assert doc["iops"] == pytest.approx(100 / 2.5)
    assert doc["bandwidth_mib_s"] == pytest.approx(100 * size / 2.5 / 2**20)
    lat = doc["latency_ms"]
    every = sorted([10.0] * 60 + [20.0] * 20 + [40.0] * 19 + [400.0])
    assert lat["mean"] == pytest.approx(statistics.fmean(every))
    assert (lat["min"], lat["p50"], lat["p90"], lat["p99"], lat["p99.9"], lat["max"]) == pytest.approx(
        (10.0, 10.0, 40.0, 40.0, 400.0, 400.0)
    )
    assert [(g["name"], g["threads"], g["ops"], g["errors"]) for g in doc["gateways"]] == [
        ("g0", 2, 60, 0),
        ("g1", 2, 40, 1),
    ]
    assert sum(g["bytes"] for g in doc["gateways"]) == doc["bytes"] == 100 * size
    s3load.check_sample(doc)  # 1 failure in 101: within the 1 % a sample may lose


def test_a_sample_of_failures_stops_the_run() -> None:
    target = _target(1, 2)
    bad = s3load.sample_document(
        target,
        [_record(0, [5.0] * 50, 4096), _record(1, [], 4096, errors=2)],
        case="s3-get-64k",
        op="get",
        size=4096,
        seconds=1,
        elapsed=1.0,
    )
    with pytest.raises(FlashtuneError, match="2 of 52 S3 requests failed"):
        s3load.check_sample(bad)
    none = s3load.sample_document(
        target,
        [_record(0, [], 4096), _record(1, [], 4096)],
        case="c",
        op="get",
        size=4096,
        seconds=1,
        elapsed=1,
    )
    assert none["latency_ms"] == {}
    with pytest.raises(FlashtuneError, match="no request completed"):
        s3load.check_sample(none)


def test_the_bodies_are_the_same_bytes_in_every_sample() -> None:
    assert s3load.body(65536) == s3load.body(65536) and len(s3load.body(65536)) == 65536
    assert s3load.body(4096) != s3load.body(65536)[:4096]


def test_a_sample_reaches_the_tidy_schema(tmp_path: Path) -> None:
    target = _target(2, 2)
    doc = s3load.sample_document(
        target,
        [_record(0, [8.0] * 10, 4 << 20), _record(1, [12.0] * 10, 4 << 20)],
        case="s3-get-4m",
        op="get",
        size=4 << 20,
        seconds=2,
        elapsed=2.0,
    )
    f = tmp_path / "A1-get.json"
    f.write_text(json.dumps(doc, indent=1))
    assert detect(f) == "s3-probe"
    df = load(f)
    totals = df[(df.test == "s3-get-4m") & df.time_s.isna()]
    one = {(r.metric, r.stat): r.value for r in totals.itertuples()}
    assert one[("iops", "mean")] == pytest.approx(10.0)
    assert one[("bandwidth", "mean")] == pytest.approx(20 * 4 / 2.0)
    assert one[("latency", "p50")] == 8.0 and one[("latency", "max")] == 12.0
    assert one[("ops", "sum")] == 20 and one[("errors", "mean")] == 0
    # the figure prove compares: exactly one mean IOPS row per sample, the total
    assert len(df[(df.metric == "iops") & (df.stat == "mean")]) == 1
    assert (
        set(totals.op) == {"read"} and set(totals.interface) == {"s3"} and set(totals.unit) >= {"IOPS", "ms"}
    )
    served = df[(df.metric == "ops") & (df.test != "s3-get-4m")]
    assert dict(zip(served.test, served.value, strict=True)) == {"http://h0:80": 10, "http://h1:80": 10}
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(doc)[:200])
    with pytest.raises(FlashtuneError):
        load(cut)


def test_the_rgw_workload_probes_are_s3_puts_and_gets_of_the_plans_sizes() -> None:
    rgw = probes_for("rgw")
    assert [p.name for p in rgw] == ["s3-put-64k", "s3-get-64k", "s3-put-4m", "s3-get-4m"]
    assert all(p.needs_s3 for p in rgw) and [p.op for p in rgw] == ["write", "read"] * 2
    assert [p.needs_s3_objects for p in rgw] == [False, True] * 2
    assert {p.block_size for p in rgw} == {64 << 10, 4 << 20}
    assert not any(p.needs_s3 for p in probes_for("block") + probes_for("mysql") + probes_for("scratch"))
    assert PROBES["s3-get-4m"].read_fraction == 1.0 and PROBES["s3-put-4m"].read_fraction == 0.0


def test_the_journal_names_the_s3_user_before_it_exists(tmp_path: Path) -> None:
    j = Journal(tmp_path)
    j.append("begin", pool="flashtune-prove-ab12cd")
    j.append("s3-user", uid="flashtune-prove-ab12cd", gateways=["http://a:80", "http://b:80"])
    # a crash in the middle of the next line: the change it announced was never made, the user is still found
    with open(j.path, "a", encoding="utf-8") as f:
        f.write('{"op": "sample", "ca')
    assert j.s3_users() == ["flashtune-prove-ab12cd"]
    assert j.pools() == []  # an S3 run makes no pool of its own


def test_only_users_prove_named_are_created_or_removed() -> None:
    from flashtune.prove.cluster import Cluster

    cluster = Cluster(conf="/nonexistent/ceph.conf")
    with pytest.raises(FlashtuneError, match="refusing to remove S3 user 'admin'"):
        rgw.remove_user(cluster, "admin")
    with pytest.raises(FlashtuneError, match="refusing to create S3 user 'cbt'"):
        rgw.create_user(cluster, "cbt")


def test_the_restore_summary_names_the_removed_user_and_pools_left() -> None:
    r = Restored(True, removed_s3_users=["flashtune-prove-ab12cd"], new_pools=["default.rgw.buckets.data"])
    text = r.summary()
    assert "byte-identical" in text
    assert "S3 user flashtune-prove-ab12cd removed with its buckets and objects" in text
    assert "left in place" in text and "default.rgw.buckets.data" in text


def _prove(*args: str, block_boto3: bool = False) -> subprocess.CompletedProcess[str]:
    code = "import sys\n"
    if block_boto3:  # as on a machine without the extra: importing boto3 fails
        code += "sys.modules['boto3'] = None\n"
    code += "from flashtune.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"
    return subprocess.run(
        [sys.executable, "-c", code, "prove", *args], capture_output=True, text=True, timeout=120
    )


def test_without_boto3_the_rgw_probes_say_what_to_install(tmp_path: Path) -> None:
    r = _prove("--out", str(tmp_path / "o"), "--workload", "rgw", "--lab", block_boto3=True)
    assert r.returncode == 2, r.stderr
    assert "boto3" in r.stderr and "pip install 'flashtune[s3]'" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "o" / "journal.jsonl").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--s3-threads", "0"], "--s3-threads 0: at least 1"),
        (["--s3-endpoint", "rgw1:7480"], "is not an http:// or https:// URL"),
    ],
)
def test_bad_s3_options_are_refused_before_anything_runs(args: list[str], said: str, tmp_path: Path) -> None:
    r = _prove("--out", str(tmp_path / "o"), "--workload", "rgw", *args)
    assert r.returncode == 2 and said in r.stderr and "Traceback" not in r.stderr

"""`flashtune prove --cbt` without a cluster: which CBT runs an arm makes, how a sample is formed from a CBT
archive's rows, what the journal records for CBT's pools, and the refusals before anything reaches a cluster
(tests/real/test_prove_cbt_real.py runs it in the real CBT against real Ceph)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flashtune import cbtrun
from flashtune.cli.prove import _plans
from flashtune.compile import CompileRequest, compile_bundle
from flashtune.errors import FlashtuneError, UsageError
from flashtune.ingest.schema import to_frame
from flashtune.prove import cbtcases
from flashtune.prove.journal import POOL_PREFIX, Journal


@pytest.fixture(scope="module")
def plans() -> dict[str, dict[str, Any]]:
    b = compile_bundle(
        CompileRequest(workload="block", tier="iops", ceph_release="pacific", bench_scale="smoke")
    )
    return dict(b.plans)


def _row(run: str, op: str, value: float, **kw: Any) -> dict[str, Any]:
    return {
        "run": run,
        "format": "fio-json",
        "metric": "iops",
        "stat": "mean",
        "op": op,
        "value": value,
        **kw,
    }


# ---- sample formation ------------------------------------------------------------------------------------
def test_an_iterations_figure_sums_read_and_write_over_every_job_volume_and_client() -> None:
    frame = to_frame(
        [
            # iteration 0 of a randrw case: two volumes, each fio job's read and write IOPS
            _row("00000000/id-aaaa", "read", 700.0, source="output.0.localhost"),
            _row("00000000/id-aaaa", "write", 300.0, source="output.0.localhost"),
            _row("00000000/id-aaaa", "read", 650.0, source="output.1.localhost"),
            _row("00000000/id-aaaa", "write", 350.0, source="output.1.localhost"),
            # not the run's mean: a time-series point, a percentile, a latency, fio's 'total' op
            _row("00000000/id-aaaa", "read", 99999.0, time_s=1.0),
            _row("00000000/id-aaaa", "read", 5.0, stat="p99"),
            _row("00000000/id-aaaa", "read", 2.0, metric="latency"),
            _row("00000000/id-aaaa", "total", 2000.0),
            # the mean of fio's IOPS log over the same run (output.0_iops.1.log): not a second measurement
            _row("00000000/id-aaaa", "read", 710.0, format="fio-log", source="output.0_iops.1.log.localhost"),
            # iteration 1 of the same case, another case's run
            _row("00000001/id-bbbb", "read", 800.0),
            _row("00000001/id-bbbb", "write", 400.0),
            _row("00000000/id-cccc", "write", 50.0),
        ]
    )
    runs = {
        "00000000/id-aaaa": ("4k-randrw-qd16", 0),
        "00000001/id-bbbb": ("4k-randrw-qd16", 1),
        "00000000/id-cccc": ("randwrite", 0),
    }
    totals = cbtcases.iteration_totals(frame, runs)
    assert totals == {"4k-randrw-qd16": [2000.0, 1200.0], "randwrite": [50.0]}
    # a run CBT archived without fio IOPS is an error, not a zero
    with pytest.raises(FlashtuneError, match="no fio IOPS"):
        cbtcases.iteration_totals(frame, {**runs, "00000002/id-dddd": ("randwrite", 2)})


def test_one_sample_per_arm_run_whatever_the_iterations() -> None:
    """Iterations inside one arm run share its drift: they are folded into that run's one sample (their
    median), so 3 rounds of 5 iterations give 3 samples per arm, not 15."""
    per_run = {
        (case, arm, n): [float(10 * n + i + (100 if arm == "B" else 0)) for i in (0, 9, 1, 8, 2)]
        for n in (3, 1, 2)
        for arm in "AB"
        for case in ("x",)
    }
    samples = cbtcases.samples_by_arm(per_run)
    assert samples == {("x", "A"): [12.0, 22.0, 32.0], ("x", "B"): [112.0, 122.0, 132.0]}  # in round order
    assert cbtcases.arm_sample([5.0]) == 5.0 and cbtcases.arm_sample([1.0, 100.0, 3.0]) == 3.0
    with pytest.raises(ValueError):
        cbtcases.arm_sample([])


def test_an_archives_runs_are_named_by_their_benchmark_config(tmp_path: Path, plans: dict[str, Any]) -> None:
    chosen = cbtcases.choose(cbtcases.all_cases(plans, {}), ["4k-randwrite-qd16", "16k-randread-qd1"])
    (run,) = [r for r in cbtcases.plan_runs(plans, chosen, "abc") if r.plan == "cbt.yaml"][:1]
    for it, hash_, size, mode, depth in (
        (0, "id-11", 4096, "randwrite", 16),
        (0, "id-22", 16384, "randread", 1),
        (1, "id-33", 4096, "randwrite", 16),
    ):
        d = tmp_path / "results" / f"{it:08d}" / hash_
        d.mkdir(parents=True)
        (d / "benchmark_config.yaml").write_text(
            f"cluster:\n  benchmark: librbdfio\n  iteration: {it}\n  op_size: {size}\n  mode: {mode}\n"
            f"  iodepth: {depth}\n  rwmixread: 70\n"
        )
    # the two cases are not a product of their axes (4k/16k x randwrite/randread x 16/1): one CBT run each
    assert [len(r.cases) for r in cbtcases.plan_runs(plans, chosen, "abc")] == [1, 1]
    both = cbtcases.PlanRun("cbt.yaml", plans["cbt.yaml"], run.axes, chosen, run.pool, True)
    assert cbtcases.run_cases(tmp_path, both) == {
        "00000000/id-11": ("4k-randwrite-qd16", 0),
        "00000000/id-22": ("16k-randread-qd1", 0),
        "00000001/id-33": ("4k-randwrite-qd16", 1),
    }
    with pytest.raises(FlashtuneError, match="did not ask for"):
        cbtcases.run_cases(tmp_path, run)  # an archive with a case this run never asked for


# ---- the CBT runs of an arm ------------------------------------------------------------------------------
def test_every_compiled_case_is_a_cbt_case_named_as_compile_config_names_it(plans: dict[str, Any]) -> None:
    b = compile_bundle(
        CompileRequest(workload="block", tier="iops", ceph_release="pacific", bench_scale="smoke")
    )
    cases = cbtcases.all_cases(plans, b.case_notes)
    assert [c.name for c in cases] == b.cases
    assert all(c.note == b.case_notes[c.name] for c in cases)
    with pytest.raises(UsageError, match="no such case") as e:
        cbtcases.choose(cases, ["4k-randwrite-qd3"])
    assert "4k-randwrite-qd16" in (e.value.suggestion or "")


def test_an_arms_plan_keeps_the_measurement_and_names_the_pool(plans: dict[str, Any]) -> None:
    cases = cbtcases.all_cases(plans, {})
    chosen = cbtcases.choose(
        cases, ["4k-randwrite-qd16", "4k-randread-qd16", "4k-randwrite-qd32", "4k-randread-qd32", "randread"]
    )
    runs = cbtcases.plan_runs(plans, chosen, "abc123")
    # a whole product (4k x randwrite/randread x qd16/qd32) is one CBT run; the probe plan's case another
    assert [(r.plan, [c.name for c in r.cases]) for r in runs] == [
        ("cbt.yaml", ["4k-randwrite-qd16", "4k-randread-qd16", "4k-randwrite-qd32", "4k-randread-qd32"]),
        ("cbt/latency-qd1.yaml", ["randread"]),
    ]
    assert [r.pool for r in runs] == [f"{POOL_PREFIX}abc123-1", f"{POOL_PREFIX}abc123-2"]
    first = cbtcases.arm_doc(runs[0], reuse=False, iterations=1)
    later = cbtcases.arm_doc(runs[0], reuse=True, iterations=2)
    bench, compiled = first["benchmarks"]["librbdfio"], plans["cbt.yaml"]["benchmarks"]["librbdfio"]
    assert bench["op_size"] == [4096] and bench["mode"] == ["randwrite", "randread"]
    assert bench["iodepth"] == [16, 32]
    assert bench["poolname"] == runs[0].pool and bench["use_existing_volumes"] is False
    assert later["benchmarks"]["librbdfio"]["use_existing_volumes"] is True
    assert first["cluster"]["iterations"] == 1 and later["cluster"]["iterations"] == 2
    assert first["cluster"]["use_existing"] is True and first["cluster"]["is_teuthology"] is True
    # what CBT measures is the plan's: every other key as compiled
    for key in (
        "time",
        "ramp",
        "time_based",
        "vol_size",
        "volumes_per_client",
        "rwmixread",
        "prefill",
        "numjobs",
    ):
        assert bench[key] == compiled[key], key
    assert first["cluster"]["pool_profiles"] == plans["cbt.yaml"]["cluster"]["pool_profiles"]
    assert plans["cbt.yaml"]["benchmarks"]["librbdfio"]["iodepth"] == [1, 4, 8, 16, 32, 64, 128]  # untouched


def test_cbts_pools_are_journaled_as_prove_restores_them(tmp_path: Path, plans: dict[str, Any]) -> None:
    """The entries _cbt_arms writes before CBT's first run: the restore deletes every pool they name, and
    only names prove gave (journal.delete_pool refuses any other)."""
    ec = {
        **plans["cbt.yaml"],
        "benchmarks": {
            "librbdfio": {**plans["cbt.yaml"]["benchmarks"]["librbdfio"], "data_pool_profile": "rbd-ec-data"}
        },
    }
    chosen = cbtcases.choose(cbtcases.all_cases({"cbt.yaml": ec}, {}), ["4k-randwrite-qd16"])
    (run,) = cbtcases.plan_runs({"cbt.yaml": ec}, chosen, "f00d")
    assert run.pools == [f"{POOL_PREFIX}f00d-1", f"{POOL_PREFIX}f00d-1-data"]
    assert all(p.startswith(POOL_PREFIX) for p in run.pools)
    assert run.images(["host-a"]) == [
        f"cbt-librbdfio-host-a-{v}" for v in range(run.bench["volumes_per_client"])
    ]
    journal = Journal(tmp_path)
    for pool in run.pools:
        journal.append("pool", name=pool, by="cbt", plan=run.plan)
    journal.append(
        "cbt", arm="A", index=1, plan=run.plan, cases=["4k-randwrite-qd16"], archive="a", reuse=False
    )
    journal.append("pool", name=run.pool, by="cbt", plan=run.plan)  # a second mention is one pool
    assert journal.pools() == run.pools


def test_cbt_names_the_case_it_starts(plans: dict[str, Any]) -> None:
    chosen = cbtcases.choose(cbtcases.all_cases(plans, {}), ["4k-randwrite-qd16", "4k-randread-qd16"])
    (run,) = cbtcases.plan_runs(plans, chosen, "t")
    line = "INFO Running benchmark /tmp/cbt/00000000/LibrbdFio/osd_ra-00000000/op_size-00004096/concurrent_procs-010/iodepth-016/randread"
    assert cbtcases.case_of_line(line, run) == "4k-randread-qd16"
    assert cbtcases.case_of_line("INFO Pausing for 0s for idle monitoring.", run) is None


# ---- the plan as CBT runs it on this host ----------------------------------------------------------------
def test_localize_moves_placeholder_hosts_here_and_keeps_real_ones(
    tmp_path: Path, plans: dict[str, Any]
) -> None:
    doc = plans["cbt.yaml"]
    local = cbtrun.localize(doc, conf=tmp_path / "c.conf", scratch=tmp_path, mon_addr="10.0.0.1:6789")
    c = local["cluster"]
    assert c["head"] == "localhost" and c["clients"] == ["localhost"] and c["osds"] == ["localhost"]
    assert c["mons"] == {"localhost": {"a": "10.0.0.1:6789"}} and "user" not in c
    assert c["conf_file"] == str(tmp_path / "c.conf") and c["tmp_dir"] == str(tmp_path / "tmp")
    assert doc["cluster"]["head"] == "client01"  # the input is not changed
    hosts = {
        "head": "bench1",
        "clients": ["bench1", "bench2"],
        "osds": ["st1"],
        "mons": {"st1": {"a": "st1:6789"}},
    }
    mine = {**doc, "cluster": {**doc["cluster"], **hosts}}
    kept = cbtrun.localize(mine, conf=tmp_path / "c.conf", scratch=tmp_path)["cluster"]
    assert {k: kept[k] for k in hosts} == hosts and kept["user"] == "ceph"


def test_find_cbt_takes_a_folder_a_script_or_the_environment(tmp_path: Path) -> None:
    script = tmp_path / "cbt" / "cbt.py"
    script.parent.mkdir()
    script.write_text("#!/usr/bin/python3\n")
    script.chmod(0o755)
    assert cbtrun.find_cbt(script.parent, env={}) == script.resolve()
    assert cbtrun.find_cbt(script, env={}) == script.resolve()
    assert cbtrun.find_cbt(None, env={"CBT": str(script.parent)}) == script.resolve()
    assert cbtrun.find_cbt(None, env={"PATH": str(script.parent)}) == script.resolve()
    with pytest.raises(FlashtuneError, match=r"no cbt\.py there"):
        cbtrun.find_cbt(tmp_path / "nowhere", env={})
    with pytest.raises(FlashtuneError, match="no CBT found"):
        cbtrun.find_cbt(None, env={"PATH": str(tmp_path)})
    assert cbtrun.interpreter(script) == "/usr/bin/python3"


def _prove(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flashtune.cli.main", "prove", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "CEPH_CONF": "/nonexistent/ceph.conf"},
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cbt", "/nonexistent/cbt"], "no cbt.py there"),
        (["--case", "4k-randwrite-qd16"], "go with --cbt"),
        (["--cbt", "/nonexistent/cbt", "--probe", "rados-write-4k"], "--case NAME chooses CBT cases"),
        (["--cbt", "/nonexistent/cbt", "--name", "client.bench"], "connects as client.admin"),
    ],
)
def test_cbt_refusals_come_before_the_cluster(args: list[str], message: str, tmp_path: Path) -> None:
    r = _prove("--out", str(tmp_path / "out"), *args)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()


def test_the_dry_run_prints_the_plans_cbt_would_run(tmp_path: Path, plans: dict[str, Any]) -> None:
    chosen = cbtcases.choose(cbtcases.all_cases(plans, {}), ["4k-randwrite-qd16", "randread"])
    plan = cbtcases.CbtPlan(
        script=tmp_path / "cbt.py",
        python="/usr/bin/python3",
        runs=cbtcases.plan_runs(plans, chosen, "d00d"),
        conf=tmp_path / "ceph.conf",
        mon_addr="127.0.0.1:6789",
        clients=["here"],
    )
    text = "\n".join(cbtcases.plan_lines(plan, tmp_path / "out"))
    assert "cases (2): 4k-randwrite-qd16, randread" in text
    assert f"pool(s) {POOL_PREFIX}d00d-1, {POOL_PREFIX}d00d-2" in text
    # each plan file as CBT gets it in the first arm: localized, the pool named, volumes created there
    assert "--- cbt.yaml (4k-randwrite-qd16)" in text and "--- cbt/latency-qd1.yaml (randread)" in text
    assert f"poolname: {POOL_PREFIX}d00d-1" in text and "use_existing_volumes: false" in text
    assert f"conf_file: {tmp_path / 'ceph.conf'}" in text and "head: localhost" in text
    assert plan.expected_seconds(6) > 6 * 2 * (1 + 2)  # every arm runs each case's ramp and time at least


def test_a_compiled_folders_plans_are_read_from_its_files() -> None:
    """--compiled DIR: the folder's cbt.yaml and cbt/*.yaml as written (the shipped configs/ folders here)."""
    repo = Path(__file__).resolve().parents[2]
    plans, notes, skipped = _plans(argparse.Namespace(compiled=repo / "configs" / "iops-block"), None)
    assert sorted(plans) == ["cbt.yaml", "cbt/latency-qd1.yaml"] and notes == {} and skipped == []
    b = compile_bundle(CompileRequest(workload="block", tier="iops"))
    assert [c.name for c in cbtcases.all_cases(plans, {})] == b.cases
    with pytest.raises(UsageError, match="librbdfio plans") as e:
        _plans(argparse.Namespace(compiled=repo / "configs" / "iops-rgw"), None)
    assert "hsbench" in e.value.message

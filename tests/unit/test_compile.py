"""compile-config end to end (no daemons): layering, validation, safety, outputs, legacy mode, configs/."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flashtune.cli.compile import main as compile_main
from flashtune.cli.main import main as flashtune_main
from flashtune.compile import CompileRequest, compile_bundle, formats, matrix
from flashtune.compile.pipeline import WORKLOADS
from flashtune.compile.profiles import compose, merge, read_profile
from flashtune.datapackage import resolve
from flashtune.errors import FlashtuneError
from flashtune.hardware import tier_names
from flashtune.lint import lint_text
from flashtune.parse import parse_text
from flashtune.releases import SUPPORTED_CEPH_RELEASES

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
MODERN = [r for r in SUPPORTED_CEPH_RELEASES if r != "jewel"]


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "compile-config"), *args], capture_output=True, text=True, cwd=cwd)


def entries(text: str, kind: str) -> dict[tuple[str, str], str | None]:
    """(section, key) -> value as the project's own parser reads the file (last duplicate wins)."""
    return {(e.section, e.key): e.value for e in parse_text(text, kind).entries}


def names(release: str) -> set[str]:
    lines = (REPO / "data" / "ceph-option-names" / f"{release}.txt").read_text().splitlines()
    return {x.strip() for x in lines if x.strip() and not x.startswith("#")}


@pytest.fixture(scope="module")
def bundles() -> dict[tuple[str, str, str], Any]:
    return {
        (t, w, r): compile_bundle(CompileRequest(workload=w, tier=t, ceph_release=r))
        for t in tier_names()
        for w in WORKLOADS
        for r in MODERN
    }


def test_every_ceph_key_exists_in_its_release_and_every_file_lints_clean(bundles: dict[Any, Any]) -> None:
    for (tier, workload, release), b in bundles.items():
        conf = entries(b.files["ceph.conf"], "ceph.conf")
        assert conf, (tier, workload, release)
        unknown = {k for (_, k) in conf if k not in names(release)}
        assert not unknown, f"{tier}/{workload}/{release}: {unknown}"
        for name, text in b.files.items():
            kind = formats.BY_KIND[b.kinds[name]].lint_kind
            if kind:
                errors = [
                    f.render()
                    for f in lint_text(
                        text, kind, filename=name, ceph_release=release, mysql_flavour=b.request.mysql_flavour
                    )
                    if f.severity == "error"
                ]
                assert not errors, errors


def test_every_emitted_value_is_in_the_manifest_with_its_provenance(bundles: dict[Any, Any]) -> None:
    for key, b in bundles.items():
        manifest = json.loads(b.files["manifest.json"])
        assert manifest["inputs"]["workload"] == key[1] and manifest["inputs"]["ceph_release"] == key[2]
        conf = entries(b.files["ceph.conf"], "ceph.conf")
        listed = {(s["section"], s["key"]): s for s in manifest["settings"] if s["file"] == "ceph.conf"}
        assert set(conf) == set(listed)
        for (section, k), value in conf.items():
            s = listed[(section, k)]
            assert str(value).lower() == str(s["value"]).lower(), (k, value, s["value"])
            assert s["rule"] and s["rationale"], k
            assert s["safety"] == "safe" and not s["unsafe_opt_in"]
            for ev in s["evidence"]:
                assert ev["resolved"] and resolve(ev["ref"]) is not None, ev
        derived = [s for s in manifest["settings"] if s["rule"].startswith("derive:")]
        assert derived and all(s["inputs"] for s in derived if s["key"] != "osd_pool_default_min_size")


def test_every_file_carries_a_header_with_inputs_and_version(bundles: dict[Any, Any]) -> None:
    from flashtune import __version__

    b = bundles[("tco", "rgw", "reef")]
    for name, text in b.files.items():
        if name == "manifest.json":
            assert json.loads(text)["generated_by"]["version"] == __version__
            continue
        head = "\n".join(text.splitlines()[:4])
        assert (
            f"flashtune {__version__}" in head and "workload=rgw" in head and "ceph_release=reef" in head
        ), name


def test_release_layers_change_what_is_emitted(bundles: dict[Any, Any]) -> None:
    pac = entries(bundles[("iops", "block", "pacific")].files["ceph.conf"], "ceph.conf")
    ten = entries(bundles[("iops", "block", "tentacle")].files["ceph.conf"], "ceph.conf")
    # wpq (pacific) honours recovery priorities; mclock (quincy+) needs its profile instead
    assert ("osd", "osd_recovery_op_priority") in pac and ("osd", "osd_mclock_profile") not in pac
    assert (
        ten[("osd", "osd_mclock_profile")] == "high_client_ops"
        and ("osd", "osd_recovery_op_priority") not in ten
    )


def test_tiers_differ_where_the_hardware_differs(bundles: dict[Any, Any]) -> None:
    mem = {
        t: int(
            entries(bundles[(t, "block", "pacific")].files["ceph.conf"], "ceph.conf")[
                ("osd", "osd_memory_target")
            ]
        )
        for t in tier_names()
    }
    assert mem["standard"] < mem["iops"]  # 64 GiB over 12 HDD OSDs vs 128 GiB over 16 NVMe OSDs
    tuned = {t: bundles[(t, "block", "pacific")].files["tuned/flashtune/tuned.conf"] for t in tier_names()}
    assert (
        "include=latency-performance" in tuned["iops"]
        and "include=throughput-performance" in tuned["standard"]
    )
    # udev read-ahead and scheduler lines are dead on BlueStore / equal to the kernel's own choice per device
    # type, so no udev file is written and explain.md says why for each tier's device type
    for t, device in (("iops", "nvme"), ("standard", "hdd")):
        b = bundles[(t, "block", "pacific")]
        assert not any(name.startswith("udev/") for name in b.files)
        dropped = {(o["section"], o["key"]): o for o in b.omitted if o["file"] == "udev.rules"}
        assert dropped[(device, "queue/read_ahead_kb")]["kind"] == "only-on"
        assert dropped[(device, "queue/scheduler")]["kind"] == "derived"


def test_no_value_equals_the_release_default(bundles: dict[Any, Any]) -> None:
    from flashtune.catalog import load_catalog

    cat = load_catalog()
    for (_, _, release), b in bundles.items():
        for (_, k), v in entries(b.files["ceph.conf"], "ceph.conf").items():
            knob = cat.get(k, "ceph")
            d = knob.default_for(release) if knob else None
            assert d is None or str(d).lower() != str(v).lower(), (k, v, release)


def test_later_layers_win_and_unset_removes(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("name: a\nsettings:\n  ceph.conf:\n    osd: {x: 1, y: 2}\n")
    (tmp_path / "b.yaml").write_text(
        "name: b\ninclude: a\nsettings:\n  ceph.conf:\n    osd: {x: 3}\nunset:\n  ceph.conf:\n    osd: [y]\n"
    )
    chain = compose(["b", "a"], tmp_path)
    assert [p.name for p in chain] == ["a", "b"]
    assert merge(chain) == {("ceph.conf", "osd", "x"): (3, "b")}
    (tmp_path / "c.yaml").write_text("name: c\ninclude: d\nsettings: {}\n")
    (tmp_path / "d.yaml").write_text("name: d\ninclude: c\nsettings: {}\n")
    with pytest.raises(FlashtuneError, match="include loop"):
        compose(["c"], tmp_path)


def test_profiles_reference_derivations_by_name_and_name_their_evidence() -> None:
    base = read_profile("base")
    assert base.settings["ceph.conf"]["osd"]["osd_memory_target"] == {"derive": "osd_memory_target"}
    for p in (REPO / "data" / "profiles").glob("*.yaml"):
        for file in read_profile(p.stem).settings.values():
            for kv in file.values():
                for v in kv.values():
                    for ref in (v.get("evidence") or []) if isinstance(v, dict) else []:
                        assert resolve(ref) is not None, (p.name, ref)


def test_nothing_unsafe_by_default_and_opt_in_is_commented_and_explained(tmp_path: Path) -> None:
    r = cli(
        "--tier", "iops", "--workload", "mysql", "--ceph-release", "pacific", "--out", str(tmp_path / "a")
    )
    assert r.returncode == 0, r.stderr
    conf = (tmp_path / "a" / "ceph.conf").read_text()
    assert "auth_cluster_required = none" not in conf and "ms_crc" not in conf
    assert "innodb_flush_log_at_trx_commit" not in (tmp_path / "a" / "my.cnf").read_text()
    r = cli(
        "--tier",
        "iops",
        "--workload",
        "mysql",
        "--ceph-release",
        "pacific",
        "--out",
        str(tmp_path / "b"),
        "--allow-unsafe",
        "auth_cluster_required",
        "--allow-unsafe",
        "innodb_flush_log_at_trx_commit",
    )
    assert r.returncode == 0, r.stderr
    conf = (tmp_path / "b" / "ceph.conf").read_text()
    assert re.search(r"# UNSAFE \(security-risk\).*\nauth_cluster_required = none\n", conf)
    assert "auth_service_required" not in conf  # only what was asked for
    assert re.search(
        r"# UNSAFE .*\ninnodb_flush_log_at_trx_commit = 0\n", (tmp_path / "b" / "my.cnf").read_text()
    )
    explain = (tmp_path / "b" / "explain.md").read_text()
    assert "`auth_cluster_required = none`" in explain and "`innodb_flush_log_at_trx_commit = 0`" in explain
    m = json.loads((tmp_path / "b" / "manifest.json").read_text())
    flagged = {s["key"] for s in m["settings"] if s["unsafe_opt_in"]}
    assert flagged == {"auth_cluster_required", "innodb_flush_log_at_trx_commit"}


def test_unknown_unsafe_knob_and_bad_inputs_are_clear_errors(tmp_path: Path) -> None:
    cases = [
        (["--allow-unsafe", "nobarrier_please"], "no unsafe value"),
        (["--ec", "3"], "K+M"),
        (["--ec", "8+2", "--nodes", "5"], "needs at least 10 hosts"),
        (["--nodes", "0"], "at least 1"),
        (["--replication", "1"], "at least 2"),
        (["--ceph-release", "jewel", "--workload", "rgw"], "legacy mode"),
    ]
    for extra, message in cases:
        args = ["--tier", "iops", "--out", str(tmp_path / "x")]
        if "--workload" not in extra:
            args += ["--workload", "block"]
        r = cli(*args, *extra)
        assert r.returncode == 2, (extra, r.stdout, r.stderr)
        assert message in r.stderr and "hint:" in r.stderr and "Traceback" not in r.stderr, (extra, r.stderr)
    assert not (tmp_path / "x").exists()


def test_hardware_file_errors_point_at_the_line(tmp_path: Path) -> None:
    hw = tmp_path / "hw.yaml"
    hw.write_text(
        "name: mine\nnode:\n  cores: 16\n  ram_gib: 96\n  nics: [{count: 2, speed_gbps: 25}]\n"
        "  data_devices:\n    - {count: 6, type: optane, size_gb: 750}\n"
    )
    r = cli("--hardware", str(hw), "--workload", "block", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and f"{hw}:7" in r.stderr and "nvme" in r.stderr


def test_own_hardware_file_compiles_with_its_shape(tmp_path: Path) -> None:
    hw = tmp_path / "hw.yaml"
    hw.write_text(
        "name: mine\nnode:\n  sockets: 1\n  cores: 32\n  ram_gib: 192\n  nics: [{count: 2, speed_gbps: 100}]\n"
        "  data_devices:\n    - {count: 8, type: nvme, size_gb: 3840}\n"
    )
    r = cli(
        "--hardware",
        str(hw),
        "--workload",
        "rgw",
        "--nodes",
        "10",
        "--ceph-release",
        "reef",
        "--format",
        "json",
        "--out",
        str(tmp_path / "o"),
    )
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    cluster = out["manifest"]["cluster"]
    # 32 cores / 8 NVMe = 4 cores per device: one OSD each (two would need 12, data/layout/layout.yaml)
    assert cluster["osds_per_node"] == 8 and cluster["osds"] == 80 and cluster["osds_per_device"] == 1
    # 8+2 on 10 hosts would leave no spare host; 4+2 leaves four. Reef: jerasure reed_sol_van
    assert cluster["ec_profile"].startswith("k=4 m=2 plugin=jerasure technique=reed_sol_van")
    conf = entries((tmp_path / "o" / "ceph.conf").read_text(), "ceph.conf")
    # Reef has no EC optimisations: the 4 KiB default stripe unit stays (a larger one multiplies partial writes)
    assert ("global", "osd_pool_erasure_code_stripe_unit") not in conf
    # (0.7 x 192 GiB - mon 2 - mgr 4 - crash 0.125 - rgw 4) / 8 OSDs = 15.53 GiB, down to 256 MiB steps
    assert conf[("osd", "osd_memory_target")] == str(62 * (1 << 28))
    assert not list((tmp_path / "o").glob("systemd/*"))  # one socket: nothing to pin
    sysctl = entries((tmp_path / "o" / "sysctl.conf").read_text(), "sysctl.conf")
    assert sysctl[("", "net.core.rmem_max")] == str(64 << 20)  # 100 GbE


def test_outputs_are_never_clobbered_without_force(tmp_path: Path) -> None:
    out = tmp_path / "o"
    assert cli("--tier", "tco", "--workload", "block", "--out", str(out)).returncode == 0
    (out / "ceph.conf").write_text("# mine\n")
    r = cli("--tier", "tco", "--workload", "block", "--out", str(out))
    assert r.returncode == 2 and "--force" in r.stderr
    assert (out / "ceph.conf").read_text() == "# mine\n"
    assert cli("--tier", "tco", "--workload", "block", "--out", str(out), "--force").returncode == 0
    assert "[global]" in (out / "ceph.conf").read_text()
    assert not list(out.rglob("*.tmp"))


def test_default_out_folder_and_explain_flag(tmp_path: Path) -> None:
    r = cli("--tier", "standard", "--workload", "scratch", "--explain", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    folder = tmp_path / "flashtune-standard-scratch-tentacle"
    assert (folder / "ceph.conf").is_file() and "# Why these settings" in r.stdout


def test_cbt_runs_every_intended_case(bundles: dict[Any, Any]) -> None:
    for (_tier, workload, _release), b in bundles.items():
        docs = {n: parse_text(t, "cbt.yaml").data for n, t in b.files.items() if b.kinds[n] == "cbt.yaml"}
        conf = entries(b.files["ceph.conf"], "ceph.conf")
        plan = read_profile(f"workload-{workload}").benchmark or {}
        axes = {**plan["cases"].get("axes", {}), **plan["cases"].get("sweep", {})}
        for doc in docs.values():
            cluster = doc["cluster"]
            assert cluster["iterations"] >= 1 and cluster["use_existing"] is True
            for module, bench in doc["benchmarks"].items():
                lists = [k for k, v in bench.items() if isinstance(v, list)]
                # without is_teuthology CBT's run loop runs only the first permutation (cbt.py)
                assert not lists or cluster["is_teuthology"] is True, module
        if workload in ("block", "mysql"):
            assert set(docs) == {"cbt.yaml", "cbt/latency-qd1.yaml"}  # the sweep, and the single-queue probe
            doc = docs["cbt.yaml"]
            bench = doc["benchmarks"]["librbdfio"]
            n_axes = 1
            for k in plan["cases"]["axes"]:
                n_axes *= len(plan["cases"]["axes"][k])
            # one permutation per case: op_size x mode (0/100 % reads as randwrite/randread) x iodepth
            assert len(bench["op_size"]) * len(bench["mode"]) == n_axes
            share = {"randwrite": 0, "randread": 100, "randrw": bench.get("rwmixread")}
            seen = {(o, share[m]) for o in bench["op_size"] for m in bench["mode"]}
            assert seen == {(o, r) for o in axes["op_size"] for r in axes["rwmixread"]}
            assert bench["iodepth"] == axes["iodepth"] and "workloads" not in bench
            pool = doc["cluster"]["pool_profiles"]["rbd"]
            assert pool["replication"] == int(conf.get(("global", "osd_pool_default_size"), 3))
            # the working set outgrows every cache: clients x volumes x size > 2 x OSD memory of the cluster
            m = json.loads(b.files["manifest.json"])["cluster"]
            total = (
                len(doc["cluster"]["clients"]) * bench["volumes_per_client"] * bench["vol_size"] * (1 << 20)
            )
            assert total >= 2 * m["osds"] * m["osd_memory_target"] * 0.99
        else:
            expected = 1
            for v in axes.values():
                expected *= len(v)
            assert len(docs) == expected, workload
            if workload == "scratch":
                assert {d["benchmarks"]["fio"]["bs"] for d in docs.values()} == {"1M"}
                assert len({len(d["cluster"]["clients"]) for d in docs.values()}) == 3  # client sweep


def test_legacy_jewel_reproduces_the_seed_configs(shared: Path, tmp_path: Path) -> None:
    seed = (shared / "seeds" / "000_9cb515bbecf4ebcc.txt").read_text()
    seed = "\n".join(
        ln for ln in seed.splitlines() if not re.fullmatch(r"\d+ \d+ Patrick McGarry", ln.strip())
    )
    part = seed.split("All-NVMe Ceph Cluster Tuning for MySQL workload\nCeph.conf", 1)[1]
    seed_conf, rest = part.split("\nCBT YAML\n", 1)
    seed_cnf = rest.split("MySQL configuration file (my.cnf)\n", 1)[1].split("\nSample Ceph Vendor", 1)[0]
    r = cli(
        "--tier",
        "iops",
        "--workload",
        "mysql",
        "--ceph-release",
        "jewel",
        "--mysql",
        "mysql-5.7",
        "--out",
        str(tmp_path),
    )
    assert r.returncode == 0, r.stderr
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    explained = " ".join(f"{d['key']} {d['seed']}" for d in manifest["differences_from_seed"])
    assert "Differences from the published 2017 files" in (tmp_path / "explain.md").read_text()

    def check(seed_text: str, emitted: str, kind: str) -> int:
        want: dict[tuple[str, str], str | None] = {}
        section = "global"
        for raw in seed_text.splitlines():
            line = raw.strip()
            if m := re.fullmatch(r"\[(.+)\]", line):
                section = m.group(1)
            elif line.startswith("!"):
                want[(section, line.split()[0])] = line.split(None, 1)[1]
            elif "=" in line:
                k, v = (x.strip() for x in line.split("=", 1))
                want[(section, re.sub(r"\s+", "_", k) if kind == "ceph.conf" else k.replace("-", "_"))] = v
            elif line:
                want[(section, line.replace("-", "_"))] = None
        got = entries(emitted, kind)
        got_bang = {
            (s, k.split()[0]): k.split(None, 1)[1]
            for s, k in ((e.section, f"!includedir {e.value}") for e in parse_text(emitted, kind).includes)
        }
        reproduced = 0
        for (section, k), v in want.items():
            g = got_bang.get((section, k)) if k.startswith("!") else got.get((section, k), "<missing>")
            norm = lambda x: re.sub(r"\s+", " ", str(x)).strip().lower()  # noqa: E731
            if g != "<missing>" and (
                (v is None and g is None) or (v is not None and g is not None and norm(g) == norm(v))
            ):
                reproduced += 1
                continue
            assert any(x in explained for x in (k, k.replace("_", " "), k.replace("_", "-"))), (
                f"{kind}: {section}/{k}: seed {v!r}, emitted {g!r}, unexplained"
            )
        return reproduced

    assert check(seed_conf, (tmp_path / "ceph.conf").read_text(), "ceph.conf") >= 60
    assert check(seed_cnf, (tmp_path / "my.cnf").read_text(), "my.cnf") >= 30
    cbt = parse_text((tmp_path / "cbt.yaml").read_text(), "cbt.yaml").data
    assert cbt["cluster"]["osds_per_node"] == 16 and cbt["cluster"]["iterations"] == 1
    assert cbt["cluster"]["pool_profiles"]["2rep"] == {"pg_size": 8192, "pgp_size": 8192, "replication": 2}
    wl = cbt["benchmarks"]["librbdfio"]
    # the seed's 0/70/100 % reads: randwrite, randrw at the benchmark's rwmixread 70, randread
    assert wl["mode"] == ["randwrite", "randrw", "randread"] and wl["rwmixread"] == 70
    assert wl["iodepth"] == [4, 8, 16, 32, 64, 128]


def test_librbdfio_cases_run_as_permutations_at_their_own_ratio() -> None:
    # ceph/cbt at 9d6480fcea9e: run_workloads archives only the last workload's folder, so the plans sweep
    # top-level lists (benchmarkfactory.py all_configs), which is_teuthology makes cbt.py run, each into its own
    # archive folder; CBT passes rwmixread only with a mixed mode (librbdfio.py mkfiocmd)
    plans = [compile_bundle(CompileRequest(workload=w, tier="iops")) for w in ("block", "mysql")]
    plans.append(compile_bundle(CompileRequest(workload="mysql", ceph_release="jewel")))
    for b in plans:
        doc = parse_text(b.files["cbt.yaml"], "cbt.yaml").data
        bench = doc["benchmarks"]["librbdfio"]
        assert "workloads" not in bench and doc["cluster"]["is_teuthology"] is True
        # fio's runtime only caps a job that ends once it has covered its volume: time_based runs the full time
        assert bench.get("time_based") is True or b.legacy
        assert bench["mode"] == ["randwrite", "randrw", "randread"] or bench["mode"][0] == "randwrite"
        assert isinstance(bench["rwmixread"], int)
        n = 1
        for v in bench.values():
            n *= len(v) if isinstance(v, list) else 1
        # every permutation is a case, with its ceiling in the envelope
        rows = [r["case"] for r in b.envelope["benchmarks"]["cbt.yaml"]]
        assert n == len(rows) and set(rows) <= set(b.cases)


def test_hsbench_plans_put_before_they_get() -> None:
    # hsbench's -m letters (markhpc/hsbench): c clear, x delete buckets, i init, p put, l list, g get, d delete
    b = compile_bundle(CompileRequest(workload="rgw", tier="iops"))
    for name, text in b.files.items():
        if name.startswith("cbt/"):
            modes = str(parse_text(text, "cbt.yaml").data["benchmarks"]["hsbench"]["modes"])
            assert set(modes) <= set("cxipgld") and modes.index("i") < modes.index("p") < modes.index("g")
            assert "x" not in modes[: modes.index("g")], modes  # buckets deleted before the reads


def test_configs_folder_is_up_to_date() -> None:
    stale = matrix.stale()
    assert not stale, f"configs/ is stale ({len(stale)} files, e.g. {stale[:3]}): run `make configs`"


def test_a_compile_reports_names_as_before(tmp_path: Path) -> None:
    """--out and --hardware are spelt as str(Path(name)) in what compile-config prints and writes."""
    hw = tmp_path / "my.rig.yaml"
    hw.write_text((Path(__file__).parents[2] / "data" / "tiers" / "iops.yaml").read_text())
    out = f"{tmp_path}//out/./"
    args = [
        "--hardware",
        f"{tmp_path}/./my.rig.yaml",
        "--workload",
        "block",
        "--out",
        out,
        "--format",
        "json",
    ]
    r = subprocess.run(
        [sys.executable, "-m", "flashtune.cli.compile", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["out"] == str(Path(out))
    assert doc["files"][0] == str(Path(out) / "ceph.conf")
    assert doc["manifest"]["inputs"]["hardware"] == str(hw)
    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "flashtune.cli.compile",
            "--tier",
            "iops",
            "--workload",
            "block",
            "--out",
            out,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode != 0
    assert again.stderr.startswith(f"{Path(out) / 'ceph.conf'}: error: exists already"), again.stderr


@pytest.mark.parametrize("ec", ["", " ", "4+", "x+2", "4+0", "0+2"])
def test_both_commands_refuse_the_same_ec_flags(ec: str, capsys: pytest.CaptureFixture[str]) -> None:
    """compile-config and flashtune envelope read --ec with one parser: compile-config took --ec '' (an unset
    shell variable) as no flag at all and compiled replicated pools, exit 0, where envelope refused it."""
    assert compile_main(["--tier", "iops", "--workload", "block", "--ec", ec, "--out", "unused"]) == 2
    said = capsys.readouterr().err
    assert flashtune_main(["envelope", "--tier", "iops", "--ec", ec]) == 2
    assert (
        capsys.readouterr().err
        == said
        == f"error: --ec {ec!r} is not K+M\n  hint: e.g. --ec 4+2 (k data chunks + m coding chunks)\n"
    )
    assert not Path("unused").exists()


def test_ec_with_one_data_chunk_says_why_ceph_refuses_it(capsys: pytest.CaptureFixture[str]) -> None:
    """--ec 1+1 read "--ec '1+1' is not K+M", as if the form were wrong (Ceph's sanity_check_k_m: k >= 2)."""
    assert compile_main(["--tier", "iops", "--workload", "block", "--ec", "1+1", "--out", "unused"]) == 2
    assert capsys.readouterr().err.startswith(
        "error: --ec 1+1: k is 1: Ceph's erasure-code profiles need at least 2 data chunks"
    )

"""SanDisk, Intel BlueStore slides and Ceph guide tables: shapes, claims re-derived from rows, tiers."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from ruamel.yaml import YAML

from flashtune import tables

REPO = Path(__file__).resolve().parents[2]


def _claims() -> pd.DataFrame:
    return tables.load("claims").set_index("id")


def _pct(new: float, old: float) -> float:
    return (new / old - 1) * 100


# --- SanDisk InfiniFlash IF500 (seed 003) --------------------------------------------------------


def test_sandisk_ec_tables_have_the_printed_shape_and_cells(shared: Path) -> None:
    ec = tables.load("sandisk_ec_objects")
    # printed tables: throughput 2 rows, scaling 2, Cauchy-good 2, degraded 4
    assert ec.groupby("table", observed=True).size().to_dict() == {
        "ec_throughput": 2,
        "ec_scaling": 2,
        "ec_cauchy": 2,
        "ec_degraded": 4,
    }
    seed = (shared / "seeds" / "003_8fb0c5458250871c.txt").read_text()
    # every bandwidth and 90th-percentile response time in the data is printed in the seed's table rows
    printed = {t for line in seed.splitlines() if "4M_" in line for t in line.replace(",", "").split("\t")}
    for r in ec.itertuples():
        assert f"{r.bandwidth_GB_per_s:g}" in printed, r.id
        assert f"{r.resp_time_90pct_ms:g}" in printed, r.id
        assert r.osd_cpu_pct_min <= r.osd_cpu_pct_max


def test_sandisk_ec_claims_rederived() -> None:
    ec = tables.load("sandisk_ec_objects").set_index("id")
    cl = _claims()
    assert (
        abs(ec.at["ec-rs-48-read", "bandwidth_GB_per_s"] / cl.at["sandisk-ec-read-14gbs", "value"] - 1) < 0.05
    )
    assert (
        abs(ec.at["ec-rs-48-write", "bandwidth_GB_per_s"] / cl.at["sandisk-ec-write-3gbs", "value"] - 1)
        < 0.05
    )
    # 48 -> 96 drives: "around 65-70%" (computed 71%)
    gain = _pct(
        ec.at["ec-scaling-rs-96-write", "bandwidth_GB_per_s"],
        ec.at["ec-scaling-rs-48-write", "bandwidth_GB_per_s"],
    )
    lo, hi = cl.at["sandisk-ec-scaling-65-70pct", "value"], cl.at["sandisk-ec-scaling-65-70pct", "value_max"]
    assert lo - 5 <= gain <= hi + 5
    # Cauchy-good writes at least 33% better than Reed-Solomon
    write_gain = _pct(
        ec.at["ec-cauchy-write", "bandwidth_GB_per_s"], ec.at["ec-rs-48-write", "bandwidth_GB_per_s"]
    )
    assert write_gain >= cl.at["sandisk-cauchy-write-33pct", "value"]
    # "10% better" reads: the table says 4.7%, and the errata table says so
    read_gain = _pct(
        ec.at["ec-cauchy-read", "bandwidth_GB_per_s"], ec.at["ec-rs-48-read", "bandwidth_GB_per_s"]
    )
    assert abs(read_gain - cl.at["sandisk-cauchy-read-10pct", "value"]) > 2
    assert "sandisk-cauchy-read-10pct" in set(tables.load("errata")["id"])
    # degraded reads: Cauchy-good beats Reed-Solomon with one and with two nodes down
    for state in ("1-node", "2-nodes"):
        assert (
            ec.at[f"ec-degraded-cauchy-{state}", "bandwidth_GB_per_s"]
            > ec.at[f"ec-degraded-rs-{state}", "bandwidth_GB_per_s"]
        )
        assert (
            ec.at[f"ec-degraded-cauchy-{state}", "resp_time_90pct_ms"]
            < ec.at[f"ec-degraded-rs-{state}", "resp_time_90pct_ms"]
        )


def test_sandisk_recovery_rows_agree_with_the_claims() -> None:
    rec = tables.load("sandisk_recovery").set_index("id")
    assert len(rec) == 4 and set(rec["scenario"]) == {
        "osd_down_out",
        "osd_in",
        "chassis_down_out",
        "chassis_in",
    }
    cl = _claims()
    pairs = {
        "recovery-osd-down-out": "sandisk-recovery-osd-out-90min",
        "recovery-osd-in": "sandisk-recovery-osd-in-60min",
        "recovery-chassis-down-out": "sandisk-recovery-chassis-out-7h",
        "recovery-chassis-in": "sandisk-recovery-chassis-in-2h",
    }
    for row_id, claim_id in pairs.items():
        per_unit = {"min": 1, "hours": 60}[cl.at[claim_id, "unit"]]
        assert rec.at[row_id, "recovery_time_min_derived"] == cl.at[claim_id, "value"] * per_unit
        # the printed text keeps the source's own unit
        assert str(int(cl.at[claim_id, "value"])) in rec.at[row_id, "recovery_time"]
    assert (
        rec.at["recovery-osd-down-out", "perf_degradation_pct"]
        == cl.at["sandisk-recovery-osd-out-15pct", "value"]
    )
    assert rec.at["recovery-osd-in", "perf_degradation_pct"] == cl.at["sandisk-recovery-osd-in-5pct", "value"]
    # a whole chassis takes far longer to recover than one OSD
    assert (
        rec.at["recovery-chassis-down-out", "recovery_time_min_derived"]
        > 4 * rec.at["recovery-osd-down-out", "recovery_time_min_derived"]
    )


def test_sandisk_setups_are_internally_consistent() -> None:
    sp = tables.load("setup_parameters").set_index("id")
    for setup in ("sandisk-2node", "sandisk-6node"):
        nodes, per, total = (
            sp.at[f"{setup}-{k}", "value_number"] for k in ("osd-nodes", "osds-per-node", "total-osds")
        )
        assert nodes * per == total
    size = sp.at["sandisk-6node-pools", "value_number"] * sp.at["sandisk-6node-rbds-per-pool", "value_number"]
    assert (
        size * sp.at["sandisk-6node-rbd-size", "value_number"]
        == sp.at["sandisk-6node-total-data-set-size", "value_number"]
    )
    hw = tables.load("hardware").set_index("id")
    if100 = hw.loc["sandisk-if100"]
    raw_TB = if100["data_device_count_max"] * if100["data_device_capacity_GB_derived"] / 1000
    assert raw_TB == _claims().at["sandisk-if100-512tb", "value"]
    assert hw.at["sandisk-2node-osd", "node_count"] == sp.at["sandisk-2node-osd-nodes", "value_number"]
    assert hw.at["sandisk-6node-osd", "node_count"] == sp.at["sandisk-6node-osd-nodes", "value_number"]


# --- Intel BlueStore / 3D NAND slides (seed 004) -------------------------------------------------


def test_bluestore_rocksdb_steps_90k_to_210k() -> None:
    rc = tables.load("bluestore_rocksdb_compaction")
    assert len(rc) == 4 * 2  # four cumulative steps x min_alloc_size 4K / 64K
    wide = rc.pivot(index="step", columns="min_alloc_size_KiB", values="iops_K")
    assert wide.loc[1, 4] == rc["iops_K"].min() == 90  # untuned, 4K min_alloc_size
    assert wide.loc[4, 64] == rc["iops_K"].max() == 210  # every step, 64K min_alloc_size
    assert wide[64].is_monotonic_increasing
    assert (wide[64] > wide[4]).all()  # 64K beats 4K at every step
    assert rc.attrs["units"]["iops_K"] == "K IOPS"
    # the 55.0% claim is the 64K column from untuned to RocksDB-on-NVMe (see errata)
    claim = _claims().at["slides-rocksdb-tuning-55pct", "value"]
    matches = [
        (a, b)
        for a in rc.itertuples()
        for b in rc.itertuples()
        if round(_pct(b.iops_K, a.iops_K), 1) == claim
    ]
    assert [(a.id, b.id) for a, b in matches] == [("rocksdb-1-minalloc-64k", "rocksdb-3-minalloc-64k")]


def test_bluestore_tuning_steps_chain() -> None:
    steps = tables.load("bluestore_tuning_steps").set_index("id")
    assert list(steps.index) == [f"step-{n}" for n in range(5)]
    for n in range(1, 5):
        assert steps.at[f"step-{n}", "builds_on"] == f"step-{n - 1}"
        assert steps.at[f"step-{n}", "change"].startswith(("Default", f"Tuning-{n - 1}"))
    assert "min_alloc_size" in steps.at["step-1", "change"] and "NVME" in steps.at["step-3", "change"]
    assert steps["figure_missing"].all()


def test_bluestore_5node_results_and_claims() -> None:
    res = tables.load("bluestore_5node_results").set_index("id")
    cl = _claims()
    rr = res.loc["5node-4k-random-read"]
    assert round(rr["iops_K"] / 1000, 1) == cl.at["slides-5node-4k-rr-1-2m", "value"]
    assert round(rr["latency_ms"], 1) == cl.at["slides-5node-4k-rr-latency", "value"]
    assert rr["iops_K"] > cl.at["slides-sata-afa-over-1m-iops", "value"] * 1000
    assert res.at["5node-4k-random-write", "iops_K"] == cl.at["slides-5node-4k-rw-270k", "value"]
    assert res.at["5node-4k-random-write", "bottleneck"] == "cpu"
    assert set(res.loc[res["pattern"] == "sequential", "bottleneck"]) == {"nic_bandwidth"}
    # NIC-bound sequential reads: 5 nodes x 2 x 10 Gb/s is 12.5 GB/s raw, the result sits well below it
    hw = tables.load("hardware").set_index("id")
    nic_gbit = sum(
        int(c) * int(s)
        for c, s in re.findall(r"(\d+)x(\d+)", hw.at["slides-5node-client", "nic_ports_derived"])
    )
    clients = hw.at["slides-5node-client", "node_count"]
    assert res.at["5node-64k-seq-read", "bandwidth_MB_per_s"] < clients * nic_gbit * 1000 / 8


def test_rocksdb_on_ramdisk_does_not_help() -> None:
    rd = tables.load("bluestore_rocksdb_ramdisk").set_index("configuration")
    assert rd.loc["Baseline", "iops_K"] > rd.loc["RocksDB on Ramdisk", "iops_K"]
    assert rd.loc["Baseline", "cpu_idle_pct"] > rd.loc["RocksDB&WAL on Ramdisk", "cpu_idle_pct"]


# --- Ceph tuning guide (seeds 000/001) -----------------------------------------------------------


def test_guide_readahead_and_its_errata() -> None:
    ra = tables.load("guide_readahead").set_index("read_ahead_kb")
    assert ra.loc[128, "is_default"] and not ra.loc[512, "is_default"]
    gain = _pct(ra.loc[512, "seq_read_MB_per_s"], ra.loc[128, "seq_read_MB_per_s"])
    printed = _claims().at["readahead-163pct", "value"]
    assert int(gain) == printed == ra.loc[512, "change_vs_default_pct"]  # truncated, not rounded (163.9)
    errata = set(tables.load("errata")["id"])
    assert {"guide-readahead-2048-vs-512", "guide-readahead-163-pct"} <= errata
    assert _claims().at["readahead-2048-recommended", "value"] == 2048 not in ra.index


def test_the_guides_claims_carry_their_figures_and_qualifiers() -> None:
    cl = _claims()
    assert (cl.at["omap-on-ssd-20pct", "value"], cl.at["omap-on-ssd-20pct", "qualifier"]) == (20, "approx")
    assert (cl.at["ec-stripe-64k-cpu-10pct", "value"], cl.at["ec-stripe-64k-cpu-10pct", "qualifier"]) == (
        10,
        "at_least",
    )
    assert cl.at["four-osds-per-nvme", "value"] == 4
    tenfold = cl[(cl["unit"] == "x default") & (cl["value"] == 10)]
    assert len(tenfold) >= 5  # objecter, dispatch, journal queue, filestore queue, journal write throttles
    # claims resting on missing figures carry no invented numbers unless the text states one
    figs = cl[cl["figure_missing"]]
    assert len(figs) >= 15
    assert figs.loc[figs["qualifier"] == "none", "value"].isna().all()


def _tier_rows() -> pd.DataFrame:
    hw = tables.load("hardware")
    return hw[hw["setup"] == "guide-tiers"].set_index("tier")


def test_compiler_tiers_agree_with_the_published_tiers() -> None:
    """data/tiers/*.yaml (written by the lead from seed 000) against the hardware rows."""
    rows = _tier_rows()
    assert set(rows.index) == {"standard", "tco", "iops"}
    yaml = YAML(typ="safe")
    for tier in ("standard", "tco", "iops"):
        node = yaml.load((REPO / "data" / "tiers" / f"{tier}.yaml").read_text())["node"]
        row = rows.loc[tier]
        assert (
            row["cpu"]
            .replace("®", "")
            .replace("Intel Xeon CPU ", "")
            .startswith(node["cpu"].replace("Intel Xeon ", "").replace(" ", ""))
        ), tier
        assert node["cores"] == row["cpu_cores_per_socket_derived"], tier
        assert node["ram_gib"] == row["ram_GB"], tier
        nics = sorted((n["count"], n["speed_gbps"]) for n in node["nics"])
        published = sorted((int(c), int(s)) for c, s in re.findall(r"(\d+)x(\d+)", row["nic_ports_derived"]))
        assert nics == published, tier
        data_dev = node["data_devices"][0]
        assert data_dev["count"] == row["data_device_count_min"] == row["data_device_count_max"], tier
        assert data_dev["size_gb"] == row["data_device_capacity_GB_derived"], tier
        kind = {"hdd": "hdd", "sata_ssd": "sata-ssd", "nvme_ssd": "nvme"}[row["data_device_type"]]
        assert data_dev["type"] == kind, tier
        journals = node.get("db_devices") or []
        assert sum(d["count"] for d in journals) == row["journal_device_count"], tier
        for d in journals:
            assert d["size_gb"] == row["journal_device_capacity_GB_derived"] and d["type"] == "nvme", tier


def test_hardware_covers_every_published_setup() -> None:
    hw = tables.load("hardware")
    assert set(hw["setup"]) >= {
        "guide-tiers",
        "slides-suggested",
        "slides-nodes",
        "slides-5node-cluster",
        "sandisk-2node",
        "sandisk-6node",
        "lustre-lfs08",
        "lustre-lfs09",
        "lustre-clients",
    }
    assert set(hw.loc[hw["setup"] == "slides-nodes", "tier"]) == {"good", "better", "best"}
    assert (hw["data_device_count_min"] <= hw["data_device_count_max"]).all()
    lfs09 = hw.set_index("id").loc["lustre-lfs09-oss"]
    sp = tables.load("setup_parameters").set_index("id")
    # 8 OSS x 6 OSTs = 48 OSTs; 24 SSDs per OSS = 6 OSTs x 4 SSDs
    assert (
        lfs09["node_count"] * sp.at["lustre-lfs09-osts-per-oss", "value_number"]
        == sp.at["lustre-lfs09-osts-total", "value_number"]
    )
    assert (
        lfs09["data_device_count_max"] == 6 * sp.at["lustre-lfs09-ssds-per-logical-drive-ost", "value_number"]
    )
    assert lfs09["node_count"] * lfs09["ram_GB"] == sp.at["lustre-lfs09-oss-cache-total", "value_number"]


# --- every printed number is in its source passage -----------------------------------------------

WORDS = {"single": 1, "one": 1, "two": 2, "three": 3, "four": 4, "eight": 8}


def _numbers_in(text: str) -> set[float]:
    found = {float(n) for n in re.findall(r"\d+(?:\.\d+)?", text.replace(",", ""))}
    return found | {float(v) for w, v in WORDS.items() if re.search(rf"\b{w}\b", text, re.I)}


def _passage(shared: Path, source_id: str) -> str:
    src = tables.load("sources").set_index("id").loc[source_id]
    lines = (shared / "seeds" / src["seed_file"]).read_text().splitlines()
    return "\n".join(lines[int(src["line_start"]) - 1 : int(src["line_end"])])


def test_measured_numbers_appear_in_their_source_passage(shared: Path) -> None:
    """Spot-check every number of the small result tables against the seed lines its source_id names."""
    names = [
        "sandisk_ec_objects",
        "sandisk_recovery",
        "bluestore_5node_results",
        "bluestore_rocksdb_compaction",
        "bluestore_rocksdb_ramdisk",
        "guide_readahead",
    ]
    checked = 0
    for name in names:
        fields = tables.describe(name)["schema"]["fields"]
        numeric = [
            f["name"]
            for f in fields
            if f["type"] in ("number", "integer") and not f["name"].endswith("_derived")
        ]
        for row in tables.load(name).to_dict("records"):
            printed = _numbers_in(_passage(shared, row["source_id"]))
            for col in numeric:
                if pd.notna(row[col]) and col not in ("step",):
                    assert float(row[col]) in printed, (name, row["id"], col, row[col])
                    checked += 1
    assert checked > 100  # the check really ran over the tables


def test_setup_parameter_numbers_come_from_their_printed_text() -> None:
    sp = tables.load("setup_parameters")
    off = {
        r.id
        for r in sp.itertuples()
        if pd.notna(r.value_number) and r.value_number not in _numbers_in(r.value_text)
    }
    # the only values not literally in their text, each a stated conversion of it
    assert off == {
        "lustre-lfs08-drive-speed",  # "15K" RPM
        "guide-recommendations-objecter-inflight-op-bytes-default",  # "1024*1024*100"
    }


def test_hardware_numbers_come_from_the_printed_columns() -> None:
    hw = tables.load("hardware")
    pairs = [
        ("ram_GB", "ram"),
        ("cpu_ghz", "cpu"),
        ("cpu_cores_per_socket", "cpu"),
        ("cpu_sockets", "cpu"),
        ("data_device_count_min", "data_devices"),
        ("data_device_count_max", "data_devices"),
    ]
    off = set()
    for r in hw.to_dict("records"):
        for num, text in pairs:
            if pd.notna(r[num]) and float(r[num]) not in _numbers_in(str(r[text])):
                off.add((r["id"], num))
    # lfs09's MDT is printed "2 x 7 SSDs" (14); the Lustre OSS lists 24 SSDs in the layout text, not here
    assert off == {
        ("lustre-lfs09-mds", "data_device_count_min"),
        ("lustre-lfs09-mds", "data_device_count_max"),
        ("lustre-lfs09-oss", "data_device_count_min"),
        ("lustre-lfs09-oss", "data_device_count_max"),
    }


def test_small_tables_have_the_printed_number_of_rows(shared: Path) -> None:
    """Row counts follow from the printed tables' lines (found by pattern, not by trusting the CSVs)."""

    def count(source_id: str, pattern: str) -> int:
        return sum(bool(re.match(pattern, line.strip())) for line in _passage(shared, source_id).splitlines())

    assert len(tables.load("bluestore_5node_results")) == count(
        "slides-5node-results", r"^(4K|64K) (Random|Sequential) (Read|Write) \d+K? (IOPS|MB/s)"
    )
    steps = count("slides-rocksdb-compaction", r"^[a-z ]+ \d+ \d+$")  # step label, 4K value, 64K value
    assert steps == 4 and len(tables.load("bluestore_rocksdb_compaction")) == steps * 2
    assert len(tables.load("bluestore_rocksdb_ramdisk")) == count(
        "slides-rocksdb-ramdisk", r"^[A-Za-z& ]+ \d+K \d+%$"
    )
    assert len(tables.load("bluestore_tuning_steps")) == count(
        "slides-tuning-dashboard", r"^(Default /|Tuning-\d )"
    )
    recovery_notes = sum(
        count(s, r"^(- |- a\. |Note: )Recovery/rebalancing time")
        for s in (
            "sandisk-recovery-osd-out",
            "sandisk-recovery-osd-in",
            "sandisk-recovery-chassis-out",
            "sandisk-recovery-chassis-in",
        )
    )
    assert len(tables.load("sandisk_recovery")) == recovery_notes == 4

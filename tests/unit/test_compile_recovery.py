"""Issue 26 class 5: explain.md estimates the recovery time per device class with the op queue and mclock profile
the compile leaves in place, from Ceph's own defaults (data/layout/layout.yaml `recovery`), with its arithmetic."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashtune.compile.layout import layout_data
from flashtune.compile.pipeline import CompileRequest, compile_bundle
from flashtune.errors import FlashtuneError

MiB = 1 << 20
RULES = layout_data()["recovery"]


def _section(text: str) -> str:
    start = text.index("## Recovery time (estimate)")
    return text[start : text.index("\n## ", start + 5)]


@pytest.mark.parametrize(
    ("release", "queue"), [("pacific", "wpq"), ("quincy", "mclock"), ("tentacle", "mclock")]
)
@pytest.mark.parametrize("tier", ["iops", "tco", "standard"])
def test_the_estimate_names_the_release_s_queue_and_profile(tier: str, release: str, queue: str) -> None:
    b = compile_bundle(CompileRequest(workload="block", tier=tier, ceph_release=release))
    est, text = b.shape["recovery"], _section(b.files["explain.md"])
    assert est["queue"] == queue
    if queue == "wpq":  # Pacific: no mclock profile applies, whatever the option says
        assert est["profile"] is None and "wpq" in text and "high_client_ops" not in text.split("(sources")[0]
    else:  # the profile the compile emits (release-mclock: high_client_ops), with its reservation
        assert est["profile"] == "high_client_ops" and "40% reserved for recovery" in text
    cls = "hdd" if tier == "standard" else "ssd"
    assert est["device_class"] == cls and f"mclock class {cls}" in text


def test_the_arithmetic_is_the_stated_one() -> None:
    """Standard tier on Tentacle: 4 TB HDDs at 85 % = 3.4 TB per OSD; high_client_ops reserves 40 % of
    150 MiB/s = 60 MiB/s per OSD for recovery (105 MiB/s as best-effort backfill at the 70 % limit); a
    replicated rebuild reads and writes each byte once: 2 x 3.4e12 B / (59 OSDs x 60 MiB/s) = 30.5 min."""
    b = compile_bundle(CompileRequest(workload="block", tier="standard"))
    one_osd, one_host = b.shape["recovery"]["cases"]
    assert one_osd.lost_bytes == pytest.approx(4000e9 * 0.85)
    assert (one_osd.busy_mib_s, one_osd.idle_mib_s) == (pytest.approx(60), pytest.approx(105))
    assert (
        one_osd.osds == 59
        and one_host.osds == 48
        and one_host.lost_bytes == pytest.approx(12 * 4000e9 * 0.85)
    )
    assert one_osd.seconds(busy=True) == pytest.approx(2 * 3.4e12 / (59 * 60 * MiB))
    assert (
        "| one OSD | 3.40 TB | 59 | 31 min (60 MiB/s per OSD) | 17 min (105 MiB/s per OSD)"
        in b.files["explain.md"]
    )
    pacific = compile_bundle(CompileRequest(workload="block", tier="standard", ceph_release="pacific"))
    # wpq on HDD: 3 ops of 4 MiB per 0.1 s recovery sleep = 120 MiB/s, below the 150 MiB/s device figure
    assert pacific.shape["recovery"]["cases"][0].busy_mib_s == pytest.approx(120)


def test_erasure_coding_reads_k_chunks_per_rebuilt_byte_and_no_spare_host_says_so() -> None:
    ec = compile_bundle(CompileRequest(workload="block", tier="iops", ec=(4, 2), nodes=7))
    case = ec.shape["recovery"]["cases"][0]
    assert (case.io_per_byte, case.net_per_byte) == (5, 4)
    tight = compile_bundle(CompileRequest(workload="block", tier="iops", nodes=3))
    host = tight.shape["recovery"]["cases"][1]
    assert not host.possible and "no spare host" in _section(tight.files["explain.md"])


def test_a_slow_data_device_caps_mclocks_figure() -> None:
    # a SATA SSD writes 440 MB/s (the tco tier's data sheet default): mclock's 1200 MiB/s is not reachable
    b = compile_bundle(CompileRequest(workload="block", tier="tco"))
    assert b.shape["recovery"]["cases"][0].busy_mib_s == pytest.approx(0.4 * 440e6 / MiB)


def test_the_figures_are_upstreams_defaults(shared: Path) -> None:
    """Every number of layout.yaml `recovery` against the upstream option files of each release."""
    root = shared / "reference" / "ceph-options"

    def default(folder: str, name: str) -> str:
        for f in ("osd.yaml.in", "global.yaml.in", "mon.yaml.in"):
            path = root / folder / f
            if path.exists():
                m = re.search(rf"- name: {name}\n(?:  .*\n)*?  default: (\S+)", path.read_text())
                if m:
                    return m[1]
        raise AssertionError((folder, name))

    mclock = RULES["mclock"]
    for folder in ("quincy-17.2.7", "reef-18.2.7", "tentacle-20.2.4"):
        assert (
            default(folder, "osd_mclock_max_sequential_bandwidth_hdd")
            == f"{mclock['bandwidth_mib_s']['hdd']}_M"
        )
        assert (
            default(folder, "osd_mclock_max_sequential_bandwidth_ssd")
            == f"{mclock['bandwidth_mib_s']['ssd']}_M"
        )
        assert default(folder, "osd_mclock_profile") == mclock["default_profile"]
    raw: Any = json.loads((root / "pacific-16.2.15.json").read_text())
    listed = raw.get("options", raw) if isinstance(raw, dict) else raw
    items = listed if isinstance(listed, dict) else {o["name"]: o for o in listed}
    wpq = RULES["wpq"]
    for name, want in (
        ("osd_op_queue", "wpq"),
        ("osd_recovery_max_active_hdd", wpq["recovery_max_active"]["hdd"]),
        ("osd_recovery_max_active_ssd", wpq["recovery_max_active"]["ssd"]),
        ("osd_recovery_sleep_hdd", wpq["recovery_sleep_s"]["hdd"]),
        ("osd_recovery_sleep_ssd", wpq["recovery_sleep_s"]["ssd"]),
        ("mon_osd_nearfull_ratio", RULES["fill"]),
        ("mon_osd_down_out_interval", RULES["down_out_interval_s"]),
    ):
        assert str(items[name]["default"]) == str(want) or float(items[name]["default"]) == float(want), name


hardware = st.fixed_dictionaries(
    {
        "drives": st.integers(1, 36),
        "size": st.integers(100, 30000),
        "nodes": st.integers(3, 40),
        "type": st.sampled_from(["nvme", "sata-ssd", "hdd"]),
        "nic": st.sampled_from([10, 25, 100]),
        "release": st.sampled_from(["pacific", "reef", "tentacle"]),
    }
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hw=hardware)
def test_random_hardware_gets_an_estimate_that_grows_with_the_data(
    tmp_path: Path, hw: dict[str, Any]
) -> None:
    doc = {
        "name": "random",
        "node": {
            "cores": 64,
            "ram_gib": 1024,
            "nics": [{"count": 2, "speed_gbps": hw["nic"]}],
            "data_devices": [{"count": hw["drives"], "type": hw["type"], "size_gb": hw["size"]}],
            "db_devices": [{"count": 2, "type": "nvme", "size_gb": 16000}] if hw["type"] == "hdd" else [],
        },
        "cluster": {"nodes": hw["nodes"]},
    }
    path = tmp_path / "hw.yaml"
    path.write_text(yaml.safe_dump(doc))
    try:
        b = compile_bundle(
            CompileRequest(workload="block", tier=None, hardware_file=path, ceph_release=hw["release"])
        )
    except FlashtuneError:
        return
    one_osd, one_host = b.shape["recovery"]["cases"]
    assert one_host.lost_bytes >= one_osd.lost_bytes > 0
    assert one_host.seconds(busy=True) >= one_osd.seconds(busy=True) * 0.99
    assert one_osd.seconds(busy=True) >= one_osd.seconds(busy=False)  # busy is never faster than idle
    assert "## Recovery time (estimate)" in b.files["explain.md"]

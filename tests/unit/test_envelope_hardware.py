"""`flashtune envelope --hardware` on hardware shaped like users' own clusters (tests/fixtures/userhw/: none
of them a shipped tier or a published set-up): physically sane figures, ranges that respect every resource,
the outside-calibration notes, and bad files refused with file:line."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from flashtune.cli.main import main
from flashtune.envelope import report
from flashtune.envelope.ceilings import RESOURCE_CLASS
from flashtune.envelope.cluster import load_cluster
from flashtune.model import Protection

USERHW = Path(__file__).parents[1] / "fixtures" / "userhw"
FILES = sorted(USERHW.glob("*.yaml"))
VARIANTS: tuple[tuple[str, ...], ...] = ((), ("--ec", "4+2"), ("--replication", "2"))


def envelope_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["envelope", *args, "--format", "json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def numbers(x: Any) -> list[float]:
    if isinstance(x, bool):
        return []
    if isinstance(x, (int, float)):
        return [float(x)]
    if isinstance(x, dict):
        return [n for v in x.values() for n in numbers(v)]
    if isinstance(x, list):
        return [n for v in x for n in numbers(v)]
    return []


def test_the_user_fixtures_are_not_shipped_tiers_or_published_set_ups() -> None:
    assert len(FILES) >= 6
    names = {p.stem for p in FILES}
    assert not names & {"iops", "standard", "tco"}
    assert not names & {p.stem for p in Path(report.__file__).parents[3].glob("data/envelope/setups/*.yaml")}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
@pytest.mark.parametrize("extra", VARIANTS, ids=lambda v: " ".join(v) or "as-written")
def test_every_figure_is_finite_and_every_range_holds_its_point(
    path: Path, extra: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    c = load_cluster(path)
    width = {"--ec": lambda v: sum(int(x) for x in v.split("+")), "--replication": int}
    if extra and width[extra[0]](extra[1]) > c.nodes * c.osds_per_node:  # e.g. EC 4+2 on the one-drive lab
        assert main(["envelope", "--hardware", str(path), *extra]) == 2
        return
    doc = envelope_json(capsys, "--hardware", str(path), *extra)
    k = report.constants()
    for case in doc["cases"]:
        figures = numbers({key: v for key, v in case.items() if key != "read_fraction"})
        assert all(math.isfinite(n) and n >= 0 for n in figures), case
        assert case["predicted_IOPS"] > 0
        lo, hi = case["range_IOPS"]
        assert lo <= case["predicted_IOPS"] <= hi, case
        # no resource's real ceiling lies above its ceiling times its class's validated high end
        for r, v in case["ceilings_IOPS"].items():
            if v is not None:
                assert hi <= (v + 1) * k.ranges[RESOURCE_CLASS[r]][1] + 1, (case["case"], r)


def test_a_range_never_passes_the_line_rate_of_a_wire_the_limit_does_not_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The tco tier's 4K reads are limited by its SATA drives, but 6 clients with one 10 Gb/s port each cannot
    move more than 6 x 10e9 / 8 / 4096 = 1,831,055 4 KiB reads per second whatever the drives do: the range's
    high end stays below that (it was the media limit times the media class's ratio, 2.58 M)."""
    doc = envelope_json(capsys, "--tier", "tco")
    randread = doc["cases"][0]
    assert randread["limit"] == "media"
    line_rate = 6 * 10e9 / 8 / 4096
    assert randread["range_IOPS"][1] < line_rate
    assert randread["range_ratio"][1] == pytest.approx(
        randread["range_IOPS"][1] / randread["predicted_IOPS"], abs=1e-3
    )
    # the validated network ratios leave the wire's payload under its line rate in every link class
    k = report.constants()
    for eff in (*k.net_by_class.values(), *k.net_write_by_class.values(), k.net_efficiency):
        assert eff * k.ranges["network"][1] < 1


# ---- bad files


def test_the_schema_and_the_reader_know_the_same_fields() -> None:
    """envelope.schema.json's hardware definition refuses other fields (additionalProperties) and lists exactly
    the fields hardware.FIELDS lets through, mapping by mapping."""
    from flashtune.hardware import FIELDS
    from flashtune.paths import data_path

    defs = json.loads(Path(data_path("envelope/envelope.schema.json")).read_text())["$defs"]
    figures = set(defs["drive_figures"]["properties"])
    top = defs["hardware"]
    node, cluster = top["properties"]["node"], top["properties"]["cluster"]["properties"]
    groups = {g: node["properties"][g]["items"] for g in ("nics", "data_devices", "db_devices")}
    schema = {
        "the file": set(top["properties"]),
        "node": set(node["properties"]),
        "node.nics": set(groups["nics"]["properties"]),
        "node.data_devices": set(groups["data_devices"]["properties"]) | figures,
        "node.db_devices": set(groups["db_devices"]["properties"]) | figures,
        "node.media_link": set(node["properties"]["media_link"]["properties"]),
        "cluster": set(cluster),
        "cluster.gateways": set(cluster["gateways"]["properties"]),
        "cluster.colocated": set(cluster["colocated"]["properties"]),
        "cluster.protection": {k for b in cluster["protection"]["oneOf"] for k in b["properties"]},
    }
    assert schema == {k: set(v) for k, v in FIELDS.items()}
    closed = [
        top,
        node,
        top["properties"]["cluster"],
        groups["nics"],
        cluster["gateways"],
        cluster["colocated"],
    ]
    assert all(m.get("additionalProperties") is False for m in closed)
    assert all(groups[g].get("unevaluatedProperties") is False for g in ("data_devices", "db_devices"))


BASE = """\
node:
  cores: 8
  ram_gib: 64
  nics: [{count: 2, speed_gbps: 25}]
  data_devices:
    - {count: 4, type: nvme, size_gb: 1000}
cluster:
  nodes: 3
"""


def _refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> tuple[Path, int, str]:
    """`text` as a hardware file that `flashtune envelope` refuses (exit 2): the file, the line of the first
    edit to BASE (else the last line) and what was printed on stderr."""
    f = tmp_path / "my.yaml"
    f.write_text(text)
    edited = [i for i, ln in enumerate(text.splitlines(), 1) if ln not in BASE.splitlines()]
    assert main(["envelope", "--hardware", str(f)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return f, (edited[0] if edited else len(text.splitlines())), err


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        # a misspelt field used to be read as absent: nodes 3 (the default), no co-located clients, role both
        ("nodes: 3", "nodess: 3", "unknown field 'nodess' in cluster\n  hint: did you mean 'nodes'?"),
        ("nodes: 3", "nodes: 3\n  colocated: {client: true}", "unknown field 'client' in cluster.colocated"),
        ("speed_gbps: 25}", "speed_gbps: 25, rol: public}", "unknown field 'rol' in node.nics"),
        ("size_gb: 1000}", "size_gb: 1000, read_iop: 9}", "hint: did you mean 'read_iops'?"),
        ("  cores: 8", "  cores: 8\n  cpu_ghzz: 2.0", "unknown field 'cpu_ghzz' in node"),
        ("cluster:", "relase: reef\ncluster:", "unknown field 'relase' in the file"),
        ("nics: [{count: 2, speed_gbps: 25}]", "nic: [{count: 2, speed_gbps: 25}]", "did you mean 'nics'?"),
        (
            "nodes: 3",
            "nodes: 3\n  protection: {replicated: 3, erasure: [4, 2]}",
            "names replicated and erasure",
        ),
        # a NIC that is not a mapping used to be skipped without a word
        ("[{count: 2, speed_gbps: 25}]", "[{count: 2, speed_gbps: 25}, 100]", "a NIC must be a mapping"),
        ("nics: [{count: 2, speed_gbps: 25}]", "nics: {count: 2, speed_gbps: 25}", "'nics' must be a list"),
    ],
)
def test_a_misspelt_or_misshapen_field_is_a_file_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, says: str
) -> None:
    assert old in BASE
    f, line, err = _refused(tmp_path, capsys, BASE.replace(old, new, 1))
    assert err.startswith(f"{f}:{line}: error: ") and says in err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ("--hardware", str(USERHW / "lab-1node.yaml"), "--ec", "4+2"),
            "error: a pool of EC 4+2 needs 6 OSDs, one for each chunk",
        ),
        (("--hardware", str(USERHW / "sata-3node-rep2.yaml"), "--replication", "5000"), "the cluster has 12"),
        (("--hardware", str(USERHW / "sata-3node-rep2.yaml"), "--ec", "10+4"), "EC 10+4 needs 14 OSDs"),
        (("--tier", "iops", "--nodes", "1", "--ec", "4+2"), "the cluster has 4 (1 x 4 per node)"),
    ],
)
def test_a_pool_wider_than_the_cluster_has_osds_has_no_envelope(
    args: tuple[str, ...], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ceilings for a pool CRUSH cannot place (it printed 641 4K writes a second for EC 10+4 on one drive). A PG
    short of OSDs is undersized, and active still at min_size or more: the error said none could go active."""
    assert main(["envelope", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and "hint: a pool at most" in err and "Traceback" not in err
    assert "would all stay undersized (and inactive below min_size)" in err and "go active" not in err


def test_a_hardware_files_own_pool_too_wide_names_its_protection_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f, line, err = _refused(tmp_path, capsys, BASE + "  protection: {replicated: 40}\n")
    assert line == 9 and err.startswith(
        f"{f}:9: error: a pool of 40 replicas needs 40 OSDs, one for each copy"
    )
    # as wide as the OSDs (3 nodes x 4 drives) is fine: failure domain OSD, the relay crosses (n-1)/n
    f.write_text(BASE + "  protection: {erasure: [8, 4]}\n")
    assert main(["envelope", "--hardware", str(f)]) == 0


def test_one_node_one_drive_reads_in_the_singular(capsys: pytest.CaptureFixture[str]) -> None:
    doc = envelope_json(capsys, "--hardware", str(USERHW / "lab-1node.yaml"))
    assert doc["shape"].startswith("1 node x (1 x 4 cores") and ", 1 replica," in doc["shape"]
    # nothing crosses a wire on one node with its clients on it: no network ceiling, and no zero one
    for case in doc["cases"]:
        assert case["ceilings_IOPS"]["public network"] is None and case["predicted_IOPS"] > 0


# ---- outside what the model was calibrated on

OUTSIDE = {
    "arm-pi-5node": {"cores per node", "clock (GHz)", "fastest storage port (Gb/s)", "client port (Gb/s)"},
    "gen5-8node-200g": {"cores per node", "clock (GHz)", "fastest storage port (Gb/s)"},
    "hdd-nvme-db": {"data drive type"},
    "lab-1node": {"cores per node", "clock (GHz)", "fastest storage port (Gb/s)", "replicas"},
    "many-cores-per-osd": {"cores per node", "cores per OSD"},
    "node-400g": {"cores per node", "fastest storage port (Gb/s)", "client port (Gb/s)"},
    "rgw-ec83-colocated": set(),
    "sata-3node-rep2": {"cores per node"},
}


def outside(notes: list[str]) -> set[str]:
    """The figures the outside-calibration notes name."""
    prefix = "outside the calibrated range: "
    return {n[len(prefix) :].split(" (published")[0].rsplit(" ", 1)[0] for n in notes if n.startswith(prefix)}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_figure_outside_the_published_set_ups_is_named(path: Path) -> None:
    assert outside(report.envelope_dict(load_cluster(path))["notes"]) == OUTSIDE[path.stem]


def test_the_shipped_tiers_lie_inside_except_the_standard_tiers_hard_drives() -> None:
    """No published Ceph set-up the model was checked on has hard drives for data (the one that does,
    lustre-lfs08, is Lustre): the standard tier's HDDs are outside, and say so."""
    from flashtune.envelope.cluster import tier_cluster

    assert outside(report.envelope_dict(tier_cluster("iops"))["notes"]) == set()
    assert outside(report.envelope_dict(tier_cluster("tco"))["notes"]) == set()
    assert outside(report.envelope_dict(tier_cluster("standard"))["notes"]) == {"data drive type"}


def test_every_figure_is_compared_with_a_span_computed_from_the_published_set_ups() -> None:
    """The whole class: every figure the notes compare has a span over the headlines' set-ups, and the spans
    are those set-ups' own (the widest and narrowest of each), not numbers written down."""
    from dataclasses import replace

    from flashtune.envelope.calibrate import cluster_for
    from flashtune.envelope.observations import headlines

    span = report.calibrated_span()
    clusters = [cluster_for(h) for h in headlines() if cluster_for(h).software == "ceph"]
    every = {key for c in clusters for key, v in report._figures(c).items() if v is not None}
    assert set(span) == every
    assert span["cores per OSD"] == (
        min(c.sockets * c.cores / c.osds_per_node for c in clusters),
        max(c.sockets * c.cores / c.osds_per_node for c in clusters),
    )
    assert span["data drive type"] == {g.type for c in clusters for g in c.drives}
    # a release, an EC width and OSDs per drive no set-up had are named too
    base = clusters[0]
    odd = replace(
        base,
        release="nautilus",
        protection=Protection("erasure", 1, 10, 4),
        osds_per_device=4,
        osd_cpu_cores=0.25,  # a container's CPU limit counts as the OSD's cores
        gateways=2,
        gateway_gbps=400,
    )
    assert outside(report.calibration_notes(odd)) >= {
        "Ceph release",
        "EC data chunks (k)",
        "EC coding chunks (m)",
        "OSDs per data device",
        "cores per OSD",
        "gateway node port (Gb/s)",
    }


def test_a_file_without_a_release_says_whose_cpu_costs_stand_in() -> None:
    """The cost family of a BlueStore cluster without a release is today's (quincy): a Nautilus cluster whose
    file leaves the release out was given Quincy's cheaper costs without a word."""
    lab = report.envelope_dict(load_cluster(USERHW / "lab-1node.yaml"))["notes"]
    assert any(
        n.startswith("release not given: the CPU costs of today's releases (quincy, reef") for n in lab
    )
    sata = report.envelope_dict(load_cluster(USERHW / "sata-3node-rep2.yaml"))["notes"]  # release: reef
    assert not any(n.startswith("release not given") for n in sata)


def test_text_and_json_tell_a_bound_from_an_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    """The limit's kind is a column (and a JSON field); the other resources' headroom marks the estimates too
    (the text listed 'cpu +984 %' beside 'media +133 %' as if both were as firm)."""
    path = str(USERHW / "sata-3node-rep2.yaml")
    doc = envelope_json(capsys, "--hardware", path)
    assert main(["envelope", "--hardware", path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "limit_kind" in lines[1] and "headroom (*: estimate, else bound)" in lines[1]
    for case, line in zip(doc["cases"], lines[2:6], strict=True):
        assert line.startswith(case["case"]) and f"  {case['limit_kind']}  " in line
        assert case["kinds"]["cpu"] == "estimate" and case["kinds"]["media"] == "bound"
        if "cpu" not in case["limit_resources"]:
            assert "cpu* +" in line
        if "media" not in case["limit_resources"]:
            assert "media +" in line and "media*" not in line


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("ram_gib: 64", "ram_gib: 64\n  cpu_ghz: 0.0022", "'cpu_ghz' is 0.0022, less than 0.1"),
        ("size_gb: 1000}", "size_gb: 1000, read_mb_s: 3.5}", "'read_mb_s' is 3.5, less than 20"),
        ("size_gb: 1000}", "size_gb: 1000, write_iops: 0.5}", "'write_iops' is 0.5, less than 10"),
        ("speed_gbps: 25}", "speed_gbps: 0.001}", "'speed_gbps' is 0.001, less than 0.01"),
        # the clients' shared uplink caps every client-network ceiling as a port does
        (
            "nodes: 3",
            "nodes: 3\n  client_network_gbps: 0.008",
            "'client_network_gbps' is 0.008, less than 0.01",
        ),
    ],
)
def test_a_figure_too_small_for_any_machine_is_a_unit_slip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, says: str
) -> None:
    """1e9 drives was refused as more than any machine has; a clock of 0.0022 GHz (2.2 MHz) or a port of
    1 Mb/s gave a ceiling a thousand times too low without a word."""
    f, line, err = _refused(tmp_path, capsys, BASE.replace(old, new, 1))
    assert err.startswith(f"{f}:{line}: error: ") and says in err and "hint: check" in err


@pytest.mark.parametrize("value", ["9" * 400, "-" + "9" * 400, "0x" + "f" * 5000, "0o" + "7" * 600])
def test_a_whole_number_too_large_for_a_float_is_a_file_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """A 400-digit count (or a long hex one) was an OverflowError traceback from math.isfinite."""
    f, line, err = _refused(tmp_path, capsys, BASE.replace("cores: 8", f"cores: {value}", 1))
    assert (
        line == 2 and err.startswith(f"{f}:{line}: error: 'cores' is a number of about ") and "digits" in err
    )


@pytest.mark.parametrize(
    ("layout", "says"),
    [
        ("{placement: all}", "'layout.placement' must be a mapping"),
        ("{placement: [mon]}", "'layout.placement' must be a mapping"),
        ("{memory_gib: 8}", "'layout.memory_gib' must be a mapping"),
        ("{memory_gib: [rgw, 8]}", "'layout.memory_gib' must be a mapping"),
        # a misspelt workload placed nothing, without a word
        ("{placement: {rgww: [rgw]}}", "layout.placement.rgww: 'rgww' is not 'all' or a workload"),
    ],
)
def test_a_layout_override_of_the_wrong_shape_is_a_file_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str, says: str
) -> None:
    """placement: or memory_gib: that is not a mapping was an AttributeError traceback."""
    f, line, err = _refused(tmp_path, capsys, BASE + f"layout: {layout}\n")
    assert err.startswith(f"{f}:{line}: error: {says}"), err


@pytest.mark.parametrize("value", ["'false'", "'no'", "1", "false", "null"])
def test_protection_none_is_a_pool_without_copies_only_when_true(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """{none: 'false'} (any non-empty string, any non-zero number) was read as no protection at all."""
    f, line, err = _refused(tmp_path, capsys, BASE + f"  protection: {{none: {value}}}\n")
    assert err.startswith(f"{f}:{line}: error: 'none' must be true"), err
    f.write_text(BASE + "  protection: {none: true}\n")
    assert main(["envelope", "--hardware", str(f), "--format", "json"]) == 0


@pytest.mark.parametrize("ec", ["", " "])
def test_an_empty_ec_flag_is_refused_not_ignored(ec: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--ec '' (an unset shell variable) printed the file's own protection's ceilings, exit 0."""
    assert main(["envelope", "--hardware", str(USERHW / "sata-3node-rep2.yaml"), "--ec", ec]) == 2
    assert capsys.readouterr().err.startswith(f"error: --ec {ec!r} is not K+M")


@pytest.mark.parametrize(
    ("protection", "flag", "says"),
    [
        (
            "{erasure: [1, 1]}",
            None,
            "'erasure' k is 1: Ceph's erasure-code profiles need at least 2 data chunks",
        ),
        ("{erasure: [1, 2]}", None, "'erasure' k is 1"),
        ("{erasure: [4, 0]}", None, "'erasure m' must be a positive number"),  # was named 'count'
        ("{erasure: [4.5, 2]}", None, "'erasure k' must be a whole number"),
        (
            "{replicated: 3}",
            "1+1",
            "--ec 1+1: k is 1: Ceph's erasure-code profiles need at least 2 data chunks",
        ),
    ],
)
def test_an_erasure_code_ceph_refuses_has_no_envelope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], protection: str, flag: str | None, says: str
) -> None:
    """EC 1+1 (Ceph's ErasureCode::sanity_check_k_m: 'k=1 must be >= 2', as compile-config's --ec) printed
    ceilings, exit 0; a bad k or m was called 'count'."""
    f = tmp_path / "my.yaml"
    text = BASE + f"  protection: {protection}\n"
    f.write_text(text)
    assert main(["envelope", "--hardware", str(f), *(("--ec", flag) if flag else ())]) == 2
    err = capsys.readouterr().err
    where = "" if flag else f"{f}:{len(text.splitlines())}: "
    assert err.startswith(f"{where}error: {says}"), err


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("    - {count: 4, type: nvme, size_gb: 1000}", "    - nvme"),
        ("    - {count: 4, type: nvme, size_gb: 1000}", "    - 4"),
        ("    - {count: 4, type: nvme, size_gb: 1000}", "    - {count: 4, type: nvme, size_gb: 1000}\n    -"),
        ("cluster:", "  db_devices: [nvme]\ncluster:"),
    ],
)
def test_a_drive_entry_that_is_not_a_mapping_says_so_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str
) -> None:
    """`- nvme` under data_devices said "device type None is not one of hdd, sata-ssd, nvme"."""
    text = BASE.replace(old, new, 1)
    f, _, err = _refused(tmp_path, capsys, text)
    line = max(i for i, ln in enumerate(text.splitlines(), 1) if ln not in BASE.splitlines())  # the entry
    assert (
        err.startswith(f"{f}:{line}: error: a ") and "entry must be a mapping {count, type, size_gb}" in err
    )


@pytest.mark.parametrize("key", ["software", "objectstore", "release"])
def test_a_choice_left_empty_is_a_file_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    """`software:` with no value became the software 'None': the CPU ceiling was dropped ('calibrated on
    Ceph OSDs, not None'), exit 0."""
    f, _, err = _refused(tmp_path, capsys, f"{key}:\n" + BASE)
    assert err.startswith(f"{f}:1: error: {key} has no value")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("name:\n" + BASE, "'name' must be text, got None"),
        ("name: [a, b]\n" + BASE, "'name' must be text, got ['a', 'b']"),
        ("source: {url: x}\n" + BASE, "'source' must be text"),
        ("description: true\n" + BASE, "'description' must be text, got True"),
        ("study: [x]\n" + BASE, "'study' must be text"),
        (BASE.replace("  cores: 8", "  cpu: [EPYC]\n  cores: 8"), "'cpu' must be text"),
    ],
)
def test_a_descriptive_field_that_is_not_text_is_a_file_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, says: str
) -> None:
    """An empty name: was the cluster 'None' (and the cephadm service id); a list its Python repr."""
    f, line, err = _refused(tmp_path, capsys, text)
    assert err.startswith(f"{f}:{line}: error: {says}")
    f.write_text("name: 42\n" + BASE)  # a number is its text
    assert main(["envelope", "--hardware", str(f), "--format", "json"]) == 0


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ("--validation", "--hardware", "my.yaml"),
            "--validation lists data of its own: --hardware would be",
        ),
        (
            ("--drives", "--tier", "tco", "--ec", "4+2"),
            "--drives lists data of its own: --tier, --ec would be",
        ),
        (("--drives", "--validation"), "--drives lists data of its own: --validation would be"),
        (("--validation", "--results", "r.csv"), "--validation lists data of its own: --results would be"),
    ],
)
def test_a_listing_refuses_the_cluster_flags_it_would_ignore(
    args: tuple[str, ...], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--validation --hardware my.yaml printed the published headlines, exit 0, the file never read."""
    assert main(["envelope", *args]) == 2
    assert capsys.readouterr().err.startswith(f"error: {says}")


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("nodes: 3", "nodes: 3\n  client_ram_gib: 0.001", "'client_ram_gib' is 0.001, less than 1"),
        ("ram_gib: 64", "ram_gib: 0.064", "'ram_gib' is 0.064, less than 1"),
    ],
)
def test_memory_below_a_gibibyte_is_a_unit_slip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, says: str
) -> None:
    """client_ram_gib: 0.001 sized the database host's buffer pool from a megabyte, exit 0, where
    compile-config's --db-ram-gib refuses less than 1."""
    f, line, err = _refused(tmp_path, capsys, BASE.replace(old, new, 1))
    assert err.startswith(f"{f}:{line}: error: {says}") and "hint: check" in err


@pytest.mark.parametrize("value", ["x", "8", "true"])
def test_a_layout_that_is_a_plain_value_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    """`layout: x` named the file without a line (a plain value has no line of its own)."""
    f, line, err = _refused(tmp_path, capsys, BASE + f"layout: {value}\n")
    assert err.startswith(f"{f}:{line}: error: 'layout' must be a mapping"), err


@pytest.mark.parametrize("nics", ["nics: []", "nics:"])
def test_no_nics_names_the_nics_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], nics: str) -> None:
    """An empty nics: was reported at the node: line above it."""
    f, line, err = _refused(tmp_path, capsys, BASE.replace("nics: [{count: 2, speed_gbps: 25}]", nics, 1))
    assert (
        line == 4 and err.startswith(f"{f}:4: error: 'nics' must list at least one") and "hint: e.g." in err
    )


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ('"evil\\n[global]\\nosd_pool_default_size = 1"', "U+000A"),
        ('"a\\tb"', "U+0009"),
        ('"\\e[31mred"', "U+001B"),
        ('"abc\\u202efdp.exe"', "U+202E"),
        ('"a\\u2028b"', "U+2028"),
    ],
)
def test_a_name_that_is_not_one_line_of_plain_text_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, code: str
) -> None:
    """name: "evil\\n[global]\\n..." printed '[global]' as a line of its own in explain.md's title and the
    envelope's header; a terminal escape or a bidirectional override went out as it was."""
    f, _, err = _refused(tmp_path, capsys, f"name: {value}\n" + BASE)
    assert err.startswith(f"{f}:1: error: 'name' holds the character {code}: it must be one line"), err
    f.write_text('name: "Ceph-Cluster Süd 🚀"\ndescription: "two\\nlines"\n' + BASE)  # other text is fine
    assert main(["envelope", "--hardware", str(f), "--format", "json"]) == 0


def test_a_drive_model_that_is_not_one_line_of_plain_text_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The model is printed in the cluster's shape ('4 x <model>', explain.md and the envelope's header): a
    line break in it printed what followed as a line of its own."""
    text = BASE.replace("size_gb: 1000}", 'size_gb: 1000, model: "PM983\\n# injected"}', 1)
    f, line, err = _refused(tmp_path, capsys, text)
    assert line == 6 and err.startswith(f"{f}:6: error: 'model' holds the character U+000A"), err


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("cores: 8", "cores: " + "x" * 1_000_000),
        ("cores: 8", "cores: [" + ", ".join(["1"] * 100_000) + "]"),
        ("speed_gbps: 25}", "speed_gbps: 25, role: " + "p" * 1_000_000 + "}"),
        ("cores: 8", "cores: 8\n  " + "k" * 1000 + ": 1"),  # YAML keys stop at 1024 characters
    ],
)
def test_a_huge_value_is_shown_cut_short_in_the_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str
) -> None:
    """A pasted megabyte was echoed whole: a one-line error a megabyte long."""
    f, _, err = _refused(tmp_path, capsys, BASE.replace(old, new, 1))
    assert err.startswith(f"{f}:") and len(err) < 600 and " characters)" in err, err[:300]


@pytest.mark.parametrize(
    ("old", "new", "hint"),
    [
        ("cores: 8", "cores: -8", "give cores a value greater than 0"),
        ("cores: 8", "cores: 8.5", "set cores: 8 or 9"),
        ("cluster:\n  nodes: 3", "cluster: 3", "e.g. cluster: {nodes: 5, clients: 6}"),
        (
            "  data_devices:\n    - {count: 4, type: nvme, size_gb: 1000}",
            "  data_devices: nvme",
            "e.g. data_devices:",
        ),
        ("nodes: 3", "nodes: 3\n  colocated: yes", "e.g. colocated: {clients: true|false, gateways: N}"),
        ("nodes: 3", "nodes: 3\n  ec_optimizations: 'yes'", "set ec_optimizations: true or"),
        ("nodes: 3", "nodes: 3\n  protection: [3]", "e.g. protection: {replicated: 3}"),
        ("node:", "software: rook\nnode:", "one of ceph, lustre"),
    ],
)
def test_every_hardware_file_error_has_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, hint: str
) -> None:
    """These were a file:line and a message with no suggestion."""
    f, _, err = _refused(tmp_path, capsys, BASE.replace(old, new, 1))
    assert err.startswith(f"{f}:") and f"\n  hint: {hint}" in err, err

"""The mysql workload's application-level run (bench/sysbench-oltp.sh, compile/oltp.py + emit/sysbench.py): every
tier x release x flavour emits it; its data set is at least twice every cache a row could sit in (buffer pool,
the database host's page cache, the OSDs' caches), also on random hardware files; it runs >= 3 time-based
iterations after a warm-up; `--bench-scale smoke` changes only sizes and durations. The script itself runs on the
real cluster in tests/real/test_oltp_real.py (and shellcheck reads it in tests/real/test_sysbench_script_real.py)."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashtune.compile import CompileRequest, compile_bundle
from flashtune.emit.sysbench import PATH
from flashtune.hardware import tier_names
from flashtune.model import Bundle, GiB
from flashtune.releases import MYSQL_FLAVOURS

REPO = Path(__file__).resolve().parents[2]
RELEASES = ("pacific", "quincy", "reef", "squid", "tentacle")
# what --bench-scale may change: sizes and durations (and the sentences that state them)
SCALED = {
    "image_gib",
    "tables",
    "table_size",
    "time",
    "warmup_time",
    "report_interval",
    "server_overrides",
    "scale",
    "sizing",
    "case_notes",
}


def _var(script: str, name: str) -> str:
    m = re.search(rf"^{name}=(.*)$", script, re.M)
    assert m, f"the script sets no {name}"
    return m.group(1)


def check_oltp(b: Bundle) -> None:
    plan = b.oltp
    assert plan is not None and PATH in b.files
    script = b.files[PATH]
    shape = b.shape
    row = int(plan.sizing.inputs["row_bytes"])
    pool = next(int(s.value) for s in b.settings if s.key == "innodb_buffer_pool_size")
    ram = int(shape["db_ram_gib"] * GiB)
    page_cache = ram - pool
    osd_cache = shape["osds"] * shape["osd_memory_target"]
    data = plan.tables * plan.table_size * row
    assert pool > 0 and page_cache >= 0
    assert data >= 2 * (pool + page_cache + osd_cache), plan.sizing.reason
    # the image holds the data set (and more)
    assert plan.image_gib * GiB > data
    # the script runs what the plan says: sizes, >= 3 iterations, time-based with a warm-up and interval lines
    assert int(_var(script, "TABLE_SIZE")) == plan.table_size and int(_var(script, "TABLES")) == plan.tables
    assert int(_var(script, "IMAGE_GIB")) == plan.image_gib
    assert int(_var(script, "ITERATIONS")) >= 3
    assert int(_var(script, "TIME")) >= 60 and int(_var(script, "WARMUP")) > 0
    assert int(_var(script, "REPORT_INTERVAL")) > 0
    assert '--time="$TIME"' in script and '--report-interval="$REPORT_INTERVAL"' in script
    assert "--events" not in script  # a run bounded by time, never by a count
    assert "--rand-type=uniform" in script
    # safe: strict mode, a cleanup trap, never an existing image
    assert "set -euo pipefail" in script and "trap cleanup EXIT" in script
    assert 'info "$POOL/$IMAGE"' in script
    # the three map methods: krbd with the compiled options, nbd, and rbd-fuse under a direct-I/O loop device
    assert _var(script, "MAP_OPTIONS") == ",".join(c.option for c in plan.map_options) == "alloc_size=4096"
    assert 'device map -o "$MAP_OPTIONS"' in script and "device map -t nbd" in script
    assert "rbd-fuse -c" in script and "losetup --find --show --direct-io=on" in script
    # the compiled server: the flavour's own programs, the compiled my.cnf included
    assert _var(script, "SERVER") == plan.server and "!include $MYCNF" in script
    # every case is explained (question + setting), in explain.md too
    assert set(plan.case_notes) == {f"{t}-threads{n}" for t in plan.tests for n in plan.threads}
    explain = b.files["explain.md"]
    assert "## Application-level run (bench/sysbench-oltp.sh)" in explain
    for name, note in plan.case_notes.items():
        assert f"`{name}`" in explain and "Proves" in note


@pytest.mark.parametrize("flavour", MYSQL_FLAVOURS)
@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("tier", tier_names())
def test_every_mysql_compile_emits_the_oltp_run(tier: str, release: str, flavour: str) -> None:
    b = compile_bundle(
        CompileRequest(workload="mysql", tier=tier, ceph_release=release, mysql_flavour=flavour)
    )
    check_oltp(b)
    assert b.kinds[PATH] == "sysbench-oltp"


def test_other_workloads_and_the_legacy_setup_have_no_oltp_run() -> None:
    for workload in ("block", "rgw", "scratch"):
        b = compile_bundle(CompileRequest(workload=workload, tier="iops"))
        assert b.oltp is None and PATH not in b.files
    legacy = compile_bundle(CompileRequest(workload="mysql", tier="iops", ceph_release="jewel"))
    assert PATH not in legacy.files


HARDWARE = """\
name: random
node:
  cpu: test
  sockets: 1
  cores: {cores}
  cpu_ghz: 2.5
  ram_gib: {ram}
  nics:
    - {{count: 2, speed_gbps: 25}}
  data_devices:
    - {{count: {devices}, type: nvme, size_gb: 4000}}
  db_devices: []
cluster:
  nodes: {nodes}
  clients: 2
  client_ram_gib: {client_ram}
"""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    nodes=st.integers(3, 12),
    devices=st.integers(1, 12),
    ram=st.sampled_from([96, 128, 192, 256, 384, 768]),
    client_ram=st.sampled_from([8, 16, 32, 64, 256]),
    db_ram=st.one_of(st.none(), st.sampled_from([16.0, 48.0, 192.0, 1024.0])),
    cores=st.sampled_from([16, 32, 64]),
    flavour=st.sampled_from(MYSQL_FLAVOURS),
)
def test_the_data_set_is_twice_every_cache_on_random_hardware(
    tmp_path_factory: pytest.TempPathFactory,
    nodes: int,
    devices: int,
    ram: int,
    client_ram: int,
    db_ram: float | None,
    cores: int,
    flavour: str,
) -> None:
    from flashtune.errors import FlashtuneError

    f = tmp_path_factory.mktemp("hw") / "hw.yaml"
    f.write_text(HARDWARE.format(cores=cores, ram=ram, devices=devices, nodes=nodes, client_ram=client_ram))
    try:
        b = compile_bundle(
            CompileRequest(
                workload="mysql", tier=None, hardware_file=str(f), mysql_flavour=flavour, db_ram_gib=db_ram
            )
        )
    except FlashtuneError as e:  # hardware the compiler refuses says why
        assert e.message and e.suggestion
        return
    check_oltp(b)


@pytest.mark.parametrize("flavour", MYSQL_FLAVOURS)
def test_smoke_scale_changes_only_sizes_and_durations(flavour: str) -> None:
    full = compile_bundle(CompileRequest(workload="mysql", tier="iops", mysql_flavour=flavour))
    smoke = compile_bundle(
        CompileRequest(workload="mysql", tier="iops", mysql_flavour=flavour, bench_scale="smoke")
    )
    assert full.oltp and smoke.oltp
    a, b = dataclasses.asdict(full.oltp), dataclasses.asdict(smoke.oltp)
    changed = {k for k in a if a[k] != b[k]}
    assert changed <= SCALED and {"table_size", "time"} <= changed, changed
    assert list(a["case_notes"]) == list(b["case_notes"])
    assert smoke.oltp.table_size < full.oltp.table_size and smoke.oltp.time < full.oltp.time
    # the scale replaces only sizes in the server's run file: the buffer pool and the flavour's redo size key
    keys = set(smoke.oltp.server_overrides)
    assert "innodb_buffer_pool_size" in keys and len(keys) == 2
    redo = (keys - {"innodb_buffer_pool_size"}).pop()
    assert redo in {s.key for s in smoke.settings if s.file == "my.cnf"}, redo
    # the compiled my.cnf is the same file at both scales
    assert full.files["my.cnf"].split("\n", 3)[3] == smoke.files["my.cnf"].split("\n", 3)[3]
    # the script differs only in the lines that carry those sizes and durations (and the header's words)
    sizes = re.compile(
        r"^(IMAGE_GIB|TABLES|TABLE_SIZE|TIME|WARMUP|REPORT_INTERVAL)=|^innodb_\w+ = \d+$|^#|^\s*$"
    )
    full_body = [x for x in full.files[PATH].splitlines() if not sizes.search(x)]
    smoke_body = [x for x in smoke.files[PATH].splitlines() if not sizes.search(x)]
    assert [x for x in full_body if "scale's sizes" not in x] == [
        x for x in smoke_body if "scale's sizes" not in x
    ]


def test_the_script_quotes_what_it_is_given() -> None:
    """Values from the plan reach bash quoted: a pool name with a space stays one word."""
    b = compile_bundle(CompileRequest(workload="mysql", tier="tco"))
    assert b.oltp is not None
    from flashtune.emit.sysbench import emit

    text = emit(dataclasses.replace(b.oltp, pool="my pool"), {})
    assert "POOL=${POOL:-'my pool'}" in text


def test_ingest_labels_each_iteration_file_with_its_run(tmp_path: Path) -> None:
    """bench/sysbench-oltp.sh writes <test>-threads<N>-iter<i>.txt: ingest gives the iteration as `run` (a real
    sysbench 1.0 output from the corpus, renamed as the script names it)."""
    from flashtune.ingest import load

    sample = REPO / "tests" / "corpus" / "sysbench" / "sysbench-1.0.12-pkb-oltp-16threads.txt"
    for i in (1, 2, 3):
        shutil.copy(sample, tmp_path / f"oltp_read_write-threads16-iter{i}.txt")
    df = load(tmp_path)
    assert set(df["run"]) == {"1", "2", "3"}
    assert set(df["test"]) == {"oltp_read_write"}

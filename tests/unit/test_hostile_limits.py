"""Bounded memory and no hang: caps on totals (lines of a config, hosts of a fleet are in
test_hostile_numbers.py), a bad FLASHTUNE_DATA, and ingest of many small files with progress on a terminal.
Each case runs the real CLI in a child process under limits (tests/support/hostile.py).
"""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.hostile import REPO, MiB, check, child_env, compile_config, ingest, run

CBT_RUN = REPO / "tests" / "corpus" / "cbt" / "cbt-2025-librbdfio" / "results" / "00000000" / "id-af9a4715"


def test_the_peak_measured_is_the_commands_own_not_the_test_processes(tmp_path: Path) -> None:
    """A child forked from a big process starts with its pages and Linux keeps that high-water mark across
    exec: measured from here, `--version` would report this worker's size (CI saw 230-777 MiB)."""
    ballast = bytearray(400 * MiB)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page so it is resident
    r = compile_config("--version", cwd=tmp_path, mem_mib=512)
    check(r, rc=0)
    assert 5 < r.peak_mib < 150, r.peak_mib
    del ballast


@pytest.fixture(scope="module")
def big_conf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """64 MiB less a little of one short setting repeated: 3 million lines (was: 3.4 GiB, three minutes)."""
    f = tmp_path_factory.mktemp("big") / "ceph.conf"
    line = "osd_op_num_shards = 8\n"
    with f.open("w") as out:
        out.write("[global]\n" + line * ((64 * MiB - 16) // len(line)))
    return f


def test_a_64_mib_ceph_conf_is_refused_at_the_line_cap_in_bounded_memory(
    tmp_path: Path, big_conf: Path
) -> None:
    r = run("flashtune.cli.lint", "--kind", "ceph.conf", big_conf, cwd=tmp_path, mem_mib=768)
    check(r, rc=1)
    assert f"{big_conf}:100001:1: error FT001 has 3,050,403 lines" in r.out, r.out[:500]
    assert r.peak_mib < 400, r.peak_mib
    c = compile_config("--against", big_conf, "--out", tmp_path / "o", cwd=tmp_path, mem_mib=768)
    check(c, where=f"{big_conf}:100001:1: error", says="at most 100,000")
    assert c.peak_mib < 400, c.peak_mib


def test_a_config_just_under_the_line_cap_stays_in_bounded_memory(tmp_path: Path) -> None:
    f = tmp_path / "ceph.conf"
    f.write_text("".join(f"[osd.{i}]\nosd_op_num_shards = 8\n" for i in range(49_999)))
    r = run("flashtune.cli.lint", "--kind", "ceph.conf", f, cwd=tmp_path, mem_mib=768)
    check(r, rc=(0, 1))
    assert r.peak_mib < 300, r.peak_mib


@pytest.mark.parametrize("value", ["/nonexistent", "/etc/passwd", "{tmp}"])
def test_a_bad_flashtune_data_is_one_clear_error_in_every_command(tmp_path: Path, value: str) -> None:
    value = value.format(tmp=tmp_path)
    env = child_env(FLASHTUNE_DATA=value)
    for module, *args in (
        ("flashtune.cli.compile", "--tier", "iops", "--workload", "block", "--out", str(tmp_path / "o")),
        ("flashtune.cli.lint", str(REPO / "data" / "tiers" / "iops.yaml")),
        ("flashtune.cli.main", "knob", "osd_op_num_shards"),
        ("flashtune.cli.main", "envelope"),
        (
            "flashtune.cli.main",
            "ingest",
            str(REPO / "tests" / "fixtures" / "hostile" / "fio-negative-iops.json"),
        ),
    ):
        r = run(module, *args, cwd=tmp_path, env=env, mem_mib=3072)
        check(r, where=f"{value}: error: FLASHTUNE_DATA={value} is not a flashtune data folder")


# --- many small files --------------------------------------------------------------------------------------


def _archive(root: Path, runs: int) -> Path:
    fio = next(CBT_RUN.rglob("json_output.0"))
    sub = fio.parent.relative_to(CBT_RUN)
    for i in range(runs):
        d = root / "results" / "00000000" / f"id-{i:08x}"
        (d / sub).mkdir(parents=True)
        shutil.copy(CBT_RUN / "benchmark_config.yaml", d)
        shutil.copy(fio, d / sub)
    return root


def test_a_cbt_archive_of_many_runs_gives_each_run_its_rows(tmp_path: Path) -> None:
    """The archive's fio reports become one frame (not a frame a file): every run's rows, with its run id."""
    one = ingest(
        _archive(tmp_path / "one", 1),
        "--out",
        tmp_path / "one.csv",
        cwd=tmp_path,
    )
    many = ingest(
        _archive(tmp_path / "many", 150),
        "--out",
        tmp_path / "many.csv",
        cwd=tmp_path,
    )
    check(one, rc=0)
    check(many, rc=0)
    rows_one = (tmp_path / "one.csv").read_text().splitlines()
    rows_many = (tmp_path / "many.csv").read_text().splitlines()
    assert len(rows_many) - 1 == 150 * (len(rows_one) - 1)
    runs = {ln.split(",")[3].split("/")[1] for ln in rows_many[1:]}
    assert len(runs) == 150


def _on_a_terminal(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, bytes]:
    """Run cmd with standard error on a pseudo-terminal; what it wrote there."""
    leader, follower = pty.openpty()
    p = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=follower
    )
    os.close(follower)
    got = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        got += chunk
    os.close(leader)
    return p.wait(timeout=120), got


def test_ingest_shows_progress_on_a_terminal_and_nothing_elsewhere(tmp_path: Path) -> None:
    archive = _archive(tmp_path / "a", 40)
    env = child_env(FLASHTUNE_PROGRESS_AFTER="0")  # (the default waits 2 s before the first line)
    cmd = [sys.executable, "-m", "flashtune.cli.main", "ingest", str(archive)]
    rc, seen = _on_a_terminal(cmd, tmp_path, env)
    assert rc == 0
    assert b"\rflashtune ingest: " in seen and b" files read (" in seen, seen[-400:]
    assert seen.endswith(b"\r\x1b[K"), seen[-100:]  # the line is wiped at the end
    r = ingest(archive, cwd=tmp_path, env=env)
    check(r, rc=0)
    assert "files read" not in r.err and "\r" not in r.err, r.err


TIERS = ("iops", "standard", "tco")


def test_fleet_compile_shows_progress_on_a_terminal_and_nothing_elsewhere(tmp_path: Path) -> None:
    """compile-config --fleet counts the kinds of hardware it compiles, then names the step it is in; the
    line is wiped at the end, and nothing of it reaches a stderr that is not a terminal."""
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(
        "groups:\n"
        + "".join(f"  - {{name: g{i}, tier: {t}, hosts: 'g{i}n[01-20]'}}\n" for i, t in enumerate(TIERS))
    )
    env = child_env(FLASHTUNE_PROGRESS_AFTER="0")
    cmd = [sys.executable, "-m", "flashtune.cli.compile", "--fleet", str(fleet), "--workload", "block"]
    rc, seen = _on_a_terminal([*cmd, "--out", str(tmp_path / "a")], tmp_path, env)
    assert rc == 0
    assert b"\rcompile-config: 1 kinds of hardware compiled (" in seen, seen[-400:]
    assert b"\rcompile-config: 3 groups, 60 hosts: building the files" in seen, seen[-400:]
    assert seen.endswith(b"\r\x1b[K"), seen[-100:]
    r = compile_config("--fleet", fleet, "--out", tmp_path / "b", cwd=tmp_path, env=env)
    check(r, rc=0)
    assert "compile-config:" not in r.err and "\r" not in r.err, r.err


def test_a_named_step_shows_the_time_left_and_waits_for_the_first_seconds(tmp_path: Path) -> None:
    """flashtune.progress as prove uses it (a step per sample, the run's expected length, shown at once)
    and as the book build does (silent for its first seconds): the same class, through a real terminal."""
    script = (
        "import time\n"
        "from flashtune.progress import Progress, tick\n"
        "with Progress('flashtune prove', total=100, after=0) as p:\n"
        "    p.status('rbd-randread-4k: arm B 1/3')\n"
        "with Progress('build_book', 'pages generated', after=60) as q:\n"
        "    tick(5); q.status('never shown: the run ended before 60 s')\n"
    )
    rc, seen = _on_a_terminal([sys.executable, "-c", script], tmp_path, child_env())
    assert rc == 0
    assert b"\rflashtune prove: rbd-randread-4k: arm B 1/3, about 100 s left\x1b[K" in seen, seen
    assert b"build_book" not in seen and b"never shown" not in seen, seen
    assert seen.endswith(b"\r\x1b[K"), seen

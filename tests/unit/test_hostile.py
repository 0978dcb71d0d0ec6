"""Hostile and odd input for every command: compile-config, lint-config, flashtune knob, flashtune ingest.

Each case runs the real command in a child process with limits on address space, CPU time and (where a
failed write is the point) file size. For every input class the contract is the same: exit code 0, 1 or 2;
an error is one `file[:line[:col]]: error: ...` line (plus an optional `  hint:` line), never a traceback;
the child stays within its time and memory; and nothing is half-written (an earlier output is unchanged,
no temp file is left behind). Random inputs (hypothesis) go through the same contract in-process.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flashtune.cli import compile as compile_cli
from flashtune.cli import lint as lint_cli
from flashtune.cli import main as flashtune_cli
from support.hostile import (
    ERROR,
    REPO,
    MiB,
    Run,
    check,
    compile_config,
    ingest,
    no_temp_left,
    run,
    snapshot_of,
)

TIER = (REPO / "data" / "tiers" / "iops.yaml").read_text()
GOOD_PLAN = (
    "cluster:\n  user: root\n  head: mon01\n  iterations: 1\nbenchmarks:\n  radosbench:\n    time: 60\n"
)


def bomb(levels: int = 9) -> str:
    """'Billion laughs': 9 levels of 9 aliases each expand to 9**9 (387 million) strings from ~340 bytes."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"l{i}: &l{i} [{','.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


# --- input files that are not files ----------------------------------------------------------------------


@pytest.fixture
def odd(tmp_path: Path) -> dict[str, Path]:
    """Paths of every odd kind: FIFO, device, symlink loop, directory, missing, binary, not UTF-8, huge."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.yaml"
    os.symlink(tmp_path / "loop2.yaml", loop)
    os.symlink(loop, tmp_path / "loop2.yaml")
    (tmp_path / "binary.yaml").write_bytes(b"node:\x00\x01\x02")
    (tmp_path / "latin1.yaml").write_bytes(b"name: caf\xe9\n")
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as f:
        f.truncate(65 * MiB)  # sparse: big on paper only
    return {
        "fifo": fifo,
        "/dev/zero": Path("/dev/zero"),
        "symlink loop": loop,
        "directory": tmp_path,
        "missing": tmp_path / "nope.yaml",
        "NUL bytes": tmp_path / "binary.yaml",
        "not UTF-8": tmp_path / "latin1.yaml",
        "65 MiB": huge,
    }


EXPECT = {
    "fifo": "FIFO",
    "/dev/zero": "character device",
    "symlink loop": "symbolic link",
    "directory": "directory",
    "missing": "no such file",
    "NUL bytes": "NUL",
    "not UTF-8": "UTF-8",
    "65 MiB": "more than",
}
WITH_LINE = {"NUL bytes": ":1: error", "not UTF-8": ":1:10: error"}  # line (and column of the bad byte)


@pytest.mark.parametrize("kind", list(EXPECT))
def test_odd_input_files(odd: dict[str, Path], tmp_path: Path, kind: str) -> None:
    path = odd[kind]
    where = f"{path}{WITH_LINE.get(kind, ': error')}"
    for module, args in (
        ("flashtune.cli.compile", ("--workload", "block", "--hardware", path, "--out", tmp_path / "o")),
        ("flashtune.cli.lint", ("--kind", "cbt.yaml", path)),
        ("flashtune.cli.lint", ("--kind", "ceph.conf", path)),
        ("flashtune.cli.main", ("ingest", path)),
    ):
        r = run(module, *args, cwd=tmp_path, mem_mib=3072 if "main" in module else 1024)
        if (
            module.endswith("main") and kind == "directory"
        ):  # ingest reads folders: what is odd inside is refused
            check(r, where=f"{tmp_path}/")
            assert re.search(r"(fifo|loop)\.yaml: error: .*(FIFO|symbolic links)", r.message()), r.err
            continue
        if module.endswith("main") and kind in (
            "not UTF-8",
            "65 MiB",
        ):  # ingest reads these itself: its words
            check(r, where=f"{path}:1: error")
            continue
        # lint-config reports an unreadable file as a finding (FT002) without its line
        check(r, where=f"{path}: error" if "lint" in module else where, says=EXPECT[kind])
        assert not (tmp_path / "o").exists()


# --- YAML that explodes or nests --------------------------------------------------------------------------


def test_alias_bombs_are_refused_quickly_with_the_line(tmp_path: Path) -> None:
    hw = tmp_path / "hw.yaml"
    hw.write_text(bomb())
    assert len(hw.read_bytes()) < 500
    r = compile_config("--hardware", hw, "--out", tmp_path / "o", cwd=tmp_path, mem_mib=512)
    check(r, where=f"{hw}:", says="expands to more than")
    assert r.peak_mib < 400
    plan = tmp_path / "plan.yaml"
    plan.write_text(bomb())
    r = run("flashtune.cli.lint", plan, cwd=tmp_path, mem_mib=512)
    check(r, rc=1)  # a finding (FT001) with the line, like any other broken plan
    assert re.search(
        rf"^{re.escape(str(plan))}:\d+:\d+: error FT001 YAML expands to more than", r.out, re.M
    ), r.out
    assert r.peak_mib < 400


@pytest.mark.parametrize(
    "text",
    [
        "a: " + "[" * 5000 + "]" * 5000 + "\n",
        "".join(" " * i + f"k{i}:\n" for i in range(300)) + " " * 300 + "x: 1\n",
        "a: &x [1, *x]\n",
        "a: *nothing\n",
        "--- 1\n--- 2\n",
        "a: !!python/object/apply:os.system [echo hi]\n",
    ],
)
def test_deep_recursive_and_unsafe_yaml(tmp_path: Path, text: str) -> None:
    f = tmp_path / "in.yaml"
    f.write_text(text)
    r = compile_config("--hardware", f, "--out", tmp_path / "o", cwd=tmp_path)
    check(r, where=f"{f}:")
    assert re.match(rf"{re.escape(str(f))}:\d+:\d+: error: ", r.message()), r.err
    r = run("flashtune.cli.lint", f, cwd=tmp_path)
    check(r, rc=1)
    code = "FT7" if text.startswith("---") else "FT001"  # two documents are valid YAML: CBT reads the first
    assert re.search(rf"^{re.escape(str(f))}:\d+:\d+: error {code}", r.out, re.M), r.out


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("cores: .nan", "finite"),
        ("ram_gib: .inf", "finite"),
        ("ram_gib: -.inf", "finite"),
        ("cores: 1.0e9", "more than"),
        ("cores: 0", "greater than"),
        ("cores: 2.5", "whole number"),
        ("cores: '8'", "must be a number"),
        ("ram_gib: 1.0e400", "finite"),
    ],
)
def test_nonsense_numbers_in_a_hardware_file(tmp_path: Path, body: str, says: str) -> None:
    key = body.split(":")[0]
    text = re.sub(rf"^(\s*){key}:.*$", lambda m: m.group(1) + body, TIER, count=1, flags=re.M)
    hw = tmp_path / "hw.yaml"
    hw.write_text(text)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.strip().startswith(f"{key}:"))
    r = compile_config("--hardware", hw, "--out", tmp_path / "o", cwd=tmp_path)
    check(r, where=f"{hw}:{line}: error", says=says)


# The envelope's own fields of a hardware file (clock, per-drive figures, media link, client NIC, gateways,
# protection, NIC roles), edited into the iops tier: `flashtune envelope --hardware` and `compile-config`
# read them with the one reader (flashtune/hardware.py), so both print the same one-line file:line error.
@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("cpu_ghz: 2.2", "cpu_ghz: .nan", "'cpu_ghz' must be a finite number"),
        ("cpu_ghz: 2.2", "cpu_ghz: 1.0e400", "'cpu_ghz' must be a finite number"),
        ("cpu_ghz: 2.2", "cpu_ghz: 3000", "more than"),
        ("cpu_ghz: 2.2", "cpu_ghz: -1", "'cpu_ghz' must be a positive number"),
        ("size_gb: 2000,", "size_gb: 2000, read_iops: .inf,", "'read_iops' must be a finite number"),
        ("size_gb: 2000,", "size_gb: 2000, write_mb_s: 1.0e30,", "'write_mb_s' is 1e+30, more than"),
        ("size_gb: 2000,", "size_gb: 2000, read_mb_s: '2800',", "'read_mb_s' must be a number"),
        ("speed_gbps: 40}", "speed_gbps: 40, role: backend}", "NIC role 'backend'"),
        ("{count: 1, speed_gbps: 40}", "{count: 2.5, speed_gbps: 40}", "'count' must be a whole number"),
        ("ram_gib: 128", "ram_gib: 128\n  media_link: {read_mb_s: .inf}", "'read_mb_s' must be a finite"),
        ("ram_gib: 128", "ram_gib: 128\n  media_link: 5", "'media_link' must be a mapping"),
        ("nodes: 5", "nodes: 5\n  client_nic_gbps: -.inf", "'client_nic_gbps' must be a finite"),
        ("nodes: 5", "nodes: 5\n  gateways: {count: 1.0e12, nic_gbps: 40}", "'count' is 1e+12, more than"),
        ("nodes: 5", "nodes: 5\n  gateways: {count: 2, nic_gbps: .nan}", "'nic_gbps' must be a finite"),
        ("nodes: 5", "nodes: 5\n  protection: {replicated: .nan}", "'replicated' must be a finite"),
        ("nodes: 5", "nodes: 5\n  protection: {erasure: [4, 2.5]}", "'erasure m' must be a whole number"),
        ("nodes: 5", "nodes: 5\n  protection: {erasure: [4]}", "'erasure' must be [k, m]"),
        ("nodes: 5", "nodes: 5\n  protection: {mirror: 2}", "unknown field 'mirror' in cluster.protection"),
        ("nodes: 5", "nodes: 5\n  protection: {none: false}", "'none' must be true (a pool without copies)"),
        (
            "nodes: 5",
            "nodes: 5\n  protection: {replicated: 3, erasure: [4, 2]}",
            "names replicated and erasure",
        ),
        # a misspelt field is refused, not left at its default (the hint names the field meant)
        (
            "nodes: 5",
            "nodes: 5\n  clientss: 4",
            "unknown field 'clientss' in cluster\n  hint: did you mean 'clients'?",
        ),
        ("nodes: 5", "nodes: 5\n  colocated: {client: true}", "unknown field 'client' in cluster.colocated"),
        ("speed_gbps: 40}", "speed_gbps: 40, rol: public}", "unknown field 'rol' in node.nics"),
        ("size_gb: 2000,", "size_gb: 2000, read_iop: 5,", "did you mean 'read_iops'?"),
        ("name: iops", "name: iops\nrelase: reef", "unknown field 'relase' in the file"),
        ("{count: 1, speed_gbps: 40}", "25", "a NIC must be a mapping {count, speed_gbps, role}, got 25"),
        ("name: iops", "name: iops\nsoftware: gpfs", "software 'gpfs' is not ceph or lustre"),
        ("name: iops", "name: iops\nobjectstore: [bluestore]", "is not bluestore or filestore"),
        ("name: iops", "name: iops\nrelease: reefy", "release 'reefy' is not a Ceph release name"),
        ("ram_gib: 128", "ram_gib: 128\n  cpu_ghz_run: .nan", "'cpu_ghz_run' must be a finite"),
        ("ram_gib: 128", "ram_gib: 128\n  osd_cpu_cores: -2", "'osd_cpu_cores' must be"),
        ("ram_gib: 128", "ram_gib: 128\n  osds_per_device: 1.5", "'osds_per_device' must be a whole number"),
        (
            "nodes: 5",
            "nodes: 5\n  colocated: {clients: yes please}",
            "'colocated.clients' must be true or false",
        ),
        ("nodes: 5", "nodes: 5\n  colocated: {gateways: -2}", "'gateways' must be at least 0"),
        ("nodes: 5", "nodes: 5\n  client_network_gbps: 0", "'client_network_gbps' must be a positive number"),
        ("nodes: 5", "nodes: 5\n  ec_optimizations: maybe", "'ec_optimizations' must be true or false"),
    ],
)
def test_nonsense_envelope_fields_in_a_hardware_file(tmp_path: Path, old: str, new: str, says: str) -> None:
    assert old in TIER
    text = TIER.replace(old, new, 1)
    hw = tmp_path / "hw.yaml"
    hw.write_text(text)
    added = new.split("\n")[-1].strip()
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if added in ln)
    r = run("flashtune.cli.main", "envelope", "--hardware", hw, cwd=tmp_path)
    check(r, where=f"{hw}:{line}: error", says=says)
    out = tmp_path / "o"
    c = compile_config("--hardware", hw, "--out", out, cwd=tmp_path)
    check(c, where=f"{hw}:{line}: error", says=says)
    assert c.message() == r.message()


@pytest.mark.parametrize(
    ("layout", "says"),
    [
        ("{memory_gib: {rgw: .nan}}", "'layout.memory_gib.rgw' must be a finite number"),
        ("{memory_gib: {mgr: .inf}}", "'layout.memory_gib.mgr' must be a finite number"),
        ("{memory_gib: {mon: -1}}", "'layout.memory_gib.mon' must be at least 0"),
        ("{memory_gib: {mon: 1.0e9}}", "more than 65536"),
        ("{os_reserve_gib: .nan}", "'layout.os_reserve_gib' must be a finite number"),
        ("{os_reserve_gib: '6'}", "'layout.os_reserve_gib' must be a number"),
    ],
)
def test_nonsense_numbers_in_a_layout_override(tmp_path: Path, layout: str, says: str) -> None:
    """The layout override's numbers go through the hardware file's number check (was: NaN -> traceback)."""
    text = TIER + f"layout: {layout}\n"
    hw = tmp_path / "hw.yaml"
    hw.write_text(text)
    line = len(text.splitlines())
    out = tmp_path / "o"
    r = compile_config("--workload", "rgw", "--hardware", hw, "--out", out, cwd=tmp_path)
    check(r, where=f"{hw}:{line}: error", says=says)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--replication", "10"), "10 replicas need 10 hosts"),
        (("--replication", "0"), "at least 1"),
        (("--replication", "1"), "at least 2"),
        (("--replication", "2"), "--allow-unsafe osd_pool_default_size"),
        (("--replication", "4", "--nodes", "3"), "4 replicas need 4 hosts"),
        (("--nodes", "0"), "at least 1"),
        (("--nodes", "99999999"), "at most 10000"),
        (("--clients", "-3"), "at least 1"),
        (("--db-ram-gib", "nan"), "finite"),
        (("--db-ram-gib", "1e30"), "between"),
        (("--db-ram-gib", "0"), "between"),
        (("--ec", "1000+2"), "1002 hosts"),
        (("--ec", "8+0"), "not K+M"),
        (("--osds-per-device", "500"), "at most"),
        (("--out", ""), "empty"),
        (("--allow-unsafe", "no_such_knob"), "no unsafe value"),
    ],
)
def test_nonsense_arguments(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    out = [] if "--out" in args else ["--out", str(tmp_path / "o")]
    r = compile_config(*args, *out, cwd=tmp_path)
    check(r, says=says)
    assert not (tmp_path / "o").exists()


def test_replication_2_is_an_explicit_loud_opt_in(tmp_path: Path) -> None:
    r = compile_config(
        "--replication",
        "2",
        "--allow-unsafe",
        "osd_pool_default_size",
        "--allow-unsafe",
        "osd_pool_default_min_size",
        "--out",
        tmp_path / "o",
        cwd=tmp_path,
    )
    check(r, rc=0)
    conf = (tmp_path / "o" / "ceph.conf").read_text()
    assert re.search(r"# UNSAFE[^\n]*\nosd_pool_default_size = 2\n", conf), conf
    assert re.search(r"# UNSAFE[^\n]*\nosd_pool_default_min_size = 1\n", conf), conf


# --- where the output goes ------------------------------------------------------------------------------


def _compile(tmp: Path, out: str | Path, *extra: str, **kw: object) -> Run:
    return compile_config("--tier", "tco", "--out", out, *extra, cwd=tmp, **kw)  # type: ignore[arg-type]


def test_output_targets_that_are_not_new_folders(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("mine\n")
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "notes.txt").write_text("keep\n")
    os.symlink(tmp_path / "l2", tmp_path / "l1")
    os.symlink(tmp_path / "l1", tmp_path / "l2")
    for out, says in (
        (tmp_path / "file", "is a file"),
        ("/dev/null", "character device"),
        (tmp_path / "l1", "symbolic link"),
        ("/dev/null/x", "not a directory"),
        (tmp_path / "theirs", "not a flashtune output folder"),
        ("/proc/flashtune-x/o", "no such file"),
    ):
        for force in ((), ("--force",)):
            check(_compile(tmp_path, out, *force), where=f"{out}: error", says=says)
    assert (tmp_path / "file").read_text() == "mine\n" and (
        tmp_path / "theirs" / "notes.txt"
    ).read_text() == "keep\n"
    no_temp_left(tmp_path)


def test_force_replaces_the_whole_folder_and_a_failed_write_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "o"
    check(_compile(tmp_path, out), rc=0)
    (out / "stale-from-an-earlier-run.conf").write_text("x\n")
    (out / "ceph.conf").write_text("# edited\n")
    check(_compile(tmp_path, out), where=f"{out / 'ceph.conf'}: error", says="--force")
    before = snapshot_of(out)
    # a write that fails half-way (file size limit: EFBIG, like ENOSPC) leaves the old folder as it was
    r = _compile(tmp_path, out, "--force", fsize=4096)
    check(r, where=f"{out}: error", says="cannot write the output folder")
    assert snapshot_of(out) == before
    no_temp_left(tmp_path)
    check(_compile(tmp_path, out, "--force"), rc=0)
    assert (
        not (out / "stale-from-an-earlier-run.conf").exists()
        and "[global]" in (out / "ceph.conf").read_text()
    )
    no_temp_left(tmp_path)


def test_an_unwritable_folder_is_a_clean_error(tmp_path: Path) -> None:
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed (e2fsprogs)")
    box = tmp_path / "box"
    box.mkdir()
    if subprocess.run(["chattr", "+i", str(box)], capture_output=True).returncode != 0:
        pytest.skip("this file system has no immutable flag")
    try:
        check(_compile(tmp_path, box / "o"), where=f"{box / 'o'}: error", says="not permitted")
    finally:
        subprocess.run(["chattr", "-i", str(box)], check=True)
    assert not list(box.iterdir())


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_output_files_follow_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    out = tmp_path / "o"
    check(_compile(tmp_path, out, umask=umask), rc=0)
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~umask
    for p in out.rglob("*"):
        assert stat.S_IMODE(p.stat().st_mode) == (mode if p.is_file() else 0o777 & ~umask), p


def test_ingest_output_targets(tmp_path: Path) -> None:
    sample = REPO / "tests" / "corpus" / "ior" / "ior-3.4.0-ior-easy-write-8.txt"
    (tmp_path / "results.csv").write_text("mine\n")
    for out, says in (
        ("/dev/null", "character device"),
        (tmp_path, "directory"),
        (tmp_path / "results.csv", "--force"),
        ("", "empty"),
    ):
        r = ingest(sample, "--out", out, cwd=tmp_path)
        check(r, says=says)
    assert (tmp_path / "results.csv").read_text() == "mine\n"


# --- random input (in-process: many cases, same contract) -------------------------------------------------


def _call(main: object, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main(argv)  # type: ignore[operator]
        except SystemExit as e:  # argparse
            rc = int(e.code or 0)
    return rc, out.getvalue(), err.getvalue()


def _contract(rc: int, out: str, err: str, codes: tuple[int, ...]) -> None:
    assert rc in codes, (rc, err)
    assert "Traceback" not in err
    if rc == 2:
        assert any(ERROR.match(ln) for ln in err.splitlines()), err
        assert all(
            ERROR.match(ln) or ln.startswith(("  hint: ", "  fix: ")) or not ln.strip() or " error(s)" in ln
            for ln in err.splitlines()
        ), err


yamlish = st.lists(
    st.sampled_from(
        [
            "node:",
            "  cores: ",
            "  ram_gib: ",
            "nics:",
            "- ",
            "&a ",
            "*a",
            "[",
            "]",
            "{",
            "}",
            ": ",
            "\n",
            "  ",
            "8",
            "-1",
            ".nan",
            "1e9",
            "'x'",
            '"',
            "#",
            "!!str ",
            "~",
            "data_devices:",
            "type: nvme",
            "size_gb: ",
            "count: ",
            "\t",
            "é",
            "\x00",
        ]
    ),
    max_size=40,
).map("".join)
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(text=yamlish)
def test_random_hardware_files(tmp_path: Path, text: str) -> None:
    hw = tmp_path / "hw.yaml"
    hw.write_text(text, encoding="utf-8")
    out = tmp_path / "o"
    shutil.rmtree(out, ignore_errors=True)
    rc, o, e = _call(compile_cli.main, ["--workload", "block", "--hardware", str(hw), "--out", str(out)])
    _contract(rc, o, e, (0, 2))
    if rc == 2:
        assert e.startswith(f"{hw}") or e.startswith("error: ") or e.startswith("compile-config: error"), e
        assert not out.exists()


@SETTINGS
@given(text=yamlish, kind=st.sampled_from(["cbt.yaml", "ceph.conf", "my.cnf", "sysctl.conf"]))
def test_random_files_to_lint(tmp_path: Path, text: str, kind: str) -> None:
    f = tmp_path / "in.conf"
    f.write_text(text, encoding="utf-8")
    rc, o, e = _call(lint_cli.main, ["--kind", kind, str(f)])
    _contract(rc, o, e, (0, 1, 2))


@SETTINGS
@given(name=st.text(max_size=40))
def test_random_knob_names(name: str) -> None:
    rc, o, e = _call(flashtune_cli.main, ["knob", name])
    _contract(rc, o, e, (0, 2))
    if rc == 0:
        assert o.strip()


@SETTINGS
@given(data=st.binary(max_size=400), name=st.sampled_from(["fio.json", "lat_lat.1.log", "ior.txt", "x.out"]))
def test_random_files_to_ingest(tmp_path: Path, data: bytes, name: str) -> None:
    f = tmp_path / name
    f.write_bytes(data)
    rc, _, e = _call(flashtune_cli.main, ["ingest", str(f)])
    assert rc in (0, 2) and "Traceback" not in e, e

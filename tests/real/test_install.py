"""What a user gets from `pip install flashtune`: the wheel, in a fresh venv, used from outside the checkout.

The wheel is built from this checkout (its build compiles data/ into the JSON snapshot), installed with only
its own dependencies into a new virtual environment, and the three commands run from a folder that has no
data/ anywhere above it, with no PYTHONPATH or FLASHTUNE_DATA. PyPI (or pip's cache) provides PyYAML.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from flashtune import paths
from flashtune.snapshot import CHECKED, compile_file
from flashtune.yamlio import decode, parse_yaml

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FLASHTUNE_DATA", "VIRTUAL_ENV")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(REPO)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    (whl,) = out.glob("flashtune-*.whl")
    return whl


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venv") / "v"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(root)], check=True, timeout=300)
    r = subprocess.run(
        [root / "bin" / "pip", "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return root


def test_the_wheel_carries_a_fresh_data_snapshot_and_the_license(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert any(n.endswith("licenses/LICENSE") for n in names)
        stamp = json.loads(z.read("flashtune/_data/index.json"))
        assert stamp == paths.stamp(REPO / "data")  # the one stamp: this version, these data files' CRCs
        for rel in stamp[
            "sources"
        ]:  # every file compiled from data/ as it is now: a stale snapshot fails here
            content = z.read(f"flashtune/_data/{rel}")
            assert content == compile_file(rel, REPO / "data" / rel), (
                f"stale snapshot of data/{rel} in the wheel"
            )
            if rel.endswith(".yaml"):  # shipped compiled: one line of JSON under the same name, no YAML
                assert decode(content.decode()) == parse_yaml((REPO / "data" / rel).read_text(), rel), rel
        # the build checked the catalog, the profiles and the data package, and wrote what they yield
        for name, make in CHECKED.items():
            written = json.loads(z.read(f"flashtune/_data/checked/{name}"))
            assert written == json.loads(json.dumps(make(REPO / "data", "data"))), name
        shipped = {n.removeprefix("flashtune/_data/") for n in names if n.startswith("flashtune/_data/")}
        assert shipped == {*stamp["sources"], "index.json", *(f"checked/{n}" for n in CHECKED)}


def test_cli_only_install_works_outside_the_checkout(venv: Path, tmp_path: Path) -> None:
    listed = subprocess.run(
        [venv / "bin" / "pip", "list", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
        env=_env(),
    ).stdout
    installed = {p["name"].lower() for p in json.loads(listed)} - {"pip", "setuptools", "wheel"}
    assert installed == {"flashtune", "pyyaml"}
    size = _installed_bytes(venv, ["flashtune", "PyYAML"])
    print(f"\nCLI-only install: {size / 1e6:.1f} MB (flashtune + PyYAML)")
    assert size < 20e6
    away = tmp_path / "elsewhere"
    away.mkdir()
    env = _env()
    package = next((venv / "lib").glob("python3*/site-packages")) / "flashtune"
    installed = {
        p: p.read_bytes() for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    }

    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(a) for a in args], cwd=away, capture_output=True, text=True, env=env, timeout=120
        )

    r = run(venv / "bin" / "compile-config", "--tier", "iops", "--workload", "mysql", "--out", "o")
    assert r.returncode == 0, r.stderr
    assert (
        "import main" in (venv / "bin" / "compile-config").read_text()
    )  # pyproject's entry, as pip wrote it
    files = [p.relative_to(away) for p in (away / "o").rglob("*") if p.is_file() and p.name[0] != "."]
    assert sorted(r.stdout.split()) == sorted(map(str, files))
    for name in ("ceph.conf", "my.cnf", "sysctl.conf", "cbt.yaml"):  # the same files as the checkout's matrix
        assert (away / "o" / name).read_text() == (REPO / "configs" / "iops-mysql" / name).read_text(), name
    r = run(venv / "bin" / "lint-config", "o/ceph.conf", "o/my.cnf", "o/sysctl.conf", "o/cbt.yaml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = run(venv / "bin" / "lint-config", "--ceph-release", "reef", away / "o" / "ceph.conf")
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr
    r = run(venv / "bin" / "flashtune", "knob", "osd_memory_target")
    assert r.returncode == 0 and r.stdout.startswith("osd_memory_target"), r.stderr
    r = run(venv / "bin" / "flashtune", "knob", "osd_memory_target", "--format", "json")
    assert json.loads(r.stdout)["source"].startswith("data/knobs/ceph.yaml:")  # lines survive the snapshot
    r = run(venv / "bin" / "flashtune", "knob", "osd_memory_targt")
    assert r.returncode == 2 and "osd_memory_target" in r.stderr
    r = run(venv / "bin" / "flashtune", "ingest", "o/ceph.conf")  # pandas is an extra: say which one
    assert r.returncode == 2 and "flashtune[ingest]" in r.stderr and "Traceback" not in r.stderr
    # the envelope of a tier: the checkout's ceilings, from the snapshot and its fitted constants alone
    r = run(venv / "bin" / "flashtune", "envelope", "--tier", "iops")
    assert r.returncode == 0, r.stderr
    here = subprocess.run(
        [sys.executable, "-m", "flashtune.cli.main", "envelope", "--tier", "iops"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert r.stdout == here.stdout and r.stdout.startswith("iops: 5 nodes")
    # a bad hardware file: its file and line, a hint, exit 2, no traceback
    tier = (REPO / "data" / "tiers" / "iops.yaml").read_text().splitlines(keepends=True)
    at = tier.index("  nodes: 5\n")
    tier[at] = "  nodes: three\n"
    (away / "nodes.yaml").write_text("".join(tier))
    r = run(venv / "bin" / "flashtune", "envelope", "--hardware", "nodes.yaml")
    assert r.returncode == 2 and not r.stdout, r.stdout + r.stderr
    assert r.stderr.startswith(f"nodes.yaml:{at + 1}: error: 'nodes' must be a number"), r.stderr
    assert "\n  hint: set nodes: <number>" in r.stderr and "Traceback" not in r.stderr
    # nothing wrote into the installed package (bytecode aside): the snapshot is read as the wheel built it
    after = {p: p.read_bytes() for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert after == installed


def _installed_bytes(venv: Path, dists: list[str]) -> int:
    """Bytes of the files pip installed for these distributions (RECORD), bytecode caches included."""
    site = next((venv / "lib").glob("python3*/site-packages"))
    total = 0
    for rec in site.glob("*.dist-info/RECORD"):
        if rec.parent.name.split("-")[0].lower() not in {d.lower() for d in dists}:
            continue
        for line in rec.read_text().splitlines():
            path = site / line.split(",")[0]
            if path.is_file():
                total += path.stat().st_size
    for cache in site.rglob("__pycache__"):
        if cache.parent.name in ("flashtune", "yaml") or "flashtune" in cache.parts:
            total += sum(p.stat().st_size for p in cache.iterdir())
    return total

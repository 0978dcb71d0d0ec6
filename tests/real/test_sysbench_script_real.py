"""shellcheck (Debian's) finds nothing in the compiled bench/sysbench-oltp.sh, for every flavour, at both scales and
for every tier (the script's run on the real cluster is tests/real/test_oltp_real.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from flashtune.compile import CompileRequest, compile_bundle
from flashtune.emit.sysbench import PATH
from flashtune.hardware import tier_names
from flashtune.releases import MYSQL_FLAVOURS


@pytest.mark.parametrize("scale", ["full", "smoke"])
@pytest.mark.parametrize("flavour", MYSQL_FLAVOURS)
def test_shellcheck_finds_nothing(flavour: str, scale: str, tmp_path: Path) -> None:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed: run scripts/install-system-deps.sh")
    files = []
    for tier in tier_names():
        b = compile_bundle(
            CompileRequest(workload="mysql", tier=tier, mysql_flavour=flavour, bench_scale=scale)
        )
        f = tmp_path / f"{tier}.sh"
        f.write_text(b.files[PATH])
        files.append(str(f))
    r = subprocess.run(["shellcheck", "--shell=bash", *files], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-4000:]

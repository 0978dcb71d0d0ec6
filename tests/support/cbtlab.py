"""CBT against the session's loopback cluster: the shared CBT checkout, the lab as a hardware file, and a run of a
compiled plan there with the real CBT (the `shared` fixture's tools/cbt).

The running is flashtune.cbtrun's (the same code `flashtune prove --cbt` uses): the plan is localized (placeholder
hosts -> localhost, the lab's ceph.conf, the lab's monitor and radosgw, the test's scratch folder), CBT's `sudo`
runs its arguments as they are (the tests run as root: the same command without the environment reset), and
`cbt.py -a ARCHIVE plan.yaml` runs with the interpreter cbt.py names.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from flashtune import cbtrun
from support.cephlab import CephLab

# CBT's interpreter: the system Python with Debian's python3-yaml and python3-lxml (cbt.py's first line)
CBT_PYTHON = "/usr/bin/python3"

# the loopback cluster as a hardware file: 3 nodes of one NVMe OSD each (3 replicas need 3 failure domains;
# the lab puts them on OSDs), one client
LAB_HARDWARE = """\
name: cephlab
node:
  cpu: loopback
  sockets: 1
  cores: 16
  cpu_ghz: 2.5
  ram_gib: 64
  nics:
    - {count: 1, speed_gbps: 25}
  data_devices:
    - {count: 1, type: nvme, size_gb: 1000}
  db_devices: []
cluster:
  nodes: 3
  clients: 1
  client_ram_gib: 8
"""


def checkout(shared: Path) -> Path:
    """The shared CBT tree (skip with the reason where it or its Python is missing; CI fails instead)."""
    path = shared / "tools" / "cbt"
    why = None if (path / "cbt.py").is_file() else f"CBT is not at {path}"
    why = why or python_ok()
    if why:
        if os.environ.get("FLASHTUNE_REQUIRE_SHARED") == "1":
            pytest.fail(f"{why}, and FLASHTUNE_REQUIRE_SHARED=1 requires it")
        pytest.skip(why)
    return path


def localize(doc: dict[str, Any], lab: CephLab, scratch: Path) -> dict[str, Any]:
    return cbtrun.localize(
        doc,
        conf=lab.conf_path,
        scratch=scratch,
        mon_addr=f"127.0.0.1:{lab.mon_v1}",
        s3_urls=[f"http://127.0.0.1:{lab.rgw_port}"],
    )


def run_cbt(
    cbt: Path, doc: dict[str, Any], lab: CephLab, scratch: Path, *, timeout: float = 600
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Write the localized plan, run `cbt.py -a ARCHIVE plan.yaml`, return the process and the archive."""
    inv = cbtrun.prepare(cbt / "cbt.py", localize(doc, lab, scratch), scratch, lab.env, CBT_PYTHON)
    return cbtrun.run(inv, timeout=timeout), inv.archive


def python_ok() -> str | None:
    """Why CBT cannot run here, or None."""
    r = subprocess.run([CBT_PYTHON, "-c", "import yaml, lxml"], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        return f"{CBT_PYTHON} lacks yaml/lxml (scripts/install-system-deps.sh installs python3-yaml python3-lxml)"
    return None

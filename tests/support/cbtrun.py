"""Run a compiled CBT plan with the real CBT (the `shared` fixture's tools/cbt) against the loopback cluster.

What is changed in the plan is what a user changes too: the placeholder host names become `localhost` and the
ssh user goes (CBT then runs every command locally, without pdsh or ssh: common.py get_localnode, which a
`user@localhost` name defeats), the cluster's ceph.conf is the lab's, the gateway URL is the lab's radosgw, and
CBT's scratch folder is the test's. Nothing CBT measures is touched.

CBT prefixes its commands with `sudo`, which resets the environment (CEPH_CONF, which fio's rbd engine needs to
find the lab). The tests run as root, so a `sudo` that runs its arguments as they are, first on CBT's PATH, is
the same command without the reset.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.cephlab import CephLab

# CBT's interpreter: the system Python with Debian's python3-yaml and python3-lxml (benchmarkfactory imports
# every module, cosbench's lxml too); CBT is not a pip package
CBT_PYTHON = "/usr/bin/python3"


def localize(doc: dict[str, Any], lab: CephLab, scratch: Path) -> dict[str, Any]:
    plan = copy.deepcopy(doc)
    cluster = plan["cluster"]
    for group in ("head", "clients", "osds", "rgws", "mdss", "mgrs"):
        if group in cluster:
            cluster[group] = "localhost" if isinstance(cluster[group], str) else ["localhost"]
    cluster["mons"] = {"localhost": {"a": f"127.0.0.1:{lab.mon_v1}"}}
    # the ssh user: CBT writes hosts as user@host, which is not `localhost` to get_localnode (it would use pdsh)
    cluster.pop("user", None)
    cluster["conf_file"] = str(lab.conf_path)
    cluster["tmp_dir"] = str(scratch / "tmp")
    cluster["mnt_dir"] = str(scratch / "mnt")
    for ep in (plan.get("client_endpoints") or {}).values():
        if ep.get("driver") == "s3":
            ep["urls"] = [f"http://127.0.0.1:{lab.rgw_port}"]
            ep["endpoints_per_client"] = 1
    return plan


def run_cbt(
    cbt: Path, doc: dict[str, Any], lab: CephLab, scratch: Path, *, timeout: float = 600
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Write the localized plan, run `cbt.py -a ARCHIVE plan.yaml`, return the process and the archive."""
    from flashtune.emit.cbt import dump

    scratch.mkdir(parents=True, exist_ok=True)
    shim = scratch / "bin"
    shim.mkdir(exist_ok=True)
    sudo = shim / "sudo"
    sudo.write_text('#!/bin/sh\nexec "$@"\n')
    sudo.chmod(0o755)
    plan = scratch / "plan.yaml"
    plan.write_text(dump(localize(doc, lab, scratch)))
    archive = scratch / "archive"
    env = dict(lab.env)
    env["PATH"] = f"{shim}{os.pathsep}{env.get('PATH', '')}"
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [CBT_PYTHON, str(cbt / "cbt.py"), "-a", str(archive), str(plan)],
        cwd=cbt,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    (scratch / "cbt.log").write_text(proc.stdout + proc.stderr)
    return proc, archive


def python_ok() -> str | None:
    """Why CBT cannot run here, or None."""
    r = subprocess.run([CBT_PYTHON, "-c", "import yaml, lxml"], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        return f"{CBT_PYTHON} lacks yaml/lxml (scripts/install-system-deps.sh installs python3-yaml python3-lxml)"
    return None


if __name__ == "__main__":  # pragma: no cover - manual use: python tests/support/cbtrun.py PLAN.yaml
    sys.exit(0)

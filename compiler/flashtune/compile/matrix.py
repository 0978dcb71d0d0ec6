"""The checked-in compiled matrix (configs/): every tier x workload at the default Ceph release.

python -m flashtune.compile.matrix [DIR]      regenerate (what `make configs` runs)
python -m flashtune.compile.matrix --check    exit 1 and list what is stale
"""

from __future__ import annotations

import sys
from pathlib import Path

from flashtune.compile.pipeline import WORKLOADS, CompileRequest, compile_bundle
from flashtune.fileio import write_atomic
from flashtune.hardware import tier_names
from flashtune.paths import REPO_ROOT
from flashtune.releases import DEFAULT_CEPH_RELEASE

CONFIGS = Path(REPO_ROOT) / "configs"


def expected(release: str = DEFAULT_CEPH_RELEASE) -> dict[str, str]:
    """Relative path -> text of every file the matrix should contain."""
    out: dict[str, str] = {}
    for tier in tier_names():
        for workload in WORKLOADS:
            b = compile_bundle(CompileRequest(workload=workload, tier=tier, ceph_release=release))
            out.update({f"{tier}-{workload}/{name}": text for name, text in b.files.items()})
    return out


def stale(root: Path = CONFIGS) -> list[str]:
    """Files that are missing, different, or left over (relative paths); empty when up to date."""
    want = expected()
    have = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name != "README.md"}
    bad = [
        name
        for name, text in want.items()
        if not (root / name).is_file() or (root / name).read_text() != text
    ]
    return sorted(bad + sorted(have - set(want)))


def write(root: Path = CONFIGS) -> list[str]:
    want = expected()
    for name, text in want.items():
        write_atomic(root / name, text, force=True)
    for p in list(root.rglob("*")):
        if p.is_file() and p.name != "README.md" and str(p.relative_to(root)) not in want:
            p.unlink()
    return sorted(want)


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--check":
        bad = stale()
        print("\n".join(bad) if bad else "configs/ is up to date")
        return 1 if bad else 0
    root = Path(argv[0]) if argv else CONFIGS
    print(f"{len(write(root))} files written under {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Where flashtune's data lives, and the data snapshot that holds it checked.

data/ (YAML, CSV, JSON) is compiled into the data snapshot, flashtune/_data, when the package is built
(flashtune.snapshot): the YAML files as JSON under the same names, the results of the checks that read whole
folders (checked/*.json), and one stamp (index.json: flashtune's version and the CRC-32 of every data file).
- installed package: data_dir() is the snapshot itself;
- source checkout: data_dir() is data/ (edit it, copy it); the snapshot beside the package is used while its
  stamp matches data/, and otherwise data/ is read and checked as it is (`make snapshot` writes a fresh one);
- FLASHTUNE_DATA=<folder> (a modified copy, in tests and the book build): that folder, read and checked as it is.
Nothing writes the snapshot at run time.

    data_dir()            the data folder (data/ names: knobs/, profiles/, tiers/, tables/, ...)
    data_path(rel)        one file or folder in it, e.g. data_path("tiers/iops.yaml")
    data_names(folder)    names of the YAML files in one data folder, e.g. data_names("tiers") -> ["iops", ...]
    data_label(rel)       how messages name that file, e.g. "data/knobs/ceph.yaml"
    compiled(path)        the snapshot file holding a data YAML file's compiled form, if the snapshot is in use
    read_checked(name, make)  a checked result of the snapshot build (or made the same way, see there)
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from flashtune import __version__
from flashtune.errors import DataError

PACKAGE_DIR = Path(__file__).resolve().parent
# a source checkout: compiler/flashtune -> the repository
REPO_ROOT = PACKAGE_DIR.parent.parent
SOURCE_DATA = REPO_ROOT / "data"  # the authoring YAML; only a source checkout has it
SNAPSHOT_DIR = PACKAGE_DIR / "_data"
STAMP = "index.json"  # in the snapshot: what it was built from (stamp())
CHECKED = "checked"  # in the snapshot: the folder of checked results (read_checked)


def _source_files(folder: Path, prefix: str = "") -> Iterator[tuple[str, Path]]:
    """(name relative to the data folder, path) of every data file, a folder's files by name, then its
    subfolders by name; editor backups, hidden files and caches are not data."""
    entries = sorted(folder.iterdir(), key=lambda e: e.name)
    for e in entries:
        if e.is_file() and not e.name.startswith((".", "#")) and not e.name.endswith(("~", ".pyc")):
            yield prefix + e.name, e
    for e in entries:
        if e.is_dir() and not e.is_symlink() and not e.name.startswith((".", "__")):
            yield from _source_files(e, f"{prefix}{e.name}/")


def source_files(folder: str | Path) -> list[tuple[str, Path]]:
    """(relative name, path) of every file of a data folder, in a fixed order."""
    return list(_source_files(Path(folder)))


def stamp(folder: str | Path) -> dict[str, Any]:
    """What a snapshot of the data in folder is built from: flashtune's version and each file's CRC-32."""

    crcs = {}
    for rel, path in source_files(folder):
        crcs[rel] = zlib.crc32(path.read_bytes())
    return {"flashtune": __version__, "sources": crcs}


def read_stamp(snapshot: str | Path) -> dict[str, Any] | None:
    """The stamp a snapshot was built with (None: no readable stamp)."""
    try:
        doc = json.loads(Path(snapshot, STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _is_checkout() -> bool:
    return (SOURCE_DATA / "datapackage.json").is_file() and (REPO_ROOT / "compiler" / "flashtune").is_dir()


@cache
def _checkout_snapshot_matches() -> bool:
    """Is the snapshot beside a checkout's package built from data/ as it is now?"""
    return read_stamp(SNAPSHOT_DIR) == stamp(SOURCE_DATA)


@cache
def _data_copy(env: str) -> Path:
    """FLASHTUNE_DATA's folder, once it is seen to be a data folder (a copy of data/): a wrong value is one
    clear error, not a missing file deep inside whichever reader comes first."""
    folder = Path(env)
    entries = ("datapackage.json", "knobs", "profiles", "tiers")
    if not folder.is_dir() or not any((folder / n).exists() for n in entries):
        raise DataError(
            f"FLASHTUNE_DATA={env} is not a flashtune data folder (it has none of {', '.join(entries)})",
            file=str(folder),
            suggestion="point FLASHTUNE_DATA at a copy of the repository's data/ folder, or unset it",
        )
    return folder


def data_dir() -> Path:
    env = os.environ.get("FLASHTUNE_DATA")
    if env:
        return _data_copy(env)
    if _is_checkout():
        return SOURCE_DATA
    if not (SNAPSHOT_DIR / STAMP).is_file():
        raise DataError(
            "flashtune's data snapshot is missing from the installed package",
            file=str(SNAPSHOT_DIR),
            suggestion="reinstall flashtune (pip install --force-reinstall flashtune)",
        )
    return SNAPSHOT_DIR


def snapshot_dir() -> Path | None:
    """The snapshot of the data in use, or None: read the data folder itself (FLASHTUNE_DATA, or a checkout
    whose data/ changed since its snapshot was built)."""
    root = data_dir()
    if root == SNAPSHOT_DIR or (root == SOURCE_DATA and _checkout_snapshot_matches()):
        return SNAPSHOT_DIR
    return None


def data_crcs() -> dict[str, int]:
    """The CRC-32 of every file of the data in use (from the snapshot's stamp where the snapshot is in use)."""
    snapshot = snapshot_dir()
    found = read_stamp(snapshot) if snapshot is not None else None
    crcs: dict[str, int] = (found or stamp(data_dir()))["sources"]
    return crcs


def data_path(rel: str) -> Path:
    """A file or folder of the data, e.g. data_path("tiers/iops.yaml")."""
    return data_dir() / rel


def compiled(path: str | Path) -> Path | None:
    """The snapshot file with the compiled (JSON) form of a data YAML file, or None (parse the YAML)."""
    path = Path(path)
    if path.is_relative_to(SNAPSHOT_DIR):
        return path
    if path.is_relative_to(SOURCE_DATA) and snapshot_dir() == SNAPSHOT_DIR:
        return SNAPSHOT_DIR / path.relative_to(SOURCE_DATA)
    return None


def read_checked(name: str, make: Callable[[Path, str], Any]) -> Any:
    """checked/<name> of the snapshot in use: what the snapshot build wrote after its checks passed. Without
    a snapshot (see snapshot_dir) it is made as the build makes it, by make(data folder, how messages name
    that folder), with the same checks, and kept in memory only."""
    snapshot = snapshot_dir()
    if snapshot is None:
        return make(data_dir(), label_root())
    return json.loads((snapshot / CHECKED / name).read_text(encoding="utf-8"))


def data_names(folder: str, suffix: str = ".yaml") -> list[str]:
    """Stems of the files `<folder>/*<suffix>` in the data, sorted."""
    return sorted(p.name.removesuffix(suffix) for p in data_path(folder).glob(f"*{suffix}"))


def label_root() -> str:
    """How messages name the data folder: "data" for the shipped data, the folder itself for FLASHTUNE_DATA."""
    root = data_dir()
    return "data" if root in (SOURCE_DATA, SNAPSHOT_DIR) else str(root)


def data_label(rel: str) -> str:
    """How messages name a data file: data/<rel> for the shipped data, the full path for FLASHTUNE_DATA."""
    return f"{label_root()}/{rel}"


def has_data(rel: str) -> bool:
    return data_path(rel).is_file()


def knobs_dir() -> Path:
    return data_path("knobs")


def tiers_dir() -> Path:
    return data_path("tiers")


def profiles_dir() -> Path:
    return data_path("profiles")

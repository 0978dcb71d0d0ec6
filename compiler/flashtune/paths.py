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
from typing import Any

from flashtune.pathnames import StrPath, clean

PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))
# a source checkout: compiler/flashtune -> the repository
REPO_ROOT = os.path.dirname(os.path.dirname(PACKAGE_DIR))
SOURCE_DATA = os.path.join(REPO_ROOT, "data")  # the authoring YAML; only a source checkout has it
SNAPSHOT_DIR = os.path.join(PACKAGE_DIR, "_data")
STAMP = "index.json"  # in the snapshot: what it was built from (stamp())
CHECKED = "checked"  # in the snapshot: the folder of checked results (read_checked)


def _source_files(folder: str, prefix: str = "") -> Iterator[tuple[str, str]]:
    """(name relative to the data folder, path) of every data file, a folder's files by name, then its
    subfolders by name; editor backups, hidden files and caches are not data."""
    entries = sorted(os.scandir(folder), key=lambda e: e.name)
    for e in entries:
        if e.is_file() and not e.name.startswith((".", "#")) and not e.name.endswith(("~", ".pyc")):
            yield prefix + e.name, e.path
    for e in entries:
        if e.is_dir(follow_symlinks=False) and not e.name.startswith((".", "__")):
            yield from _source_files(e.path, f"{prefix}{e.name}/")


def source_files(folder: StrPath) -> list[tuple[str, str]]:
    """(relative name, path) of every file of a data folder, in a fixed order."""
    return list(_source_files(os.fspath(folder)))


def stamp(folder: StrPath) -> dict[str, Any]:
    """What a snapshot of the data in folder is built from: flashtune's version and each file's CRC-32."""
    from flashtune import __version__

    crcs = {}
    for rel, path in source_files(folder):
        with open(path, "rb") as f:
            crcs[rel] = zlib.crc32(f.read())
    return {"flashtune": __version__, "sources": crcs}


def read_stamp(snapshot: StrPath) -> dict[str, Any] | None:
    """The stamp a snapshot was built with (None: no readable stamp)."""
    try:
        with open(os.path.join(snapshot, STAMP), encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _is_checkout() -> bool:
    return os.path.isfile(os.path.join(SOURCE_DATA, "datapackage.json")) and os.path.isdir(
        os.path.join(REPO_ROOT, "compiler", "flashtune")
    )


@cache
def _checkout_snapshot_matches() -> bool:
    """Is the snapshot beside a checkout's package built from data/ as it is now?"""
    return read_stamp(SNAPSHOT_DIR) == stamp(SOURCE_DATA)


@cache
def _data_copy(env: str) -> str:
    """FLASHTUNE_DATA's folder, once it is seen to be a data folder (a copy of data/): a wrong value is one
    clear error, not a missing file deep inside whichever reader comes first."""
    from flashtune.errors import DataError

    folder = clean(env)
    entries = ("datapackage.json", "knobs", "profiles", "tiers")
    if not os.path.isdir(folder) or not any(os.path.exists(os.path.join(folder, n)) for n in entries):
        raise DataError(
            f"FLASHTUNE_DATA={env} is not a flashtune data folder (it has none of {', '.join(entries)})",
            file=folder,
            suggestion="point FLASHTUNE_DATA at a copy of the repository's data/ folder, or unset it",
        )
    return folder


def data_dir() -> str:
    env = os.environ.get("FLASHTUNE_DATA")
    if env:
        return _data_copy(env)
    if _is_checkout():
        return SOURCE_DATA
    if not os.path.isfile(os.path.join(SNAPSHOT_DIR, STAMP)):
        from flashtune.errors import DataError

        raise DataError(
            "flashtune's data snapshot is missing from the installed package",
            file=SNAPSHOT_DIR,
            suggestion="reinstall flashtune (pip install --force-reinstall flashtune)",
        )
    return SNAPSHOT_DIR


def snapshot_dir() -> str | None:
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


def data_path(rel: str) -> str:
    """A file or folder of the data, e.g. data_path("tiers/iops.yaml")."""
    return os.path.join(data_dir(), rel)


def compiled(path: StrPath) -> str | None:
    """The snapshot file with the compiled (JSON) form of a data YAML file, or None (parse the YAML)."""
    text = os.fspath(path)
    if text.startswith(f"{SNAPSHOT_DIR}/"):
        return text
    if text.startswith(f"{SOURCE_DATA}/") and snapshot_dir() == SNAPSHOT_DIR:
        return os.path.join(SNAPSHOT_DIR, text[len(SOURCE_DATA) + 1 :])
    return None


def read_checked(name: str, make: Callable[[str, str], Any]) -> Any:
    """checked/<name> of the snapshot in use: what the snapshot build wrote after its checks passed. Without
    a snapshot (see snapshot_dir) it is made as the build makes it, by make(data folder, how messages name
    that folder), with the same checks, and kept in memory only."""
    snapshot = snapshot_dir()
    if snapshot is None:
        return make(data_dir(), label_root())
    with open(os.path.join(snapshot, CHECKED, name), encoding="utf-8") as f:
        return json.load(f)


def data_names(folder: str, suffix: str = ".yaml") -> list[str]:
    """Stems of the files `<folder>/*<suffix>` in the data, sorted."""
    try:
        names = os.listdir(data_path(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(n[: -len(suffix)] for n in names if n.endswith(suffix))


def label_root() -> str:
    """How messages name the data folder: "data" for the shipped data, the folder itself for FLASHTUNE_DATA."""
    root = data_dir()
    return "data" if root in (SOURCE_DATA, SNAPSHOT_DIR) else root


def data_label(rel: str) -> str:
    """How messages name a data file: data/<rel> for the shipped data, the full path for FLASHTUNE_DATA."""
    return os.path.join(label_root(), rel)


def has_data(rel: str) -> bool:
    return os.path.isfile(data_path(rel))


def knobs_dir() -> str:
    return data_path("knobs")


def tiers_dir() -> str:
    return data_path("tiers")


def profiles_dir() -> str:
    return data_path("profiles")

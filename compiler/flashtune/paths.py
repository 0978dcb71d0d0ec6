"""Where flashtune's data lives, and how it is read fast.

data/*.yaml is compiled into the data snapshot (flashtune/_data, see flashtune.snapshot): a mirror of data/
whose YAML files hold JSON. yamlio.load_yaml reads that compiled form whenever it is asked for a data file,
so callers simply read `load_data("knobs/ceph.yaml")` or `os.path.join(data_dir(), "knobs", "ceph.yaml")`:
- installed package: data_dir() is the snapshot itself;
- source checkout: data_dir() is data/ (edit it, copy it); the snapshot beside the package is brought up to
  date first, like a .pyc with its .py, and load_yaml reads from it;
- FLASHTUNE_DATA=<folder> (a modified copy, in tests and the book build): that folder, parsed as YAML.

    data_dir()            the data folder (data/ names: knobs/, profiles/, tiers/, tables/, ...)
    data_path(rel)        one file or folder in it, e.g. data_path("tiers/iops.yaml")
    data_names(folder)    names of the YAML files in one data folder, e.g. data_names("tiers") -> ["iops", ...]
    load_data(rel)        one YAML data file, e.g. load_data("knobs/ceph.yaml"), as YDict/YList with lines
    load_plain(rel)       the same values without lines (faster: for data only looked up)
    data_label(rel)       how messages name that file, e.g. "data/knobs/ceph.yaml"
    compiled(path)        the snapshot file holding a data YAML file's compiled form, if there is one

Folders and files are plain strings (no pathlib: see flashtune.pathnames); wrap them in Path where it helps.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from flashtune.pathnames import StrPath, clean

PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))
# a source checkout: compiler/flashtune -> the repository
REPO_ROOT = os.path.dirname(os.path.dirname(PACKAGE_DIR))
SOURCE_DATA = os.path.join(REPO_ROOT, "data")  # the authoring YAML; only a source checkout has it
SNAPSHOT_DIR = os.path.join(PACKAGE_DIR, "_data")


@cache
def _checkout_snapshot() -> bool | None:
    """None: not a source checkout; True: its snapshot is up to date; False: it cannot be written."""
    if not (
        os.path.isfile(os.path.join(SOURCE_DATA, "datapackage.json"))
        and os.path.isdir(os.path.join(REPO_ROOT, "compiler", "flashtune"))
    ):
        return None
    from flashtune.snapshot import ensure

    return ensure(SOURCE_DATA, SNAPSHOT_DIR)


def data_dir() -> str:
    env = os.environ.get("FLASHTUNE_DATA")
    if env:
        return clean(env)
    if _checkout_snapshot() is not None:
        return SOURCE_DATA
    if not os.path.isfile(os.path.join(SNAPSHOT_DIR, "index.json")):
        from flashtune.errors import DataError

        raise DataError(
            "flashtune's data snapshot is missing from the installed package",
            file=SNAPSHOT_DIR,
            suggestion="reinstall flashtune (pip install --force-reinstall flashtune)",
        )
    return SNAPSHOT_DIR


def data_path(rel: str) -> str:
    """A file or folder of the data, e.g. data_path("tiers/iops.yaml")."""
    return os.path.join(data_dir(), rel)


def compiled(path: StrPath) -> str | None:
    """The snapshot file with the compiled (JSON) form of a data YAML file, or None (parse the YAML)."""
    text = os.fspath(path)
    if text.startswith(f"{SNAPSHOT_DIR}/"):
        return text
    if text.startswith(f"{SOURCE_DATA}/") and _checkout_snapshot():
        return os.path.join(SNAPSHOT_DIR, text[len(SOURCE_DATA) + 1 :])
    return None


def data_names(folder: str, suffix: str = ".yaml") -> list[str]:
    """Stems of the files `<folder>/*<suffix>` in the data, sorted."""
    try:  # (listdir, not Path.glob: the glob's pattern machinery costs every CLI start-up)
        names = os.listdir(data_path(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(n[: -len(suffix)] for n in names if n.endswith(suffix))


def data_label(rel: str) -> str:
    """How messages name a data file: data/<rel> for the shipped data, the full path for FLASHTUNE_DATA."""
    root = data_dir()
    return f"data/{rel}" if root in (SOURCE_DATA, SNAPSHOT_DIR) else os.path.join(root, rel)


def has_data(rel: str) -> bool:
    return os.path.isfile(data_path(rel))


def load_data(rel: str) -> Any:
    """One YAML file of the data (e.g. "profiles/base.yaml") as YDict/YList/scalars with line numbers."""
    from flashtune.yamlio import load_yaml

    return load_yaml(data_path(rel))


def load_plain(rel: str) -> Any:
    """One YAML data file's values without line numbers (plain dicts and lists; see yamlio.load_plain)."""
    from flashtune.yamlio import load_plain as load

    return load(data_path(rel))


def knobs_dir() -> str:
    return data_path("knobs")


def tiers_dir() -> str:
    return data_path("tiers")


def profiles_dir() -> str:
    return data_path("profiles")

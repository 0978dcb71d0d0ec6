"""Build hook: compile data/ into the JSON snapshot the package ships (flashtune/_data).

Everything else about the package is in pyproject.toml. The wheel carries no YAML to parse at run time:
the command-line tools read flashtune/_data (see compiler/flashtune/snapshot.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithDataSnapshot(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # a source checkout keeps compiler/flashtune/_data up to date by itself
            return
        sys.path.insert(0, str(ROOT / "compiler"))
        try:
            from flashtune.catalog.store import check_snapshot
            from flashtune.compile import profiles
            from flashtune.evidence import write_index
            from flashtune.snapshot import build_fresh
        finally:
            sys.path.pop(0)
        out = Path(self.build_lib) / "flashtune" / "_data"
        if out.exists():
            import shutil

            shutil.rmtree(out)
        build_fresh(ROOT / "data", out)
        # the whole catalog is checked once here, so the installed CLIs build only the knobs they use
        check_snapshot(out)
        # and the whole data package and every profile: compile-config reads the digests these write
        write_index(out)
        profiles.write_index(out)


setup(cmdclass={"build_py": BuildWithDataSnapshot})

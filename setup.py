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
            from flashtune.snapshot import build
        finally:
            sys.path.pop(0)
        # every data file compiled and checked (a bad one fails the build with its file and line)
        build(ROOT / "data", Path(self.build_lib) / "flashtune" / "_data")


setup(cmdclass={"build_py": BuildWithDataSnapshot})

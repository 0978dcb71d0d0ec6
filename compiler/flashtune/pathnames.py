"""File names as plain strings, spelt as pathlib spells them, for compile-config's path.

Importing pathlib costs compile-config about 17M instructions of start-up (with urllib.parse, ipaddress,
fnmatch and ntpath behind it), a twentieth of a whole compile. The modules a compile runs therefore handle
names as str with os.path, and these helpers keep what users see unchanged: `clean` writes a name the way
str(Path(name)) does (so `--out ./x/` is still reported as `x`), `stem` and `parent` follow PurePosixPath.
Other CLIs, notebooks and tests may use pathlib freely; tests/test_startup.py compares each helper with it.

Every function takes a str or any os.PathLike (a Path from a caller that has one) and returns a str.
"""

from __future__ import annotations

import os
from os import PathLike

StrPath = str | PathLike[str]  # what the compile path accepts where a file name is expected


def _split(name: StrPath) -> tuple[str, list[str]]:
    """(root: "", "/" or "//", the parts) as PurePosixPath parses a name (exactly two slashes stay a root)."""
    text = os.fspath(name)
    root = ""
    if text.startswith("/"):
        root = "//" if text.startswith("//") and not text.startswith("///") else "/"
    return root, [p for p in text.split("/") if p and p != "."]


def clean(name: StrPath) -> str:
    """str(PurePosixPath(name)): repeated and trailing slashes and "." parts dropped ("" is ".")."""
    text = os.fspath(name)
    # Most names are clean already (every data file a compile reads, each file it writes): say so with C-level
    # searches instead of splitting and re-joining them (~1M instructions of a compile). Clean: not empty, no
    # trailing slash, no empty or "." part; a leading "//" (exactly two) is a root of its own and stays.
    if text and text[-1] != "/" and "//" not in text[1:] and "/./" not in f"/{text}/":
        return text
    root, parts = _split(text)
    return root + "/".join(parts) if root or parts else "."


def join(base: StrPath, *names: str) -> str:
    """PurePosixPath(base, *names) as a string."""
    text = os.fspath(base)
    if len(names) == 1 and text and text[-1] != "/" and not names[0].startswith("/"):
        return clean(f"{text}/{names[0]}")  # what os.path.join writes for these, without its Python loop
    return clean(os.path.join(text, *names))


def name(path: StrPath) -> str:
    """The last part, as PurePosixPath.name ("" for a root or ".")."""
    _, parts = _split(path)
    return parts[-1] if parts else ""


def stem(path: StrPath) -> str:
    """The last part without its suffix, as PurePosixPath.stem (".bashrc" and "a." keep their dot)."""
    last = name(path)
    i = last.rfind(".")
    return last[:i] if 0 < i < len(last) - 1 else last


def stems(folder: StrPath, suffix: str) -> list[str]:
    """sorted(p.stem for p in Path(folder).glob("*" + suffix)), without the glob machinery ([] for a
    folder that is missing or not a folder, as glob gives)."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(stem(n) for n in names if n.endswith(suffix))


def parent(path: StrPath) -> str:
    """PurePosixPath.parent as a string ("x" -> ".", "/a" -> "/", a root is its own parent)."""
    root, parts = _split(path)
    return root + "/".join(parts[:-1]) if root or len(parts) > 1 else "."

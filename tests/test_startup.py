"""compile-config's start-up stays lean: a cold compile imports only what it uses.

The time itself is measured in bench/bench_compile.py (a ratio against `python -c pass` in the same run); these
tests catch the regressions that would silently bring the cost back: a module imported at the top that only an
error path, another CLI or a changed data file needs.
"""

from __future__ import annotations

import ast
import ipaddress
import itertools
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flashtune
from flashtune import pathnames
from flashtune.catalog import load_catalog
from flashtune.compile.derive_host import _address_kind, bind_address
from flashtune.emit.common import shell_quote
from flashtune.errors import UsageError
from flashtune.evidence import place

# Never needed by a compile that succeeds: each costs start-up time (OpenSSL's libcrypto behind hashlib, the
# did-you-mean matcher, shutil with its compression modules, tempfile's `random`, the YAML parsers the data
# snapshot replaces) or belongs to another CLI.
NOT_ON_THE_COMPILE_PATH = (
    "hashlib",
    "_hashlib",
    "difflib",
    "shutil",
    "bz2",
    "lzma",
    "tempfile",
    "random",
    "uuid",
    "platform",
    "subprocess",
    "ctypes",
    "pickle",
    "dataclasses",  # exec()s source per class: flashtune.record makes the record classes without it
    "inspect",  # ~12 ms to import; dataclasses brought it in
    "shlex",  # compiles a pattern at import: emit.common.shell_quote writes the same words
    "pathlib",  # ~17M instructions with what it imports: flashtune.pathnames spells names as it does
    "urllib",
    "ntpath",
    "ipaddress",  # ~6M instructions: the default bind address is read without it
    "importlib",  # flashtune.parse finds its parsers with __import__
    "errno",  # fileio names errors only when one happens
    "bisect",  # only an unknown my.cnf option name needs it
    "zlib",  # the snapshot's CRCs: only a changed data file in a checkout needs them
    "contextlib",  # ~3M instructions; only the first catalog load after a snapshot build uses it
    "locale",  # gettext imports it for argparse's phrases, which flashtune's parsers take as written
    "typing",  # ~15M instructions: typing-only names are imported under `if TYPE_CHECKING:` (see ARCHITECTURE.md)
    "yaml",
    "ruamel",
    "flashtune.ingest",
    # the data package's tables are read and checked when the snapshot is built: a compile resolves
    # evidence from the index written then (flashtune.evidence; ~10M instructions)
    "flashtune.datapackage",
    "csv",
    "flashtune.lint.suggest",
    "flashtune.lint.detect",
    "flashtune.catalog.card",
    "flashtune.compile.fleet",
    "flashtune.compile.plan",
    "flashtune.nb",
    "compile()",  # typing.NamedTuple calls it for each string annotation (see _compile_modules)
)


def _compile_modules(out: Path, *args: str) -> tuple[int, list[str]]:
    """(exit code, modules imported) of one compile-config run in a fresh interpreter. The list also has
    "compile()" if anything but the import system (which compiles a module's source when it has no bytecode
    yet) called compile(): the first call in a process builds all ~120 of `ast`'s node classes, ~9M
    instructions, a quarter of what importing the compiler's own modules costs."""
    code = (
        "import builtins, json, sys\n"
        "seen, real = [], builtins.compile\n"
        "def counted(source, filename, *args, **kwargs):\n"
        "    if not str(filename).endswith('.py'):\n"
        "        seen.append('compile()')\n"
        "    return real(source, filename, *args, **kwargs)\n"
        "builtins.compile = counted\n"
        "from flashtune.cli.compile import main\n"
        f"rc = main([*{list(args)!r}, '--out', {str(out)!r}])\n"
        "print(json.dumps([rc, sorted(sys.modules) + seen[:1]]))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy(), check=False
    )
    assert r.returncode == 0, r.stderr
    rc, modules = json.loads(r.stdout.splitlines()[-1])
    return rc, modules


def test_a_cold_compile_imports_only_what_it_uses(tmp_path: Path) -> None:
    # the first catalog load after a snapshot build checks every knob and records it (contextlib and more),
    # the first evidence look-up the whole data package (datapackage, csv): done here so the compile below
    # is a user's every run, whichever test runs first
    load_catalog()
    place("sources/guide-osd")
    rc, modules = _compile_modules(tmp_path / "o", "--tier", "iops", "--workload", "mysql")
    assert rc == 0 and (tmp_path / "o" / "manifest.json").is_file()
    loaded = [m for m in modules if m in NOT_ON_THE_COMPILE_PATH or m.split(".")[0] in ("yaml", "ruamel")]
    loaded += [m for m in modules if m.startswith(("flashtune.ingest.", "flashtune.envelope.calibrate"))]
    assert loaded == [], f"imported on the compile path: {loaded}"
    assert "flashtune.lint.ceph" in modules  # the check itself: the emitted files are still linted


def test_the_console_entry_imports_argparse_and_the_compiler_after_pausing_the_collector() -> None:
    """The compile-config script imports flashtune.cli.compile, then calls console(), which pauses the garbage
    collector; what the module imports before that is scanned by the collector's passes (~3M instructions for
    argparse, json and the compiler), so the module itself imports none of them."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import flashtune.cli.compile\n"
        "print(sorted(set(sys.modules) - before))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    imported = ast.literal_eval(r.stdout)
    assert "flashtune.cli.compile" in imported  # the check itself
    early = [m for m in imported if m in ("argparse", "json", "flashtune.cli.common") or ".compile." in m]
    assert early == [], f"imported before console() pauses the collector: {early}"


def test_the_yaml_scalar_patterns_are_compiled_only_when_yaml_is_parsed() -> None:
    """Reading the data snapshot never resolves a YAML scalar, so the compile path compiles none of them."""
    code = (
        "import re\n"
        "import flashtune.yamlio as y\n"
        "from flashtune.catalog import load_catalog\n"
        "load_catalog().get('osd_memory_target', 'ceph')\n"
        "pats = [getattr(y, n) for n in ('_NULL', '_INT', '_INT_OCT', '_INT_HEX', '_FLOAT', '_INF', '_NAN')]\n"
        "hit = [p for p in pats if any(k[1] == p for k in re._cache)]\n"
        "y.parse_yaml('a: 0x1f\\nb: .inf\\n')\n"
        "after = [p for p in pats if any(k[1] == p for k in re._cache)]\n"
        "print(len(hit), len(after) > 0)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "True"]


def test_a_cold_compile_compiles_no_regular_expression_of_its_own(tmp_path: Path) -> None:
    """Compiling one pattern costs a start-up 0.4-1.2M instructions (re's parser and compiler are Python), about
    as much as a small module: flashtune's code on the compile path reads with string methods, and compiles a
    pattern only where an error path or another command needs it (json's and argparse's own are not counted).
    The emitted files are still parsed and linted: the same run imports the linters."""
    load_catalog()  # the snapshot is up to date: rebuilding it parses YAML, with patterns
    code = (
        "import json, os, sys\n"
        "import re._compiler as rc\n"
        "real, ours = rc.compile, []\n"
        "def counted(p, flags=0):\n"
        "    f = sys._getframe(1)\n"
        "    while f is not None and (\n"
        "        os.sep + 're' + os.sep in f.f_code.co_filename\n"
        "        or os.path.basename(f.f_code.co_filename) in ('fnmatch.py', 'functools.py')\n"
        "    ):\n"
        "        f = f.f_back\n"
        "    if f is not None and os.sep + 'flashtune' + os.sep in f.f_code.co_filename:\n"
        "        ours.append(f'{f.f_code.co_filename}:{f.f_lineno} {p!r}')\n"
        "    return real(p, flags)\n"
        "rc.compile = counted\n"
        "from flashtune.cli.compile import main\n"
        f"rc_ = main(['--tier', 'iops', '--workload', 'mysql', '--out', {str(tmp_path / 'o')!r}])\n"
        "print(json.dumps([rc_, ours, 'flashtune.lint.sysctl' in sys.modules]))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    rc, ours, linted = json.loads(r.stdout.splitlines()[-1])
    assert rc == 0 and linted
    assert ours == [], "patterns compiled on the compile path:\n" + "\n".join(ours)


WORDS = [
    "",
    "a",
    "pool-1",
    "a b",
    "it's",
    "'",
    '"',
    "$HOME",
    "x;y",
    "a\nb",
    "ä",
    "ünïcode",
    "@%+=:,./-_",
    "*",
    "~",
]


@pytest.mark.parametrize("word", WORDS)
def test_shell_quote_writes_what_shlex_writes(word: str) -> None:
    assert shell_quote(word) == shlex.quote(word)
    assert shlex.split(shell_quote(word)) == [word]


ADDRESSES = [
    "127.0.0.1",
    "127.255.0.9",
    "0.0.0.0",
    "10.0.1.5",
    "255.255.255.255",
    "192.168.001.1",
    "01.2.3.4",
    "256.1.1.1",
    "1.2.3",
    "1.2.3.4.5",
    "1..3.4",
    "１.2.3.4",
    "+1.2.3.4",
    " 1.2.3.4",
    "1.2.3.4 ",
    "",
    "::1",
    "::",
    "fe80::1",
    "::ffff:127.0.0.1",
    "localhost",
    "1.2.3.-4",
    "0.0.0.00",
    "0x7f.0.0.1",
]


@pytest.mark.parametrize("text", ADDRESSES)
def test_the_address_check_agrees_with_ipaddress(text: str) -> None:
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        with pytest.raises(ValueError):
            _address_kind(text)
        if text == text.strip():  # bind_address strips the spaces around each address
            with pytest.raises(UsageError, match="is not an IP address"):
                bind_address(text)
        return
    assert _address_kind(text) == (ip.is_unspecified, ip.is_loopback)


def _runtime_typing_imports(tree: ast.AST) -> list[int]:
    """Lines importing typing outside an `if TYPE_CHECKING:` block."""
    found = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            found += [n for child in node.orelse for n in _runtime_typing_imports(ast.Module([child], []))]
            continue
        if (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "typing" for a in node.names)) or (
            isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "typing"
        ):
            found.append(node.lineno)
        else:
            found += _runtime_typing_imports(node)
    return found


def test_no_module_imports_typing_at_run_time() -> None:
    """Not only the compile path: lint-config and the other commands start without typing too, and a module that
    moves onto the compile path cannot bring it back. Typing-only names go under `if TYPE_CHECKING:`."""
    package = Path(flashtune.__file__).parent
    offenders = [
        f"{path.relative_to(package)}:{line}"
        for path in sorted(package.rglob("*.py"))
        for line in _runtime_typing_imports(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert offenders == [], f"typing imported at run time: {offenders}"
    assert _runtime_typing_imports(ast.parse("def f():\n    from typing import cast\n")) == [2]
    assert _runtime_typing_imports(
        ast.parse("if TYPE_CHECKING:\n    import typing\nelse:\n    import typing\n")
    ) == [4]


def test_parsers_take_argparse_phrases_as_written_and_leave_gettext_to_other_parsers() -> None:
    code = (
        "import argparse, gettext, sys\n"
        "from flashtune.cli.common import Parser\n"
        "Parser(prog='x', description='d').add_argument('--flag', choices=('a', 'b'))\n"
        "print(vars(argparse)['_'] is gettext.gettext, 'locale' in sys.modules)\n"
        "argparse.ArgumentParser(prog='y')  # an ordinary parser still asks gettext (which imports locale)\n"
        "print('locale' in sys.modules)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "False", "True"]
    from flashtune.cli.compile import build_parser

    text = build_parser().format_help()  # the phrases as argparse writes them
    assert "\noptions:\n  -h, --help " in text and "show this help message and exit" in text


NAMES = [
    "",
    ".",
    "./",
    "a",
    "a/",
    "./a/./b//c/",
    "/",
    "//",
    "///",
    "//a",
    "///a/b",
    "/a/..",
    "a/../b",
    "..",
    ".bashrc",
    "a.",
    "a.b.c",
    "x/.y.z",
    "/.",
    "..a",
    "a..",
    "~/x y/z.yaml",
    "a/.",
    "./.",
    "a//b.tar.gz",
]


@pytest.mark.parametrize("name", NAMES)
def test_names_are_spelt_as_pathlib_spells_them(name: str) -> None:
    p = PurePosixPath(name)
    assert pathnames.clean(name) == str(p)
    assert pathnames.name(name) == p.name
    assert pathnames.stem(name) == p.stem
    assert pathnames.parent(name) == str(p.parent)
    assert pathnames.clean(Path(name)) == str(p)  # a Path from a caller that has one


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="/.ab", max_size=12), st.text(alphabet="/.ab", max_size=6))
def test_any_name_is_cleaned_and_joined_as_pathlib_does(name: str, other: str) -> None:
    # clean() returns a name it finds clean as it is, join() writes "base/name" itself: slashes, dots and
    # their runs in every arrangement
    assert pathnames.clean(name) == str(PurePosixPath(name))
    assert pathnames.join(name, other) == str(PurePosixPath(name, other))
    assert pathnames.join(other, name) == str(PurePosixPath(other, name))


def test_isinstance_checks_name_their_types_in_a_tuple() -> None:
    # `isinstance(v, list | tuple)` builds a types.UnionType each time it runs (~400 instructions; ~1700 such
    # checks ran in one compile); a tuple of types is a constant
    found = []
    for path in sorted(Path(flashtune.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass")
                and len(node.args) == 2
                and isinstance(node.args[1], ast.BinOp)
                and isinstance(node.args[1].op, ast.BitOr)
            ):
                found.append(f"{path.name}:{node.lineno}")
    assert found == [], f"write isinstance(v, (A, B)): {found}"


def test_joined_names_and_folder_listings_match_pathlib(tmp_path: Path) -> None:
    for base, rel in itertools.product(NAMES, ["x", "/y", "x/", "./z", "", "a/b.yaml"]):
        assert pathnames.join(base, rel) == str(PurePosixPath(base) / rel), (base, rel)
    for n in ("b.yaml", "a.yaml", ".yaml", "c.yml", "d.yaml.bak", "x.y.yaml"):
        (tmp_path / n).write_text("")
    (tmp_path / "sub.yaml").mkdir()
    assert pathnames.stems(tmp_path, ".yaml") == sorted(p.stem for p in tmp_path.glob("*.yaml"))
    assert pathnames.stems(tmp_path / "missing", ".yaml") == []


def test_a_compile_reports_names_as_before(tmp_path: Path) -> None:
    """--out and --hardware are spelt as str(Path(name)) in what compile-config prints and writes."""
    hw = tmp_path / "my.rig.yaml"
    hw.write_text((Path(__file__).parents[1] / "data" / "tiers" / "iops.yaml").read_text())
    out = f"{tmp_path}//out/./"
    args = [
        "--hardware",
        f"{tmp_path}/./my.rig.yaml",
        "--workload",
        "block",
        "--out",
        out,
        "--format",
        "json",
    ]
    r = subprocess.run(
        [sys.executable, "-m", "flashtune.cli.compile", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["out"] == str(Path(out))
    assert doc["files"][0] == str(Path(out) / "ceph.conf")
    assert doc["manifest"]["inputs"]["hardware"] == str(hw)
    again = subprocess.run(
        [
            sys.executable,
            "-m",
            "flashtune.cli.compile",
            "--tier",
            "iops",
            "--workload",
            "block",
            "--out",
            out,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode != 0
    assert again.stderr.startswith(f"{Path(out) / 'ceph.conf'}: error: exists already"), again.stderr

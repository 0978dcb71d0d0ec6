"""The stand-ins compile-config used instead of shlex, ipaddress and pathlib behave as the stdlib does (they
go when those modules are used directly: issue 22), and a compile spells the names it is given as pathlib does.
"""

from __future__ import annotations

import ipaddress
import itertools
import json
import shlex
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flashtune import pathnames
from flashtune.compile.derive_host import _address_kind, bind_address
from flashtune.emit.common import shell_quote
from flashtune.errors import UsageError

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

"""The ceph.conf scanner against the real ceph-conf 16.2.15: the same sections, keys and values for every
grammar edge case, the emitted text read back the same, and the same lookup precedence and metavariables."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from flashtune.parse import ConfSyntaxError, render_text
from flashtune.parse.cephconf import parse
from support.conf_samples import CEPH_CONF_CORPUS
from support.grammars import cephconf_pyparsing


@pytest.mark.ceph
@pytest.mark.parametrize(("name", "text"), CEPH_CONF_CORPUS, ids=[c[0] for c in CEPH_CONF_CORPUS])
def test_agrees_with_real_ceph_conf(name: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / "edge.conf"
    path.write_bytes(text.encode())
    ours = _ours(text)
    listing = _ceph_conf(path, "-L")
    refused = "parse error" in listing.stderr
    assert refused == (ours is None), f"ceph-conf {'refused' if refused else 'accepted'}: {listing.stderr}"
    assert name.startswith("err-") == refused, "corpus label disagrees with ceph-conf"
    if ours is None:
        return
    assert sorted(listing.stdout.splitlines()) == sorted(ours), "section lists differ"
    for section, keys in ours.items():
        for key, value in keys.items():
            # client.zz matches no section, so ceph-conf searches [section] then [global]
            r = _ceph_conf(path, "-s", section, "--name", "client.zz", "--lookup", key)
            assert r.returncode == 0, f"ceph-conf cannot find [{section}] {key}: {r.stderr}"
            assert r.stdout.rstrip("\n") == value, f"[{section}] {key}"


@pytest.mark.ceph
def test_emitted_text_reads_the_same_in_ceph_conf(tmp_path: Path) -> None:
    doc = parse('[global]\nlog dir = a\\#b\n[osd]\nx = " padded "\ny = semi\\;c\n[osd]\nx = 2\n')
    path = tmp_path / "emitted.conf"
    path.write_text(render_text(doc))
    for section, key, value in [("global", "log_dir", "a#b"), ("osd", "x", "2"), ("osd", "y", "semi;c")]:
        r = _ceph_conf(path, "-s", section, "--name", "client.zz", "--lookup", key)
        assert r.stdout.rstrip("\n") == value


@pytest.mark.ceph
def test_lookup_precedence_and_metavariables_agree_with_ceph_conf(tmp_path: Path) -> None:
    from flashtune.catalog.names import ceph_option_names
    from flashtune.parse.cephconf import expand_meta, lookup

    path = tmp_path / "ceph.conf"  # the file name keeps ceph-conf's $cluster at "ceph"
    path.write_text(META_CONF)
    doc = parse(META_CONF)
    options = ceph_option_names("pacific") or frozenset()

    def option(var: str) -> str | None:
        e = lookup(doc, "osd.0", var)
        return (e.value or "") if var in options and e is not None else None

    for key in ("foo", "bar", "baz", "osd_data", "loop", "lone", "unk", "q"):
        e = lookup(doc, "osd.0", key)
        assert e is not None and e.value is not None
        ours = expand_meta(e.value, name="osd.0", option=option)
        real = _ceph_conf(path, "--name", "osd.0", "--lookup", key)
        assert real.stdout.rstrip("\n") == ours, key


@pytest.mark.ceph
def test_key_of_only_an_escaped_blank_is_accepted_like_ceph_conf(tmp_path: Path) -> None:
    """Found by hypothesis: `\\ = 1` normalises to an empty key, which Ceph accepts (no 'missing key' error)."""
    text = "[global]\n\\ = 1\nfoo = 2\n"
    path = tmp_path / "c.conf"
    path.write_text(text)
    r = _ceph_conf(path, "-L")
    assert r.returncode == 0 and r.stdout.split() == ["global"]
    assert [(e.section, e.key, e.value) for e in parse(text).entries] == [
        ("global", "", "1"),
        ("global", "foo", "2"),
    ]
    assert cephconf_pyparsing(text) == [("global", "", "1"), ("global", "foo", "2")]


def _ours(text: str) -> dict[str, dict[str, str]] | None:
    try:
        doc = parse(text)
    except ConfSyntaxError:
        return None
    return {s: {k: e.value or "" for k, e in keys.items()} for s, keys in doc.effective().items()}


def _ceph_conf(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CEPH_CONF", "CEPH_ARGS")}
    return subprocess.run(
        ["ceph-conf", "-c", str(path), *args], capture_output=True, text=True, env=env, timeout=30
    )


META_CONF = (
    "[global]\nfoo = $cluster-$name\nbar = ${type}.${id}-$num\nbaz = $osd_data/x\nosd data = /d/$id\n"
    "loop = $loop\nlone = a $ b\nunk = $nosuch\n[osd]\nq = 1\n[osd.0]\nq = 2\n[osd.1]\nq = 3\n"
)

"""The lint benchmark runs end to end (small size, no timing asserts) and its generated file is valid Ceph."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from flashtune.parse import parse_text

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_lint.py"


def _load() -> object:
    spec = importlib.util.spec_from_file_location("bench_lint", BENCH)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_lint"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.ceph
def test_bench_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    mod = _load()
    assert mod.main(["--lines", "3000", "--repeat", "1"]) == 0  # type: ignore[attr-defined]
    out = capsys.readouterr().out
    for content in ("known", "unknown", "duplicate"):
        assert f"{content}: 3000 lines" in out
    assert out.count("ratio lint/ceph-conf") == 3 and "slowest content" in out


def test_generated_conf_has_the_requested_lines_and_parses() -> None:
    mod = _load()
    for content in ("known", "unknown", "duplicate"):
        text = mod.generate(5000, content=content)  # type: ignore[attr-defined]
        assert text.count("\n") == 5000
        doc = parse_text(text, "ceph.conf")
        assert len(doc.entries) > 4000 and doc.line_count == 5000
        keys = {e.key for e in doc.entries}
        if content == "unknown":
            assert len(keys) > 4000  # every key distinct, so every one needs its own look-up
        if content == "duplicate":
            assert len(keys) <= 2

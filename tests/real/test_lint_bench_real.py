"""The lint benchmark (bench/bench_lint.py) runs end to end against the real ceph-conf (small size, no timing
asserts)."""

from __future__ import annotations

import pytest

from support.bench import load_bench


@pytest.mark.ceph
def test_bench_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    mod = load_bench("bench_lint")
    assert mod.main(["--lines", "3000", "--repeat", "1"]) == 0  # type: ignore[attr-defined]
    out = capsys.readouterr().out
    for content in ("known", "unknown", "duplicate"):
        assert f"{content}: 3000 lines" in out
    assert out.count("ratio lint/ceph-conf") == 3 and "slowest content" in out

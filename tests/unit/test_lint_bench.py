"""The lint benchmark runs end to end (small size, no timing asserts) and its generated file is valid Ceph."""

from __future__ import annotations

from flashtune.parse import parse_text
from support.bench import load_bench


def test_generated_conf_has_the_requested_lines_and_parses() -> None:
    mod = load_bench("bench_lint")
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

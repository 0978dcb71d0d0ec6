"""`flashtune envelope --hardware` on hardware shaped like users' own clusters (tests/fixtures/userhw/: none
of them a shipped tier or a published set-up): physically sane figures, ranges that respect every resource,
the outside-calibration notes, and bad files refused with file:line."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from flashtune.cli.main import main
from flashtune.envelope import report
from flashtune.envelope.ceilings import RESOURCE_CLASS

USERHW = Path(__file__).parents[1] / "fixtures" / "userhw"
FILES = sorted(USERHW.glob("*.yaml"))
VARIANTS: tuple[tuple[str, ...], ...] = ((), ("--ec", "4+2"), ("--replication", "2"))


def envelope_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["envelope", *args, "--format", "json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def numbers(x: Any) -> list[float]:
    if isinstance(x, bool):
        return []
    if isinstance(x, (int, float)):
        return [float(x)]
    if isinstance(x, dict):
        return [n for v in x.values() for n in numbers(v)]
    if isinstance(x, list):
        return [n for v in x for n in numbers(v)]
    return []


def test_the_user_fixtures_are_not_shipped_tiers_or_published_set_ups() -> None:
    assert len(FILES) >= 6
    names = {p.stem for p in FILES}
    assert not names & {"iops", "standard", "tco"}
    assert not names & {p.stem for p in Path(report.__file__).parents[3].glob("data/envelope/setups/*.yaml")}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
@pytest.mark.parametrize("extra", VARIANTS, ids=lambda v: " ".join(v) or "as-written")
def test_every_figure_is_finite_and_every_range_holds_its_point(
    path: Path, extra: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    doc = envelope_json(capsys, "--hardware", str(path), *extra)
    k = report.constants()
    for case in doc["cases"]:
        figures = numbers({key: v for key, v in case.items() if key != "read_fraction"})
        assert all(math.isfinite(n) and n >= 0 for n in figures), case
        assert case["predicted_IOPS"] > 0
        lo, hi = case["range_IOPS"]
        assert lo <= case["predicted_IOPS"] <= hi, case
        # no resource's real ceiling lies above its ceiling times its class's validated high end
        for r, v in case["ceilings_IOPS"].items():
            if v is not None:
                assert hi <= (v + 1) * k.ranges[RESOURCE_CLASS[r]][1] + 1, (case["case"], r)


def test_a_range_never_passes_the_line_rate_of_a_wire_the_limit_does_not_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The tco tier's 4K reads are limited by its SATA drives, but 6 clients with one 10 Gb/s port each cannot
    move more than 6 x 10e9 / 8 / 4096 = 1,831,055 4 KiB reads per second whatever the drives do: the range's
    high end stays below that (it was the media limit times the media class's ratio, 2.58 M)."""
    doc = envelope_json(capsys, "--tier", "tco")
    randread = doc["cases"][0]
    assert randread["limit"] == "media"
    line_rate = 6 * 10e9 / 8 / 4096
    assert randread["range_IOPS"][1] < line_rate
    assert randread["range_ratio"][1] == pytest.approx(
        randread["range_IOPS"][1] / randread["predicted_IOPS"], abs=1e-3
    )
    # the validated network ratios leave the wire's payload under its line rate in every link class
    k = report.constants()
    for eff in (*k.net_by_class.values(), *k.net_write_by_class.values(), k.net_efficiency):
        assert eff * k.ranges["network"][1] < 1

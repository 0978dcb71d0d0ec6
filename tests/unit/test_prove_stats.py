"""flashtune prove's statistics against known distributions (seeded, so every run sees the same draws).

The claims: an injected +20 % shift is found and its interval contains +20 %; two arms drawn from one
distribution give "no detectable difference" in at least 95 % of trials, with the 3 samples per arm a run
takes by default; an interval that includes zero is never called a gain.
"""

from __future__ import annotations

import random

import pytest

from flashtune.prove.stats import BETTER, SAME, WORSE, compare, format_gain, percentile_interval, t975

# A throughput with 3 % run-to-run spread: what a quiet cluster's repeated samples look like.
MEAN, SPREAD = 10_000.0, 300.0


def _arm(rng: random.Random, n: int, factor: float = 1.0) -> list[float]:
    return [factor * rng.gauss(MEAN, SPREAD) for _ in range(n)]


def test_t_quantiles_match_the_table_values() -> None:
    assert t975(1) == 12.706
    assert t975(4) == 2.776
    assert t975(30) == 2.042
    assert t975(200) == pytest.approx(1.972, abs=0.002)
    with pytest.raises(ValueError):
        t975(0)


def test_a_20_percent_shift_is_found_inside_its_interval() -> None:
    found = contained = 0
    trials = 100
    for seed in range(trials):
        rng = random.Random(seed)
        a, b = _arm(rng, 5), _arm(rng, 5, 1.20)
        c = compare(a, b, seed=seed)
        found += c.verdict == BETTER
        contained += c.low <= 0.20 <= c.high
    assert found >= 0.95 * trials
    assert contained >= 0.95 * trials


def test_one_seeded_shift_reads_as_a_gain_with_its_interval() -> None:
    rng = random.Random(7)
    c = compare(_arm(rng, 5), _arm(rng, 5, 1.20), seed=7)
    assert c.verdict == BETTER
    assert 0 < c.low < 0.20 < c.high
    assert 0.10 < c.gain < 0.30
    assert format_gain(c).startswith("+")


def test_a_20_percent_loss_is_worse() -> None:
    rng = random.Random(3)
    c = compare(_arm(rng, 5), _arm(rng, 5, 0.80), seed=3)
    assert c.verdict == WORSE
    assert c.low < -0.20 < c.high < 0


@pytest.mark.parametrize("n", [3, 5])
def test_identical_arms_show_no_detectable_difference_in_95_percent_of_trials(n: int) -> None:
    trials = 200
    same = 0
    for seed in range(trials):
        rng = random.Random(1000 + seed)
        c = compare(_arm(rng, n), _arm(rng, n), seed=seed)
        same += c.verdict == SAME
        # whatever the point estimate, an interval that includes zero is never a gain
        assert (c.verdict == SAME) == (c.low <= 0 <= c.high)
    assert same >= 0.95 * trials


def test_the_plain_percentile_interval_would_call_differences_that_are_not_there() -> None:
    """Why compare() does not use it: with 3 samples per arm, identical arms separate completely about 1 time in
    10, and every resample then agrees on the sign."""
    trials = 200
    false = 0
    for seed in range(trials):
        rng = random.Random(1000 + seed)
        low, high = percentile_interval(_arm(rng, 3), _arm(rng, 3), seed=seed)
        false += not low <= 0 <= high
    assert false > 0.05 * trials


def test_bad_samples_are_refused() -> None:
    with pytest.raises(ValueError):
        compare([1.0], [1.0, 2.0])
    with pytest.raises(ValueError):
        compare([0.0, 1.0], [1.0, 2.0])

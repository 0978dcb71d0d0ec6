"""How sure an A/B gain is: the median of each arm, the gain of B over A and a bootstrap 95 % interval.

The gain is median(B) / median(A) - 1. Its interval is a bootstrap-t interval on the log scale: the arms are
resampled independently (seeded, so a report can be reproduced), the standard error of log(median B / median A)
is the spread of the resampled ratios (scaled by sqrt(n / (n - 1)), since a bootstrap's spread underestimates a
small sample's), and the interval is the estimate +- Student's t quantile (nA + nB - 2 degrees of freedom) times
that error. A percentile interval would be the textbook choice, but it cannot reach beyond the values observed:
with 3 samples per arm, identical arms separate completely 1 time in 10, and the percentile interval then calls
a difference that is not there (tests/unit/test_prove_stats.py measures both).

The verdict follows the interval only: above zero "better", below zero "worse", containing zero "no detectable
difference", whatever the point estimate says.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

BETTER = "better"
WORSE = "worse"
SAME = "no detectable difference"

# Student's t, two-sided 95 % (the 0.975 quantile) by degrees of freedom; beyond 30 the normal's 1.96 is close.
_T975 = (
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
)


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with df degrees of freedom (df >= 1)."""
    if df < 1:
        raise ValueError("t quantile needs at least one degree of freedom")
    return _T975[df - 1] if df <= len(_T975) else 1.96 + 2.4 / df


@dataclass(frozen=True)
class Comparison:
    """One case's A/B result. Gains are fractions (0.2 = +20 %); higher values are better."""

    n_a: int
    n_b: int
    median_a: float
    median_b: float
    gain: float
    low: float  # 95 % interval of the gain
    high: float
    verdict: str

    @property
    def interval(self) -> tuple[float, float]:
        return (self.low, self.high)


def _log_median_ratio(a: Sequence[float], b: Sequence[float]) -> float:
    return math.log(statistics.median(b)) - math.log(statistics.median(a))


def compare(a: Sequence[float], b: Sequence[float], *, resamples: int = 2000, seed: int = 0) -> Comparison:
    """Compare arm B with arm A (throughput-like values: positive, higher is better)."""
    if len(a) < 2 or len(b) < 2:
        raise ValueError("each arm needs at least 2 samples for an interval")
    if min(a) <= 0 or min(b) <= 0:
        raise ValueError("samples must be positive (a throughput, not a latency of zero or a failed run)")
    rng = random.Random(seed)
    est = _log_median_ratio(a, b)
    reps = [_log_median_ratio(rng.choices(a, k=len(a)), rng.choices(b, k=len(b))) for _ in range(resamples)]
    n = min(len(a), len(b))
    se = statistics.pstdev(reps) * math.sqrt(n / (n - 1))
    half = t975(len(a) + len(b) - 2) * se
    low, high = math.expm1(est - half), math.expm1(est + half)
    verdict = BETTER if low > 0 else WORSE if high < 0 else SAME
    return Comparison(
        n_a=len(a),
        n_b=len(b),
        median_a=statistics.median(a),
        median_b=statistics.median(b),
        gain=math.expm1(est),
        low=low,
        high=high,
        verdict=verdict,
    )


def percentile_interval(
    a: Sequence[float], b: Sequence[float], *, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """The plain percentile bootstrap interval of the same gain (kept to show why compare() does not use it)."""
    rng = random.Random(seed)
    reps = sorted(
        _log_median_ratio(rng.choices(a, k=len(a)), rng.choices(b, k=len(b))) for _ in range(resamples)
    )
    return math.expm1(reps[int(0.025 * resamples)]), math.expm1(reps[int(0.975 * resamples) - 1])


def format_gain(c: Comparison) -> str:
    """'+18.2 % (95 % CI +9.1 % to +27.9 %)'."""
    return f"{100 * c.gain:+.1f} % (95 % CI {100 * c.low:+.1f} % to {100 * c.high:+.1f} %)"

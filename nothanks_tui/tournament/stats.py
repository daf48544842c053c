"""Statistics for tournaments: means with Student-t 95% confidence intervals and Elo-style ratings.

Kept apart from the game runner so the numbers can be checked on known inputs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Two-sided 95% Student-t quantiles for 1..30 degrees of freedom; beyond 30 the normal 1.96 is close enough
# (t at 30 df is 2.042, at 120 df 1.980).
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t95(degrees_of_freedom: int) -> float:
    """The two-sided 95% quantile of Student's t (1.96 beyond 120 degrees of freedom)."""
    if degrees_of_freedom < 1:
        raise ValueError("need at least one degree of freedom")
    if degrees_of_freedom <= 30:
        return _T95[degrees_of_freedom - 1]
    if degrees_of_freedom <= 60:
        return 2.042 - (degrees_of_freedom - 30) * (2.042 - 2.000) / 30
    if degrees_of_freedom <= 120:
        return 2.000 - (degrees_of_freedom - 60) * (2.000 - 1.980) / 60
    return 1.96


@dataclass(frozen=True, slots=True)
class MeanCI:
    """A sample mean and the half-width of its 95% confidence interval (None with fewer than two samples)."""

    mean: float
    half_width: float | None
    samples: int


def mean_ci(values: Sequence[float]) -> MeanCI:
    """Mean of independent samples with a Student-t 95% interval."""
    n = len(values)
    if n == 0:
        raise ValueError("no samples")
    mean = sum(values) / n
    if n < 2:
        return MeanCI(mean, None, n)
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return MeanCI(mean, t95(n - 1) * math.sqrt(variance / n), n)


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile (0..1) by linear interpolation between closest ranks."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


# Pairwise results: (a, b) -> points a scored against b over all their meetings, and the meetings themselves.
PairResults = Mapping[tuple[str, str], tuple[float, int]]


def elo_ratings(
    results: PairResults, names: Sequence[str], mean: float = 1500.0, prior: float = 0.5
) -> dict[str, float]:
    """Elo-style ratings from pairwise results (Bradley-Terry, fitted by minorisation-maximisation).

    ``results[(a, b)] = (points_a, meetings)`` with a win worth 1 and a tie 0.5; each pair appears once in either
    order. ``prior`` adds that many virtual points each way to every pair that met, so a clean sweep gives a large
    but finite gap. A 75% score between two players gives 400*log10(3) = 191 points. Ratings average ``mean``.
    """
    index = {name: i for i, name in enumerate(names)}
    count = len(names)
    wins = [[0.0] * count for _ in range(count)]
    for (a, b), (points, meetings) in results.items():
        if meetings <= 0:
            continue
        i, j = index[a], index[b]
        wins[i][j] += points + prior
        wins[j][i] += meetings - points + prior
    strength = [1.0] * count
    for _ in range(10_000):
        changed = 0.0
        for i in range(count):
            total_wins = sum(wins[i])
            denominator = sum((wins[i][j] + wins[j][i]) / (strength[i] + strength[j]) for j in range(count) if j != i)
            if denominator == 0 or total_wins == 0:
                continue
            updated = total_wins / denominator
            changed = max(changed, abs(math.log(updated / strength[i])))
            strength[i] = updated
        geometric = math.exp(sum(math.log(s) for s in strength) / count)
        strength = [s / geometric for s in strength]
        if changed < 1e-10:
            break
    return {name: mean + 400 * math.log10(strength[index[name]]) for name in names}

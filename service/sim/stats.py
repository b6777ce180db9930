"""The statistics of a balance report: intervals for a rate, tests for an even share, and
percentiles. Plain Python (no scipy): the service's base install stays small."""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile: a two-sided 95% interval


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial rate (95% by default); (0, 1) without trials.
    Unlike the normal approximation it stays inside [0, 1] and is sound near 0% and 100%."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # it holds p: rounding alone could put an end a hair past it (at 0% or 100%)
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def binomial_two_sided(successes: int, trials: int, p: float = 0.5) -> float:
    """The exact binomial test's two-sided p-value: the chance, under rate `p`, of an outcome no
    more likely than the one seen (the method of R's binom.test and scipy's binomtest)."""
    if trials <= 0:
        return 1.0
    probs = [math.comb(trials, k) * p**k * (1 - p) ** (trials - k) for k in range(trials + 1)]
    seen = probs[successes] * (1 + 1e-7)  # outcomes as likely as the one seen, rounding aside
    return min(1.0, sum(q for q in probs if q <= seen))


def chi_square_even(counts: Sequence[int]) -> tuple[float, int, float]:
    """Pearson's goodness-of-fit test of counts against equal shares: the statistic, its
    degrees of freedom and its p-value. (0, 0, 1) when there is nothing to test."""
    total, k = sum(counts), len(counts)
    if k < 2 or total == 0:
        return (0.0, 0, 1.0)
    expected = total / k
    statistic = sum((c - expected) ** 2 / expected for c in counts)
    return (statistic, k - 1, chi_square_sf(statistic, k - 1))


def chi_square_sf(x: float, df: int) -> float:
    """P(X ≥ x) for a chi-square variable with `df` degrees of freedom."""
    if x <= 0:
        return 1.0
    return _gamma_q(df / 2, x / 2)


def _gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x): a series below a + 1, a
    continued fraction (modified Lentz) above, each to double precision."""
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1 / a
        n = a
        for _ in range(1000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0 to 100) of `values`, linearly interpolated between the closest
    ranks (numpy's default); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    at = (len(ordered) - 1) * q / 100
    low = math.floor(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)

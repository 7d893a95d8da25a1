"""The two-sample z test on locally private means, and its power.

Each sample's mean is the average of ``n`` independent unbiased decoded reports, so it is
asymptotically normal with variance ``sigma^2 / n``, ``sigma^2`` the variance of one report
(the mechanism's noise and the spread of the values together, estimated by the reports'
sample variance: :attr:`ldp.mechanisms.MeanSums.sample_variance`).
"""

from __future__ import annotations

import math

from scipy import stats

from ldp._numerics import first_integer
from ldp._validation import check_integer, check_probability, check_scalar
from ldp.inference.results import TestResult
from ldp.inference.views import MeanSample

__all__ = ["two_sample_mean_power", "two_sample_mean_sample_size"]

#: Largest number of users per sample the solver searches (``2^50``, as ldp.risk.plan).
MAX_USERS = 1 << 50


def same_protocol(first: str, second: str) -> None:
    """``ValueError`` unless two samples were collected by the same protocol."""
    if first != second:
        raise ValueError(
            f"the two samples were collected by different protocols ({first} against "
            f"{second}): their reports do not estimate the same thing with the same noise"
        )


def disjoint_fits(first: frozenset[str], second: frozenset[str]) -> None:
    """``ValueError`` when two samples share reports (a fit in common)."""
    if first & second:
        raise ValueError(
            "the two samples share reports (estimators of the same fit, or one merged into "
            "the other): a two-sample test compares independent samples"
        )


def two_means(first: MeanSample, second: MeanSample) -> TestResult:
    """The z test of equal means with Welch's standard error."""
    same_protocol(first.protocol, second.protocol)
    disjoint_fits(first.fits, second.fits)
    error = math.sqrt(first.variance / first.n + second.variance / second.n)
    if error == 0.0:
        raise ValueError("both samples have zero variance: the z statistic is undefined")
    z = (first.value - second.value) / error
    pvalue = float(2.0 * stats.norm.sf(abs(z)))
    return TestResult(z, pvalue, None, (first.n, second.n), "two-sample z (Welch)")


def two_sample_mean_power(
    difference: float,
    variance_a: float,
    variance_b: float,
    n_a: int,
    n_b: int,
    *,
    alpha: float = 0.05,
) -> float:
    """Power of the two-sample z test of means (:func:`ldp.inference.two_sample`) when the
    means differ by ``difference`` and one report has variance ``variance_a`` (``_b``):
    ``Phi(delta / se - z) + Phi(-delta / se - z)``, ``z = z_{1 - alpha/2}``.

    The variance of one report is the mechanism's noise plus the spread of the values
    (for a value ``x``, :meth:`ldp.mechanisms.MeanMechanism.variance` with ``n = 1``).

    Examples
    --------
    >>> from ldp.inference import two_sample_mean_power
    >>> from scipy.stats import norm
    >>> shift = 0.1 / (2 * 4.0 / 2000) ** 0.5   # 2.236 standard errors
    >>> p = two_sample_mean_power(0.1, 4.0, 4.0, 2000, 2000)
    >>> bool(abs(p - (norm.cdf(shift - 1.96) + norm.cdf(-shift - 1.96))) < 1e-4)
    True
    """
    delta = check_scalar(difference, "difference")
    va = check_scalar(variance_a, "variance_a", low=0.0)
    vb = check_scalar(variance_b, "variance_b", low=0.0)
    first, second = check_integer(n_a, "n_a", low=1), check_integer(n_b, "n_b", low=1)
    level = check_probability(alpha, "alpha")
    if not 0.0 < level < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    error = math.sqrt(va / first + vb / second)
    if error == 0.0:
        raise ValueError("variance_a and variance_b are both 0: the z test is undefined")
    z = stats.norm.isf(level / 2)
    shift = delta / error
    return float(stats.norm.sf(z - shift) + stats.norm.cdf(-z - shift))


def two_sample_mean_sample_size(
    difference: float,
    variance_a: float,
    variance_b: float,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
) -> int:
    """Smallest ``n`` per sample at which :func:`two_sample_mean_power` reaches ``power``.

    Examples
    --------
    >>> import math
    >>> from ldp.inference import two_sample_mean_power, two_sample_mean_sample_size
    >>> n = two_sample_mean_sample_size(0.1, 4.0, 4.0)
    >>> power = [two_sample_mean_power(0.1, 4.0, 4.0, m, m) for m in (n - 1, n)]
    >>> power[0] < 0.8 <= power[1]
    True
    >>> n == math.ceil(2 * 4.0 * (1.959963984540054 + 0.8416212335729143) ** 2 / 0.1**2)
    True
    """
    target = check_probability(power, "power")
    if not 0.0 < target < 1.0:
        raise ValueError(f"power must be in (0, 1), got {power!r}")

    def enough(m: int) -> bool:
        return (
            two_sample_mean_power(difference, variance_a, variance_b, m, m, alpha=alpha) >= target
        )

    found = first_integer(enough, 2, MAX_USERS)
    if found is None:
        raise ValueError(f"power={target:g} is out of reach for every n <= 2^50")
    return found

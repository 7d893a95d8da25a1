"""Empirical privacy audits: statistical lower bounds on a mechanism's epsilon.

An audit runs the mechanism many times on two inputs ``x0`` and ``x1``, picks an output
event ``S`` where the likelihood ratio looks largest, and bounds the two probabilities of
``S`` with exact Clopper-Pearson intervals. Any (eps, delta)-LDP mechanism satisfies
``P(S | x0) <= e^eps P(S | x1) + delta``, so with probability at least ``1 - alpha``

.. math:: \\varepsilon \\ge \\log \\frac{\\mathrm{TPR}_{lo} - \\delta}{\\mathrm{FPR}_{hi}} ,

where ``TPR_lo`` is the lower confidence limit of ``P(S | x0)`` and ``FPR_hi`` the upper
limit of ``P(S | x1)``. The event is chosen on one half of the samples and evaluated on the
other half, so the selection does not bias the bound. A mechanism whose audited lower bound
exceeds its claimed epsilon is broken (up to the ``alpha`` error rate of the audit).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ldp._validation import check_integer, check_random_state, check_scalar

__all__ = ["AuditResult", "audit", "clopper_pearson"]


def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """Exact two-sided ``1 - alpha`` confidence interval for a binomial proportion.

    Examples
    --------
    >>> from ldp.audit import clopper_pearson
    >>> low, high = clopper_pearson(50, 100, 0.05)
    >>> round(low, 4), round(high, 4)
    (0.3983, 0.6017)
    """
    k = check_integer(successes, "successes", low=0)
    n = check_integer(trials, "trials", low=1)
    if k > n:
        raise ValueError(f"successes must be <= trials, got {k} > {n}")
    level = check_scalar(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    low = 0.0 if k == 0 else float(stats.beta.ppf(level / 2, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1 - level / 2, k + 1, n - k))
    return low, high


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit`.

    Attributes
    ----------
    epsilon_lower : float
        Lower confidence bound (level ``1 - alpha``) on the mechanism's epsilon at ``delta``.
    event : ndarray
        The output values (of ``statistic``) that form the chosen event ``S``.
    inputs : tuple
        The ordered input pair ``(x0, x1)`` the bound refers to.
    tpr_lower, fpr_upper : float
        Confidence limits of ``P(S | x0)`` and ``P(S | x1)``.
    n_samples, alpha, delta : number
        The audit's settings.
    """

    epsilon_lower: float
    event: np.ndarray
    inputs: tuple
    tpr_lower: float
    fpr_upper: float
    n_samples: int
    alpha: float
    delta: float

    def __float__(self) -> float:
        return self.epsilon_lower


def _codes(statistic, reports) -> np.ndarray:
    values = np.asarray(reports if statistic is None else statistic(reports))
    if values.ndim != 1:
        raise ValueError(
            "reports are not one value per user; pass statistic= mapping the reports to one "
            f"integer per user (got shape {values.shape})"
        )
    if values.dtype.kind not in "iub":
        raise TypeError(
            f"the statistic must be integer-valued (an output event code), got {values.dtype}"
        )
    return values.astype(np.int64)


def _bound(tpr_lo: float, fpr_hi: float, delta: float) -> float:
    numerator = tpr_lo - delta
    if numerator <= 0:
        return 0.0
    return max(0.0, math.log(numerator) - math.log(fpr_hi))


def audit(
    privatize: Callable,
    x0: object,
    x1: object,
    *,
    n_samples: int = 200_000,
    delta: float = 0.0,
    alpha: float = 0.05,
    statistic: Callable[[np.ndarray], np.ndarray] | None = None,
    rng: object = None,
) -> AuditResult:
    """A statistical lower bound on the epsilon of a local randomizer.

    Parameters
    ----------
    privatize : callable
        ``privatize(values, rng)`` returning one report per value; a mechanism's bound
        ``privatize`` method (``Channel.privatize``, ``GRR(...).privatize``, ...).
    x0, x1 : input values
        The two inputs to distinguish (both orders are considered).
    n_samples : int
        Runs of the mechanism per input (half choose the event, half bound it).
    delta : float
        The delta at which epsilon is audited.
    alpha : float
        The audit is wrong with probability at most ``alpha``.
    statistic : callable, optional
        Maps the array of reports to one integer per report; required when a report is not
        a single integer (bit vectors, pairs).
    rng : None, int or numpy.random.Generator

    Examples
    --------
    >>> import ldp
    >>> from ldp.audit import audit
    >>> result = audit(ldp.k_rr(4, 1.0).privatize, 0, 1, n_samples=100_000, rng=0)
    >>> 0.9 < result.epsilon_lower <= 1.0
    True
    """
    if not callable(privatize):
        raise TypeError(f"privatize must be callable, got {privatize!r}")
    n = check_integer(n_samples, "n_samples", low=100)
    slack = check_scalar(delta, "delta", low=0.0, high=1.0)
    level = check_scalar(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    generator = check_random_state(rng)
    first = _codes(statistic, privatize(np.repeat(np.asarray([x0]), n, axis=0), generator))
    second = _codes(statistic, privatize(np.repeat(np.asarray([x1]), n, axis=0), generator))
    half = n // 2
    best = None
    for a, b, pair in ((first, second, (x0, x1)), (second, first, (x1, x0))):
        values, select_a = np.unique(a[:half], return_counts=True)
        where = np.minimum(np.searchsorted(values, b[:half]), values.size - 1)
        seen = values[where] == b[:half]
        select_b = np.bincount(where[seen], minlength=values.size)
        # candidate events: the outputs with the largest smoothed ratios, nested
        ratio = (select_a + 0.5) / (select_b + 0.5)
        order = np.argsort(-ratio, kind="stable")
        cum_a, cum_b = np.cumsum(select_a[order]), np.cumsum(select_b[order])
        # the prefix whose Clopper-Pearson bound is largest on the selection half
        with np.errstate(divide="ignore", invalid="ignore"):
            low = np.where(cum_a > 0, stats.beta.ppf(level / 4, cum_a, half - cum_a + 1), 0.0)
            high = np.where(
                cum_b < half, stats.beta.ppf(1 - level / 4, cum_b + 1, half - cum_b), 1.0
            )
            estimate = np.log(np.maximum(low - slack, 1e-300)) - np.log(high)
        size = int(np.argmax(estimate)) + 1
        event = values[order[:size]]
        hits_a = int(np.isin(a[half:], event).sum())
        hits_b = int(np.isin(b[half:], event).sum())
        trials = n - half
        # Bonferroni: four one-sided limits (two per order) at alpha / 4 each
        tpr_lo = clopper_pearson(hits_a, trials, level / 2)[0]
        fpr_hi = clopper_pearson(hits_b, trials, level / 2)[1]
        bound = _bound(tpr_lo, fpr_hi, slack)
        if best is None or bound > best.epsilon_lower:
            best = AuditResult(bound, event, pair, tpr_lo, fpr_hi, n, level, slack)
    return best

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

:func:`epsilon_lower_bound` audits a mechanism object (any of :mod:`ldp.mechanisms`, a
:class:`~ldp.Channel`, or a bare ``privatize`` callable) and maps its reports to a small
statistic that keeps the likelihood ratio between ``x0`` and ``x1`` (the two bits of a
unary-encoding report, whether a local-hashing bucket is the hash of ``x0`` / ``x1``, ...),
so that tight mechanisms are audited close to their epsilon. :func:`audit` is the engine,
for a ``privatize`` callable and an explicit ``statistic``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ldp._progress import progress as _progress
from ldp._validation import check_integer, check_random_state, check_scalar, compact
from ldp.core import Mechanism

__all__ = ["AuditResult", "audit", "clopper_pearson", "epsilon_lower_bound"]

#: Runs of the mechanism per call to ``privatize`` (and per step of the progress bar).
CHUNK = 250_000


def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """Exact two-sided ``1 - alpha`` confidence interval for a binomial proportion.

    The interval of Clopper-Pearson (1934), from the quantiles of beta distributions: it
    covers the true proportion with probability at least ``1 - alpha`` for every proportion.

    Parameters
    ----------
    successes : int
        Number of successes, ``0 <= successes <= trials``.
    trials : int
        Number of trials, ``>= 1``.
    alpha : float
        One minus the confidence level, in ``(0, 1)``.

    Returns
    -------
    (float, float)
        The lower and upper limits (``0`` and ``1`` at the extreme counts).

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
        raise ValueError(f"successes must be <= trials, got {compact(k)} > {compact(n)}")
    level = check_scalar(alpha, "alpha", low=0.0, high=1.0, low_open=True, high_open=True)
    low = 0.0 if k == 0 else float(stats.beta.ppf(level / 2, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1 - level / 2, k + 1, n - k))
    return low, high


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit` and :func:`epsilon_lower_bound`.

    Parameters
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

    Examples
    --------
    >>> import ldp
    >>> from ldp.audit import epsilon_lower_bound
    >>> result = epsilon_lower_bound(ldp.k_rr(4, 1.0), 0, 1, n_samples=20_000, rng=0)
    >>> 0.8 < result.value <= 1.0, result.inputs
    (True, (1, 0))
    """

    epsilon_lower: float
    event: np.ndarray
    inputs: tuple
    tpr_lower: float
    fpr_upper: float
    n_samples: int
    alpha: float
    delta: float

    @property
    def value(self) -> float:
        """The lower bound on epsilon (``epsilon_lower``)."""
        return self.epsilon_lower

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
    progress: bool = False,
) -> AuditResult:
    """A statistical lower bound on the epsilon of a local randomizer.

    Parameters
    ----------
    privatize : callable
        ``privatize(values, rng=...)`` returning one report per value (``rng`` is passed by
        keyword); a mechanism's bound ``privatize`` method (``Channel.privatize``,
        ``GRR(...).privatize``, ...).
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
    rng : None, int, numpy.random.Generator or "os"
        Passed to ``privatize`` (``"os"``: the operating system's CSPRNG).
    progress : bool, default False
        Show a progress bar over the chunks of ``CHUNK`` runs (needs tqdm).

    Returns
    -------
    AuditResult
        With ``epsilon_lower`` (also ``value``): the bound, valid with probability
        ``>= 1 - alpha``.

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
    sizes = [CHUNK] * (n // CHUNK) + ([n % CHUNK] if n % CHUNK else [])
    codes: list[list[np.ndarray]] = [[], []]
    steps = [(i, size) for size in sizes for i in (0, 1)]
    for i, size in _progress(steps, progress, desc="audit", total=len(steps)):
        values = np.repeat(np.asarray([(x0, x1)[i]]), size, axis=0)
        codes[i].append(_codes(statistic, privatize(values, rng=generator)))
    first, second = np.concatenate(codes[0]), np.concatenate(codes[1])
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
    assert best is not None  # at least one event was tried
    return best


# --------------------------------------------------------------------------- mechanisms
def _resolve(mechanism: object, x0: object, x1: object):
    """``(privatize, statistic)``: a mechanism's own audit statistic
    (:meth:`ldp.core.Mechanism.audit_statistic`), or a bare ``privatize`` callable."""
    if isinstance(mechanism, Mechanism):
        return mechanism.privatize, mechanism.audit_statistic(x0, x1)
    if callable(mechanism):
        return mechanism, None
    raise TypeError(
        f"mechanism must be a mechanism of ldp.mechanisms, a Channel or a callable, got "
        f"{type(mechanism).__name__}"
    )


def epsilon_lower_bound(
    mechanism: object,
    x0: object,
    x1: object,
    n_samples: int = 1_000_000,
    confidence: float = 0.95,
    rng: object = None,
    *,
    delta: float = 0.0,
    statistic: Callable[[np.ndarray], np.ndarray] | None = None,
    progress: bool = False,
) -> AuditResult:
    """An audited lower bound on a mechanism's epsilon, valid with probability ``confidence``.

    Runs ``mechanism`` ``n_samples`` times on each of ``x0`` and ``x1`` and returns the
    :func:`audit` of the two samples. A bound above the mechanism's claimed epsilon
    refutes the claim (the audit errs with probability at most ``1 - confidence``).

    Parameters
    ----------
    mechanism : mechanism, Channel or callable
        Anything with ``privatize(values, *, rng)`` (the mechanisms of :mod:`ldp.mechanisms`, a
        :class:`~ldp.Channel`) or such a callable itself.
    x0, x1 : input values
        The pair of inputs to distinguish (category indices for frequency oracles and
        channels; numbers or vectors for mean mechanisms).
    n_samples : int, default 1_000_000
        Runs per input.
    confidence : float, default 0.95
        Confidence level of the bound (``alpha = 1 - confidence``).
    rng : None, int, numpy.random.Generator or "os"
        Source of randomness for the runs.
    delta : float, default 0.0
        Audit epsilon at this delta.
    statistic : callable, optional
        Maps reports to one integer per report. By default the mechanism's own
        :meth:`~ldp.core.Mechanism.audit_statistic` (a sufficient statistic of the
        pair for the finite mechanisms: the report itself for GRR and channels, the bits of
        ``x0`` and ``x1`` for unary encoding and subset selection, ...; bins between ``x0``
        and ``x1`` for the numeric ones).
    progress : bool, default False
        Show a progress bar (needs tqdm).

    Returns
    -------
    AuditResult
        ``.value`` is the lower bound.

    Examples
    --------
    >>> from ldp.audit import epsilon_lower_bound
    >>> from ldp.mechanisms import OUE
    >>> bound = epsilon_lower_bound(OUE(16, 1.0), 0, 1, n_samples=200_000, rng=0)
    >>> 0.8 < bound.value <= 1.0
    True
    """
    level = check_scalar(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)
    privatize, default = _resolve(mechanism, x0, x1)
    return audit(
        privatize,
        x0,
        x1,
        n_samples=n_samples,
        delta=delta,
        alpha=1.0 - level,
        statistic=default if statistic is None else statistic,
        rng=rng,
        progress=progress,
    )

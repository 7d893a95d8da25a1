r"""The risk estimators of the library achieve: upper bounds to set beside the lower bounds.

The exact risk of the estimators that match the presets
(:func:`rr_mean_risk`, :func:`krr_distribution_risk`):

* Bernoulli mean: randomized response at level :math:`\varepsilon` and the unbiased estimator
  :math:`\hat\theta = (\bar Y - \omega)/(1 - 2\omega)`, :math:`\omega = 1/(1+e^\varepsilon)`;
  its mean squared error is :math:`t(1-t)/(n(1-2\omega)^2)`, :math:`t = \omega +
  \theta(1-2\omega)`.
* k-ary distribution: k-RR and the unbiased estimator :math:`\hat p_x = (\hat f_x - q)/(p-q)`
  (the i.i.d. convention of Ye-Barg (2018)): :math:`\mathbb E\|\hat p - p\|_2^2 = \sum_x
  t_x(1-t_x)/(n(p-q)^2)` with :math:`t_x = q + p_x(p-q)`, and :math:`\mathbb E\|\hat p-p\|_1 =
  \sum_x \mathbb E|C_x - nt_x| / (n(p-q))` with the binomial mean absolute deviation in de
  Moivre's closed form.

The worst-case risk of the best mechanism in the library
(:func:`best_distribution_risk`, :func:`best_mean_risk`):

* Distribution estimation: every frequency oracle of :data:`ldp.mechanisms.FREQUENCY_ORACLES`
  (the candidates of :func:`ldp.mechanisms.recommend`) with its unbiased estimator. For
  i.i.d. users each support count is binomial, so the risk at ``p`` is
  :math:`\sum_x t_x(1-t_x)/(n(p-q)^2)`, :math:`t_x = q + p_x(p-q)`
  (:meth:`~ldp.mechanisms.FrequencyOracle.variance` with ``convention="iid"``); it is concave
  and symmetric in ``p``, so its supremum is at the uniform law: the exact worst-case squared
  l2 risk. For l1 the value is :math:`\sum_x \sqrt{\mathrm{Var}\,\hat p_x}` at the uniform
  law (Jensen), an upper bound on the worst-case l1 risk. Each oracle's estimate followed by
  the Euclidean projection onto the simplex (``FrequencyEstimator(consistency="project")``)
  is a candidate too (l2^2 only): its worst-case risk is at most the unbiased one and at
  most a certified bound on :math:`\mathbb E\max_j(\hat p_j - p_j)`
  (:func:`ldp.risk.projected_oracle_risk`, proof in ``docs/lower_bounds.md`` §7), far
  smaller when ``k`` is large against :math:`\sqrt n\,\varepsilon`. Then ``exact`` is
  ``False``: the value is an upper bound on the worst-case risk of an estimator the library
  provides. The estimator that ignores the data and answers the uniform law is also a
  candidate (risk ``1 - 1/k`` in l2^2, ``2(1 - 1/k)`` in l1).
* Mean estimation: Duchi et al.'s mechanisms (:class:`~ldp.mechanisms.Duchi` on the interval
  and the box, :class:`~ldp.mechanisms.DuchiL2` on the ball) and, on the interval, the
  piecewise, hybrid and Laplace mechanisms; on the ball in ``d >= 2``, also
  :class:`~ldp.mechanisms.PrivUnit` and :class:`~ldp.mechanisms.PrivUnitG` (optimal for
  unit vectors, Asi-Feldman-Talwar (2022)). With i.i.d. users the risk is
  :math:`(\mathbb E g(X) - \|\mathbb E X\|^2)/n`, :math:`g(x) = \mathrm{tr\,Var}(Z\mid x) +
  \|x\|^2`; ``g`` is constant (Duchi's mechanisms, PrivUnit, PrivUnitG) or convex and
  symmetric (the others), so the worst case is :math:`\max_x g(x)/n`, attained by the
  two-point law on the ends. The estimator ``0`` (risk :math:`r^2`, or :math:`d r^2` on the
  box) is a candidate too.
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from ldp._formulas import k_rr_probabilities, support_rate_variance
from ldp._validation import (
    check_epsilon,
    check_integer,
    check_probability,
    check_scalar,
    compact,
    describe,
    scalar_or_array,
)
from ldp.core import Ball
from ldp.mechanisms import (
    Duchi,
    DuchiL2,
    Hybrid,
    Laplace,
    Piecewise,
    PrivUnit,
    PrivUnitG,
    SubsetSelection,
)
from ldp.mechanisms.categorical.subset import optimal_subset_size
from ldp.risk._common import Bound, as_pmf, check_n, check_support
from ldp.risk.achieved.projection import projected_oracle_risk
from ldp.tasks.selection import FREQUENCY_ORACLES

__all__ = [
    "best_distribution_risk",
    "best_mean_risk",
    "binomial_mean_absolute_deviation",
    "krr_distribution_risk",
    "rr_mean_risk",
]

ACHIEVED = "risk of estimator"


def rr_mean_risk(
    n: int, epsilon: float, *, theta: float = 0.5, support: tuple[float, float] = (0.0, 1.0)
) -> Bound:
    r"""Exact MSE of randomized response + unbiased debiasing for the mean of a binary variable.

    Parameters
    ----------
    n : int
        Number of users.
    epsilon : float
        RR level (``inf``: no privacy, the sample mean).
    theta : float
        :math:`\Pr(X = \mathrm{high})`; ``0.5`` is the worst case.
    support : (float, float)
        The two values of ``X`` (``(0, 1)`` Bernoulli, ``(-1, 1)`` for a sign).

    Returns
    -------
    Bound
        The mean squared error (``quantity`` "risk of estimator"), with its closed form in
        ``rate`` and the flip probability in ``params``.

    Examples
    --------
    >>> import math
    >>> from ldp.risk import rr_mean_risk
    >>> b = rr_mean_risk(1000, 1.0, support=(-1, 1))
    >>> math.isclose(b.value, ((math.e + 1) / (math.e - 1)) ** 2 / 1000)
    True
    """
    n = check_n(n)
    eps = check_epsilon(epsilon)
    th = check_probability(theta, "theta")
    _, _, width = check_support(support)
    _, flip, gap = k_rr_probabilities(2, eps)  # 1 / (1 + e^eps) and tanh(eps / 2)
    t = flip + th * gap
    # divided one factor at a time: gap * gap underflows to 0 below eps ~ 1e-154
    value = math.inf if gap == 0 else width**2 * t * (1.0 - t) / n / gap / gap
    return Bound(
        value,
        "randomized response + unbiased estimator (exact MSE)",
        ACHIEVED,
        {"theta": th, "flip_probability": flip},
        rate="(high - low)^2 t (1 - t) / (n tanh(eps/2)^2), t = theta tanh(eps/2) + 1/(1+e^eps)",
    )


def binomial_mean_absolute_deviation(n: int, p: ArrayLike) -> float | np.ndarray:
    r""":math:`\mathbb E|B - np|` for :math:`B \sim \mathrm{Bin}(n, p)` (de Moivre).

    .. math:: \mathbb E|B - np| = 2m\binom{n}{m}p^m(1-p)^{n-m+1},\quad m = \lfloor np\rfloor+1.

    Parameters
    ----------
    n : int
        Number of trials, ``>= 1``.
    p : array_like
        Success probabilities in ``[0, 1]``.

    Returns
    -------
    float or ndarray
        The mean absolute deviation, shaped like ``p``.

    Examples
    --------
    >>> from ldp.risk import binomial_mean_absolute_deviation
    >>> binomial_mean_absolute_deviation(1, 0.5)
    0.5
    """
    n = check_n(n)
    arr = np.asarray(p, dtype=np.float64)
    if np.any(np.isnan(arr)) or np.any(arr < 0) or np.any(arr > 1):
        raise ValueError(f"p must lie in [0, 1], got {describe(p)}")
    m = np.floor(n * arr) + 1.0
    inside = (arr > 0) & (arr < 1) & (m <= n)
    safe_p = np.where(inside, arr, 0.5)
    safe_m = np.where(inside, m, 1.0)
    log_value = (
        math.log(2.0)
        + np.log(safe_m)
        + gammaln(n + 1.0)
        - gammaln(safe_m + 1.0)
        - gammaln(n - safe_m + 1.0)
        + safe_m * np.log(safe_p)
        + (n - safe_m + 1.0) * np.log1p(-safe_p)
    )
    return scalar_or_array(np.where(inside, np.exp(log_value), 0.0))


def krr_distribution_risk(
    p: ArrayLike | int, n: int, epsilon: float, *, loss: str = "l2sq"
) -> Bound:
    r"""Exact risk of k-RR + the unbiased frequency estimator for a k-ary distribution.

    Parameters
    ----------
    p : array_like or int
        The true distribution, or ``k`` for the uniform one (the worst case for ``l2sq``).
    n : int
        Number of users.
    epsilon : float
        k-RR level (``inf``: empirical frequencies).
    loss : {"l2sq", "l1"}
        Squared l2 or l1 loss.

    Returns
    -------
    Bound
        The exact risk (``quantity`` "risk of estimator").

    Examples
    --------
    >>> import math
    >>> from ldp.risk import krr_distribution_risk
    >>> b = krr_distribution_risk(10, 10_000, 1.0)
    >>> e = math.e   # (1 - 1/k) (e^eps + k - 1)^2 / (n (e^eps - 1)^2)
    >>> math.isclose(b.value, 0.9 * (e + 9) ** 2 / (1e4 * (e - 1) ** 2))
    True
    """
    if isinstance(p, numbers.Integral) and not isinstance(p, bool):
        k = check_integer(p, "p", low=2)
        if k > 1 << 26:  # the uniform pmf is materialised below
            raise ValueError(f"p (the number of categories k) must be <= 2^26, got {compact(k)}")
        probs = np.full(k, 1.0 / k)
    else:
        probs = as_pmf(p, "p")
        k = probs.size
        if k < 2:
            raise ValueError(f"p must have at least 2 outcomes, got {k}")
    n = check_n(n)
    eps = check_epsilon(epsilon)
    if loss not in ("l2sq", "l1"):
        raise ValueError(f"loss must be 'l2sq' or 'l1', got {loss!r}")
    _, q, gap = k_rr_probabilities(k, eps)  # p - q = (e^eps - 1) / (e^eps + k - 1)
    if gap * gap == 0.0:  # eps = 0, or so small that gap^2 underflows: unbounded risk
        value = math.inf
    elif loss == "l2sq":  # the sum of GRR's iid variances, at any epsilon up to inf
        value = float(np.sum(support_rate_variance(n, probs, q, gap)))
    else:
        t = np.clip(q + probs * gap, 0.0, 1.0)
        value = float(np.sum(binomial_mean_absolute_deviation(n, t)) / (n * gap))
    rate = (
        "(1 - sum t_x^2) (e^eps + k - 1)^2 / (n (e^eps - 1)^2)"
        if loss == "l2sq"
        else "sum_x E|Bin(n, t_x) - n t_x| (e^eps + k - 1) / (n (e^eps - 1))"
    )
    return Bound(
        value,
        "k-RR + unbiased frequency estimator (exact risk)",
        ACHIEVED,
        {"k": k, "keep_minus_flip": gap, "loss": loss},
        rate=rate,
    )


_TRIVIAL_DISTRIBUTION = "the uniform law, ignoring the reports"
_TRIVIAL_MEAN = "the estimate 0, ignoring the reports"


def oracle_risks(k: int, n: int, epsilon: float, loss: str = "l2sq") -> dict[str, Bound]:
    """Worst-case risk (or its upper bound) of each frequency oracle's best estimator: the
    unbiased estimate or its simplex projection, whichever bound is smaller (module notes)."""
    out = {}
    for name, cls in FREQUENCY_ORACLES.items():
        try:
            mech = cls(k, epsilon)
        except ValueError:  # e.g. local hashing past 2^31 buckets at large epsilon
            continue
        if loss == "l2sq":
            out[name] = projected_oracle_risk(mech, n)
            continue
        # l1: sum_x sqrt(Var p_hat_x) at the uniform law (Jensen), for the unbiased estimate
        half = 2.0 if loss == "tv" else 1.0
        value = k * math.sqrt(float(mech.variance(n, 1.0 / k, convention="iid"))) / half
        method = f"{name} + unbiased estimate (upper bound on the worst-case risk)"
        out[name] = Bound(value, method, ACHIEVED, {"exact": False, "projected": False})
    if loss == "l2sq" and k >= 4:
        # followed by projection, larger subsets than the variance-optimal size can do better
        # (a heavy letter's count varies less): a fixed ladder of sizes up to k / 2
        default = optimal_subset_size(k, epsilon)
        for d in _larger_subsets(default, k):
            out[f"SS(d={d})"] = projected_oracle_risk(SubsetSelection(k, epsilon, d=d), n)
    return out


def _larger_subsets(default: int, k: int) -> list[int]:
    """Subset sizes above ``default`` up to ``k // 2``, about geometrically spaced."""
    top = k // 2
    if top <= default:
        return []
    sizes = np.unique(np.round(np.geomspace(default, top, 9)).astype(np.int64))
    return [int(d) for d in sizes if default < d <= top]


def best_distribution_risk(k: int, n: int, epsilon: float, *, loss: str = "l2sq") -> Bound:
    r"""Worst-case risk of the best frequency oracle in the library (or of the uniform guess).

    Parameters
    ----------
    k : int
        Alphabet size (``2 <= k <= 2^40``).
    n : int
        Number of users.
    epsilon : float
        Privacy level, ``> 0`` and finite.
    loss : {"l2sq", "l1", "tv"}
        ``"l2sq"``: the exact worst-case risk of an unbiased oracle, or an upper bound on the
        worst-case risk of an oracle + simplex projection; ``"l1"``/``"tv"``: an upper bound.

    Returns
    -------
    Bound
        ``quantity`` ``"risk of estimator"``; ``params``: ``mechanism`` (the oracle's name, or
        ``"uniform"``), ``projected`` (whether its estimate is projected onto the simplex:
        ``FrequencyEstimator(consistency="project")``), ``oracle_risks`` (every oracle's
        value), ``exact`` (whether ``value`` is the exact worst case rather than an upper
        bound on it).

    Examples
    --------
    >>> from ldp.risk import best_distribution_risk
    >>> b = best_distribution_risk(10, 100_000, 1.0)
    >>> b.mechanism, round(b.value, 8)      # subset selection, (k-1)^2/(n k T(k, eps))
    ('SS', 0.00030004)
    """
    size = check_integer(k, "k", low=2)
    if size > 1 << 40:
        raise ValueError(f"k must be <= 2^40, got {size}")
    users = check_n(n)
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    if loss not in ("l2sq", "l1", "tv"):
        raise ValueError(f"loss must be 'l2sq', 'l1' or 'tv', got {loss!r}")
    candidates = oracle_risks(size, users, eps, loss)
    risks = {key: b.value for key, b in candidates.items()}
    name = min(risks, key=lambda key: risks[key])
    trivial = (1.0 - 1.0 / size) * (2.0 if loss == "l1" else 1.0)
    exact, projected = True, False
    if trivial < risks[name]:
        value, chosen, method = trivial, "uniform", _TRIVIAL_DISTRIBUTION
    else:
        best = candidates[name]
        value, chosen = best.value, name
        exact, projected = bool(best.exact), bool(best.projected)
        estimator = "unbiased frequency estimate projected onto the simplex"
        method = f"{name} + " + (estimator if projected else "unbiased frequency estimator")
    method += " (exact worst-case risk)" if exact else " (upper bound on the worst-case risk)"
    return Bound(
        value,
        method,
        ACHIEVED,
        {
            "mechanism": chosen,
            "oracle_risks": risks,
            "exact": exact,
            "projected": projected,
            "loss": loss,
        },
    )


@functools.lru_cache(maxsize=256)
def _mean_candidates(epsilon: float, d: int, domain: str) -> tuple[Any, ...]:
    # cached: the planner's searches ask for the same (epsilon, d) at many n
    if domain == "box":
        return (Duchi(epsilon, d=d),)
    if domain == "ball":
        found: list[Any] = [DuchiL2(epsilon, d=d)]
        if d == 1:
            found += [Duchi(epsilon), Piecewise(epsilon), Hybrid(epsilon), Laplace(epsilon)]
        else:
            found += [PrivUnit(epsilon, d=d), PrivUnitG(epsilon, d=d)]
        return tuple(found)
    return (Duchi(epsilon), Piecewise(epsilon), Hybrid(epsilon), Laplace(epsilon))


def _worst_second_moment(mech) -> float:
    """``max_x tr Var(Z | x) + ||x||^2`` over the centre and the ends of the unit domain."""
    d = mech.d
    points = [np.zeros(d), np.eye(d)[0], -np.eye(d)[0]] if d > 1 else [0.0, 1.0, -1.0]
    best = 0.0
    for x in points:
        arr = np.asarray(x, dtype=np.float64)
        # vectors (and every input of a mechanism on a ball) go in as one row of a batch
        rows = arr.reshape(1, d) if d > 1 or isinstance(mech.domain, Ball) else arr
        value = float(np.sum(mech.per_user_variance(rows))) + float(np.sum(arr * arr))
        best = max(best, value)
    return best


def best_mean_risk(
    n: int, epsilon: float, *, d: int = 1, domain: str = "interval", r: float = 1.0
) -> Bound:
    r"""Worst-case i.i.d. squared-error risk of the best mean mechanism in the library.

    Parameters
    ----------
    n : int
        Number of users.
    epsilon : float
        Privacy level, ``> 0`` and finite.
    d : int
        Dimension (``1`` for ``"interval"``).
    domain : {"interval", "box", "ball"}
        :math:`[-r, r]`, :math:`[-r, r]^d` or the l2 ball of radius ``r``.
    r : float
        Half-width or radius.

    Returns
    -------
    Bound
        ``params``: ``mechanism`` (its name, or ``"zero"``) and ``mechanism_risks``.

    Examples
    --------
    >>> import math
    >>> from ldp.risk import best_mean_risk
    >>> b = best_mean_risk(1000, 1.0)
    >>> b.mechanism, math.isclose(b.value, ((math.e + 1) / (math.e - 1)) ** 2 / 1000)
    ('Duchi', True)
    """
    users = check_n(n)
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    dim = check_integer(d, "d", low=1)
    if domain not in ("interval", "box", "ball"):
        raise ValueError(f"domain must be 'interval', 'box' or 'ball', got {domain!r}")
    if domain == "interval" and dim != 1:
        raise ValueError(f"domain='interval' has d = 1, got d = {dim}")
    if dim > 1 << 20:
        raise ValueError(f"d must be <= 2^20, got {dim}")
    radius = check_scalar(r, "r", low=0.0, low_open=True)
    risks = {}
    for mech in _mean_candidates(eps, dim, domain):
        risks[mech.name] = radius**2 * _worst_second_moment(mech) / users
    name = min(risks, key=lambda key: risks[key])
    trivial = radius**2 * (dim if domain == "box" else 1.0)
    if trivial < risks[name]:
        value, chosen, method = trivial, "zero", _TRIVIAL_MEAN
    else:
        value, chosen, method = risks[name], name, f"{name} mechanism + sample mean"
    return Bound(
        value,
        method + " (exact worst-case i.i.d. risk)",
        ACHIEVED,
        {"mechanism": chosen, "mechanism_risks": risks, "domain": domain, "d": dim},
    )

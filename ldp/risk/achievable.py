r"""Exact risk of the estimators that match the presets, to show the gap to the lower bounds.

* Bernoulli mean: randomized response at level :math:`\varepsilon` and the unbiased estimator
  :math:`\hat\theta = (\bar Y - \omega)/(1 - 2\omega)`, :math:`\omega = 1/(1+e^\varepsilon)`;
  its mean squared error is :math:`t(1-t)/(n(1-2\omega)^2)`, :math:`t = \omega +
  \theta(1-2\omega)`.
* k-ary distribution: k-RR and the unbiased estimator :math:`\hat p_x = (\hat f_x - q)/(p-q)`
  (the i.i.d. convention of Ye-Barg (2018)): :math:`\mathbb E\|\hat p - p\|_2^2 = \sum_x
  t_x(1-t_x)/(n(p-q)^2)` with :math:`t_x = q + p_x(p-q)`, and :math:`\mathbb E\|\hat p-p\|_1 =
  \sum_x \mathbb E|C_x - nt_x| / (n(p-q))` with the binomial mean absolute deviation in de
  Moivre's closed form.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from ldp._formulas import k_rr_probabilities
from ldp._validation import (
    check_epsilon,
    check_integer,
    check_probability,
    compact,
    describe,
    scalar_or_array,
)
from ldp.risk._common import Bound, as_pmf, check_n, check_support

__all__ = ["binomial_mean_absolute_deviation", "krr_distribution_risk", "rr_mean_risk"]

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
    t = np.clip(q + probs * gap, 0.0, 1.0)
    if gap * gap == 0.0:  # eps = 0, or so small that gap^2 underflows: unbounded risk
        value = math.inf
    elif loss == "l2sq":
        value = float(np.sum(t * (1.0 - t)) / (n * gap * gap))
    else:
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

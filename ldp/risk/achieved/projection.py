r"""A certified upper bound on the risk of a frequency oracle followed by simplex projection.

The estimator: the oracle's unbiased estimate :math:`\hat p` (``estimate``), then the
Euclidean projection :math:`\Pi` onto the probability simplex
(:func:`ldp.tasks.project_simplex`; ``FrequencyEstimator(consistency="project")``).
With :math:`z = \hat p - p` and :math:`d = \Pi(\hat p) - p`, the projection inequality gives
:math:`\|d\|^2 \le \langle z, \Pi(\hat p)\rangle - \langle z, p\rangle`, and since
:math:`\Pi(\hat p)` is a distribution and :math:`\mathbb E z = 0`,

.. math:: \mathbb E\|\Pi(\hat p) - p\|_2^2 \le \min\bigl(\mathbb E\|\hat p - p\|_2^2,\;
          \mathbb E \max_j z_j\bigr).

The maximum is bounded through the exact binomial moment generating function of the support
counts, with its supremum over the simplex taken rigorously (``docs/lower_bounds.md`` §7
has the proof). The bound holds for i.i.d. users (``p`` the population law) and for fixed
users (``p`` their empirical law).
"""

from __future__ import annotations

import math

import numpy as np

from ldp._validation import check_integer
from ldp.mechanisms.base import FrequencyOracle
from ldp.risk._common import Bound, check_n

__all__ = ["projected_oracle_risk"]

#: Per-user exponents searched (a fixed grid, so the bound is non-increasing in ``n``).
_MU = np.geomspace(1e-9, 60.0, 600)
#: Relative margin covering floating-point rounding in the bound (rounded up, never down).
_ROUND_UP = 1e-9


def _heavy_counts(k: int) -> np.ndarray:
    """The numbers ``m`` of coordinates allowed above ``theta = 1/(m + 1)`` (``m <= k - 2``)."""
    grid = np.unique(np.round(np.geomspace(1, max(k - 2, 1), 40)).astype(np.int64))
    return np.concatenate([[0], grid[grid <= k - 2]])


def max_deviation_bound(k: int, n: int, p: float, q: float) -> tuple[float, float, int]:
    r"""An upper bound on :math:`\sup_p \mathbb E\max_j(\hat p_j - p_j)` for a support oracle.

    ``p``/``q`` are the oracle's support probabilities. Returns the bound, the per-user
    exponent ``mu`` and the number ``m`` of heavy coordinates that attain it (see
    ``docs/lower_bounds.md`` §7).
    """
    gap = p - q
    mu = _MU[:, None]
    a = np.expm1(mu)
    log_k = math.log(k)
    psi_q = np.log1p(q * a) - mu * q  # log E e^{mu (B - q)}, B ~ Bernoulli(q)
    slope = (a / (1.0 + q * a) - mu) * gap  # derivative of psi(q + x gap) in x at 0
    # max of the concave psi over [q, p]: a tangent at the computed maximiser bounds it above
    t0 = np.clip(1.0 / mu - 1.0 / a, q, p)
    d0 = a / (1.0 + t0 * a) - mu
    psi_max = np.log1p(t0 * a) - mu * t0 + np.maximum(d0 * (q - t0), d0 * (p - t0))
    m = _heavy_counts(k)[None, :].astype(np.float64)
    heavy = np.where(m > 0, np.log(np.maximum(m, 1.0)) + n * psi_max, -np.inf)
    rising = slope > 0
    light_rest = np.where(
        rising,
        np.log(np.maximum(k - m - 1.0, 1.0)) + n * psi_q,  # (k - 1/theta) H(0)
        log_k + n * psi_q,  # H decreasing: k H(0)
    )
    # the light coordinates' bound at theta: the chord of h itself where h is convex on
    # [0, theta] (n psi'(t)^2 + psi''(t) >= 0 there), else the tangent exponential
    t_theta = q + gap / (m + 1.0)
    r_theta = a / (1.0 + t_theta * a)
    convex = r_theta * (1.0 - 1.0 / math.sqrt(n)) >= mu * (1.0 + _ROUND_UP)
    psi_theta = np.where(convex, np.log1p(t_theta * a) - mu * t_theta, psi_q + slope / (m + 1.0))
    light_top = np.where(rising, np.log(m + 1.0) + n * psi_theta, -np.inf)
    log_sum = np.logaddexp(np.logaddexp(light_rest, light_top), heavy)
    values = log_sum / (mu * n * gap)
    flat = int(np.argmin(values))
    i, j = np.unravel_index(flat, values.shape)
    best = float(values[i, j]) * (1.0 + _ROUND_UP)
    return best, float(_MU[i]), int(m[0, j])


def projected_oracle_risk(oracle: FrequencyOracle, n: int) -> Bound:
    r"""Upper bound on the worst-case squared l2 risk of an oracle + simplex projection.

    The estimator is ``project_simplex(oracle.estimate(reports))``. Its risk is at most the
    oracle's exact worst-case unbiased risk (the projection is 1-Lipschitz and the truth lies
    in the simplex) and at most :math:`\mathbb E\max_j(\hat p_j - p_j)` bounded through the
    exact binomial moment generating function of the support counts (module notes).

    Parameters
    ----------
    oracle : FrequencyOracle
        A frequency oracle of ``ldp.mechanisms`` (its ``k``, ``p``, ``q``).
    n : int
        Number of users.

    Returns
    -------
    Bound
        ``quantity`` ``"risk of estimator"``; ``params``: ``unbiased`` (the exact worst-case
        risk of the unbiased estimate), ``max_deviation`` (the certified bound on
        :math:`\mathbb E\max_j z_j`), ``mu`` and ``heavy`` (where it is attained),
        ``projected`` (whether the projection bound is the smaller) and ``exact`` (its
        negation: ``value`` is then the exact worst-case risk of the unbiased estimate).

    Examples
    --------
    >>> from ldp.mechanisms import SubsetSelection
    >>> from ldp.risk import projected_oracle_risk
    >>> b = projected_oracle_risk(SubsetSelection(1024, 1.0), 1000)
    >>> b.value < b.unbiased / 4    # the sparse regime: projection gains a factor > 4
    True
    """
    if not isinstance(oracle, FrequencyOracle):
        raise TypeError(f"oracle must be a FrequencyOracle, got {type(oracle).__name__}")
    users = check_n(n)
    k = check_integer(oracle.k, "oracle.k", low=2)
    unbiased = k * float(oracle.variance(users, 1.0 / k, convention="iid"))
    bound, mu, heavy = max_deviation_bound(k, users, float(oracle.p), float(oracle.q))
    exact = unbiased <= bound
    return Bound(
        min(unbiased, bound),
        f"{oracle.name} + unbiased estimate "
        + (
            "(exact worst-case risk; projection can only lower it)"
            if exact
            else "+ simplex projection (bound E max_j (p_hat_j - p_j), binomial MGF)"
        ),
        "risk of estimator",
        {
            "unbiased": unbiased,
            "max_deviation": bound,
            "mu": mu,
            "heavy": heavy,
            "exact": exact,
            "projected": not exact,
        },
    )

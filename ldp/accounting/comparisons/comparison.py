r"""Comparing privacy curves: Delta-divergence, approximate GDP, Blackwell order, Theorem B.1.

After Tran-Koskela-Räisä-Honkela (2025). Every function takes trade-off curves
(:class:`~ldp.accounting.TradeOffFunction`) or remove-direction privacy profiles given as
callables ``H(gamma) = D_gamma(P || Q)`` (vectorised over ``gamma >= 0``); a curve ``f``
enters through its profile ``H_f(gamma) = f.delta(log gamma)``.

* :func:`delta_divergence`: the symmetrised Delta-divergence of Kaissis et al. (2024),
  ``min{D : f(a + D) - D <= g(a) and g(a + D) - D <= f(a) for all a}``, computed in its
  profile form ``sup_gamma |H_f(gamma) - H_g(gamma)| / (1 + gamma)``.
* :func:`approx_gdp_distance`, :func:`is_approx_gdp`, :func:`approx_gdp_delta`:
  Delta-approximate ``mu``-GDP (Definition 2.7 of the paper),
  ``G_mu(a + D) - D <= f(a) <= G_mu(a - D) + D``, which is ``Delta(f, G_mu) <= D``; it implies
  ``delta(eps) <= delta_mu(eps) + D (1 + e^eps)`` (from the profile form).
* The Blackwell order of two curves and their calibration points (``blackwell_compare``,
  ``is_blackwell_chain``) live with the Blackwell order of channels in
  :mod:`ldp.accounting.comparisons.blackwell`.
* :func:`worst_case_adaptive_profile`: Theorem B.1: when the second mechanism is chosen
  from the output of a first one, every selection rule is dominated by
  ``(H_1 (x) max_k H_k)(gamma) = E_{y ~ P_1}[max_k H_k(gamma q_1(y)/p_1(y))]``, and for
  each single ``gamma`` some rule attains it.

These are numerical comparisons on a grid of ``log gamma`` refined by a scalar search; they
are not privacy guarantees and are not rounded outward.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize_scalar

from ldp._validation import check_scalar
from ldp.accounting.comparisons._profiles import LOG_GAMMA, Profile, as_profile
from ldp.accounting.curves import GaussianTradeOff, TradeOffFunction

__all__ = [
    "approx_gdp_delta",
    "approx_gdp_distance",
    "delta_divergence",
    "is_approx_gdp",
    "worst_case_adaptive_profile",
]


def _scaled_gap(hf: Profile, hg: Profile, t: float) -> float:
    g = np.array([math.exp(t)])
    return float(abs(hf(g)[0] - hg(g)[0]) / (1.0 + g[0]))


def delta_divergence(f: object, g: object) -> float:
    r"""The symmetrised Delta-divergence between two trade-off curves (Kaissis et al. (2024)).

    ``Delta(f, g) = min{D >= 0 : f(a + D) - D <= g(a) and g(a + D) - D <= f(a), all a}``,
    computed as ``sup_{gamma >= 0} |H_f(gamma) - H_g(gamma)| / (1 + gamma)`` (the profile
    form used by Tran-Koskela-Räisä-Honkela (2025), Appendix C). A metric: ``0`` iff the
    curves agree; convergence in it is pointwise convergence (their Theorem C.8).

    Parameters
    ----------
    f, g : TradeOffFunction or callable
        Curves, or remove-direction profiles ``H(gamma)``.

    Returns
    -------
    float
        ``Delta(f, g)`` in ``[0, 1/2]``.

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, delta_divergence
    >>> round(delta_divergence(GaussianTradeOff(1.0), GaussianTradeOff(1.2)), 6)
    0.034284
    """
    hf, hg = as_profile(f, "f"), as_profile(g, "g")
    gamma = np.exp(LOG_GAMMA)
    gap = np.abs(hf(gamma) - hg(gamma)) / (1.0 + gamma)
    i = int(np.argmax(gap))
    best = float(gap[i])
    lo = LOG_GAMMA[max(i - 1, 0)]
    hi = LOG_GAMMA[min(i + 1, LOG_GAMMA.size - 1)]
    res = minimize_scalar(
        lambda t: -_scaled_gap(hf, hg, t),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return max(best, -float(res.fun))


def approx_gdp_distance(f: object, mu: float) -> float:
    r"""The smallest ``D`` with ``f`` ``D``-approximately ``mu``-GDP: ``Delta(f, G_mu)``.

    Definition 2.7 of Tran-Koskela-Räisä-Honkela (2025):
    ``G_mu(a + D) - D <= f(a) <= G_mu(a - D) + D`` for all ``a``; the two inequalities are
    the two halves of the symmetrised Delta-divergence to ``G_mu``.

    Parameters
    ----------
    f : TradeOffFunction or callable
        A curve or a remove-direction profile.
    mu : float
        ``mu >= 0``.

    Returns
    -------
    float

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, approx_gdp_distance
    >>> round(approx_gdp_distance(GaussianTradeOff(2.0), 0.5), 6)
    0.242638
    """
    m = check_scalar(mu, "mu", low=0.0)
    return delta_divergence(f, GaussianTradeOff(m))


def is_approx_gdp(f: object, mu: float, distance: float) -> bool:
    r"""Whether ``f`` is ``distance``-approximately ``mu``-GDP (Definition 2.7).

    Parameters
    ----------
    f : TradeOffFunction or callable
    mu : float
        ``mu >= 0``.
    distance : float
        ``D`` in ``[0, 1]``.

    Returns
    -------
    bool

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, is_approx_gdp
    >>> f = GaussianTradeOff(1.2)
    >>> is_approx_gdp(f, 1.0, 0.035), is_approx_gdp(f, 1.0, 0.03)
    (True, False)
    """
    d = check_scalar(distance, "distance", low=0.0, high=1.0)
    return approx_gdp_distance(f, mu) <= d


def approx_gdp_delta(mu: float, distance: float, epsilon: ArrayLike) -> float | np.ndarray:
    r"""``delta(eps)`` implied by ``distance``-approximate ``mu``-GDP (both directions).

    ``min(1, delta_mu(eps) + D (1 + e^eps))``: from the profile form of the
    Delta-divergence, ``|H_f(gamma) - H_mu(gamma)| <= D (1 + gamma)``. A valid bound *given*
    the Delta-approximation; Theorem 4.3 of Tran-Koskela-Räisä-Honkela (2025) gives ``D``
    only up to unknown constants.

    Parameters
    ----------
    mu : float
        ``mu >= 0``.
    distance : float
        ``D`` in ``[0, 1]``.
    epsilon : float or array_like

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> from ldp.accounting import approx_gdp_delta
    >>> round(float(approx_gdp_delta(1.0, 0.001, 1.0)), 6)
    0.130655
    """
    m = check_scalar(mu, "mu", low=0.0)
    d = check_scalar(distance, "distance", low=0.0, high=1.0)
    e = np.asarray(epsilon, dtype=np.float64)
    if not np.all(np.isfinite(e)):
        raise ValueError("epsilon must be finite")
    base = GaussianTradeOff(m).delta(e)
    with np.errstate(over="ignore"):
        value = np.minimum(1.0, np.asarray(base) + d * (1.0 + np.exp(e)))
    return float(value) if value.ndim == 0 else value


def _first_step(first: object) -> tuple[float, float]:
    if isinstance(first, TradeOffFunction):
        mu = first.gdp_mu()
        if mu is not None:
            return 1.0, float(mu)
        step = first.subsampled_gaussian()
        if step is not None:
            return float(step[0]), float(step[1])
    raise TypeError(
        "first must be a GaussianTradeOff or a remove-direction SubsampledGaussianTradeOff, "
        f"got {type(first).__name__}"
    )


def worst_case_adaptive_profile(
    first: object, candidates: Sequence[object], gamma: ArrayLike
) -> float | np.ndarray:
    r"""Theorem B.1: the tight profile of a first step followed by an adaptive choice.

    ``H_worst(gamma) = E_{y ~ P_1}[max_k H_k(gamma q_1(y)/p_1(y))] = (H_1 (x) max_k H_k)``
    for ``P_1 = (1-q) N(0,1) + q N(mu,1)``, ``Q_1 = N(0,1)`` (``q = 1``: Gaussian). Every
    rule choosing the second mechanism among ``candidates`` from ``y_1`` has a profile
    below it, and for each ``gamma`` the rule ``argmax_k H_k(gamma q_1(y_1)/p_1(y_1))``
    attains it (Tran-Koskela-Räisä-Honkela (2025), Theorem B.1). It exceeds
    ``max_k (H_1 (x) H_k)`` exactly where candidates cross (Corollary B.4): then a natural
    f-DP filter budgeted by the non-adaptive compositions is violated.

    Parameters
    ----------
    first : GaussianTradeOff or SubsampledGaussianTradeOff
        The first step (remove direction).
    candidates : sequence of TradeOffFunction or callable
        Curves or remove-direction profiles of the possible second steps.
    gamma : float or array_like
        ``gamma >= 0``.

    Returns
    -------
    float or numpy.ndarray
        By trapezoid quadrature over ``y`` (4001 points on ``[-12, mu + 12]``).

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff
    >>> from ldp.accounting.central import SubsampledGaussianTradeOff
    >>> from ldp.accounting import worst_case_adaptive_profile
    >>> import math
    >>> c = [GaussianTradeOff(2.0), SubsampledGaussianTradeOff(0.3, 10.0)]
    >>> round(float(worst_case_adaptive_profile(GaussianTradeOff(1.5), c, math.exp(3.5))), 4)
    0.3878
    """
    q, mu = _first_step(first)
    profiles = [as_profile(c, f"candidates[{i}]") for i, c in enumerate(candidates)]
    if not profiles:
        raise ValueError("candidates must not be empty")
    g = np.asarray(gamma, dtype=np.float64)
    if g.size and (not np.all(np.isfinite(g)) or np.any(g < 0)):
        raise ValueError("gamma must be finite and >= 0")
    y = np.linspace(-12.0, mu + 12.0, 4001)
    w = np.full(y.size, y[1] - y[0])
    w[0] = w[-1] = w[0] / 2.0
    phi0 = np.exp(-0.5 * y * y) / math.sqrt(2.0 * math.pi)
    phi1 = np.exp(-0.5 * (y - mu) ** 2) / math.sqrt(2.0 * math.pi)
    p = (1.0 - q) * phi0 + q * phi1
    ratio = phi0 / p
    flat = g.ravel()
    probe = (flat[:, None] * ratio[None, :]).ravel()
    worst = np.max(np.stack([h(probe) for h in profiles]), axis=0).reshape(flat.size, y.size)
    result = np.clip(worst @ (w * p), 0.0, 1.0).reshape(g.shape)
    return float(result) if result.ndim == 0 else result

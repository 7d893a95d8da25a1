r"""Privacy amplification by subsampling: the operator ``C_p`` and the (eps, delta) lemmas.

* :func:`subsample_tradeoff` is the operator :math:`C_p(f) = \min\{f_p, f_p^{-1}\}^{**}`
  with :math:`f_p = p f + (1-p)\,\mathrm{Id}` (Dong-Roth-Su (2022), Definition 4.1 and
  Theorem 4.2): exact for piecewise-linear ``f`` (biconjugate of vertex sets) and by the
  symmetric closed form (Dong-Roth-Su (2022), eq. (14)) for symmetric curves such as
  ``G_mu``.
* :func:`subsampled_eps_delta_tradeoff` is the closed form of ``C_p(f_{eps,delta})`` with the
  **corrected** intercept ``1 - p (e^eps - 1 + 2 delta)/(e^eps + 1)``: Dong-Roth-Su (2022),
  Corollary 4.3, prints ``1 - p delta - p (e^eps - 1)/(e^eps + 1)``, which is smaller when
  ``delta > 0`` (checked against the biconjugate route in
  ``tests/accounting/amplification/test_subsampling.py``).
* :func:`subsample_eps_delta` / :func:`subsample_eps_delta_eta` are the classical lemma and
  Ghazi-Issa (2023), Proposition 1 (sampling without replacement, ``p = m/n``).

The Poisson-subsampled Gaussian of NoisySGD lives in :mod:`ldp.accounting.central`.
"""

from __future__ import annotations

import math

import numpy as np

from ldp._formulas import eta_max
from ldp._numerics import pointwise_max
from ldp._validation import check_epsilon, check_probability
from ldp.accounting.curves import (
    EpsDeltaTradeOff,
    PiecewiseLinearTradeOff,
    SubsampledTradeOff,
    TradeOffFunction,
    symmetrize,
)

__all__ = [
    "SubsampledTradeOff",
    "subsample_eps_delta",
    "subsample_eps_delta_eta",
    "subsample_tradeoff",
    "subsampled_eps_delta_tradeoff",
]

_UNIT = float(np.finfo(np.float64).eps) / 2.0


def _check_p(p: float) -> float:
    return check_probability(p, "p")


def subsample_tradeoff(f: TradeOffFunction, p: float) -> TradeOffFunction:
    r"""The p-sampling operator ``C_p(f) = min{f_p, f_p^{-1}}**`` (Dong-Roth-Su (2022)).

    If ``M`` is ``f``-DP then ``M`` on a uniformly random ``m``-subset of ``n`` records is
    ``C_{m/n}(f)``-DP (Dong-Roth-Su (2022), Theorem 4.2). Piecewise-linear ``f``: exact
    biconjugate of the vertex set. Symmetric ``f``: closed form eq. (14)
    (:class:`SubsampledTradeOff`).

    Parameters
    ----------
    f : TradeOffFunction
        A piecewise-linear or symmetric guarantee of one run.
    p : float
        Sampling probability ``m / n`` in ``[0, 1]``.

    Returns
    -------
    TradeOffFunction
        ``C_p(f)``, symmetric.

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, subsample_tradeoff
    >>> c = subsample_tradeoff(GaussianTradeOff(1.8), 0.35)
    >>> [round(float(v), 6) for v in c([0.01, 0.1, 0.3, 0.5])]
    [0.888737, 0.690725, 0.478842, 0.278842]
    """
    if not isinstance(f, TradeOffFunction):
        raise TypeError(f"f must be a TradeOffFunction, got {type(f).__name__}")
    p = _check_p(p)
    if isinstance(f, PiecewiseLinearTradeOff):
        a, b = f.vertices
        mixed = PiecewiseLinearTradeOff.from_points(
            a, p * b + (1.0 - p) * (1.0 - a), f.approx, symmetric=False
        )
        return symmetrize(mixed, "convex_min") if p < 1.0 else symmetrize(f, "max")
    if f.is_symmetric:
        return SubsampledTradeOff(f, p)
    raise TypeError("subsample_tradeoff needs a piecewise-linear or a symmetric trade-off function")


def subsampled_eps_delta_tradeoff(
    epsilon: float, delta: float, p: float
) -> PiecewiseLinearTradeOff:
    r"""``C_p(f_{eps,delta}) = max{f_{eps',delta'}, 1 - p(e^eps - 1 + 2 delta)/(e^eps + 1) - a}``.

    ``eps' = log(1 - p + p e^eps)``, ``delta' = p delta``. The intercept is the corrected one
    (Dong-Roth-Su (2022), Corollary 4.3, prints ``1 - p delta - p (e^eps - 1)/(e^eps + 1)``,
    which is too small when ``delta > 0``; eq. (14) puts the slope -1 line through
    ``(x*, f_p(x*))`` with ``x* = (1 - delta)/(1 + e^eps)``).

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0``.
    delta : float
        In ``[0, 1]``.
    p : float
        Sampling probability in ``[0, 1]``.

    Returns
    -------
    PiecewiseLinearTradeOff
        The exact ``C_p(f_{eps,delta})``.

    Examples
    --------
    >>> from ldp.accounting import subsampled_eps_delta_tradeoff
    >>> f = subsampled_eps_delta_tradeoff(3.0, 0.1, 0.2)
    >>> round(1 - f.tv, 6)   # the intercept of the slope -1 piece
    0.817073
    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    p = _check_p(p)
    eps1, d1 = subsample_eps_delta(eps, d, p)
    base = EpsDeltaTradeOff(eps1, d1)
    a, _ = base.vertices
    level = 1.0 - p * eta_max(eps, d)  # 1 - p (e^eps - 1 + 2 delta) / (e^eps + 1)
    grid, values = pointwise_max(
        lambda x: np.asarray(base(x)),
        lambda x: np.clip(level - x, 0.0, None),
        np.union1d(a, [min(max(level, 0.0), 1.0)]),
    )
    return PiecewiseLinearTradeOff.from_points(grid, values, symmetric=True)


def subsample_eps_delta(epsilon: float, delta: float, p: float) -> tuple[float, float]:
    """Classical amplification: ``(log(1 - p + p e^eps), p delta)`` (Dong-Roth-Su (2022), §4.1).

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0``.
    delta : float
        In ``[0, 1]``.
    p : float
        Sampling probability in ``[0, 1]``.

    Returns
    -------
    epsilon, delta : float
        The amplified pair, rounded up.

    Examples
    --------
    >>> from ldp.accounting import subsample_eps_delta
    >>> [round(v, 6) for v in subsample_eps_delta(3.0, 0.1, 0.2)]
    [1.572174, 0.02]
    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    p = _check_p(p)
    if math.isinf(eps):
        return (math.inf if p > 0 else 0.0), min(1.0, p * d * (1.0 + 2.0 * _UNIT))
    # rounded up: expm1, the product and log1p each within a few units of the last place
    eps_p = math.log1p(p * math.expm1(eps)) * (1.0 + 8.0 * _UNIT)
    return eps_p, min(1.0, p * d * (1.0 + 2.0 * _UNIT))


def subsample_eps_delta_eta(
    epsilon: float, delta: float, eta: float, p: float
) -> tuple[float, float, float]:
    """Ghazi-Issa (2023), Proposition 1: ``(log(1 + p(e^eps - 1)), p delta, p eta)``.

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0``.
    delta, eta : float
        In ``[0, 1]``.
    p : float
        Sampling probability in ``[0, 1]``.

    Returns
    -------
    epsilon, delta, eta : float
        The amplified triple, rounded up.

    Examples
    --------
    >>> from ldp.accounting import subsample_eps_delta_eta
    >>> [round(v, 6) for v in subsample_eps_delta_eta(1.0, 0.01, 0.3, 0.1)]
    [0.158565, 0.001, 0.03]
    """
    eps1, d1 = subsample_eps_delta(epsilon, delta, p)
    return eps1, d1, min(1.0, p * check_probability(eta, "eta") * (1.0 + 2.0 * _UNIT))

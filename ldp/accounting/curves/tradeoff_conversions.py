"""Conversions between trade-off functions and privacy profiles, and the GDP level of a
curve."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ldp.accounting.curves._common import as_levels
from ldp.accounting.curves._hull import upper_envelope
from ldp.accounting.curves.tradeoff_base import (
    PiecewiseLinearTradeOff,
    TradeOffFunction,
    trusted_tradeoff,
)

__all__ = [
    "get_delta_from_tradeoff",
    "get_epsilon_from_tradeoff",
    "get_mu_from_tradeoff",
    "get_tradeoff_from_profile",
]


def get_delta_from_tradeoff(f: TradeOffFunction, epsilon: ArrayLike) -> float | np.ndarray:
    """``delta(eps) = 1 + f*(-e^eps)`` of a trade-off function (riskcal-style name).

    Parameters
    ----------
    f : TradeOffFunction
        The guarantee.
    epsilon : float or array_like
        Level(s), real.

    Returns
    -------
    float or ndarray
        ``f.delta(epsilon)``, rounded up.

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, get_delta_from_tradeoff
    >>> round(get_delta_from_tradeoff(GaussianTradeOff(1.0), 1.0), 7)
    0.1269367
    """
    if not isinstance(f, TradeOffFunction):
        raise TypeError(f"f must be a TradeOffFunction, got {type(f).__name__}")
    return f.delta(epsilon)


def get_epsilon_from_tradeoff(f: TradeOffFunction, delta: ArrayLike) -> float | np.ndarray:
    """Smallest ``eps >= 0`` with ``delta_f(eps) <= delta``.

    Parameters
    ----------
    f : TradeOffFunction
        The guarantee.
    delta : float or array_like
        Target(s) in ``[0, 1]``.

    Returns
    -------
    float or ndarray
        ``f.epsilon_for_delta(delta)``, rounded up (``inf`` when no finite level reaches it).

    Examples
    --------
    >>> from ldp.accounting import EpsDeltaTradeOff, get_epsilon_from_tradeoff
    >>> round(get_epsilon_from_tradeoff(EpsDeltaTradeOff(1.0, 0.01), 0.01), 12)
    1.0
    """
    if not isinstance(f, TradeOffFunction):
        raise TypeError(f"f must be a TradeOffFunction, got {type(f).__name__}")
    return f.epsilon_for_delta(delta)


#: Largest level ``eps`` whose line ``1 - delta - e^eps a`` enters a curve built from a
#: profile (``e^709`` is near the largest double).
_MAX_LINE_LEVEL = 700.0


def get_tradeoff_from_profile(
    epsilons: ArrayLike, deltas: ArrayLike, *, symmetric: bool = True
) -> PiecewiseLinearTradeOff:
    """The trade-off function ``max_i f_{eps_i, delta_i}`` of a set of (eps, delta) pairs.

    A mechanism that is ``(eps_i, delta_i)``-DP for every ``i`` is exactly
    ``max_i f_{eps_i,delta_i}``-DP (Dong-Roth-Su (2022), Proposition 2.8); with a finite grid
    this is a valid (conservative) curve, exact at the supporting lines.

    With ``symmetric=False`` the pairs are points of the profile of an asymmetric curve
    ``f`` at real levels (negative ones included): the result is
    ``max_i max(0, 1 - delta_i - e^{eps_i} a)``, a curve below ``f`` that touches it at the
    supporting lines (Zheng-Dong-Long-Su (2020), §5.1).

    Parameters
    ----------
    epsilons : array_like
        Finite levels (``>= 0`` unless ``symmetric=False``).
    deltas : array_like
        The matching deltas in ``[0, 1]`` (broadcast against ``epsilons``).
    symmetric : bool, default True
        Whether the pairs are a symmetric guarantee (see above).

    Returns
    -------
    PiecewiseLinearTradeOff
        The curve ``max_i f_{eps_i, delta_i}`` (symmetric unless ``symmetric=False``).

    Examples
    --------
    >>> from ldp.accounting import get_tradeoff_from_profile
    >>> f = get_tradeoff_from_profile([0.0, 1.0], [0.3, 0.01])
    >>> round(f(0.3), 6), round(f(0.6), 6), round(f.delta(1.0), 12)
    (0.4, 0.143473, 0.01)
    """
    if not isinstance(symmetric, bool):
        raise TypeError(f"symmetric must be True or False, got {symmetric!r}")
    e, _ = as_levels(epsilons, "epsilons", low=0.0 if symmetric else None, allow_inf=False)
    d, _ = as_levels(deltas, "deltas", low=0.0, high=1.0)
    e, d = np.broadcast_arrays(np.atleast_1d(e), np.atleast_1d(d))
    if e.ndim != 1:
        raise ValueError(f"epsilons and deltas must be 1-D, got shape {e.shape}")
    # lines with e^eps beyond a double are left out: fewer lines, a lower curve (still valid)
    usable = e <= _MAX_LINE_LEVEL
    e, d = e[usable], d[usable]
    if e.size == 0:
        return trusted_tradeoff(np.array([0.0, 1.0]), np.zeros(2))
    if not symmetric:
        x, y = upper_envelope(-np.exp(e), 1.0 - d)
        return trusted_tradeoff(x, y, symmetric=False)
    slopes = np.concatenate((-np.exp(e), -np.exp(-e)))
    intercepts = np.concatenate((1.0 - d, (1.0 - d) * np.exp(-e)))
    x, y = upper_envelope(slopes, intercepts)
    return trusted_tradeoff(x, y, symmetric=True)


def get_mu_from_tradeoff(f: TradeOffFunction) -> float:
    """The smallest ``mu`` with ``G_mu <= f``: the GDP level a mechanism is guaranteed.

    For a piecewise-linear ``f`` this is exact: ``G_mu`` is convex, so it lies below a
    linear piece iff it lies below both of its ends, and at a vertex ``(a, b)`` the
    condition ``G_mu(a) <= b`` reads ``mu >= Phi^{-1}(1-a) + Phi^{-1}(1-b)``. A curve with
    ``f(0) < 1`` is not GDP for any finite ``mu`` (``inf``). For ``G_mu`` it is ``mu``.
    A curve stored as doubles loses its vertices within ``1e-16`` of the corners (``b``
    rounds to 1 or ``a`` to 0), which for long compositions leaves ``f`` at 0 before
    ``a = 1`` and gives ``inf``; ``Composition.gdp_mu`` reads the level from the tails of the
    privacy-loss distributions instead and stays finite there.

    Parameters
    ----------
    f : GaussianTradeOff or PiecewiseLinearTradeOff
        The guarantee.

    Returns
    -------
    float
        The smallest such ``mu`` (rounded up), ``inf`` when there is none.

    Examples
    --------
    >>> import math
    >>> from ldp.accounting import EpsDeltaTradeOff, get_mu_from_tradeoff
    >>> mu = get_mu_from_tradeoff(EpsDeltaTradeOff(1.0))   # randomized response
    >>> round(mu, 6), round(2 * math.sqrt(1) * math.sinh(0.5), 6)
    (1.232035, 1.042191)
    """
    mu = f.gdp_level() if isinstance(f, TradeOffFunction) else None
    if mu is None:
        raise TypeError(
            f"get_mu_from_tradeoff needs a curve with an exact GDP level (gdp_level(): a "
            f"GaussianTradeOff or a piecewise-linear curve), got {type(f).__name__}"
        )
    return mu

r"""The two-parameter summary ``(mu*, gamma)`` of a trade-off curve (Zheng-Dong-Long-Su (2020), §4).

``mu* = Phi^{-1}(1 - alpha*) - Phi^{-1}(alpha*) = -2 Phi^{-1}(alpha*)``, with ``alpha*`` the
fixed point ``f(alpha*) = alpha*``, is the GDP level whose curve has the same fixed point;
``gamma = int_0^1 f(alpha) d alpha`` is the area under the curve (``1/2`` for the identity,
``Phi(-mu / sqrt 2)`` for ``G_mu``). A curve with smaller ``mu*`` and larger ``gamma`` than
another is called more private there (a partial order).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from scipy.special import ndtri

from ldp.accounting.curves.tradeoff_base import (
    TradeOffFunction,
)

__all__ = ["TradeOffSummary", "tradeoff_summary"]


class TradeOffSummary(NamedTuple):
    """``(mu_star, gamma)``: the fixed-point GDP level and the area under the curve.

    Examples
    --------
    >>> import math
    >>> from scipy.special import ndtr
    >>> from ldp.accounting import GaussianTradeOff, tradeoff_summary
    >>> summary = tradeoff_summary(GaussianTradeOff(1.0))   # G_mu is its own summary
    >>> summary.mu_star, math.isclose(summary.gamma, ndtr(-1.0 / math.sqrt(2.0)))
    (1.0, True)
    """

    mu_star: float
    gamma: float


def _area(f: TradeOffFunction) -> float:
    closed = f.area()
    if closed is not None:
        return closed
    from scipy.integrate import quad

    value, _ = quad(lambda x: float(f(x)), 0.0, 1.0, limit=400, epsabs=1e-12)
    return float(value)


def tradeoff_summary(f: TradeOffFunction) -> TradeOffSummary:
    r"""``(mu*, gamma)`` of a trade-off curve (Zheng-Dong-Long-Su (2020), §4).

    Parameters
    ----------
    f : TradeOffFunction
        Any curve; exact for Gaussian, Laplace and piecewise-linear curves (the area by the
        trapezoid rule on the vertices), by quadrature otherwise.

    Returns
    -------
    TradeOffSummary
        ``mu_star = -2 Phi^{-1}(alpha*)`` (``inf`` when the fixed point is 0) and
        ``gamma = int_0^1 f``.

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, tradeoff_summary
    >>> s = tradeoff_summary(GaussianTradeOff(1.2))
    >>> round(s.mu_star, 12), round(s.gamma, 6)
    (1.2, 0.198072)
    """
    if not isinstance(f, TradeOffFunction):
        raise TypeError(f"f must be a TradeOffFunction, got {type(f).__name__}")
    mu_star = f.gdp_mu()
    if mu_star is None:
        fixed = f.fixed_point()
        mu_star = math.inf if fixed <= 0.0 else max(0.0, float(-2.0 * ndtri(fixed)))
    return TradeOffSummary(mu_star, _area(f))

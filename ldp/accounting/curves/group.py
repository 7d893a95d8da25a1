r"""Group privacy of trade-off functions (Dong-Roth-Su (2022), §2.5).

An ``f``-DP mechanism is ``1 - (1 - f)^{∘k}``-DP for datasets that differ in at most ``k``
records (``h^{∘k}`` is ``k``-fold function composition); the bound is a trade-off function,
symmetric when ``f`` is. For a shift family with a log-concave noise the group curve is the
shift by ``k`` times as much: ``mu``-GDP gives ``k mu``-GDP, and ``T(Lap(0,1), Lap(mu,1))``
gives ``T(Lap(0,1), Lap(k mu,1))``.

Piecewise-linear curves are composed exactly through their vertices. Any other curve is
first replaced by a piecewise-linear curve that lies below it (from its values on a grid,
see :func:`group_privacy`), so the result is still a valid guarantee: the group operation is
monotone.
"""

from __future__ import annotations

import numpy as np

from ldp._validation import check_integer
from ldp.accounting.curves.tradeoff_base import (
    PiecewiseLinearTradeOff,
    TradeOffFunction,
)

__all__ = ["group_privacy"]

_ULP = float(np.finfo(np.float64).eps)

#: Grid of type I errors on which a smooth curve is bounded below by a polygon.
_GRID = np.unique(np.concatenate((np.geomspace(1e-12, 0.05, 800), np.linspace(0.0, 1.0, 2001))))


def _compose(hx: np.ndarray, hy: np.ndarray, gx: np.ndarray, gy: np.ndarray):
    """Vertices of ``h ∘ g`` for non-decreasing piecewise-linear ``h`` and ``g`` on ``[0, 1]``.

    The breakpoints are those of ``g`` and the preimages under ``g`` of those of ``h``.
    """
    lo, hi = gy[:-1], gy[1:]
    rising = hi > lo
    pre = []
    for u in hx[1:-1]:
        inside = rising & (lo < u) & (u < hi)
        if np.any(inside):
            i = int(np.argmax(inside))
            pre.append(gx[i] + (u - lo[i]) * (gx[i + 1] - gx[i]) / (hi[i] - lo[i]))
    x = np.union1d(gx, np.asarray(pre, dtype=np.float64))
    y = np.interp(np.interp(x, gx, gy), hx, hy)
    return x, y


def _polygon_below(f: TradeOffFunction) -> PiecewiseLinearTradeOff:
    """A piecewise-linear curve below a convex ``f``, from its values on ``_GRID``.

    The line through two consecutive grid points lies below the convex ``f`` outside their
    interval, so on ``[a_i, a_{i+1}]`` the lines of the neighbouring intervals bound ``f``
    from below; their crossing is added as a vertex, and every value is lowered by its
    rounding slack.
    """
    a = _GRID
    b = np.asarray(f(a), dtype=np.float64) - 8.0 * _ULP
    slope = np.diff(b) / np.diff(a)  # slope of chord i on [a_i, a_{i+1}]
    xs, ys = [a], [b]
    # on interval i (1 <= i <= n-3): lines of chord i-1 and chord i+1
    i = np.arange(1, len(a) - 2)
    s1, s2 = slope[i - 1], slope[i + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        # s1 (x - a_i) + b_i = s2 (x - a_{i+1}) + b_{i+1}
        x = (b[i + 1] - b[i] - s2 * a[i + 1] + s1 * a[i]) / (s1 - s2)
    ok = np.isfinite(x) & (x > a[i]) & (x < a[i + 1])
    xs.append(x[ok])
    ys.append(s1[ok] * (x[ok] - a[i][ok]) + b[i][ok])
    # the end intervals: only one neighbour; the chord's lower end is a safe value
    for j in (0, len(a) - 2):
        xs.append(np.array([a[j], a[j + 1]]))
        ys.append(np.array([min(b[j], b[j + 1])] * 2))
    return PiecewiseLinearTradeOff.from_points(
        np.concatenate(xs), np.concatenate(ys), approx=f.approx, symmetric=None
    )


def group_privacy(f: TradeOffFunction, k: int) -> TradeOffFunction:
    r"""The group-privacy curve ``1 - (1 - f)^{∘k}`` of an ``f``-DP mechanism.

    Dong-Roth-Su (2022), §2.5: a mechanism that is ``f``-DP for neighbouring datasets is
    ``1 - (1 - f)^{∘k}``-DP for datasets differing in at most ``k`` records.

    Parameters
    ----------
    f : TradeOffFunction
        The trade-off function of the mechanism.
    k : int
        Group size, ``>= 1``.

    Returns
    -------
    TradeOffFunction
        ``GaussianTradeOff(k mu)`` for ``G_mu`` and ``LaplaceTradeOff(k mu)`` for the
        Laplace curve (log-concave shift families add their shifts); the exact composition
        of the vertices for a piecewise-linear ``f``; for any other curve the exact group
        curve of a polygon below ``f`` (its values on a grid of ~2800 type I errors, with
        the crossings of neighbouring chords), which is below the true group curve.

    Raises
    ------
    TypeError
        If ``f`` is not a :class:`TradeOffFunction` or ``k`` not an integer.
    ValueError
        If ``k < 1``.

    Examples
    --------
    >>> from ldp.accounting import EpsDeltaTradeOff, GaussianTradeOff, group_privacy
    >>> group_privacy(GaussianTradeOff(0.5), 3)
    GaussianTradeOff(mu=1.5)
    >>> g = group_privacy(EpsDeltaTradeOff(1.0), 2)   # randomized response, pairs
    >>> round(float(g(0.1)), 6), round(g.epsilon(0.0), 12)
    (0.267879, 2.0)
    """
    if not isinstance(f, TradeOffFunction):
        raise TypeError(f"f must be a TradeOffFunction, got {type(f).__name__}")
    k = check_integer(k, "k", low=1)
    if k == 1:
        return f
    closed = f.group_curve(k)
    if closed is not None:
        return closed
    base = f if isinstance(f, PiecewiseLinearTradeOff) else _polygon_below(f)
    a, b = base.vertices
    hx, hy = a, 1.0 - b  # h = 1 - f, non-decreasing and concave
    gx, gy = hx, hy
    for _ in range(k - 1):
        gx, gy = _compose(hx, hy, gx, gy)
    # 1 - h^k, each value lowered by its rounding (k compositions of interpolations)
    # (at alpha = 0 the value 1 - h^k(0) is exact: a pure-DP curve stays pure)
    values = 1.0 - gy - np.where(gx > 0.0, 4.0 * k * _ULP, 0.0)
    return PiecewiseLinearTradeOff.from_points(
        gx, values, approx=f.approx, symmetric=True if base.is_symmetric else None
    )

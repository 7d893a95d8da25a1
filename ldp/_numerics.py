"""Numerical building blocks shared across the library: one home for each.

A leaf module: it imports nothing from ``ldp``.

* :func:`inverse_monotone` -- the one vectorised bisection, in the spirit of
  ``dp_accounting``'s ``inverse_monotone_function``: the boundary of
  ``{x : func(x) <= value}`` for a monotone ``func``, always returned from the side where the
  inequality holds, so that a privacy parameter found by inversion is an upper bound that
  holds (an ``epsilon`` rounded up, a calibrated ``mu`` rounded down).
* :func:`pointwise_max` -- the maximum of two piecewise-linear functions, exact between the
  grid points once their crossings are added to the grid.

The other shared rules live with their kind: argument checks (the one epsilon validator
:func:`ldp._validation.check_epsilon`) and the scalar-in, scalar-out rule
(:func:`ldp._validation.scalar_or_array`) in :mod:`ldp._validation`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["inverse_monotone", "pointwise_max"]


def _double(upper: np.ndarray) -> np.ndarray:
    return 2.0 * upper


def inverse_monotone(
    func: Callable[[np.ndarray], np.ndarray],
    value: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    increasing: bool = False,
    expand: Callable[[np.ndarray], np.ndarray] = _double,
    max_expansions: int = 1100,
    steps: int = 200,
    rtol: float = 4e-16,
    scale: float = 1.0,
) -> np.ndarray:
    """Vectorised bisection for the edge of ``{x : func(x) <= value}``, from inside it.

    ``func`` maps an array of points to an array of the same shape and is monotone in each
    entry: non-increasing (``increasing=False``; the set is ``[x*, inf)``, and the smallest
    point found in it is returned) or non-decreasing (``increasing=True``; the set is
    ``(-inf, x*]``, and the largest point found in it is returned). Every returned point
    satisfies ``func(x) <= value`` as evaluated, so when ``func`` is an upper bound on the
    exact function (a privacy profile rounded up) the answer is on the safe side.

    Parameters
    ----------
    func : callable
        Vectorised and monotone in each entry.
    value : array_like
        The targets, one per entry.
    lower : array_like
        Start of each bracket: outside the set when ``func`` is decreasing, inside it when
        increasing (not checked).
    upper : array_like
        End of each bracket; replaced by ``expand(upper)`` (default ``2 * upper``) where it
        is on the same side as ``lower``, at most ``max_expansions`` times.
    increasing : bool, default False
        The direction of ``func``.
    expand : callable, optional
        How a bracket end grows.
    max_expansions : int, default 1100
        Growth steps allowed (``2^1100`` overflows a double, so the default reaches ``inf``).
    steps : int, default 200
        Bisection steps at most.
    rtol, scale : float
        Stop once every bracket is narrower than ``rtol * max(|upper|, scale)``;
        ``rtol=0`` runs all ``steps``.

    Returns
    -------
    ndarray
        The end of each final bracket that lies in the set.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp._numerics import inverse_monotone
    >>> x = inverse_monotone(lambda t: np.exp(-t), np.array([0.5, 0.1]), np.zeros(2), np.ones(2))
    >>> bool(np.all(np.exp(-x) <= [0.5, 0.1])), np.allclose(x, -np.log([0.5, 0.1]))
    (True, True)
    >>> inverse_monotone(np.sqrt, np.array([3.0]), np.zeros(1), np.ones(1), increasing=True)
    array([9.])
    """
    target = np.asarray(value, dtype=np.float64)
    lo = np.array(lower, dtype=np.float64)
    hi = np.array(upper, dtype=np.float64)
    for _ in range(max_expansions):
        inside = func(hi) <= target
        grow = inside if increasing else ~inside
        if not np.any(grow):
            break
        hi = np.where(grow, expand(hi), hi)
    for _ in range(steps):
        mid = lo + 0.5 * (hi - lo)
        # keep the end of the bracket that is in the set on its side
        move_upper = (func(mid) <= target) != increasing
        hi = np.where(move_upper, mid, hi)
        lo = np.where(move_upper, lo, mid)
        if np.all(hi - lo <= rtol * np.maximum(np.abs(hi), scale)):
            break
    return lo if increasing else hi


def pointwise_max(
    first: Callable[[np.ndarray], np.ndarray],
    second: Callable[[np.ndarray], np.ndarray],
    grid: ArrayLike,
) -> tuple[np.ndarray, np.ndarray]:
    """``(grid', max(first, second) on grid')``, with ``grid'`` the grid plus every crossing.

    ``first`` and ``second`` are linear between consecutive grid points (the union of their
    breakpoints), so a sign change of their difference on an interval is one crossing,
    found by linear interpolation; the maximum is then linear between the points returned.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp._numerics import pointwise_max
    >>> x, y = pointwise_max(lambda t: 1.0 - t, lambda t: t, np.array([0.0, 1.0]))
    >>> x.tolist(), y.tolist()
    ([0.0, 0.5, 1.0], [1.0, 0.5, 1.0])
    """
    points = np.asarray(grid, dtype=np.float64)
    diff = first(points) - second(points)
    s = np.nonzero(diff[:-1] * diff[1:] < 0)[0]
    cross = points[s] + diff[s] / (diff[s] - diff[s + 1]) * (points[s + 1] - points[s])
    points = np.union1d(points, cross)
    return points, np.maximum(first(points), second(points))

"""Numerical building blocks shared across the library: one home for each.

A leaf module: it imports nothing from ``ldp``.

* :func:`inverse_monotone` -- the one vectorised bisection, in the spirit of
  ``dp_accounting``'s ``inverse_monotone_function``: the boundary of
  ``{x : func(x) <= value}`` for a monotone ``func``, always returned from the side where the
  inequality holds, so that a privacy parameter found by inversion is an upper bound that
  holds (an ``epsilon`` rounded up, a calibrated ``mu`` rounded down).
* :func:`bisect_monotone` -- the one scalar bisection of a monotone predicate on floats: the
  caller states which end of the final bracket it gets (``side="low"`` or ``"high"``), and
  so on which side of the boundary the answer lies (an epsilon from above, a lower bound
  from below).
* :func:`first_integer` -- the one search for the smallest integer at which a monotone
  predicate holds (galloping, then bisection; exact).
* :func:`log_binomial` -- the one ``log C(n, k)`` (``gammaln``).
* :func:`pointwise_max` -- the maximum of two piecewise-linear functions, exact between the
  grid points once their crossings are added to the grid.

The float-exact search (the smallest double at which a predicate holds, bisecting over the
doubles by bit pattern) has its home in the device client, reached through
:func:`ldp._exact.smallest_double` and :func:`ldp._exact.nearest_within`; a root from
``scipy.optimize.brentq`` (within ``xtol`` of the root, on an unknown side) is moved to the
safe side with :func:`ldp._exact.nearest_within`.

The other shared rules live with their kind: argument checks (the one epsilon validator
:func:`ldp._validation.check_epsilon`) and the scalar-in, scalar-out rule
(:func:`ldp._validation.scalar_or_array`) in :mod:`ldp._validation`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

__all__ = ["bisect_monotone", "first_integer", "inverse_monotone", "log_binomial", "pointwise_max"]


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


def bisect_monotone(
    pred: Callable[[float], bool],
    lo: float,
    hi: float,
    *,
    side: Literal["low", "high"],
    ends: tuple[bool, bool] | None = None,
    rtol: float = 0.0,
    scale: float = 0.0,
    max_steps: int = 2200,
) -> float:
    """Bisection of a predicate that changes value once on ``[lo, hi]``; the caller picks the end.

    ``pred`` is monotone on ``[lo, hi]``: it has one value on ``[lo, x*)`` and the other on
    ``(x*, hi]``. The bracket ``[a, b]`` starts as ``[lo, hi]`` and is halved at ``(a + b) /
    2``, keeping ``pred(a) == pred(lo)`` and ``pred(b) == pred(hi)``, until ``b - a <=
    rtol * max(|a|, |b|, scale)`` (the rule of :func:`inverse_monotone`), the midpoint is
    no longer strictly inside (the doubles are exhausted) or ``max_steps`` halvings are done.
    The end on ``side`` is returned: ``"low"`` gives ``a``, with ``pred(a) == pred(lo)``; ``"high"``
    gives ``b``, with ``pred(b) == pred(hi)``. Every returned point other than ``lo`` and
    ``hi`` themselves was evaluated, so the caller knows on which side of ``x*`` it lies:
    pick the side where the privacy number is safe (an epsilon from above, a lower bound on
    a risk from below).

    Parameters
    ----------
    pred : callable
        ``pred(x) -> bool``, monotone on ``[lo, hi]`` (not checked inside the bracket).
    lo, hi : float
        The bracket, ``lo <= hi``, both finite.
    side : {"low", "high"}
        The end of the final bracket returned.
    ends : tuple of bool, optional
        ``(pred(lo), pred(hi))`` when the caller knows them (an end where ``pred`` cannot be
        evaluated, such as ``epsilon = 0``); evaluated otherwise. They must differ.
    rtol, scale : float, default 0.0
        Stop once the bracket is at most ``rtol * max(|a|, |b|, scale)`` wide (``rtol=0``:
        run until the doubles or ``max_steps`` are exhausted).
    max_steps : int, default 2200
        Halvings at most (2200 exhaust any bracket of doubles).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``lo > hi``, a NaN or infinite end, a bad ``side``, a negative or NaN tolerance or
        ``max_steps``, or ``pred`` taking the same value at both ends.
    """
    if side not in ("low", "high"):
        raise ValueError(f"side must be 'low' or 'high', got {side!r}")
    for name, value in (("lo", lo), ("hi", hi)):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be a finite float, got {value!r}")
    if lo > hi:
        raise ValueError(f"lo must be <= hi, got lo={lo!r} > hi={hi!r}")
    for name, value in (("rtol", rtol), ("scale", scale)):
        if not value >= 0.0:
            raise ValueError(f"{name} must be >= 0, got {value!r}")
    if max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps!r}")
    at_lo, at_hi = (bool(pred(lo)), bool(pred(hi))) if ends is None else ends
    if at_lo == at_hi:
        raise ValueError(
            f"pred must change value on [lo, hi]: pred({lo!r}) = pred({hi!r}) = {at_lo}"
        )
    a, b = float(lo), float(hi)
    for _ in range(max_steps):
        if b - a <= rtol * max(abs(a), abs(b), scale):
            break
        mid = 0.5 * (a + b)  # the midpoint the searches it replaced took
        if math.isinf(mid):
            mid = a + 0.5 * (b - a)
        if not a < mid < b:
            break
        if bool(pred(mid)) == at_lo:
            a = mid
        else:
            b = mid
    return a if side == "low" else b


def first_integer(pred: Callable[[int], bool], lo: int, hi: int) -> int | None:
    """The smallest integer ``n`` in ``[lo, hi]`` with ``pred(n)``, for a non-decreasing ``pred``.

    Galloping from ``lo`` (``lo, lo + 1, lo + 3, lo + 7, ...``, capped at ``hi``) until
    ``pred`` holds, then bisection between the last probe that failed and the first that
    held: exact, and ``O(log(n - lo))`` calls. ``None`` when ``pred(hi)`` is false.

    Parameters
    ----------
    pred : callable
        ``pred(n) -> bool``, false then true along ``[lo, hi]``.
    lo, hi : int
        The range searched, ``lo <= hi``.

    Returns
    -------
    int or None

    Raises
    ------
    ValueError
        ``lo > hi``.

    Examples
    --------
    >>> from ldp._numerics import first_integer
    >>> first_integer(lambda n: n * n >= 50, 1, 100), first_integer(lambda n: n > 100, 1, 100)
    (8, None)
    """
    if lo > hi:
        raise ValueError(f"lo must be <= hi, got lo={lo!r} > hi={hi!r}")
    failing, step = lo - 1, 1
    while True:
        probe = min(lo + step - 1, hi)
        if pred(probe):
            break
        if probe == hi:
            return None
        failing, step = probe, 2 * step
    while probe - failing > 1:
        mid = (failing + probe) // 2
        if pred(mid):
            probe = mid
        else:
            failing = mid
    return probe


def log_binomial(n: ArrayLike, k: ArrayLike) -> np.ndarray:
    """``log C(n, k) = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)``, elementwise.

    Real ``n`` (a Renyi order, say) and ``0 <= k <= n``; a 0-d array for scalar arguments.

    Examples
    --------
    >>> import math
    >>> from ldp._numerics import log_binomial
    >>> round(float(log_binomial(10, 3)), 12) == round(math.log(120), 12)
    True
    """
    n_arr = np.asarray(n, dtype=np.float64)
    k_arr = np.asarray(k, dtype=np.float64)
    return np.asarray(gammaln(n_arr + 1.0) - gammaln(k_arr + 1.0) - gammaln(n_arr - k_arr + 1.0))

r"""Trade-off functions (f-DP) as objects, and conversions to and from privacy profiles.

A trade-off function :math:`f = T(P, Q)` maps a type I error :math:`\alpha` of a test of
``P`` against ``Q`` to the smallest achievable type II error (Dong-Roth-Su (2022),
Definition 2.1). It is convex, continuous, non-increasing and
:math:`f(\alpha) \le 1 - \alpha`; larger means more private. Its privacy profile is
(Dong-Roth-Su (2022), §2.4; Zheng-Dong-Long-Su (2020), Lemma 5.1)

.. math:: \delta_f(\varepsilon) = 1 + f^*(-e^\varepsilon)
          = \sup_{\alpha} \,[1 - f(\alpha) - e^\varepsilon \alpha]
          = E_{e^\varepsilon}(Q \,\|\, P),

so a mechanism is ``f``-DP for a symmetric ``f`` iff it is ``(eps, delta_f(eps))``-DP for
every ``eps >= 0``. Every object here has ``__call__`` (vectorised over ``alpha``),
``delta(epsilon)``, ``epsilon_for_delta(delta)`` (the privacy-profile spelling shared with
:class:`~ldp.Channel`, the mechanisms, compositions and privacy-loss distributions;
``epsilon(delta)`` is a synonym kept for older code), ``tv``, ``inverse()``,
``symmetrize()`` and ``fixed_point()``; the ``approx`` attribute is ``True`` only for curves
built by an approximation (CLT, Edgeworth), which are not guarantees.

Curves are immutable: ``is_symmetric`` and ``approx`` are decided when a curve is built
(setting any attribute afterwards raises ``AttributeError``), so what ``inverse()`` and
``symmetrize()`` return cannot be changed by a caller.

Conventions: ``tradeoff_from_pair(p, q)`` is ``T(P, Q)`` (null ``P``, alternative ``Q``); its
profile is the hockey-stick ``E_{e^eps}(Q || P)``. Piecewise-linear curves (finite
channels, ``f_{eps,delta}``, ``f_{eps,delta,eta}``) are handled exactly through their
vertices: ``delta(eps) = max_v (1 - beta_v - e^eps alpha_v)``.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtr, ndtri

from ldp._formulas import k_rr_probabilities, normalise_erasure
from ldp._frozen import Frozen
from ldp._numerics import bisect_monotone, inverse_monotone, pointwise_max
from ldp._validation import check_epsilon, check_integer, check_pmf, check_probability
from ldp.accounting._common import SHAPE_TOLERANCE, as_levels, out
from ldp.accounting.curve_plds import gaussian_pld, laplace_pld
from ldp.accounting.gdp import get_delta_from_gdp, get_epsilon_from_gdp
from ldp.accounting.pld import PrivacyLossDistribution
from ldp.channel import Channel

__all__ = [
    "EpsDeltaEtaTradeOff",
    "EpsDeltaTradeOff",
    "GaussianTradeOff",
    "LaplaceTradeOff",
    "PiecewiseLinearTradeOff",
    "SubsampledTradeOff",
    "TradeOffFunction",
    "check_tradeoff",
    "get_delta_from_tradeoff",
    "get_epsilon_from_tradeoff",
    "get_mu_from_tradeoff",
    "get_tradeoff_from_profile",
    "symmetrize",
    "tradeoff_from_channel",
    "tradeoff_from_pair",
]

#: absolute rounding slack of ``1 - f(alpha)`` (a few ulps of 1)
_ROUNDING = 4.0 * np.finfo(np.float64).eps
_ULP = float(np.finfo(np.float64).eps)


# --------------------------------------------------------------------------- helpers
def _read_only(array: np.ndarray) -> np.ndarray:
    out = np.array(array, dtype=np.float64)
    out.setflags(write=False)
    return out


def _monotone_chain(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain over the points ``idx`` (sorted by ``x``): the lower hull."""
    hull: list[int] = []
    for i in idx.tolist():
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            cross = (x[b] - x[a]) * (y[i] - y[a]) - (y[b] - y[a]) * (x[i] - x[a])
            if cross <= 0.0:
                hull.pop()
            else:
                break
        hull.append(i)
    return np.array(hull, dtype=np.int64)


def _lower_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of the lower convex hull of points, sorted by ``x``: ``O(N log N)``.

    After sorting, every point on or above the chord of its two neighbours is not a hull
    vertex, so such points are dropped at once (vectorised; of two flagged neighbours only
    one per pass) until none is left; curves that are convex up to rounding need a few
    passes. More than 64 passes hand the
    survivors to the monotone chain (linear after the sort).
    """
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    keep = np.ones(len(x), dtype=bool)
    keep[1:] = x[1:] != x[:-1]  # same x: keep the smallest y (first after lexsort)
    x, y = x[keep], y[keep]
    idx = np.arange(len(x))
    for _ in range(64):
        if idx.size <= 2:
            break
        xa, xb, xc = x[idx[:-2]], x[idx[1:-1]], x[idx[2:]]
        ya, yb, yc = y[idx[:-2]], y[idx[1:-1]], y[idx[2:]]
        drop = (xb - xa) * (yc - ya) - (yb - ya) * (xc - xa) <= 0.0
        if not np.any(drop):
            break
        # never two neighbours in one pass: each test assumes both neighbours stay, and two
        # near-coincident points can each look on the chord through the other (rounding),
        # which would drop a true vertex; of a run of flagged points every other one goes
        pos = np.arange(drop.size)
        first = drop & ~np.concatenate(([False], drop[:-1]))
        run_start = np.maximum.accumulate(np.where(first, pos, 0))
        drop &= (pos - run_start) % 2 == 0
        survive = np.ones(idx.size, dtype=bool)
        survive[1:-1] = ~drop
        idx = idx[survive]
    else:
        idx = _monotone_chain(x, y, idx)
    return x[idx], y[idx]


def _upper_envelope(slopes: np.ndarray, intercepts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices on ``[0, 1]`` of ``max(0, max_i slopes_i * x + intercepts_i)``.

    The lines of the upper envelope are the lower hull of the dual points
    ``(slope, -intercept)``, in order of increasing slope; consecutive ones cross at
    increasing ``x``, and between two crossings one line is the maximum. ``O(N log N)``
    time and ``O(N)`` memory.
    """
    slopes = np.append(np.asarray(slopes, dtype=np.float64), 0.0)
    intercepts = np.append(np.asarray(intercepts, dtype=np.float64), 0.0)
    a, minus_b = _lower_hull(slopes, -intercepts)
    b = -minus_b
    if a.size == 1:
        grid = np.array([0.0, 1.0])
        return grid, np.clip(a[0] * grid + b[0], 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        cuts = (b[:-1] - b[1:]) / (a[1:] - a[:-1])
    inside = np.isfinite(cuts) & (cuts > 0.0) & (cuts < 1.0)
    grid = np.union1d([0.0, 1.0], cuts[inside])
    j = np.clip(np.searchsorted(cuts, grid, side="left"), 0, a.size - 1)
    values = a[j] * grid + b[j]
    before = np.maximum(j - 1, 0)  # at a crossing both lines are the maximum
    values = np.maximum(values, a[before] * grid + b[before])
    return grid, np.clip(values, 0.0, 1.0)


def _levels(alpha: ArrayLike) -> tuple[np.ndarray, bool]:
    return as_levels(alpha, "alpha", low=0.0, high=1.0)


def check_tradeoff(
    alphas: ArrayLike, values: ArrayLike, *, tol: float = SHAPE_TOLERANCE
) -> tuple[np.ndarray, np.ndarray]:
    """Check that ``(alphas, values)`` are the vertices of a valid trade-off function.

    Requirements (the characterisation of Dong-Roth-Su (2022), §2.1): ``alphas`` strictly
    increasing from 0 to 1, ``values`` in ``[0, 1]``, non-increasing, convex (slopes
    non-decreasing) and ``values <= 1 - alphas``, each up to an absolute tolerance ``tol``.
    The piecewise-linear interpolation is then continuous, so it is a trade-off function.

    Parameters
    ----------
    alphas, values : array_like
        One-dimensional, same length ``>= 2``.
    tol : float
        Absolute slack for rounding.

    Returns
    -------
    (ndarray, ndarray)
        The validated arrays (values clipped into ``[0, min(1, 1 - alpha)]``).

    Raises
    ------
    ValueError
        Naming the first violated property and where.

    Examples
    --------
    >>> from ldp.accounting import check_tradeoff
    >>> a, b = check_tradeoff([0, 0.5, 1], [1, 0.2, 0])
    >>> check_tradeoff([0, 0.5, 0.6, 1], [1, 0.45, 0.3, 0])
    Traceback (most recent call last):
    ...
    ValueError: values must be convex in alpha; slope -1.1 on [0, 0.5] is followed by ...
    """
    a, _ = as_levels(alphas, "alphas", low=0.0, high=1.0, allow_inf=False)
    b, _ = as_levels(values, "values", allow_inf=False)
    if a.ndim != 1 or b.ndim != 1 or a.shape != b.shape or a.size < 2:
        raise ValueError(
            f"alphas and values must be 1-D of the same length >= 2, got shapes {a.shape} "
            f"and {b.shape}"
        )
    if a[0] != 0.0 or a[-1] != 1.0:
        raise ValueError(
            f"alphas must start at 0 and end at 1, got {float(a[0])!r} ... {float(a[-1])!r}"
        )
    a_, b_ = a.tolist(), b.tolist()
    if np.any(np.diff(a) <= 0):
        i = int(np.argmax(np.diff(a) <= 0))
        raise ValueError(f"alphas must be strictly increasing, got {a_[i]!r} then {a_[i + 1]!r}")
    if np.any(b < -tol) or np.any(b > 1 + tol):
        i = int(np.argmax((b < -tol) | (b > 1 + tol)))
        raise ValueError(f"values must lie in [0, 1], got {b_[i]!r} at alpha={a_[i]!r}")
    if np.any(np.diff(b) > tol):
        i = int(np.argmax(np.diff(b) > tol))
        raise ValueError(
            f"values must be non-increasing; f({a_[i]!r}) = {b_[i]!r} < f({a_[i + 1]!r}) = "
            f"{b_[i + 1]!r}"
        )
    if np.any(b > 1.0 - a + tol):
        i = int(np.argmax(b > 1.0 - a + tol))
        raise ValueError(f"values must satisfy f(alpha) <= 1 - alpha; f({a_[i]!r}) = {b_[i]!r}")
    slopes = np.diff(b) / np.diff(a)
    bad = np.diff(slopes) < -tol * np.maximum(1.0, np.abs(slopes[:-1])) / np.minimum(
        np.diff(a)[1:], np.diff(a)[:-1]
    ).clip(min=tol)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(
            f"values must be convex in alpha; slope {slopes[i]:.6g} on [{a[i]:.6g}, "
            f"{a[i + 1]:.6g}] is followed by the smaller slope {slopes[i + 1]:.6g} on "
            f"[{a[i + 1]:.6g}, {a[i + 2]:.6g}]"
        )
    return a, np.clip(b, 0.0, np.minimum(1.0, 1.0 - a))


# --------------------------------------------------------------------------- base class
class TradeOffFunction(Frozen, abc.ABC):
    """Base class of trade-off functions; subclasses implement ``_evaluate`` and ``_delta``.

    Instances are immutable (attributes are set in ``__init__`` only).

    Attributes
    ----------
    is_symmetric : bool
        Whether ``f = f^{-1}`` is known to hold; decided at construction.
    approx : bool
        ``True`` for approximations (CLT, Edgeworth): not a privacy guarantee.

    Examples
    --------
    >>> from ldp.accounting import EpsDeltaTradeOff, GaussianTradeOff, TradeOffFunction
    >>> g = GaussianTradeOff(1.0)
    >>> isinstance(g, TradeOffFunction), g.is_symmetric, g.approx
    (True, True, False)
    >>> float(g(0.0)), float(g(1.0))  # f(0) <= 1, f(1) = 0, and f(a) <= 1 - a between
    (1.0, 0.0)
    >>> all(float(g(a)) <= 1 - a for a in (0.1, 0.5, 0.9))
    True
    """

    is_symmetric: bool = False
    approx: bool = False

    def __call__(self, alpha: ArrayLike) -> float | np.ndarray:
        """``f(alpha)``, vectorised; ``alpha`` in ``[0, 1]``."""
        a, scalar = _levels(alpha)
        return out(np.clip(self._evaluate(a), 0.0, 1.0), scalar)

    @abc.abstractmethod
    def _evaluate(self, alpha: np.ndarray) -> np.ndarray: ...

    @abc.abstractmethod
    def _delta(self, epsilon: np.ndarray) -> np.ndarray:
        """Profile ``1 + f*(-e^eps)`` for real ``eps`` (upper bound on the true value)."""

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """The privacy profile ``delta(eps) = 1 + f*(-e^eps)`` (any real ``eps``, ``inf`` ok).

        For a symmetric ``f`` an ``f``-DP mechanism is ``(eps, delta(eps))``-DP for all
        ``eps >= 0`` (Dong-Roth-Su (2022), §2.4); negative levels matter only for asymmetric curves.
        """
        e, scalar = as_levels(epsilon, "epsilon")
        return out(np.clip(self._delta(e), 0.0, 1.0), scalar)

    def epsilon_for_delta(self, delta: ArrayLike) -> float | np.ndarray:
        """Smallest ``eps >= 0`` with ``delta(eps) <= delta`` (upper end of a bisection).

        The inverse of the privacy profile, spelled as on :class:`~ldp.Channel`.
        """
        d, scalar = as_levels(delta, "delta", low=0.0, high=1.0)
        return out(self._epsilon(d), scalar)

    def epsilon(self, delta: ArrayLike) -> float | np.ndarray:
        """Synonym of :meth:`epsilon_for_delta` (the older spelling)."""
        return self.epsilon_for_delta(delta)

    def _epsilon(self, d: np.ndarray) -> np.ndarray:
        result = np.zeros(d.shape)
        tail = self._delta(np.array([np.inf]))[0]
        need = d < self._delta(np.zeros(1))[0]
        result[need & (d < tail)] = np.inf
        work = need & (d >= tail)
        if np.any(work):
            dd = d[work]
            result[work] = inverse_monotone(self._delta, dd, np.zeros_like(dd), np.ones_like(dd))
        return result

    @property
    def tv(self) -> float:
        """Total variation ``delta(0) = 1 - min_alpha (alpha + f(alpha))``."""
        return float(np.clip(self._delta(np.zeros(1))[0], 0.0, 1.0))

    def dominating_pair(self) -> tuple[np.ndarray, np.ndarray] | None:
        """A finite pair ``(P, Q)`` with ``T(P, Q) = f``, or ``None`` when there is none.

        The default is ``None``; a curve of finitely many likelihood ratios overrides it,
        and then :meth:`pld` and :func:`~ldp.accounting.compose` need nothing else.
        """
        return None

    def pld(self, interval: float, *, interval_slack: float = 0.0) -> PrivacyLossDistribution:
        """The curve's own pessimistic privacy-loss distribution on the lattice ``interval``.

        Its ``delta(eps)`` is at least the curve's at every ``eps`` (losses rounded up to the
        lattice). The default builds it from :meth:`dominating_pair` (the pair ``(Q, P)``);
        curves without a finite pair override it (Gaussian, Laplace).

        Parameters
        ----------
        interval : float
            Lattice step, ``> 0``.
        interval_slack : float, default 0
            Relative error of ``interval`` when it was found from the losses themselves.

        Returns
        -------
        PrivacyLossDistribution

        Raises
        ------
        TypeError
            If the curve has neither a dominating pair nor a ``pld`` of its own.
        """
        pair = self.dominating_pair()
        if pair is None:
            raise TypeError(
                f"{type(self).__name__} has no privacy-loss distribution: give the curve a "
                "dominating_pair() or a pld() method"
            )
        p, q = pair
        return PrivacyLossDistribution.from_pair(q, p, interval, interval_slack=interval_slack)

    # ----------------------------------------------------------- capability hooks
    # What a curve knows in closed form. Each default is the safe "nothing known" (None),
    # and the library then takes its generic path; a family overrides what it knows.
    def gdp_mu(self) -> float | None:
        """The ``mu`` with ``f = G_mu`` exactly, or ``None`` (the default).

        :func:`~ldp.accounting.compose` composes curves that all answer it in closed form
        (``G_a x G_b = G_sqrt(a^2 + b^2)``, Dong-Roth-Su (2022), Corollary 3.3).
        """
        return None

    def gdp_level(self) -> float | None:
        """The smallest ``mu`` with ``G_mu <= f``, computed exactly and rounded up, or
        ``None`` when the curve has no exact method (the default: :meth:`gdp_mu`)."""
        return self.gdp_mu()

    def subsampled_gaussian(self) -> tuple[float, float] | None:
        """``(q, mu)`` when the curve is the remove direction of the Poisson-subsampled
        Gaussian ``T(N(0, 1), (1 - q) N(0, 1) + q N(mu, 1))``, else ``None`` (the default)."""
        return None

    def group_curve(self, k: int) -> TradeOffFunction | None:
        """The curve of groups of ``k`` in closed form, or ``None`` (the default: the
        generic construction of :func:`~ldp.accounting.group_privacy`)."""
        return None

    def area(self) -> float | None:
        """``int_0^1 f`` in closed form, or ``None`` (the default: quadrature)."""
        return None

    def fixed_point(self) -> float:
        """The ``x`` with ``f(x) = x`` (unique for a trade-off function), from below.

        The last double with ``f(x) >= x`` as evaluated (bisection of ``[0, 1]`` down to
        adjacent doubles): the side on which the Gaussian ``mu = -2 Phi^{-1}(x)`` read from
        it errs upward, up to the rounding of ``f`` itself.
        """
        g = lambda x: float(self._evaluate(np.array([x]))[0]) - x  # noqa: E731
        if g(0.0) <= 0.0:
            return 0.0
        # f(1) = 0 < 1: the predicate fails at 1
        return bisect_monotone(lambda x: g(x) >= 0.0, 0.0, 1.0, side="low", ends=(True, False))

    def inverse(self) -> TradeOffFunction:
        """The left-continuous inverse ``f^{-1}(a) = inf{t : f(t) <= a}`` = ``T(Q, P)``."""
        if self.is_symmetric:
            return self
        return _InverseTradeOff(self)

    def symmetrize(self) -> TradeOffFunction:
        """``max{f, f^{-1}}``: what an ``f``-DP mechanism (both orders) also satisfies."""
        return symmetrize(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}{' (approximation)' if self.approx else ''}>"


def left_inverse(f, alpha: np.ndarray) -> np.ndarray:
    """``inf{t in [0, 1] : f(t) <= alpha}`` for a non-increasing ``f`` on ``[0, 1]``, to
    ``2^-60`` (the upper end of a bisection)."""
    start = np.zeros_like(alpha)
    return inverse_monotone(f, alpha, start, start + 1.0, max_expansions=0, steps=60, rtol=0.0)


class _InverseTradeOff(TradeOffFunction):
    def __init__(self, f: TradeOffFunction) -> None:
        self._f = f
        self.approx = f.approx

    def _evaluate(self, alpha: np.ndarray) -> np.ndarray:
        return left_inverse(self._f._evaluate, alpha)

    def _delta(self, epsilon: np.ndarray) -> np.ndarray:
        # delta_{f^-1}(eps) = 1 - e^eps + e^eps delta_f(-eps) (reflection identity)
        with np.errstate(over="ignore", invalid="ignore"):
            g = np.exp(epsilon)
            value = 1.0 - g + g * self._f._delta(-epsilon)
        top = 1.0 - float(self._evaluate(np.zeros(1))[0])  # delta(inf) = 1 - f^{-1}(0)
        return np.where(np.isinf(epsilon) & (epsilon > 0), top, value)

    def inverse(self) -> TradeOffFunction:
        return self._f


class _MaxTradeOff(TradeOffFunction):
    """``max{f_1, ..., f_k}``; its profile is bounded by ``min_i delta_{f_i}`` (valid)."""

    def __init__(self, parts: Sequence[TradeOffFunction], symmetric: bool = False) -> None:
        self._parts = tuple(parts)
        self.is_symmetric = symmetric
        self.approx = any(p.approx for p in parts)

    def _evaluate(self, alpha: np.ndarray) -> np.ndarray:
        return np.max([p._evaluate(alpha) for p in self._parts], axis=0)

    def _delta(self, epsilon: np.ndarray) -> np.ndarray:
        return np.min([p._delta(epsilon) for p in self._parts], axis=0)


# --------------------------------------------------------------------------- piecewise linear
class PiecewiseLinearTradeOff(TradeOffFunction):
    """A piecewise-linear trade-off function given by its vertices (exact algebra).

    Parameters
    ----------
    alphas, values : array_like
        Vertices ``(alpha_i, f(alpha_i))`` with ``alphas`` strictly increasing from 0 to 1;
        validated by :func:`check_tradeoff` (convex, non-increasing, ``f <= 1 - alpha``).
    approx : bool, default False
        Mark the curve as an approximation (not a guarantee).

    Examples
    --------
    >>> from ldp.accounting import PiecewiseLinearTradeOff
    >>> f = PiecewiseLinearTradeOff([0, 0.25, 1], [1, 0.25, 0])   # RR at eps = log 3
    >>> f(0.1), round(f.delta(0.0), 12), f.fixed_point()
    (0.7, 0.5, 0.25)
    >>> round(f.epsilon(0.0), 12)
    1.098612288668
    """

    def __init__(self, alphas: ArrayLike, values: ArrayLike, *, approx: bool = False) -> None:
        a, b = check_tradeoff(alphas, values)
        self._a, self._b = _read_only(a), _read_only(b)
        self.approx = bool(approx)
        self.is_symmetric = self._check_symmetric()

    @classmethod
    def from_points(
        cls,
        alphas: ArrayLike,
        values: ArrayLike,
        approx: bool = False,
        *,
        symmetric: bool | None = None,
    ) -> PiecewiseLinearTradeOff:
        """The largest valid curve below computed points: the values clipped into
        ``[0, 1 - alpha]`` and replaced by their lower convex hull (only ever lowered, so a
        guarantee the points express still holds). ``symmetric=None`` checks the symmetry;
        ``True`` states it, for curves symmetric by construction (the caller's claim).

        Examples
        --------
        >>> from ldp.accounting import PiecewiseLinearTradeOff
        >>> f = PiecewiseLinearTradeOff.from_points([0.0, 0.5, 1.0], [1.0, 0.6, 0.0])
        >>> [float(v) for v in f([0.0, 0.5, 1.0])]   # 0.6 > 1 - 0.5 is clipped to 0.5
        [1.0, 0.5, 0.0]
        """
        a = np.asarray(alphas, dtype=np.float64)
        b = np.asarray(values, dtype=np.float64)
        if a.ndim != 1 or a.shape != b.shape or a.size < 2:
            raise ValueError(
                f"alphas and values must be 1-d of one length >= 2, got shapes {a.shape} "
                f"and {b.shape}"
            )
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            raise ValueError("alphas and values must be finite")
        return cls._trusted(a, b, bool(approx), symmetric=symmetric)

    @classmethod
    def _trusted(
        cls,
        a: np.ndarray,
        b: np.ndarray,
        approx: bool = False,
        *,
        symmetric: bool | None = None,
    ) -> PiecewiseLinearTradeOff:
        """A curve from vertices known to be valid; ``symmetric=None`` checks the symmetry,
        ``True`` states it (for curves symmetric by construction). The result is frozen."""
        obj = cls.__new__(cls)
        PiecewiseLinearTradeOff._init_trusted(obj, a, b, approx, symmetric=symmetric)
        obj._freeze()
        return obj

    def _init_trusted(
        self,
        a: np.ndarray,
        b: np.ndarray,
        approx: bool = False,
        *,
        symmetric: bool | None = None,
    ) -> None:
        a = np.asarray(a, dtype=np.float64)
        b = np.clip(np.asarray(b, dtype=np.float64), 0.0, np.minimum(1.0, 1.0 - a))
        a, b = _lower_hull(a, b)
        self._a, self._b = _read_only(a), _read_only(b)
        self.approx = approx
        self.is_symmetric = self._check_symmetric() if symmetric is None else bool(symmetric)

    def _check_symmetric(self) -> bool:
        inv_a, inv_b = self._inverse_vertices()
        if len(inv_a) != len(self._a):
            return False
        return bool(
            np.allclose(inv_a, self._a, atol=1e-12) and np.allclose(inv_b, self._b, 0, 1e-12)
        )

    @property
    def vertices(self) -> tuple[np.ndarray, np.ndarray]:
        """``(alphas, values)`` of the vertices (copies)."""
        return self._a.copy(), self._b.copy()

    def _evaluate(self, alpha: np.ndarray) -> np.ndarray:
        return np.interp(alpha, self._a, self._b)

    def _delta(self, epsilon: np.ndarray) -> np.ndarray:
        flat = np.asarray(epsilon, dtype=np.float64).ravel()
        result = np.empty(flat.shape)
        c = 1.0 - self._b
        step = max(1, 2_000_000 // len(self._a))
        with np.errstate(over="ignore", invalid="ignore"):
            for start in range(0, flat.size, step):
                g = np.exp(flat[start : start + step])[:, None]
                ga = g * self._a[None, :]
                # c - e^eps a, rounded up: exp within 2u, the product and the difference 1u
                terms = np.where(
                    self._a[None, :] > 0, (c[None, :] - ga) + _ULP * (c[None, :] + 2.0 * ga), c
                )
                result[start : start + step] = np.max(terms, axis=1)
        return np.clip(result, 0.0, 1.0).reshape(np.shape(epsilon))

    def _epsilon(self, d: np.ndarray) -> np.ndarray:
        c = 1.0 - self._b
        excess = c[None, :] - d.ravel()[:, None]
        # at alpha = 0 the vertex is the atom 1 - f(0) (delta at eps = inf), and 1 - (1 - d)
        # is not exactly d: within 4 ulps the target is met there
        at_zero = self._a[None, :] == 0
        excess = np.where(at_zero & (excess <= _ROUNDING), 0.0, excess)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_e = np.log(excess * (1.0 + 2.0 * _ULP))  # c - d rounded up
            log_a = np.log(self._a[None, :])
            # log(excess / alpha) rounded up: two logs within an ulp and a difference
            level = (log_e - log_a) + _ULP * (np.abs(log_e) + np.abs(log_a) + 1.0)
            levels = np.where(excess > 0, np.where(at_zero, np.inf, level), -np.inf)
        eps = np.maximum(np.max(levels, axis=1), 0.0)
        eps = np.where(np.isfinite(eps), np.nextafter(eps, np.inf), eps)
        eps[np.max(excess, axis=1) <= 0] = 0.0
        return eps.reshape(d.shape)

    def _inverse_vertices(self) -> tuple[np.ndarray, np.ndarray]:
        x, y = self._b[::-1].copy(), self._a[::-1].copy()
        if x[-1] < 1.0:
            x, y = np.append(x, 1.0), np.append(y, 0.0)
        return _lower_hull(x, y)

    def inverse(self) -> PiecewiseLinearTradeOff:
        """The inverse ``T(Q, P)``: the vertices mirrored in the diagonal."""
        if self.is_symmetric:
            return self
        return PiecewiseLinearTradeOff._trusted(*self._inverse_vertices(), approx=self.approx)

    def fixed_point(self) -> float:
        """Exact intersection with the diagonal."""
        g = self._b - self._a
        i = int(np.argmax(g <= 0))
        if i == 0:
            return 0.0
        t = g[i - 1] / (g[i - 1] - g[i])
        return float(self._a[i - 1] + t * (self._a[i] - self._a[i - 1]))

    def gdp_level(self) -> float:
        """The smallest ``mu`` with ``G_mu <= f``, exactly (rounded up): ``G_mu`` is convex,
        so it lies below a linear piece iff below both its ends, and at a vertex ``(a, b)``
        that is ``mu >= Phi^{-1}(1-a) + Phi^{-1}(1-b)``; ``inf`` if ``f(0) < 1``."""
        a, b = self._a, self._b
        if b[0] < 1.0:
            return math.inf
        inner = (a > 0) & (a < 1) & (b > 0)
        if np.any((a > 0) & (a < 1) & (b <= 0)):
            return math.inf
        if not np.any(inner):
            # only (0, 1) and (1, 0): the curve 1 - a (mu = 0); any other boundary vertex, such
            # as (0, 0), is a jump to perfect distinguishability
            return 0.0 if np.all(b >= 1.0 - a) else math.inf
        ai, bi = a[inner], b[inner]
        za, zb = -ndtri(ai), -ndtri(bi)
        # rounded up: ndtri within a few ulps, the sum one more, and an ulp of the vertex
        # itself (the curve's vertices are rounded; d ndtri(a)/da = 1/phi(ndtri(a)))
        root = math.sqrt(2.0 * math.pi)
        with np.errstate(over="ignore"):
            slope = root * (ai * np.exp(0.5 * za * za) + bi * np.exp(0.5 * zb * zb))
        values = (za + zb) + 8.0 * _ULP * (np.abs(za) + np.abs(zb)) + 2.0 * _ULP * slope
        return float(max(0.0, np.max(values)))

    def area(self) -> float:
        """``int_0^1 f``: the trapezoid rule on the vertices (exact)."""
        a, b = self.vertices
        return float(np.sum(np.diff(a) * (b[:-1] + b[1:]) / 2.0))

    def dominating_pair(self) -> tuple[np.ndarray, np.ndarray]:
        """A finite pair ``(P, Q)`` with ``T(P, Q) = f`` (one outcome per segment).

        Outcome 0 has ``P = 0`` and ``Q = 1 - f(0)``; segment ``i`` carries ``P``-mass
        ``alpha_{i+1} - alpha_i`` and ``Q``-mass ``f(alpha_i) - f(alpha_{i+1})``.
        """
        p = np.concatenate(([0.0], np.diff(self._a)))
        q = np.concatenate(([1.0 - self._b[0]], -np.diff(self._b)))
        q = np.clip(q, 0.0, None)
        return p / p.sum(), q / q.sum() if q.sum() > 0 else q

    def __repr__(self) -> str:
        tag = " (approximation)" if self.approx else ""
        return f"<{type(self).__name__}{tag} with {len(self._a)} vertices>"


def _outward_vertices(ps: np.ndarray, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices ``(alpha, beta)`` of ``T(P, Q)`` from masses sorted by decreasing ``q/p``.

    ``alpha_i`` is the forward cumulative sum of ``p`` and ``beta_i`` the backward sum of
    the remaining ``q`` (not ``1 - cumsum(q)``, which loses the small tails), both divided
    by their total; every interior vertex is then moved towards the origin by its rounding
    bound (both coordinates down), so the curve lies below the exact one and its profile
    ``1 - beta - e^eps alpha`` above. Works on the last axis (one row per ordered pair).
    """
    m = ps.shape[-1]
    shape = (*ps.shape[:-1], 1)
    alphas = np.concatenate((np.zeros(shape), np.cumsum(ps, axis=-1)), axis=-1)
    tails = np.cumsum(qs[..., ::-1], axis=-1)[..., ::-1]
    betas = np.concatenate((tails, np.zeros(shape)), axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        alphas = alphas / alphas[..., -1:]
        betas = betas / betas[..., :1]
    i = np.arange(m + 1)
    alphas = alphas * (1.0 - (i + 3) * _ULP)
    betas = betas * (1.0 - (m - i + 3) * _ULP)
    alphas[..., -1], betas[..., 0] = 1.0, 1.0
    return np.nan_to_num(alphas), np.clip(np.nan_to_num(betas), 0.0, 1.0)


def _pair_vertices(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    used = (p > 0) | (q > 0)
    p, q = p[used], q[used]
    with np.errstate(divide="ignore"):
        score = np.log(q) - np.log(p)  # +inf where p = 0
    order = np.argsort(-score, kind="stable")
    return _outward_vertices(p[order], q[order])


def tradeoff_from_pair(p: ArrayLike, q: ArrayLike) -> PiecewiseLinearTradeOff:
    """The exact trade-off function ``T(P, Q)`` of two finite distributions.

    Outcomes are sorted by the likelihood ratio ``q / p`` (decreasing; ``p = 0`` first) and
    the cumulative ``(P, 1 - Q)`` masses are the vertices (Neyman-Pearson; Dong-Roth-Su (2022), §2.1
    item 4).

    Parameters
    ----------
    p, q : array_like
        Two distributions on the same finite set of outcomes.

    Returns
    -------
    PiecewiseLinearTradeOff
        ``T(P, Q)``, exact (its vertices rounded outward).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.accounting import tradeoff_from_pair
    >>> e = np.exp(1.0)
    >>> f = tradeoff_from_pair([e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)])
    >>> round(f(0.1), 6), round(f.tv, 6)
    (0.728172, 0.462117)
    """
    first = check_pmf(p, "p", ndim=1)
    second = check_pmf(q, "q", ndim=1)
    if first.shape != second.shape:
        raise ValueError(f"p and q must have the same length, got {first.size} and {second.size}")
    return PiecewiseLinearTradeOff._trusted(*_pair_vertices(first, second))


def tradeoff_from_channel(
    channel: Channel, x: int | None = None, x_prime: int | None = None
) -> PiecewiseLinearTradeOff:
    """The trade-off function of a finite channel: one ordered input pair, or the worst.

    With ``x`` and ``x_prime`` it is ``T(K[x], K[x'])`` exactly. Without them it is the
    greatest lower bound over all ordered pairs, the lower convex hull of the union of
    every pair's vertices (``ce min`` of the pair curves): the tight f-DP guarantee of the
    channel, symmetric because both orders are included.

    Parameters
    ----------
    channel : Channel
        A finite channel.
    x, x_prime : int, optional
        An ordered pair of inputs (both or neither).

    Returns
    -------
    PiecewiseLinearTradeOff
        ``T(K[x], K[x'])``, or the tight symmetric guarantee over all pairs.

    Examples
    --------
    >>> from ldp import k_rr
    >>> from ldp.accounting import tradeoff_from_channel
    >>> f = tradeoff_from_channel(k_rr(3, 1.0))
    >>> round(f.tv, 6), round(f.epsilon(0.0), 12), f.is_symmetric
    (0.364175, 1.0, True)
    """
    if not isinstance(channel, Channel):
        raise TypeError(f"channel must be a Channel, got {type(channel).__name__}")
    k = channel.n_inputs
    m = channel.matrix
    if (x is None) != (x_prime is None):
        raise ValueError("give both x and x_prime, or neither (worst pair)")
    if x is not None:
        i = check_integer(x, "x", low=0)
        j = check_integer(x_prime, "x_prime", low=0)
        if i >= k or j >= k:
            raise ValueError(f"x and x_prime must be < n_inputs={k}, got {i} and {j}")
        return PiecewiseLinearTradeOff._trusted(*_pair_vertices(m[i], m[j]))
    if k == 1:
        return PiecewiseLinearTradeOff._trusted(np.array([0.0, 1.0]), np.array([1.0, 0.0]))
    rows, cols = np.nonzero(~np.eye(k, dtype=bool))
    p, q = m[rows], m[cols]  # (pairs, outputs)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where((p > 0) | (q > 0), np.log(q) - np.log(p), -np.inf)
    order = np.argsort(-score, axis=1, kind="stable")
    ps = np.take_along_axis(p, order, axis=1)
    qs = np.take_along_axis(q, order, axis=1)
    alphas, betas = _outward_vertices(ps, qs)
    alphas = np.append(alphas.ravel(), [0.0, 1.0])
    betas = np.append(betas.ravel(), [1.0, 0.0])
    return PiecewiseLinearTradeOff._trusted(alphas, betas)


# --------------------------------------------------------------------------- named curves
class EpsDeltaTradeOff(PiecewiseLinearTradeOff):
    r"""``f_{eps,delta}(a) = max{0, 1 - delta - e^eps a, e^{-eps}(1 - delta - a)}``.

    Dong-Roth-Su (2022), eq. (5).

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0`` (``inf`` allowed: the zero curve).
    delta : float, default 0.0
        In ``[0, 1]``.

    Examples
    --------
    >>> from ldp.accounting import EpsDeltaTradeOff
    >>> f = EpsDeltaTradeOff(1.0, 0.01)
    >>> [round(float(v), 6) for v in f([0.01, 0.3, 0.5])]
    [0.962817, 0.253837, 0.180261]
    >>> round(f.delta(1.0), 12), round(f.fixed_point(), 6)
    (0.01, 0.266252)
    """

    def __init__(self, epsilon: float, delta: float = 0.0) -> None:
        eps = check_epsilon(epsilon)
        d = check_probability(delta, "delta")
        self.epsilon_, self.delta_ = eps, d
        if math.isinf(eps) or d == 1.0:
            a, b = np.array([0.0, 1.0]), np.array([0.0, 0.0])
        else:
            star = (1.0 - d) * k_rr_probabilities(2, eps)[1]  # (1 - delta) / (1 + e^eps)
            a = np.array([0.0, star, 1.0 - d, 1.0])
            b = np.array([1.0 - d, star, 0.0, 0.0])
        self._init_trusted(a, b, symmetric=True)

    def __repr__(self) -> str:
        return f"EpsDeltaTradeOff(epsilon={self.epsilon_!r}, delta={self.delta_!r})"


class EpsDeltaEtaTradeOff(PiecewiseLinearTradeOff):
    r"""``f_{eps,delta,eta}``: (eps, delta)-DP and eta-TV (Ghazi-Issa (2023), Corollary 1).

    ``f(t) = max{0, 1 - delta - e^eps t, e^{-eps}(1 - delta - t), 1 - eta - t}`` after the
    normalisation ``delta <- min(delta, eta)``, ``eta <- min(eta, eta_max(eps, delta))``; it
    is the trade-off function of the 5-output dominating mechanism ``M_{eps,delta,eta}``.

    Parameters
    ----------
    epsilon : float
        ``epsilon >= 0``.
    delta : float, default 0.0
        In ``[0, 1]``.
    eta : float, default 1.0
        TV level in ``[0, 1]`` (1: no TV constraint).

    Examples
    --------
    >>> from ldp.accounting import EpsDeltaEtaTradeOff
    >>> f = EpsDeltaEtaTradeOff(1.0, 0.0, 0.3)
    >>> round(f.tv, 12), round(f.delta(1.0), 12), round(f.delta(0.5), 6)
    (0.3, 0.0, 0.186738)
    """

    def __init__(self, epsilon: float, delta: float = 0.0, eta: float = 1.0) -> None:
        eps = check_epsilon(epsilon)
        d, h, _ = normalise_erasure(
            eps, check_probability(delta, "delta"), check_probability(eta, "eta")
        )
        self.epsilon_, self.delta_, self.eta_ = eps, d, h
        if d >= 1.0 or h >= 1.0:
            a, b = np.array([0.0, 1.0]), np.array([0.0, 0.0])
        elif eps == 0.0 or h <= d:
            a = np.array([0.0, 1.0 - d, 1.0])
            b = np.array([1.0 - d, 0.0, 0.0])
        else:
            shrink = -math.expm1(-eps)  # 1 - e^-eps
            lo = (h - d) * math.exp(-eps) / shrink if math.isfinite(eps) else 0.0
            hi = ((1.0 - h) - (1.0 - d) * math.exp(-eps)) / shrink
            a = np.array([0.0, lo, hi, 1.0 - d, 1.0])
            b = np.array([1.0 - d, 1.0 - h - lo, 1.0 - h - hi, 0.0, 0.0])
        self._init_trusted(a, np.maximum(b, 0.0), symmetric=True)

    def __repr__(self) -> str:
        return (
            f"EpsDeltaEtaTradeOff(epsilon={self.epsilon_!r}, delta={self.delta_!r}, "
            f"eta={self.eta_!r})"
        )


class GaussianTradeOff(TradeOffFunction):
    r"""``G_mu(a) = Phi(Phi^{-1}(1 - a) - mu)``, the trade-off of ``N(0,1)`` vs ``N(mu,1)``.

    Evaluated as ``ndtr(ndtri(1 - a) - mu)`` with ``1 - a`` formed exactly for small ``a``
    (Dong-Roth-Su (2022), eq. (6)). ``mu = 0`` is ``Id``, ``mu = inf`` is 0.

    Parameters
    ----------
    mu : float
        ``mu >= 0`` (``inf`` allowed).

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff
    >>> g = GaussianTradeOff(1.0)
    >>> [round(float(v), 6) for v in g([0.01, 0.1, 0.5])]
    [0.907638, 0.610856, 0.158655]
    >>> round(g.delta(1.0), 7), round(g.fixed_point(), 5), round(g.epsilon(1e-5), 4)
    (0.1269367, 0.30854, 4.3772)
    """

    is_symmetric = True

    def __init__(self, mu: float) -> None:
        self.mu = float(as_levels(mu, "mu", low=0.0)[0])
        if np.ndim(mu) != 0:
            raise TypeError(f"mu must be a scalar, got {mu!r}")

    def _evaluate(self, alpha: np.ndarray) -> np.ndarray:
        if math.isinf(self.mu):
            return np.where(alpha == 0.0, 1.0, 0.0)
        with np.errstate(over="ignore", invalid="ignore"):
            value = ndtr(-ndtri(alpha) - self.mu)
        return np.where(alpha == 0.0, 1.0, np.where(alpha == 1.0, 0.0, value))

    def pld(self, interval: float, *, interval_slack: float = 0.0) -> PrivacyLossDistribution:
        """Pessimistic PLD of ``(N(mu, 1), N(0, 1))`` on the lattice ``interval``.

        There is no finite dominating pair (:meth:`dominating_pair` is ``None``);
        ``interval_slack`` is not needed (the lattice is never found from these losses).
        """
        return gaussian_pld(self.mu, interval)

    def _delta(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.asarray(epsilon, dtype=np.float64)
        pos = get_delta_from_gdp(self.mu, np.abs(e))  # rounded up
        with np.errstate(over="ignore", invalid="ignore"):
            # reflection for eps < 0: a sum of two non-negative terms, rounded up
            neg = (-np.expm1(e) + np.exp(e) * pos) * (1.0 + 4.0 * _ULP)
        return np.where(e >= 0, pos, neg)

    def _epsilon(self, d: np.ndarray) -> np.ndarray:
        return np.asarray(get_epsilon_from_gdp(self.mu, d), dtype=np.float64).reshape(d.shape)

    def fixed_point(self) -> float:
        """``Phi(-mu / 2)``."""
        return float(ndtr(-self.mu / 2.0))

    def gdp_mu(self) -> float:
        """``mu``: the curve is ``G_mu`` itself."""
        return self.mu

    def group_curve(self, k: int) -> GaussianTradeOff:
        """``G_{k mu}`` (Dong-Roth-Su (2022), Theorem 2.14)."""
        return GaussianTradeOff(k * self.mu)

    def area(self) -> float:
        """``Phi(-mu / sqrt 2)``."""
        return float(ndtr(-self.mu / math.sqrt(2.0))) if math.isfinite(self.mu) else 0.0

    def __repr__(self) -> str:
        return f"GaussianTradeOff(mu={self.mu!r})"


class LaplaceTradeOff(TradeOffFunction):
    r"""``T(Lap(0, 1), Lap(mu, 1))`` (Dong-Roth-Su (2022), Lemma A.6), symmetric and C^1.

    Profile (exact): ``delta(eps) = max(0, 1 - exp((eps - mu) / 2))`` for ``eps >= 0``.

    Parameters
    ----------
    mu : float
        Shift of the means in units of the scale, ``mu >= 0``; for the Laplace mechanism of
        sensitivity ``s`` and scale ``b`` it is ``s / b`` (its epsilon).

    Examples
    --------
    >>> from ldp.accounting import LaplaceTradeOff
    >>> f = LaplaceTradeOff(1.0)
    >>> [round(float(v), 6) for v in f([0.01, 0.1, 0.5])]
    [0.972817, 0.728172, 0.18394]
    >>> round(f.tv, 10)
    0.3934693403
    """

    is_symmetric = True

    def __init__(self, mu: float) -> None:
        self.mu = check_epsilon(mu, "mu")

    def _evaluate(self, alpha: np.ndarray) -> np.ndarray:
        mu = self.mu
        if math.isinf(mu):
            return np.where(alpha == 0.0, 1.0, 0.0)
        em = math.exp(-mu)
        with np.errstate(divide="ignore"):
            mid = em / (4.0 * alpha)
        return np.where(
            alpha < em / 2.0, 1.0 - alpha / em, np.where(alpha <= 0.5, mid, em * (1.0 - alpha))
        )

    def pld(self, interval: float, *, interval_slack: float = 0.0) -> PrivacyLossDistribution:
        """Pessimistic PLD of ``(Lap(mu, 1), Lap(0, 1))`` on the lattice ``interval``.

        There is no finite dominating pair (:meth:`dominating_pair` is ``None``);
        ``interval_slack`` is not needed (the lattice is never found from these losses).
        """
        return laplace_pld(self.mu, interval)

    def _delta(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.asarray(epsilon, dtype=np.float64)
        if math.isinf(self.mu):
            return np.where(np.isinf(e) & (e > 0), 1.0, 1.0)
        with np.errstate(over="ignore", invalid="ignore"):
            a = np.abs(e)
            pos = -np.expm1((a - self.mu) / 2.0)
            # rounded up: expm1 within 2u, and |eps| - mu within u (|eps| + mu), which
            # moves 1 - e^{x/2} by (1 - pos)/2 times that
            pos = pos * (1.0 + 4.0 * _ULP) + (1.0 - pos) * _ULP * (a + self.mu)
            pos = np.clip(np.where(a >= self.mu, 0.0, pos), 0.0, 1.0)
            neg = (-np.expm1(e) + np.exp(e) * pos) * (1.0 + 4.0 * _ULP)
        return np.where(e >= 0, pos, neg)

    def _epsilon(self, d: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            log_term = 2.0 * np.log1p(-d)
            eps = self.mu + log_term
            # rounded up: log1p within 2u, the sum within u (mu + |log term|)
            eps = eps + 4.0 * _ULP * (self.mu + np.abs(log_term))
            eps = np.where(np.isfinite(eps), np.nextafter(np.maximum(eps, 0.0), np.inf), eps)
        return np.where(d >= self._delta(np.zeros(1))[0], 0.0, np.maximum(eps, 0.0))

    def fixed_point(self) -> float:
        """``exp(-mu / 2) / 2``."""
        return 0.5 * math.exp(-self.mu / 2.0)

    def group_curve(self, k: int) -> LaplaceTradeOff:
        """``T(Lap(0, 1), Lap(k mu, 1))``: ``k`` shifts of ``mu`` add up."""
        return LaplaceTradeOff(k * self.mu)

    def area(self) -> float:
        """``e^-mu (1/2 + mu/4)``, the sum over the three pieces of the curve."""
        return math.exp(-self.mu) * (0.5 + self.mu / 4.0) if math.isfinite(self.mu) else 0.0

    def __repr__(self) -> str:
        return f"LaplaceTradeOff(mu={self.mu!r})"


class SubsampledTradeOff(TradeOffFunction):
    """``C_p(f)`` for a symmetric ``f`` by the closed form of Dong-Roth-Su (2022), eq. (14).

    Built by :func:`ldp.accounting.subsample_tradeoff`; it lives here with the other curve
    classes so that ``ldp.accounting.approximations`` can recognise it without importing
    ``ldp.accounting.subsampling``.

    ``C_p(f) = f_p`` on ``[0, x*]``, the line ``x* + f_p(x*) - x`` on ``[x*, f_p(x*)]`` and
    ``f_p^{-1}`` beyond, with ``x*`` the fixed point of ``f``. Its profile is exact:
    ``delta(eps') = p delta_f(log(1 + (e^{eps'} - 1)/p))`` for ``eps' >= 0``
    (Dong-Roth-Su (2022), §3.3).

    Parameters
    ----------
    f : TradeOffFunction
        A symmetric trade-off function.
    p : float
        Sampling probability in ``[0, 1]``.

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, SubsampledTradeOff, subsample_tradeoff
    >>> g = GaussianTradeOff(1.0)
    >>> c = SubsampledTradeOff(g, 0.1)
    >>> [round(float(v), 9) for v in c([0.1, 0.5])] == [
    ...     round(float(v), 9) for v in subsample_tradeoff(g, 0.1)([0.1, 0.5])]
    True
    >>> all(float(c(a)) >= float(g(a)) for a in (0.05, 0.3, 0.7))  # sampling helps
    True
    """

    is_symmetric = True

    def __init__(self, f: TradeOffFunction, p: float) -> None:
        if not f.is_symmetric:
            raise ValueError("SubsampledTradeOff needs a symmetric f; use subsample_tradeoff")
        self.f, self.p = f, check_probability(p, "p")
        self.approx = f.approx
        self._x = f.fixed_point()
        self._y = float(self._fp(np.array([self._x]))[0])

    def _fp(self, alpha: np.ndarray) -> np.ndarray:
        return self.p * self.f._evaluate(alpha) + (1.0 - self.p) * (1.0 - alpha)

    def _fp_inverse(self, alpha: np.ndarray) -> np.ndarray:
        return left_inverse(self._fp, alpha)

    def _evaluate(self, alpha: np.ndarray) -> np.ndarray:
        x, y = self._x, self._y
        result = np.where(alpha <= x, self._fp(alpha), x + y - alpha)
        late = alpha > y
        if np.any(late):
            result[late] = self._fp_inverse(alpha[late])
        return result

    def _delta(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.asarray(epsilon, dtype=np.float64)
        if self.p == 0.0:
            return np.where(e >= 0, 0.0, -np.expm1(e))
        with np.errstate(over="ignore"):
            inner = np.log1p(np.expm1(np.abs(e)) / self.p)
        pos = self.p * self.f._delta(inner)
        with np.errstate(over="ignore", invalid="ignore"):
            neg = 1.0 - np.exp(e) + np.exp(e) * pos
        return np.where(e >= 0, pos, neg)

    def fixed_point(self) -> float:
        """``(x* + f_p(x*)) / 2``."""
        return 0.5 * (self._x + self._y)

    def __repr__(self) -> str:
        return f"SubsampledTradeOff({self.f!r}, p={self.p!r})"


# --------------------------------------------------------------------------- operations
def symmetrize(f: TradeOffFunction, method: str = "max") -> TradeOffFunction:
    """Symmetrise a trade-off function.

    ``method="max"``: ``max{f, f^{-1}}`` (Dong-Roth-Su (2022), §2.1): an ``f``-DP mechanism (both
    orders bounded by ``f``) is also ``max{f, f^{-1}}``-DP. ``method="convex_min"``:
    ``min{f, f^{-1}}**`` (the lower convex envelope), the symmetric guarantee implied by a
    one-directional bound (Zheng-Dong-Long-Su (2020), §2; Tran-Koskela-Räisä-Honkela
    (2025), ``sym``). The two answer different questions; the second is never larger.
    ``method="profile"``: ``Symm(f)`` of Dong-Roth-Su (2022), Proposition F.2, the
    symmetric curve implied by ``(eps, delta_f(eps))``-DP for every ``eps >= 0``, i.e.
    ``max_{eps >= 0} f_{eps, delta_f(eps)}`` (Proposition 2.8), with the paper's case split
    done for the caller: with ``x_bar = inf{x : -1 in df(x)}`` it is ``min{f, f^{-1}}**``
    when ``x_bar <= f(x_bar)`` and ``max{f, f^{-1}}`` otherwise. Exact for piecewise-linear
    ``f`` (the supporting lines at its slopes); for other curves the lines at 4001 levels
    in ``[0, 40]``, a valid curve below the exact one.

    Parameters
    ----------
    f : TradeOffFunction
        Any trade-off function (returned as is when already symmetric).
    method : {"max", "convex_min", "profile"}, default "max"
        Which symmetrisation (see above); ``"convex_min"`` needs a piecewise-linear ``f``.

    Returns
    -------
    TradeOffFunction
        A symmetric trade-off function.

    Examples
    --------
    >>> from ldp.accounting import PiecewiseLinearTradeOff, symmetrize
    >>> f = PiecewiseLinearTradeOff([0, 0.1, 1], [0.7, 0.2, 0])
    >>> [round(float(v), 6) for v in symmetrize(f)([0.05, 0.5])]
    [0.775, 0.111111]
    >>> [round(float(v), 6) for v in symmetrize(f, "convex_min")([0.05, 0.5])]
    [0.45, 0.04]
    """
    if not isinstance(f, TradeOffFunction):
        raise TypeError(f"f must be a TradeOffFunction, got {type(f).__name__}")
    if method not in ("max", "convex_min", "profile"):
        raise ValueError(f"method must be 'max', 'convex_min' or 'profile', got {method!r}")
    if f.is_symmetric:
        return f
    if method == "profile":
        if isinstance(f, PiecewiseLinearTradeOff):
            slopes = -np.diff(f._b) / np.diff(f._a)
            with np.errstate(divide="ignore"):
                levels = np.log(slopes[slopes > 1.0])
        else:
            levels = np.linspace(0.0, 40.0, 4001)
        levels = np.union1d([0.0], levels)
        x, y = _upper_envelope(
            np.concatenate((-np.exp(levels), -np.exp(-levels))),
            np.concatenate((1.0 - f.delta(levels), (1.0 - f.delta(levels)) * np.exp(-levels))),
        )
        return PiecewiseLinearTradeOff._trusted(x, y, approx=f.approx, symmetric=True)
    g = f.inverse()
    if isinstance(f, PiecewiseLinearTradeOff) and isinstance(g, PiecewiseLinearTradeOff):
        if method == "convex_min":
            x = np.concatenate((f._a, g._a))
            y = np.concatenate((f._b, g._b))
            return PiecewiseLinearTradeOff._trusted(x, y, approx=f.approx, symmetric=True)
        grid, vals = pointwise_max(f._evaluate, g._evaluate, np.union1d(f._a, g._a))
        return PiecewiseLinearTradeOff._trusted(grid, vals, approx=f.approx, symmetric=True)
    if method == "convex_min":
        raise NotImplementedError("convex_min symmetrisation needs a piecewise-linear curve")
    return _MaxTradeOff((f, g), symmetric=True)


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
        return PiecewiseLinearTradeOff._trusted(np.array([0.0, 1.0]), np.zeros(2))
    if not symmetric:
        x, y = _upper_envelope(-np.exp(e), 1.0 - d)
        return PiecewiseLinearTradeOff._trusted(x, y, symmetric=False)
    slopes = np.concatenate((-np.exp(e), -np.exp(-e)))
    intercepts = np.concatenate((1.0 - d, (1.0 - d) * np.exp(-e)))
    x, y = _upper_envelope(slopes, intercepts)
    return PiecewiseLinearTradeOff._trusted(x, y, symmetric=True)


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

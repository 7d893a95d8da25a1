r"""The trade-off function base class and the generic piecewise-linear curve.

:class:`TradeOffFunction` holds the shared interface and its hooks (``__call__``,
``delta``, ``epsilon_for_delta``, ``tv``, ``inverse``, ``symmetrize``, ``fixed_point``,
``pld``, ``gdp_level``, ...); :class:`PiecewiseLinearTradeOff` is the exact curve given by
its vertices, and :func:`symmetrize` (which returns one) lives beside it. The named
families are in :mod:`ldp.accounting.curves.tradeoff_families`, the conversions in
:mod:`ldp.accounting.curves.tradeoff_conversions`; :mod:`ldp.accounting.curves` gathers them
(its docstring states the conventions).
"""

from __future__ import annotations

import abc
import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtri

from ldp._frozen import Frozen
from ldp._numerics import bisect_monotone, inverse_monotone, pointwise_max
from ldp.accounting.curves._common import SHAPE_TOLERANCE, as_levels, out
from ldp.accounting.curves._hull import lower_hull, upper_envelope
from ldp.accounting.curves.curve_closed_forms import (
    pieces_chi2_plus,
    pieces_functionals,
    pieces_renyi,
)
from ldp.accounting.curves.pld import PrivacyLossDistribution

__all__ = [
    "PiecewiseLinearTradeOff",
    "TradeOffFunction",
    "check_tradeoff",
    "left_inverse",
    "symmetrize",
    "trusted_tradeoff",
]

#: absolute rounding slack of ``1 - f(alpha)`` (a few ulps of 1)
_ROUNDING = 4.0 * np.finfo(np.float64).eps
_ULP = float(np.finfo(np.float64).eps)


# --------------------------------------------------------------------------- helpers
def _read_only(array: np.ndarray) -> np.ndarray:
    out = np.array(array, dtype=np.float64)
    out.setflags(write=False)
    return out


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

    def closed_form_divergence(self, kind: str, order: float | None = None) -> float | None:
        """The divergence ``kind`` of ``f = T(P, Q)`` in closed form, or ``None`` (the
        default: :func:`~ldp.accounting.tradeoff_renyi` and
        :func:`~ldp.accounting.tradeoff_chi2_plus` then sum over :meth:`dominating_pair`).

        ``kind`` is ``"renyi"`` (``D_order(P || Q)``, ``order > 1`` checked by the caller)
        or ``"chi2_plus"``; a curve answers ``None`` for a kind it has no closed form of.
        """
        return None

    def functionals(self) -> dict | None:
        """``{"kl", "kappa2", "kappa3", "kappa3_bar"}`` of the curve in closed form, or
        ``None`` (the default: :func:`~ldp.accounting.tradeoff_functionals` then sums over
        :meth:`dominating_pair`)."""
        return None

    def subsampled_functionals(self, p: float) -> dict | None:
        """The functionals of ``C_p(f)``, the curve subsampled at rate ``p``, in closed form
        (or by a quadrature of its own), or ``None`` (the default: none known)."""
        return None

    def loss_cumulants(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The first four cumulants of the privacy loss ``log(q/p)`` under ``P`` and under
        ``Q`` for the Edgeworth expansion, or ``None`` (the default: none known; a curve with
        a finite :meth:`dominating_pair` has lattice losses, which the expansion refuses)."""
        return None

    def chain_family(self) -> tuple[str, float] | None:
        """``(family, parameter)`` when the curve is a member of a one-parameter family that
        :class:`~ldp.accounting.NaturalFDPFilter` certifies as a Blackwell chain:
        ``("gaussian", mu)`` (the default, from :meth:`gdp_mu`), ``("pure_dp", eps)`` or
        ``("laplace", mu)``; else ``None``. (Subsampled Gaussian curves answer
        :meth:`subsampled_gaussian` instead: their family also fixes the sampling rate.)"""
        mu = self.gdp_mu()
        return None if mu is None else ("gaussian", float(mu))

    def profile_kinks(self) -> np.ndarray:
        """The levels ``eps >= 0`` where the curve's privacy profile bends (``log`` of minus
        the slopes of its linear pieces, both directions), which a search over ``eps`` must
        visit; empty (the default) for a smooth curve."""
        return np.zeros(0)

    def identity_key(self) -> object | None:
        """A hashable key, equal for two curves only when they are the same curve, or
        ``None`` (the default: the object's identity). Lets the CLT functions count equal
        curves once."""
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
        a, b = lower_hull(a, b)
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
        return lower_hull(x, y)

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

    def _pieces(self) -> tuple[np.ndarray, np.ndarray]:
        """Widths and slope magnitudes of the linear pieces."""
        width = np.diff(self._a)
        return width, -np.diff(self._b) / width

    def functionals(self) -> dict:
        """Exact sums over the linear pieces (Dong-Roth-Su (2022), §3.2)."""
        return pieces_functionals(*self._pieces(), float(self._b[0]))

    def profile_kinks(self) -> np.ndarray:
        """``log`` of minus the slopes of the pieces, both signs, the finite ones ``>= 0``."""
        da, db = np.diff(self._a), np.diff(self._b)
        slope = -db[da > 0] / da[da > 0]
        with np.errstate(divide="ignore"):
            levels = np.log(slope[slope > 0])
        levels = np.concatenate([levels, -levels])
        return levels[np.isfinite(levels) & (levels >= 0.0)]

    def identity_key(self) -> tuple:
        """The class, the flags and the vertices."""
        return (type(self), self.approx, self.is_symmetric, self._a.tobytes(), self._b.tobytes())

    def closed_form_divergence(self, kind: str, order: float | None = None) -> float | None:
        """Exact sums over the linear pieces (Dong-Roth-Su (2022), Proposition B.4)."""
        width, slope = self._pieces()
        if kind == "renyi" and order is not None:
            return pieces_renyi(width, slope, float(order))
        if kind == "chi2_plus":
            return pieces_chi2_plus(width, slope, float(self._b[0]))
        return None

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


def trusted_tradeoff(
    a: np.ndarray, b: np.ndarray, approx: bool = False, *, symmetric: bool | None = None
) -> PiecewiseLinearTradeOff:
    """A piecewise-linear curve from vertices known to be valid (no checks, no copies made
    beyond the read-only ones): for the constructors of the other trade-off modules.

    Parameters
    ----------
    a, b : ndarray
        The vertices (``alpha`` increasing from 0 to 1; ``b`` a valid trade-off curve).
    approx : bool, default False
        Whether the curve is an approximation.
    symmetric : bool or None, default None
        ``None`` checks the symmetry; ``True``/``False`` states it.

    Returns
    -------
    PiecewiseLinearTradeOff
        The frozen curve.

    Examples
    --------
    >>> import numpy as np
    >>> f = trusted_tradeoff(np.array([0.0, 0.5, 1.0]), np.array([0.5, 0.0, 0.0]))
    >>> float(f(0.25)), f.is_symmetric
    (0.25, True)
    """
    return PiecewiseLinearTradeOff._trusted(a, b, approx, symmetric=symmetric)


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
        x, y = upper_envelope(
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

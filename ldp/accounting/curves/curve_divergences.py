r"""Divergences of a trade-off function: Renyi, chi^2_+ (Dong-Roth-Su (2022), Appendix B).

The divergences of a privacy *curve*; the divergences between two probability vectors
(TV, KL, Renyi, hockey-stick, any f-divergence) live in :mod:`ldp.divergences`.

A divergence that obeys data processing is a functional of ``f = T(P, Q)`` (their
Proposition B.1). With ``|f'|`` the likelihood ratio ``q/p`` at type I error ``alpha`` (an
integral over ``alpha`` is an expectation under ``P``), their Proposition B.4 gives, with
``z_f = inf{x : f(x) = 0}``:

* Renyi of order ``a > 1``: ``D_a(P || Q) = (a - 1)^{-1} log int_0^1 |f'|^{1 - a} dx`` when
  ``z_f = 1``, ``+inf`` otherwise;
* ``chi^2_+``: ``int_0^1 (|f'| - 1)_+^2 dx`` (their Appendix G; the F-divergence of
  ``F(t) = (t - 1)_+^2`` for a symmetric ``f`` with ``f(0) = 1``), ``+inf`` when
  ``f(0) < 1``.

Closed forms: ``D_a(G_mu) = a mu^2 / 2``, hence mu-GDP implies ``(a, a mu^2/2)``-RDP for
every ``a > 1`` (Corollary B.6); for randomized response
``D_a = (a - 1)^{-1} log(cosh(eps (a - 1/2)) / cosh(eps / 2)) <= a eps^2 / 2`` (the proof of
Proposition B.7).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp, ndtr

from ldp._validation import check_epsilon, check_scalar
from ldp.accounting.curves._common import as_levels, out
from ldp.accounting.curves.tradeoff_base import PiecewiseLinearTradeOff, TradeOffFunction
from ldp.accounting.curves.tradeoff_families import GaussianTradeOff, LaplaceTradeOff

__all__ = ["get_rdp_from_gdp", "rr_renyi", "tradeoff_chi2_plus", "tradeoff_renyi"]


def _slopes(f: PiecewiseLinearTradeOff) -> tuple[np.ndarray, np.ndarray, float]:
    """Widths and slope magnitudes of the pieces, and ``f(0)``."""
    a, b = f.vertices
    width = np.diff(a)
    return width, -np.diff(b) / width, float(b[0])


def _check_curve(f: object) -> None:
    if not isinstance(f, TradeOffFunction):
        raise TypeError(f"f must be a TradeOffFunction, got {type(f).__name__}")
    if not isinstance(f, (PiecewiseLinearTradeOff, GaussianTradeOff, LaplaceTradeOff)):
        raise TypeError(
            "the divergences of a curve are computed for piecewise-linear, Gaussian and "
            f"Laplace curves, got {type(f).__name__}"
        )


def _laplace_renyi(theta: float, a: float) -> float:
    """``D_a(Lap(0,1) || Lap(theta,1))`` (the classical closed form, in log space)."""
    if theta == 0.0:
        return 0.0
    first = math.log(a / (2 * a - 1)) + (a - 1) * theta
    second = math.log((a - 1) / (2 * a - 1)) - a * theta
    return float(logsumexp([first, second])) / (a - 1)


def tradeoff_renyi(f: TradeOffFunction, order: float) -> float:
    r"""Renyi divergence ``D_a(P || Q)`` of order ``a > 1`` of a curve ``f = T(P, Q)``.

    Dong-Roth-Su (2022), Proposition B.4: ``(a - 1)^{-1} log int_0^1 |f'(x)|^{1 - a} dx``
    if ``f`` reaches 0 only at ``x = 1``, ``+inf`` otherwise. Exact for piecewise-linear
    curves (a sum over the pieces, in log space); ``a mu^2 / 2`` for ``G_mu`` (their
    Corollary B.6); the closed form of the Laplace pair for :class:`LaplaceTradeOff`.

    Parameters
    ----------
    f : TradeOffFunction
        A piecewise-linear, Gaussian or Laplace curve.
    order : float
        ``a > 1`` (finite).

    Returns
    -------
    float
        ``D_a >= 0`` (``inf`` allowed).

    Examples
    --------
    >>> from ldp.accounting import EpsDeltaTradeOff, GaussianTradeOff, rr_renyi, tradeoff_renyi
    >>> tradeoff_renyi(GaussianTradeOff(1.0), 3.0)
    1.5
    >>> round(tradeoff_renyi(EpsDeltaTradeOff(1.0), 2.0), 9), round(rr_renyi(1.0, 2.0), 9)
    (0.735325664, 0.735325664)
    """
    _check_curve(f)
    a = check_scalar(order, "order", low=1.0, low_open=True)
    if isinstance(f, GaussianTradeOff):
        return a * f.mu * f.mu / 2.0
    if isinstance(f, LaplaceTradeOff):
        return math.inf if math.isinf(f.mu) else _laplace_renyi(f.mu, a)
    width, slope, _ = _slopes(f)  # type: ignore[arg-type]
    if np.any(slope <= 0.0):  # f = 0 before x = 1: P has mass where Q has none
        return math.inf
    value = float(logsumexp((1.0 - a) * np.log(slope), b=width)) / (a - 1.0)
    return max(value, 0.0)


def tradeoff_chi2_plus(f: TradeOffFunction) -> float:
    r"""``chi^2_+(f) = int_0^1 (|f'(x)| - 1)_+^2 dx`` (Dong-Roth-Su (2022), Appendix G).

    The F-divergence of ``F(t) = (t - 1)_+^2`` for a symmetric curve with ``f(0) = 1``;
    ``+inf`` when ``f(0) < 1`` (an atom of infinite likelihood ratio). Exact for
    piecewise-linear curves; for ``G_mu`` the closed form
    ``e^{mu^2} Phi(3 mu / 2) - 2 Phi(mu / 2) + Phi(-mu / 2)``; quadrature for Laplace.

    Parameters
    ----------
    f : TradeOffFunction
        A piecewise-linear, Gaussian or Laplace curve.

    Returns
    -------
    float
        ``chi^2_+ >= 0`` (``inf`` allowed).

    Examples
    --------
    >>> import math
    >>> from ldp.accounting import EpsDeltaTradeOff, tradeoff_chi2_plus
    >>> e = math.exp(1.0)   # randomized response: slope e on [0, 1/(1+e)]
    >>> round(tradeoff_chi2_plus(EpsDeltaTradeOff(1.0)), 9), round((e - 1) ** 2 / (1 + e), 9)
    (0.794047514, 0.794047514)
    """
    _check_curve(f)
    if isinstance(f, GaussianTradeOff):
        mu = f.mu
        if math.isinf(mu):
            return math.inf
        if mu > 37.0:  # e^{mu^2} overflows long before; the value is astronomically large
            return math.inf
        return max(
            0.0,
            math.exp(mu * mu) * float(ndtr(1.5 * mu))
            - 2 * float(ndtr(mu / 2))
            + float(ndtr(-mu / 2)),
        )
    if isinstance(f, LaplaceTradeOff):
        theta = f.mu
        if math.isinf(theta):
            return math.inf
        if theta == 0.0:
            return 0.0
        from scipy.integrate import quad

        # |f'| = e^theta on [0, e^-theta / 2], e^-theta / (4 x^2) on [e^-theta / 2, 1/2]
        edge = math.exp(-theta) / 2.0
        head = edge * math.expm1(theta) ** 2
        tail, _ = quad(
            lambda x: max(math.exp(-theta) / (4 * x * x) - 1.0, 0.0) ** 2,
            edge,
            0.5,
            epsabs=0.0,
            epsrel=1e-12,
            limit=200,
        )
        return head + float(tail)
    width, slope, start = _slopes(f)  # type: ignore[arg-type]
    if start < 1.0:
        return math.inf
    return float(np.sum(width * np.maximum(slope - 1.0, 0.0) ** 2))


def get_rdp_from_gdp(mu: float, order: ArrayLike) -> float | np.ndarray:
    """The RDP curve of a mu-GDP mechanism: ``(a, a mu^2 / 2)`` for every ``a > 1``.

    Dong-Roth-Su (2022), Corollary B.6 (``D_a(N(0,1) || N(mu,1)) = a mu^2/2``, and every
    ``mu``-GDP pair is a garbling of the Gaussian pair).

    Parameters
    ----------
    mu : float
        GDP level ``>= 0``.
    order : float or array_like
        Renyi orders ``a > 1``.

    Returns
    -------
    float or ndarray
        ``a mu^2 / 2``, shaped like ``order``.

    Examples
    --------
    >>> from ldp.accounting import get_rdp_from_gdp
    >>> get_rdp_from_gdp(0.5, [2.0, 8.0]).tolist()
    [0.25, 1.0]
    """
    m = check_epsilon(mu, "mu")
    a, scalar = as_levels(order, "order", low=1.0, allow_inf=False)
    if np.any(a <= 1.0):
        raise ValueError(f"order must be > 1, got {float(np.min(a))!r}")
    return out(a * m * m / 2.0, scalar)


def rr_renyi(epsilon: float, order: ArrayLike) -> float | np.ndarray:
    """Renyi divergence of randomized response at ``epsilon`` (binary, ``e^eps : 1``).

    ``(a - 1)^{-1} log(cosh(eps (a - 1/2)) / cosh(eps / 2))`` (Dong-Roth-Su (2022), proof
    of Proposition B.7), at most ``a eps^2 / 2``: by Renyi divergences RR looks more private
    than the Gaussian pair ``N(0,1), N(eps,1)``, yet for small ``eps`` its TV ``tanh(eps/2)``
    is larger, so no Renyi order decides the Blackwell order.

    Parameters
    ----------
    epsilon : float
        ``eps >= 0`` (finite).
    order : float or array_like
        Renyi orders ``a > 1``.

    Returns
    -------
    float or ndarray
        ``D_a``, shaped like ``order``.

    Examples
    --------
    >>> from ldp.accounting import rr_renyi
    >>> round(rr_renyi(0.5, 2.0), 6), 2 * 0.5**2 / 2
    (0.227336, 0.25)
    """
    eps = check_epsilon(epsilon)
    if math.isinf(eps):
        raise ValueError("epsilon must be finite")
    a, scalar = as_levels(order, "order", low=1.0, allow_inf=False)
    if np.any(a <= 1.0):
        raise ValueError(f"order must be > 1, got {float(np.min(a))!r}")

    # log cosh(x) = |x| + log1p(e^{-2|x|}) - log 2, stable for large x
    def log_cosh(x):
        x = np.abs(x)
        return x + np.log1p(np.exp(-2.0 * x)) - math.log(2.0)

    values = (log_cosh(eps * (a - 0.5)) - log_cosh(eps / 2.0)) / (a - 1.0)
    return out(np.maximum(values, 0.0), scalar)

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

Each curve answers for itself: :func:`tradeoff_renyi` and :func:`tradeoff_chi2_plus` ask
:meth:`~ldp.accounting.TradeOffFunction.closed_form_divergence` (the closed forms above,
and the exact sums of piecewise-linear curves), and for a curve without one (``None``) take
the sum over its :meth:`~ldp.accounting.TradeOffFunction.dominating_pair` (a piece of width
``p`` and slope ``q / p`` per outcome).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import check_epsilon, check_scalar
from ldp.accounting.curves._common import as_levels, out
from ldp.accounting.curves.curve_closed_forms import pieces_chi2_plus, pieces_renyi
from ldp.accounting.curves.tradeoff_base import TradeOffFunction

__all__ = ["get_rdp_from_gdp", "rr_renyi", "tradeoff_chi2_plus", "tradeoff_renyi"]


def _check_curve(f: object) -> TradeOffFunction:
    if not isinstance(f, TradeOffFunction):
        raise TypeError(f"f must be a TradeOffFunction, got {type(f).__name__}")
    return f


def _pair_pieces(f: TradeOffFunction, what: str) -> tuple[np.ndarray, np.ndarray, float]:
    """The generic route: the curve's dominating pair ``(P, Q)`` as pieces of width ``p``
    and slope ``q / p``, and ``f(0) = 1 - Q(p = 0)``."""
    pair = f.dominating_pair()
    if pair is None:
        raise TypeError(
            f"{type(f).__name__} gives no closed-form {what} (closed_form_divergence) and no "
            "dominating_pair(); give the curve one of them"
        )
    p, q = (np.asarray(v, dtype=np.float64) for v in pair)
    used = p > 0
    return p[used], q[used] / p[used], 1.0 - float(np.sum(q[~used]))


def tradeoff_renyi(f: TradeOffFunction, order: float) -> float:
    r"""Renyi divergence ``D_a(P || Q)`` of order ``a > 1`` of a curve ``f = T(P, Q)``.

    Dong-Roth-Su (2022), Proposition B.4: ``(a - 1)^{-1} log int_0^1 |f'(x)|^{1 - a} dx``
    if ``f`` reaches 0 only at ``x = 1``, ``+inf`` otherwise. Exact for piecewise-linear
    curves (a sum over the pieces, in log space); ``a mu^2 / 2`` for ``G_mu`` (their
    Corollary B.6); the closed form of the Laplace pair for :class:`LaplaceTradeOff`.

    Parameters
    ----------
    f : TradeOffFunction
        Any curve: its own :meth:`~ldp.accounting.TradeOffFunction.closed_form_divergence`,
        else the sum over its finite
        :meth:`~ldp.accounting.TradeOffFunction.dominating_pair` (``TypeError`` without
        either).
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
    curve = _check_curve(f)
    a = check_scalar(order, "order", low=1.0, low_open=True)
    value = curve.closed_form_divergence("renyi", a)
    if value is not None:
        return float(value)
    width, slope, _ = _pair_pieces(curve, "Renyi divergence")
    return pieces_renyi(width, slope, a)


def tradeoff_chi2_plus(f: TradeOffFunction) -> float:
    r"""``chi^2_+(f) = int_0^1 (|f'(x)| - 1)_+^2 dx`` (Dong-Roth-Su (2022), Appendix G).

    The F-divergence of ``F(t) = (t - 1)_+^2`` for a symmetric curve with ``f(0) = 1``;
    ``+inf`` when ``f(0) < 1`` (an atom of infinite likelihood ratio). Exact for
    piecewise-linear curves; for ``G_mu`` the closed form
    ``e^{mu^2} Phi(3 mu / 2) - 2 Phi(mu / 2) + Phi(-mu / 2)``; quadrature for Laplace.

    Parameters
    ----------
    f : TradeOffFunction
        Any curve, as for :func:`tradeoff_renyi`.

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
    curve = _check_curve(f)
    value = curve.closed_form_divergence("chi2_plus")
    if value is not None:
        return float(value)
    width, slope, start = _pair_pieces(curve, "chi^2_+")
    return pieces_chi2_plus(width, slope, start)


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

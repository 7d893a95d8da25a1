r"""Closed forms the curve families answer with: divergences, CLT functionals, cumulants.

The formulas behind the capability hooks of the curve classes
(:meth:`~ldp.accounting.TradeOffFunction.closed_form_divergence`,
:meth:`~ldp.accounting.TradeOffFunction.functionals`,
:meth:`~ldp.accounting.TradeOffFunction.subsampled_functionals`,
:meth:`~ldp.accounting.TradeOffFunction.loss_cumulants`); the public functions that ask the
curves are in :mod:`ldp.accounting.curve_divergences` and
:mod:`ldp.accounting.approximations`. With ``|f'|`` the likelihood ratio at type I error
``alpha`` (an integral over ``alpha`` is an expectation under ``P``):

* Renyi of order ``a > 1``: ``(a - 1)^{-1} log int_0^1 |f'|^{1 - a}`` (Dong-Roth-Su (2022),
  Proposition B.4); ``chi^2_+ = int_0^1 (|f'| - 1)_+^2`` (their Appendix G);
* the functionals ``kl = -int log|f'|``, ``kappa2 = int log^2|f'|``,
  ``kappa3 = int |log|f'||^3``, ``kappa3_bar = int |log|f'| + kl|^3`` (their §3.2);

a piecewise-linear curve (or a finite pair: widths ``p``, slopes ``q / p``) is a sum over
its pieces.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import logsumexp, ndtr

from ldp._validation import check_scalar
from ldp.accounting.curves._common import cumulants_from_moments

__all__ = [
    "FUNCTIONALS",
    "constant_functionals",
    "gaussian_chi2_plus",
    "gaussian_cumulants",
    "gaussian_functionals",
    "laplace_chi2_plus",
    "laplace_cumulants",
    "laplace_functionals",
    "laplace_renyi",
    "pieces_chi2_plus",
    "pieces_functionals",
    "pieces_renyi",
    "subsampled_gaussian_functionals",
    "subsampled_laplace_functionals",
]

#: The functionals of a curve (see :func:`~ldp.accounting.tradeoff_functionals`).
FUNCTIONALS = ("kl", "kappa2", "kappa3", "kappa3_bar")


# --------------------------------------------------------------------------- divergences
def pieces_renyi(width: np.ndarray, slope: np.ndarray, order: float) -> float:
    """``(a - 1)^{-1} log sum_i w_i s_i^{1 - a}`` over pieces of width ``w_i`` and slope
    magnitude ``s_i`` (in log space); ``inf`` when a slope is 0 (``P``-mass where ``Q`` has
    none).

    Examples
    --------
    >>> import numpy as np
    >>> round(pieces_renyi(np.array([0.5, 0.5]), np.array([2.0, 0.5]), 2.0), 6)  # log 1.25
    0.223144
    """
    if np.any(slope <= 0.0):  # f = 0 before x = 1: P has mass where Q has none
        return math.inf
    value = float(logsumexp((1.0 - order) * np.log(slope), b=width)) / (order - 1.0)
    return max(value, 0.0)


def pieces_chi2_plus(width: np.ndarray, slope: np.ndarray, start: float) -> float:
    """``sum_i w_i (s_i - 1)_+^2``; ``inf`` when ``f(0) = start < 1``.

    Examples
    --------
    >>> import numpy as np
    >>> pieces_chi2_plus(np.array([0.5, 0.5]), np.array([3.0, 0.5]), 1.0)
    2.0
    """
    if start < 1.0:
        return math.inf
    return float(np.sum(width * np.maximum(slope - 1.0, 0.0) ** 2))


def laplace_renyi(theta: float, order: float) -> float:
    """``D_a(Lap(0,1) || Lap(theta,1))`` (the classical closed form, in log space).

    Examples
    --------
    >>> import math
    >>> exact = math.log(2 / 3 * math.e + math.exp(-2.0) / 3)   # a = 2, theta = 1 by hand
    >>> laplace_renyi(0.0, 2.0), round(laplace_renyi(1.0, 2.0) - exact, 12)
    (0.0, 0.0)
    """
    a = order
    if math.isinf(theta):
        return math.inf
    if theta == 0.0:
        return 0.0
    first = math.log(a / (2 * a - 1)) + (a - 1) * theta
    second = math.log((a - 1) / (2 * a - 1)) - a * theta
    return float(logsumexp([first, second])) / (a - 1)


def gaussian_chi2_plus(mu: float) -> float:
    """``chi^2_+(G_mu) = e^{mu^2} Phi(3 mu / 2) - 2 Phi(mu / 2) + Phi(-mu / 2)``.

    Examples
    --------
    >>> gaussian_chi2_plus(0.0), gaussian_chi2_plus(40.0)
    (0.0, inf)
    """
    if math.isinf(mu) or mu > 37.0:  # e^{mu^2} overflows long before: astronomically large
        return math.inf
    return max(
        0.0,
        math.exp(mu * mu) * float(ndtr(1.5 * mu)) - 2 * float(ndtr(mu / 2)) + float(ndtr(-mu / 2)),
    )


def laplace_chi2_plus(theta: float) -> float:
    """``chi^2_+`` of ``T(Lap(0,1), Lap(theta,1))``: ``|f'| = e^theta`` on
    ``[0, e^-theta / 2]``, ``e^-theta / (4 x^2)`` on ``[e^-theta / 2, 1/2]``; the first piece
    exactly, the second by quadrature.

    Examples
    --------
    >>> laplace_chi2_plus(0.0), laplace_chi2_plus(float("inf"))
    (0.0, inf)
    """
    if math.isinf(theta):
        return math.inf
    if theta == 0.0:
        return 0.0
    edge = math.exp(-theta) / 2.0
    head = edge * math.expm1(theta) ** 2
    tail = _quad(
        lambda x: max(math.exp(-theta) / (4 * x * x) - 1.0, 0.0) ** 2, edge, 0.5, rtol=1e-12
    )
    return head + tail


# --------------------------------------------------------------------------- functionals
def constant_functionals(value: float) -> dict:
    """All four functionals equal: 0 for the identity curve, inf where a CLT cannot apply.

    Examples
    --------
    >>> constant_functionals(0.0)["kappa3"]
    0.0
    """
    return dict.fromkeys(FUNCTIONALS, value)


def pieces_functionals(width: np.ndarray, slope: np.ndarray, start: float) -> dict:
    """The functionals of a piecewise-linear curve: sums over its pieces (exact); ``inf``
    when ``f(0) = start < 1`` or a slope is 0.

    Examples
    --------
    >>> import numpy as np
    >>> e = np.exp(0.5)   # randomized response at 0.5: slopes e and 1/e, widths 1/(1+e), e/(1+e)
    >>> v = pieces_functionals(np.array([1, e]) / (1 + e), np.array([e, 1 / e]), 1.0)
    >>> round(v["kappa2"], 12)
    0.25
    """
    if start < 1.0:
        return constant_functionals(math.inf)
    if np.any(slope <= 0):  # f reaches 0 before alpha = 1: log|f'| = -inf there
        return constant_functionals(math.inf)
    log_s = np.log(slope)
    kl = float(-(width * log_s).sum())
    return {
        "kl": kl,
        "kappa2": float((width * log_s**2).sum()),
        "kappa3": float((width * np.abs(log_s) ** 3).sum()),
        "kappa3_bar": float((width * np.abs(log_s + kl) ** 3).sum()),
    }


def gaussian_functionals(mu: float) -> dict:
    """Closed forms for ``G_mu``.

    Under ``U[0, 1]`` the log-slope ``log|G_mu'(U)| = mu Z - mu^2/2`` with ``Z`` standard
    normal, i.e. ``L ~ N(-mu^2/2, mu^2)`` (Dong-Roth-Su (2022), §3.2 and Appendix D). So
    ``kl = mu^2/2``, ``kappa2 = E L^2 = mu^2 + mu^4/4``, ``kappa3_bar = mu^3 E|Z|^3 =
    2 sqrt(2/pi) mu^3`` and, adding the two one-sided third moments of ``N(m, s^2)``
    (``E[X^3; X > 0] = s^3 [(r^3 + 3r) Phi(r) + (r^2 + 2) phi(r)]``, ``r = m/s``),
    ``kappa3 = E|L|^3 = mu^3 [(a^3 + 3a) erf(a/sqrt 2) + 2 (a^2 + 2) phi(a)]`` with
    ``a = mu/2`` (checked against numerical integration in mpmath in the tests).

    Examples
    --------
    >>> gaussian_functionals(1.0)["kl"]
    0.5
    """
    if mu == 0.0:
        return constant_functionals(0.0)
    if math.isinf(mu):
        return constant_functionals(math.inf)
    a = mu / 2.0
    phi = math.exp(-0.5 * a * a) / math.sqrt(2.0 * math.pi)
    return {
        "kl": mu * mu / 2.0,
        "kappa2": mu**2 + mu**4 / 4.0,
        "kappa3": mu**3
        * ((a**3 + 3.0 * a) * math.erf(a / math.sqrt(2.0)) + 2.0 * (a * a + 2.0) * phi),
        "kappa3_bar": 2.0 * math.sqrt(2.0 / math.pi) * mu**3,
    }


def _quad(g, lo: float, hi: float, points=(), rtol: float = 1e-13) -> float:
    from scipy.integrate import quad

    inner = [p for p in points if lo < p < hi]
    value, _ = quad(g, lo, hi, points=inner or None, epsabs=0.0, epsrel=rtol, limit=200)
    return float(value)


def laplace_functionals(theta: float) -> dict:
    """``T(Lap(0,1), Lap(theta,1))``: the log-slope has the ``P``-law of ``|x| - |x - theta|``:
    atoms ``-theta`` (mass 1/2) and ``+theta`` (``e^-theta/2``) and the density
    ``e^{-(l + theta)/2} / 4`` on ``(-theta, theta)`` (Zheng-Dong-Long-Su (2020), §5);
    ``kl`` and ``kappa2`` in closed form, the absolute third moments by quadrature.

    Examples
    --------
    >>> round(laplace_functionals(1.0)["kl"], 12)   # 1 + e^-1 - 1
    0.367879441171
    """
    if theta == 0.0:
        return constant_functionals(0.0)
    if math.isinf(theta):
        return constant_functionals(math.inf)
    e = math.exp(-theta)
    if theta < 0.5:  # both closed forms cancel for small theta: their Taylor series
        powers = [(-theta) ** j / math.factorial(j) for j in range(2, 40)]
        kl = math.fsum(powers)  # theta + e^-theta - 1
        kappa2 = theta**2 + math.fsum((2 * j - 4) * v for j, v in enumerate(powers, 2) if j >= 3)
    else:
        kl = theta + math.expm1(-theta)  # KL(Lap(0,1) || Lap(theta,1))
        kappa2 = theta**2 - 2 * theta + 4 - (2 * theta + 4) * e

    def expect(g, points=()) -> float:
        density = lambda v: g(v) * math.exp(-(v + theta) / 2.0) / 4.0  # noqa: E731
        return 0.5 * g(-theta) + 0.5 * e * g(theta) + _quad(density, -theta, theta, points)

    return {
        "kl": kl,
        "kappa2": kappa2,
        "kappa3": expect(lambda v: abs(v) ** 3, (0.0,)),
        "kappa3_bar": expect(lambda v: abs(v + kl) ** 3, (-kl,)),
    }


def _folded_functionals(p: float, x_star: float, folded: Callable) -> dict:
    """``C_p(f)`` by folding the curve at its slope -1 piece.

    ``C_p(f)`` is ``f_p = p f + (1 - p) Id`` on ``[0, x*]`` (``x*`` the fixed point of
    ``f``), slope -1 on ``[x*, y*]`` (``y* = f_p(x*)``) and ``f_p^{-1}`` beyond; with
    ``l = log|f_p'|`` and the substitution ``alpha = f_p(t)`` on the last piece,
    ``int_0^1 g(log|C_p'|) = int_0^{x*} [g(l) + |f_p'| g(-l)] dt + (y* - x*) g(0)``
    (Dong-Roth-Su (2022), Lemma G.2; the slope -1 piece contributes nothing to ``kl``,
    ``kappa2``, ``kappa3`` but ``(y* - x*) kl^3`` to ``kappa3_bar``, which the paper's §5.3
    formula leaves out). ``folded(g)`` is the first integral.
    """
    y_star = p * x_star + (1.0 - p) * (1.0 - x_star)
    segment = y_star - x_star
    kl = folded(lambda v: -v)
    return {
        "kl": kl,
        "kappa2": folded(lambda v: v * v),
        "kappa3": folded(lambda v: abs(v) ** 3),
        "kappa3_bar": folded(lambda v: abs(v + kl) ** 3) + segment * kl**3,
    }


def subsampled_gaussian_functionals(p: float, mu: float) -> dict:
    """The functionals of ``C_p(G_mu)`` (see :func:`_folded_functionals`), by quadrature.

    Examples
    --------
    >>> subsampled_gaussian_functionals(0.0, 1.0)["kl"]   # p = 0: the identity curve
    0.0
    """
    if p == 0.0 or mu == 0.0:  # the identity curve
        return constant_functionals(0.0)
    if math.isinf(mu):
        return constant_functionals(math.inf)
    root = math.sqrt(2.0 * math.pi)

    def folded(g):  # alpha = Phi(-z), z in [mu/2, inf): |f_p'| = p e^{mu z - mu^2/2} + 1 - p
        def integrand(z):
            x = mu * z - mu * mu / 2.0
            if x > 30.0:  # log(p e^x + 1 - p) without overflow
                loss = x + math.log(p + (1.0 - p) * math.exp(-x))
            else:
                loss = math.log1p(p * math.expm1(x))
            weight = math.exp(-0.5 * z * z) / root
            mixed = p * math.exp(-0.5 * (z - mu) ** 2) / root + (1.0 - p) * weight
            return g(loss) * weight + g(-loss) * mixed

        return _quad(integrand, mu / 2.0, mu / 2.0 + 40.0 + mu)

    return _folded_functionals(p, float(ndtr(-mu / 2.0)), folded)


def subsampled_laplace_functionals(p: float, theta: float) -> dict:
    """The functionals of ``C_p`` of the Laplace curve (see :func:`_folded_functionals`).

    Examples
    --------
    >>> subsampled_laplace_functionals(0.0, 1.0)["kappa2"]
    0.0
    """
    if p == 0.0 or theta == 0.0:  # the identity curve
        return constant_functionals(0.0)
    if math.isinf(theta):
        return constant_functionals(math.inf)
    edge = math.exp(-theta) / 2.0
    x_star = 0.5 * math.exp(-theta / 2.0)

    def folded(g):  # |f'| = e^theta below e^-theta/2, then e^-theta / (4 alpha^2)
        flat = math.log1p(p * math.expm1(theta))
        head = edge * (g(flat) + math.exp(flat) * g(-flat))

        def integrand(t):
            slope = p * math.exp(-theta) / (4.0 * t * t) + 1.0 - p
            loss = math.log(slope)
            return g(loss) + slope * g(-loss)

        return head + _quad(integrand, edge, x_star)

    return _folded_functionals(p, x_star, folded)


# --------------------------------------------------------------------------- cumulants
def gaussian_cumulants(mu: float) -> tuple[np.ndarray, np.ndarray]:
    """Cumulants (1..4) of the loss ``L = log(q/p)`` of ``N(0,1)`` vs ``N(mu,1)``: normal,
    ``N(-mu^2/2, mu^2)`` under ``P`` and ``N(mu^2/2, mu^2)`` under ``Q``.

    Examples
    --------
    >>> [float(v) for v in gaussian_cumulants(2.0)[1]]
    [2.0, 4.0, 0.0, 0.0]
    """
    m = mu
    return np.array([-m * m / 2, m * m, 0.0, 0.0]), np.array([m * m / 2, m * m, 0.0, 0.0])


def laplace_cumulants(theta: float) -> tuple[np.ndarray, np.ndarray]:
    """Cumulants (1..4) of ``L = log(q/p)`` for ``Lap(0,1)`` vs ``Lap(theta,1)``.

    Zheng-Dong-Long-Su (2020), §5.

    Returns ``(under P, under Q)``; ``kappa~_r = (-1)^r kappa_r``.

    Parameters
    ----------
    theta : float
        Shift ``theta >= 0`` of the second Laplace law (scale 1).

    Returns
    -------
    under_p, under_q : ndarray
        The first four cumulants of the privacy loss under each law.

    Examples
    --------
    >>> from ldp.accounting import laplace_cumulants
    >>> [round(float(v), 6) for v in laplace_cumulants(0.8)[0]]
    [-0.249329, 0.461593, 0.2086, -0.287142]
    """
    t = check_scalar(theta, "theta", low=0.0, low_open=True)
    e = math.exp(-t)
    m = np.array(
        [
            1 - t - e,
            t**2 - 2 * t + 4 - (2 * t + 4) * e,
            -(t**3) + 3 * t**2 - 12 * t + 24 - (3 * t**2 + 12 * t + 24) * e,
            t**4 - 4 * t**3 + 24 * t**2 - 96 * t + 192 - (4 * t**3 + 24 * t**2 + 96 * t + 192) * e,
        ]
    )
    kp = cumulants_from_moments(m)
    return kp, kp * np.array([-1.0, 1.0, -1.0, 1.0])

r"""Gaussian differential privacy: conversions between ``mu`` and ``(epsilon, delta)``.

A leaf module, so that the Gaussian mechanism (:mod:`ldp.mechanisms`) and the accountant
(:mod:`ldp.accounting.curves.gdp` re-exports these functions) share one home for the formulas.

A mechanism is ``mu``-GDP when its trade-off function is at least
:math:`G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)` (Dong-Roth-Su (2022), Definition 2.4).
It is then ``(eps, delta(eps))``-DP for every ``eps >= 0`` with (Dong-Roth-Su (2022), the
GDP-to-DP corollary of §2.4; Balle-Wang (2018))

.. math:: \delta_\mu(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2)
          - e^{\varepsilon}\,\Phi(-\varepsilon/\mu - \mu/2).

Numerics. Written in :math:`t = \varepsilon/\mu - \mu/2` the profile is

.. math:: \delta = \Phi(-t) - \varphi(t)\,R(t + \mu)
          = \varphi(t) \int_t^{t+\mu} \big(1 - s R(s)\big)\, ds,
          \qquad R(s) = \Phi(-s)/\varphi(s) = \sqrt{\pi/2}\,\mathrm{erfcx}(s/\sqrt2),

(``R' = sR - 1``), so neither ``e^eps`` nor a product of a huge and a tiny number appears:

* ``mu <= 1``: the integral form, by 20-point Gauss-Legendre quadrature on ``[t, t + mu]``
  (the integrand is analytic and varies on a scale of order one, so the rule is exact to
  rounding). There is no difference of two numbers near 1/2, so tiny ``mu`` keep their
  relative precision (the plain formula loses all digits below ``mu ~ 1e-16``);
* ``mu > 1``: ``Phi(-t) (1 - R(t + mu) / R(t))``, whose cancellation is bounded by
  ``1 + t``;
* ``t`` itself is formed in double-double arithmetic (``eps / mu`` and ``- mu / 2`` with
  their rounding errors), so ``eps ~ mu^2 / 2`` at ``mu ~ 1e9`` is still resolved.

Every value is then **rounded outward**: the profile is evaluated at a ``t`` rounded down and
multiplied by ``1 + c u`` with ``u`` the unit round-off and ``c`` a bound on the relative
error of the evaluation, so a reported ``delta`` is never below the exact one (values below
the smallest positive double underflow to 0). :func:`get_epsilon_from_gdp` solves in ``t``
and rounds the resulting ``epsilon`` up; :func:`get_mu_from_epsilon_delta` keeps the lower
end of its bisection. The reference values of the tests are computed with mpmath at 60 digits.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import erf, erfcx, ndtr, ndtri

from ldp._numerics import inverse_monotone
from ldp._validation import as_levels, check_broadcast
from ldp._validation import scalar_or_array as out

__all__ = [
    "get_delta_from_gdp",
    "get_epsilon_from_gdp",
    "get_mu_from_epsilon_delta",
    "get_tv_from_gdp",
]

_U = float(np.finfo(np.float64).eps) / 2.0  # unit round-off
_SQRT_HALF_PI = float(np.sqrt(np.pi / 2.0))
_INV_SQRT_2PI = float(1.0 / np.sqrt(2.0 * np.pi))
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(20)
_NODES = (1.0 + _NODES) / 2.0  # on [0, 1]
_WEIGHTS = _WEIGHTS / 2.0
_SPLIT = 134217729.0  # 2^27 + 1 (Veltkamp)
_BIG = 1e150  # above this the double-double splitting could overflow


def _mills(s: np.ndarray) -> np.ndarray:
    """``R(s) = Phi(-s) / phi(s)``."""
    return _SQRT_HALF_PI * erfcx(s / np.sqrt(2.0))


def _one_minus_s_mills(s: np.ndarray) -> np.ndarray:
    """``1 - s R(s) > 0``, the integrand; the asymptotic series above ``s = 10``."""
    direct = 1.0 - s * _mills(s)
    big = s >= 10.0
    if np.any(big):
        with np.errstate(over="ignore"):
            inv = 1.0 / (s[big] * s[big])
        term = inv.copy()
        total = inv.copy()
        for k in range(2, 26):  # sum (-1)^(k+1) (2k-1)!! s^(-2k); error < 1e-16 relative
            term = -term * (2 * k - 1) * inv
            total += term
        direct[big] = total
    return direct


def _phi(t: np.ndarray) -> np.ndarray:
    with np.errstate(under="ignore"):
        return _INV_SQRT_2PI * np.exp(-0.5 * t * t)


def _profile_t(mu: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``delta_mu`` at ``eps = mu t + mu^2/2``, rounded up (``0 < mu < inf``, ``t`` finite)."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        result = _profile_t_raw(mu, t)
    # only far tails produce inf * 0: there the profile is 0 (t > 0) or 1 (t < 0)
    result = np.where(np.isnan(result), np.where(t > 0, 0.0, 1.0), result)
    return np.clip(result, 0.0, 1.0)


def _profile_t_raw(mu: np.ndarray, t: np.ndarray) -> np.ndarray:
    result = np.empty(mu.shape)
    small = mu <= 1.0
    if np.any(small):
        m, tt = mu[small], t[small]
        s = tt[:, None] + m[:, None] * _NODES[None, :]
        integral = (_one_minus_s_mills(s) * _WEIGHTS[None, :]).sum(axis=1)
        value = _phi(tt) * m * integral
        # phi(t): t^2 u; integrand: 1 - s R(s) loses s R(s) / (1 - s R(s)) ~ s^2 (s <= 10)
        worst = np.minimum(np.maximum(tt * tt, (tt + m) ** 2), 100.0)
        result[small] = value * (1.0 + _U * (tt * tt + 4.0 * worst + 32.0))
    large = ~small
    if np.any(large):
        m, tt = mu[large], t[large]
        tail = ndtr(-tt)
        ratio = _mills(tt + m) / _mills(tt)  # in [0, 1): R is decreasing
        value = np.where(tt < -30.0, tail - _phi(tt) * _mills(tt + m), tail * (1.0 - ratio))
        cond = np.where(tt < -30.0, 1.0, ratio / (1.0 - ratio))
        value = np.where(np.isfinite(value), value, np.where(tt < 0, tail, 0.0))
        cond = np.where(np.isfinite(cond), cond, 1.0)
        result[large] = value * (1.0 + _U * (tt * tt + 8.0 * cond + 16.0))
    return result


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a * b = p + e`` exactly (Dekker), for ``|a|, |b| < 1e150``."""
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _t_lower(mu: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """A lower bound on ``eps / mu - mu / 2`` within a few ulps (``mu > 0`` finite)."""
    with np.errstate(over="ignore", invalid="ignore"):
        q = eps / mu
        half = mu / 2.0
        t = q - half
        fine = (np.abs(q) < _BIG) & (mu < _BIG) & (mu > 1e-150)
        err = 4.0 * _U * (np.abs(q) + half)  # plain evaluation
        if np.any(fine):
            qf, mf, ef = q[fine], mu[fine], eps[fine]
            p, e = _two_prod(qf, mf)
            q_lo = ((ef - p) - e) / mf  # eps / mu = qf + q_lo (to ~u^2)
            s = qf - half[fine]
            bb = s - qf
            s_err = (qf - (s - bb)) + (-half[fine] - bb)  # two-sum error of qf - mu/2
            tf = s + (s_err + q_lo)
            t[fine] = tf
            err[fine] = 2.0 * _U * np.abs(tf) + 8.0 * _U * _U * (np.abs(qf) + half[fine])
        lower = np.where(np.isinf(t), t, t - err)
    return np.nextafter(lower, -np.inf)


def _delta_gdp(mu: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """Broadcast ``delta_mu(eps)`` for ``mu in [0, inf]`` and ``eps in [0, inf]``, rounded up."""
    mu, eps = np.broadcast_arrays(
        np.asarray(mu, dtype=np.float64), np.asarray(eps, dtype=np.float64)
    )
    result = np.zeros(mu.shape)
    regular = (mu > 0) & np.isfinite(mu) & np.isfinite(eps)
    if np.any(regular):
        m = mu[regular]
        t = _t_lower(m, eps[regular])
        value = np.zeros(m.shape)
        finite = t < np.inf  # t = +inf: eps / mu overflows, the profile is 0
        value[finite] = _profile_t(m[finite], t[finite])
        result[regular] = value
    result[np.isinf(mu)] = 1.0  # G_inf = 0: delta = 1 at every level (and at eps = inf)
    return result + 0.0  # no negative zeros


def get_delta_from_gdp(mu: ArrayLike, epsilon: ArrayLike) -> float | np.ndarray:
    r"""The tight delta of a ``mu``-GDP mechanism at level ``epsilon``, rounded up.

    :math:`\delta_\mu(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon
    \Phi(-\varepsilon/\mu - \mu/2)` (Dong-Roth-Su (2022), §2.4), evaluated without
    cancellation (see the module notes) and rounded outward: the value returned is never
    below the exact one and exceeds it by a relative ``1e-12`` at most where it is a normal
    double. ``mu = 0`` gives 0, ``mu = inf`` gives 1, ``epsilon = inf`` gives 0 for finite
    ``mu``; ``delta(0) = 2 Phi(mu/2) - 1`` is the TV.

    Parameters
    ----------
    mu : float or array_like
        GDP parameter(s) in ``[0, inf]``.
    epsilon : float or array_like
        Level(s) in ``[0, inf]``; broadcast against ``mu``.

    Returns
    -------
    float or ndarray
        Delta(s) in ``[0, 1]``; a float when both arguments are scalars.

    Examples
    --------
    >>> from ldp.accounting import get_delta_from_gdp
    >>> round(get_delta_from_gdp(1.0, 1.0), 7)
    0.1269367
    >>> get_delta_from_gdp(1.0, [0.0, 1e6])
    array([0.38292492, 0.        ])
    >>> float(get_delta_from_gdp(1e-12, 0.0))   # the TV 2 Phi(mu/2) - 1, all digits kept
    3.989422804014...e-13
    """
    m, m_scalar = as_levels(mu, "mu", low=0.0)
    e, e_scalar = as_levels(epsilon, "epsilon", low=0.0)
    check_broadcast(("mu", m.shape), ("epsilon", e.shape))
    return out(_delta_gdp(m, e), m_scalar and e_scalar)


def get_tv_from_gdp(mu: ArrayLike) -> float | np.ndarray:
    """Total variation ``2 Phi(mu / 2) - 1 = erf(mu / (2 sqrt 2))`` of ``N(0, 1)``, ``N(mu, 1)``.

    Evaluated as ``erf`` (no difference of two numbers near 1/2, so tiny ``mu`` keep their
    relative precision) and rounded up by a few units in the last place.

    Parameters
    ----------
    mu : float or array_like
        GDP parameter(s) in ``[0, inf]``.

    Returns
    -------
    float or ndarray
        The TV, in ``[0, 1]``, rounded up.

    Examples
    --------
    >>> from ldp.accounting import get_tv_from_gdp
    >>> round(get_tv_from_gdp(1.0), 7)
    0.3829249
    >>> float(get_tv_from_gdp(1e-12))
    3.989422804014...e-13
    """
    m, scalar = as_levels(mu, "mu", low=0.0)
    with np.errstate(invalid="ignore"):
        value = np.where(np.isinf(m), 1.0, erf(m / (2.0 * np.sqrt(2.0))) * (1.0 + 8.0 * _U))
    return out(np.clip(value, 0.0, 1.0) + 0.0, scalar)


def _epsilon_from_t(mu: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``mu (t + mu/2)`` rounded up (an upper bound on the exact product)."""
    with np.errstate(over="ignore"):
        eps = mu * (t + mu / 2.0)
        eps = eps + 4.0 * _U * mu * (np.abs(t) + mu / 2.0)
    return np.nextafter(np.maximum(eps, 0.0), np.inf)


def get_epsilon_from_gdp(mu: ArrayLike, delta: ArrayLike) -> float | np.ndarray:
    r"""The smallest ``epsilon >= 0`` with ``delta_mu(epsilon) <= delta``, rounded up.

    The profile is decreasing in ``t = epsilon/mu - mu/2``; a vectorised bisection in ``t``
    keeps the upper end (where the rounded-up profile is at most ``delta``) and the
    corresponding ``epsilon = mu (t + mu/2)`` is rounded up, so the returned ``epsilon``
    satisfies ``delta_mu(epsilon) <= delta`` exactly. Working in ``t`` keeps ``mu`` up to the
    double range resolved (``epsilon ~ mu^2/2``). ``delta >= TV`` gives 0 and ``delta = 0``
    gives ``inf`` (for ``mu > 0``); an ``epsilon`` beyond the double range is ``inf``.

    Parameters
    ----------
    mu : float or array_like
        GDP parameter(s) in ``[0, inf]``.
    delta : float or array_like
        Target(s) in ``[0, 1]``; broadcast against ``mu``.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from ldp.accounting import get_epsilon_from_gdp
    >>> round(get_epsilon_from_gdp(1.0, 1e-5), 4)
    4.3772
    >>> get_epsilon_from_gdp([0.0, 1.0], 0.0)
    array([ 0., inf])
    """
    m, m_scalar = as_levels(mu, "mu", low=0.0)
    d, d_scalar = as_levels(delta, "delta", low=0.0, high=1.0)
    check_broadcast(("mu", m.shape), ("delta", d.shape))
    m, d = np.broadcast_arrays(m, d)
    result = np.zeros(m.shape)
    tv = _delta_gdp(m, np.zeros(m.shape))
    need = (d < tv) & (m > 0)
    result[need & (d == 0.0)] = np.inf
    result[need & np.isinf(m)] = np.inf
    work = need & (d > 0.0) & np.isfinite(m)
    if np.any(work):
        mm, dd = m[work], d[work]
        t = inverse_monotone(
            lambda t: _profile_t(mm, t),
            dd,
            -mm / 2.0,  # epsilon = 0, where the profile exceeds the target
            np.maximum(-ndtri(dd), 0.0) + 1.0,  # delta <= Phi(-t) <= target, up to rounding
            expand=lambda t: t + 2.0 * (np.abs(t) + 1.0),
            max_expansions=64,
            rtol=2.0 * _U,
            scale=1e-300,
        )
        result[work] = _epsilon_from_t(mm, t)
    return out(result, m_scalar and d_scalar)


def get_mu_from_epsilon_delta(epsilon: ArrayLike, delta: ArrayLike) -> float | np.ndarray:
    r"""The largest ``mu`` with ``delta_mu(epsilon) <= delta``: analytic Gaussian calibration.

    A ``mu``-GDP mechanism with this ``mu`` is ``(epsilon, delta)``-DP (Dong-Roth-Su (2022),
    §2.4; the Gaussian mechanism with noise ``sensitivity / mu`` attains it).
    ``delta_mu(epsilon)`` is increasing in ``mu``; the bisection on the rounded-up profile
    keeps the lower end, so the returned ``mu`` never exceeds the calibrated value.
    ``delta = 1`` gives ``inf`` and ``delta = 0`` gives 0.

    Parameters
    ----------
    epsilon : float or array_like
        Level(s) in ``[0, inf]``.
    delta : float or array_like
        Target(s) in ``[0, 1]``.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from ldp.accounting import get_mu_from_epsilon_delta, get_delta_from_gdp
    >>> mu = get_mu_from_epsilon_delta(1.0, 0.1269367)
    >>> round(mu, 5)
    1.0
    >>> get_delta_from_gdp(mu, 1.0) <= 0.1269367
    True
    """
    e, e_scalar = as_levels(epsilon, "epsilon", low=0.0)
    d, d_scalar = as_levels(delta, "delta", low=0.0, high=1.0)
    check_broadcast(("epsilon", e.shape), ("delta", d.shape))
    e, d = np.broadcast_arrays(e, d)
    result = np.zeros(e.shape)
    result[(d >= 1.0) | (np.isinf(e) & (d > 0))] = np.inf
    work = (d > 0) & (d < 1.0) & np.isfinite(e)
    if np.any(work):
        ee, dd = e[work], d[work]
        # delta_mu -> 1 as mu -> inf: the bracket [0, 1] doubles until it holds the answer
        result[work] = inverse_monotone(
            lambda mu: _delta_gdp(mu, ee),
            dd,
            np.zeros_like(ee),
            np.ones_like(ee),
            increasing=True,
        )
    return out(result, e_scalar and d_scalar)

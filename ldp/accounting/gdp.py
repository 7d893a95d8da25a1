r"""Gaussian differential privacy: conversions between ``mu`` and ``(epsilon, delta)``.

A mechanism is ``mu``-GDP when its trade-off function is at least
:math:`G_\mu(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)` (seed 000, Dong, Roth & Su, Def. 2.4).
It is then ``(eps, delta(eps))``-DP for every ``eps >= 0`` with (seed 000 §2.4 corollary;
seed 001 eq. 17 as corrected in its digest §9 item 9)

.. math:: \delta_\mu(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2)
          - e^{\varepsilon}\,\Phi(-\varepsilon/\mu - \mu/2).

Both terms are evaluated in log space (``scipy.special.log_ndtr``) and combined as
``exp(log A) * (-expm1(log B - log A))``, so neither overflow of ``e^eps`` nor underflow of
the normal tails produces a NaN, and tiny deltas keep their relative precision.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import log_ndtr, ndtr, ndtri

from ldp.accounting._common import as_levels, out

__all__ = [
    "get_delta_from_gdp",
    "get_epsilon_from_gdp",
    "get_mu_from_epsilon_delta",
    "get_tv_from_gdp",
]

_BISECTION_STEPS = 200


def _delta_gdp(mu: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """Broadcast ``delta_mu(eps)`` for ``mu in [0, inf]`` and ``eps in [0, inf]``."""
    mu, eps = np.broadcast_arrays(mu, eps)
    result = np.zeros(mu.shape)
    regular = (mu > 0) & np.isfinite(mu) & np.isfinite(eps)
    m, e = mu[regular], eps[regular]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_first = log_ndtr(-e / m + m / 2.0)
        log_second = e + log_ndtr(-e / m - m / 2.0)
        gap = np.minimum(log_second - log_first, 0.0)
        value = np.exp(log_first) * -np.expm1(gap)
    value = np.where(np.isfinite(log_first) & ~np.isnan(gap), value, 0.0)
    result[regular] = value
    result[np.isinf(mu) & np.isfinite(eps)] = 1.0
    result[np.isinf(mu) & np.isinf(eps)] = 1.0  # G_inf = 0: f(0) = 0, so delta(inf) = 1
    return np.clip(result, 0.0, 1.0) + 0.0  # no negative zeros


def get_delta_from_gdp(mu: ArrayLike, epsilon: ArrayLike) -> float | np.ndarray:
    r"""The tight delta of a ``mu``-GDP mechanism at level ``epsilon`` (an exact value).

    :math:`\delta_\mu(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon
    \Phi(-\varepsilon/\mu - \mu/2)` (seed 000 §2.4). ``mu = 0`` gives 0, ``mu = inf`` gives
    1, ``epsilon = inf`` gives 0 for finite ``mu``; ``delta(0) = 2 Phi(mu/2) - 1`` is the TV.

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
    """
    m, m_scalar = as_levels(mu, "mu", low=0.0)
    e, e_scalar = as_levels(epsilon, "epsilon", low=0.0)
    return out(_delta_gdp(m, e), m_scalar and e_scalar)


def get_tv_from_gdp(mu: ArrayLike) -> float | np.ndarray:
    """Total variation ``2 Phi(mu / 2) - 1`` between ``N(0, 1)`` and ``N(mu, 1)`` (exact).

    Examples
    --------
    >>> from ldp.accounting import get_tv_from_gdp
    >>> round(get_tv_from_gdp(1.0), 7)
    0.3829249
    """
    m, scalar = as_levels(mu, "mu", low=0.0)
    with np.errstate(invalid="ignore"):
        value = np.where(np.isinf(m), 1.0, 1.0 - 2.0 * ndtr(-m / 2.0))
    return out(np.clip(value, 0.0, 1.0), scalar)


def get_epsilon_from_gdp(mu: ArrayLike, delta: ArrayLike) -> float | np.ndarray:
    r"""The smallest ``epsilon >= 0`` with ``delta_mu(epsilon) <= delta`` (an upper bound).

    The profile is decreasing in ``epsilon``, so the root is bracketed by ``0`` and
    ``mu (mu/2 + Phi^{-1}(1 - delta))`` (where the first term alone drops below ``delta``)
    and found by a vectorised bisection that always keeps the upper end, so the returned
    ``epsilon`` satisfies ``delta_mu(epsilon) <= delta``. ``delta >= TV`` gives 0 and
    ``delta = 0`` gives ``inf`` (for ``mu > 0``).

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
    m, d = np.broadcast_arrays(m, d)
    result = np.zeros(m.shape)
    tv = _delta_gdp(m, np.zeros(m.shape))
    need = (d < tv) & (m > 0)
    result[need & (d == 0.0)] = np.inf
    result[need & np.isinf(m)] = np.inf
    work = need & (d > 0.0) & np.isfinite(m)
    if np.any(work):
        mm, dd = m[work], d[work]
        with np.errstate(over="ignore"):
            hi = np.maximum(mm * (mm / 2.0 - ndtri(dd)), 0.0) + 1e-12
        hi = np.minimum(hi, np.finfo(np.float64).max)
        lo = np.zeros_like(hi)
        for _ in range(_BISECTION_STEPS):
            mid = lo + 0.5 * (hi - lo)
            ok = _delta_gdp(mm, mid) <= dd
            hi = np.where(ok, mid, hi)
            lo = np.where(ok, lo, mid)
            if np.all(hi - lo <= 4e-16 * np.maximum(hi, 1.0)):
                break
        result[work] = hi
    return out(result, m_scalar and d_scalar)


def get_mu_from_epsilon_delta(epsilon: ArrayLike, delta: ArrayLike) -> float | np.ndarray:
    r"""The largest ``mu`` with ``delta_mu(epsilon) <= delta``: analytic Gaussian calibration.

    A ``mu``-GDP mechanism with this ``mu`` is ``(epsilon, delta)``-DP (seed 000 §2.4; the
    Gaussian mechanism with noise ``sensitivity / mu`` attains it). ``delta_mu(epsilon)`` is
    increasing in ``mu``; the bisection keeps the lower end, so the returned ``mu`` never
    exceeds the calibrated value. ``delta = 1`` gives ``inf`` and ``delta = 0`` gives 0.

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
    try:
        e, d = np.broadcast_arrays(e, d)
    except ValueError:
        raise ValueError(
            f"epsilon {np.shape(e)} and delta {np.shape(d)} must broadcast together"
        ) from None
    result = np.zeros(e.shape)
    result[(d >= 1.0) | (np.isinf(e) & (d > 0))] = np.inf
    work = (d > 0) & (d < 1.0) & np.isfinite(e)
    if np.any(work):
        ee, dd = e[work], d[work]
        hi = np.ones_like(ee)
        for _ in range(1100):  # grow until delta_hi > delta (delta_mu -> 1 as mu -> inf)
            small = _delta_gdp(hi, ee) <= dd
            if not np.any(small):
                break
            hi = np.where(small, 2.0 * hi, hi)
        lo = np.zeros_like(ee)
        for _ in range(_BISECTION_STEPS):
            mid = 0.5 * (lo + hi)
            ok = _delta_gdp(mid, ee) <= dd
            lo = np.where(ok, mid, lo)
            hi = np.where(ok, hi, mid)
            if np.all(hi - lo <= 4e-16 * np.maximum(hi, 1.0)):
                break
        result[work] = lo
    return out(result, e_scalar and d_scalar)

"""Divergences between finite probability distributions.

Every function takes two probability vectors ``p`` and ``q`` whose last axis indexes the
outcomes; leading axes broadcast against each other (and against ``gamma`` for
:func:`hockey_stick`). A 1-D pair gives a Python ``float``, anything else an array with the
broadcast leading shape.

Conventions
-----------
* ``tv`` is half the L1 distance, ``sup_A |P(A) - Q(A)|``, so that ``tv = E_1``.
  Asoodeh-Aliakbarpour-Calmon (2021) write the TV generator as ``|t - 1|``, which is
  ``2 * tv``; contraction coefficients are unaffected by the factor.
* ``hellinger`` is the *squared* Hellinger distance ``sum (sqrt p - sqrt q)^2`` in ``[0, 2]``.
* ``kl`` and ``chi2`` are ``inf`` when ``p`` puts mass where ``q`` has none (the honest value,
  never NaN). Logarithms are natural (nats).

Inputs must be non-negative and sum to one within ``PMF_TOLERANCE``;
they are divided by their sum before use.

Examples
--------
>>> import math
>>> from ldp import divergences as dv
>>> p, q = [0.5, 0.5], [0.9, 0.1]
>>> dv.tv(p, q), dv.hockey_stick(p, q, 1.0) == dv.tv(p, q)
(0.4, True)
>>> math.isclose(dv.kl(p, q), 0.5 * math.log(0.5 / 0.9) + 0.5 * math.log(5.0))
True
>>> dv.kl([1.0, 0.0], [0.0, 1.0])  # mass where q has none
inf
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import (
    as_levels,
    check_broadcast,
    check_pmf,
    check_scalar,
    scalar_or_array,
)

__all__ = ["chi2", "f_divergence", "hellinger", "hockey_stick", "kl", "le_cam", "renyi", "tv"]


def _pair(p: ArrayLike, q: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    p = check_pmf(p, "p")
    q = check_pmf(q, "q")
    if p.shape[-1] != q.shape[-1]:
        raise ValueError(
            f"p and q must have the same number of outcomes, got {p.shape[-1]} and {q.shape[-1]}"
        )
    try:
        p, q = np.broadcast_arrays(p, q)
    except ValueError:
        raise ValueError(
            f"the leading axes of p {p.shape} and q {q.shape} do not broadcast"
        ) from None
    return p, q


def _level(
    value: ArrayLike, name: str, p: np.ndarray, low: float, high: float | None = None
) -> np.ndarray:
    """A level argument (``gamma``, ``beta``) checked against the leading axes of the pair."""
    level = as_levels(value, name, low=low, high=high)[0]
    check_broadcast((name, level.shape), ("the leading axes of p and q", p.shape[:-1]))
    return level


def hockey_stick(p: ArrayLike, q: ArrayLike, gamma: ArrayLike) -> float | np.ndarray:
    r"""The hockey-stick divergence :math:`E_\gamma(P \| Q)` for any :math:`\gamma \ge 0`.

    .. math:: E_\gamma(P\|Q) = \sum_z (p_z - \gamma q_z)_+ - (1 - \gamma)_+
              = \sup_A \,[P(A) - \gamma Q(A)] - (1-\gamma)_+ .

    For :math:`\gamma \ge 1` it is the positive-part sum; for :math:`\gamma < 1` it is computed
    as :math:`\sum_z (\gamma q_z - p_z)_+`, the same number without the cancellation of the
    first form. ``E_1 = tv``, ``E_0 = 0`` and ``E_inf = P(q = 0)``. A channel is
    :math:`(\varepsilon, \delta)`-LDP exactly when ``E_{e^eps}`` between every ordered pair
    of its rows is at most ``delta`` (Asoodeh-Aliakbarpour-Calmon (2021), Theorem 1).

    Parameters
    ----------
    p, q : array_like
        Probability vectors along the last axis; leading axes broadcast.
    gamma : float or array_like
        ``gamma >= 0`` (``inf`` allowed); broadcasts against the leading axes.

    Returns
    -------
    float or ndarray
        Values in ``[0, 1]``.

    Examples
    --------
    >>> from ldp.divergences import hockey_stick
    >>> hockey_stick([0.75, 0.25], [0.25, 0.75], 1.0)   # = TV
    0.5
    >>> round(hockey_stick([0.75, 0.25], [0.25, 0.75], 2.0), 12)
    0.25
    """
    p, q = _pair(p, q)
    g = _level(gamma, "gamma", p, low=0.0)[..., None]
    with np.errstate(over="ignore", invalid="ignore"):
        gq = np.where(q > 0, g * q, 0.0)
        gp_side = np.where(g >= 1, p - gq, gq - p)
    values = np.maximum(gp_side, 0.0).sum(axis=-1)
    return scalar_or_array(np.clip(values, 0.0, 1.0))


def tv(p: ArrayLike, q: ArrayLike) -> float | np.ndarray:
    """Total variation distance ``(1/2) sum |p - q|`` (equal to ``E_1``).

    Examples
    --------
    >>> from ldp.divergences import tv
    >>> tv([1.0, 0.0], [0.5, 0.5])
    0.5
    """
    p, q = _pair(p, q)
    return scalar_or_array(np.clip(0.5 * np.abs(p - q).sum(axis=-1), 0.0, 1.0))


def kl(p: ArrayLike, q: ArrayLike) -> float | np.ndarray:
    """Kullback-Leibler divergence ``sum p log(p / q)`` in nats.

    Computed as ``p (log p - log q)`` so that ratios of tiny probabilities do not overflow;
    ``0 log 0 = 0``; ``inf`` when some ``p > 0`` has ``q = 0``.

    Examples
    --------
    >>> from ldp.divergences import kl
    >>> round(kl([0.5, 0.5], [0.25, 0.75]), 6)
    0.143841
    >>> kl([0.5, 0.5], [1.0, 0.0])
    inf
    """
    p, q = _pair(p, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        # p = 0 entries give 0 * (-inf - log q) = NaN here and are replaced by 0 (0 log 0 = 0)
        terms = np.where(p > 0, p * (np.log(p) - np.log(q)), 0.0)
    return scalar_or_array(np.maximum(terms.sum(axis=-1), 0.0))


def chi2(p: ArrayLike, q: ArrayLike) -> float | np.ndarray:
    """Pearson chi-square divergence ``sum (p - q)^2 / q``; ``inf`` if ``p`` is not covered.

    Examples
    --------
    >>> from ldp.divergences import chi2
    >>> round(chi2([0.5, 0.5], [0.25, 0.75]), 6)
    0.333333
    """
    p, q = _pair(p, q)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        terms = np.where(q > 0, (p - q) ** 2 / np.where(q > 0, q, 1.0), 0.0)
        uncovered = np.any((q == 0) & (p > 0), axis=-1)
        values = np.where(uncovered, np.inf, terms.sum(axis=-1))
    return scalar_or_array(values)


def hellinger(p: ArrayLike, q: ArrayLike) -> float | np.ndarray:
    """Squared Hellinger distance ``sum (sqrt p - sqrt q)^2``, in ``[0, 2]``.

    This is the convention of the proof of Corollary 1 in Asoodeh-Aliakbarpour-Calmon (2021)
    (no factor 1/2).

    Examples
    --------
    >>> from ldp.divergences import hellinger
    >>> hellinger([1.0, 0.0], [0.0, 1.0])
    2.0
    """
    p, q = _pair(p, q)
    values = ((np.sqrt(p) - np.sqrt(q)) ** 2).sum(axis=-1)
    return scalar_or_array(np.clip(values, 0.0, 2.0))


def renyi(p: ArrayLike, q: ArrayLike, order: float) -> float | np.ndarray:
    r"""Renyi divergence of order ``a > 1``: ``(a - 1)^{-1} log sum p^a q^{1 - a}`` (nats).

    Computed in log space (``logsumexp`` of ``a log p + (1 - a) log q``), so large orders
    and tiny probabilities do not overflow; ``inf`` when some ``p > 0`` has ``q = 0``.

    Parameters
    ----------
    p, q : array_like
        Probability vectors along the last axis; leading axes broadcast.
    order : float
        ``a > 1`` (finite).

    Returns
    -------
    float or ndarray
        ``D_a(P || Q) >= 0``.

    Examples
    --------
    >>> import math
    >>> from ldp.divergences import renyi
    >>> e = math.exp(1.0)
    >>> p, q = [e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)]
    >>> round(renyi(p, q, 2.0), 6), round(math.log(math.cosh(1.5) / math.cosh(0.5)), 6)
    (0.735326, 0.735326)
    """
    from scipy.special import logsumexp

    a = check_scalar(order, "order", low=1.0, low_open=True)
    p, q = _pair(p, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, a * np.log(p) + (1.0 - a) * np.log(q), -np.inf)
        uncovered = np.any((q == 0) & (p > 0), axis=-1)
        values = logsumexp(terms, axis=-1) / (a - 1.0)
    return scalar_or_array(np.where(uncovered, np.inf, np.maximum(values, 0.0)))


def le_cam(p: ArrayLike, q: ArrayLike, beta: ArrayLike) -> float | np.ndarray:
    r"""The Le Cam divergence ``LC_beta(P || Q) = beta (1 - beta) sum (p - q)^2 / (beta p +
    (1 - beta) q)`` for ``beta`` in ``(0, 1)`` (Ghazi-Issa (2023), eq. (38)).

    An f-divergence with values in ``[0, 1]`` (1 for disjoint supports); for a binary-input
    channel ``(P_0, P_1)`` the KL contraction
    coefficient is ``sup_beta LC_beta(P_0 || P_1)`` (their eq. (37), after Polyanskiy-Wu).

    Parameters
    ----------
    p, q : array_like
        Probability vectors along the last axis; leading axes broadcast.
    beta : float or array_like
        In the open interval ``(0, 1)``; broadcasts against the leading axes.

    Returns
    -------
    float or ndarray
        Values in ``[0, 1]``.

    Examples
    --------
    >>> from ldp.divergences import le_cam
    >>> round(le_cam([0.75, 0.25], [0.25, 0.75], 0.5), 6)   # (1/4) sum (p-q)^2/((p+q)/2)
    0.25
    """
    p, q = _pair(p, q)
    b = _level(beta, "beta", p, low=0.0, high=1.0)
    if np.any((b <= 0.0) | (b >= 1.0)):
        bad = float(np.ravel(b)[np.argmax(np.ravel((b <= 0.0) | (b >= 1.0)))])
        raise ValueError(f"beta must lie in the open interval (0, 1), got {bad!r}")
    b = b[..., None]
    mix = b * p + (1.0 - b) * q
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(mix > 0, (p - q) ** 2 / np.where(mix > 0, mix, 1.0), 0.0)
    values = b[..., 0] * (1.0 - b[..., 0]) * terms.sum(axis=-1)
    return scalar_or_array(np.clip(values, 0.0, 1.0))


def check_generator(f: Callable[[np.ndarray], ArrayLike], name: str = "f") -> None:
    """Reject a generator with ``f(1) != 0`` or visibly non-convex on ``(0, inf)``.

    Convexity is checked on a geometric grid of 400 points in ``[1e-4, 1e4]``: slopes of
    consecutive chords must not decrease by more than rounding. A generator that passes can
    still be non-convex between grid points; one that fails certainly is not convex.
    """
    if not callable(f):
        raise TypeError(f"{name} must be a callable f(t) -> array, got {f!r}")
    with np.errstate(all="ignore"):
        at_one = np.asarray(f(np.array([1.0])), dtype=np.float64)
        if at_one.shape != (1,):
            raise ValueError(
                f"{name} must map an array of t to an array of the same shape; "
                f"{name}(array([1.0])) has shape {at_one.shape}"
            )
        if not abs(at_one[0]) <= 1e-12:
            raise ValueError(f"{name} must satisfy f(1) = 0, got f(1) = {at_one[0]!r}")
        t = np.geomspace(1e-4, 1e4, 400)
        values = np.asarray(f(t), dtype=np.float64)
    if values.shape != t.shape or not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must return finite values of the same shape on (0, inf)")
    slopes = np.diff(values) / np.diff(t)
    scale = np.abs(slopes[1:]) + np.abs(slopes[:-1]) + 1e-12
    if np.any(np.diff(slopes) < -1e-7 * scale):
        raise ValueError(f"{name} is not convex on (0, inf): chord slopes decrease")


def f_divergence(
    p: ArrayLike,
    q: ArrayLike,
    f: Callable[[np.ndarray], ArrayLike],
    *,
    f_prime_inf: float | None = None,
) -> float | np.ndarray:
    r"""The f-divergence :math:`D_f(P\|Q) = \sum_{q>0} q f(p/q) + f'(\infty) P(q = 0)`.

    Parameters
    ----------
    p, q : array_like
        Probability vectors along the last axis; leading axes broadcast.
    f : callable
        Convex generator with ``f(1) = 0``, evaluated on numpy arrays. ``f(0)`` is taken as
        its value at 0 if that is a number (``inf`` is honoured), else as ``f`` at the
        smallest positive double (the right limit).
    f_prime_inf : float, optional
        :math:`f'(\infty) = \lim_{t\to\infty} f(t)/t`; needed only when ``p`` puts mass where
        ``q`` is zero (``inf`` for KL, ``1`` for ``(t - 1)_+``).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.divergences import f_divergence, kl
    >>> p, q = [0.2, 0.8], [0.6, 0.4]
    >>> bool(np.isclose(f_divergence(p, q, lambda t: t * np.log(t)), kl(p, q)))
    True
    """
    check_generator(f)
    p, q = _pair(p, q)
    covered = q > 0
    uncovered_mass = np.where(~covered, p, 0.0).sum(axis=-1)
    if np.any(uncovered_mass > 0):
        if f_prime_inf is None:
            raise ValueError(
                "p puts mass where q is zero; pass f_prime_inf = lim f(t)/t as t -> inf "
                "(for example inf for KL, 1 for (t - 1)_+)"
            )
        slope = check_scalar(f_prime_inf, "f_prime_inf", allow_inf=True)
    else:
        slope = 0.0
    with np.errstate(all="ignore"):
        t = np.where(covered, p / np.where(covered, q, 1.0), 1.0)
        values = np.asarray(f(t), dtype=np.float64)
        if values.shape != t.shape:
            raise ValueError(f"f must map an array of shape {t.shape} to the same shape")
        at_zero = (t == 0) & np.isnan(values)
        if np.any(at_zero):
            values = np.where(
                at_zero, float(np.asarray(f(np.array([np.finfo(float).tiny])))[0]), values
            )
        terms = np.where(covered, q * values, 0.0)
        extra = np.where(uncovered_mass > 0, slope * uncovered_mass, 0.0)
        total = terms.sum(axis=-1) + extra
    if np.any(np.isnan(total)):
        raise ValueError("f returned NaN on the likelihood ratios of p and q")
    return scalar_or_array(np.maximum(total, 0.0))

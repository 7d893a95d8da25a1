r"""The Poisson-subsampled Gaussian as a trade-off curve, and its privacy-loss moments.

One step includes the record with probability ``q`` and adds ``N(0, sigma^2)`` noise to a
sum of sensitivity ``sens``; with ``mu = sens / sigma`` the output laws are (in units of
``sigma``)

.. math:: P = (1 - q)\,N(0, 1) + q\,N(\mu, 1) \ (\text{record present}), \qquad
          Q = N(0, 1) \ (\text{record absent}),

(Zheng-Dong-Long-Su (2020), Lemma C.1; Tran-Koskela-Räisä-Honkela (2025), §2). The
privacy loss is ``L(y) = log(1 - q + q e^{mu y - mu^2/2})``.

* :class:`SubsampledGaussianTradeOff` is one direction of the pair as a curve object:
  ``direction="remove"`` has the profile ``H(gamma) = E_gamma(P || Q)`` (removing the
  record; the privacy loss ``L`` under ``P``) and the curve
  ``T(Q, P) = (1 - q) Id + q G_mu``; ``direction="add"`` has ``E_gamma(Q || P) =
  1 - gamma + gamma H(1/gamma)`` and the inverse curve ``T(P, Q)``. Both profiles are in
  closed form and rounded up; :meth:`~SubsampledGaussianTradeOff.two_sided` is the
  guarantee for add/remove neighbours, ``C_q(G_mu) = min{f, f^{-1}}**`` (Dong-Roth-Su
  (2022), eq. (14)).
* :func:`subsampled_gaussian_loss_moments` gives the exact means, variances and third
  absolute central moments of ``L`` under ``P`` and under ``Q`` (adaptive quadrature), and
  :func:`subsampled_gaussian_loss_moments_approx` the approximations of
  Tran-Koskela-Räisä-Honkela (2025), Theorem 4.1 (small and large sampling rates), with two
  corrections to the printed third-moment bounds (see the docstring).
* :func:`subsampled_gaussian_cumulants`: the first four cumulants of ``L`` under both laws
  (Zheng-Dong-Long-Su (2020), §5), for the Edgeworth approximations of
  :mod:`ldp.accounting.composition.approximations`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtr

from ldp._validation import check_probability, check_scalar
from ldp.accounting.curves import (
    GaussianTradeOff,
    SubsampledTradeOff,
    TradeOffFunction,
    left_inverse,
)
from ldp.accounting.curves._common import as_levels, cumulants_from_moments, out

__all__ = [
    "SubsampledGaussianTradeOff",
    "subsampled_gaussian_cumulants",
    "subsampled_gaussian_loss_moments",
    "subsampled_gaussian_loss_moments_approx",
    "subsampled_gaussian_remove_profile",
]

_UNIT = float(np.finfo(np.float64).eps) / 2.0
DIRECTIONS = ("remove", "add")


def _check_mu(mu: object) -> float:
    return check_scalar(mu, "mu", low=0.0, allow_inf=True)


def _remove_delta(q: float, mu: float, eps: np.ndarray) -> np.ndarray:
    """``E_{e^eps}(P || Q)`` for real ``eps``, rounded up.

    ``1 - e^eps`` where ``e^eps <= 1 - q``; otherwise ``q delta_{G_mu}(log((e^eps - 1 + q)/q))``
    (the Gaussian profile at the amplified level, possibly negative), which is the closed
    form ``(1-q) Phi(-y*) + q Phi(mu - y*) - e^eps Phi(-y*)`` without its cancellation.
    """
    e = np.asarray(eps, dtype=np.float64)
    if q == 0.0 or mu == 0.0:
        return np.where(e < 0, -np.expm1(np.minimum(e, 0.0)), 0.0)
    if math.isinf(mu):  # the record is revealed whenever it is sampled
        with np.errstate(over="ignore"):
            return np.minimum(1.0, (q + np.clip(1.0 - q - np.exp(e), 0.0, None)) * (1 + 4 * _UNIT))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        level = np.log1p(np.expm1(e) / q)
        # the level is within a few ulps: read the (decreasing) Gaussian profile below it
        level = level - 8.0 * _UNIT * (np.abs(level) + np.abs(e) / q + 1.0)
        level = np.where(np.isnan(level), -np.inf, level)
        gauss = np.asarray(GaussianTradeOff(mu).delta(np.where(np.isfinite(level), level, 0.0)))
        inner = np.where(np.isfinite(level), q * gauss * (1.0 + 4.0 * _UNIT), 1.0 - np.exp(e))
    low = np.exp(e) <= 1.0 - q
    value = np.where(low, -np.expm1(np.minimum(e, 0.0)) * (1.0 + 2.0 * _UNIT), inner)
    value = np.where(np.isposinf(e), 0.0, value)
    return np.clip(value, 0.0, 1.0)


def _add_delta(q: float, mu: float, eps: np.ndarray) -> np.ndarray:
    """``E_{e^eps}(Q || P)`` for real ``eps``, rounded up.

    For ``eps < 0`` the reflection ``1 - e^eps + e^eps H(e^{-eps})`` (two non-negative terms);
    for ``eps >= 0`` the closed form ``(1 - e^eps (1-q)) Phi(y) - e^eps q Phi(y - mu)`` with
    ``e^{mu y - mu^2/2} = (e^{-eps} - 1 + q)/q``, zero once ``e^eps (1 - q) >= 1``, plus an
    allowance for the rounding of the difference.
    """
    e = np.asarray(eps, dtype=np.float64)
    if q == 0.0 or mu == 0.0:
        return np.where(e < 0, -np.expm1(np.minimum(e, 0.0)), 0.0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        g = np.exp(e)
        if math.isinf(mu):
            return np.clip((1.0 - g * (1.0 - q)) * (1 + 4 * _UNIT), 0.0, 1.0)
        neg = (-np.expm1(np.minimum(e, 0.0)) + g * _remove_delta(q, mu, -e)) * (1 + 4 * _UNIT)
        rest = -np.expm1(e + math.log1p(-q)) if q < 1.0 else np.ones_like(e)
        ratio = np.log1p(np.expm1(-np.maximum(e, 0.0)) / q)  # log((e^-eps - 1 + q)/q)
        y = (ratio + mu * mu / 2.0) / mu
        a = rest * ndtr(y)
        b = g * q * ndtr(y - mu)
        # y is the optimal threshold, where a - b is stationary in y: the few-ulp error of
        # y moves it to second order only; the difference itself is within 16 u (a + b)
        slack = 16.0 * _UNIT * (a + b)
        pos = np.where(rest > 0, a - b + slack, 0.0)
    value = np.where(e < 0, neg, pos)
    value = np.where(np.isposinf(e), 0.0, value)
    return np.clip(np.nan_to_num(value, nan=0.0), 0.0, 1.0)


def subsampled_gaussian_remove_profile(q: float, mu: float, gamma: ArrayLike) -> np.ndarray:
    r"""``H(gamma) = E_gamma((1-q) N(0,1) + q N(mu,1) || N(0,1))`` in closed form.

    The remove-direction profile of one Poisson-subsampled Gaussian step
    (Tran-Koskela-Räisä-Honkela (2025), §2): ``1 - gamma`` for ``gamma <= 1 - q``; otherwise,
    with ``y* = (log((gamma - 1 + q)/q) + mu^2/2)/mu``,
    ``(1-q) Phi(-y*) + q Phi(mu - y*) - gamma Phi(-y*)``, evaluated as
    ``q delta_{G_mu}(log((gamma - 1 + q)/q))`` and rounded up. Equal to
    ``SubsampledGaussianTradeOff(q, mu).profile(gamma)``.

    Parameters
    ----------
    q : float
        Sampling rate in ``[0, 1]``.
    mu : float
        Signal-to-noise ratio ``>= 0``.
    gamma : array_like
        Orders ``gamma >= 0`` of the hockey-stick divergence.

    Returns
    -------
    numpy.ndarray
        ``H(gamma)``, rounded up.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.accounting.central import subsampled_gaussian_remove_profile
    >>> h = subsampled_gaussian_remove_profile(1.0, 1.0, np.array([np.e]))
    >>> round(float(h[0]), 7)  # = delta_1(1)
    0.1269367
    """
    g = np.asarray(gamma, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return _remove_delta(float(q), float(mu), np.log(g))


class SubsampledGaussianTradeOff(TradeOffFunction):
    r"""One direction of the Poisson-subsampled Gaussian, as a trade-off curve and profile.

    ``P = (1 - q) N(0,1) + q N(mu,1)`` (record present), ``Q = N(0,1)`` (record absent),
    Tran-Koskela-Räisä-Honkela (2025), §2; Zheng-Dong-Long-Su (2020), Lemma C.1.

    * ``direction="remove"``: :meth:`delta` is ``E_{e^eps}(P || Q)`` (the privacy loss
      ``log(p/q)`` under ``P``), and the curve is ``T(Q, P)(a) = (1 - q)(1 - a) + q G_mu(a)``
      (the paper's ``SG^+``);
    * ``direction="add"``: :meth:`delta` is ``E_{e^eps}(Q || P) = 1 - e^eps +
      e^eps H(e^{-eps})`` and the curve is ``T(P, Q)``, the inverse (the paper's ``SG^-``).

    Both profiles are exact closed forms, rounded up, for every real ``eps``; the curves are
    asymmetric. :meth:`profile` is the paper's ``H(gamma) = delta(log gamma)``;
    :meth:`two_sided` is the guarantee for add/remove neighbours, ``C_q(G_mu) =
    min{f, f^{-1}}**`` (Dong-Roth-Su (2022), eq. (14)), whose profile is the larger of the
    two directions. ``q = 0`` or ``mu = 0`` is ``Id``; ``q = 1`` is ``G_mu``;
    ``mu = inf`` reveals a sampled record.

    Parameters
    ----------
    sample_rate : float
        ``q`` in ``[0, 1]``.
    mu : float
        Sensitivity over noise standard deviation, ``>= 0`` (``inf`` allowed).
    direction : {"remove", "add"}

    Examples
    --------
    >>> from ldp.accounting.central import SubsampledGaussianTradeOff
    >>> sg = SubsampledGaussianTradeOff(0.5, 1.0)
    >>> round(float(sg(0.3)), 6), round(float(sg.delta(1.0)), 6), round(sg.profile(1.0), 6)
    (0.50859, 0.028868, 0.191462)
    >>> add = sg.add()
    >>> round(float(add.delta(1.0)), 6), round(float(add(float(sg(0.3)))), 6)
    (0.0, 0.3)
    >>> round(float(sg.two_sided().delta(1.0)), 6)   # max of the two directions
    0.028868
    """

    def __init__(self, sample_rate: float, mu: float, direction: str = "remove") -> None:
        self.sample_rate = check_probability(sample_rate, "sample_rate")
        self.mu = _check_mu(mu)
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be 'remove' or 'add', got {direction!r}")
        self.direction = direction
        self.is_symmetric = self.sample_rate == 0.0 or self.mu == 0.0 or self.sample_rate == 1.0

    # -------------------------------------------------------------- curve and profile
    def _remove_curve(self, alpha: np.ndarray) -> np.ndarray:
        q = self.sample_rate
        return (1.0 - q) * (1.0 - alpha) + q * GaussianTradeOff(self.mu)._evaluate(alpha)

    def _evaluate(self, alpha: np.ndarray) -> np.ndarray:
        if self.direction == "remove" or self.is_symmetric:
            return self._remove_curve(alpha)
        return left_inverse(self._remove_curve, alpha)

    def _delta(self, epsilon: np.ndarray) -> np.ndarray:
        if self.direction == "remove" or self.sample_rate == 1.0:
            return _remove_delta(self.sample_rate, self.mu, epsilon)
        return _add_delta(self.sample_rate, self.mu, epsilon)

    def subsampled_gaussian(self) -> tuple[float, float] | None:
        """``(sample_rate, mu)`` in the remove direction, ``None`` in the add direction."""
        return (self.sample_rate, self.mu) if self.direction == "remove" else None

    def profile(self, gamma: ArrayLike) -> float | np.ndarray:
        """The paper's ``H(gamma) = delta(log gamma)`` for ``gamma >= 0`` (``H(0) = 1``)."""
        g, scalar = as_levels(gamma, "gamma", low=0.0)
        with np.errstate(divide="ignore"):
            value = np.where(g == 0.0, 1.0, self._delta(np.log(g)))
        return out(np.clip(value, 0.0, 1.0), scalar)

    # -------------------------------------------------------------- directions
    def remove(self) -> SubsampledGaussianTradeOff:
        """The remove direction (profile ``E(P || Q)``)."""
        if self.direction == "remove":
            return self
        return SubsampledGaussianTradeOff(self.sample_rate, self.mu, "remove")

    def add(self) -> SubsampledGaussianTradeOff:
        """The add direction (profile ``E(Q || P)``)."""
        if self.direction == "add":
            return self
        return SubsampledGaussianTradeOff(self.sample_rate, self.mu, "add")

    def inverse(self) -> TradeOffFunction:
        """The other direction: ``T(P, Q)^{-1} = T(Q, P)``."""
        if self.is_symmetric:
            return self
        return self.add() if self.direction == "remove" else self.remove()

    def two_sided(self) -> TradeOffFunction:
        """``C_q(G_mu) = min{f, f^{-1}}**``: the guarantee for add/remove neighbours.

        Its profile is ``max`` of the two directions (the remove one for ``eps >= 0``):
        Dong-Roth-Su (2022), eq. (14); Tran-Koskela-Räisä-Honkela (2025), ``sym``.
        """
        return SubsampledTradeOff(GaussianTradeOff(self.mu), self.sample_rate)

    def __repr__(self) -> str:
        return (
            f"SubsampledGaussianTradeOff(sample_rate={self.sample_rate!r}, mu={self.mu!r}, "
            f"direction={self.direction!r})"
        )


# ------------------------------------------------------------------ PLRV moments
def _quad(g, lo: float, hi: float, points=()) -> float:
    from scipy.integrate import quad

    inner = sorted(p for p in points if lo < p < hi)
    value, _ = quad(g, lo, hi, points=inner or None, epsabs=0.0, epsrel=1e-12, limit=400)
    return float(value)


def _loss(x: float, q: float) -> float:
    """``log(1 - q + q e^x)``, overflow-safe."""
    if x > 30.0:
        return x + math.log(q + (1.0 - q) * math.exp(-x))
    return math.log1p(q * math.expm1(x))


def subsampled_gaussian_loss_moments(sample_rate: float, sigma: float, mu: float = 1.0) -> dict:
    r"""Exact moments of the privacy loss of one Poisson-subsampled Gaussian step.

    ``L = log(p/q)`` with ``P = q N(mu, sigma^2) + (1-q) N(0, sigma^2)`` and ``Q = N(0,
    sigma^2)`` (Tran-Koskela-Räisä-Honkela (2025), §4.1 and Appendix F), by adaptive
    quadrature (relative accuracy about ``1e-10``).

    Parameters
    ----------
    sample_rate : float
        ``q`` in ``[0, 1]``.
    sigma : float
        Noise standard deviation ``> 0``.
    mu : float, default 1
        Shift (sensitivity) ``>= 0``.

    Returns
    -------
    dict
        ``mean_p``, ``var_p``, ``abs3_p`` (``E_P |L - E_P L|^3``), ``mean_q``, ``var_q``,
        ``abs3_q``.

    Examples
    --------
    >>> from ldp.accounting.central import subsampled_gaussian_loss_moments
    >>> m = subsampled_gaussian_loss_moments(0.1, 1.0)
    >>> f"{m['mean_p']:.4e} {m['var_p']:.4e} {-m['mean_q']:.4e} {m['var_q']:.4e}"
    '7.2577e-03 1.6570e-02 6.3861e-03 1.1289e-02'
    """
    q = check_probability(sample_rate, "sample_rate")
    s = check_scalar(sigma, "sigma", low=0.0, low_open=True)
    m = check_scalar(mu, "mu", low=0.0) / s  # shift in units of sigma
    if q == 0.0 or m == 0.0:
        return dict.fromkeys(("mean_p", "var_p", "abs3_p", "mean_q", "var_q", "abs3_q"), 0.0)
    root = math.sqrt(2.0 * math.pi)
    lo, hi = -40.0, m + 40.0
    cut = (m / 2.0, 0.0, m)

    def loss(y: float) -> float:
        return _loss(m * y - m * m / 2.0, q)

    def dens_q(y: float) -> float:
        return math.exp(-0.5 * y * y) / root

    def dens_p(y: float) -> float:
        return (1.0 - q) * dens_q(y) + q * math.exp(-0.5 * (y - m) ** 2) / root

    result = {}
    for name, dens in (("p", dens_p), ("q", dens_q)):
        result.update(_moments_of(loss, dens, name, (lo, hi), cut, q, m))
    return result


def _moments_of(loss, dens, name: str, span, cut, q: float, m: float) -> dict:
    lo, hi = span
    mean = _quad(lambda y: loss(y) * dens(y), lo, hi, cut)
    var = _quad(lambda y: (loss(y) - mean) ** 2 * dens(y), lo, hi, cut)
    # |L - mean| has a kink where L = mean: split there
    kink = _root_of_loss(mean, q, m)
    abs3 = _quad(lambda y: abs(loss(y) - mean) ** 3 * dens(y), lo, hi, (*cut, kink))
    return {f"mean_{name}": mean, f"var_{name}": var, f"abs3_{name}": abs3}


def _root_of_loss(level: float, q: float, m: float) -> float:
    """``y`` with ``L(y) = level`` (``-inf`` below the infimum ``log(1 - q)``)."""
    inner = math.expm1(level) + q
    if inner <= 0:
        return -math.inf
    return (math.log(inner / q) + m * m / 2.0) / m


def subsampled_gaussian_loss_moments_approx(
    regime: str, sample_rate: float, sigma: float, mu: float = 1.0
) -> dict:
    r"""Theorem 4.1 of Tran-Koskela-Räisä-Honkela (2025): the approximate PLRV moments.

    **Approximations** (the ``O(q^3)``, ``O(q_hat^2)`` and ``O(sigma^-4)`` terms dropped), for
    the worst-case pair of one Poisson-subsampled Gaussian step with ``r = mu^2/sigma^2``:

    * ``regime="small_q"``: ``E_P L = -E_Q L = q^2 (e^r - 1)/2``, ``Var_P L = Var_Q L =
      q^2 (e^r - 1)``, third absolute central moments ``<= q^3 (e^{3r} + 3 e^r + 4)``;
    * ``regime="large_q"`` (``q_hat = 1 - q``): ``E_P L = -E_Q L = q^2 r/2``, ``Var = q^2 r``,
      third moments ``<= (1 + q_hat)^3 sqrt(8/pi) r^{3/2}``.

    The third-moment constants are corrected: the paper prints ``e^{3r} + 3 e^r + 1``
    (expanding ``E(e^X + 1)^3`` gives ``+ 4``) and a factor ``(2 - q^3)`` where
    ``(2 - q)^3 = (1 + q_hat)^3`` is meant. The approximations over-state the exact moments
    at small ``q`` (compare :func:`~ldp.accounting.central.subsampled_gaussian_loss_moments`;
    tests/accounting/central/test_noisy_sgd.py).

    Parameters
    ----------
    regime : {"small_q", "large_q"}
    sample_rate : float
        ``q`` in ``[0, 1]``.
    sigma : float
        Noise standard deviation ``> 0``.
    mu : float, default 1
        Shift (sensitivity) ``>= 0``.

    Returns
    -------
    dict
        ``mean_p``, ``var_p``, ``abs3_p``, ``mean_q``, ``var_q``, ``abs3_q`` (approximate).

    Examples
    --------
    >>> from ldp.accounting.central import subsampled_gaussian_loss_moments_approx
    >>> m = subsampled_gaussian_loss_moments_approx("small_q", 0.01, 1.0)
    >>> f"{m['mean_p']:.6e} {m['var_p']:.6e}"
    '8.591409e-05 1.718282e-04'
    """
    if regime not in ("small_q", "large_q"):
        raise ValueError(f"regime must be 'small_q' or 'large_q', got {regime!r}")
    q = check_probability(sample_rate, "sample_rate")
    s = check_scalar(sigma, "sigma", low=0.0, low_open=True)
    r = (check_scalar(mu, "mu", low=0.0) / s) ** 2
    if regime == "small_q":
        mean = 0.5 * q * q * math.expm1(r)
        third = q**3 * (math.exp(3.0 * r) + 3.0 * math.exp(r) + 4.0)
    else:
        mean = 0.5 * q * q * r
        third = (2.0 - q) ** 3 * math.sqrt(8.0 / math.pi) * r**1.5
    return {
        "mean_p": mean,
        "var_p": 2.0 * mean,
        "abs3_p": third,
        "mean_q": -mean,
        "var_q": 2.0 * mean,
        "abs3_q": third,
    }


def subsampled_gaussian_cumulants(q: float, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Cumulants of ``L = log(1 - q + q e^{mu x - mu^2/2})``, ``mu = 1/sigma``, by quadrature.

    Under ``P = N(0,1)`` and ``Q = q N(mu,1) + (1-q) N(0,1)`` (Zheng-Dong-Long-Su (2020), §5).

    Parameters
    ----------
    q : float
        Sampling rate in ``[0, 1]``.
    sigma : float
        Noise multiplier, ``sigma > 0``.

    Returns
    -------
    under_p, under_q : ndarray
        The first four cumulants of the privacy loss under each law.

    Examples
    --------
    >>> from ldp.accounting.central import subsampled_gaussian_cumulants
    >>> kp, kq = subsampled_gaussian_cumulants(0.5, 1.0)
    >>> [round(float(v), 7) for v in kp]
    [-0.1114215, 0.1784652, 0.1077961, 0.0849998]
    """
    q = check_scalar(q, "q", low=0.0, high=1.0, low_open=True)
    mu = 1.0 / check_scalar(sigma, "sigma", low=0.0, low_open=True)
    x = np.linspace(-14.0, mu + 14.0, 40001)
    w = np.full(x.size, x[1] - x[0])
    w[0] = w[-1] = w[0] / 2
    phi0 = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    phi1 = np.exp(-0.5 * (x - mu) ** 2) / math.sqrt(2 * math.pi)
    loss = np.log1p(q * np.expm1(mu * x - mu * mu / 2))
    powers = loss[None, :] ** np.arange(1, 5)[:, None]
    mp = powers @ (w * phi0)
    mq = powers @ (w * (q * phi1 + (1 - q) * phi0))
    return cumulants_from_moments(mp), cumulants_from_moments(mq)

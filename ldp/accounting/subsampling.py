r"""Privacy amplification by subsampling, and NoisySGD / Poisson-subsampled Gaussian accounting.

* :func:`subsample_tradeoff` is the operator :math:`C_p(f) = \min\{f_p, f_p^{-1}\}^{**}`
  with :math:`f_p = p f + (1-p)\,\mathrm{Id}` (seed 000 Def. 4.1, Thm 4.2): exact for
  piecewise-linear ``f`` (biconjugate of vertex sets) and by the symmetric closed form
  (seed 000 eq. 14) for symmetric curves such as ``G_mu``.
* :func:`subsampled_eps_delta_tradeoff` is the closed form of ``C_p(f_{eps,delta})`` with the
  **corrected** intercept ``1 - p (e^eps - 1 + 2 delta)/(e^eps + 1)`` (seed 000 Cor. 4.3
  prints ``1 - p delta - p (e^eps - 1)/(e^eps + 1)``, which is smaller when ``delta > 0``:
  digest erratum E1; checked numerically against the biconjugate route in the tests).
* :func:`subsample_eps_delta` / :func:`subsample_eps_delta_eta` are the classical lemma and
  seed 001 Proposition 1 (sampling without replacement, ``p = m/n``).
* :class:`PoissonSubsampledGaussian` accounts NoisySGD with Poisson sampling: the exact
  numerical bound (pessimistic PLD of both directions, an upper bound), and the
  approximations ``mu_clt_approx`` (Bu et al. 2019 as quoted by seed 002:
  ``p sqrt(T (e^{1/sigma^2} - 1))``, which symmetrises *after* composing) and
  :func:`drs_sgd_mu_clt_approx` (seed 000 §5.2, sampling without replacement, which
  symmetrises *before* composing: ``sqrt(2) p sqrt(T) sqrt(e^{1/s^2} Phi(1.5/s) + 3 Phi(-0.5/s)
  - 2)``, larger). CLT values are approximations, not bounds: at ``q = 0.01``,
  ``sigma = 1``, ``T = 1000`` the CLT gives ``eps(1e-5) ~ 1.62`` while the tight value is
  ``~ 1.828`` (the pessimistic lattice bound reported here: 1.853 at the default interval
  ``5e-5``, 1.838 at ``2e-5``; rounding losses up costs about ``T * interval / 2``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtr

from ldp._validation import check_epsilon, check_integer, check_probability, check_scalar
from ldp.accounting._common import as_levels, out
from ldp.accounting.pld import PrivacyLossDistribution
from ldp.accounting.tradeoff import (
    EpsDeltaTradeOff,
    GaussianTradeOff,
    PiecewiseLinearTradeOff,
    TradeOffFunction,
    get_epsilon_from_gdp,
    symmetrize,
)

__all__ = [
    "PoissonSubsampledGaussian",
    "SubsampledTradeOff",
    "drs_sgd_mu_clt_approx",
    "subsample_eps_delta",
    "subsample_eps_delta_eta",
    "subsample_tradeoff",
    "subsampled_eps_delta_tradeoff",
]


def _check_p(p: float) -> float:
    return check_probability(p, "p")


class SubsampledTradeOff(TradeOffFunction):
    """``C_p(f)`` for a symmetric ``f`` by the closed form of seed 000 eq. (14).

    ``C_p(f) = f_p`` on ``[0, x*]``, the line ``x* + f_p(x*) - x`` on ``[x*, f_p(x*)]`` and
    ``f_p^{-1}`` beyond, with ``x*`` the fixed point of ``f``. Its profile is exact:
    ``delta(eps') = p delta_f(log(1 + (e^{eps'} - 1)/p))`` for ``eps' >= 0`` (seed 000 §3.3).
    """

    is_symmetric = True

    def __init__(self, f: TradeOffFunction, p: float) -> None:
        if not f.is_symmetric:
            raise ValueError("SubsampledTradeOff needs a symmetric f; use subsample_tradeoff")
        self.f, self.p = f, _check_p(p)
        self.approx = f.approx
        self._x = f.fixed_point()
        self._y = float(self._fp(np.array([self._x]))[0])

    def _fp(self, alpha: np.ndarray) -> np.ndarray:
        return self.p * self.f._evaluate(alpha) + (1.0 - self.p) * (1.0 - alpha)

    def _fp_inverse(self, alpha: np.ndarray) -> np.ndarray:
        lo, hi = np.zeros_like(alpha), np.ones_like(alpha)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            below = self._fp(mid) <= alpha
            hi, lo = np.where(below, mid, hi), np.where(below, lo, mid)
        return hi

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


def subsample_tradeoff(f: TradeOffFunction, p: float) -> TradeOffFunction:
    r"""The p-sampling operator ``C_p(f) = min{f_p, f_p^{-1}}**`` (seed 000 Def. 4.1).

    If ``M`` is ``f``-DP then ``M`` on a uniformly random ``m``-subset of ``n`` records is
    ``C_{m/n}(f)``-DP (seed 000 Thm 4.2). Piecewise-linear ``f``: exact biconjugate of the
    vertex set. Symmetric ``f``: closed form eq. (14) (:class:`SubsampledTradeOff`).

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, subsample_tradeoff
    >>> c = subsample_tradeoff(GaussianTradeOff(1.8), 0.35)
    >>> [round(float(v), 6) for v in c([0.01, 0.1, 0.3, 0.5])]
    [0.888737, 0.690725, 0.478842, 0.278842]
    """
    if not isinstance(f, TradeOffFunction):
        raise TypeError(f"f must be a TradeOffFunction, got {type(f).__name__}")
    p = _check_p(p)
    if isinstance(f, PiecewiseLinearTradeOff):
        a, b = f.vertices
        mixed = PiecewiseLinearTradeOff._trusted(a, p * b + (1.0 - p) * (1.0 - a), f.approx)
        mixed.is_symmetric = False
        return symmetrize(mixed, "convex_min") if p < 1.0 else symmetrize(f, "max")
    if f.is_symmetric:
        return SubsampledTradeOff(f, p)
    raise TypeError("subsample_tradeoff needs a piecewise-linear or a symmetric trade-off function")


def subsampled_eps_delta_tradeoff(
    epsilon: float, delta: float, p: float
) -> PiecewiseLinearTradeOff:
    r"""``C_p(f_{eps,delta}) = max{f_{eps',delta'}, 1 - p(e^eps - 1 + 2 delta)/(e^eps + 1) - a}``.

    ``eps' = log(1 - p + p e^eps)``, ``delta' = p delta``. The intercept is the corrected one
    (seed 000 Cor. 4.3 erratum E1: the printed ``1 - p delta - p (e^eps - 1)/(e^eps + 1)`` is
    too small when ``delta > 0``; eq. 14 puts the slope -1 line through ``(x*, f_p(x*))``
    with ``x* = (1 - delta)/(1 + e^eps)``).

    Examples
    --------
    >>> from ldp.accounting import subsampled_eps_delta_tradeoff
    >>> f = subsampled_eps_delta_tradeoff(3.0, 0.1, 0.2)
    >>> round(1 - f.tv, 6)   # the intercept of the slope -1 piece
    0.817073
    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    p = _check_p(p)
    eps1, d1 = subsample_eps_delta(eps, d, p)
    base = EpsDeltaTradeOff(eps1, d1)
    a, _ = base.vertices
    if math.isfinite(eps):
        level = 1.0 - p * (1.0 - 2.0 * (1.0 - d) / (1.0 + math.exp(eps)))
    else:
        level = 1.0 - p
    grid = np.union1d(a, [min(max(level, 0.0), 1.0)])
    line = np.clip(level - grid, 0.0, None)
    diff = base._evaluate(grid) - line
    s = np.nonzero(diff[:-1] * diff[1:] < 0)[0]
    cross = grid[s] + diff[s] / (diff[s] - diff[s + 1]) * (grid[s + 1] - grid[s])
    grid = np.union1d(grid, cross)
    values = np.maximum(base._evaluate(grid), np.clip(level - grid, 0.0, None))
    f = PiecewiseLinearTradeOff._trusted(grid, values)
    f.is_symmetric = True
    return f


def subsample_eps_delta(epsilon: float, delta: float, p: float) -> tuple[float, float]:
    """Classical amplification: ``(log(1 - p + p e^eps), p delta)`` (seed 000 §4.1 lemma).

    Examples
    --------
    >>> from ldp.accounting import subsample_eps_delta
    >>> [round(v, 6) for v in subsample_eps_delta(3.0, 0.1, 0.2)]
    [1.572174, 0.02]
    """
    eps = check_epsilon(epsilon)
    d = check_probability(delta, "delta")
    p = _check_p(p)
    if math.isinf(eps):
        return (math.inf if p > 0 else 0.0), p * d
    return math.log1p(p * math.expm1(eps)), p * d


def subsample_eps_delta_eta(
    epsilon: float, delta: float, eta: float, p: float
) -> tuple[float, float, float]:
    """Seed 001 Proposition 1: ``(log(1 + p(e^eps - 1)), p delta, p eta)``.

    Examples
    --------
    >>> from ldp.accounting import subsample_eps_delta_eta
    >>> [round(v, 6) for v in subsample_eps_delta_eta(1.0, 0.01, 0.3, 0.1)]
    [0.158565, 0.001, 0.03]
    """
    eps1, d1 = subsample_eps_delta(epsilon, delta, p)
    return eps1, d1, p * check_probability(eta, "eta")


def drs_sgd_mu_clt_approx(sigma: float, p: float, steps: int) -> float:
    r"""Approximate CLT ``mu`` of NoisySGD, seed 000 §5.2 (sampling without replacement).

    ``mu = sqrt(2) p sqrt(T) sqrt(e^{1/sigma^2} Phi(1.5/sigma) + 3 Phi(-0.5/sigma) - 2)``,
    i.e. ``p sqrt(2 T chi2_+(G_{1/sigma}))``. An asymptotic approximation, not a bound.

    Examples
    --------
    >>> from ldp.accounting import drs_sgd_mu_clt_approx
    >>> round(drs_sgd_mu_clt_approx(1.0, 0.05, 400), 5)
    1.71014
    """
    s = check_scalar(sigma, "sigma", low=0.0, low_open=True)
    p = _check_p(p)
    t = check_integer(steps, "steps", low=0)
    chi2 = math.exp(s**-2) * float(ndtr(1.5 / s)) + 3.0 * float(ndtr(-0.5 / s)) - 2.0
    return math.sqrt(2.0) * p * math.sqrt(t) * math.sqrt(chi2)


def _sg_loss_y(level: np.ndarray, q: float, mu: float) -> np.ndarray:
    """``y`` with ``log(1 - q + q e^{mu y - mu^2/2}) = level`` (``-inf`` below ``log(1-q)``)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inner = np.expm1(level) + q  # e^l - (1 - q)
        y = (np.log(inner / q) + mu * mu / 2.0) / mu
    return np.where(inner > 0, y, -np.inf)


def _sg_loss(y: float, q: float, mu: float) -> float:
    return math.log1p(q * math.expm1(mu * y - mu * mu / 2.0))


class PoissonSubsampledGaussian:
    r"""NoisySGD with Poisson sampling: ``T`` steps of rate ``q``, noise multiplier ``sigma``.

    One step compares ``P = (1-q) N(0,1) + q N(mu,1)`` with ``Q = N(0,1)`` (``mu =
    1/sigma``; seed 002 Lemma C.1, seed 004 §1.5). Methods:

    * :meth:`epsilon` / :meth:`delta`: **upper bounds** from the pessimistic PLD of both
      directions (remove and add), composed exactly on the lattice ``interval``;
    * :meth:`epsilon_clt_approx`: the CLT of Bu et al. (quoted by seed 002 §2),
      ``mu_clt_approx = q sqrt(T (e^{1/sigma^2} - 1))``: an **approximation**, which
      under-states epsilon outside its regime;
    * :meth:`epsilon_edgeworth_approx`: the degree-2 Edgeworth approximation (seed 002).

    Examples
    --------
    >>> from ldp.accounting import PoissonSubsampledGaussian
    >>> sgd = PoissonSubsampledGaussian(0.01, 1.0, 1000)
    >>> round(sgd.mu_clt_approx, 5), round(sgd.epsilon_clt_approx(1e-5), 3)
    (0.41452, 1.618)
    """

    def __init__(self, q: float, sigma: float, steps: int, *, interval: float = 5e-5) -> None:
        self.q = check_probability(q, "q")
        self.sigma = check_scalar(sigma, "sigma", low=0.0, low_open=True)
        self.steps = check_integer(steps, "steps", low=0)
        self.interval = check_scalar(interval, "interval", low=0.0, low_open=True)
        self._plds: tuple[PrivacyLossDistribution, PrivacyLossDistribution] | None = None

    def step_plds(self) -> tuple[PrivacyLossDistribution, PrivacyLossDistribution]:
        """Pessimistic single-step PLDs ``(remove, add)``."""
        q, mu, h = self.q, 1.0 / self.sigma, self.interval
        if q == 0.0:
            triv = PrivacyLossDistribution(np.ones(1), 0, h, exact=True)
            return triv, triv
        top = _sg_loss(mu + 8.0, q, mu)  # beyond: P-mass < q 1e-15, sent to +inf
        lo = math.log1p(-q) if q < 1 else -top

        def remove_cdf(level):
            y = _sg_loss_y(level, q, mu)
            return (1 - q) * ndtr(y) + q * ndtr(y - mu)

        def remove_sf(level):
            y = _sg_loss_y(level, q, mu)
            return (1 - q) * ndtr(-y) + q * ndtr(mu - y)

        remove = PrivacyLossDistribution.from_loss_cdf(remove_cdf, remove_sf, lo, top, h)
        low_add = -_sg_loss(8.0, q, mu)  # beyond: Q-mass < 1e-15, moved up
        high_add = -lo

        def add_cdf(level):  # P_Q(-L <= l) = P(y >= y(-l))
            return ndtr(-_sg_loss_y(-level, q, mu))

        def add_sf(level):
            return ndtr(_sg_loss_y(-level, q, mu))

        add = PrivacyLossDistribution.from_loss_cdf(add_cdf, add_sf, low_add, high_add, h)
        return remove, add

    def _composed(self) -> tuple[PrivacyLossDistribution, PrivacyLossDistribution]:
        if self._plds is None:
            remove, add = self.step_plds()
            self._plds = (remove.self_compose(self.steps), add.self_compose(self.steps))
        return self._plds

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """Upper bound on the tight delta after ``T`` steps (max of both directions)."""
        e, scalar = as_levels(epsilon, "epsilon", low=0.0)
        remove, add = self._composed()
        return out(np.maximum(remove._delta(e), add._delta(e)), scalar)

    def epsilon(self, delta: ArrayLike) -> float | np.ndarray:
        """Upper bound on the smallest epsilon at ``delta`` (max of both directions)."""
        d, scalar = as_levels(delta, "delta", low=0.0, high=1.0)
        remove, add = self._composed()
        return out(np.maximum(remove._epsilon(d), add._epsilon(d)), scalar)

    @property
    def mu_clt_approx(self) -> float:
        """CLT approximation ``q sqrt(T (e^{1/sigma^2} - 1))`` (Bu et al.; not a bound)."""
        return self.q * math.sqrt(self.steps * math.expm1(self.sigma**-2))

    def epsilon_clt_approx(self, delta: ArrayLike) -> float | np.ndarray:
        """Epsilon of ``G_{mu_clt_approx}`` at ``delta``: an approximation, not a bound."""
        return get_epsilon_from_gdp(self.mu_clt_approx, delta)

    def epsilon_edgeworth_approx(self, delta: ArrayLike) -> float | np.ndarray:
        """Degree-2 Edgeworth approximation of epsilon at ``delta`` (seed 002; not a bound)."""
        from ldp.accounting.approximations import edgeworth_tradeoff_approx, sg_cumulants

        kp, kq = sg_cumulants(self.q, self.sigma)
        f = edgeworth_tradeoff_approx(kp, kq, self.steps)
        return f.epsilon(delta)

    def __repr__(self) -> str:
        return (
            f"PoissonSubsampledGaussian(q={self.q!r}, sigma={self.sigma!r}, steps={self.steps!r})"
        )


_ = GaussianTradeOff

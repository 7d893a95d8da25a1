"""Named trade-off curves: from a pair of distributions or a channel, ``f_{eps,delta}``,
``f_{eps,delta,eta}``, the Gaussian and Laplace families and subsampling ``C_p(f)``."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtr, ndtri

from ldp._formulas import k_rr_probabilities, normalise_erasure
from ldp._validation import check_epsilon, check_integer, check_pmf, check_probability
from ldp.accounting.curves._common import as_levels
from ldp.accounting.curves.curve_closed_forms import (
    constant_functionals,
    gaussian_chi2_plus,
    gaussian_cumulants,
    gaussian_functionals,
    laplace_chi2_plus,
    laplace_cumulants,
    laplace_functionals,
    laplace_renyi,
    subsampled_gaussian_functionals,
    subsampled_laplace_functionals,
)
from ldp.accounting.curves.curve_plds import gaussian_pld, laplace_pld
from ldp.accounting.curves.gdp import get_delta_from_gdp, get_epsilon_from_gdp
from ldp.accounting.curves.pld import PrivacyLossDistribution
from ldp.accounting.curves.tradeoff_base import (
    PiecewiseLinearTradeOff,
    TradeOffFunction,
    left_inverse,
    trusted_tradeoff,
)
from ldp.channel import Channel

__all__ = [
    "EpsDeltaEtaTradeOff",
    "EpsDeltaTradeOff",
    "GaussianTradeOff",
    "LaplaceTradeOff",
    "SubsampledTradeOff",
    "tradeoff_from_channel",
    "tradeoff_from_pair",
]

_ULP = float(np.finfo(np.float64).eps)


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
    return trusted_tradeoff(*_pair_vertices(first, second))


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
        return trusted_tradeoff(*_pair_vertices(m[i], m[j]))
    if k == 1:
        return trusted_tradeoff(np.array([0.0, 1.0]), np.array([1.0, 0.0]))
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
    return trusted_tradeoff(alphas, betas)


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

    def chain_family(self) -> tuple[str, float] | None:
        """``("pure_dp", epsilon)`` when ``delta = 0``, else ``None``."""
        return ("pure_dp", float(self.epsilon_)) if self.delta_ == 0.0 else None

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

    def closed_form_divergence(self, kind: str, order: float | None = None) -> float | None:
        """Renyi ``a mu^2 / 2`` (Dong-Roth-Su (2022), Corollary B.6); ``chi^2_+``
        ``e^{mu^2} Phi(3 mu / 2) - 2 Phi(mu / 2) + Phi(-mu / 2)``."""
        if kind == "renyi" and order is not None:
            return order * self.mu * self.mu / 2.0
        if kind == "chi2_plus":
            return gaussian_chi2_plus(self.mu)
        return None

    def functionals(self) -> dict:
        """The CLT functionals: closed forms (Dong-Roth-Su (2022), §3.2 and Appendix D)."""
        return gaussian_functionals(self.mu)

    def subsampled_functionals(self, p: float) -> dict:
        """The functionals of ``C_p``, by quadrature of the folded curve."""
        return subsampled_gaussian_functionals(p, self.mu)

    def loss_cumulants(self) -> tuple[np.ndarray, np.ndarray]:
        """The cumulants of the privacy loss: normal, ``N(-mu^2/2, mu^2)`` under ``P`` and
        ``N(mu^2/2, mu^2)`` under ``Q``."""
        return gaussian_cumulants(self.mu)

    def identity_key(self) -> tuple | None:
        """``(class, mu)`` for this class exactly (a subclass may carry more than ``mu``)."""
        return (GaussianTradeOff, self.mu) if type(self) is GaussianTradeOff else None

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

    def closed_form_divergence(self, kind: str, order: float | None = None) -> float | None:
        """Renyi: the closed form of the Laplace pair; ``chi^2_+``: the flat piece exactly,
        the rest by quadrature."""
        if kind == "renyi" and order is not None:
            return laplace_renyi(self.mu, order)
        if kind == "chi2_plus":
            return laplace_chi2_plus(self.mu)
        return None

    def functionals(self) -> dict:
        """The CLT functionals: ``kl`` and ``kappa2`` in closed form, the third moments by
        quadrature (Zheng-Dong-Long-Su (2020), §5)."""
        return laplace_functionals(self.mu)

    def subsampled_functionals(self, p: float) -> dict:
        """The functionals of ``C_p``, by quadrature of the folded curve."""
        return subsampled_laplace_functionals(p, self.mu)

    def loss_cumulants(self) -> tuple[np.ndarray, np.ndarray]:
        """The cumulants of the privacy loss: Zheng-Dong-Long-Su (2020), §5."""
        return laplace_cumulants(self.mu)

    def identity_key(self) -> tuple | None:
        """``(class, mu)`` for this class exactly (a subclass may carry more than ``mu``)."""
        return (LaplaceTradeOff, self.mu) if type(self) is LaplaceTradeOff else None

    def chain_family(self) -> tuple[str, float]:
        """``("laplace", mu)``."""
        return ("laplace", float(self.mu))

    def __repr__(self) -> str:
        return f"LaplaceTradeOff(mu={self.mu!r})"


class SubsampledTradeOff(TradeOffFunction):
    """``C_p(f)`` for a symmetric ``f`` by the closed form of Dong-Roth-Su (2022), eq. (14).

    Built by :func:`ldp.accounting.subsample_tradeoff`. Its CLT functionals are those the
    subsampled curve ``f`` gives in its ``subsampled_functionals(p)`` (the Gaussian and
    Laplace curves do).

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

    def functionals(self) -> dict | None:
        """What the subsampled curve ``f`` answers in
        :meth:`~ldp.accounting.TradeOffFunction.subsampled_functionals` (0 when ``p = 0``)."""
        if self.p == 0.0:
            return constant_functionals(0.0)
        return self.f.subsampled_functionals(self.p)

    def __repr__(self) -> str:
        return f"SubsampledTradeOff({self.f!r}, p={self.p!r})"

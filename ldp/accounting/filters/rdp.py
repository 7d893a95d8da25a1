r"""Rényi DP: the subsampled Gaussian, conversions to (eps, delta), and the RDP filter.

* :func:`rdp_subsampled_gaussian` is the Rényi divergence ``D_alpha(P || Q)`` of one
  Poisson-subsampled Gaussian step, ``P = (1-q) N(0, sigma^2) + q N(1, sigma^2)``,
  ``Q = N(0, sigma^2)``: for integer orders the binomial expansion
  ``(alpha - 1)^{-1} log sum_k C(alpha, k) (1-q)^{alpha-k} q^k exp((k^2 - k)/(2 sigma^2))``
  (Mironov-Talwar-Zhang (2019)), for fractional orders the integral
  ``E_{y ~ N(0, sigma^2)}[(1 - q + q e^{(2y - 1)/(2 sigma^2)})^alpha]``, both in log space
  and rounded up; ``q = 1`` is ``alpha / (2 sigma^2)``, the Gaussian mechanism
  (Dong-Roth-Su (2022), Corollary B.6: ``mu``-GDP implies ``(alpha, alpha mu^2/2)``-RDP).
* :func:`get_epsilon_from_rdp` converts a curve of RDP guarantees to ``(eps, delta)``:
  ``"classic"`` is ``rho + log(1/delta)/(alpha - 1)`` (Mironov (2017)), ``"improved"`` is
  ``rho + log((alpha - 1)/alpha) - (log delta + log alpha)/(alpha - 1)`` (Balle et al.
  (2020); Canonne-Kamath-Steinke (2020)), minimised over the orders.
* :class:`RDPFilter` is the privacy filter of Feldman-Zrnic (2021) on a grid of orders
  (Tran-Koskela-Räisä-Honkela (2025), §2): it accepts mechanisms one at a time while, at
  every order, the accumulated RDP stays within the budget. It is valid under full
  adaptivity: each order's almost-sure sum bound holds whatever made the run stop, so the
  output is ``(alpha, B_alpha)``-RDP for every order of the grid at once.
  ``DEFAULT_ORDERS`` is the grid of the paper's comparison (``1.1, 1.2, ..., 10.9`` and
  ``11, ..., 128``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp

from ldp._numerics import log_binomial
from ldp._validation import check_probability, check_scalar
from ldp.accounting.curves import TradeOffFunction
from ldp.accounting.curves._common import as_levels, out
from ldp.accounting.filters.gdp_filter import FilterHaltedError

__all__ = [
    "DEFAULT_ORDERS",
    "RDPFilter",
    "get_epsilon_from_rdp",
    "rdp_subsampled_gaussian",
]

#: The orders of Tran-Koskela-Räisä-Honkela (2025), §4.5: 1.1 to 10.9 by 0.1, then 11 to 128.
DEFAULT_ORDERS = np.round(np.concatenate((np.arange(11, 110) / 10.0, np.arange(11, 129))), 12)
DEFAULT_ORDERS.setflags(write=False)

_UNIT = float(np.finfo(np.float64).eps) / 2.0
#: Relative allowance for the trapezoid rule of fractional orders (its error is far smaller).
_QUAD_SLACK = 1e-12
_RTOL = 1e-12
_METHODS = ("improved", "classic")


def _check_orders(orders: ArrayLike) -> tuple[np.ndarray, bool]:
    a, scalar = as_levels(orders, "orders", allow_inf=False)
    if np.any(a <= 1.0):
        raise ValueError(f"orders must be > 1, got {float(a[a <= 1.0].flat[0])!r}")
    return a, scalar


def _log_moment_integer(alpha: int, q: float, s2: float) -> float:
    k = np.arange(alpha + 1, dtype=np.float64)
    log_binom = log_binomial(alpha, k)
    with np.errstate(divide="ignore"):
        terms = log_binom + (alpha - k) * math.log1p(-q) + k * math.log(q) + (k * k - k) / (2 * s2)
    terms = np.where(k == alpha, alpha * math.log(q) + (alpha * alpha - alpha) / (2 * s2), terms)
    if q == 1.0:
        terms = np.where(k == alpha, terms, -np.inf)
    return float(logsumexp(terms))


def _log_moment_fractional(alphas: np.ndarray, q: float, sigma: float) -> np.ndarray:
    """``log E_{N(0,1)}[(1 - q + q e^{mu y - mu^2/2})^alpha]``, ``mu = 1/sigma``, for each
    ``alpha``: trapezoid rule in log space over ``[-40, alpha mu + 40]`` with 6001 points.

    The integrand is analytic and decays like a Gaussian of unit width on both sides, so the
    rule converges geometrically (spacing below 0.05: error far below ``1e-15``
    relative).
    """
    mu = 1.0 / sigma
    t = np.linspace(0.0, 1.0, 6001)
    hi = np.maximum(alphas * mu, 0.0) + 40.0
    y = -40.0 + (hi + 40.0)[:, None] * t[None, :]
    x = mu * y - mu * mu / 2.0
    with np.errstate(over="ignore"):
        big = x + np.log(q + (1.0 - q) * np.exp(-np.maximum(x, 30.0)))
        loss = np.where(x > 30.0, big, np.log1p(q * np.expm1(np.minimum(x, 30.0))))
    log_f = alphas[:, None] * loss - 0.5 * y * y - 0.5 * math.log(2.0 * math.pi)
    w = np.full(t.size, 1.0)
    w[0] = w[-1] = 0.5
    step = (hi + 40.0) / (t.size - 1)
    return logsumexp(log_f, b=w[None, :], axis=1) + np.log(step)


def rdp_subsampled_gaussian(
    sample_rate: float, sigma: float, orders: ArrayLike
) -> float | np.ndarray:
    r"""RDP ``rho(alpha)`` of one Poisson-subsampled Gaussian step (sensitivity 1), rounded up.

    Parameters
    ----------
    sample_rate : float
        ``q`` in ``[0, 1]``.
    sigma : float
        Noise multiplier ``> 0``.
    orders : float or array_like
        Orders ``alpha > 1``.

    Returns
    -------
    float or numpy.ndarray
        ``rho(alpha)`` at each order (an upper bound, shape of ``orders``).

    Examples
    --------
    >>> from ldp.accounting import rdp_subsampled_gaussian
    >>> f"{rdp_subsampled_gaussian(0.01, 1.0, 2.0):.7e}"   # log(1 + q^2 (e^{1/sigma^2} - 1))
    '1.7181342e-04'
    >>> round(rdp_subsampled_gaussian(1.0, 2.0, 3.0), 12)   # alpha / (2 sigma^2)
    0.375
    """
    q = check_probability(sample_rate, "sample_rate")
    s = check_scalar(sigma, "sigma", low=0.0, low_open=True)
    a, scalar = _check_orders(orders)
    flat = a.ravel()
    if q == 0.0:
        return out(np.zeros(a.shape), scalar)
    if q == 1.0:
        return out(a / (2.0 * s * s) * (1.0 + 2.0 * _UNIT), scalar)
    result = np.empty(flat.shape)
    integer = np.array([float(v).is_integer() for v in flat.tolist()], dtype=bool)
    for i in np.nonzero(integer)[0]:
        alpha = int(flat[i])
        log_m = _log_moment_integer(alpha, q, s * s)
        # logsumexp of alpha + 1 terms, each a sum of a few terms up to alpha^2/(2 s^2)
        slack = 8.0 * _UNIT * (abs(log_m) + (alpha + 4) * (alpha * alpha / (2 * s * s) + 40.0))
        result[i] = (log_m + slack) / (alpha - 1.0)
    if np.any(~integer):
        alphas = flat[~integer]
        log_moments = _log_moment_fractional(alphas, q, s)
        result[~integer] = (log_moments + _QUAD_SLACK * (np.abs(log_moments) + 1.0)) / (
            alphas - 1.0
        )
    result = np.maximum(result, 0.0)
    return out(result.reshape(a.shape), scalar)


def get_epsilon_from_rdp(
    orders: ArrayLike, rdp: ArrayLike, delta: float, method: str = "improved"
) -> float:
    r"""Smallest epsilon at ``delta`` implied by ``(alpha, rho(alpha))``-RDP at every order.

    ``method="classic"``: ``min_alpha rho + log(1/delta)/(alpha - 1)`` (Mironov (2017));
    ``method="improved"``: ``min_alpha rho + log((alpha-1)/alpha) - (log delta +
    log alpha)/(alpha - 1)`` (Balle et al. (2020); Canonne-Kamath-Steinke (2020)). Both
    are upper bounds (rounded up).

    Parameters
    ----------
    orders : array_like
        Orders ``alpha > 1``.
    rdp : array_like
        ``rho(alpha) >= 0``, one per order.
    delta : float
        In ``(0, 1)``.
    method : {"improved", "classic"}, default "improved"

    Returns
    -------
    float
        The smallest epsilon over the orders (``inf`` if every order is infinite).

    Examples
    --------
    >>> from ldp.accounting import get_epsilon_from_rdp
    >>> orders = [2.0, 4.0, 8.0, 16.0, 32.0]
    >>> rdp = [o * 0.5**2 / 2 for o in orders]      # 0.5-GDP
    >>> round(get_epsilon_from_rdp(orders, rdp, 1e-5, "classic"), 4)
    2.6447
    """
    a, _ = _check_orders(orders)
    r, _ = as_levels(rdp, "rdp", low=0.0)
    a, r = np.atleast_1d(a).ravel(), np.atleast_1d(r).ravel()
    if a.shape != r.shape:
        raise ValueError(f"orders and rdp must have the same length, got {a.size} and {r.size}")
    d = check_scalar(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    if method not in _METHODS:
        raise ValueError(f"method must be 'improved' or 'classic', got {method!r}")
    with np.errstate(over="ignore", invalid="ignore"):
        if method == "classic":
            eps = r - math.log(d) / (a - 1.0)
        else:
            eps = r + np.log1p(-1.0 / a) - (math.log(d) + np.log(a)) / (a - 1.0)
    eps = np.where(np.isnan(eps), np.inf, eps)
    best = float(np.min(eps))
    if not math.isfinite(best):
        return math.inf
    # a handful of roundings, each within a few ulps of the largest term
    scale = float(np.max(np.abs(r))) + abs(math.log(d)) + float(np.max(np.log(a))) + 1.0
    return max(0.0, best + 16.0 * _UNIT * scale)


class RDPFilter:
    """The RDP privacy filter of Feldman-Zrnic (2021) on a grid of orders (valid, adaptive).

    Accepts a mechanism iff, at **every** order, the accumulated RDP plus its own stays
    within the budget ``B_alpha`` (Algorithm 1 semantics of Tran-Koskela-Räisä-Honkela
    (2025): the candidate's own cost is checked before it runs; a refusal halts unless
    ``halt_on_refusal=False``, which is sound here because a skipped step costs nothing).
    The output is ``(alpha, B_alpha)``-RDP for every order at once, so :meth:`epsilon` is
    a valid ``(eps, delta)`` guarantee of everything released.

    Parameters
    ----------
    orders : array_like
        Orders ``alpha > 1`` (default ``DEFAULT_ORDERS``).
    budgets : array_like
        ``B_alpha >= 0``, one per order (or one number for all).
    halt_on_refusal : bool, default True

    Examples
    --------
    >>> from ldp.accounting import RDPFilter, rdp_subsampled_gaussian
    >>> orders = [2.0, 8.0, 32.0]
    >>> step = rdp_subsampled_gaussian(0.01, 1.0, orders)
    >>> flt = RDPFilter(orders, 100 * step)
    >>> sum(flt.request(step) for _ in range(101)), flt.halted
    (100, True)
    >>> round(flt.epsilon(1e-5), 3)
    1.303
    """

    def __init__(
        self,
        orders: ArrayLike | None = None,
        budgets: ArrayLike = 1.0,
        *,
        halt_on_refusal: bool = True,
    ) -> None:
        a, _ = _check_orders(DEFAULT_ORDERS if orders is None else orders)
        a = np.atleast_1d(a).ravel()
        b, _ = as_levels(budgets, "budgets", low=0.0)
        b = np.broadcast_to(np.atleast_1d(b).ravel(), a.shape) if np.size(b) == 1 else b
        b = np.atleast_1d(np.asarray(b, dtype=np.float64)).ravel()
        if b.shape != a.shape:
            raise ValueError(f"budgets must have one value per order ({a.size}), got {b.size}")
        self.orders = a.copy()
        self.budgets = b.copy()
        self.orders.setflags(write=False)
        self.budgets.setflags(write=False)
        if not isinstance(halt_on_refusal, bool):
            raise TypeError(f"halt_on_refusal must be True or False, got {halt_on_refusal!r}")
        self.halt_on_refusal = halt_on_refusal
        self._spent = np.zeros(a.shape)
        self.history: list[np.ndarray] = []
        self.halted = False

    def cost(self, mechanism: object) -> np.ndarray:
        """The RDP curve charged for ``mechanism`` on ``orders`` (not recorded).

        ``mechanism`` is an array of RDP values (one per order) or a
        :class:`~ldp.accounting.GaussianTradeOff` (``alpha mu^2 / 2``, Dong-Roth-Su (2022),
        Corollary B.6).
        """
        mu = mechanism.gdp_mu() if isinstance(mechanism, TradeOffFunction) else None
        if mu is not None:  # exactly G_mu
            return self.orders * mu**2 / 2.0 * (1.0 + 2.0 * _UNIT)
        if isinstance(mechanism, (bool, str)) or mechanism is None:
            raise TypeError(
                "mechanism must be an array of RDP values or a GaussianTradeOff, got "
                f"{type(mechanism).__name__}"
            )
        r, _ = as_levels(mechanism, "rdp", low=0.0)  # type: ignore[arg-type]
        r = np.atleast_1d(r).ravel()
        if r.shape != self.orders.shape:
            raise ValueError(
                f"rdp must have one value per order ({self.orders.size}), got {r.size}"
            )
        return r

    def _fits(self, r: np.ndarray) -> bool:
        total = self._spent + r
        ok = (total <= self.budgets) | (
            (r > _RTOL * self.budgets) & (total <= self.budgets * (1 + _RTOL))
        )
        return bool(np.all(ok | (r == 0.0)))

    def would_accept(self, mechanism: object) -> bool:
        """Whether :meth:`request` would accept ``mechanism`` now."""
        return self._fits(self.cost(mechanism))

    def request(self, mechanism: object) -> bool:
        """Accept and record ``mechanism`` if it fits at every order; otherwise refuse it."""
        if self.halted:
            raise FilterHaltedError("the RDP filter has halted; no further mechanism may run")
        r = self.cost(mechanism)
        if self._fits(r):
            self._spent = (self._spent + r) * (1.0 + 2.0 * _UNIT)
            self.history.append(r)
            return True
        if self.halt_on_refusal:
            self.halted = True
        return False

    @property
    def spent(self) -> np.ndarray:
        """The accumulated RDP at each order (rounded up)."""
        return self._spent.copy()

    @property
    def remaining(self) -> np.ndarray:
        """``B_alpha`` minus the accumulated RDP, at each order (``>= 0``)."""
        return np.maximum(self.budgets - self._spent, 0.0)

    def epsilon(self, delta: float, method: str = "improved") -> float:
        """Epsilon at ``delta`` of the guarantee ``(alpha, B_alpha)``-RDP (a valid bound)."""
        budgets = np.maximum(self.budgets, self._spent)
        return get_epsilon_from_rdp(self.orders, budgets, delta, method)

    def __repr__(self) -> str:
        return (
            f"RDPFilter({self.orders.size} orders; {len(self.history)} accepted"
            f"{', halted' if self.halted else ''})"
        )

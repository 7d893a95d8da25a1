r"""Privacy filters: the valid GDP filter, the invalid natural f-DP filter, Algorithm 2.

After Tran-Koskela-Räisä-Honkela (2025), "f-Differential Privacy Filters: Validity and
Approximate Solutions".

* :class:`PrivacyFilter` is the GDP filter (Koskela et al.; Tran-Koskela-Räisä-Honkela
  (2025), Theorem 2.11): it accepts
  mechanisms one at a time while ``sum mu_i^2 <= mu_B^2`` and refuses the one that would
  cross the budget. It is **valid under full adaptivity** (mechanisms and their ``mu_i``
  chosen from past outputs): the output is ``mu_B``-GDP. Finite channels and
  piecewise-linear curves enter through the smallest ``mu`` with ``G_mu <= f``
  (:func:`~ldp.accounting.tradeoff.get_mu_from_tradeoff`, exact).
* The *natural* f-DP filter (halt when ``f_1 (x) ... (x) f_t`` would cross ``f_B``) is **not
  valid** under full adaptivity (Proposition 3.2 of the paper).
  :func:`natural_filter_counterexample` reproduces its Example 3.3 with the corrected
  selection rule (the paper prints the rule reversed; the printed rule gives no violation,
  which the tests check), and :func:`two_step_counterexample` a simpler two-step case
  derived for this library. The filter is valid when the family of future curves is a
  Blackwell chain (Theorem 3.6 of the paper), e.g. all Gaussian, where it reduces to
  :class:`PrivacyFilter`.
* :class:`ApproxGDPFilter` is Algorithm 2 for Poisson-subsampled Gaussians at small
  (``q < 0.2``) or large (``q > 0.8``) sampling rates. It is an **approximation** (an
  asymptotic CLT with unknown constants): in the paper's own showcase its epsilon read-out is
  1.5-3% below the exact epsilon. Its numbers carry ``approx`` in their names.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr

from ldp._validation import check_scalar
from ldp.accounting.tradeoff import (
    GaussianTradeOff,
    PiecewiseLinearTradeOff,
    TradeOffFunction,
    get_mu_from_tradeoff,
    tradeoff_from_channel,
)
from ldp.channel import Channel

__all__ = [
    "ApproxGDPFilter",
    "FilterHaltedError",
    "PrivacyFilter",
    "natural_filter_counterexample",
    "sg_remove_profile",
    "two_step_counterexample",
]

_RTOL = 1e-12
_EPS = float(np.finfo(np.float64).eps)


class FilterHaltedError(RuntimeError):
    """Raised when a halted filter is asked to accept another mechanism."""


def _mu_of(mechanism: object) -> float:
    if isinstance(mechanism, bool):
        raise TypeError("mechanism must be a mu, a Channel or a TradeOffFunction, got a bool")
    if isinstance(mechanism, (int, float, np.floating, np.integer)):
        return check_scalar(mechanism, "mu", low=0.0, allow_inf=True)
    if isinstance(mechanism, Channel):
        return get_mu_from_tradeoff(tradeoff_from_channel(mechanism))
    if isinstance(mechanism, TradeOffFunction):
        if mechanism.approx:
            raise ValueError("an approximate trade-off curve is not a guarantee; refused")
        if isinstance(mechanism, (GaussianTradeOff, PiecewiseLinearTradeOff)):
            return get_mu_from_tradeoff(mechanism)
    mu = getattr(mechanism, "mu", None)
    if isinstance(mu, float) and getattr(mechanism, "exact", False):
        return check_scalar(mu, "mu", low=0.0, allow_inf=True)
    raise TypeError(
        "mechanism must be a GDP mu, a Channel, a GaussianTradeOff or a piecewise-linear "
        f"trade-off curve, got {type(mechanism).__name__}"
    )


class PrivacyFilter:
    """The GDP privacy filter: ``continue iff sum mu_i^2 <= mu_budget^2`` (valid, adaptive).

    Parameters
    ----------
    mu_budget : float
        Total GDP budget ``mu_B >= 0`` (``inf`` never halts).
    halt_on_refusal : bool, default True
        Algorithm 1 semantics: the first refusal halts the filter and further requests raise
        :class:`FilterHaltedError`. With ``False`` a refused mechanism is skipped and cheaper
        ones may still be accepted (sound for the GDP filter: a skipped step is ``Id``).

    Examples
    --------
    >>> from ldp import randomized_response
    >>> from ldp.accounting import PrivacyFilter
    >>> pf = PrivacyFilter(1.0)
    >>> pf.request(0.6), pf.request(0.8)       # 0.36 + 0.64 = 1: exactly the budget
    (True, True)
    >>> pf.request(0.1), pf.halted
    (False, True)
    >>> pf2 = PrivacyFilter(2.0)
    >>> pf2.request(randomized_response(1.0)), round(pf2.remaining_mu, 6)
    (True, 1.575465)
    """

    def __init__(self, mu_budget: float, *, halt_on_refusal: bool = True) -> None:
        self.mu_budget = check_scalar(mu_budget, "mu_budget", low=0.0, allow_inf=True)
        self.halt_on_refusal = bool(halt_on_refusal)
        self._spent = 0.0  # an upper bound on sum mu_i^2 (rounded up at every step)
        self.history: list[float] = []
        self.halted = False

    def cost(self, mechanism: object) -> float:
        """The GDP ``mu`` charged for ``mechanism`` (without recording it)."""
        return _mu_of(mechanism)

    def _fits(self, mu: float) -> bool:
        if mu == 0.0 or math.isinf(self.mu_budget):
            return True
        square = mu * mu
        total = self._spent + square
        budget = self.mu_budget**2
        if total <= budget:
            return True
        # a request landing on the budget up to rounding is accepted (0.6 and 0.8 fill 1.0),
        # but a request that is itself below the rounding slack never is: once the budget is
        # spent, every positive request is refused
        return square > _RTOL * budget and total <= budget * (1.0 + _RTOL)

    def would_accept(self, mechanism: object) -> bool:
        """Whether :meth:`request` would accept ``mechanism`` now."""
        return self._fits(_mu_of(mechanism))

    def request(self, mechanism: object) -> bool:
        """Accept and record ``mechanism`` if it fits the budget; otherwise refuse it.

        Returns ``True`` when accepted (the caller may run it), ``False`` when refused (the
        caller must not run it). A mechanism with ``mu = 0`` (releasing nothing) always fits;
        once the budget is spent every mechanism with ``mu > 0`` is refused.
        """
        if self.halted:
            raise FilterHaltedError("the filter has halted; no further mechanism may run")
        mu = _mu_of(mechanism)
        if self._fits(mu):
            if mu > 0.0:
                self._spent = (self._spent + mu * mu) * (1.0 + 2.0 * _EPS)
            self.history.append(mu)
            return True
        if self.halt_on_refusal:
            self.halted = True
        return False

    @property
    def spent_mu(self) -> float:
        """``sqrt(sum mu_i^2)`` of the accepted mechanisms (rounded up)."""
        return math.sqrt(self._spent) * (1.0 + _EPS)

    @property
    def remaining_mu(self) -> float:
        """The largest ``mu`` the next mechanism may have: ``sqrt(mu_B^2 - sum mu_i^2)``."""
        if math.isinf(self.mu_budget):
            return math.inf
        return math.sqrt(max(0.0, self.mu_budget**2 - self._spent))

    def guarantee(self) -> GaussianTradeOff:
        """The guarantee of everything released: ``G_mu`` with ``mu = mu_budget``.

        Valid under full adaptivity. When the accepted requests fill the budget up to
        rounding (``0.6`` and ``0.8`` in ``1.0``), ``mu`` is their rounded-up total
        ``sqrt(sum mu_i^2)`` if that is larger, so the guarantee always covers what ran.
        """
        if math.isinf(self.mu_budget):
            return GaussianTradeOff(self.mu_budget)
        return GaussianTradeOff(max(self.mu_budget, self.spent_mu if self._spent else 0.0))

    def __repr__(self) -> str:
        return (
            f"PrivacyFilter(mu_budget={self.mu_budget!r}; spent {self.spent_mu:.6g}, "
            f"{len(self.history)} accepted{', halted' if self.halted else ''})"
        )


# --------------------------------------------------- natural f-DP filter: counterexamples
def sg_remove_profile(q: float, mu: float, gamma: np.ndarray) -> np.ndarray:
    r"""``H(gamma) = D_gamma[(1-q)N(0,1) + q N(mu,1) || N(0,1)]`` in closed form.

    The remove-direction profile of one Poisson-subsampled Gaussian step
    (Tran-Koskela-Räisä-Honkela (2025), §1).

    ``1 - gamma`` for ``gamma <= 1 - q``; otherwise, with
    ``y* = (log((gamma - 1 + q)/q) + mu^2/2)/mu``,
    ``(1-q) Phi(-y*) + q Phi(mu - y*) - gamma Phi(-y*)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.accounting.filters import sg_remove_profile
    >>> round(float(sg_remove_profile(1.0, 1.0, np.array([np.e]))[0]), 7)   # = delta_1(1)
    0.1269367
    """
    g = np.asarray(gamma, dtype=np.float64)
    if mu == 0.0 or q == 0.0:
        return np.clip(1.0 - g, 0.0, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = (np.log((g - 1.0 + q) / q) + mu * mu / 2.0) / mu
        value = (1.0 - q) * ndtr(-y) + q * ndtr(mu - y) - g * ndtr(-y)
    return np.clip(np.where(g <= 1.0 - q, 1.0 - g, value), 0.0, 1.0)


def _grid(mu: float, points: int = 1201) -> tuple[np.ndarray, np.ndarray]:
    y = np.linspace(-9.0, mu + 9.0, points)
    w = np.full(points, y[1] - y[0])
    w[0] = w[-1] = w[0] / 2.0
    return y, w


def _sg_tensor(q: float, mu: float, later, gamma: np.ndarray) -> np.ndarray:
    """``(H_{SG,q,mu} (x) H_later)(gamma) = E_{y~P}[H_later(gamma q(y)/p(y))]`` by quadrature."""
    y, w = _grid(mu)
    phi0 = np.exp(-0.5 * y * y) / math.sqrt(2 * math.pi)
    phi1 = np.exp(-0.5 * (y - mu) ** 2) / math.sqrt(2 * math.pi)
    p = (1 - q) * phi0 + q * phi1
    ratio = phi0 / p
    g = np.asarray(gamma, dtype=np.float64)
    inner = later((g[:, None] * ratio[None, :]).ravel()).reshape(g.size, y.size)
    return inner @ (w * p)


def _sg_product(q: float, mu_a: float, mu_b: float):
    return lambda gamma: _sg_tensor(q, mu_a, lambda g: sg_remove_profile(q, mu_b, g), gamma)


def natural_filter_counterexample(gamma: float | None = None, *, corrected: bool = True) -> dict:
    r"""Example 3.3 of Tran-Koskela-Räisä-Honkela (2025): the natural f-DP filter is invalid.

    Three Poisson-subsampled Gaussian steps (``q = 0.5``, noise 1) on a single record;
    ``mu_1 = 1.3`` and ``(mu_2, mu_3)`` chosen from ``y_1``. With the **corrected** rule
    ``(0.1, 10)`` if ``y_1 <= 0.65`` else ``(2.25, 2.25)`` (the paper prints the rule
    reversed) the true adaptive profile, under full adaptivity, exceeds the tightest budget
    under which the natural filter never halts: at ``gamma_0 = 1.36333`` it is ``0.560630``
    against ``0.537365``. With ``corrected=False`` (the printed rule) there is no violation.

    Parameters
    ----------
    gamma : float, optional
        Where to evaluate; default the calibration point ``gamma_0`` (computed).
    corrected : bool, default True

    Returns
    -------
    dict
        ``gamma0``, ``gamma``, ``budget`` (``H_B,tight``), ``adaptive`` (true profile of the
        adaptive composition), ``worst_case`` (Thm B.1 bound ``H_1 (x) max(H_a, H_b)``)
        and ``violated`` (``adaptive > budget``).

    Examples
    --------
    >>> from ldp.accounting import natural_filter_counterexample
    >>> r = natural_filter_counterexample()
    >>> round(r["gamma0"], 4), round(r["budget"], 4), round(r["adaptive"], 4), r["violated"]
    (1.3633, 0.5374, 0.5606, True)
    """
    q, mu1 = 0.5, 1.3
    future_a = _sg_product(q, 2.25, 2.25)  # H_{2x3,1}
    future_b = _sg_product(q, 0.1, 10.0)  # H_{2x3,2}

    def gap(g: float) -> float:
        return float(future_a(np.array([g]))[0] - future_b(np.array([g]))[0])

    gamma0 = float(brentq(gap, 1.0, 2.0, xtol=1e-10))
    g = gamma0 if gamma is None else check_scalar(gamma, "gamma", low=0.0)
    arr = np.array([g])
    budget = max(
        float(_sg_tensor(q, mu1, future_a, arr)[0]), float(_sg_tensor(q, mu1, future_b, arr)[0])
    )
    worst = float(_sg_tensor(q, mu1, lambda x: np.maximum(future_a(x), future_b(x)), arr)[0])
    y, w = _grid(mu1)
    phi0 = np.exp(-0.5 * y * y) / math.sqrt(2 * math.pi)
    p = (1 - q) * phi0 + q * np.exp(-0.5 * (y - mu1) ** 2) / math.sqrt(2 * math.pi)
    probe = g * phi0 / p
    low = y <= mu1 / 2.0
    first, second = (future_b, future_a) if corrected else (future_a, future_b)
    values = np.where(low, first(probe), second(probe))
    adaptive = float(values @ (w * p))
    return {
        "gamma0": gamma0,
        "gamma": g,
        "budget": budget,
        "adaptive": adaptive,
        "worst_case": worst,
        "violated": adaptive > budget,
    }


def two_step_counterexample(epsilon: float = 3.5) -> dict:
    r"""A two-step counterexample to the natural f-DP filter (derived for this library).

    Step 1: Gaussian, ``mu = 1.5``. Step 2: ``SG(q=0.3, mu=10)`` if ``y_1 <= 1.6`` else
    Gaussian ``mu = 2``. Budget ``H_B = max(H_{G_2.5}, H_{G_1.5} (x) H_{SG,0.3,10})`` (the
    natural filter never halts), yet the adaptive composition has
    ``delta(3.5) = 0.387816 > 0.309160``.

    Examples
    --------
    >>> from ldp.accounting import two_step_counterexample
    >>> r = two_step_counterexample(3.5)
    >>> round(r["budget"], 5), round(r["adaptive"], 5), r["violated"]
    (0.30916, 0.38782, True)
    """
    eps = check_scalar(epsilon, "epsilon")
    gamma = math.exp(eps)
    mu1 = 1.5
    y = np.linspace(-10.0, mu1 + 10.0, 20001)
    w = np.full(y.size, y[1] - y[0])
    w[0] = w[-1] = w[0] / 2.0
    p1 = np.exp(-0.5 * (y - mu1) ** 2) / math.sqrt(2 * math.pi)
    probe = gamma * np.exp(-mu1 * y + mu1 * mu1 / 2.0)  # gamma q1 / p1
    gauss2 = np.asarray(GaussianTradeOff(2.0).delta(np.log(probe)))
    sg = sg_remove_profile(0.3, 10.0, probe)
    adaptive = float(np.where(y <= 1.6, sg, gauss2) @ (w * p1))
    budget = max(float(GaussianTradeOff(2.5).delta(eps)), float(sg @ (w * p1)))
    return {"epsilon": eps, "budget": budget, "adaptive": adaptive, "violated": adaptive > budget}


# --------------------------------------------------------------------------- Algorithm 2
class ApproxGDPFilter:
    r"""Algorithm 2 of Tran-Koskela-Räisä-Honkela (2025): an **approximate** GDP filter.

    For Poisson-subsampled Gaussians.

    Budget ``B`` bounds the realised sum of per-step charges ``getApprox(q, sigma, 1)``:
    ``q^2 (e^{1/sigma^2} - 1)/2`` (small-q regime, ``q <= q_bar < 0.2``) or
    ``q^2/(2 sigma^2)`` (large-q, ``q >= q_bar > 0.8``). The last step shrinks the clip norm so
    that its charge uses the rest exactly. The read-out ``mu_approx = sqrt(2 B)`` is an
    asymptotic approximation (Theorem 4.3 of the paper, unknown constants), **not a bound**: in the
    paper's showcase it is 1.5-3% below the exact epsilon.

    Parameters
    ----------
    budget : float
        ``B >= 0`` (``mu_approx = sqrt(2 B)``).
    regime : {"small_q", "large_q"}
    q_bar : float
        Regime limit: ``q_t <= q_bar < 0.2`` (small) or ``q_t >= q_bar > 0.8`` (large).
    sigma_bar : float, default 0
        Smallest allowed noise multiplier.

    Examples
    --------
    >>> from ldp.accounting import ApproxGDPFilter
    >>> flt = ApproxGDPFilter(0.05, "small_q", q_bar=0.01)
    >>> steps = 0
    >>> while True:
    ...     clip, last = flt.step(0.01, 1.0)
    ...     steps += 1
    ...     if last:
    ...         break
    >>> steps, round(clip, 4), round(flt.mu_approx, 6)
    (582, 0.9926, 0.316228)
    """

    def __init__(
        self, budget: float, regime: str = "small_q", *, q_bar: float, sigma_bar: float = 0.0
    ) -> None:
        self.budget = check_scalar(budget, "budget", low=0.0)
        if regime not in ("small_q", "large_q"):
            raise ValueError(f"regime must be 'small_q' or 'large_q', got {regime!r}")
        self.regime = regime
        self.q_bar = check_scalar(q_bar, "q_bar", low=0.0, high=1.0, low_open=True)
        if regime == "small_q" and self.q_bar >= 0.2:
            raise ValueError(f"small_q regime needs q_bar < 0.2, got {self.q_bar!r}")
        if regime == "large_q" and self.q_bar <= 0.8:
            raise ValueError(f"large_q regime needs q_bar > 0.8, got {self.q_bar!r}")
        self.sigma_bar = check_scalar(sigma_bar, "sigma_bar", low=0.0)
        self.remaining = self.budget
        self.halted = False
        self.mu_steps: list[float] = []

    def charge(self, q: float, sigma: float, clip: float = 1.0) -> float:
        """``getApprox``: the approximate charge of one step with relative clip ``clip``."""
        if self.regime == "small_q":
            return 0.5 * q * q * math.expm1(clip * clip / (sigma * sigma))
        return 0.5 * q * q * clip * clip / (sigma * sigma)

    def _inverse(self, q: float, sigma: float, budget: float) -> float:
        if self.regime == "small_q":
            return sigma * math.sqrt(math.log1p(2.0 * budget / (q * q)))
        return sigma * math.sqrt(2.0 * budget) / q

    def step(self, q: float, sigma: float) -> tuple[float, bool]:
        """Register one step; return ``(clip_ratio, is_last)``.

        The caller clips per-example vectors to ``clip_ratio * C_t``, adds noise of standard
        deviation ``sigma * C_t`` and releases; if ``is_last`` it then stops.
        """
        if self.halted:
            raise FilterHaltedError("the approximate GDP filter has used its budget")
        q = check_scalar(q, "q", low=0.0, high=1.0, low_open=True)
        sigma = check_scalar(sigma, "sigma", low=0.0, low_open=True)
        if sigma < self.sigma_bar:
            raise ValueError(f"sigma must be >= sigma_bar={self.sigma_bar!r}, got {sigma!r}")
        if self.regime == "small_q" and q > self.q_bar:
            raise ValueError(f"q must be <= q_bar={self.q_bar!r} in the small_q regime, got {q!r}")
        if self.regime == "large_q" and q < self.q_bar:
            raise ValueError(f"q must be >= q_bar={self.q_bar!r} in the large_q regime, got {q!r}")
        ratio = min(1.0, self._inverse(q, sigma, self.remaining))
        # a charge within rounding of the rest uses it up (the budget is reached exactly)
        last = ratio < 1.0 or self.charge(q, sigma) >= self.remaining - 1e-12 * self.budget
        spent = self.charge(q, sigma, ratio)
        self.remaining = max(0.0, self.remaining - spent)
        if self.regime == "small_q":
            self.mu_steps.append(q * math.sqrt(math.expm1(ratio * ratio / (sigma * sigma))))
        else:
            self.mu_steps.append(q * ratio / sigma)
        self.halted = last
        return ratio, last

    @property
    def mu_approx(self) -> float:
        """``sqrt(2 B)``: the approximate GDP level of the whole run (not a bound)."""
        return math.sqrt(2.0 * self.budget)

    def epsilon_approx(self, delta: float) -> float:
        """Epsilon of ``G_{mu_approx}`` at ``delta``: an approximation, not a bound."""
        return float(GaussianTradeOff(self.mu_approx).epsilon_for_delta(delta))

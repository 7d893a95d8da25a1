r"""The fully adaptive f-DP CLT and individual approximate GDP accounting.

After Tran-Koskela-Räisä-Honkela (2025), §4.

* :func:`adaptive_clt_params`: the parameters of their Theorem 4.2, a central limit theorem
  for fully adaptive compositions: if almost surely the summed conditional means of the
  privacy losses are within ``eta_1``/``eta_2`` of ``m_1``/``-m_2``, the summed conditional
  variances within ``kappa`` of ``v`` and each conditional third absolute central moment is
  at most ``rho`` times the conditional variance (``4 rho^2 <= v``, ``4 kappa <= v``), then
  ``G_{mu+phi}(a + D) - D <= T[P, Q](a) <= G_{mu-phi}(a - D) + D`` with
  ``mu = (m_1 + m_2)/sqrt(v)``, ``phi = (eta_1 + eta_2)/sqrt(v)`` and
  ``D = C ((rho/sqrt(v)) |log(rho/sqrt(v))| + sqrt(kappa/v))`` for a universal constant
  ``C`` (from a martingale Berry-Esseen bound) that the paper does not give. Only
  ``D / C`` is computable; the guarantee is therefore **approximate**. (The paper's proof
  normalises by ``sqrt(kappa)`` where ``sqrt(v)`` is meant, uses ``eta_1`` for ``eta_2`` in
  one inequality and ends with ``G_{mu+phi}`` for the upper bound where ``G_{mu-phi}`` is
  meant; the statement above is the corrected one.)
* :func:`approx_gdp_charge` and :func:`approx_gdp_clip`: ``getApprox`` and ``invBudg`` of
  their Algorithms 2 and 3, the approximate per-step charge of a Poisson-subsampled
  Gaussian step (Theorem 4.1) and the clip norm that uses a given budget exactly.
* :class:`IndividualApproxGDPAccountant`: Algorithm 3 (individual accounting, Theorem 4.4):
  every record has its own budget, is charged by its **actual** clipped norm at every step
  (sampled or not), and stops contributing once its budget is used. Approximate, like
  Algorithm 2.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import check_scalar

__all__ = [
    "AdaptiveCLTParams",
    "IndividualApproxGDPAccountant",
    "adaptive_clt_params",
    "approx_gdp_charge",
    "approx_gdp_clip",
]

_REGIMES = ("small_q", "large_q")


class AdaptiveCLTParams(NamedTuple):
    """The parameters of Theorem 4.2: ``mu``, ``phi`` and ``D / C``.

    Parameters
    ----------
    mu : float
        ``(m_1 + m_2)/sqrt(v)``.
    phi : float
        ``(eta_1 + eta_2)/sqrt(v)``.
    delta_over_c : float
        ``(rho/sqrt(v)) |log(rho/sqrt(v))| + sqrt(kappa/v)``.

    Examples
    --------
    >>> from ldp.accounting.central import adaptive_clt_params
    >>> adaptive_clt_params(0.5, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0).mu
    1.0
    """

    mu: float
    phi: float
    delta_over_c: float


def adaptive_clt_params(
    m1: float,
    m2: float,
    eta1: float,
    eta2: float,
    v: float,
    kappa: float,
    rho: float,
) -> AdaptiveCLTParams:
    r"""Theorem 4.2 of Tran-Koskela-Räisä-Honkela (2025): fully adaptive CLT parameters.

    Parameters
    ----------
    m1, m2 : float
        Target sums of conditional means: ``sum E_P[L_t | past] ~ m1``,
        ``sum E_Q[L_t | past] ~ -m2``.
    eta1, eta2 : float
        Almost-sure deviations from ``m1``, ``m2`` (``>= 0``).
    v : float
        Target sum of conditional variances (``> 0``), under both ``P`` and ``Q``.
    kappa : float
        Almost-sure deviation from ``v`` (``>= 0``, ``4 kappa <= v``).
    rho : float
        Bound on conditional third absolute central moment over conditional variance
        (``>= 0``, ``4 rho^2 <= v``).

    Returns
    -------
    AdaptiveCLTParams
        ``(mu, phi, delta_over_c)``: the composition is approximately
        ``G_mu``, within ``phi`` in ``mu`` and ``C * delta_over_c`` in Delta-divergence.

    Examples
    --------
    >>> from ldp.accounting.central import adaptive_clt_params
    >>> b = 0.0493771                     # Theorem 4.3: m1 = m2 = B, v = 2B
    >>> round(adaptive_clt_params(b, b, 0, 0, 2 * b, 0, 0).mu, 6)
    0.314252
    """
    m1 = check_scalar(m1, "m1")
    m2 = check_scalar(m2, "m2")
    eta1 = check_scalar(eta1, "eta1", low=0.0)
    eta2 = check_scalar(eta2, "eta2", low=0.0)
    v = check_scalar(v, "v", low=0.0, low_open=True)
    kappa = check_scalar(kappa, "kappa", low=0.0)
    rho = check_scalar(rho, "rho", low=0.0)
    if 4.0 * rho * rho > v:
        raise ValueError(f"rho must satisfy 4 rho^2 <= v, got rho={rho!r}, v={v!r}")
    if 4.0 * kappa > v:
        raise ValueError(f"kappa must satisfy 4 kappa <= v, got kappa={kappa!r}, v={v!r}")
    root = math.sqrt(v)
    r = rho / root
    lead = 0.0 if r == 0.0 else r * abs(math.log(r))
    return AdaptiveCLTParams((m1 + m2) / root, (eta1 + eta2) / root, lead + math.sqrt(kappa / v))


def _regime(regime: object) -> str:
    if regime not in _REGIMES:
        raise ValueError(f"regime must be 'small_q' or 'large_q', got {regime!r}")
    return str(regime)


def approx_gdp_charge(
    regime: str, sample_rate: ArrayLike, sigma: ArrayLike, norm: ArrayLike = 1.0
) -> float | np.ndarray:
    r"""``getApprox``: the approximate charge of one Poisson-subsampled Gaussian step.

    ``q^2 (exp(norm^2/sigma^2) - 1)/2`` (``"small_q"``) or ``q^2 norm^2/(2 sigma^2)``
    (``"large_q"``): the approximate mean of the privacy loss of a record of norm ``norm``
    under noise of standard deviation ``sigma`` (Tran-Koskela-Räisä-Honkela (2025), Theorem
    4.1, Algorithms 2 and 3; the proof of their Theorem 4.3 writes ``norm`` where its square
    is meant). An approximation.

    Parameters
    ----------
    regime : {"small_q", "large_q"}
    sample_rate : float or array_like
        ``q`` in ``(0, 1]``.
    sigma : float or array_like
        Absolute noise standard deviation ``> 0``.
    norm : float or array_like, default 1
        Clipped norm ``>= 0``.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> from ldp.accounting.central import approx_gdp_charge
    >>> f"{approx_gdp_charge('small_q', 0.01, 1.0):.6e}"
    '8.591409e-05'
    """
    reg = _regime(regime)
    q = np.asarray(sample_rate, dtype=np.float64)
    s = np.asarray(sigma, dtype=np.float64)
    n = np.asarray(norm, dtype=np.float64)
    if not (np.all(np.isfinite(q)) and np.all(q > 0) and np.all(q <= 1)):
        raise ValueError("sample_rate must be in (0, 1]")
    if not (np.all(np.isfinite(s)) and np.all(s > 0)):
        raise ValueError("sigma must be finite and > 0")
    if not (np.all(np.isfinite(n)) and np.all(n >= 0)):
        raise ValueError("norm must be finite and >= 0")
    x = (n / s) ** 2
    with np.errstate(over="ignore"):
        value = 0.5 * q * q * (np.expm1(x) if reg == "small_q" else x)
    return float(value) if value.ndim == 0 else value


def approx_gdp_clip(
    regime: str, sample_rate: float, sigma: float, budget: ArrayLike
) -> float | np.ndarray:
    r"""``invBudg``: the clip norm whose charge (:func:`approx_gdp_charge`) is ``budget``.

    ``sigma sqrt(log(1 + 2 B/q^2))`` (``"small_q"``) or ``sigma sqrt(2 B)/q``
    (``"large_q"``) (Tran-Koskela-Räisä-Honkela (2025), Algorithms 2 and 3).

    Parameters
    ----------
    regime : {"small_q", "large_q"}
    sample_rate : float
        ``q`` in ``(0, 1]``.
    sigma : float
        Absolute noise standard deviation ``> 0``.
    budget : float or array_like
        ``B >= 0``.

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> from ldp.accounting.central import approx_gdp_clip
    >>> round(approx_gdp_clip("large_q", 1.0, 2.0, 0.125), 12)
    1.0
    """
    reg = _regime(regime)
    q = check_scalar(sample_rate, "sample_rate", low=0.0, high=1.0, low_open=True)
    s = check_scalar(sigma, "sigma", low=0.0, low_open=True)
    b = np.asarray(budget, dtype=np.float64)
    if not (np.all(np.isfinite(b)) and np.all(b >= 0)):
        raise ValueError("budget must be finite and >= 0")
    if reg == "small_q":
        value = s * np.sqrt(np.log1p(2.0 * b / (q * q)))
    else:
        value = s * np.sqrt(2.0 * b) / q
    return float(value) if value.ndim == 0 else value


class IndividualApproxGDPAccountant:
    r"""Algorithm 3 of Tran-Koskela-Räisä-Honkela (2025): individual approximate GDP budgets.

    Each step: :meth:`clip_bounds` gives every record ``j`` its clip norm
    ``min(C_t, invBudg(q_t, sigma_t C_t, B_{t,j}))``; the caller clips **every** record's
    vector to it (before subsampling), samples the records at rate ``q_t``, releases the sum
    over the **sample** plus ``N(0, sigma_t^2 C_t^2 I)`` (the paper prints the sum over the
    whole dataset; the sample is meant) and passes the clipped norms of all records to
    :meth:`charge`, which subtracts ``getApprox(q_t, sigma_t C_t, norm_j)`` from each budget.
    A record whose budget is used gets clip norm 0 and stops contributing; the run goes on
    for the others. With a common budget ``B`` each record's output is approximately
    ``sqrt(2 B)``-GDP (their Theorem 4.4, asymptotic with unknown constants: an
    **approximation**, not a bound).

    Parameters
    ----------
    budgets : array_like
        ``B_j >= 0``, one per record.
    regime : {"small_q", "large_q"}, default "small_q"

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.accounting.central import IndividualApproxGDPAccountant
    >>> acc = IndividualApproxGDPAccountant([0.05, 0.05], "small_q")
    >>> steps = 0
    >>> while acc.active.any():
    ...     bounds = acc.clip_bounds(0.01, 1.0, 1.0)
    ...     _ = acc.charge(np.minimum(bounds, [1.0, 0.5]))   # record 1: vectors of norm 0.5
    ...     steps += 1
    >>> steps, [round(float(b), 4) for b in bounds]
    (3521, [0.0, 0.4555])
    """

    def __init__(self, budgets: ArrayLike, regime: str = "small_q") -> None:
        b = np.asarray(budgets, dtype=np.float64) if not isinstance(budgets, str) else None
        if b is None or b.ndim != 1 or b.size == 0:
            raise ValueError("budgets must be a non-empty 1-d array of numbers")
        if not (np.all(np.isfinite(b)) and np.all(b >= 0)):
            raise ValueError("budgets must be finite and >= 0")
        self.regime = _regime(regime)
        self.budgets = b.copy()
        self.budgets.setflags(write=False)
        self._remaining = b.copy()
        self._pending: tuple[float, float, np.ndarray] | None = None
        self.steps = 0

    @property
    def remaining(self) -> np.ndarray:
        """``B_{t,j}``: what is left of each record's budget."""
        return self._remaining.copy()

    @property
    def active(self) -> np.ndarray:
        """Records with budget left (they still contribute)."""
        return self._remaining > 0.0

    def mu_approx(self) -> np.ndarray:
        """``sqrt(2 B_j)``: each record's approximate GDP level (not a bound)."""
        return np.sqrt(2.0 * self.budgets)

    def clip_bounds(self, sample_rate: float, sigma: float, clip: float) -> np.ndarray:
        """Per-record clip norms ``min(C_t, C_{B,t,j})`` of the next step (``0`` once spent).

        ``sigma`` is the noise multiplier: the noise standard deviation is ``sigma * clip``.
        """
        if self._pending is not None:
            raise RuntimeError("charge() the previous step before asking for new clip bounds")
        q = check_scalar(sample_rate, "sample_rate", low=0.0, high=1.0, low_open=True)
        s = check_scalar(sigma, "sigma", low=0.0, low_open=True)
        c = check_scalar(clip, "clip", low=0.0, low_open=True)
        bounds = np.minimum(c, approx_gdp_clip(self.regime, q, s * c, self._remaining))
        bounds = np.where(self._remaining > 0.0, bounds, 0.0)
        self._pending = (q, s * c, bounds)
        return bounds.copy()

    def charge(self, norms: ArrayLike) -> np.ndarray:
        """Charge every record by its clipped norm of the step; returns the remaining budgets."""
        if self._pending is None:
            raise RuntimeError("call clip_bounds() before charge()")
        q, noise, bounds = self._pending
        n = np.asarray(norms, dtype=np.float64)
        if n.shape != self._remaining.shape:
            raise ValueError(
                f"norms must have one value per record ({self._remaining.size}), got {n.size}"
            )
        if not (np.all(np.isfinite(n)) and np.all(n >= 0)):
            raise ValueError("norms must be finite and >= 0")
        if np.any(n > bounds * (1.0 + 1e-12)):
            raise ValueError("norms must not exceed the clip bounds issued for this step")
        cost = approx_gdp_charge(self.regime, q, noise, np.minimum(n, bounds))
        left = self._remaining - cost
        # a record clipped to exactly its budget has used it (up to rounding)
        left[left <= 1e-12 * self.budgets] = 0.0
        self._remaining = np.maximum(left, 0.0)
        self._pending = None
        self.steps += 1
        return self._remaining.copy()

    def __repr__(self) -> str:
        return (
            f"IndividualApproxGDPAccountant({self.budgets.size} records, {self.regime}; "
            f"{self.steps} steps, {int(self.active.sum())} active)"
        )

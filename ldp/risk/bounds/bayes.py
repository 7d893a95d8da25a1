r"""Private Bayes-risk lower bounds (Asoodeh-Aliakbarpour-Calmon (2021), Section V):
Corollary 3 and Theorem 2.

With a prior on :math:`\Theta`, the small-ball function
:math:`\mathcal L(\zeta) = \sup_t \Pr(\ell(\Theta, t) \le \zeta)` and ``n`` users each behind
an :math:`(\varepsilon,\delta)`-LDP channel (non-interactive):

* **Corollary 3** (the bound of Xu-Raginsky (2015), made private):
  :math:`R \ge \sup_\zeta \zeta[1 - (\varphi_n I(\Theta;X^n) + \log 2)
  /\log(1/\mathcal L(\zeta))]_+`;
* **Theorem 2** (:math:`E_\gamma`-information): :math:`R \ge \sup_\zeta
  \zeta[1 - c_0 - e^\varepsilon \mathcal L(\zeta)]_+` with :math:`c_0 = \delta\,
  I_{e^\varepsilon}(\Theta;X)` for ``n = 1`` and
  :math:`c_0 = \varphi_n I_{e^\varepsilon}(\Theta;X^n)` for ``n > 1``,
  where :math:`I_\gamma(A;B) = E_\gamma(P_{AB}\|P_AP_B)`;
* **Remark 1, eq. (17)** (non-private, ``epsilon = inf``): :math:`\sup_{\zeta,\gamma \ge 0}
  \zeta[1 - I_\gamma - \gamma\mathcal L(\zeta) - (1-\gamma)_+]`.

The Beta-Bernoulli example (Example 4, Fig. 1) has closed forms:
:math:`I_\gamma(\Theta;X^n) = (n+1)^{-1}\sum_s E_\gamma(\mathrm{Beta}(s+1,n-s+1)\|\mathrm{U}[0,1])`,
the Theorem 2 bound is :math:`c^2/(8e^\varepsilon)` with :math:`c = (1-c_0)_+`, and the
Corollary 3 supremum is attained at :math:`\log(1/(2\zeta)) = (A + \sqrt{A^2 + 4A})/2`,
:math:`A = \varphi_n I + \log 2` (derived here; it agrees with a direct maximisation over a
fine grid of :math:`\zeta`, see ``tests/risk/test_risk.py``).

Corrections to the paper: Remark 1 prints the values 0.03 and 0.08 for the suprema of (15)
and (17); the exact suprema are 0.045659 and 2/27 = 0.074074 (so 0.08 overstates the bound;
checked in ``tests/risk/test_risk.py``). The Theorem 2 bound is not monotone in epsilon, and
``envelope=True`` reports the valid monotone envelope :math:`\sup_{\varepsilon'\ge\varepsilon}`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats
from scipy.optimize import brentq
from scipy.special import betainc, betaln

from ldp._validation import as_real_array, check_pmf, check_scalar, describe
from ldp.contraction import phi
from ldp.divergences import hockey_stick
from ldp.references import cite
from ldp.risk._common import (
    BAYES,
    Bound,
    check_n,
    check_nonnegative,
    maximize,
    resolve_privacy,
    scaled,
)

__all__ = [
    "bayes",
    "beta_bernoulli_bayes",
    "beta_bernoulli_e_gamma_information",
    "beta_bernoulli_mutual_information",
    "e_gamma_information",
]

_METHODS = ("best", "theorem2", "corollary3")


def e_gamma_information(joint: ArrayLike, gamma: ArrayLike) -> float | np.ndarray:
    r""":math:`I_\gamma(A;B) = E_\gamma(P_{AB}\,\|\,P_A \otimes P_B)` of a finite joint pmf.

    Parameters
    ----------
    joint : array_like, shape (n_a, n_b)
        The joint pmf (rows index ``A``).
    gamma : float or array_like
        ``gamma >= 0``.

    Returns
    -------
    float or ndarray
        Same shape as ``gamma``; ``I_1`` is the TV information, ``I_0 = 0``.

    Examples
    --------
    Remark 1's single Bernoulli observation, discretised: ``I_2 = 0`` and ``I_1 = 1/4``
    for ``Theta`` uniform on ``{0, 1}`` observed exactly:

    >>> from ldp.risk import e_gamma_information
    >>> e_gamma_information([[0.5, 0.0], [0.0, 0.5]], [1.0, 2.0])
    array([0.5, 0. ])
    """
    table = as_real_array(joint, "joint")
    arr = check_pmf(table.ravel(), "joint")
    if table.ndim != 2:
        raise ValueError(f"joint must be a 2-D pmf (rows A, columns B), got shape {table.shape}")
    table = arr.reshape(table.shape)
    product = np.outer(table.sum(axis=1), table.sum(axis=0)).ravel()
    return hockey_stick(table.ravel(), product, gamma)


def _small_ball_values(small_ball: Callable, zetas: np.ndarray) -> np.ndarray:
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(small_ball(zetas), dtype=np.float64)
        if out.shape != zetas.shape:
            raise ValueError
    except (TypeError, ValueError):
        out = np.array([float(small_ball(float(z))) for z in zetas])
    if np.any(np.isnan(out)) or np.any(out < -1e-12) or np.any(out > 1 + 1e-12):
        raise ValueError("small_ball must return probabilities in [0, 1]")
    return np.clip(out, 0.0, 1.0)


def _default_zeta_max(small_ball: Callable) -> float:
    for j in range(-40, 61):
        z = 2.0**j
        if _small_ball_values(small_ball, np.array([z]))[0] >= 1.0:
            return z
    raise ValueError("small_ball never reaches 1; pass zeta_max (the search range of zeta)")


def _zeta_grid(zeta_max: float) -> np.ndarray:
    return zeta_max * np.concatenate([np.geomspace(1e-12, 1.0, 2000), np.linspace(0, 1, 2001)[1:]])


def _theorem2_objective(small_ball: Callable, c0: float, gamma: float) -> Callable:
    def objective(z: np.ndarray) -> np.ndarray:
        ball = _small_ball_values(small_ball, z)
        penalty = np.where(ball > 0, gamma * ball, 0.0)
        return z * np.maximum(0.0, 1.0 - c0 - penalty)

    return objective


def _cor3_objective(small_ball: Callable, info: float) -> Callable:
    def objective(z: np.ndarray) -> np.ndarray:
        ball = _small_ball_values(small_ball, z)
        with np.errstate(divide="ignore"):
            log_inv = -np.log(ball)
        bracket = np.where(log_inv > 0, 1.0 - (info + math.log(2.0)) / log_inv, 0.0)
        return z * np.maximum(0.0, bracket)

    return objective


def bayes(
    *,
    small_ball: Callable[[float], float],
    n: int,
    epsilon: float | None = None,
    delta: float = 0.0,
    mutual_information: float | None = None,
    e_gamma_information: float | Callable[[float], float] | None = None,
    zeta_max: float | None = None,
    method: str = "best",
) -> Bound:
    r"""Private Bayes-risk lower bound: Corollary 3 and/or Theorem 2 of
    Asoodeh-Aliakbarpour-Calmon (2021).

    Parameters
    ----------
    small_ball : callable
        :math:`\zeta \mapsto \mathcal L(\zeta)`, non-decreasing, in ``[0, 1]`` (vectorised or
        scalar).
    n : int
        Number of users.
    epsilon, delta : float
        The LDP budget; ``epsilon=inf`` gives the non-private bounds (15) and (17).
    mutual_information : float, optional
        :math:`I(\Theta;X^n)` in nats (for Corollary 3).
    e_gamma_information : float or callable, optional
        :math:`I_{e^\varepsilon}(\Theta;X^n)` (for Theorem 2), or the function
        :math:`\gamma \mapsto I_\gamma(\Theta;X^n)`; a function is needed for the non-private
        eq. (17), which optimises over :math:`\gamma`.
    zeta_max : float, optional
        Search ``zeta`` in ``(0, zeta_max]``; by default the first power of two where
        :math:`\mathcal L = 1` (beyond it both bounds vanish).
    method : {"best", "theorem2", "corollary3"}
        ``"best"`` reports the larger of the bounds whose information is given.

    Returns
    -------
    Bound
        ``params`` with ``zeta`` (the optimiser), ``c0`` or ``information``, ``factor``
        and, for eq. (17), ``gamma``.

    Examples
    --------
    Remark 1 (``n = 1``, no privacy, uniform prior, absolute loss): eq. (15) gives 0.045659.

    >>> import math
    >>> from ldp.risk import bayes
    >>> b = bayes(small_ball=lambda z: min(2 * z, 1.0), n=1, epsilon=math.inf,
    ...           mutual_information=math.log(2) - 0.5, method="corollary3")
    >>> round(b.value, 6)
    0.045659
    """
    n = check_n(n)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if not callable(small_ball):
        raise TypeError(f"small_ball must be callable, got {small_ball!r}")
    priv = resolve_privacy(epsilon, delta, None)
    if zeta_max is None:
        zmax = _default_zeta_max(small_ball)
    else:
        zmax = check_scalar(zeta_max, "zeta_max", low=0.0, low_open=True)
    grid = _zeta_grid(zmax)
    factor_n = priv.factor(n)
    results: list[Bound] = []

    want_t2 = method in ("best", "theorem2")
    want_c3 = method in ("best", "corollary3")
    if want_t2 and e_gamma_information is None and method == "theorem2":
        raise TypeError("method='theorem2' needs e_gamma_information")
    if want_c3 and mutual_information is None and method == "corollary3":
        raise TypeError("method='corollary3' needs mutual_information")
    if e_gamma_information is None and mutual_information is None:
        raise TypeError("pass mutual_information and/or e_gamma_information")

    if want_c3 and mutual_information is not None:
        info = check_nonnegative(mutual_information, "mutual_information")
        contracted = scaled(factor_n, info)
        zeta, value = maximize(_cor3_objective(small_ball, contracted), grid)
        name = f"private Xu-Raginsky ({cite('asoodeh2021', 'Corollary 3')})"
        if not priv.private:
            name = f"Xu-Raginsky ({cite('asoodeh2021', 'eq. (15)')})"
        results.append(
            Bound(
                max(0.0, value),
                name,
                BAYES,
                {"zeta": zeta, "information": contracted, "factor": factor_n},
            )
        )

    if want_t2 and e_gamma_information is not None:
        if not priv.private and callable(e_gamma_information):
            results.append(_remark1_eq17(small_ball, e_gamma_information, grid))
        else:
            gamma = math.inf if math.isinf(priv.epsilon) else math.exp(priv.epsilon)
            if callable(e_gamma_information):
                i_gamma = check_nonnegative(e_gamma_information(gamma), "e_gamma_information")
            else:
                i_gamma = check_nonnegative(e_gamma_information, "e_gamma_information")
            coefficient = priv.delta if n == 1 else factor_n
            c0 = scaled(coefficient, i_gamma)
            zeta, value = maximize(_theorem2_objective(small_ball, c0, gamma), grid)
            results.append(
                Bound(
                    max(0.0, value),
                    f"E_gamma-information bound ({cite('asoodeh2021', 'Theorem 2')})",
                    BAYES,
                    {"zeta": zeta, "c0": c0, "gamma": gamma, "factor": coefficient},
                )
            )
    return max(results, key=lambda b: b.value)


def _remark1_eq17(small_ball: Callable, i_gamma_of: Callable, grid: np.ndarray) -> Bound:
    def inner(gamma: float) -> tuple[float, float]:
        i_g = check_nonnegative(i_gamma_of(float(gamma)), "e_gamma_information(gamma)")
        c0 = i_g + max(0.0, 1.0 - gamma)
        return maximize(_theorem2_objective(small_ball, c0, gamma), grid)

    gammas = np.concatenate([np.linspace(0.0, 1.0, 41), np.geomspace(1.0, 1e3, 200)])
    gamma, _ = maximize(lambda g: np.array([inner(x)[1] for x in g]), gammas)
    zeta, value = inner(gamma)
    return Bound(
        max(0.0, value),
        f"non-private E_gamma-information bound ({cite('asoodeh2021', 'Remark 1')}, eq. (17))",
        BAYES,
        {"zeta": zeta, "gamma": gamma},
    )


# ------------------------------------------------------------------ Beta-Bernoulli example
def _beta_e_gamma(a: float, b: float, gamma: float) -> float:
    """``E_gamma(Beta(a, b) || Uniform[0, 1])`` for ``a, b >= 1``.

    The density is log-concave, so ``{pdf > gamma}`` is an interval ``[lo, hi]`` around the
    mode; its ends are found in log space and the mass comes from the regularised incomplete
    beta function.
    """
    if gamma == 0.0 or math.isinf(gamma):
        return 0.0
    log_norm = float(betaln(a, b))
    log_gamma = math.log(gamma)

    def log_excess(x: float) -> float:
        with np.errstate(divide="ignore"):
            left = (a - 1.0) * math.log(x) if a > 1 else 0.0
            right = (b - 1.0) * math.log1p(-x) if b > 1 else 0.0
        return left + right - log_norm - log_gamma

    mode = (a - 1.0) / (a + b - 2.0) if a + b > 2 else 0.5
    if log_excess(mode) <= 0:
        positive = 0.0
    else:
        left_end, right_end = 1e-300, 1.0 - 1e-16
        lo = (
            0.0
            if mode == 0.0 or log_excess(left_end) >= 0
            else brentq(log_excess, left_end, mode, xtol=1e-15, rtol=1e-15)
        )
        hi = (
            1.0
            if mode == 1.0 or log_excess(right_end) >= 0
            else brentq(log_excess, mode, right_end, xtol=1e-15, rtol=1e-15)
        )
        mass = float(betainc(a, b, hi) - betainc(a, b, lo))
        positive = mass - gamma * (hi - lo)
    return max(0.0, positive - max(0.0, 1.0 - gamma))


def beta_bernoulli_e_gamma_information(n: int, gamma: ArrayLike) -> float | np.ndarray:
    r""":math:`I_\gamma(\Theta;X^n)` for :math:`\Theta \sim U[0,1]`, :math:`X_i \sim
    \mathrm{Bern}(\Theta)` (Asoodeh-Aliakbarpour-Calmon (2021), Example 4, eq. (16)).

    .. math:: I_\gamma = \frac{1}{n+1}\sum_{s=0}^n
              E_\gamma\bigl(\mathrm{Beta}(s+1, n-s+1)\,\|\,U[0,1]\bigr)

    Parameters
    ----------
    n : int
        Number of observations.
    gamma : float or array_like
        Levels ``>= 0`` (``inf`` allowed).

    Returns
    -------
    float or ndarray
        The :math:`E_\gamma`-information, in ``[0, 1]``, shaped like ``gamma``.

    Examples
    --------
    Remark 1's eq. (18) at ``n = 1``: ``I_gamma = (gamma - 2)^2 / 4`` on ``[1, 2]``.

    >>> from ldp.risk import beta_bernoulli_e_gamma_information
    >>> round(beta_bernoulli_e_gamma_information(1, 1.5), 12)
    0.0625
    """
    n = check_n(n)
    g = np.asarray(gamma, dtype=np.float64) if not isinstance(gamma, (int, float)) else None
    if g is None:
        gam = check_scalar(gamma, "gamma", low=0.0, allow_inf=True)
        return _beta_bernoulli_i_gamma(n, gam)
    if np.any(np.isnan(g)) or np.any(g < 0):
        raise ValueError(f"gamma must be >= 0, got {describe(gamma)}")
    if g.ndim == 0:
        return _beta_bernoulli_i_gamma(n, float(g))
    return np.vectorize(lambda x: _beta_bernoulli_i_gamma(n, float(x)), otypes=[float])(g)


def _beta_bernoulli_i_gamma(n: int, gamma: float) -> float:
    total = sum(_beta_e_gamma(s + 1.0, n - s + 1.0, gamma) for s in range(n + 1))
    return float(min(1.0, max(0.0, total / (n + 1))))


def beta_bernoulli_mutual_information(n: int) -> float:
    r""":math:`I(\Theta;X^n)` in nats for the Beta-Bernoulli model (Example 4 of
    Asoodeh-Aliakbarpour-Calmon (2021)).

    :math:`I = -(n+1)^{-1}\sum_s h(\mathrm{Beta}(s+1, n-s+1))` with ``h`` the differential
    entropy.

    Parameters
    ----------
    n : int
        Number of observations.

    Returns
    -------
    float
        The mutual information in nats.

    Examples
    --------
    >>> import math
    >>> from ldp.risk import beta_bernoulli_mutual_information
    >>> math.isclose(beta_bernoulli_mutual_information(1), math.log(2) - 0.5)
    True
    """
    n = check_n(n)
    s = np.arange(n + 1)
    h = stats.beta(s + 1.0, n - s + 1.0).entropy()
    return float(max(0.0, -np.mean(h)))


def beta_bernoulli_bayes(
    n: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    method: str = "theorem2",
    envelope: bool = False,
) -> Bound:
    r"""Private Bayes risk of the Beta-Bernoulli model under absolute loss (Example 4, Fig. 1).

    :math:`\Theta \sim U[0,1]`, :math:`X_i \sim \mathrm{Bern}(\Theta)`,
    :math:`\ell = |\theta - \hat\theta|`, :math:`\mathcal L(\zeta) = \min\{2\zeta, 1\}`.

    Parameters
    ----------
    n : int
        Number of users.
    epsilon, delta : float
        The LDP budget.
    method : {"theorem2", "corollary3"}
        Theorem 2: :math:`c^2/(8e^\varepsilon)` with :math:`c = (1 - c_0)_+`. Corollary 3: the
        closed-form supremum of the private Xu-Raginsky bound.
    envelope : bool
        Report :math:`\sup_{\varepsilon' \ge \varepsilon} \mathrm{LB}(\varepsilon')` (valid
        because an :math:`(\varepsilon,\delta)`-LDP channel is also
        :math:`(\varepsilon',\delta)`-LDP). Theorem 2 is not monotone in epsilon (with
        ``n = 20`` and ``delta = 1e-4`` its value at ``eps = 0.2`` is below its value at
        ``eps = 1``).

    Returns
    -------
    Bound
        ``rate`` holds the closed form; ``params`` the optimal ``zeta``, ``c0`` or
        ``information``.

    Examples
    --------
    Fig. 1 setting (``n = 20``, ``delta = 1e-4``) at ``eps = 1``:

    >>> from ldp.risk import beta_bernoulli_bayes
    >>> round(beta_bernoulli_bayes(20, 1.0, 1e-4).value, 6)
    0.025817
    >>> round(beta_bernoulli_bayes(20, 1.0, 1e-4, method="corollary3").value, 6)
    0.010866
    """
    n = check_n(n)
    priv = resolve_privacy(epsilon, delta, None)
    if method not in ("theorem2", "corollary3"):
        raise ValueError(f"method must be 'theorem2' or 'corollary3', got {method!r}")
    if envelope:
        return _beta_bernoulli_envelope(n, priv.epsilon, priv.delta, method)
    if method == "theorem2":
        return _bb_theorem2(n, priv.epsilon, priv.delta)
    return _bb_corollary3(n, priv.epsilon, priv.delta)


def _bb_theorem2(n: int, eps: float, delta: float) -> Bound:
    gamma = math.inf if math.isinf(eps) else math.exp(eps)
    i_gamma = _beta_bernoulli_i_gamma(n, gamma)
    coefficient = delta if n == 1 else phi(eps, delta, n)
    c0 = scaled(coefficient, i_gamma)
    c = max(0.0, 1.0 - c0)
    value = 0.0 if math.isinf(gamma) else c * c / (8.0 * gamma)
    zeta = 0.0 if math.isinf(gamma) else c / (4.0 * gamma)
    return Bound(
        value,
        f"E_gamma-information bound ({cite('asoodeh2021', 'Theorem 2')}), Beta-Bernoulli",
        BAYES,
        {"zeta": zeta, "c0": c0, "e_gamma_information": i_gamma, "factor": coefficient},
        rate="(1 - c0)_+^2 / (8 e^eps), c0 = phi_n(eps, delta) I_{e^eps}(Theta; X^n)"
        " (delta I_{e^eps}(Theta; X) when n = 1)",
    )


def _bb_corollary3(n: int, eps: float, delta: float) -> Bound:
    factor = phi(eps, delta, n)
    information = scaled(factor, beta_bernoulli_mutual_information(n))
    a = information + math.log(2.0)
    log_inv = (a + math.sqrt(a * a + 4.0 * a)) / 2.0
    zeta = math.exp(-log_inv) / 2.0
    return Bound(
        zeta * (1.0 - a / log_inv),
        f"private Xu-Raginsky ({cite('asoodeh2021', 'Corollary 3')}), Beta-Bernoulli",
        BAYES,
        {"zeta": zeta, "information": information, "factor": factor},
        rate="zeta* (1 - A / L*), L* = (A + sqrt(A^2 + 4A)) / 2, zeta* = e^{-L*} / 2,"
        " A = phi_n(eps, delta) I(Theta; X^n) + log 2",
    )


def _beta_bernoulli_envelope(n: int, eps: float, delta: float, method: str) -> Bound:
    one = _bb_theorem2 if method == "theorem2" else _bb_corollary3
    here = one(n, eps, delta)
    if math.isinf(eps):
        return here
    grid = eps + np.concatenate([np.linspace(0.0, 3.0, 61), np.linspace(3.0, 12.0, 19)[1:]])
    best_eps, best = maximize(
        lambda es: np.array([one(n, float(e), delta).value for e in es]), grid
    )
    if best <= here.value:
        return here
    other = one(n, best_eps, delta)
    return Bound(
        other.value,
        here.method + ", monotone envelope over eps' >= eps",
        BAYES,
        {**other.params, "epsilon_used": best_eps},
        rate=other.rate,
    )

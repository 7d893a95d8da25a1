"""The design of PrivUnit: the cap ``gamma`` and the probability ``p`` of a level epsilon
(Bhowmick et al. (2018)), and the constants behind it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import betainc, expit, gammaln

from ldp._validation import check_integer, check_scalar

__all__ = ["PrivUnitDesign", "privunit_design"]


#: Relative error allowed for ``betainc`` and ``log_ndtr`` in the epsilon (margin added to
#: the log-ratio; the tests measure the functions' errors against mpmath, ~1e-15).
SPECIAL_FUNCTION_ERROR = 1e-12
#: Largest dimension (the direction of one report is ``d`` doubles).
MAX_DIMENSION = 1 << 31
#: Largest ``gamma sqrt(d - 1)`` the searches try (the cap probability is ~1e-300 beyond).
MAX_STANDARDIZED_GAMMA = 37.0
#: Smallest cap probability a design may use (the searches stay above it).
MIN_CAP = 1e-300
#: Below this cap probability the cap's ``<V, u>`` is drawn from an exponential envelope.
ENVELOPE_CAP = 0.25


# ----------------------------------------------------------------------------- constants
def check_dimension(d: object) -> int:
    dim = check_integer(d, "d", low=2)
    if dim > MAX_DIMENSION:
        raise ValueError(f"d must be <= 2^31, got {dim}")
    return dim


def _log_cd(d: int) -> float:
    """``log(Gamma(d/2) / (sqrt(pi) Gamma((d-1)/2)))``."""
    return float(gammaln(d / 2.0) - 0.5 * math.log(math.pi) - gammaln((d - 1) / 2.0))


def cap_probability(d: int, gamma: np.ndarray | float) -> np.ndarray:
    """``C = P(<V, u> >= gamma)`` for ``V`` uniform on the sphere: ``I_{(1-gamma)/2}(a, a)``."""
    a = (d - 1) / 2.0
    return np.asarray(betainc(a, a, (1.0 - np.asarray(gamma, dtype=float)) / 2.0))


def log_first_moment(d: int, gamma: np.ndarray | float) -> np.ndarray:
    """``log E[<V, u> 1{<V, u> >= gamma}] = log c_d + ((d-1)/2) log(1-gamma^2) - log(d-1)``."""
    g = np.asarray(gamma, dtype=float)
    return _log_cd(d) + (d - 1) / 2.0 * np.log1p(-g * g) - math.log(d - 1)


def _log_exact_scale(d: int, epsilon: float, gamma: np.ndarray | float) -> np.ndarray:
    """``log m`` when ``p`` spends exactly ``epsilon``: ``m = E[..] (e^eps - 1) /
    (e^eps C + 1 - C)`` (``-inf`` where ``C`` underflows)."""
    cap = cap_probability(d, gamma)
    with np.errstate(divide="ignore"):
        log_cap = np.log(cap)
        log_gain = epsilon + math.log(-math.expm1(-epsilon))  # log(e^eps - 1)
        out = (
            log_first_moment(d, gamma) + log_gain - np.logaddexp(log_cap + epsilon, np.log1p(-cap))
        )
    return np.where(cap > MIN_CAP, out, -np.inf)


def grid_maximise(objective, high: float, points: int = 400) -> float:
    """The maximiser of a unimodal ``objective`` on ``(0, high)``: a grid, then Brent."""
    from scipy.optimize import minimize_scalar  # only when a design is searched

    grid = np.linspace(0.0, high, points + 2)[1:-1]
    values = objective(grid)
    best = int(np.argmax(values))
    low_end = grid[best - 1] if best > 0 else grid[0] * 1e-3
    high_end = grid[best + 1] if best + 1 < grid.size else high * (1 - 1e-12)
    found = minimize_scalar(
        lambda s: -float(objective(np.array([s]))[0]),
        bounds=(low_end, high_end),
        method="bounded",
        options={"xatol": 1e-12 * high},
    )
    return float(found.x) if -found.fun >= values[best] else float(grid[best])


def optimal_gamma(d: int, epsilon: float) -> float:
    root = math.sqrt(d - 1)
    high = min(MAX_STANDARDIZED_GAMMA, root * (1 - 1e-9))
    s = grid_maximise(lambda s: _log_exact_scale(d, epsilon, s / root), high)
    return s / root


def _theorem1_cap_epsilon(d: int, gamma: np.ndarray) -> np.ndarray:
    """The cap budget ``eps_1`` that Bhowmick et al. (2018), Theorem 1 requires for
    ``gamma`` (the conditions numbered (16a) and (16b) in the reference implementations'
    comments), applied as pfl-research does: (16a) below ``sqrt(2/d)``."""
    g = np.asarray(gamma, dtype=float)
    term = g * math.sqrt(2.0 * (d - 1) / math.pi)
    with np.errstate(divide="ignore", invalid="ignore"):
        small = np.where(term < 1, np.log((1 + term) / (1 - term)), np.inf)
        large = 0.5 * math.log(d) + math.log(6.0) - (d - 1) / 2.0 * np.log1p(-g * g) + np.log(g)
    return np.where(g < math.sqrt(2.0 / d), small, large)


@dataclass(frozen=True)
class PrivUnitDesign:
    """The parameters and the exact error of one PrivUnit design (:func:`privunit_design`).

    Parameters
    ----------
    d : int
        Dimension.
    gamma : float
        Cap threshold on ``<V, u>``.
    p : float
        Probability of drawing from the cap.
    cap : float
        ``C``, the cap's probability under the uniform law on the sphere.
    scale : float
        ``1 / m``: the norm of every output for a unit input.
    epsilon : float
        The exact privacy level the design spends, ``log(p/(1-p)) + log((1-C)/C)``.
    epsilon_cap : float or None
        Theorem 1's cap budget ``eps_1`` (``None`` for the exact design).

    Examples
    --------
    >>> from ldp.mechanisms import privunit_design
    >>> design = privunit_design(4.0, 256)
    >>> round(design.gamma, 6), round(design.p, 6), round(design.error, 3)
    (0.094607, 0.791969, 110.726)
    """

    d: int
    gamma: float
    p: float
    cap: float
    scale: float
    epsilon: float
    epsilon_cap: float | None = None

    @property
    def error(self) -> float:
        """``E||Z - u||^2 = 1/m^2 - 1`` for a unit input ``u`` (the trace of the variance)."""
        return self.scale**2 - 1.0


def privunit_design(epsilon: float, d: int, split: str = "exact") -> PrivUnitDesign:
    """PrivUnit's best parameters at ``epsilon`` in ``R^d``, exactly or by Theorem 1's split.

    ``"exact"``: ``p`` spends exactly ``epsilon`` given the cap, and ``gamma`` maximises
    ``m`` (what :class:`PrivUnit` uses). ``"theorem1"``: the split of Bhowmick et al.
    (2018), Theorem 1, ``eps_0 + eps_1`` with the sufficient condition (16a)/(16b) on ``gamma`` for
    ``eps_1`` and ``p = e^eps_0 / (1 + e^eps_0)``, ``gamma`` chosen to maximise ``m`` (as the
    reference implementations do); its ``epsilon`` is what it actually spends,
    less than ``epsilon``.

    Parameters
    ----------
    epsilon : float
        Privacy budget in ``[1e-6, 700]``.
    d : int
        Dimension, ``>= 2``.
    split : {"exact", "theorem1"}
        The design.

    Returns
    -------
    PrivUnitDesign
        ``gamma``, ``p``, the cap probability, the output norm ``1/m``, the epsilon spent.

    Examples
    --------
    >>> from ldp.mechanisms import privunit_design
    >>> loose = privunit_design(4.0, 256, split="theorem1")
    >>> round(loose.error, 1), round(loose.epsilon, 4), round(loose.epsilon_cap, 4)
    (156.4, 3.5727, 2.0252)
    """
    eps = check_scalar(epsilon, "epsilon", low=1e-6, high=700.0)
    dim = check_dimension(d)
    if split == "exact":
        gamma = optimal_gamma(dim, eps)
        cap = float(cap_probability(dim, gamma))
        p = 1.0 / (1.0 + math.exp(-eps - math.log(cap) + math.log1p(-cap)))
        log_m = float(_log_exact_scale(dim, eps, gamma))
        return PrivUnitDesign(dim, gamma, p, cap, math.exp(-log_m), eps)
    if split != "theorem1":
        raise ValueError(f"split must be 'exact' or 'theorem1', got {split!r}")

    def log_scale(gamma: np.ndarray) -> np.ndarray:
        eps0 = eps - _theorem1_cap_epsilon(dim, gamma)
        cap = cap_probability(dim, gamma)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = expit(eps0)
            gain = np.log(p / cap - (1.0 - p) / (1.0 - cap))
            out = log_first_moment(dim, gamma) + gain
        return np.where((eps0 > 0) & (cap > MIN_CAP) & np.isfinite(out), out, -np.inf)

    gamma = grid_maximise(log_scale, 1.0 - 1e-12, points=2000)
    eps1 = float(_theorem1_cap_epsilon(dim, np.array(gamma)))
    if not eps1 < eps:
        raise ValueError(f"Theorem 1 leaves no budget for the cap coin at epsilon = {eps:g}")
    cap = float(cap_probability(dim, gamma))
    p = 1.0 / (1.0 + math.exp(-(eps - eps1)))
    spent = math.log(p / (1 - p)) + math.log1p(-cap) - math.log(cap)
    return PrivUnitDesign(
        dim, gamma, p, cap, math.exp(-float(log_scale(np.array([gamma]))[0])), spent, eps1
    )

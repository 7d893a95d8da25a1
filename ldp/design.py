"""Utility-maximising local randomizers: the channel optimizer.

Given a privacy budget and a utility, return the best :class:`~ldp.Channel` together with a
certificate: the privacy of the returned matrix is recomputed exactly, never read off the
solver.

Two families of programs are solved with cvxpy:

* **Linear utilities** (Bayes decision problems): maximise ``sum_x prior_x sum_z K[x, z]
  U[x, z]`` over channels with a given output alphabet, subject to pure eps-LDP in the compact
  *row-min* form (one auxiliary ``lo_z`` per output with ``lo_z <= K[x, z] <= e^eps lo_z``),
  to (eps, delta)-LDP through the hockey-stick constraint with auxiliary positive parts, and
  optionally to eta-TV through the pairwise TV constraint. ``e^eps`` is a cvxpy
  ``Parameter``, so :class:`LinearDesign` compiles once and re-solves along a sweep.
* **Sublinear utilities** (Kairouz, Oh & Viswanath, "Extremal mechanisms for local
  differential privacy", JMLR 2016): mutual information under a prior, any f-divergence
  between two hypotheses (KL, TV, chi^2, squared Hellinger) and Fisher information. Some
  optimal eps-LDP channel is a *staircase* channel whose columns are ``theta_j S_j`` with
  ``S_j in {1, e^eps}^k``; the optimum is the LP ``max mu^T theta`` s.t. ``S theta = 1``,
  ``theta >= 0`` over the ``2^k - 1`` patterns (exact; practical to ``k`` about 16). Two
  reductions reach larger ``k``: for permutation-invariant utilities (mutual information under
  the uniform prior) the LP collapses onto one weight class, i.e. subset selection; for
  binary hypothesis testing only the ``O(k^2)`` patterns that are intervals of the
  likelihood-ratio order are needed (checked against the full LP in the tests).

Certification
-------------
Solver output is cleaned before it is returned: negative entries are zeroed, outputs whose
largest probability is below :data:`EMPTY_OUTPUT` are dropped, for pure LDP every entry is
lifted to at least its column maximum divided by ``e^eps``, rows are renormalised, and
the matrix is mixed with the constant channel of its average output law by the smallest
weight ``lambda`` that restores the requested (eps, delta, eta) exactly (mixing scales every
hockey-stick divergence by ``1 - lambda``). If that weight exceeds :data:`REPAIR_TOLERANCE`
the solve is treated as failed and :class:`DesignError` is raised. The returned channel's
``epsilon``, ``delta(eps)`` and ``tv`` are then recomputed from the matrix and checked
against the budget.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike
from scipy.special import comb, xlogy

from ldp._progress import progress as show_progress
from ldp._quiet import quiet_stdout
from ldp._validation import (
    as_real_array,
    check_integer,
    check_pmf,
    check_probability,
    check_scalar,
)
from ldp.channel import Channel
from ldp.mechanisms.consistency import project_simplex
from ldp.mechanisms.decoding import frequency_decoder

__all__ = [
    "DesignError",
    "DesignResult",
    "FrequencyDesign",
    "LinearDesign",
    "compare",
    "frequency_decoder",
    "frequency_risk",
    "optimal_channel",
    "optimal_frequency_channel",
    "utility_value",
]

#: Outputs whose largest probability is below this are dropped from solver output.
EMPTY_OUTPUT = 1e-9
#: Largest mixing weight the certification may use to repair solver output.
REPAIR_TOLERANCE = 1e-3
#: Largest alphabet for the exact staircase LP (2^k - 1 columns).
MAX_STAIRCASE_K = 16
#: Largest matrix (entries) materialised for a subset-selection optimum.
MAX_ENTRIES = 4_000_000

SUBLINEAR = ("mi", "tv", "kl", "chi2", "hellinger", "fisher")
_GENERATORS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "kl": lambda t: xlogy(t, t),
    "tv": lambda t: 0.5 * np.abs(t - 1.0),
    "chi2": lambda t: (t - 1.0) ** 2,
    "hellinger": lambda t: (np.sqrt(t) - 1.0) ** 2,
}


#: Largest epsilon of a design (``e^epsilon`` must be a finite double).
MAX_EPSILON = 700.0


class DesignError(RuntimeError):
    """The solver failed, the problem is infeasible, or its output could not be certified."""


@dataclass(frozen=True)
class DesignResult:
    """A certified optimal channel.

    Attributes
    ----------
    channel : Channel
        The certified channel (cleaned solver output).
    value : float
        The utility of ``channel`` recomputed from its matrix.
    objective : float
        The solver's optimal objective (for reference; ``value`` is what the channel gives).
    status, solver : str
        cvxpy's status and the solver used (or ``"closed form"``).
    method : str
        Which program was solved.
    epsilon, delta, tv : float
        The certified privacy: ``channel.epsilon``, ``channel.delta(requested epsilon)`` and
        ``channel.tv``, recomputed from the matrix.
    repair : float
        How far certification moved the solver's matrix: the largest probability mass
        lifted in a row, or the mixing weight, whichever is larger (0 when nothing moved).
    """

    channel: Channel
    value: float
    objective: float
    status: str
    solver: str
    method: str
    epsilon: float
    delta: float
    tv: float
    repair: float = 0.0
    extras: dict = field(default_factory=dict, compare=False)

    def __float__(self) -> float:
        return self.value


# --------------------------------------------------------------------------- utilities
@dataclass(frozen=True)
class _Sublinear:
    """A sublinear utility ``U(K) = sum_z mu(K[:, z])`` (KOV, Section 2)."""

    name: str
    column_values: Callable[[np.ndarray], np.ndarray]  # (k, J) columns -> (J,) values
    symmetric: bool = False
    hypotheses: tuple[np.ndarray, np.ndarray] | None = None

    def of_channel(self, matrix: np.ndarray, kept: np.ndarray | None = None) -> float:
        return max(float(np.sum(self.column_values(matrix))), 0.0)


def _sublinear(name: str, k: int, prior, hypotheses) -> _Sublinear:
    if name == "mi":
        if hypotheses is not None:
            raise ValueError("utility='mi' uses prior=, not hypotheses=")
        p = np.full(k, 1.0 / k) if prior is None else _check_prior(prior, k)

        def mi(columns: np.ndarray) -> np.ndarray:
            out = p @ columns
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = xlogy(columns, columns) - columns * np.log(np.where(out > 0, out, 1.0))
            return (p[:, None] * terms).sum(axis=0)  # per column; may be negative

        return _Sublinear("mi", mi, symmetric=bool(np.all(p == p[0])))
    if hypotheses is None:
        raise ValueError(f"utility={name!r} needs hypotheses=(p0, p1)")
    try:
        first, second = hypotheses
    except (TypeError, ValueError):
        raise ValueError(f"hypotheses must be a pair (p0, p1), got {hypotheses!r}") from None
    if name == "fisher":
        p = _check_prior(first, k, "hypotheses[0]")
        score = as_real_array(second, "hypotheses[1]")
        if score.shape != (k,) or abs(score.sum()) > 1e-9:
            raise ValueError(
                "for utility='fisher', hypotheses=(p_theta, dp_theta/dtheta) with dp summing "
                f"to 0 and length {k}"
            )

        def fisher(columns: np.ndarray) -> np.ndarray:
            mass = p @ columns
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(mass > 0, (score @ columns) ** 2 / mass, 0.0)

        return _Sublinear("fisher", fisher, hypotheses=(p, score))
    p0 = _check_prior(first, k, "hypotheses[0]")
    p1 = _check_prior(second, k, "hypotheses[1]")
    generator = _GENERATORS[name]

    def divergence(columns: np.ndarray) -> np.ndarray:
        a, b = p0 @ columns, p1 @ columns
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(b > 0, a / np.where(b > 0, b, 1.0), 0.0)
            values = np.where(b > 0, b * generator(ratio), 0.0)
        if name in ("kl", "chi2"):
            values = np.where((b == 0) & (a > 0), np.inf, values)
        elif name == "tv":
            values = np.where(b == 0, 0.5 * a, values)
        else:  # hellinger
            values = np.where(b == 0, a, values)
        return values  # per column b f(a / b); only the sum over columns is a divergence

    return _Sublinear(name, divergence, hypotheses=(p0, p1))


def _check_prior(prior: ArrayLike, k: int, name: str = "prior") -> np.ndarray:
    p = check_pmf(prior, name, ndim=1)
    if p.size != k:
        raise ValueError(f"{name} must have k = {k} entries, got {p.size}")
    return p


def utility_value(
    channel: Channel, utility: str | ArrayLike, *, prior=None, hypotheses=None
) -> float:
    """The utility of a channel, as :func:`optimal_channel` scores it.

    Parameters
    ----------
    channel : Channel
    utility : {"mi", "tv", "kl", "chi2", "hellinger", "fisher"} or array_like
        A named sublinear utility, or a gain matrix ``U[x, z]`` (expected gain under
        ``prior``, uniform by default).
    prior, hypotheses
        As in :func:`optimal_channel`.

    Examples
    --------
    >>> from ldp import randomized_response
    >>> from ldp.design import utility_value
    >>> round(utility_value(randomized_response(1.0), "mi"), 6)  # log 2 - h(1 / (1 + e))
    0.110944
    """
    if not isinstance(channel, Channel):
        raise TypeError(f"channel must be a Channel, got {type(channel).__name__}")
    k = channel.n_inputs
    if isinstance(utility, str):
        if utility not in SUBLINEAR:
            raise ValueError(
                f"utility must be one of {SUBLINEAR} or a gain matrix, got {utility!r}"
            )
        return _sublinear(utility, k, prior, hypotheses).of_channel(channel.matrix)
    gains = as_real_array(utility, "utility")
    if gains.shape != channel.shape:
        raise ValueError(f"utility matrix must have shape {channel.shape}, got {gains.shape}")
    p = np.full(k, 1.0 / k) if prior is None else _check_prior(prior, k)
    return float(np.sum(p[:, None] * channel.matrix * gains))


# --------------------------------------------------------------------------- certification
def _certify(
    raw: np.ndarray, epsilon: float, delta: float, eta: float | None
) -> tuple[Channel, float, np.ndarray]:
    """Clean solver output into a channel that meets (epsilon, delta, eta) exactly."""
    matrix = np.clip(np.asarray(raw, dtype=np.float64), 0.0, None)
    if not np.all(np.isfinite(matrix)) or np.any(matrix.sum(axis=1) <= 0):
        raise DesignError("solver returned a matrix with non-finite or empty rows")
    keep = matrix.max(axis=0) >= EMPTY_OUTPUT
    matrix = matrix[:, keep]
    gamma = math.exp(epsilon) if not math.isinf(epsilon) else math.inf
    if delta == 0.0 and not math.isinf(epsilon):
        # lift every entry to at least (column max) / e^eps: the nearest pure-LDP column from
        # above; it moves solver noise (entries ~1e-9 against 0) by at most its own size
        lifted = np.maximum(matrix, matrix.max(axis=0) / gamma)
        lift = float(np.max((lifted - matrix).sum(axis=1)))
        matrix = lifted
    else:
        lift = 0.0
    matrix /= matrix.sum(axis=1, keepdims=True)
    candidate = Channel(matrix)
    base = matrix.mean(axis=0)  # every kept output has positive average mass
    weights = [0.0]
    if delta == 0.0 and not math.isinf(epsilon):
        top, bottom = matrix.max(axis=0), matrix.min(axis=0)
        excess = top - gamma * bottom
        need = excess > 0
        if np.any(need):
            weights.append(
                float(np.max(excess[need] / (excess[need] + base[need] * (gamma - 1.0))))
            )
    else:
        current = candidate.delta(epsilon)
        if current > delta:
            weights.append(1.0 - delta / current)
    if eta is not None and candidate.tv > eta:
        weights.append(1.0 - eta / candidate.tv)
    weight = max(weights)
    if max(weight, lift) > REPAIR_TOLERANCE:
        raise DesignError(
            f"solver output misses the budget: certifying it needs a change of "
            f"{max(weight, lift):.3g} > {REPAIR_TOLERANCE:g} in a row; try another solver="
        )
    if weight > 0:
        weight = min(1.0, weight * (1 + 1e-6) + 1e-15)  # a hair more, against rounding
        candidate = Channel((1.0 - weight) * matrix + weight * base[None, :])
    if delta == 0.0 and not math.isinf(epsilon):
        # the certified epsilon is an upper bound rounded outward by a few units in the last
        # place: mix a little more until it is within the budget itself
        extra = 1e-15
        while candidate.epsilon > epsilon:
            weight = min(1.0, weight + extra)
            if weight > REPAIR_TOLERANCE:
                raise DesignError("could not certify the solver output against the budget")
            candidate = Channel((1.0 - weight) * matrix + weight * base[None, :])
            extra *= 4.0
    # the only slack left is the rounding of the row sums (relative ~ n_outputs * 2^-52)
    rtol = max(1e-12, 8.0 * candidate.n_outputs * np.finfo(float).eps)
    if not candidate.is_ldp(epsilon, delta, rtol=rtol) or (
        eta is not None and candidate.tv > eta * (1 + rtol)
    ):
        raise DesignError("could not certify the solver output against the budget")
    return candidate, max(weight, lift), np.flatnonzero(keep)


def _result(raw, objective, status, solver, method, epsilon, delta, eta, utility_fn, **extras):
    channel, weight, kept = _certify(raw, epsilon, delta, eta)
    return DesignResult(
        channel=channel,
        value=float(utility_fn(channel.matrix, kept)),
        objective=float(objective),
        status=status,
        solver=solver,
        method=method,
        epsilon=channel.epsilon,
        delta=channel.delta(epsilon),
        tv=channel.tv,
        repair=weight,
        extras={"kept_outputs": kept, **extras},
    )


def _check_solver(solver: str | None, default: str) -> str:
    name = default if solver is None else solver
    if not isinstance(name, str):
        raise TypeError(f"solver must be a string, got {name!r}")
    installed = cp.installed_solvers()
    if name.upper() not in installed:
        raise ValueError(f"unknown or uninstalled solver {name!r}; installed: {installed}")
    return name.upper()


def _solve(problem: cp.Problem, solver: str) -> None:
    try:
        with quiet_stdout():  # HiGHS prints a banner on descriptor 1
            problem.solve(solver=solver)
    except cp.error.SolverError as exc:
        raise DesignError(f"solver {solver} failed: {exc}") from None
    if problem.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        raise DesignError("the budget is infeasible for this problem")
    if problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise DesignError(f"solver {solver} ended with status {problem.status!r}")


# --------------------------------------------------------------------------- linear LP
class LinearDesign:
    """A compiled linear-utility channel LP, re-solved cheaply for each epsilon.

    Maximises ``sum_x prior_x sum_z K[x, z] gains[x, z]`` over ``k x m`` channels subject to
    (eps, delta)-LDP and optionally eta-TV. ``e^eps`` is a cvxpy ``Parameter``; the problem
    is canonicalised once, on the first :meth:`solve`.

    Parameters
    ----------
    gains : array_like of shape (k, m)
        The gain ``U[x, z]`` of answering ``z`` on input ``x`` (use ``-loss`` for a loss).
    prior : array_like of shape (k,), optional
        Input distribution; uniform by default.
    delta : float, default 0.0
    eta : float, optional
        eta-TV budget.
    solver : str, optional
        A cvxpy solver name (default Clarabel).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.design import LinearDesign
    >>> design = LinearDesign(np.eye(3))          # guess x from z, uniform prior
    >>> result = design.solve(1.0)
    >>> round(result.value, 4)                     # k-RR is optimal: e / (e + 2)
    0.5761
    >>> result.channel.is_ldp(1.0)
    True
    """

    def __init__(
        self,
        gains: ArrayLike,
        prior=None,
        *,
        delta: float = 0.0,
        eta=None,
        solver: str | None = None,
    ) -> None:
        self.gains = as_real_array(gains, "gains")
        if self.gains.ndim != 2 or min(self.gains.shape) < 1:
            raise ValueError(f"gains must be a k x m matrix, got shape {self.gains.shape}")
        k, m = self.gains.shape
        self.prior = np.full(k, 1.0 / k) if prior is None else _check_prior(prior, k)
        self.delta = check_probability(delta, "delta")
        self.eta = None if eta is None else check_probability(eta, "eta")
        self.solver = _check_solver(solver, "CLARABEL")
        self._gamma = cp.Parameter(nonneg=True, name="exp_epsilon")
        self._matrix = cp.Variable((k, m), nonneg=True, name="K")
        constraints = [cp.sum(self._matrix, axis=1) == 1]
        if self.delta == 0.0:
            low = cp.Variable(m, nonneg=True, name="row_min")
            constraints += [
                self._matrix >= np.ones((k, 1)) @ cp.reshape(low, (1, m), order="C"),
                self._matrix <= np.ones((k, 1)) @ cp.reshape(self._gamma * low, (1, m), order="C"),
            ]
        else:
            constraints += self._pairwise(self._gamma, self.delta)
        if self.eta is not None:
            constraints += self._pairwise(1.0, self.eta)
        objective = cp.Maximize(cp.sum(cp.multiply(self.prior[:, None] * self.gains, self._matrix)))
        self._problem = cp.Problem(objective, constraints)

    def _pairwise(self, gamma, bound: float) -> list:
        k, m = self.gains.shape
        pairs = [(a, b) for a, b in itertools.permutations(range(k), 2)]
        if not pairs:
            return []
        first = np.array([a for a, _ in pairs])
        second = np.array([b for _, b in pairs])
        slack = cp.Variable((len(pairs), m), nonneg=True)
        return [
            slack >= self._matrix[first, :] - gamma * self._matrix[second, :],
            cp.sum(slack, axis=1) <= bound,
        ]

    def solve(self, epsilon: float) -> DesignResult:
        """Solve at ``epsilon`` and return the certified optimum."""
        eps = check_scalar(epsilon, "epsilon", low=0.0, high=MAX_EPSILON)
        self._gamma.value = math.exp(eps)
        _solve(self._problem, self.solver)
        weights = self.prior[:, None] * self.gains

        def value(matrix: np.ndarray, kept: np.ndarray) -> float:
            return float(np.sum(weights[:, kept] * matrix))

        method = "linear LP (" + ("row-min" if self.delta == 0 else "hockey-stick") + " form)"
        return _result(
            self._matrix.value,
            self._problem.value,
            self._problem.status,
            self.solver,
            method,
            eps,
            self.delta,
            self.eta,
            value,
        )

    def sweep(self, epsilons: Sequence[float], *, progress: bool = False) -> list[DesignResult]:
        """Solve at each epsilon, reusing the compiled problem.

        ``progress=True`` shows a tqdm bar when tqdm (the ``progress`` extra) is installed.
        """
        levels = list(epsilons)
        return [self.solve(e) for e in show_progress(levels, progress, desc="eps sweep")]


# --------------------------------------------------------------------------- staircase LP
def _patterns(k: int) -> np.ndarray:
    """All ``2^k - 1`` binary patterns except the all-ones one, as a (k, J) 0/1 matrix."""
    codes = np.arange(2**k - 1, dtype=np.int64)  # all-zero kept; all-ones dropped (same column)
    return ((codes[None, :] >> np.arange(k)[:, None]) & 1).astype(np.float64)


def _interval_patterns(order: np.ndarray) -> np.ndarray:
    """Patterns with e^eps on a contiguous block of ``order`` (plus the constant one)."""
    k = order.size
    blocks = [(i, j) for i in range(k) for j in range(i + 1, k + 1) if (i, j) != (0, k)]
    patterns = np.zeros((k, len(blocks) + 1))
    for col, (i, j) in enumerate(blocks):
        patterns[order[i:j], col] = 1.0
    return patterns


def _staircase(
    utility: _Sublinear, patterns: np.ndarray, epsilon: float, solver: str, method: str
) -> DesignResult:
    gamma = math.exp(epsilon)
    columns = 1.0 + (gamma - 1.0) * patterns
    mu = utility.column_values(columns)
    theta = cp.Variable(columns.shape[1], nonneg=True)
    problem = cp.Problem(cp.Maximize(mu @ theta), [columns @ theta == 1])
    _solve(problem, solver)
    weights = np.clip(theta.value, 0.0, None)
    raw = columns * weights[None, :]
    raw = raw[:, weights > 0]
    return _result(
        raw,
        problem.value,
        problem.status,
        solver,
        method,
        epsilon,
        0.0,
        None,
        utility.of_channel,
        n_patterns=columns.shape[1],
    )


def _subset_selection(utility: _Sublinear, k: int, epsilon: float) -> DesignResult:
    """Weight-class reduction: the best subset-selection channel (exact for symmetric
    utilities; KOV Section 5 / Wang et al. 2016)."""
    gamma = math.exp(epsilon)
    best = None
    for w in range(1, k):
        column = np.ones(k)
        column[:w] = gamma
        mass = 1.0 / (comb(k - 1, w - 1) * gamma + comb(k - 1, w))
        value = comb(k, w) * mass * float(utility.column_values(column[:, None])[0])
        if best is None or value > best[0] + 1e-15:
            best = (value, w, mass)
    value, w, mass = best
    size = int(comb(k, w, exact=True))
    if size * k > MAX_ENTRIES:
        raise ValueError(
            f"k = {k}: the optimum is subset selection with subsets of size {w} ({size} outputs), "
            f"too large to hold as a matrix; use ldp.mechanisms for a subset-selection oracle"
        )
    subsets = np.array(list(itertools.combinations(range(k), w)))
    member = np.zeros((k, size))
    member[subsets.T, np.arange(size)[None, :]] = 1.0
    raw = mass * (1.0 + (gamma - 1.0) * member)
    return _result(
        raw,
        value,
        "optimal",
        "closed form",
        f"weight-class reduction (subset selection, w={w})",
        epsilon,
        0.0,
        None,
        utility.of_channel,
        subset_size=w,
    )


# --------------------------------------------------------------------------- entry point
def optimal_channel(
    k: int,
    epsilon: float,
    *,
    utility: str | ArrayLike,
    prior: ArrayLike | None = None,
    hypotheses: tuple[ArrayLike, ArrayLike] | None = None,
    delta: float = 0.0,
    eta: float | None = None,
    n_outputs: int | None = None,
    solver: str | None = None,
    method: str = "auto",
) -> DesignResult:
    """The utility-maximising channel on ``k`` inputs for a privacy budget, certified.

    Parameters
    ----------
    k : int
        Input alphabet size (``k >= 2``).
    epsilon : float
        Privacy level (finite, ``>= 0``).
    utility : {"mi", "tv", "kl", "chi2", "hellinger", "fisher"} or array_like
        ``"mi"``: mutual information I(X; Z) under ``prior`` (uniform by default);
        ``"tv"``, ``"kl"``, ``"chi2"``, ``"hellinger"``: the divergence between the output
        laws under ``hypotheses=(p0, p1)``; ``"fisher"``: Fisher information of the output,
        with ``hypotheses=(p_theta, dp_theta)`` (the law and its derivative in theta); or a
        gain matrix ``U[x, z]`` of shape ``(k, m)``: expected gain under ``prior``.
    prior, hypotheses : array_like, optional
        See ``utility``.
    delta : float, default 0.0
        Approximate-LDP slack (linear utilities only: the staircase theorem is for pure LDP).
    eta : float, optional
        eta-TV budget (linear utilities only).
    n_outputs : int, optional
        Output alphabet size for a gain matrix must equal its columns; for sublinear
        utilities the staircase optimum has at most ``k`` used outputs anyway.
    solver : str, optional
        cvxpy solver: default Clarabel for linear problems, HiGHS (a vertex solver, which
        returns sparse staircase solutions) for the staircase LP.
    method : {"auto", "staircase", "subset", "interval"}
        For sublinear utilities: ``"staircase"`` is the exact LP over all ``2^k - 1``
        patterns (``k <= 16``); ``"subset"`` the weight-class reduction (exact for mutual
        information under a uniform prior); ``"interval"`` the ``O(k^2)`` likelihood-ratio
        interval patterns for divergences between two hypotheses. ``"auto"`` picks the exact
        reduction when one applies, else the staircase LP.

    Returns
    -------
    DesignResult
        ``.channel`` (certified), ``.value`` (its utility), ``.status``, ``.solver``, and the
        certified ``.epsilon``, ``.delta``, ``.tv``.

    Raises
    ------
    DesignError
        The budget is infeasible, the solver failed, or its output could not be certified.

    Examples
    --------
    >>> from ldp.design import optimal_channel
    >>> res = optimal_channel(4, 0.5, utility="mi")
    >>> round(res.value, 10)            # binary mechanism: log 2 - h(e^.5 / (1 + e^.5))
    0.030299862
    >>> res.channel.is_ldp(0.5)
    True
    """
    k = check_integer(k, "k", low=2)
    if k * k > MAX_ENTRIES:  # every design holds at least a k x k matrix
        raise ValueError(f"k must be <= {math.isqrt(MAX_ENTRIES)}, got {k}")
    eps = check_scalar(epsilon, "epsilon", low=0.0, high=MAX_EPSILON)
    d = check_probability(delta, "delta")
    if method not in ("auto", "staircase", "subset", "interval"):
        raise ValueError(
            f"method must be 'auto', 'staircase', 'subset' or 'interval', got {method!r}"
        )
    if not isinstance(utility, str):
        gains = as_real_array(utility, "utility")
        if gains.ndim != 2 or gains.shape[0] != k:
            raise ValueError(f"a gain matrix must have shape (k={k}, m), got {gains.shape}")
        if n_outputs is not None and check_integer(n_outputs, "n_outputs", low=1) != gains.shape[1]:
            raise ValueError(
                f"n_outputs={n_outputs} does not match the gain matrix's {gains.shape[1]} columns"
            )
        return LinearDesign(gains, prior, delta=d, eta=eta, solver=solver).solve(eps)
    if utility not in SUBLINEAR:
        raise ValueError(f"utility must be one of {SUBLINEAR} or a gain matrix, got {utility!r}")
    if d > 0 or eta is not None:
        raise ValueError(
            "sublinear utilities are optimised over staircase channels, which are optimal for "
            "pure eps-LDP only; delta > 0 and eta are supported for gain-matrix utilities"
        )
    if n_outputs is not None:
        check_integer(n_outputs, "n_outputs", low=1)
    target = _sublinear(utility, k, prior, hypotheses)
    if method == "auto":
        if target.symmetric:
            method = "subset"
        elif target.hypotheses is not None and utility != "fisher" and k > 10:
            method = "interval"
        else:
            method = "staircase"
    if method == "subset":
        if not target.symmetric:
            raise ValueError(
                "method='subset' is exact only for mutual information under a uniform prior"
            )
        return _subset_selection(target, k, eps)
    if method == "interval":
        if target.hypotheses is None or utility == "fisher":
            raise ValueError("method='interval' applies to divergences between two hypotheses")
        p0, p1 = target.hypotheses
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(p1 > 0, p0 / np.where(p1 > 0, p1, 1.0), np.inf)
        order = np.argsort(-ratio, kind="stable")
        return _staircase(
            target,
            _interval_patterns(order),
            eps,
            _check_solver(solver, "HIGHS"),
            "interval-pattern LP",
        )
    if k > MAX_STAIRCASE_K:
        raise ValueError(
            f"k={k} is too large for the exact staircase LP (2^k columns; k <= "
            f"{MAX_STAIRCASE_K}); use method='subset' for symmetric mutual information or "
            "method='interval' for two hypotheses"
        )
    return _staircase(target, _patterns(k), eps, _check_solver(solver, "HIGHS"), "staircase LP")


# --------------------------------------------------------------------------- comparison
def compare(
    k: int,
    epsilon: float,
    *,
    utility: str | ArrayLike,
    prior=None,
    hypotheses=None,
    solver: str | None = None,
):
    """Score the standard mechanisms and the optimum on one utility, as a DataFrame.

    Rows: k-RR, the best binary mechanism (randomized response on a split ``T`` of the
    alphabet: the likelihood-ratio split for two hypotheses, the best split by size for a
    symmetric prior, else the best of all splits for ``k <= 16``), the best subset selection,
    and the optimum of :func:`optimal_channel`. Columns: ``mechanism``, ``value``,
    ``epsilon`` (certified), ``n_outputs``, ``fraction_of_optimum``.

    Examples
    --------
    >>> from ldp.design import compare
    >>> table = compare(6, 1.1, utility="mi")
    >>> dict(zip(table.mechanism, table.value.round(6).tolist()))
    {'k-RR': 0.124655, 'binary': 0.131098, 'subset selection': 0.148708, 'optimum': 0.148708}
    """
    import pandas as pd

    from ldp.mechanisms import k_rr

    k = check_integer(k, "k", low=2)
    if k * k > MAX_ENTRIES:  # every design holds at least a k x k matrix
        raise ValueError(f"k must be <= {math.isqrt(MAX_ENTRIES)}, got {k}")
    eps = check_scalar(epsilon, "epsilon", low=0.0, high=MAX_EPSILON)
    rows = []

    def add(name: str, channel: Channel) -> None:
        rows.append(
            {
                "mechanism": name,
                "value": utility_value(channel, utility, prior=prior, hypotheses=hypotheses)
                if isinstance(utility, str) or channel.n_outputs == np.shape(utility)[1]
                else np.nan,
                "epsilon": channel.epsilon,
                "n_outputs": channel.n_outputs,
            }
        )

    add("k-RR", k_rr(k, eps))
    binary = _best_binary(k, eps, utility, prior, hypotheses)
    if binary is not None and (isinstance(utility, str) or np.shape(utility)[1] == 2):
        add("binary", binary)
    if isinstance(utility, str) and utility in SUBLINEAR:
        target = _sublinear(utility, k, prior, hypotheses)
        if math.comb(k, k // 2) * k <= MAX_ENTRIES:
            add("subset selection", _subset_selection(target, k, eps).channel)
    best = optimal_channel(
        k, eps, utility=utility, prior=prior, hypotheses=hypotheses, solver=solver
    )
    add("optimum", best.channel)
    table = pd.DataFrame(rows)
    table = table.dropna(subset=["value"]).reset_index(drop=True)
    table["fraction_of_optimum"] = table["value"] / best.value if best.value > 0 else np.nan
    return table


def _binary_channel(split: np.ndarray, epsilon: float) -> Channel:
    keep = 1.0 / (1.0 + math.exp(-epsilon))
    first = np.where(split, keep, 1.0 - keep)
    return Channel(np.column_stack([first, 1.0 - first]))


def _best_binary(k, epsilon, utility, prior, hypotheses) -> Channel | None:
    if not isinstance(utility, str):
        return None
    if hypotheses is not None and utility != "fisher":
        p0 = _check_prior(hypotheses[0], k, "hypotheses[0]")
        p1 = _check_prior(hypotheses[1], k, "hypotheses[1]")
        return _binary_channel(p0 >= p1, epsilon)
    candidates = []
    if utility == "mi" and (prior is None or np.allclose(prior, np.mean(prior))):
        for size in range(1, k // 2 + 1):
            split = np.zeros(k, dtype=bool)
            split[:size] = True
            candidates.append(split)
    elif k <= 16:
        for code in range(1, 2 ** (k - 1)):
            candidates.append(((code >> np.arange(k)) & 1).astype(bool))
    else:
        return None
    scored = [
        (utility_value(_binary_channel(s, epsilon), utility, prior=prior, hypotheses=hypotheses), i)
        for i, s in enumerate(candidates)
    ]
    return _binary_channel(candidates[max(scored)[1]], epsilon)


# --------------------------------------------------------------------------- estimation
def frequency_risk(
    channel: Channel,
    n: int,
    p: ArrayLike | None = None,
    *,
    decoder: np.ndarray | None = None,
) -> float:
    """Exact i.i.d. l2^2 risk ``E ||p_hat - p||^2`` of a channel with an unbiased decoder.

    With ``pi = p K``: ``risk(p) = (sum_z pi_z ||D[z]||^2 - ||p||^2) / n``, a concave
    quadratic in ``p``. Without ``p`` the worst case over the simplex is returned, in closed
    form: ``max_p a.p - ||p||^2 = ||a||^2 / 4 - dist(a / 2, simplex)^2`` with
    ``a = K (||D[z]||^2)_z``.

    Parameters
    ----------
    channel : Channel
    n : int
        Number of reports.
    p : array_like, optional
        The input distribution; default: the worst case.
    decoder : ndarray, optional
        Default :func:`frequency_decoder` (uniform weights).

    Examples
    --------
    >>> import math
    >>> import ldp
    >>> from ldp.design import frequency_risk
    >>> e = math.exp(1.0)   # RR: two coordinates of variance (e + 1)^2 / (4 n (e - 1)^2)
    >>> round(frequency_risk(ldp.k_rr(2, 1.0), 100) * 2 * 100 * (e - 1) ** 2 / (e + 1) ** 2, 9)
    1.0
    """
    count = check_integer(n, "n", low=1)
    d = frequency_decoder(channel) if decoder is None else as_real_array(decoder, "decoder")
    k, m = channel.shape
    if d.shape != (m, k) or not np.allclose(channel.matrix @ d, np.eye(k), atol=1e-9):
        raise ValueError("decoder must be an (n_outputs, n_inputs) matrix with K @ D = I")
    a = channel.matrix @ (d**2).sum(axis=1)
    if p is not None:
        prior = _check_prior(p, k, "p")
        return max(float(prior @ a - prior @ prior), 0.0) / count
    centre = project_simplex(a / 2.0)
    worst = float(a @ a / 4.0 - np.sum((centre - a / 2.0) ** 2))
    return max(worst, 0.0) / count


@dataclass(frozen=True)
class FrequencyDesign:
    """The best channel of a family for frequency estimation, with its decoder.

    Attributes
    ----------
    channel : Channel
    decoder : ndarray of shape (n_outputs, k)
        Unbiased: ``channel.matrix @ decoder = I``.
    risk : float
        Its i.i.d. l2^2 risk (worst case, or at ``p``).
    name : str
    table : pandas.DataFrame
        Every candidate's risk, best first.
    """

    channel: Channel
    decoder: np.ndarray
    risk: float
    name: str
    table: object = field(compare=False)


def optimal_frequency_channel(
    k: int,
    epsilon: float,
    n: int = 1,
    *,
    p: ArrayLike | None = None,
    candidates: dict[str, Channel] | None = None,
) -> FrequencyDesign:
    """The channel of a family with the smallest l2^2 frequency-estimation risk.

    Each candidate is decoded by :func:`frequency_decoder` (weighted by its output law under
    ``p``, or under the uniform input for the worst case) and scored by
    :func:`frequency_risk`. The default family is subset selection with every subset size
    ``d = 1 .. k - 1`` (``d = 1`` is k-RR), which contains the asymptotically optimal scheme
    (Ye & Barg); it is built as matrices, so ``k`` is limited to families of at most
    ``MAX_ENTRIES`` entries. For large alphabets use :func:`ldp.mechanisms.recommend`.

    Parameters
    ----------
    k : int
    epsilon : float
    n : int, default 1
        Number of reports (the risk scales as ``1 / n``).
    p : array_like, optional
        Score at this input distribution (prior-averaged risk); default the worst case.
    candidates : dict of name -> Channel, optional
        A stated family (each ``eps``-LDP channel on ``k`` inputs).

    Examples
    --------
    >>> from ldp.design import optimal_frequency_channel
    >>> best = optimal_frequency_channel(8, 1.0, n=1000)
    >>> best.name, best.channel.shape
    ('subset selection d=2', (8, 28))
    """
    k = check_integer(k, "k", low=2)
    if k * k > MAX_ENTRIES:  # every design holds at least a k x k matrix
        raise ValueError(f"k must be <= {math.isqrt(MAX_ENTRIES)}, got {k}")
    eps = check_scalar(epsilon, "epsilon", low=0.0, high=MAX_EPSILON)
    count = check_integer(n, "n", low=1)
    prior = None if p is None else _check_prior(p, k, "p")
    if candidates is None:
        candidates = {}
        for d in range(1, k):
            size = math.comb(k, d)
            if size * k > MAX_ENTRIES:
                continue
            subsets = np.array(list(itertools.combinations(range(k), d)))
            member = np.zeros((k, size))
            member[subsets.T, np.arange(size)[None, :]] = 1.0
            row = 1.0 + math.expm1(eps) * member
            candidates["k-RR" if d == 1 else f"subset selection d={d}"] = Channel(
                row / row.sum(axis=1, keepdims=True)
            )
        if not candidates:
            raise ValueError(
                f"k={k} is too large for matrix families; use ldp.mechanisms.recommend"
            )
    import pandas as pd

    rows = []
    for name, channel in candidates.items():
        if not isinstance(channel, Channel) or channel.n_inputs != k:
            raise ValueError(f"candidate {name!r} must be a Channel on {k} inputs")
        if not channel.is_ldp(eps):
            raise ValueError(f"candidate {name!r} is not {eps}-LDP (epsilon {channel.epsilon})")
        weights = None if prior is None else prior @ channel.matrix
        decoder = frequency_decoder(channel, weights)
        rows.append((frequency_risk(channel, count, prior, decoder=decoder), name, decoder))
    rows.sort(key=lambda r: r[0])
    risk, name, decoder = rows[0]
    table = pd.DataFrame(
        {
            "channel": [r[1] for r in rows],
            "risk": [r[0] for r in rows],
            "n_outputs": [candidates[r[1]].n_outputs for r in rows],
        }
    )
    return FrequencyDesign(candidates[name], decoder, risk, name, table)

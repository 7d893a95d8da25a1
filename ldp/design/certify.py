"""Certification of solver output, and the solver plumbing shared by the programs.

Solver output is cleaned before it is returned: negative entries are zeroed, outputs whose
largest probability is below :data:`EMPTY_OUTPUT` are dropped, for pure LDP every entry is
lifted to at least its column maximum divided by ``e^eps``, rows are renormalised, and the
matrix is mixed with the constant channel of its average output law by the smallest weight
``lambda`` that restores the requested (eps, delta, eta) exactly (mixing scales every
hockey-stick divergence by ``1 - lambda``). If that weight exceeds :data:`REPAIR_TOLERANCE`
the solve is treated as failed and :class:`DesignError` is raised. The returned channel's
``epsilon``, ``delta(eps)`` and ``tv`` are then recomputed from the matrix and checked
against the budget.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import cvxpy as cp
import numpy as np

from ldp._quiet import quiet_stdout
from ldp.channel import Channel
from ldp.core import Mechanism

__all__ = [
    "EMPTY_OUTPUT",
    "MAX_EPSILON",
    "REPAIR_TOLERANCE",
    "DesignError",
    "DesignResult",
    "certified_result",
    "certify",
    "check_solver",
    "solve",
]

#: Outputs whose largest probability is below this are dropped from solver output.
EMPTY_OUTPUT = 1e-9
#: Largest mixing weight the certification may use to repair solver output.
REPAIR_TOLERANCE = 1e-3
#: Largest epsilon of a design (``e^epsilon`` must be a finite double).
MAX_EPSILON = 700.0


class DesignError(RuntimeError):
    """The solver failed, the problem is infeasible, or its output could not be certified.

    Examples
    --------
    >>> from ldp.design import DesignError
    >>> issubclass(DesignError, RuntimeError)
    True
    >>> try:
    ...     raise DesignError("solver returned a matrix with non-finite or empty rows")
    ... except RuntimeError as error:
    ...     print(type(error).__name__, error)
    DesignError solver returned a matrix with non-finite or empty rows
    """


@dataclass(frozen=True)
class DesignResult:
    """A certified optimal channel.

    Parameters
    ----------
    channel, value, objective, status, solver, method, epsilon, delta, tv, repair, gap
        As the attributes below. Results are made by :func:`optimal_channel`.
    extras : mapping, optional
        Program-specific details (read-only).
    mechanism : Mechanism, optional
        The mechanism that deploys the design; default ``channel``. Required when
        ``channel`` is ``None``.

    Attributes
    ----------
    channel : Channel or None
        The certified channel (cleaned solver output). ``None`` when the optimum is a
        structured mechanism too large to hold as a matrix (subset selection with more than
        ``MAX_ENTRIES`` entries): then ``mechanism`` is the design.
    mechanism : Mechanism
        What deploys the design (with :meth:`ldp.protocol.Protocol.from_mechanism`, the
        clients and the estimators): ``channel`` itself, or the structured mechanism
        (:class:`ldp.mechanisms.SubsetSelection`) when there is no matrix.
    value : float
        The utility of the design recomputed from its probabilities (the matrix of
        ``channel``, or those of ``mechanism``).
    objective : float
        The solver's optimal objective (for reference; ``value`` is what the channel gives).
    status, solver : str
        The solver's status (cvxpy's, or ``"optimal"`` for a direct HiGHS solve) and the
        solver used (or ``"closed form"``).
    method : str
        Which program was solved.
    epsilon, delta, tv : float
        The certified privacy: ``epsilon``, ``delta(requested epsilon)`` and ``tv`` of the
        design, recomputed from the matrix (or from the mechanism's sampler).
    repair : float
        How far certification moved the solver's matrix: the largest probability mass
        lifted in a row, or the mixing weight, whichever is larger (0 when nothing moved).
    gap : float or None
        Certified relative optimality gap ``(upper - value) / upper`` when the program
        proves an upper bound on the optimum (column generation, and the weight-class
        reduction by its dual); ``None`` otherwise.

    Examples
    --------
    >>> import math
    >>> from ldp.design import optimal_channel, utility_value
    >>> result = optimal_channel(4, 1.0, utility="mi")
    >>> result.epsilon <= 1.0 + 1e-9, result.repair >= 0.0  # certified, not trusted
    (True, True)
    >>> math.isclose(result.value, utility_value(result.channel, "mi"))  # recomputed
    True
    >>> float(result) == result.value
    True
    """

    channel: Channel | None
    value: float
    objective: float
    status: str
    solver: str
    method: str
    epsilon: float
    delta: float
    tv: float
    repair: float = 0.0
    gap: float | None = None
    extras: Mapping[str, Any] = field(default_factory=dict, compare=False)
    mechanism: Mechanism = None  # type: ignore[assignment]  # default: the channel

    def __post_init__(self) -> None:
        object.__setattr__(self, "extras", MappingProxyType(dict(self.extras)))
        if self.mechanism is None:
            if self.channel is None:
                raise ValueError("a design result needs a channel or a mechanism")
            object.__setattr__(self, "mechanism", self.channel)

    def __float__(self) -> float:
        return self.value


def certify(
    raw: np.ndarray, epsilon: float, delta: float, eta: float | None
) -> tuple[Channel, float, np.ndarray]:
    """Clean solver output into a channel that meets (epsilon, delta, eta) exactly.

    Returns the certified channel, how far the matrix moved (largest lift or mixing weight)
    and the indices of the solver's outputs that were kept; raises :class:`DesignError`
    when the repair would exceed :data:`REPAIR_TOLERANCE`.
    """
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
        current = float(candidate.delta(epsilon))
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


def certified_result(
    raw, objective, status, solver, method, epsilon, delta, eta, utility_fn, **extras
) -> DesignResult:
    """Certify ``raw`` and wrap it with its recomputed utility and privacy."""
    channel, weight, kept = certify(raw, epsilon, delta, eta)
    return DesignResult(
        channel=channel,
        value=float(utility_fn(channel.matrix, kept)),
        objective=float(objective),
        status=status,
        solver=solver,
        method=method,
        epsilon=channel.epsilon,
        delta=float(channel.delta(epsilon)),
        tv=channel.tv,
        repair=weight,
        extras={"kept_outputs": kept, **extras},
    )


def check_solver(solver: str | None, default: str) -> str:
    """The upper-case name of an installed cvxpy solver (``default`` when ``None``)."""
    name = default if solver is None else solver
    if not isinstance(name, str):
        raise TypeError(f"solver must be a string, got {name!r}")
    installed = cp.installed_solvers()
    if name.upper() not in installed:
        raise ValueError(f"unknown or uninstalled solver {name!r}; installed: {installed}")
    return name.upper()


def solve(problem: cp.Problem, solver: str) -> None:
    """Solve quietly; infeasible or failed solves raise :class:`DesignError`."""
    try:
        with quiet_stdout():  # HiGHS prints a banner on descriptor 1
            problem.solve(solver=solver)
    except cp.error.SolverError as exc:
        raise DesignError(f"solver {solver} failed: {exc}") from None
    if problem.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        raise DesignError("the budget is infeasible for this problem")
    if problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise DesignError(f"solver {solver} ended with status {problem.status!r}")

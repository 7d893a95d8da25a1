"""Linear utilities (Bayes decision problems): the compiled channel LP."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike

from ldp._progress import progress as show_progress
from ldp._validation import as_real_array, check_epsilon, check_probability
from ldp.design.certify import MAX_EPSILON, DesignResult, certified_result, check_solver, solve
from ldp.design.utility import check_prior

__all__ = ["LinearDesign"]


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
        self.prior = np.full(k, 1.0 / k) if prior is None else check_prior(prior, k)
        self.delta = check_probability(delta, "delta")
        self.eta = None if eta is None else check_probability(eta, "eta")
        self.solver = check_solver(solver, "CLARABEL")
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
        eps = check_epsilon(epsilon, high=MAX_EPSILON, allow_inf=False)
        self._gamma.value = math.exp(eps)
        solve(self._problem, self.solver)
        weights = self.prior[:, None] * self.gains

        def value(matrix: np.ndarray, kept: np.ndarray) -> float:
            return float(np.sum(weights[:, kept] * matrix))

        method = "linear LP (" + ("row-min" if self.delta == 0 else "hockey-stick") + " form)"
        return certified_result(
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

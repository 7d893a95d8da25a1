r"""Linear utilities (Bayes decision problems): the compiled channel LP.

For pure LDP (``delta = 0``, no eta-TV budget) the LP is solved by HiGHS's dual simplex
through :func:`scipy.optimize.linprog`, in a form with half the rows of the textbook one:
each column ``K[:, z]`` is its minimum ``low_z`` plus a part ``y[:, z]`` with
``0 <= y[x, z] <= (e^eps - 1) low_z``, which is exactly ``low_z <= K[x, z] <= e^eps low_z``
(so ``max_x K[x, z] <= e^eps min_x K[x, z]``). The rows are then ``k m`` inequalities of two
nonzeros each and ``k`` row sums, built once per design; only the ``e^eps`` entries change
between solves. Above ``eps = log 2`` the variable ``u_z = (e^eps - 1) low_z`` replaces
``low_z`` (``y <= u``, ``K = y + u / (e^eps - 1)``), so no coefficient exceeds one in size at
any epsilon. Other budgets, and an explicit ``solver=``, use the cvxpy program. Either way
the solver's matrix is certified (:func:`ldp.design.certify.certify`) before it is returned.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from scipy.optimize import linprog

from ldp._progress import progress as show_progress
from ldp._quiet import quiet_stdout
from ldp._validation import as_real_array, check_epsilon, check_probability
from ldp.design.certify import (
    MAX_EPSILON,
    DesignError,
    DesignResult,
    certified_result,
    check_solver,
    solve,
)
from ldp.design.utility import check_prior

__all__ = ["LinearDesign"]

#: HiGHS options of the pure-LDP form (tight tolerances: certification measures the rest).
_HIGHS_OPTIONS = {
    "presolve": False,  # the form has nothing to remove; presolve only costs time
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
}


class LinearDesign:
    """A compiled linear-utility channel LP, re-solved cheaply for each epsilon.

    Maximises ``sum_x prior_x sum_z K[x, z] gains[x, z]`` over ``k x m`` channels subject to
    (eps, delta)-LDP and optionally eta-TV. For pure LDP the sparse LP is built once and
    solved by HiGHS (see the module docstring); otherwise ``e^eps`` is a cvxpy
    ``Parameter`` and the problem is canonicalised once, on the first :meth:`solve`.

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
        A cvxpy solver name. By default pure LDP is solved by HiGHS directly, other budgets
        by cvxpy with Clarabel.

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
        self._direct = solver is None and self.delta == 0.0 and self.eta is None
        if self._direct:  # no cvxpy: not even its (slow) list of installed solvers
            self.solver = "HIGHS"
            self._build_pure(k, m)
            return
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

    def _build_pure(self, k: int, m: int) -> None:
        """The sparse pure-LDP form: variables ``y`` (``k m``, row-major) then ``v`` (``m``)."""
        km = k * m
        entries = np.arange(km)
        column = np.tile(np.arange(m), k)  # z of each entry
        # y[x, z] - b v_z <= 0: two nonzeros per row, the second one set by each solve
        self._ub_indices = np.column_stack([entries, km + column]).ravel()
        self._ub_indptr = np.arange(0, 2 * km + 1, 2)
        # sum_z y[x, z] + a sum_z v_z = 1: row x holds y[x, :] then all of v
        own = entries.reshape(k, m)
        shared = np.broadcast_to(km + np.arange(m), (k, m))
        self._eq_indices = np.hstack([own, shared]).ravel()
        self._eq_indptr = np.arange(0, 2 * km + 1, 2 * m)
        self._weights = (self.prior[:, None] * self.gains).ravel()
        self._column_weights = (self.prior[:, None] * self.gains).sum(axis=0)
        self._shape = (k, m)

    def _solve_pure(self, eps: float) -> tuple[np.ndarray, float]:
        """HiGHS on the sparse form at ``eps``: ``(raw K, objective)``."""
        k, m = self._shape
        km = k * m
        t = math.expm1(eps)
        # K = y + a v with y <= b v: (a, b) = (1, t) (v = low) or (1/t, 1) (v = t low)
        a, b = (1.0, t) if t <= 1.0 else (1.0 / t, 1.0)
        ub_data = np.empty(2 * km)
        ub_data[0::2], ub_data[1::2] = 1.0, -b
        a_ub = sparse.csr_matrix((ub_data, self._ub_indices, self._ub_indptr), shape=(km, km + m))
        eq_data = np.hstack([np.ones((k, m)), np.full((k, m), a)]).ravel()
        a_eq = sparse.csr_matrix((eq_data, self._eq_indices, self._eq_indptr), shape=(k, km + m))
        cost = -np.concatenate([self._weights, a * self._column_weights])
        with quiet_stdout():
            res = linprog(
                cost,
                A_ub=a_ub,
                b_ub=np.zeros(km),
                A_eq=a_eq,
                b_eq=np.ones(k),
                bounds=(0, None),
                method="highs-ds",
                options=_HIGHS_OPTIONS,
            )
        if res.status != 0 or res.x is None:
            raise DesignError(f"HiGHS ended with status {res.status}: {res.message}")
        raw = res.x[:km].reshape(k, m) + a * res.x[km:][None, :]
        return raw, -float(res.fun)

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
        weights = self.prior[:, None] * self.gains
        raw: np.ndarray | None
        if self._direct:
            raw, objective = self._solve_pure(eps)
            status = "optimal"
        else:
            self._gamma.value = math.exp(eps)
            solve(self._problem, self.solver)
            raw, objective, status = (
                self._matrix.value,
                self._problem.value,
                self._problem.status,
            )

        def value(matrix: np.ndarray, kept: np.ndarray) -> float:
            return float(np.sum(weights[:, kept] * matrix))

        method = "linear LP (" + ("row-min" if self.delta == 0 else "hockey-stick") + " form)"
        return certified_result(
            raw,
            objective,
            status,
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

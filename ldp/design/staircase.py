"""Sublinear utilities: the staircase LP of Kairouz-Oh-Viswanath (2016) and its reductions
(subset selection for symmetric utilities, likelihood-ratio intervals for two hypotheses)."""

from __future__ import annotations

import math
from dataclasses import replace

import cvxpy as cp
import numpy as np
from scipy.special import comb

from ldp._formulas import subset_selection_entries, subset_selection_matrix
from ldp.design.certify import DesignError, DesignResult, certified_result, solve
from ldp.design.utility import Sublinear

__all__ = [
    "MAX_ENTRIES",
    "MAX_STAIRCASE_K",
    "all_patterns",
    "interval_patterns",
    "staircase",
    "subset_selection",
    "weight_class_bound",
]

#: Largest alphabet for the exact staircase LP (2^k - 1 columns).
MAX_STAIRCASE_K = 16
#: Largest matrix (entries) materialised for a subset-selection optimum.
MAX_ENTRIES = 4_000_000


def all_patterns(k: int) -> np.ndarray:
    """All ``2^k - 1`` binary patterns except the all-ones one, as a (k, J) 0/1 matrix."""
    codes = np.arange(2**k - 1, dtype=np.int64)  # all-zero kept; all-ones dropped (same column)
    return ((codes[None, :] >> np.arange(k)[:, None]) & 1).astype(np.float64)


def interval_patterns(order: np.ndarray) -> np.ndarray:
    """Patterns with e^eps on a contiguous block of ``order`` (plus the constant one)."""
    k = order.size
    blocks = [(i, j) for i in range(k) for j in range(i + 1, k + 1) if (i, j) != (0, k)]
    patterns = np.zeros((k, len(blocks) + 1))
    for col, (i, j) in enumerate(blocks):
        patterns[order[i:j], col] = 1.0
    return patterns


def staircase(
    utility: Sublinear, patterns: np.ndarray, epsilon: float, solver: str, method: str
) -> DesignResult:
    gamma = math.exp(epsilon)
    columns = 1.0 + (gamma - 1.0) * patterns
    mu = utility.column_values(columns)
    theta = cp.Variable(columns.shape[1], nonneg=True)
    problem = cp.Problem(cp.Maximize(mu @ theta), [columns @ theta == 1])
    solve(problem, solver)
    weights = np.clip(np.asarray(theta.value, dtype=np.float64), 0.0, None)
    raw = columns * weights[None, :]
    raw = raw[:, weights > 0]
    return certified_result(
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


def weight_class_bound(utility: Sublinear, k: int, epsilon: float) -> float:
    """An upper bound on the optimum of a symmetric utility over every eps-LDP channel.

    The staircase LP ``max mu.theta`` s.t. ``S theta = 1`` over the patterns
    ``S in {1, e^eps}^k`` holds the optimum (Kairouz-Oh-Viswanath (2016)). For a symmetric
    utility ``mu(S)`` depends only on the number ``w`` of entries ``e^eps``, so the dual
    point ``lambda = c 1`` with ``c = max_w mu_w / (k + (e^eps - 1) w)`` is feasible for all
    ``2^k`` patterns at once, and ``k c`` bounds the optimum. (Subset selection of the best
    size attains it, so the bound is tight.)
    """
    t = math.expm1(epsilon)
    weights = np.arange(k + 1)
    patterns = 1.0 + t * (np.arange(k)[:, None] < weights[None, :])  # column w: w of e^eps
    values = utility.column_values(patterns)
    return max(float(k * np.max(values / (k + t * weights))), 0.0)


def _gap(value: float, upper: float) -> float:
    return max(0.0, (upper - value) / upper) if upper > 0 else 0.0


def subset_selection(utility: Sublinear, k: int, epsilon: float) -> DesignResult:
    """Weight-class reduction: the best subset-selection channel (exact for symmetric
    utilities; KOV Section 5 / Wang et al. 2016), with the gap its dual certifies.

    When the channel has more than ``MAX_ENTRIES`` entries the result holds no matrix: its
    ``mechanism`` is :class:`ldp.mechanisms.SubsetSelection` of that size, whose privacy and
    utility are recomputed from the mechanism's own probabilities.
    """
    best = None
    for w in range(1, k):
        inside, outside = subset_selection_entries(k, w, epsilon)
        column = np.full(k, outside)
        column[:w] = inside
        # the column of one subset, scaled by its probability; sublinear: mu(c x) = c mu(x)
        value = comb(k, w) * float(utility.column_values(column[:, None])[0])
        if best is None or value > best[0] + 1e-15:
            best = (value, w)
    assert best is not None  # the loop ran over at least one size
    value, w = best
    size = int(comb(k, w, exact=True))
    # the dual certificate and the structured optimum need every column of a size to have
    # one value: a symmetric utility (mutual information under the uniform prior)
    upper = weight_class_bound(utility, k, epsilon) if utility.symmetric else None
    method = f"weight-class reduction (subset selection, w={w})"
    if size * k > MAX_ENTRIES:
        if upper is None:
            raise ValueError(
                f"k = {k}: subset selection with subsets of size {w} has {size} outputs, too "
                "many to score as a matrix for a utility that is not symmetric"
            )
        return _structured_subset_selection(utility, k, w, epsilon, value, upper, method)
    raw = subset_selection_matrix(k, w, epsilon)
    result = certified_result(
        raw,
        value,
        "optimal",
        "closed form",
        method,
        epsilon,
        0.0,
        None,
        utility.of_channel,
        subset_size=w,
        **({} if upper is None else {"upper_bound": upper}),
    )
    return result if upper is None else replace(result, gap=_gap(result.value, upper))


def _structured_subset_selection(
    utility: Sublinear, k: int, d: int, epsilon: float, objective: float, upper: float, method: str
) -> DesignResult:
    """The optimum as the subset-selection mechanism, certified without its matrix.

    Its ``C(k, d)`` columns are the permutations of one column: ``P(S | x) = p / C(k-1, d-1)``
    for ``x in S`` and ``(1 - p) / C(k-1, d)`` otherwise, with ``p`` the mechanism's chance of
    reporting a subset that holds the input. A sublinear utility is positively homogeneous,
    so the ``C(k, d)`` equal column values sum to the value of one column scaled by
    ``C(k, d)``: entries ``p k / d`` and ``(1 - p) k / (k - d)``.
    """
    from ldp.mechanisms import SubsetSelection

    if not utility.symmetric:
        raise ValueError("a structured subset-selection optimum needs a symmetric utility")
    mechanism = SubsetSelection(k, epsilon, d=d)
    p = mechanism.p
    column = np.full(k, (1.0 - p) * k / (k - d))
    column[:d] = p * k / d
    value = max(float(utility.column_values(column[:, None])[0]), 0.0)
    certified = mechanism.epsilon  # from the sampler's own law, rounded upwards
    if not certified <= epsilon * (1.0 + 1e-12):
        raise DesignError(
            f"the subset-selection mechanism realises epsilon = {certified!r}, above the budget "
            f"{epsilon!r}"
        )
    return DesignResult(
        channel=None,
        mechanism=mechanism,
        value=value,
        objective=float(objective),
        status="optimal",
        solver="closed form",
        method=f"{method}, {math.comb(k, d)} outputs: held as a mechanism, not a matrix",
        epsilon=certified,
        delta=float(mechanism.delta(epsilon)),
        tv=float(mechanism.tv),
        gap=_gap(value, upper),
        extras={"subset_size": d, "n_outputs": math.comb(k, d), "upper_bound": upper},
    )

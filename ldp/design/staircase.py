"""Sublinear utilities: the staircase LP of Kairouz-Oh-Viswanath (2016) and its reductions
(subset selection for symmetric utilities, likelihood-ratio intervals for two hypotheses)."""

from __future__ import annotations

import math
from dataclasses import replace

import cvxpy as cp
import numpy as np
from scipy.special import comb

from ldp._formulas import subset_selection_entries, subset_selection_matrix
from ldp._staircase_lp import mi_column_value
from ldp.design.certify import DesignError, DesignResult, certified_result, solve
from ldp.design.utility import Sublinear

__all__ = [
    "MAX_ENTRIES",
    "MAX_STAIRCASE_K",
    "all_patterns",
    "interval_patterns",
    "staircase",
    "subset_selection",
    "weight_class_values",
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


def weight_class_values(utility: Sublinear, k: int, epsilon: float) -> np.ndarray:
    """For a symmetric utility, ``k mu_w / (k + (e^eps - 1) w)`` for ``w = 0 .. k``, with
    ``mu_w`` the value of a staircase column with ``w`` entries ``e^eps``.

    Two facts follow for the staircase LP ``max mu.theta`` s.t. ``S theta = 1`` over the
    patterns ``S in {1, e^eps}^k``, which holds the optimum over every eps-LDP channel
    (Kairouz-Oh-Viswanath (2016)). Subset selection with subsets of size ``w`` (every
    pattern of weight ``w``, equally weighted) is feasible with value ``k mu_w / (k + t w)``;
    and as ``mu`` depends only on the weight, the dual point ``lambda = c 1`` with
    ``c = max_w mu_w / (k + t w)`` is feasible for all ``2^k`` patterns at once, so the
    largest entry bounds the optimum: the best size attains the bound.
    """
    t = math.expm1(epsilon)
    weights = np.arange(k + 1)
    if utility.name == "mi":  # in closed form (log1p): exact to rounding even at tiny eps
        values = mi_column_value(weights / k, epsilon, t)
    else:
        patterns = 1.0 + t * (np.arange(k)[:, None] < weights[None, :])  # column w: w of e^eps
        values = utility.column_values(patterns)
    return k * values / (k + t * weights)


def _gap(value: float, upper: float) -> float:
    """The relative gap ``(upper - value) / upper``; 0 when ``value`` reaches the bound (or
    the bound is 0: at eps = 0 every channel has the optimum's utility, 0)."""
    return (upper - value) / upper if upper > value else 0.0


def subset_selection(utility: Sublinear, k: int, epsilon: float) -> DesignResult:
    """Weight-class reduction: the best subset-selection channel (exact for symmetric
    utilities; KOV Section 5 / Wang et al. 2016), with the gap its dual certifies.

    When the channel has more than ``MAX_ENTRIES`` entries the result holds no matrix: its
    ``mechanism`` is :class:`ldp.mechanisms.SubsetSelection` of that size, whose privacy and
    utility are recomputed from the mechanism's own probabilities.
    """
    upper: float | None = None
    if utility.symmetric:
        # every column of a size has one value (mutual information under the uniform prior):
        # the best size, and the dual bound it attains
        values = weight_class_values(utility, k, epsilon)
        w = 1 + int(np.argmax(values[1:k]))  # the smallest of equal sizes
        value, upper = float(values[w]), max(float(np.max(values)), 0.0)
    else:
        best = None
        for size in range(1, k):
            inside, outside = subset_selection_entries(k, size, epsilon)
            column = np.full(k, outside)
            column[:size] = inside
            # the column of one subset, scaled by its probability; sublinear: mu(c x) = c mu(x)
            score = comb(k, size) * float(utility.column_values(column[:, None])[0])
            if best is None or score > best[0] + 1e-15:
                best = (score, size)
        assert best is not None  # the loop ran over at least one size
        value, w = best
    size = int(comb(k, w, exact=True))
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
    if utility.name == "mi":
        # under the uniform prior every subset is equally likely, C(k, d)^-1, so the
        # information is KL(Bernoulli(p) || Bernoulli(d / k)); with log1p it keeps its digits
        # when p is close to d / k (a tiny epsilon), where the column's sum cancels
        q = d / k
        value = p * math.log1p((p - q) / q) + (1.0 - p) * math.log1p((q - p) / (1.0 - q))
    else:
        column = np.full(k, (1.0 - p) * k / (k - d))
        column[:d] = p * k / d
        value = float(utility.column_values(column[:, None])[0])
    value = max(value, 0.0)
    # from the sampler's own law, rounded upwards: a log of the law's weights, so its rounding
    # is absolute (about 1e-15), which is relative at a tiny epsilon
    certified = mechanism.epsilon
    if not certified <= epsilon * (1.0 + 1e-12) + 1e-13:
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

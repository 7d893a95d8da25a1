"""Sublinear utilities: the staircase LP of Kairouz-Oh-Viswanath (2016) and its reductions
(subset selection for symmetric utilities, likelihood-ratio intervals for two hypotheses)."""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
from scipy.special import comb

from ldp._formulas import subset_selection_entries, subset_selection_matrix
from ldp.design.certify import DesignResult, certified_result, solve
from ldp.design.utility import Sublinear

__all__ = [
    "MAX_ENTRIES",
    "MAX_STAIRCASE_K",
    "all_patterns",
    "interval_patterns",
    "staircase",
    "subset_selection",
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


def subset_selection(utility: Sublinear, k: int, epsilon: float) -> DesignResult:
    """Weight-class reduction: the best subset-selection channel (exact for symmetric
    utilities; KOV Section 5 / Wang et al. 2016)."""
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
    if size * k > MAX_ENTRIES:
        raise ValueError(
            f"k = {k}: the optimum is subset selection with subsets of size {w} ({size} outputs), "
            f"too large to hold as a matrix; use ldp.mechanisms for a subset-selection oracle"
        )
    raw = subset_selection_matrix(k, w, epsilon)
    return certified_result(
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

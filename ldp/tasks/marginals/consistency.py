"""Make estimated marginals agree where they overlap, and be distributions.

Two marginals that share columns ``A`` estimate the same marginal of ``A`` twice; their
projections onto ``A`` differ by noise. Mutual consistency (Qardaji, Yang, Li 2014, PriView,
Section 4.3; as used by Zhang et al. (2018), CALM, Section 4.4) replaces both
projections by their inverse-variance weighted average and spreads each table's change
evenly over the cells that project onto the same cell of ``A``; the shared column sets are
processed from the smallest up. Norm-Sub (:func:`ldp.tasks.norm_sub`) then makes each table
non-negative and sum to one; the two steps alternate (CALM's iteration) until every overlap
agrees within ``tol`` and every table is a distribution. All of it is post-processing: it
costs no privacy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import check_integer, check_scalar
from ldp.tasks.consistency import norm_sub
from ldp.tasks.marginals.cells import cell_index, cell_values, check_sizes, marginalize

__all__ = ["consistent_marginals", "overlap_gap", "shared_columns"]


def shared_columns(tables: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """The non-empty column sets that two or more tables share (closed under intersection),
    smallest first.

    Examples
    --------
    >>> from ldp.tasks.marginals import shared_columns
    >>> shared_columns([(0, 1), (1, 2), (0, 2)])
    [(0,), (1,), (2,)]
    """
    sets = [frozenset(t) for t in tables]
    found: set[frozenset[int]] = set()
    frontier = {a & b for i, a in enumerate(sets) for b in sets[i + 1 :]} - {frozenset()}
    while frontier:
        found |= frontier
        frontier = {a & b for a in found for b in found} - found - {frozenset()}
    return [tuple(sorted(s)) for s in sorted(found, key=lambda s: (len(s), sorted(s)))]


def _projection_index(table: tuple[int, ...], sizes, shared: tuple[int, ...]) -> np.ndarray:
    """For each cell of ``table``, the cell of its projection on ``shared``."""
    dims = [sizes[c] for c in table]
    codes = cell_values(np.arange(math.prod(dims)), dims)
    return cell_index([codes[table.index(c)] for c in shared], [sizes[c] for c in shared])


def _project(table: ArrayLike, cols: tuple[int, ...], sizes, shared: tuple[int, ...]):
    return marginalize(table, [sizes[c] for c in cols], [cols.index(c) for c in shared])


def overlap_gap(
    tables: Sequence[Sequence[int]], sizes: Sequence[int], estimates: Sequence[ArrayLike]
) -> float:
    """The largest disagreement between two tables' projections on a shared column set.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks.marginals import overlap_gap
    >>> overlap_gap([(0, 1), (1, 2)], (2, 2, 2), [np.full(4, 0.25), [0.4, 0.1, 0.3, 0.2]])
    0.0
    """
    dims = check_sizes(sizes)
    cols = [tuple(t) for t in tables]
    gap = 0.0
    for shared in shared_columns(cols):
        holders = [i for i, t in enumerate(cols) if set(shared) <= set(t)]
        proj = [_project(estimates[i], cols[i], dims, shared) for i in holders]
        gap = max(gap, float(np.ptp(np.stack(proj), axis=0).max()))
    return gap


def consistent_marginals(
    tables: Sequence[Sequence[int]],
    sizes: Sequence[int],
    estimates: Sequence[ArrayLike],
    variances: Sequence[ArrayLike],
    *,
    tol: float = 1e-9,
    max_iter: int = 1000,
) -> list[np.ndarray]:
    """Overlapping marginals made consistent and non-negative (see the module docstring).

    Parameters
    ----------
    tables : sequence of tuple of int
        The columns of each marginal.
    sizes : sequence of int
        Categories of every column.
    estimates : sequence of array_like
        Each marginal's unbiased estimate, flat over its cells (row-major).
    variances : sequence of array_like
        Each marginal's per-cell variance (the weights of the averages).
    tol : float, default 1e-9
        Largest disagreement left on an overlap.
    max_iter : int, default 1000
        Largest number of rounds of consistency and Norm-Sub.

    Returns
    -------
    list of ndarray
        One distribution per table; overlapping tables agree within ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks.marginals import consistent_marginals, overlap_gap
    >>> tables, sizes = [(0, 1), (1, 2)], (2, 2, 2)
    >>> raw = [np.array([0.3, 0.3, 0.3, 0.1]), np.array([0.5, 0.2, -0.1, 0.4])]
    >>> out = consistent_marginals(tables, sizes, raw, [np.ones(4), np.ones(4)])
    >>> overlap_gap(tables, sizes, out) < 1e-9, [bool(t.min() >= 0) for t in out]
    (True, [True, True])
    """
    dims = check_sizes(sizes)
    limit = check_scalar(tol, "tol", low=0.0, low_open=True)
    rounds = check_integer(max_iter, "max_iter", low=1)
    cols = [tuple(int(c) for c in t) for t in tables]
    if len(estimates) != len(cols) or len(variances) != len(cols):
        raise ValueError("estimates and variances must have one entry per table")
    tabs = [np.asarray(e, dtype=np.float64).copy() for e in estimates]
    for t, e in zip(cols, tabs):
        if e.shape != (math.prod(dims[c] for c in t),):
            raise ValueError(f"the estimate of table {t} must have one entry per cell")
    # a table's weight on a shared set: 1 / variance of its projection's cells
    mean_var = [max(float(np.mean(np.asarray(v, dtype=np.float64))), 1e-300) for v in variances]
    plan = []
    for shared in shared_columns(cols):
        holders = [i for i, t in enumerate(cols) if set(shared) <= set(t)]
        index = [_projection_index(cols[i], dims, shared) for i in holders]
        k_shared = math.prod(dims[c] for c in shared)
        spread = [tabs[i].size // k_shared for i in holders]
        weight = np.array([1.0 / (mean_var[i] * s) for i, s in zip(holders, spread)])
        plan.append((holders, index, k_shared, spread, weight / weight.sum()))
    for _ in range(rounds):
        for holders, index, k_shared, spread, weight in plan:
            proj = [np.bincount(ix, tabs[i], k_shared) for i, ix in zip(holders, index)]
            target = np.tensordot(weight, np.stack(proj), axes=1)
            for i, ix, p, s in zip(holders, index, proj, spread):
                tabs[i] = tabs[i] + ((target - p) / s)[ix]
        tabs = [norm_sub(t) for t in tabs]
        if not plan or overlap_gap(cols, dims, tabs) <= limit:
            break
    return tabs

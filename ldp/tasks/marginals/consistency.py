"""Make estimated marginals agree where they overlap, and be distributions.

Two marginals that share columns ``A`` estimate the same marginal of ``A`` twice; their
projections onto ``A`` differ by noise. Mutual consistency (Qardaji, Yang, Li 2014, PriView,
Section 4.3; as used by Zhang et al. (2018), CALM, Section 4.4) replaces both
projections by their inverse-variance weighted average and spreads each table's change
evenly over the cells that project onto the same cell of ``A``.

:func:`consistent_marginals` does it in two steps. The *linear* step
(:func:`consistent_projection`) is the weighted least-squares projection of all the tables
onto the tables that are marginals of one signed joint summing to one: it minimises
``sum_t ||z_t - y_t||^2 / v_t`` (``v_t`` a table's mean cell variance). In the orthogonal
(ANOVA) decomposition of a table into components, one per subset ``S`` of its columns
(a function of the columns ``S`` that sums to zero along each of them), the tables agree
exactly when their components agree, so the projection sets every table's total to one
and replaces each component ``S`` shared by several tables by the weighted average of
theirs, with weights proportional to ``1 / (v_t m_t)``, ``m_t`` the cells of table ``t``
per cell of ``S`` (:func:`component_weights`; the inverse variances of the tables'
marginals on ``S`` when a table's cells have equal variances). Its output is an exact
linear function of the estimates, so its covariance is exact
(:meth:`ldp.tasks.marginals.MarginalDesign.consistent_variance`). The non-linear step
follows: Norm-Sub (:func:`ldp.tasks.norm_sub`) makes each table non-negative and sum to
one, alternated with mutual consistency on the shared column sets, from the smallest up
(CALM's iteration), until every overlap agrees within ``tol`` and every table is a
distribution. All of it is post-processing: it costs no privacy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import check_integer, check_scalar, describe
from ldp.tasks.consistency import norm_sub
from ldp.tasks.marginals.cells import cell_index, cell_values, check_sizes, marginalize

__all__ = [
    "component_weights",
    "consistent_marginals",
    "consistent_projection",
    "overlap_gap",
    "shared_columns",
]

#: The smallest mean cell variance a table is weighted by (a table of one cell has none).
_TINY_VARIANCE = 1e-300


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


def component_weights(mean_variances: ArrayLike, spreads: ArrayLike) -> np.ndarray:
    """The weights of the tables holding a column set ``S`` in its consistent estimate:
    proportional to ``1 / (v_t m_t)`` and summing to one.

    ``v_t`` is table ``t``'s mean cell variance and ``m_t`` its cells per cell of ``S``;
    ``v_t m_t`` is the variance of a cell of its marginal on ``S`` when its cells have
    equal variances and no covariance (one home for the weights of
    :func:`consistent_projection`, :func:`consistent_marginals` and
    :meth:`~ldp.tasks.marginals.MarginalDesign.consistent_variance`).

    Examples
    --------
    >>> from ldp.tasks.marginals import component_weights
    >>> component_weights([1.0, 3.0], [2, 2]).tolist()
    [0.75, 0.25]
    """
    var = np.maximum(np.asarray(mean_variances, dtype=np.float64), _TINY_VARIANCE)
    weight = 1.0 / (var * np.asarray(spreads, dtype=np.float64))
    return weight / weight.sum()


def _mean_variances(variances: Sequence[ArrayLike]) -> list[float]:
    return [float(np.mean(np.asarray(v, dtype=np.float64))) for v in variances]


def _component(table: np.ndarray, dims: Sequence[int]) -> np.ndarray:
    """The component of a flat table over ``dims`` that sums to zero along every axis."""
    out = np.asarray(table, dtype=np.float64).reshape(tuple(dims))
    for axis in range(len(dims)):
        out = out - out.mean(axis=axis, keepdims=True)
    return out.reshape(-1)


def _shared_components(cols: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The non-empty column sets held by two or more tables (every subset of a shared set)."""
    found = {
        subset
        for shared in shared_columns(cols)
        for r in range(1, len(shared) + 1)
        for subset in combinations(shared, r)
    }
    return sorted(found, key=lambda s: (len(s), s))


def _check_tables(tables, sizes, estimates, variances):
    dims = check_sizes(sizes)
    cols = [tuple(int(c) for c in t) for t in tables]
    if len(estimates) != len(cols) or len(variances) != len(cols):
        raise ValueError("estimates and variances must have one entry per table")
    tabs = [np.asarray(e, dtype=np.float64).copy() for e in estimates]
    for t, e, v in zip(cols, tabs, variances):
        if e.shape != (math.prod(dims[c] for c in t),):
            raise ValueError(f"the estimate of table {t} must have one entry per cell")
        if not np.all(np.isfinite(e)):
            raise ValueError(f"estimates of table {t} must be finite, got {describe(e)}")
        var = np.asarray(v, dtype=np.float64)
        if var.size == 0 or not np.all(np.isfinite(var)) or np.any(var < 0):
            raise ValueError(f"variances of table {t} must be finite and >= 0, got {describe(v)}")
    return dims, cols, tabs


def consistent_projection(
    tables: Sequence[Sequence[int]],
    sizes: Sequence[int],
    estimates: Sequence[ArrayLike],
    variances: Sequence[ArrayLike],
) -> list[np.ndarray]:
    """The linear step of :func:`consistent_marginals`: the weighted least-squares
    projection of the tables onto mutually consistent tables that sum to one.

    It minimises ``sum_t ||z_t - y_t||^2 / v_t`` over the tables ``z_t`` that are the
    marginals of one signed joint of total one, ``v_t`` the mean of table ``t``'s cell
    variances: every table's total becomes one and every component shared by several
    tables their average with :func:`component_weights` (see the module docstring). The
    tables may have negative cells; consistent tables that sum to one are returned as they
    are.

    Parameters
    ----------
    tables : sequence of tuple of int
        The columns of each marginal.
    sizes : sequence of int
        Categories of every column.
    estimates : sequence of array_like
        Each marginal's unbiased estimate, flat over its cells (row-major).
    variances : sequence of array_like
        Each marginal's per-cell variance (the weights are the inverse of their means).

    Returns
    -------
    list of ndarray
        One table per table, consistent on every overlap and summing to one.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks.marginals import consistent_projection, marginalize
    >>> out = consistent_projection([(0, 1), (0, 2)], (2, 2, 2),
    ...     [np.array([0.2, 0.2, 0.3, 0.3]), np.array([0.3, 0.3, 0.2, 0.2])],
    ...     [np.full(4, 1.0), np.full(4, 3.0)])
    >>> [marginalize(t, (2, 2), (0,)).round(3).tolist() for t in out]
    [[0.45, 0.55], [0.45, 0.55]]
    """
    dims, cols, tabs = _check_tables(tables, sizes, estimates, variances)
    mean_var = _mean_variances(variances)
    out = [t + (1.0 - t.sum()) / t.size for t in tabs]
    for shared in _shared_components(cols):
        holders = [i for i, t in enumerate(cols) if set(shared) <= set(t)]
        shared_dims = [dims[c] for c in shared]
        k_shared = math.prod(shared_dims)
        spread = [tabs[i].size // k_shared for i in holders]
        parts = [_component(_project(tabs[i], cols[i], dims, shared), shared_dims) for i in holders]
        weight = component_weights([mean_var[i] for i in holders], spread)
        target = np.tensordot(weight, np.stack(parts), axes=1)
        for i, part, s in zip(holders, parts, spread):
            out[i] = out[i] + ((target - part) / s)[_projection_index(cols[i], dims, shared)]
    return out


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

    The linear step :func:`consistent_projection` first; when all its cells are
    non-negative, its tables are returned (the rounds of mutual consistency and Norm-Sub
    change nothing), else those rounds follow.

    Parameters
    ----------
    tables : sequence of tuple of int
        The columns of each marginal.
    sizes : sequence of int
        Categories of every column.
    estimates : sequence of array_like
        Each marginal's unbiased estimate, flat over its cells (row-major).
    variances : sequence of array_like
        Each marginal's per-cell variance (the weights of the averages: the inverse of
        their means, :func:`component_weights`).
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
    limit = check_scalar(tol, "tol", low=0.0, low_open=True)
    rounds = check_integer(max_iter, "max_iter", low=1)
    dims, cols, _ = _check_tables(tables, sizes, estimates, variances)
    tabs = consistent_projection(cols, dims, estimates, variances)
    mean_var = _mean_variances(variances)
    plan = []
    for shared in shared_columns(cols):
        holders = [i for i, t in enumerate(cols) if set(shared) <= set(t)]
        index = [_projection_index(cols[i], dims, shared) for i in holders]
        k_shared = math.prod(dims[c] for c in shared)
        spread = [tabs[i].size // k_shared for i in holders]
        weight = component_weights([mean_var[i] for i in holders], spread)
        plan.append((holders, index, k_shared, spread, weight))
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

"""Cells of a tuple of categorical columns, and marginals of a table as a linear map.

A table over columns with ``sizes = (k_1, ..., k_d)`` categories is a flat vector of
``prod(sizes)`` cells in row-major (C) order: the cell of the values ``(x_1, ..., x_d)`` is
``((x_1 k_2 + x_2) k_3 + ...) + x_d``. The marginal of the columns ``keep`` sums the other
axes: a linear map ``A`` with one 1 per column of the table, so an estimate ``t`` with
covariance ``S`` has the marginal ``A t`` with covariance ``A S A^T``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import describe

__all__ = [
    "MAX_TABLE_CELLS",
    "cell_index",
    "cell_values",
    "check_cells",
    "check_sizes",
    "marginal_matrix",
    "marginalize",
]

#: The most cells a table (a joint or a marginal) may have: one float64 vector of it is
#: 128 MiB. Larger tables are refused before anything is allocated.
MAX_TABLE_CELLS = 1 << 24


def check_sizes(sizes: Sequence[int], name: str = "sizes") -> tuple[int, ...]:
    """A tuple of category counts, each an integer ``>= 1``."""
    out = []
    for j, k in enumerate(sizes):
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"{name}[{j}] must be an integer >= 1, got {describe(k)}")
        out.append(int(k))
    return tuple(out)


def check_cells(
    sizes: Sequence[int], what: str, limit: int = MAX_TABLE_CELLS, limit_name: str = ""
) -> int:
    """The number of cells of a table over ``sizes``; ``ValueError`` naming the limit above it.

    Checked with Python integers (no overflow) before anything is allocated.
    """
    cells = math.prod(check_sizes(sizes))
    if cells > limit:
        label = limit_name or "MAX_TABLE_CELLS (ldp.tasks.marginals)"
        raise ValueError(
            f"{what} has {cells:,} cells (the product of its columns' sizes {tuple(sizes)}); "
            f"the limit is {label} = {limit:,}"
        )
    return cells


def cell_index(codes: Sequence[ArrayLike], sizes: Sequence[int]) -> np.ndarray:
    """The flat cell of each row: ``codes[j]`` are the category codes of column ``j``.

    Examples
    --------
    >>> from ldp.tasks.marginals import cell_index
    >>> cell_index([[0, 1, 1], [2, 0, 2]], (2, 3)).tolist()
    [2, 3, 5]
    """
    dims = check_sizes(sizes)
    if len(codes) != len(dims):
        raise ValueError(f"codes must have one array per column ({len(dims)}), got {len(codes)}")
    arrays = [np.asarray(c, dtype=np.int64) for c in codes]
    for j, (c, k) in enumerate(zip(arrays, dims)):
        if c.size and (c.min() < 0 or c.max() >= k):
            raise ValueError(f"codes[{j}] must lie in 0 .. {k - 1}")
    if not arrays:
        return np.zeros(0, dtype=np.int64)
    return np.ravel_multi_index(arrays, dims).astype(np.int64)


def cell_values(cells: ArrayLike, sizes: Sequence[int]) -> list[np.ndarray]:
    """The per-column codes of flat cells (the inverse of :func:`cell_index`).

    Examples
    --------
    >>> from ldp.tasks.marginals import cell_values
    >>> [c.tolist() for c in cell_values([2, 3, 5], (2, 3))]
    [[0, 1, 1], [2, 0, 2]]
    """
    dims = check_sizes(sizes)
    return [np.asarray(a, dtype=np.int64) for a in np.unravel_index(np.asarray(cells), dims)]


def _check_keep(keep: Sequence[int], d: int) -> tuple[int, ...]:
    axes = tuple(int(a) for a in keep)
    if len(set(axes)) != len(axes) or any(a < 0 or a >= d for a in axes):
        raise ValueError(f"keep must be distinct axes in 0 .. {d - 1}, got {axes}")
    return axes


def marginalize(table: ArrayLike, sizes: Sequence[int], keep: Sequence[int]) -> np.ndarray:
    """The marginal of a flat table over ``sizes`` on the axes ``keep`` (in that order).

    Flat, in the row-major order of ``[sizes[a] for a in keep]``; ``keep=()`` gives the total.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks.marginals import marginalize
    >>> marginalize(np.arange(6.0), (2, 3), (1,)).tolist()
    [3.0, 5.0, 7.0]
    >>> marginalize(np.arange(6.0), (2, 3), (1, 0)).tolist()
    [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    """
    dims = check_sizes(sizes)
    axes = _check_keep(keep, len(dims))
    arr = np.asarray(table, dtype=np.float64).reshape(dims)
    drop = tuple(a for a in range(len(dims)) if a not in axes)
    summed = arr.sum(axis=drop) if drop else arr
    remaining = [a for a in range(len(dims)) if a in axes]  # the axes of summed, in order
    order = [remaining.index(a) for a in axes]
    return np.transpose(summed, order).reshape(-1) if axes else np.atleast_1d(summed)


def marginal_matrix(sizes: Sequence[int], keep: Sequence[int]) -> np.ndarray:
    """The 0/1 matrix ``A`` of :func:`marginalize`: ``marginalize(t) == A @ t``.

    Shape ``(prod(sizes[keep]), prod(sizes))``; for the covariance of a marginal,
    ``A S A^T``.

    Examples
    --------
    >>> from ldp.tasks.marginals import marginal_matrix
    >>> marginal_matrix((2, 2), (0,)).tolist()
    [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
    """
    dims = check_sizes(sizes)
    axes = _check_keep(keep, len(dims))
    cells = check_cells(dims, "the table")
    codes = cell_values(np.arange(cells), dims)
    target = (
        cell_index([codes[a] for a in axes], [dims[a] for a in axes])
        if axes
        else np.zeros(cells, dtype=np.int64)
    )
    out = np.zeros((math.prod(dims[a] for a in axes), cells))
    out[target, np.arange(cells)] = 1.0
    return out

"""Numeric columns binned by declared, public edges: each column becomes a categorical one
whose categories are the bins' labels (``[lo, hi)``, the last closed), and values are coded
by the bin that holds them, never clipped."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from estimators._schema import CATEGORICAL, Column, Table, numeric_values
from ldp._validation import describe

__all__ = ["WithoutBinnedColumns", "bin_codes", "binned_column"]


def binned_column(name: str, edges: Any) -> tuple[Column, np.ndarray]:
    """The categorical column of ``name`` binned at ``edges`` (checked), and the edges."""
    arr = np.asarray(edges, dtype=np.float64) if np.ndim(edges) == 1 else None
    if arr is None or arr.size < 2 or not np.all(np.isfinite(arr)) or np.any(np.diff(arr) <= 0):
        raise ValueError(
            f"bins of column {name!r} must be at least two finite increasing edges, "
            f"got {describe(edges)}"
        )
    labels = [f"[{lo:g}, {hi:g})" for lo, hi in list(itertools.pairwise(arr))[:-1]]
    labels.append(f"[{arr[-2]:g}, {arr[-1]:g}]")
    return Column(name, CATEGORICAL, categories=np.asarray(labels, dtype=object)), arr


def bin_codes(column: Column, edges: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The bin of each value (a value outside the edges is refused, never clipped)."""
    data = numeric_values(values, column.name)
    if np.any(data < edges[0]) or np.any(data > edges[-1]):
        raise ValueError(
            f"column {column.name!r} has values outside its bins [{edges[0]:g}, {edges[-1]:g}]; "
            "values are never clipped, declare wider bins"
        )
    return np.minimum(np.searchsorted(edges, data, side="right") - 1, edges.size - 2)


class WithoutBinnedColumns:
    """A table whose binned columns resolve as declared placeholders (never read)."""

    def __init__(self, table: Table, binned: set[str]) -> None:
        self.names = table.names
        self.n_rows = table.n_rows
        self._inner = table
        self._binned = binned

    def values(self, j: int) -> np.ndarray:
        if self.names[j] in self._binned:
            return np.zeros(1)
        return self._inner.values(j)

    def dtype(self, j: int) -> object:
        if self.names[j] in self._binned:
            return np.dtype(np.int64)
        return self._inner.dtype(j)

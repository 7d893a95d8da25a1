"""A maximum-entropy model of estimated marginals, and synthetic rows drawn from it.

Of all joint distributions with given marginals, the one of largest entropy is the fixed
point of iterative proportional fitting (Deming-Stephan; Csiszar 1975): start from the
uniform joint and rescale it, marginal after marginal, until each matches. This is the
synthesis of Zhang et al. (2018) (CALM, Section 5). It needs the joint in memory,
so above ``MAX_IPF_CELLS`` the model is instead the maximum-entropy distribution among
those that factor along a tree (Chow, Liu 1968): the spanning tree of largest total mutual
information of the estimated 2-way marginals, each column drawn given its parent, as in
PrivBayes-style synthesis (Zhang, Cormode, Procopiuc, Srivastava, Xiao 2017) with
marginals of order two. Sampling from a model fitted to private estimates is
post-processing: it costs no privacy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import check_integer, check_random_state
from ldp.tasks.marginals.cells import (
    cell_index,
    cell_values,
    check_cells,
    check_sizes,
    marginalize,
)

__all__ = ["MAX_IPF_CELLS", "JointModel", "TreeModel", "fit_ipf", "fit_tree"]

#: The largest joint fitted by iterative proportional fitting (8 MiB of float64).
MAX_IPF_CELLS = 1 << 20


def _marginal_of(margins: Mapping[tuple[int, ...], np.ndarray], cols: tuple[int, ...], sizes):
    """The marginal of ``cols`` from any given table holding them (``None`` if none does)."""
    for t, m in margins.items():
        if set(cols) <= set(t):
            return marginalize(m, [sizes[c] for c in t], [t.index(c) for c in cols])
    return None


def _generator(rng: object) -> np.random.Generator:
    # a numpy Generator (OS entropy for None, or "os": its OSGenerator is one)
    return cast(np.random.Generator, check_random_state(rng))


@dataclass(frozen=True)
class JointModel:
    """A joint distribution over columns with ``sizes`` categories (flat, row-major)."""

    sizes: tuple[int, ...]
    joint: np.ndarray

    def sample(self, n: int, rng: object = None) -> list[np.ndarray]:
        """``n`` rows: one array of category codes per column."""
        gen = _generator(rng)
        count = check_integer(n, "n", low=0)
        cdf = np.cumsum(self.joint)
        u = np.asarray(gen.random(count)) * cdf[-1]
        cells = np.minimum(np.searchsorted(cdf, u, side="right"), cdf.size - 1)
        return cell_values(cells, self.sizes)


@dataclass(frozen=True)
class TreeModel:
    """Columns drawn in tree order: the root from its marginal, each other given its parent.

    ``parents[j]`` is the parent of column ``j`` (``-1`` for a root: a forest when some
    pairs have no marginal); ``tables[j]`` its conditional table ``(k_parent, k_j)`` (a root:
    ``(1, k_j)``); ``order`` visits parents before children.
    """

    sizes: tuple[int, ...]
    parents: tuple[int, ...]
    order: tuple[int, ...]
    tables: tuple[np.ndarray, ...]

    def sample(self, n: int, rng: object = None) -> list[np.ndarray]:
        """``n`` rows: one array of category codes per column."""
        gen = _generator(rng)
        count = check_integer(n, "n", low=0)
        out: list[np.ndarray] = [np.zeros(count, dtype=np.int64)] * len(self.sizes)
        for j in self.order:
            parent = self.parents[j]
            rows = self.tables[j][out[parent] if parent >= 0 else np.zeros(count, dtype=np.int64)]
            cdf = np.cumsum(rows, axis=1)
            u = np.asarray(gen.random(count)) * cdf[:, -1]
            out[j] = np.minimum((cdf <= u[:, None]).sum(axis=1), self.sizes[j] - 1)
        return out


def fit_ipf(
    sizes: Sequence[int],
    margins: Mapping[tuple[int, ...], ArrayLike],
    *,
    tol: float = 1e-10,
    max_iter: int = 500,
) -> JointModel:
    """The maximum-entropy joint with the given (consistent) marginals, by IPF.

    Parameters
    ----------
    sizes : sequence of int
        Categories of every column; their product must not exceed ``MAX_IPF_CELLS``.
    margins : mapping of column tuple to flat distribution
        The target marginals.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks.marginals import fit_ipf, marginalize
    >>> margins = {(0, 1): np.array([0.4, 0.1, 0.1, 0.4]), (1, 2): np.full(4, 0.25)}
    >>> model = fit_ipf((2, 2, 2), margins)
    >>> np.round(marginalize(model.joint, (2, 2, 2), (0, 1)), 6).tolist()
    [0.4, 0.1, 0.1, 0.4]
    """
    dims = check_sizes(sizes)
    cells = check_cells(dims, "the joint", MAX_IPF_CELLS, "MAX_IPF_CELLS (ldp.tasks.marginals)")
    targets = {tuple(t): np.asarray(m, dtype=np.float64) for t, m in margins.items()}
    index = {}
    codes = cell_values(np.arange(cells), dims)
    for t in targets:
        index[t] = cell_index([codes[c] for c in t], [dims[c] for c in t])
    joint = np.full(cells, 1.0 / cells)
    for _ in range(check_integer(max_iter, "max_iter", low=1)):
        worst = 0.0
        for t, target in targets.items():
            current = np.bincount(index[t], joint, target.size)
            worst = max(worst, float(np.abs(current - target).max()))
            ratio = np.divide(target, current, out=np.zeros_like(target), where=current > 0)
            joint = joint * ratio[index[t]]
        if worst <= tol:
            break
    return JointModel(dims, joint / joint.sum())


def fit_tree(sizes: Sequence[int], margins: Mapping[tuple[int, ...], ArrayLike]) -> TreeModel:
    """The Chow-Liu tree model of the 2-way marginals held by ``margins``.

    Every column needs a marginal holding it; pairs with none are not edges (a forest).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks.marginals import fit_tree
    >>> margins = {(0, 1): np.array([0.4, 0.1, 0.1, 0.4]), (1, 2): np.full(4, 0.25)}
    >>> fit_tree((2, 2, 2), margins).parents
    (-1, 0, 1)
    """
    dims = check_sizes(sizes)
    d = len(dims)
    tabs = {tuple(t): np.asarray(m, dtype=np.float64) for t, m in margins.items()}
    single = []
    for j in range(d):
        m = _marginal_of(tabs, (j,), dims)
        if m is None:
            raise ValueError(f"no marginal holds column {j}")
        single.append(m)
    edges = []
    for a in range(d):
        for b in range(a + 1, d):
            pair = _marginal_of(tabs, (a, b), dims)
            if pair is None:
                continue
            joint = pair.reshape(dims[a], dims[b])
            outer = np.outer(single[a], single[b])
            mask = (joint > 0) & (outer > 0)
            info = float(np.sum(joint[mask] * np.log(joint[mask] / outer[mask])))
            edges.append((info, a, b, joint))
    edges.sort(key=lambda e: -e[0])
    root = list(range(d))

    def find(x: int) -> int:
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    neighbours: dict[int, list[tuple[int, np.ndarray]]] = {j: [] for j in range(d)}
    for _, a, b, joint in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            root[ra] = rb
            neighbours[a].append((b, joint))
            neighbours[b].append((a, joint.T))
    parents = [-1] * d
    tables: list[np.ndarray] = [np.zeros(0)] * d
    order: list[int] = []
    seen = [False] * d
    for start in range(d):
        if seen[start]:
            continue
        seen[start] = True
        tables[start] = single[start][None, :]
        stack = [start]
        while stack:
            j = stack.pop()
            order.append(j)
            for child, joint in neighbours[j]:  # joint: (k_j, k_child)
                if seen[child]:
                    continue
                seen[child] = True
                parents[child] = j
                rows = joint.sum(axis=1, keepdims=True)
                fallback = np.broadcast_to(single[child], joint.shape)
                tables[child] = np.where(rows > 0, joint / np.where(rows > 0, rows, 1), fallback)
                stack.append(child)
    return TreeModel(dims, tuple(parents), tuple(order), tuple(tables))

"""Complete ``B``-ary trees over an ordinal domain: consistency and range decompositions.

Level ``l = 1 .. h`` of the tree has ``B^l`` nodes stored in order along the last axis of an
array; node ``v`` of level ``l`` has the children ``v B .. v B + B - 1`` on level ``l + 1``, and
the root (level 0) is known. :func:`tree_consistency` is Hay et al. (2010)'s two-pass least
squares (with inverse-variance weights when the levels' noise differs);
``consistency_adjoint`` is its transpose (the weights of a linear functional of the
consistent leaves on the noisy nodes), which the exact range variances of
``ldp.tasks.range_queries`` use; :func:`b_adic_nodes` is the fewest nodes covering a
range.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import as_real_array, check_integer

__all__ = [
    "b_adic_nodes",
    "consistency_adjoint",
    "expand_children",
    "sum_children",
    "tree_consistency",
]


def sum_children(x: np.ndarray, branching: int) -> np.ndarray:
    """Sums of consecutive groups of ``branching`` entries along the last axis (the parents'
    totals of a level)."""
    return x.reshape(*x.shape[:-1], x.shape[-1] // branching, branching).sum(axis=-1)


def expand_children(x: np.ndarray, branching: int) -> np.ndarray:
    """Each entry repeated ``branching`` times along the last axis (a parent's value for
    each of its children)."""
    return np.repeat(x, branching, axis=-1)


def _hay_weights(height_from_leaves: int, branching: int) -> tuple[float, float]:
    """Hay et al.'s bottom-up weights ``(own, children)`` at height ``i`` (leaves: 1)."""
    top = float(branching) ** height_from_leaves
    below = float(branching) ** (height_from_leaves - 1)
    return (top - below) / (top - 1.0), (below - 1.0) / (top - 1.0)


def _bottom_up_weights(
    height: int, branching: int, variances: Sequence[float] | None
) -> list[tuple[float, float]]:
    """``(own, children)`` of levels ``1 .. h - 1`` (index 0 is level 1): Hay's closed form
    for equal variances, else the inverse-variance weighting of a node's own value
    (variance ``s_l``) and its children's sum (variance ``B`` times theirs)."""
    if variances is None:
        return [_hay_weights(height - level, branching) for level in range(height - 1)]
    weights = [(0.0, 0.0)] * (height - 1)
    below = float(variances[-1])  # variance of z at the level below
    for level in range(height - 2, -1, -1):
        own_var, sum_var = float(variances[level]), branching * below
        weights[level] = (sum_var / (own_var + sum_var), own_var / (own_var + sum_var))
        below = own_var * sum_var / (own_var + sum_var)
    return weights


def tree_consistency(
    levels: Sequence[ArrayLike],
    branching: int,
    root: float = 1.0,
    variances: Sequence[float] | None = None,
) -> tuple[np.ndarray, ...]:
    """Hay et al. (2010)'s two-pass least-squares consistency on a complete ``B``-ary tree
    whose root is known.

    Bottom-up, each node's value is combined with the sum of its children's combined values
    (inverse-variance weights; Hay et al.'s closed form when the variances are equal); top-down,
    from the known root, each node gets its combined value plus an equal share of its
    parent's remainder.

    Parameters
    ----------
    levels : sequence of array_like
        Noisy node values of levels ``1 .. h`` (level ``l`` has ``B^l`` entries along its
        last axis; leading axes are independent trees).
    branching : int
        ``B >= 2``.
    root : float, default 1.0
        The root's known value (1 for frequencies, ``n`` for counts).
    variances : sequence of float, optional
        The noise variance of one node of each level (``h`` positive numbers); ``None``:
        equal.

    Returns
    -------
    tuple of ndarray
        The consistent levels ``1 .. h``: every node equals the sum of its children and the
        first level sums to ``root``. Equal to the weighted least-squares fit under those
        constraints when the noise is independent with these variances.

    Examples
    --------
    >>> from ldp.tasks import tree_consistency
    >>> top, leaves = tree_consistency([[0.7, 0.4], [0.3, 0.3, 0.1, 0.2]], 2)
    >>> top.round(4), leaves.round(4)
    (array([0.65, 0.35]), array([0.325, 0.325, 0.125, 0.225]))
    """
    b = check_integer(branching, "branching", low=2)
    ys = [as_real_array(level, f"levels[{i}]") for i, level in enumerate(levels)]
    height = len(ys)
    if height == 0:
        raise ValueError("levels must hold at least one level")
    for i, y in enumerate(ys):
        if y.ndim == 0 or y.shape[-1] != b ** (i + 1):
            raise ValueError(
                f"levels[{i}] must have {b ** (i + 1)} entries (B^{i + 1}), got shape {y.shape}"
            )
    if variances is not None:
        given = as_real_array(variances, "variances")
        if given.shape != (height,) or not np.all(given > 0) or not np.all(np.isfinite(given)):
            raise ValueError(
                f"variances must be {height} positive finite numbers (one per level), got "
                f"{variances!r}"
            )
        variances = [float(v) for v in given]
    weights = _bottom_up_weights(height, b, variances)
    total = as_real_array(root, "root")
    z = [np.empty(0)] * height
    z[-1] = ys[-1]
    for level in range(height - 2, -1, -1):
        own, children = weights[level]
        z[level] = own * ys[level] + children * sum_children(z[level + 1], b)
    out = []
    parent = np.broadcast_to(total, ys[0].shape[:-1])[..., None]
    for level in range(height):
        adjust = (parent - sum_children(z[level], b)) / b
        current = z[level] + expand_children(adjust, b)
        out.append(current)
        parent = current
    return tuple(out)


def consistency_adjoint(
    leaf_weights: np.ndarray,
    branching: int,
    height: int,
    variances: Sequence[float] | None = None,
) -> tuple[list[np.ndarray], np.ndarray]:
    """Weights ``w_l`` on the noisy levels and the root coefficient ``c`` such that
    ``leaf_weights . consistent_leaves = sum_l w_l . y_l + c root`` (reverse pass of
    :func:`tree_consistency`, batched over leading axes)."""
    b = branching
    z_bar = [np.zeros(0)] * height
    x_bar = leaf_weights
    for level in range(height - 1, -1, -1):
        z_bar[level] = x_bar - expand_children(sum_children(x_bar, b), b) / b
        x_bar = sum_children(x_bar, b) / b
    root_coefficient = x_bar[..., 0]
    y_bar = [np.zeros(0)] * height
    weights = _bottom_up_weights(height, b, variances)
    for level in range(height - 1):
        own, children = weights[level]
        y_bar[level] = own * z_bar[level]
        z_bar[level + 1] = z_bar[level + 1] + children * expand_children(z_bar[level], b)
    y_bar[-1] = z_bar[-1]
    return y_bar, root_coefficient


def b_adic_nodes(a: int, b: int, branching: int, height: int) -> list[tuple[int, int]]:
    """The fewest tree nodes whose leaves are exactly ``a .. b - 1``.

    Parameters
    ----------
    a, b : int
        ``0 <= a < b <= B^h``.
    branching : int
        ``B``.
    height : int
        ``h``.

    Returns
    -------
    list of (level, index)
        At most ``2 (B - 1)`` nodes per level; ``(0, 0)`` is the root (the whole domain).

    Examples
    --------
    >>> from ldp.tasks import b_adic_nodes
    >>> b_adic_nodes(1, 7, 2, 3)
    [(3, 1), (2, 1), (2, 2), (3, 6)]
    """
    lo, hi = int(a), int(b)
    left: list[tuple[int, int]] = []
    right: list[tuple[int, int]] = []
    level = height
    while lo < hi:
        if level == 0:
            left.append((0, 0))
            break
        while lo % branching and lo < hi:
            left.append((level, lo))
            lo += 1
        while hi % branching and lo < hi:
            hi -= 1
            right.append((level, hi))
        lo //= branching
        hi //= branching
        level -= 1
    return left + right[::-1]

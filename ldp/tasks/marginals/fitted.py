"""The requested marginals of a design from its groups' statistics, with their intervals.

One home for what every decoder of a marginals collection answers (the estimator
``estimators.MarginalEstimator`` and the collector behind ``ldp serve``): each requested
marginal's unbiased estimate and exact ``iid`` variance (:meth:`MarginalDesign.estimate`),
the consistent non-negative tables made of them (:func:`consistent_marginals`), and the
interval of a cell, the unbiased estimate ``+- z`` standard errors clipped to ``[0, 1]``.
A group needs at least as many reports as it has cells (a parity group of the
``"fourier"`` design one) before its estimate is decoded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp.core import check_confidence, normal_z
from ldp.tasks.marginals.consistency import consistent_marginals
from ldp.tasks.marginals.designs import MarginalDesign

__all__ = [
    "FittedMarginals",
    "cell_intervals",
    "check_group_reports",
    "fit_marginals",
    "holding_table",
]


def check_group_reports(
    design: MarginalDesign, counts: ArrayLike, names: Sequence[str] | None = None
) -> None:
    """Raise ``ValueError`` unless every group has at least as many reports as cells.

    Parameters
    ----------
    design : MarginalDesign
    counts : array_like of int
        The reports of each group, in the design's order.
    names : sequence of str, optional
        The columns' names (the message names a short group by them; default the indexes).

    Examples
    --------
    >>> from ldp.tasks.marginals import build_design, check_group_reports
    >>> design = build_design("groups", (2, 3), [(0, 1)], 1.0)
    >>> check_group_reports(design, [6])
    >>> check_group_reports(design, [5], ["a", "b"])
    Traceback (most recent call last):
    ...
    ValueError: the group of columns ('a', 'b') has 5 reports, fewer than its 6 cells; ...
    """
    have = np.asarray(counts, dtype=np.int64)
    for g, group in enumerate(design.groups):
        need = 1 if design.method == "fourier" else design.cells(group)
        if have[g] < need:
            label = tuple(group if names is None else (names[c] for c in group))
            raise ValueError(
                f"the group of columns {label} has {have[g]} reports, fewer than its "
                f"{need} cells; collect more reports or request fewer or smaller marginals"
            )


@dataclass(frozen=True)
class FittedMarginals:
    """The requested marginals of a design, decoded from its groups' statistics.

    Parameters
    ----------
    tables : tuple of tuple of int
        The requested marginals (the design's ``tables``).
    unbiased, variance : tuple of ndarray
        Per table, the unbiased estimate (flat, row-major over its columns' categories) and
        its exact ``iid`` variance at the clipped estimate.
    sources : tuple of str
        Per table, the design and oracle it came from (e.g. ``"groups:GRR"``).
    consistent : tuple of ndarray
        Per table, the consistent non-negative estimate (post-processing).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks.marginals import build_design, fit_marginals
    >>> design = build_design("joint", (2, 2), [(0, 1)], 2.0)
    >>> stats = design.aggregate([np.array([0, 1, 2, 3, 3, 3])])
    >>> fitted = fit_marginals(design, stats)
    >>> fitted.sources, round(float(fitted.consistent[0].sum()), 12)
    (('joint:GRR',), 1.0)
    """

    tables: tuple[tuple[int, ...], ...]
    unbiased: tuple[np.ndarray, ...]
    variance: tuple[np.ndarray, ...]
    sources: tuple[str, ...]
    consistent: tuple[np.ndarray, ...]


def fit_marginals(design: MarginalDesign, stats: Sequence[Any]) -> FittedMarginals:
    """Decode the design's requested marginals from its groups' statistics.

    Parameters
    ----------
    design : MarginalDesign
    stats : sequence
        Per group, its oracle's statistic (:meth:`MarginalDesign.aggregate`).

    Returns
    -------
    FittedMarginals

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks.marginals import build_design, fit_marginals
    >>> design = build_design("groups", (2, 2), [(0,), (1,)], 1.0)
    >>> stats = design.aggregate([np.array([0, 0, 1]), np.array([1, 1, 0])])
    >>> [t.shape for t in fit_marginals(design, stats).unbiased]
    [(2,), (2,)]
    """
    unbiased, variance, sources = [], [], []
    for table in design.tables:
        est, var, source = design.estimate(stats, table)
        unbiased.append(est)
        variance.append(var)
        sources.append(source)
    consistent = consistent_marginals(design.tables, design.sizes, unbiased, variance)
    return FittedMarginals(
        tuple(design.tables), tuple(unbiased), tuple(variance), tuple(sources), tuple(consistent)
    )


def holding_table(tables: Sequence[Sequence[int]], columns: Sequence[int]) -> int | None:
    """The first of ``tables`` holding every one of ``columns`` (its index), else ``None``:
    the table a marginal of ``columns`` is read from.

    Examples
    --------
    >>> from ldp.tasks.marginals import holding_table
    >>> holding_table([(0, 1), (1, 2)], (2,)), holding_table([(0, 1)], (0, 2)) is None
    (1, True)
    """
    wanted = set(columns)
    return next((i for i, t in enumerate(tables) if wanted <= set(t)), None)


def cell_intervals(
    unbiased: ArrayLike, variance: ArrayLike, confidence: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each cell's standard error and two-sided normal interval at level ``confidence``.

    Returns ``(std, low, high)``: ``std = sqrt(variance)`` and ``unbiased +- z std``
    clipped to ``[0, 1]`` (a share is in it).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.tasks.marginals import cell_intervals
    >>> std, low, high = cell_intervals(np.array([0.01, 0.99]), np.array([1e-4, 1e-4]), 0.95)
    >>> std.tolist(), low.round(4).tolist(), high.round(4).tolist()
    ([0.01, 0.01], [0.0, 0.9704], [0.0296, 1.0])
    """
    level = check_confidence(confidence)
    est = np.asarray(unbiased, dtype=np.float64)
    std = np.sqrt(np.asarray(variance, dtype=np.float64))
    half = normal_z(level) * std
    return std, np.clip(est - half, 0.0, 1.0), np.clip(est + half, 0.0, 1.0)

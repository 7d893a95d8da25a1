"""Marginals surveys in the collector: the records, statistic and estimate of a table.

A :class:`~ldp.protocol.MarginalProtocol` is served like a one-question protocol. Its records
are checked by :meth:`~ldp.protocol.MarginalProtocol.read_records` (the library's own
decoding: the fingerprint, the group index in range, the report valid for that group's
protocol); a stored report is ``[group, fields...]`` as compact JSON. The running statistic
of a window is :class:`GroupCounts`, each group's oracle statistic (exact integer counts,
added with ``+``). The estimate is every requested marginal of the design, decoded by
:func:`ldp.tasks.marginals.fit_marginals` as ``estimators.MarginalEstimator`` decodes it:
the consistent non-negative table (``estimate``), the unbiased one with its standard error,
and the interval of :func:`ldp.tasks.marginals.cell_intervals`. It is held back below the
operator's minimum number of reports and while a group has fewer reports than cells.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.mechanisms import SupportCounts
from ldp.protocol import MarginalProtocol
from ldp.tasks.marginals import (
    cell_intervals,
    check_group_reports,
    fit_marginals,
    holding_table,
    marginalize,
)

__all__ = [
    "GroupCounts",
    "GroupReports",
    "MarginalDecoder",
    "check_marginal_records",
    "marginal_estimates",
]


@dataclass(frozen=True)
class GroupReports:
    """The checked reports of a marginals upload, by group.

    Parameters
    ----------
    groups : ndarray of int
        The group of each record.
    rows : ndarray of int
        Each record's row in its group's array of ``parts``.
    parts : tuple of ndarray
        Per group, the native reports of the records that drew it, in upload order.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.collector.marginals import GroupReports
    >>> reports = GroupReports(np.array([1, 0, 1]), np.array([0, 0, 1]),
    ...                        (np.array([4]), np.array([2, 3])))
    >>> [part.tolist() for part in reports[[0, 1]].parts]
    [[4], [2]]
    """

    groups: np.ndarray
    rows: np.ndarray
    parts: tuple[np.ndarray, ...]

    def __len__(self) -> int:
        return int(self.groups.size)

    def __getitem__(self, index: Sequence[int]) -> GroupReports:
        """The reports of the records ``index`` (in that order)."""
        chosen = np.asarray(index, dtype=np.int64)
        groups, rows = self.groups[chosen], self.rows[chosen]
        parts, ranks = [], np.zeros(chosen.size, dtype=np.int64)
        for g, part in enumerate(self.parts):
            mine = np.flatnonzero(groups == g)
            ranks[mine] = np.arange(mine.size)
            parts.append(part[rows[mine]])
        return GroupReports(groups, ranks, tuple(parts))


@dataclass(frozen=True)
class GroupCounts:
    """The running statistic of a marginals protocol: each group's oracle statistic.

    Parameters
    ----------
    groups : tuple of SupportCounts
        In the design's order.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.collector.marginals import GroupCounts
    >>> from ldp.mechanisms import GRR
    >>> a = GroupCounts((GRR(2, 1.0).aggregate(np.array([0, 1])),))
    >>> (a + a).n, (a + a).groups[0].counts.tolist()
    (4, [2, 2])
    """

    groups: tuple[SupportCounts, ...]

    @property
    def n(self) -> int:
        """The reports, all groups together."""
        return int(sum(s.n for s in self.groups))

    def __add__(self, other: GroupCounts) -> GroupCounts:
        if not isinstance(other, GroupCounts) or len(other.groups) != len(self.groups):
            raise TypeError("only the statistics of one marginals protocol add up")
        return GroupCounts(tuple(a + b for a, b in zip(self.groups, other.groups)))


class MarginalDecoder:
    """What the store needs of a marginals protocol's decoder: its statistic of reports.

    Examples
    --------
    >>> from ldp.collector.marginals import MarginalDecoder
    >>> from ldp.protocol import MarginalProtocol
    >>> from ldp.tasks.marginals import build_design
    >>> protocol = MarginalProtocol.from_design(
    ...     build_design("joint", (2, 2), [(0, 1)], 1.0), [("a", [0, 1]), ("b", [0, 1])])
    >>> MarginalDecoder(protocol).empty_statistic().n
    0
    """

    def __init__(self, protocol: MarginalProtocol) -> None:
        self._decoders = tuple(group.decoder for group in protocol.groups)

    def empty_statistic(self) -> GroupCounts:
        """The statistic of no reports."""
        return GroupCounts(tuple(d.empty_statistic() for d in self._decoders))

    def aggregate(self, reports: GroupReports) -> GroupCounts:
        """The statistic of ``reports``."""
        return GroupCounts(
            tuple(
                d.aggregate(part) if len(part) else d.empty_statistic()
                for d, part in zip(self._decoders, reports.parts, strict=True)
            )
        )


def check_marginal_records(
    protocol: MarginalProtocol, plain: list[dict[str, Any]]
) -> tuple[GroupReports, tuple[str, ...]]:
    """Check ``{"fingerprint", "report"}`` records of a marginals protocol as the library
    decodes them; returns their reports and each report as compact JSON ``[group, ...]``.

    Raises ``ValueError`` naming the record (its index in ``plain``).

    Examples
    --------
    >>> from ldp.collector.marginals import check_marginal_records
    >>> from ldp.protocol import MarginalProtocol
    >>> from ldp.tasks.marginals import build_design
    >>> protocol = MarginalProtocol.from_design(
    ...     build_design("groups", (2, 3), [(0,), (1,)], 1.0),
    ...     [("a", ["x", "y"]), ("b", [1, 2, 3])])
    >>> record = {"fingerprint": protocol.fingerprint, "report": [1, 2.0]}
    >>> check_marginal_records(protocol, [record])[1]
    ('[1,2]',)
    >>> check_marginal_records(protocol, [dict(record, report=[2, 0])])
    Traceback (most recent call last):
    ...
    ValueError: record 0: the report must start with a group index in 0 .. 1
    """
    parts = protocol.read_records(plain)
    # read_records has checked every group index: each record's group and row in it
    groups = np.array([int(record["report"][0]) for record in plain], dtype=np.int64)
    rows = np.zeros(groups.size, dtype=np.int64)
    fields: list[list[Any]] = [[] for _ in parts]
    for g, (group, part) in enumerate(zip(protocol.groups, parts)):
        mine = np.flatnonzero(groups == g)
        rows[mine] = np.arange(mine.size)
        if mine.size:
            fields[g] = group.mechanism.codec.to_rows(part).tolist()
    texts = tuple(
        json.dumps([int(g), *fields[g][r]], separators=(",", ":")) for g, r in zip(groups, rows)
    )
    return GroupReports(groups, rows, tuple(parts)), texts


def marginal_estimates(
    protocol: MarginalProtocol, statistic: GroupCounts, confidence: float
) -> tuple[list[dict[str, Any]] | None, str | None]:
    """The requested marginals from ``statistic``: one entry per table, or ``None`` and why
    (a group with fewer reports than cells).

    Each entry has the table's ``columns`` (names), the ``method`` it was decoded by and one
    ``cells`` entry per cell (row-major, the first column slowest): the cell's ``labels``,
    ``estimate`` (consistent, non-negative), ``ci_low``/``ci_high``, ``unbiased`` and
    ``std``, as ``estimators.MarginalEstimator.marginal`` gives them.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.collector.marginals import GroupCounts, marginal_estimates
    >>> from ldp.protocol import MarginalProtocol
    >>> from ldp.tasks.marginals import build_design
    >>> protocol = MarginalProtocol.from_design(
    ...     build_design("joint", (2, 2), [(0, 1)], 2.0), [("a", [0, 1]), ("b", ["x", "y"])])
    >>> decoder = protocol.groups[0].decoder
    >>> marginal_estimates(protocol, GroupCounts((decoder.aggregate(np.array([0, 3, 3])),)), 0.95)
    (None, "the group of columns ('a', 'b') has 3 reports, fewer than its 4 cells; ...")
    >>> statistic = GroupCounts((decoder.aggregate(np.array([0, 3, 3, 1])),))
    >>> tables, _ = marginal_estimates(protocol, statistic, 0.95)
    >>> tables[0]["columns"], [c["labels"] for c in tables[0]["cells"]][:2]
    (['a', 'b'], [[0, 'x'], [0, 'y']])
    """
    design = protocol.design
    columns = protocol.columns
    names = [name for name, _ in columns]
    stats = statistic.groups
    try:
        check_group_reports(design, [s.n for s in stats], names)
    except ValueError as exc:
        return None, str(exc)
    fitted = fit_marginals(design, stats)
    out = []
    for t, table in enumerate(fitted.tables):
        # a table inside an earlier one is read from it, as the estimator reads it
        h = holding_table(fitted.tables, table)
        assert h is not None  # the table holds itself
        holder = fitted.tables[h]
        estimate = marginalize(
            fitted.consistent[h],
            [design.sizes[c] for c in holder],
            [holder.index(c) for c in table],
        )
        unbiased = fitted.unbiased[t]
        std, low, high = cell_intervals(unbiased, fitted.variance[t], confidence)
        cells = itertools.product(*[columns[c][1] for c in table])
        out.append(
            {
                "columns": [names[c] for c in table],
                "method": fitted.sources[t],
                "cells": [
                    {
                        "labels": list(labels),
                        "estimate": float(estimate[i]),
                        "ci_low": float(low[i]),
                        "ci_high": float(high[i]),
                        "unbiased": float(unbiased[i]),
                        "std": float(std[i]),
                    }
                    for i, labels in enumerate(cells)
                ],
            }
        )
    return out, None

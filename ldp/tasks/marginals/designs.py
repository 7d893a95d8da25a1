"""Three ways to collect k-way marginals with one epsilon-LDP report per device.

Every design is a list of *groups*: a group names the columns it reads and the frequency
oracle that privatizes its input. A device draws one group uniformly at random (from its own
randomness, independently of its data), computes the group's input from its row and sends
``(group, oracle report)``; the group carries no information, so each report is
``epsilon``-LDP, the oracles' level. The designs (Cormode et al. (2018),
Section 4; Zhang et al. (2018), Section 4):

* ``"joint"``: one group, the cell of the full joint of the columns the marginals use,
  through one oracle; a marginal sums joint cells.
* ``"groups"``: one group per requested marginal (CALM's design), each privatizing the
  cell of its columns with the best oracle for its number of cells; users are split
  evenly in expectation.
* ``"fourier"``: binary columns only. One group per Fourier coefficient
  ``c_alpha = E[(-1)^(alpha . x)]`` with ``0 < |alpha| <= k`` that some marginal needs; the
  input is the parity bit ``alpha . x mod 2``, privatized by binary randomized response
  (GRR with ``k = 2``); a marginal is the inverse transform of its coefficients (Cormode,
  Kulkarni, Srivastava 2018, Section 4.3, InpHT).

A group's oracle is the one of smallest exact variance among the candidates (``ORACLES`` by
default, any registered frequency oracle on request). A marginal cell sums cells of its
group's table; its exact variance is the oracle's
:meth:`~ldp.mechanisms.FrequencyOracle.sum_variance`, one formula for every oracle whose
pair support is constant (a candidate whose pair support depends on the third value, such
as Hadamard response, is passed over). Variances here are under the ``iid`` convention
(users drawn from the population whose marginals are estimated), in which the users of a
group are an iid sample of their ``n_g``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from ldp._random import ByteSource
from ldp._validation import check_epsilon, check_integer, describe
from ldp.mechanisms.base import FrequencyOracle, SupportCounts
from ldp.mechanisms.categorical.grr import GRR
from ldp.tasks.marginals.cells import (
    MAX_TABLE_CELLS,
    cell_index,
    check_cells,
    check_sizes,
    marginal_matrix,
    marginalize,
)
from ldp.tasks.marginals.consistency import component_weights
from ldp.tasks.selection import FREQUENCY_ORACLES

__all__ = [
    "MAX_COVARIANCE_CELLS",
    "MAX_JOINT_CELLS",
    "METHODS",
    "ORACLES",
    "PLANNING_USERS",
    "MarginalDesign",
    "auto_variance",
    "best_oracle",
    "build_design",
    "candidate_designs",
    "check_candidates",
    "check_task",
    "choose_design",
    "requested_tables",
]

#: The designs, by name.
METHODS = ("joint", "groups", "fourier")

#: The oracles the designs choose from by default (reports every device client sends).
ORACLES = ("GRR", "OUE")

#: The largest group table whose covariance matrix :meth:`MarginalDesign.covariance` builds.
MAX_COVARIANCE_CELLS = 1 << 11

#: The largest joint the ``"joint"`` design privatizes (an OUE report has one bit per cell).
MAX_JOINT_CELLS = 1 << 16

#: Users at which ``method="auto"`` compares the designs (:func:`choose_design`). Every
#: variance scales as one over a group's users, so only the rounding of ``n / G`` depends
#: on it.
PLANNING_USERS = 1 << 20


def best_oracle(
    k: int, epsilon: float, candidates: Sequence[str] = ORACLES
) -> FrequencyOracle | None:
    """The oracle of smallest exact variance (at a rare cell; then the smaller report) among
    ``candidates`` for ``k`` cells, of those whose
    :meth:`~ldp.mechanisms.FrequencyOracle.sum_variance` is exact (``None`` for a single
    cell, which needs no report).

    ``candidates`` are names of ``ldp.tasks.FREQUENCY_ORACLES``; ``ValueError`` for an
    unknown name, or when no candidate has a constant pair support at ``(k, epsilon)``.

    Examples
    --------
    >>> from ldp.tasks.marginals import best_oracle
    >>> best_oracle(4, 1.0), best_oracle(64, 1.0)
    (GRR(k=4, epsilon=1.0), OUE(k=64, epsilon=1.0))
    >>> best_oracle(64, 1.0, candidates=("GRR", "OUE", "SS")).name
    'SS'
    """
    names = check_candidates(candidates)
    if k == 1:
        return None
    built = [FREQUENCY_ORACLES[name](k, epsilon) for name in names]
    exact = [o for o in built if o.constant_pair_support]
    if not exact:
        raise ValueError(
            f"candidates {names} have no oracle with an exact sum variance for k={k}, "
            f"epsilon={epsilon:g}; add GRR or OUE"
        )
    return min(exact, key=lambda o: (float(o.variance(1)), o.report_bits))


def check_candidates(candidates: object) -> tuple[str, ...]:
    """The oracle names ``candidates`` as a tuple, each a key of ``FREQUENCY_ORACLES``
    (``TypeError`` for a string or a non-sequence, ``ValueError`` for an unknown name).

    Examples
    --------
    >>> from ldp.tasks.marginals import check_candidates
    >>> check_candidates(["GRR", "SS"])
    ('GRR', 'SS')
    """
    if isinstance(candidates, str) or not isinstance(candidates, Sequence):
        raise TypeError(
            f"candidates must be a sequence of oracle names, got {describe(candidates)}"
        )
    names = tuple(candidates)
    bad = [c for c in names if c not in FREQUENCY_ORACLES]
    if bad or not names:
        raise ValueError(
            f"candidates must be names among {tuple(FREQUENCY_ORACLES)}, got {describe(candidates)}"
        )
    return names


@dataclass(frozen=True)
class MarginalDesign:
    """A collection design: the groups a device draws from, and what each privatizes.

    Attributes
    ----------
    method : {"joint", "groups", "fourier"}
    sizes : tuple of int
        Categories of every column (the columns are ``0 .. d - 1``).
    tables : tuple of tuple of int
        The requested marginals (column tuples).
    groups : tuple of tuple of int
        The columns each group reads (``"fourier"``: the coefficient's columns).
    oracles : tuple of FrequencyOracle or None
        Each group's oracle (``None`` for a one-cell group).
    epsilon : float
        What one report costs: every oracle's level.
    """

    method: str
    sizes: tuple[int, ...]
    tables: tuple[tuple[int, ...], ...]
    groups: tuple[tuple[int, ...], ...]
    oracles: tuple[FrequencyOracle | None, ...]
    epsilon: float

    # ------------------------------------------------------------------ device side
    def group_input(self, g: int, codes: Sequence[np.ndarray]) -> np.ndarray:
        """The input of group ``g`` from the columns' codes: a cell, or a parity bit."""
        cols = self.groups[g]
        if self.method == "fourier":
            return np.bitwise_xor.reduce(np.stack([codes[c] for c in cols]), axis=0)
        return cell_index([codes[c] for c in cols], [self.sizes[c] for c in cols])

    def privatize(
        self, codes: Sequence[np.ndarray], rng: np.random.Generator | ByteSource
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Simulate the devices: each row draws its group, then privatizes that group's input.

        Returns the group of each row and, per group, its rows' oracle reports.
        """
        n = len(codes[0]) if codes else 0
        draw = cast(np.random.Generator, rng).integers  # OSGenerator has it too
        group = np.asarray(draw(0, len(self.groups), size=n), dtype=np.int64)
        reports = []
        for g, oracle in enumerate(self.oracles):
            rows = np.flatnonzero(group == g)
            part = [c[rows] for c in codes]
            if oracle is None:
                reports.append(np.zeros(rows.size, dtype=np.int64))
            else:
                reports.append(oracle.privatize(self.group_input(g, part), rng=rng))
        return group, reports

    def aggregate(self, reports: Sequence[np.ndarray]) -> tuple[SupportCounts | int, ...]:
        """Per group, its oracle's statistic of its reports (a count for a one-cell group)."""
        return tuple(
            int(np.shape(r)[0]) if o is None else o.aggregate(r)
            for o, r in zip(self.oracles, reports, strict=True)
        )

    # ------------------------------------------------------------------ server side
    def cells(self, columns: Sequence[int]) -> int:
        return math.prod(self.sizes[c] for c in columns)

    def estimate(
        self, stats: Sequence[SupportCounts | int], columns: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray, str]:
        """The unbiased marginal of ``columns`` and its exact variance at the clipped estimate.

        Returns ``(estimate, variance, source)``: flat arrays over the cells of ``columns``
        (row-major in the given order), and a description of where the estimate comes from.
        Of several groups holding ``columns``, the one of smallest total variance.
        """
        cols = tuple(columns)
        if self.method == "fourier":
            return self._fourier(stats, cols)
        g = self.source_group(stats, cols)
        est, var = self._from_group(stats[g], g, cols)
        oracle = self.oracles[g]
        name = "none" if oracle is None else oracle.name
        return est, var, f"{self.method}:{name}"

    def source_group(self, stats: Sequence[SupportCounts | int], columns: Sequence[int]) -> int:
        """``"joint"`` / ``"groups"``: the group that :meth:`estimate` reads for ``columns``,
        of the groups holding them the one of smallest total variance."""
        cols = tuple(columns)
        best: tuple[float, int] | None = None
        for g, group in enumerate(self.groups):
            if set(cols) <= set(group):
                total = float(self._from_group(stats[g], g, cols)[1].sum())
                if best is None or total < best[0]:
                    best = (total, g)
        if best is None:
            raise ValueError(f"no group of this design holds the columns {cols}")
        return best[1]

    def covariance(
        self, stats: Sequence[SupportCounts | int], columns: Sequence[int], f: ArrayLike
    ) -> np.ndarray:
        """Exact ``iid`` covariance of :meth:`estimate` of ``columns`` at its true marginal ``f``.

        ``"joint"`` / ``"groups"``: ``A S A^T``, with ``S`` the group oracle's covariance
        (:meth:`~ldp.mechanisms.FrequencyMechanism.covariance`) at any group table whose
        marginal is ``f`` (for an oracle of constant pair support the covariance of sums of
        cells depends on the marginal only; ``f`` spread evenly is used), and ``A`` the
        marginal map; refused above ``MAX_COVARIANCE_CELLS`` group cells. ``"fourier"``: the
        coefficients are independent, so ``4^-k sum_alpha Var(c_alpha) s_alpha s_alpha^T`` with
        ``s_alpha(y) = (-1)^(alpha . y)``.
        """
        cols = tuple(columns)
        target = np.asarray(f, dtype=np.float64).ravel()
        if target.size != self.cells(cols):
            raise ValueError(f"f must have {self.cells(cols)} cells, got {target.size}")
        if self.method == "fourier":
            k = len(cols)
            bits = (np.arange(1 << k)[:, None] >> (k - 1 - np.arange(k))[None, :]) & 1
            out = np.zeros((1 << k, 1 << k))
            for size in range(1, k + 1):
                for subset in combinations(range(k), size):
                    key = tuple(sorted(cols[i] for i in subset))
                    g = self.groups.index(key)
                    sign = 1.0 - 2.0 * (bits[:, list(subset)].sum(axis=1) % 2)
                    bit0 = float(np.clip(target[sign > 0].sum(), 0.0, 1.0))
                    var = 4.0 * float(self.oracles[g].variance(stats[g].n, bit0, "iid"))  # type: ignore[union-attr]
                    out += var * np.outer(sign, sign)
            return out / 4.0**k
        g = self.source_group(stats, cols)
        group, oracle = self.groups[g], self.oracles[g]
        if oracle is None:
            return np.zeros((1, 1))
        check_cells(
            [self.sizes[c] for c in group],
            f"the covariance of group {group}",
            MAX_COVARIANCE_CELLS,
            "MAX_COVARIANCE_CELLS (ldp.tasks.marginals)",
        )
        group_sizes = [self.sizes[c] for c in group]
        keep = [group.index(c) for c in cols]
        matrix = marginal_matrix(group_sizes, keep)
        spread = matrix.T @ target / (self.cells(group) // self.cells(cols))
        inner = oracle.covariance(stats[g].n, spread, "iid")  # type: ignore[union-attr]
        return matrix @ inner @ matrix.T

    def _from_group(self, stat, g: int, cols: tuple[int, ...]):
        group, oracle = self.groups[g], self.oracles[g]
        group_sizes = [self.sizes[c] for c in group]
        keep = [group.index(c) for c in cols]
        if oracle is None:
            return np.ones(1), np.zeros(1)
        n = stat.n
        if n == 0:
            raise ValueError(f"the group of columns {group} has no reports")
        table = oracle.estimate(stat)
        est = marginalize(table, group_sizes, keep)
        m = self.cells(group) // self.cells(cols)
        return est, _sum_variance(oracle, n, est, m)

    def coefficients(self, stats: Sequence[SupportCounts | int]) -> dict[tuple[int, ...], float]:
        """``"fourier"``: the unbiased coefficient ``c_alpha`` of each group's columns."""
        out = {}
        for group, oracle, stat in zip(self.groups, self.oracles, stats):
            if stat.n == 0:  # type: ignore[union-attr]
                raise ValueError(f"the coefficient of columns {group} has no reports")
            out[group] = float(2.0 * oracle.estimate(stat)[0] - 1.0)  # type: ignore[union-attr]
        return out

    def _fourier(self, stats, cols: tuple[int, ...]):
        coef = self.coefficients(stats)
        k = len(cols)
        cells = np.arange(1 << k)
        bits = (cells[:, None] >> (k - 1 - np.arange(k))[None, :]) & 1  # row-major binary
        est = np.ones(cells.size)
        var = np.zeros(cells.size)
        for size in range(1, k + 1):
            for subset in combinations(range(k), size):
                key = tuple(sorted(cols[i] for i in subset))
                if key not in coef:
                    raise ValueError(f"no group of this design holds the coefficient of {key}")
                sign = 1.0 - 2.0 * (bits[:, list(subset)].sum(axis=1) % 2)
                c = coef[key]
                est = est + c * sign
                g = self.groups.index(key)
                oracle, n = self.oracles[g], stats[g].n
                bit0 = np.clip((1.0 + c) / 2.0, 0.0, 1.0)  # the frequency of parity 0
                var = var + 4.0 * float(oracle.variance(n, bit0, "iid"))  # type: ignore[union-attr]
        scale = 2.0**-k
        return est * scale, var * scale**2, "fourier:GRR"

    def planned_variance(self, n: int, columns: Sequence[int]) -> float:
        """The total ``iid`` variance over the cells of ``columns`` at the uniform table,
        with ``n`` users split evenly over the groups (the data-free criterion of
        ``method="auto"``).

        It is the largest expected squared l2 error of the unbiased marginal over all tables
        (for the group of smallest variance): a cell's variance is a linear function of its
        total ``F`` minus ``(q m + (p - q) F)^2 / (n (p - q)^2)`` (the oracle's
        :meth:`~ldp.mechanisms.FrequencyOracle.sum_variance`), so the sum over the cells,
        whose totals add up to 1, is largest when they are equal; a Fourier coefficient's
        variance is largest at ``c = 0``. The uniform table is the worst case of every
        marginal at once.
        """
        cols = tuple(columns)
        per_group = max(1, n // len(self.groups))
        if self.method == "fourier":
            oracle = self.oracles[0]
            terms = 2 ** len(cols) - 1
            one = 4.0 * float(oracle.variance(per_group, 0.5, "iid"))  # type: ignore[union-attr]
            return self.cells(cols) * terms * one * 4.0 ** -len(cols)
        return self._planned_group(per_group, cols)[0]

    def _planned_group(self, per_group: int, cols: tuple[int, ...]) -> tuple[float, int]:
        """``"joint"`` / ``"groups"``: the total variance of ``cols`` at the uniform table with
        ``per_group`` users per group, and the group of smallest one that holds them."""
        uniform = 1.0 / self.cells(cols)
        best: tuple[float, int] | None = None
        for g, (group, oracle) in enumerate(zip(self.groups, self.oracles)):
            if not set(cols) <= set(group):
                continue
            if oracle is None:
                return 0.0, g
            m = self.cells(group) // self.cells(cols)
            total = float(_sum_variance(oracle, per_group, uniform, m)) * self.cells(cols)
            if best is None or total < best[0]:
                best = (total, g)
        if best is None:
            raise ValueError(f"no group of this design holds the columns {cols}")
        return best

    def consistent_variance(self, n: int) -> float:
        """The total ``iid`` variance, over the cells of every requested table, of the
        linear step of the consistency (:func:`~ldp.tasks.marginals.consistent_projection`)
        at the uniform table, with ``n`` users split evenly over the groups and each table's
        weight from its :meth:`planned_variance` (the data-free criterion of
        ``method="auto"`` with consistency).

        The step sets each table's total to one and replaces each component ``S`` (the part
        of a table that is a function of the columns ``S`` summing to zero along each) by
        the average ``h_S = sum_t w_t h_{t,S}`` of the requested tables holding ``S``
        (:func:`~ldp.tasks.marginals.component_weights`); table ``t`` then holds
        ``h_S / m_{t,S}`` spread over its ``m_{t,S}`` cells per cell of ``S``. Exactly, at
        the uniform table: a group's table estimate has covariance ``a I + b 1 1^T``
        (an oracle's cell variances depend on the cells' frequencies only), so its
        component ``S`` has total variance ``a m_{g,S} prod_{c in S} (k_c - 1)``; tables
        read from one group share its component, tables from different groups are
        independent. ``"fourier"``: every table's component ``S`` is its coefficient's
        term, the same for all of them, so the step changes nothing but the total (which
        is exactly one) and this is the sum of :meth:`planned_variance`.

        The non-negativity rounds that follow the linear step are not linear and are not
        counted.

        Examples
        --------
        >>> from ldp.tasks.marginals import build_design, requested_tables
        >>> design = build_design("groups", (2, 2, 2, 2), requested_tables(4, 2), 1.0)
        >>> before = sum(design.planned_variance(10_000, t) for t in design.tables)
        >>> round(before, 4), round(design.consistent_variance(10_000), 4)
        (0.0299, 0.0166)
        """
        users = check_integer(n, "n", low=1)
        if self.method == "fourier":
            return float(sum(self.planned_variance(users, t) for t in self.tables))
        per_group = max(1, users // len(self.groups))
        planned = [self._planned_group(per_group, t) for t in self.tables]
        mean_var = [v / self.cells(t) for (v, _), t in zip(planned, self.tables)]
        source = [g for _, g in planned]
        total = 0.0
        for t in self.tables:
            for r in range(1, len(t) + 1):
                for subset in combinations(sorted(t), r):
                    holders = [u for u, cols in enumerate(self.tables) if set(subset) <= set(cols)]
                    k_subset = self.cells(subset)
                    weight = component_weights(
                        [mean_var[u] for u in holders],
                        [self.cells(self.tables[u]) // k_subset for u in holders],
                    )
                    by_group: dict[int, float] = {}
                    for u, w in zip(holders, weight):
                        by_group[source[u]] = by_group.get(source[u], 0.0) + float(w)
                    component = sum(
                        w * w * self._centered_scale(g, per_group) * self.cells(self.groups[g])
                        for g, w in by_group.items()
                    )  # over k_subset: the variance of the group's marginal on the subset
                    free = math.prod(self.sizes[c] - 1 for c in subset)
                    total += component / k_subset * free / (self.cells(t) // k_subset)
        return total

    def _centered_scale(self, g: int, per_group: int) -> float:
        """``a`` of group ``g``'s covariance ``a I + b 1 1^T`` at the uniform table: from the
        variances of one cell and of two cells' sum, ``a + b`` and ``2 a + 4 b``."""
        oracle = self.oracles[g]
        if oracle is None:
            return 0.0
        k = self.cells(self.groups[g])
        one = float(oracle.sum_variance(per_group, 1.0 / k, 1, "iid"))
        two = float(oracle.sum_variance(per_group, 2.0 / k, 2, "iid"))
        return 2.0 * one - two / 2.0


def auto_variance(design: MarginalDesign, *, consistency: bool, n: int = PLANNING_USERS) -> float:
    """What ``method="auto"`` ranks the designs by: the total ``iid`` variance, over the cells
    of every requested table at the uniform table with ``n`` users split evenly over the
    groups, of the tables it reports: after the consistency's linear step
    (:meth:`MarginalDesign.consistent_variance`) with ``consistency``, else of the unbiased
    tables (the sum of :meth:`MarginalDesign.planned_variance`).

    Examples
    --------
    >>> from ldp.tasks.marginals import auto_variance, build_design, requested_tables
    >>> design = build_design("groups", (2, 2, 2, 2), requested_tables(4, 2), 1.0)
    >>> round(auto_variance(design, consistency=False, n=10_000), 4)
    0.0299
    >>> round(auto_variance(design, consistency=True, n=10_000), 4)
    0.0166
    """
    if consistency:
        return design.consistent_variance(n)
    return float(sum(design.planned_variance(n, t) for t in design.tables))


def choose_design(designs: Sequence[MarginalDesign], *, consistency: bool) -> MarginalDesign:
    """The design ``method="auto"`` takes among ``designs``: the one of smallest
    :func:`auto_variance` at ``PLANNING_USERS`` users (the first of equal ones). The
    estimator and the planner both choose with it.

    Examples
    --------
    >>> from ldp.tasks.marginals import candidate_designs, choose_design, requested_tables
    >>> designs = candidate_designs((2, 2, 2, 2), requested_tables(4, 2), 1.0)
    >>> choose_design(designs, consistency=True).method
    'groups'
    >>> choose_design(designs, consistency=False).method
    'fourier'
    """
    if not designs:
        raise ValueError("designs must hold at least one design, got none")
    return min(designs, key=lambda d: auto_variance(d, consistency=bool(consistency)))


def _sum_variance(oracle: FrequencyOracle, n: int, total: ArrayLike, m: int) -> np.ndarray:
    """The ``iid`` variance of a marginal cell of total ``total`` (a plug-in estimate, so
    clipped into ``[0, 1]``) summing ``m`` cells of the group's table."""
    f = np.clip(np.asarray(total, dtype=np.float64), 0.0, 1.0)
    return np.asarray(oracle.sum_variance(n, f, m, "iid"), dtype=np.float64)


def _check_tables(
    tables: Sequence[Sequence[int]], d: int, name: str = "tables"
) -> tuple[tuple[int, ...], ...]:
    out = []
    for t in tables:
        if isinstance(t, (str, bytes)) or not all(
            isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_)) for c in t
        ):
            raise TypeError(
                f"{name} must hold column indices (integers in 0 .. {d - 1}), got {t!r}"
            )
        cols = tuple(int(c) for c in t)
        if not cols or len(set(cols)) != len(cols) or any(c < 0 or c >= d for c in cols):
            raise ValueError(f"{name} must hold distinct columns in 0 .. {d - 1}, got {t!r}")
        out.append(cols)
    if not out:
        raise ValueError("tables must name at least one marginal")
    return tuple(out)


def requested_tables(d: int, marginals: object) -> tuple[tuple[int, ...], ...]:
    """The marginals ``marginals`` of ``d`` columns as column tuples: an int ``k`` is every
    k-way marginal (``1 <= k <= d``), else a non-empty list of tuples of distinct columns.

    Examples
    --------
    >>> from ldp.tasks.marginals import requested_tables
    >>> requested_tables(3, 2)
    ((0, 1), (0, 2), (1, 2))
    """
    dims = check_integer(d, "d", low=1)
    if isinstance(marginals, (int, np.integer)) and not isinstance(marginals, bool):
        way = int(marginals)
        if not 1 <= way <= dims:
            raise ValueError(f"marginals must be a width in 1 .. {dims}, got {way}")
        return tuple(combinations(range(dims), way))
    if isinstance(marginals, (str, bytes)) or not isinstance(marginals, Sequence):
        raise TypeError(
            "marginals must be an int k (every k-way marginal) or a list of column tuples, "
            f"got {describe(marginals)}"
        )
    if not all(isinstance(t, Sequence) and not isinstance(t, (str, bytes)) for t in marginals):
        raise TypeError(f"marginals must be a list of column tuples, got {describe(marginals)}")
    return _check_tables(marginals, dims, "marginals")


def check_task(
    sizes: object, marginals: object
) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """``(sizes, tables)``: the columns' category counts (at least one column) and the
    :func:`requested_tables` of ``marginals``.

    Examples
    --------
    >>> from ldp.tasks.marginals import check_task
    >>> check_task([2, 3], 2)
    ((2, 3), ((0, 1),))
    """
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) or not sizes:
        raise TypeError(
            f"sizes must be a non-empty sequence of category counts, got {describe(sizes)}"
        )
    dims = check_sizes(sizes)
    return dims, requested_tables(len(dims), marginals)


def candidate_designs(
    sizes: Sequence[int],
    tables: Sequence[Sequence[int]],
    epsilon: float,
    candidates: Sequence[str] = ORACLES,
) -> tuple[MarginalDesign, ...]:
    """Every design that applies to the marginals ``tables``: ``"groups"``, ``"joint"`` when
    the joint of their columns has at most ``MAX_JOINT_CELLS`` cells, ``"fourier"`` when
    those columns are binary (the choices of ``method="auto"``).

    Examples
    --------
    >>> from ldp.tasks.marginals import candidate_designs
    >>> [d.method for d in candidate_designs((2, 2, 3), [(0, 1), (1, 2)], 1.0)]
    ['groups', 'joint']
    """
    dims = check_sizes(sizes)
    wanted = _check_tables(tables, len(dims))
    used = sorted({c for t in wanted for c in t})
    out = [build_design("groups", dims, wanted, epsilon, candidates)]
    if math.prod(dims[c] for c in used) <= MAX_JOINT_CELLS:
        out.append(build_design("joint", dims, wanted, epsilon, candidates))
    if all(dims[c] == 2 for c in used):
        out.append(build_design("fourier", dims, wanted, epsilon, candidates))
    return tuple(out)


def build_design(
    method: str,
    sizes: Sequence[int],
    tables: Sequence[Sequence[int]],
    epsilon: float,
    candidates: Sequence[str] = ORACLES,
    *,
    names: Sequence[str] | None = None,
) -> MarginalDesign:
    """The design ``method`` for the marginals ``tables`` of columns with ``sizes`` categories.

    Each ``"joint"`` / ``"groups"`` group privatizes its cell with :func:`best_oracle` among
    ``candidates`` (names of ``ldp.tasks.FREQUENCY_ORACLES``); ``"fourier"`` always uses
    binary randomized response.

    Raises ``ValueError`` for a marginal above ``MAX_TABLE_CELLS``,
    a ``"joint"`` above ``MAX_JOINT_CELLS``, and ``"fourier"`` with a non-binary column
    (named by ``names``, the columns' names, when given, else by its index, with its number
    of categories).

    Examples
    --------
    >>> from ldp.tasks.marginals import build_design
    >>> design = build_design("groups", (2, 3, 4), [(0, 1), (1, 2)], 1.0)
    >>> design.groups, design.oracles
    (((0, 1), (1, 2)), (GRR(k=6, epsilon=1.0), OUE(k=12, epsilon=1.0)))
    >>> build_design("fourier", (2, 2, 2), [(0, 1), (1, 2)], 1.0).groups
    ((0,), (1,), (2,), (0, 1), (1, 2))
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {describe(method)}")
    dims = check_sizes(sizes)
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    wanted = _check_tables(tables, len(dims))
    allowed = check_candidates(candidates)
    if names is not None and len(names) != len(dims):
        raise ValueError(
            f"names must name the {len(dims)} columns of sizes, got {len(names)} names"
        )
    for t in wanted:
        check_cells([dims[c] for c in t], f"the marginal of columns {t}", MAX_TABLE_CELLS)
    if method == "joint":
        used = tuple(sorted({c for t in wanted for c in t}))
        check_cells(
            [dims[c] for c in used],
            "the joint of the marginals' columns",
            MAX_JOINT_CELLS,
            "MAX_JOINT_CELLS (ldp.tasks.marginals)",
        )
        groups: tuple[tuple[int, ...], ...] = (used,)
    elif method == "groups":
        groups = tuple(dict.fromkeys(wanted))
    else:
        used = tuple(sorted({c for t in wanted for c in t}))
        wide = [c for c in used if dims[c] != 2]
        if wide:
            which = ", ".join(f"{names[c]!r}" if names is not None else f"column {c}" for c in wide)
            counts = ", ".join(str(dims[c]) for c in wide)
            raise ValueError(
                f"method 'fourier' needs binary columns (2 categories each); {which} "
                f"{'has' if len(wide) == 1 else 'have'} {counts} categories"
            )
        subsets = {
            tuple(sorted(s))
            for t in wanted
            for r in range(1, len(t) + 1)
            for s in combinations(t, r)
        }
        groups = tuple(sorted(subsets, key=lambda s: (len(s), s)))
        grr = GRR(2, eps)
        return MarginalDesign(method, dims, wanted, groups, (grr,) * len(groups), eps)
    oracles = tuple(best_oracle(math.prod(dims[c] for c in g), eps, allowed) for g in groups)
    return MarginalDesign(method, dims, wanted, groups, oracles, eps)

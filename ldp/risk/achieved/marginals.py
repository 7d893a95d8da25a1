r"""The worst-case risk of the marginal designs of :mod:`ldp.tasks.marginals`.

The risk of a collection of marginals is the largest, over the requested marginals, of the
expected squared l2 error of its unbiased estimate (the loss of the one-column planner's
``"distribution"`` problem, applied to each marginal as a distribution on its cells). Under
the ``iid`` convention it is exact: a marginal cell's variance is a linear function of its
total minus a square (:meth:`ldp.mechanisms.FrequencyOracle.sum_variance`), so the sum over
a marginal's cells is largest when they are equal, and the uniform table makes every
marginal uniform at once (:meth:`~ldp.tasks.marginals.MarginalDesign.planned_variance`). The
users are taken split evenly over a design's groups; a device draws its group at random, so
a group holds ``n / G`` users only in expectation, which adds a relative ``O(G / n)`` to the
risk. The consistency step that follows is not counted in the risk: it is that of the
unbiased tables. The *design* is chosen as
``MarginalEstimator(method="auto", consistency=...)`` chooses it
(:func:`~ldp.tasks.marginals.choose_design`: by the total variance of the tables it reports,
after the consistency's linear step when ``consistency``), so that a plan and a fit use the
same design; both totals of the chosen design are reported beside the risk.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ldp._validation import check_epsilon, describe
from ldp.risk._common import Bound, check_n
from ldp.risk.achieved.achievable import ACHIEVED
from ldp.tasks.marginals import (
    METHODS,
    ORACLES,
    MarginalDesign,
    auto_variance,
    candidate_designs,
    check_candidates,
    check_task,
    choose_design,
)

__all__ = ["marginals_risk"]


@functools.lru_cache(maxsize=64)
def _designs(
    dims: tuple[int, ...],
    tables: tuple[tuple[int, ...], ...],
    eps: float,
    candidates: tuple[str, ...] = ORACLES,
) -> tuple[MarginalDesign, ...]:
    """The applicable designs (cached: a planner's search asks for the same ones at every n)."""
    return candidate_designs(dims, tables, eps, candidates)


@functools.lru_cache(maxsize=64)
def _auto_choice(
    dims: tuple[int, ...],
    tables: tuple[tuple[int, ...], ...],
    eps: float,
    consistency: bool,
    candidates: tuple[str, ...] = ORACLES,
) -> MarginalDesign:
    """The design ``method="auto"`` fits (cached: it does not depend on ``n``)."""
    return choose_design(_designs(dims, tables, eps, candidates), consistency=consistency)


@functools.lru_cache(maxsize=64)
def _unit_totals(design: MarginalDesign) -> tuple[float, float]:
    """The design's totals (unbiased, consistent) with one user per group: every ``iid``
    variance is one user's over a group's users, so at ``n`` users they are these over
    ``max(1, n // G)`` (cached: a planner's search asks at every n)."""
    per_one = len(design.groups)
    return (
        auto_variance(design, consistency=False, n=per_one),
        auto_variance(design, consistency=True, n=per_one),
    )


def _totals(design: MarginalDesign, n: int) -> tuple[float, float]:
    scale = max(1, n // len(design.groups))
    unbiased, consistent = _unit_totals(design)
    return unbiased / scale, consistent / scale


def design_risk(design: MarginalDesign, n: int) -> float:
    """The largest worst-case expected squared l2 error over ``design``'s marginals."""
    return max(design.planned_variance(n, t) for t in design.tables)


def marginals_risk(
    sizes: Sequence[int],
    n: int,
    epsilon: float,
    *,
    marginals: int | Sequence[Sequence[int]] = 2,
    method: str = "auto",
    consistency: bool = True,
    candidates: Sequence[str] = ORACLES,
) -> Bound:
    r"""Worst-case risk of the marginals' collection design (the one the estimator fits) with
    ``n`` users.

    Parameters
    ----------
    sizes : sequence of int
        Categories of each column (the columns are ``0 .. d - 1``).
    n : int
        Number of users (one report each).
    epsilon : float
        What one report costs, ``> 0`` and finite.
    marginals : int or sequence of tuple, default 2
        ``k``: every k-way marginal; or the marginals as column tuples.
    method : {"auto", "joint", "groups", "fourier"}, default "auto"
        The design; ``"auto"`` the one ``MarginalEstimator(method="auto")`` fits with this
        ``consistency`` (:func:`~ldp.tasks.marginals.choose_design`).
    consistency : bool, default True
        Whether the tables will be made consistent (the estimator's ``consistency``): it
        decides how ``"auto"`` ranks the designs, and which total is ``design_totals``.
    candidates : sequence of str, default ("GRR", "OUE")
        The oracles a group may use (the estimator's ``candidates``).

    Returns
    -------
    Bound
        ``value``: the largest, over the marginals, of the worst-case expected squared l2
        error of the unbiased estimate (exact with the users split evenly over the groups);
        ``params``: ``mechanism`` (the design and its oracles, e.g. ``"groups:GRR/OUE"``),
        ``design_risks`` (every applicable design's value), ``design_totals`` (every
        applicable design's total variance over the marginals, the quantity ``"auto"``
        ranks by), ``total_unbiased`` and ``total_consistent`` (the chosen design's total
        before and after the consistency's linear step), ``consistency``, ``exact``.

    Examples
    --------
    >>> from ldp.risk import marginals_risk
    >>> b = marginals_risk((2, 3, 4), 100_000, 1.0)
    >>> b.mechanism, sorted(b.design_risks)
    ('groups:GRR/OUE', ['groups', 'joint'])
    >>> marginals_risk((2, 3, 4), 100_000, 1.0, method="groups").mechanism
    'groups:GRR/OUE'

    Four binary columns: the Fourier route has the smaller unbiased tables, the groups
    design the smaller consistent ones, and each is what the estimator fits:

    >>> marginals_risk((2, 2, 2, 2), 10_000, 1.0, consistency=False).mechanism
    'fourier:GRR'
    >>> b = marginals_risk((2, 2, 2, 2), 10_000, 1.0)
    >>> b.mechanism, round(b.total_unbiased, 4), round(b.total_consistent, 4)
    ('groups:GRR', 0.0299, 0.0166)
    """
    dims, tables = check_task(sizes, marginals)
    users = check_n(n)
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    if method not in ("auto", *METHODS):
        raise ValueError(f"method must be one of {('auto', *METHODS)}, got {method!r}")
    if not isinstance(consistency, (bool, np.bool_)):
        raise TypeError(f"consistency must be True or False, got {describe(consistency)}")
    names = check_candidates(candidates)
    designs = _designs(dims, tables, eps, names)
    risks = {d.method: design_risk(d, users) for d in designs}
    if method == "auto":
        chosen = _auto_choice(dims, tables, eps, bool(consistency), names)
    else:
        match = [d for d in designs if d.method == method]
        if not match:
            raise ValueError(
                f"method {method!r} does not apply to these marginals (it applies to "
                f"{sorted(risks)})"
            )
        chosen = match[0]
    oracles = sorted({o.name for o in chosen.oracles if o is not None})
    name = f"{chosen.method}:{'/'.join(oracles) or 'none'}"
    totals = {d.method: _totals(d, users)[1 if consistency else 0] for d in designs}
    total_unbiased, total_consistent = _totals(chosen, users)
    return Bound(
        risks[chosen.method],
        f"{name} unbiased marginals (exact worst-case risk, users split evenly over "
        f"{len(chosen.groups)} groups)",
        ACHIEVED,
        {
            "mechanism": name,
            "design_risks": risks,
            "design_totals": totals,
            "total_unbiased": total_unbiased,
            "total_consistent": total_consistent,
            "consistency": bool(consistency),
            "exact": True,
            "tables": tables,
        },
    )

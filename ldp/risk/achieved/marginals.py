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
risk. The consistency step that follows is not counted: the risk is that of the unbiased
tables. (``MarginalEstimator(method="auto")`` ranks the designs by the total variance after
the consistency's linear step instead,
:meth:`~ldp.tasks.marginals.MarginalDesign.consistent_variance`, so the two may choose
different designs.)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ldp._validation import check_epsilon
from ldp.risk._common import Bound, check_n
from ldp.risk.achieved.achievable import ACHIEVED
from ldp.tasks.marginals import (
    METHODS,
    MarginalDesign,
    candidate_designs,
    check_task,
)

__all__ = ["marginals_risk"]


@functools.lru_cache(maxsize=64)
def _designs(
    dims: tuple[int, ...], tables: tuple[tuple[int, ...], ...], eps: float
) -> tuple[MarginalDesign, ...]:
    """The applicable designs (cached: a planner's search asks for the same ones at every n)."""
    return candidate_designs(dims, tables, eps)


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
) -> Bound:
    r"""Worst-case risk of the marginals' best collection design with ``n`` users.

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
        The design; ``"auto"`` the one of smallest risk among those that apply.

    Returns
    -------
    Bound
        ``value``: the largest, over the marginals, of the worst-case expected squared l2
        error of the unbiased estimate (exact with the users split evenly over the groups);
        ``params``: ``mechanism`` (the design and its oracles, e.g. ``"groups:GRR/OUE"``),
        ``design_risks`` (every applicable design's value), ``exact``.

    Examples
    --------
    >>> from ldp.risk import marginals_risk
    >>> b = marginals_risk((2, 3, 4), 100_000, 1.0)
    >>> b.mechanism, sorted(b.design_risks)
    ('joint:OUE', ['groups', 'joint'])
    >>> marginals_risk((2, 3, 4), 100_000, 1.0, method="groups").mechanism
    'groups:GRR/OUE'
    """
    dims, tables = check_task(sizes, marginals)
    users = check_n(n)
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    if method not in ("auto", *METHODS):
        raise ValueError(f"method must be one of {('auto', *METHODS)}, got {method!r}")
    designs = _designs(dims, tables, eps)
    risks = {d.method: design_risk(d, users) for d in designs}
    if method == "auto":
        chosen = min(designs, key=lambda d: risks[d.method])
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
    return Bound(
        risks[chosen.method],
        f"{name} unbiased marginals (exact worst-case risk, users split evenly over "
        f"{len(chosen.groups)} groups)",
        ACHIEVED,
        {"mechanism": name, "design_risks": risks, "exact": True, "tables": tables},
    )

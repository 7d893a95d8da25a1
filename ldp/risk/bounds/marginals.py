r"""A lower bound on the risk of estimating a table's marginals from ``n`` eps-LDP reports."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ldp._validation import check_epsilon
from ldp.risk._common import Bound, check_n
from ldp.risk.bounds.minimax import distribution_lower_bound
from ldp.tasks.marginals import check_task

__all__ = ["marginals_lower_bound"]


def marginals_lower_bound(
    sizes: Sequence[int],
    n: int,
    epsilon: float,
    *,
    marginals: int | Sequence[Sequence[int]] = 2,
) -> Bound:
    r"""Lower bound on the minimax risk of estimating marginals from ``n`` eps-LDP reports.

    The risk is that of :func:`~ldp.risk.marginals_risk`: the largest, over the requested
    marginals, of the expected squared l2 error of a marginal (a distribution on its cells).
    Any one marginal of ``c`` cells is a distribution on ``c`` letters, and restricted to the
    tables whose other columns are a fixed function of that marginal's cell, a protocol on
    rows is a protocol on the cell: so the one-column bound for a domain of ``c`` letters
    with all ``n`` users (:func:`~ldp.risk.distribution_lower_bound`, the larger of the van
    Trees and the Fano bounds, proofs in ``docs/lower_bounds.md`` §2-3) bounds the risk of
    that marginal, hence the largest. Both one-column bounds maximise over sub-alphabets of
    at most ``c`` letters, so they grow with ``c``: the marginal of most cells gives the
    largest. It holds for the protocols that bound covers (``protocols``), any collection
    design included.

    Parameters
    ----------
    sizes : sequence of int
        Categories of each column.
    n : int
        Number of users.
    epsilon : float
        Pure LDP level of one report, ``> 0`` and finite.
    marginals : int or sequence of tuple, default 2
        ``k``: every k-way marginal; or the marginals as column tuples.

    Returns
    -------
    Bound
        ``params``: ``cells`` (of the largest marginal), ``protocols``, and the
        one-column bound's own ``params`` under ``one_column``.

    Examples
    --------
    >>> from ldp.risk import marginals_lower_bound, marginals_risk
    >>> lower = marginals_lower_bound((2, 3, 4), 100_000, 1.0)
    >>> lower.cells, lower.value < marginals_risk((2, 3, 4), 100_000, 1.0).value
    (12, True)
    """
    dims, tables = check_task(sizes, marginals)
    users = check_n(n)
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    cells = max(math.prod(dims[c] for c in t) for t in tables)
    if cells < 2:
        return Bound(
            0.0,
            "every marginal has one cell (known without data)",
            "minimax risk lower bound",
            {"cells": 1, "protocols": "all"},
        )
    bound = distribution_lower_bound(cells, users, eps)
    return Bound(
        bound.value,
        f"the marginal of {cells} cells as a distribution on {cells} letters: {bound.method}",
        bound.quantity,
        {"cells": cells, "protocols": bound.protocols, "one_column": dict(bound.params)},
    )

r"""Optimal eps-LDP channels for ``k`` up to 64 by column generation, certified.

The staircase LP of Kairouz-Oh-Viswanath (2016) over all :math:`2^k` patterns is solved a
few columns at a time by ``ldp._staircase_lp``, which also proves a bound on the optimum
from the dual of the restricted master and an exact pricing step:

* **mutual information** under any prior: a mixed-integer program over tangents of the
  concave column value (its dual bound is above every reduced cost);
* **f-divergences between two hypotheses** (``"kl"``, ``"chi2"``, ``"hellinger"``,
  ``"tv"``) and **Fisher information**: the reduced cost is a convex function of three
  linear functionals of the pattern, so it is largest at a vertex of a zonotope in
  :math:`\mathbb R^3`, and all :math:`O(k^2)` vertices are enumerated.

**Certificate.** Every column has entries :math:`\ge 1`, so a feasible :math:`\theta` has
:math:`\sum_s\theta_s \le 1`, and for *any* dual vector :math:`\lambda`,
:math:`\mu^\top\theta \le 1^\top\lambda + \max(0, \bar r)` with :math:`\bar r` the exact
pricing bound. The returned ``gap`` is :math:`(\text{that bound} - \text{value})/\text{that
bound}`, with ``value`` the utility of the certified channel (after the usual clean-up), so
it holds for the channel actually returned.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ldp._staircase_lp import MutualInformationPricer, ZonotopePricer, solve_staircase_lp
from ldp.design.certify import DesignError, DesignResult, certified_result
from ldp.design.utility import Sublinear

__all__ = ["MAX_COLUMN_GENERATION_K", "column_generation"]

#: Largest alphabet for column generation.
MAX_COLUMN_GENERATION_K = 64


def column_generation(
    utility: Sublinear,
    prior: np.ndarray | None,
    epsilon: float,
    *,
    tolerance: float = 1e-5,
    max_rounds: int = 1000,
    initial: np.ndarray | None = None,
    give_up: bool = False,
    method: str = "staircase LP by column generation",
) -> DesignResult:
    """The optimal staircase channel for ``utility``, by column generation, certified.

    ``prior`` is the prior of mutual information (ignored for the two-hypothesis utilities,
    which carry their pair). Stops when the certified relative gap of the restricted master
    is at most ``tolerance``; raises :class:`DesignError` if that does not happen within
    ``max_rounds`` rounds (with ``give_up``, for the two-hypothesis utilities, it returns
    the last restricted master with the gap certified by then instead). The budget counts
    rounds, never seconds, so a call gives the same channel on any machine. ``initial`` are
    extra starting patterns (rows).
    ``extras`` hold ``upper_bound`` (the certified bound on the
    optimum), ``rounds``, ``columns`` (in the final master) and ``exact_pricings``.
    """
    pricer: MutualInformationPricer | ZonotopePricer
    if utility.hypotheses is not None:
        first, second = utility.hypotheses
        pricer = ZonotopePricer(first, second, utility.column_values, epsilon)
        k = first.size
    else:
        assert prior is not None  # mutual information always has a prior
        pricer = MutualInformationPricer(prior, epsilon, DesignError)
        k = prior.size
    solution = solve_staircase_lp(
        utility.column_values,
        pricer,
        k,
        epsilon,
        tolerance=tolerance,
        max_rounds=max_rounds,
        error=DesignError,
        initial=initial,
        give_up=give_up,
    )
    result = certified_result(
        solution.columns * solution.weights[None, :],
        solution.value,
        "optimal",
        "HiGHS (column generation)",
        method,
        epsilon,
        0.0,
        None,
        utility.of_channel,
        upper_bound=solution.upper_bound,
        rounds=solution.rounds,
        columns=solution.n_columns,
        exact_pricings=solution.exact_pricings,
    )
    bound = solution.upper_bound
    return replace(result, gap=max(0.0, (bound - result.value) / max(bound, 1e-300)))

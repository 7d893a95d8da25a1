"""The entry point :func:`optimal_channel`: a certified optimum for any utility."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import (
    as_real_array,
    check_epsilon,
    check_integer,
    check_probability,
    check_scalar,
    compact,
)
from ldp.design.certify import MAX_EPSILON, DesignResult, check_solver
from ldp.design.colgen import MAX_COLUMN_GENERATION_K, column_generation
from ldp.design.linear import LinearDesign
from ldp.design.staircase import (
    MAX_ENTRIES,
    MAX_STAIRCASE_K,
    all_patterns,
    interval_patterns,
    staircase,
    subset_selection,
)
from ldp.design.utility import SUBLINEAR, check_prior, sublinear

__all__ = ["optimal_channel"]

_METHODS = ("auto", "staircase", "subset", "interval", "column-generation")
#: Rounds of column generation ``"auto"`` spends at most tightening the certificate of an
#: interval-pattern design (a count, not seconds: the result does not depend on the machine).
REFINE_ROUNDS = 100


def optimal_channel(
    k: int,
    epsilon: float,
    *,
    utility: str | ArrayLike,
    prior: ArrayLike | None = None,
    hypotheses: tuple[ArrayLike, ArrayLike] | None = None,
    delta: float = 0.0,
    eta: float | None = None,
    n_outputs: int | None = None,
    solver: str | None = None,
    method: str = "auto",
    gap_tolerance: float = 1e-5,
    max_rounds: int = 1000,
) -> DesignResult:
    """The utility-maximising channel on ``k`` inputs for a privacy budget, certified.

    Parameters
    ----------
    k : int
        Input alphabet size (``k >= 2``).
    epsilon : float
        Privacy level (finite, ``>= 0``).
    utility : {"mi", "tv", "kl", "chi2", "hellinger", "fisher"} or array_like
        ``"mi"``: mutual information I(X; Z) under ``prior`` (uniform by default);
        ``"tv"``, ``"kl"``, ``"chi2"``, ``"hellinger"``: the divergence between the output
        laws under ``hypotheses=(p0, p1)``; ``"fisher"``: Fisher information of the output,
        with ``hypotheses=(p_theta, dp_theta)`` (the law and its derivative in theta); or a
        gain matrix ``U[x, z]`` of shape ``(k, m)``: expected gain under ``prior``.
    prior, hypotheses : array_like, optional
        See ``utility``.
    delta : float, default 0.0
        Approximate-LDP slack (linear utilities only: the staircase theorem is for pure LDP).
    eta : float, optional
        eta-TV budget (linear utilities only).
    n_outputs : int, optional
        Output alphabet size for a gain matrix must equal its columns; for sublinear
        utilities the staircase optimum has at most ``k`` used outputs anyway.
    solver : str, optional
        cvxpy solver. By default a gain matrix under pure LDP is solved by HiGHS's dual
        simplex directly (no cvxpy), other linear budgets by Clarabel, and the staircase LP
        by HiGHS (a vertex solver, which returns sparse staircase solutions).
    method : {"auto", "staircase", "subset", "interval", "column-generation"}
        For sublinear utilities: ``"staircase"`` is the exact LP over all ``2^k - 1``
        patterns (``k <= 16``); ``"subset"`` the weight-class reduction (exact for mutual
        information under a uniform prior); ``"interval"`` the ``O(k^2)`` likelihood-ratio
        interval patterns for divergences between two hypotheses; ``"column-generation"``
        the staircase LP for mutual information solved a few patterns at a time, with an
        exact (mixed-integer) pricing step that certifies the optimality gap (``k <= 64``).
        ``"auto"`` picks the exact reduction when one applies, else the staircase LP for
        ``k <= 16`` and column generation (mutual information) above.
    gap_tolerance : float, default 1e-5
        Column generation: stop once the certified relative gap is at most this.
    max_rounds : int, default 1000
        Column generation: restricted masters solved before giving up (``DesignError``).
        ``"auto"`` for a divergence between two hypotheses above ``k = 10`` starts from the
        interval patterns and refines their certificate by column generation for at most
        ``min(max_rounds, REFINE_ROUNDS)`` rounds, then returns the best design with the
        certified gap reached (``.gap``, at most ``gap_tolerance`` when the refinement
        converged within its rounds). Budgets count rounds, never seconds: the same call
        returns the same channel on any machine, loaded or not.

    Returns
    -------
    DesignResult
        ``.channel`` (certified), ``.value`` (its utility), ``.status``, ``.solver``, and the
        certified ``.epsilon``, ``.delta``, ``.tv``; for column generation and the
        weight-class reduction also ``.gap``, the certified relative optimality gap of
        ``.value`` (``extras["upper_bound"]`` is the proven upper bound on the optimum).
        ``.mechanism`` deploys the design (``Protocol.from_mechanism(result.mechanism)``).
        When the optimum is subset selection with more than ``MAX_ENTRIES`` entries (mutual
        information under the uniform prior at large ``k``), ``.channel`` is ``None`` and
        ``.mechanism`` is the :class:`ldp.mechanisms.SubsetSelection` of the optimal size,
        certified from its own probabilities.

    Raises
    ------
    DesignError
        The budget is infeasible, the solver failed, or its output could not be certified.

    Examples
    --------
    >>> from ldp.design import optimal_channel
    >>> res = optimal_channel(4, 0.5, utility="mi")
    >>> round(res.value, 10)            # binary mechanism: log 2 - h(e^.5 / (1 + e^.5))
    0.030299862
    >>> res.channel.is_ldp(0.5)
    True
    >>> large = optimal_channel(32, 1.0, utility="mi")  # C(32, 11) outputs: no matrix
    >>> large.channel is None, large.mechanism, large.gap
    (True, SS(k=32, epsilon=1.0, d=11, encoding='bits'), 0.0)
    """
    k = check_integer(k, "k", low=2)
    if k * k > MAX_ENTRIES:  # every design holds at least a k x k matrix
        raise ValueError(f"k must be <= {math.isqrt(MAX_ENTRIES)}, got {compact(k)}")
    eps = check_epsilon(epsilon, high=MAX_EPSILON, allow_inf=False)
    d = check_probability(delta, "delta")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if not isinstance(utility, str):
        gains = as_real_array(utility, "utility")
        if gains.ndim != 2 or gains.shape[0] != k:
            raise ValueError(f"a gain matrix must have shape (k={k}, m), got {gains.shape}")
        if n_outputs is not None and check_integer(n_outputs, "n_outputs", low=1) != gains.shape[1]:
            raise ValueError(
                f"n_outputs={n_outputs} does not match the gain matrix's {gains.shape[1]} columns"
            )
        return LinearDesign(gains, prior, delta=d, eta=eta, solver=solver).solve(eps)
    if utility not in SUBLINEAR:
        raise ValueError(f"utility must be one of {SUBLINEAR} or a gain matrix, got {utility!r}")
    if d > 0 or eta is not None:
        raise ValueError(
            "sublinear utilities are optimised over staircase channels, which are optimal for "
            "pure eps-LDP only; delta > 0 and eta are supported for gain-matrix utilities"
        )
    if n_outputs is not None:
        check_integer(n_outputs, "n_outputs", low=1)
    target = sublinear(utility, k, prior, hypotheses)
    if method == "auto":
        if target.symmetric:
            method = "subset"
        elif target.hypotheses is not None and utility != "fisher" and k > 10:
            method = "interval+"
        elif k > (MAX_STAIRCASE_K if utility == "mi" else 10):
            method = "column-generation"
        else:
            method = "staircase"
    if method == "column-generation":
        if k > MAX_COLUMN_GENERATION_K:
            raise ValueError(
                f"k must be <= {MAX_COLUMN_GENERATION_K} for column generation, got {compact(k)}"
            )
        tol = check_scalar(gap_tolerance, "gap_tolerance", low=1e-7, high=1.0)
        rounds = check_integer(max_rounds, "max_rounds", low=1)
        if solver is not None and check_solver(solver, "HIGHS") != "HIGHS":
            raise ValueError(f"column generation solves with HiGHS, got solver={solver!r}")
        weights = None
        if utility == "mi":
            weights = np.full(k, 1.0 / k) if prior is None else check_prior(prior, k)
        return column_generation(target, weights, eps, tolerance=tol, max_rounds=rounds)
    if method == "subset":
        if not target.symmetric:
            raise ValueError(
                "method='subset' is exact only for mutual information under a uniform prior"
            )
        return subset_selection(target, k, eps)
    if method in ("interval", "interval+"):
        if target.hypotheses is None or utility == "fisher":
            raise ValueError("method='interval' applies to divergences between two hypotheses")
        p0, p1 = target.hypotheses
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(p1 > 0, p0 / np.where(p1 > 0, p1, 1.0), np.inf)
        order = np.argsort(-ratio, kind="stable")
        tol = check_scalar(gap_tolerance, "gap_tolerance", low=1e-7, high=1.0)
        rounds = check_integer(max_rounds, "max_rounds", low=1)
        # the interval patterns' master, priced exactly (its gap is certified); "auto" goes on
        # with column generation for a while to tighten the certificate
        refine = method == "interval+"
        return column_generation(
            target,
            None,
            eps,
            tolerance=tol,
            max_rounds=min(rounds, REFINE_ROUNDS) if refine else 1,
            initial=interval_patterns(order).T,
            give_up=True,
            method="interval-pattern LP"
            + (", refined by column generation" if refine else " (certified gap)"),
        )
    if k > MAX_STAIRCASE_K:
        raise ValueError(
            f"k={k} is too large for the exact staircase LP (2^k columns; k <= "
            f"{MAX_STAIRCASE_K}); use method='column-generation' (k <= "
            f"{MAX_COLUMN_GENERATION_K}) or, for mutual information under a uniform prior, "
            "method='subset'"
        )
    return staircase(target, all_patterns(k), eps, check_solver(solver, "HIGHS"), "staircase LP")

"""The entry point :func:`optimal_channel`: a certified optimum for any utility."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ldp._validation import as_real_array, check_epsilon, check_integer, check_probability, compact
from ldp.design.certify import MAX_EPSILON, DesignResult, check_solver
from ldp.design.linear import LinearDesign
from ldp.design.staircase import (
    MAX_ENTRIES,
    MAX_STAIRCASE_K,
    all_patterns,
    interval_patterns,
    staircase,
    subset_selection,
)
from ldp.design.utility import SUBLINEAR, sublinear

__all__ = ["optimal_channel"]


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
        cvxpy solver: default Clarabel for linear problems, HiGHS (a vertex solver, which
        returns sparse staircase solutions) for the staircase LP.
    method : {"auto", "staircase", "subset", "interval"}
        For sublinear utilities: ``"staircase"`` is the exact LP over all ``2^k - 1``
        patterns (``k <= 16``); ``"subset"`` the weight-class reduction (exact for mutual
        information under a uniform prior); ``"interval"`` the ``O(k^2)`` likelihood-ratio
        interval patterns for divergences between two hypotheses. ``"auto"`` picks the exact
        reduction when one applies, else the staircase LP.

    Returns
    -------
    DesignResult
        ``.channel`` (certified), ``.value`` (its utility), ``.status``, ``.solver``, and the
        certified ``.epsilon``, ``.delta``, ``.tv``.

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
    """
    k = check_integer(k, "k", low=2)
    if k * k > MAX_ENTRIES:  # every design holds at least a k x k matrix
        raise ValueError(f"k must be <= {math.isqrt(MAX_ENTRIES)}, got {compact(k)}")
    eps = check_epsilon(epsilon, high=MAX_EPSILON, allow_inf=False)
    d = check_probability(delta, "delta")
    if method not in ("auto", "staircase", "subset", "interval"):
        raise ValueError(
            f"method must be 'auto', 'staircase', 'subset' or 'interval', got {method!r}"
        )
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
            method = "interval"
        else:
            method = "staircase"
    if method == "subset":
        if not target.symmetric:
            raise ValueError(
                "method='subset' is exact only for mutual information under a uniform prior"
            )
        return subset_selection(target, k, eps)
    if method == "interval":
        if target.hypotheses is None or utility == "fisher":
            raise ValueError("method='interval' applies to divergences between two hypotheses")
        p0, p1 = target.hypotheses
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(p1 > 0, p0 / np.where(p1 > 0, p1, 1.0), np.inf)
        order = np.argsort(-ratio, kind="stable")
        return staircase(
            target,
            interval_patterns(order),
            eps,
            check_solver(solver, "HIGHS"),
            "interval-pattern LP",
        )
    if k > MAX_STAIRCASE_K:
        raise ValueError(
            f"k={k} is too large for the exact staircase LP (2^k columns; k <= "
            f"{MAX_STAIRCASE_K}); use method='subset' for symmetric mutual information or "
            "method='interval' for two hypotheses"
        )
    return staircase(target, all_patterns(k), eps, check_solver(solver, "HIGHS"), "staircase LP")

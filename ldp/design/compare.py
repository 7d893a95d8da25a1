"""Standard mechanisms beside the optimum, on one utility."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ldp._formulas import k_rr_probabilities
from ldp._validation import check_epsilon, check_integer, compact
from ldp.channel import Channel
from ldp.design.certify import MAX_EPSILON
from ldp.design.optimal import optimal_channel
from ldp.design.staircase import MAX_ENTRIES, subset_selection
from ldp.design.utility import SUBLINEAR, check_prior, sublinear, utility_value

__all__ = ["compare"]


def compare(
    k: int,
    epsilon: float,
    *,
    utility: str | ArrayLike,
    prior=None,
    hypotheses=None,
    solver: str | None = None,
):
    """Score the standard mechanisms and the optimum on one utility, as a DataFrame.

    Rows: k-RR, the best binary mechanism (randomized response on a split ``T`` of the
    alphabet: the likelihood-ratio split for two hypotheses, the best split by size for a
    symmetric prior, else the best of all splits for ``k <= 16``), the best subset selection,
    and the optimum of :func:`optimal_channel`. Columns: ``mechanism``, ``value``,
    ``epsilon`` (certified), ``n_outputs``, ``fraction_of_optimum``.

    Parameters
    ----------
    k : int
        Alphabet size, ``k >= 2``.
    epsilon : float
        Privacy level in ``[0, 700]``.
    utility : str or array_like
        As in :func:`utility_value`.
    prior, hypotheses
        As in :func:`optimal_channel`.
    solver : str, optional
        The cvxpy solver for the optimum.

    Returns
    -------
    pandas.DataFrame
        One row per mechanism with the columns above.

    Examples
    --------
    >>> from ldp.design import compare
    >>> table = compare(6, 1.1, utility="mi")
    >>> dict(zip(table.mechanism, table.value.round(6).tolist()))
    {'k-RR': 0.124655, 'binary': 0.131098, 'subset selection': 0.148708, 'optimum': 0.148708}

    >>> bool((table.value <= table.value.iloc[-1] + 1e-9).all())  # nothing beats the optimum
    True
    """
    import pandas as pd

    from ldp.mechanisms import k_rr

    k = check_integer(k, "k", low=2)
    if k * k > MAX_ENTRIES:  # every design holds at least a k x k matrix
        raise ValueError(f"k must be <= {math.isqrt(MAX_ENTRIES)}, got {compact(k)}")
    eps = check_epsilon(epsilon, high=MAX_EPSILON, allow_inf=False)
    rows = []

    def add(name: str, channel: Channel) -> None:
        rows.append(
            {
                "mechanism": name,
                "value": utility_value(channel, utility, prior=prior, hypotheses=hypotheses)
                if isinstance(utility, str) or channel.n_outputs == np.shape(utility)[1]
                else np.nan,
                "epsilon": channel.epsilon,
                "n_outputs": channel.n_outputs,
            }
        )

    add("k-RR", k_rr(k, eps))
    binary = best_binary(k, eps, utility, prior, hypotheses)
    if binary is not None and (isinstance(utility, str) or np.shape(utility)[1] == 2):
        add("binary", binary)
    if isinstance(utility, str) and utility in SUBLINEAR:
        target = sublinear(utility, k, prior, hypotheses)
        if math.comb(k, k // 2) * k <= MAX_ENTRIES:  # the family as matrices
            subsets = subset_selection(target, k, eps).channel
            if subsets is not None:
                add("subset selection", subsets)
    best = optimal_channel(
        k, eps, utility=utility, prior=prior, hypotheses=hypotheses, solver=solver
    )
    if best.channel is not None:
        add("optimum", best.channel)
    else:  # a structured optimum (no matrix): its certified numbers
        rows.append(
            {
                "mechanism": "optimum",
                "value": best.value,
                "epsilon": best.epsilon,
                "n_outputs": best.extras["n_outputs"],
            }
        )
    table = pd.DataFrame(rows)
    table = table.dropna(subset=["value"]).reset_index(drop=True)
    table["fraction_of_optimum"] = table["value"] / best.value if best.value > 0 else np.nan
    return table


def binary_channel(split: np.ndarray, epsilon: float) -> Channel:
    """Randomized response on the bit ``[x in split]``."""
    keep, other, _ = k_rr_probabilities(2, epsilon)
    first = np.where(split, keep, other)
    return Channel(np.column_stack([first, np.where(split, other, keep)]))


def best_binary(k, epsilon, utility, prior, hypotheses) -> Channel | None:
    """The best randomized response on a split of the alphabet (``None`` if not searched)."""
    if not isinstance(utility, str):
        return None
    if hypotheses is not None and utility != "fisher":
        p0 = check_prior(hypotheses[0], k, "hypotheses[0]")
        p1 = check_prior(hypotheses[1], k, "hypotheses[1]")
        return binary_channel(p0 >= p1, epsilon)
    candidates = []
    if utility == "mi" and (prior is None or np.allclose(prior, np.mean(prior))):
        for size in range(1, k // 2 + 1):
            split = np.zeros(k, dtype=bool)
            split[:size] = True
            candidates.append(split)
    elif k <= 16:
        for code in range(1, 2 ** (k - 1)):
            candidates.append(((code >> np.arange(k)) & 1).astype(bool))
    else:
        return None
    scored = [
        (utility_value(binary_channel(s, epsilon), utility, prior=prior, hypotheses=hypotheses), i)
        for i, s in enumerate(candidates)
    ]
    return binary_channel(candidates[max(scored)[1]], epsilon)

r"""Closed forms shared across the library: one home for each.

A leaf module: it imports nothing from ``ldp``. Every function takes arguments that the
caller has already validated (epsilon in ``[0, inf]``, probabilities in ``[0, 1]``,
integer sizes in range) and returns plain floats or arrays; the public functions that
validate and document them live in the modules that use them (for example
:func:`ldp.mechanisms.eta_max`).

Sources: the largest useful TV level and the erasure mechanism are Ghazi-Issa (2023),
Corollary 1, Remark 1 and Theorem 2; k-ary randomized response and subset selection are the
textbook mechanisms (Kairouz-Oh-Viswanath 2016; Wang et al. 2016; Ye-Barg 2018).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ldp._numerics import log_binomial

__all__ = [
    "erasure_weight",
    "eta_max",
    "k_rr_probabilities",
    "normalise_erasure",
    "subset_membership",
    "subset_selection_entries",
    "subset_selection_matrix",
    "subset_selection_probabilities",
    "support_rate_variance",
    "support_sum_variance",
]


# ---------------------------------------------------------------- TV level and erasure
def eta_max(epsilon: float, delta: float = 0.0) -> float:
    """``delta + (1 - delta) tanh(epsilon / 2) = (e^eps - 1 + 2 delta) / (e^eps + 1)``.

    The largest TV level of an ``(epsilon, delta)``-LDP channel (Ghazi-Issa (2023),
    Corollary 1 and Remark 1); exactly 1 at ``epsilon = inf``.
    """
    if not math.isfinite(epsilon):
        return 1.0
    return delta + (1.0 - delta) * math.tanh(epsilon / 2.0)


def erasure_weight(epsilon: float, delta: float, eta: float) -> float:
    r"""The erasure probability :math:`\alpha` of the dominating mechanism
    :math:`M_{\varepsilon,\delta,\eta}`: ``1 - (eta - delta) / ((1 - delta) tanh(eps / 2))``.

    ``eta`` must already lie in ``[delta, eta_max(epsilon, delta)]``; ``eta <= delta``
    (which covers ``epsilon = 0`` and ``delta = 1``) erases everything (``alpha = 1``). The
    result is clamped into ``[0, 1]`` against rounding (``alpha ~ -1e-17`` at ``eta_max``).
    """
    if eta <= delta:
        return 1.0
    alpha = 1.0 - (eta - delta) / ((1.0 - delta) * math.tanh(epsilon / 2.0))
    return min(1.0, max(0.0, alpha))


def normalise_erasure(
    epsilon: float, delta: float, eta: float | None = None
) -> tuple[float, float, float]:
    """Ghazi-Issa (2023), §III: ``delta <- min(delta, eta)``, ``eta <- min(eta, eta_max)``.

    ``eta=None`` means no TV constraint beyond ``eta_max(epsilon, delta)``. Returns
    ``(delta, eta, alpha)`` with ``alpha`` the :func:`erasure_weight` of the normalised pair.
    """
    level = eta_max(epsilon, delta) if eta is None else eta
    d = min(delta, level)
    level = min(level, eta_max(epsilon, d))
    return d, level, erasure_weight(epsilon, d, level)


# ---------------------------------------------------------------- k-ary randomized response
def k_rr_probabilities(k: int, epsilon: float) -> tuple[float, float, float]:
    """``(keep, other, gap)`` of k-ary randomized response.

    ``keep = e^eps / (e^eps + k - 1)`` (report the input), ``other = 1 / (e^eps + k - 1)``
    (each of the ``k - 1`` other values) and ``gap = keep - other = (e^eps - 1) /
    (e^eps + k - 1)``, formed from ``e^-eps`` so that nothing overflows at large
    ``epsilon`` (``epsilon = inf`` gives ``(1, 0, 1)``) and ``gap`` keeps its relative
    precision at small ``epsilon``.
    """
    tail = math.exp(-epsilon)  # 0.0 at eps = inf
    scale = 1.0 + (k - 1) * tail
    keep = 1.0 / scale
    # 1 / (e^eps + k - 1) in one division where e^eps is a finite double
    other = 1.0 / (math.exp(epsilon) + (k - 1)) if epsilon <= 700.0 else tail * keep
    return keep, other, -math.expm1(-epsilon) / scale


def support_rate_variance(n: int, f: np.ndarray, other: float, gap: float) -> np.ndarray:
    """``t (1 - t) / (n gap^2)``, ``t = other + f gap``: the iid variance of an oracle's
    unbiased frequency estimate (support rate ``t`` of a value of frequency ``f``).

    ``other`` and ``gap`` are the oracle's ``q`` and ``p - q`` (k-RR: from
    :func:`k_rr_probabilities`, so any ``epsilon`` up to ``inf``); ``t`` is clipped to
    ``[0, 1]`` against round-off. ``gap`` must be nonzero.
    """
    t = np.clip(other + f * gap, 0.0, 1.0)
    return t * (1.0 - t) / (n * gap * gap)


def support_sum_variance(
    n: int, total: np.ndarray, m: int, p: float, q: float, own_pair: float, other_pair: float
) -> np.ndarray:
    r"""The iid variance of the sum of ``m`` cells' unbiased estimates ``(C_v / n - q)/(p - q)``
    of a support-set oracle whose pair support is the same for every pair of values.

    One report supports value ``v`` with probability ``p`` if the user holds ``v`` and ``q``
    otherwise, and two distinct values ``u, v`` together with probability ``own_pair`` if the
    user holds one of them and ``other_pair`` if neither. For a set ``A`` of ``m`` values of
    total frequency ``F`` (``total``), the report's count ``T`` of supported values of ``A``
    has, for a user drawn from the population (the ``iid`` convention),

    .. math::

        E[T] = m q + (p - q) F, \qquad
        E[T^2] = E[T] + (m - 1)\,(2 F\,\mathrm{own} + (m - 2F)\,\mathrm{other}),

    because over the ``m (m - 1)`` ordered pairs ``(u, v)`` of ``A`` the chance that the user
    holds ``u`` or ``v`` adds up to ``2 (m - 1) F``, and the chance of neither to
    ``m (m - 1) - 2 (m - 1) F``. The sum of the
    estimates is ``(mean T - m q)/(p - q)``, so its variance is
    ``(E[T^2] - E[T]^2) / (n (p - q)^2)``; ``m = 1`` is :func:`support_rate_variance`. Clipped
    at 0 against round-off (the sum of all ``k`` cells of GRR is exactly 1).
    """
    mean = m * q + (p - q) * total
    second = mean + (m - 1) * (2.0 * total * own_pair + (m - 2.0 * total) * other_pair)
    return np.maximum(second - mean * mean, 0.0) / (n * (p - q) ** 2)


# ---------------------------------------------------------------- subset selection
def subset_selection_probabilities(k: int, d: int, epsilon: float) -> tuple[float, float]:
    """``(p, q)``: the chance that a ``d``-subset report contains the true value, and that it
    contains a given other value.

    ``p = d e^eps / (d e^eps + k - d)`` and
    ``q = d((d - 1) e^eps + k - d) / ((k - 1)(d e^eps + k - d))`` (Wang et al. 2016;
    Ye-Barg 2018); ``e^eps`` is capped at ``e^700`` so that it stays finite.
    """
    big = math.exp(min(epsilon, 700.0))
    denom = d * big + k - d
    return d * big / denom, d * ((d - 1) * big + k - d) / ((k - 1) * denom)


def subset_selection_entries(k: int, d: int, epsilon: float) -> tuple[float, float]:
    """``(P(S | x), P(S | x'))`` for one ``d``-subset ``S`` with ``x in S`` and ``x' not in S``.

    Every subset holding the input is ``e^eps`` times as likely as every other one, so
    ``P(S | x') = 1 / (C(k-1, d-1) e^eps + C(k-1, d))``; computed in log space (finite for
    every ``epsilon``, ``inf`` included).
    """
    log_inside = float(log_binomial(k - 1, d - 1))
    log_outside = float(log_binomial(k - 1, d))
    if math.isinf(epsilon):
        return math.exp(-log_inside), 0.0
    log_out = -float(np.logaddexp(log_inside + epsilon, log_outside))
    return math.exp(log_out + epsilon), math.exp(log_out)


def subset_membership(k: int, d: int) -> np.ndarray:
    """The ``(k, C(k, d))`` boolean matrix ``[x in S]`` over the ``d``-subsets ``S`` of
    ``range(k)`` in lexicographic order."""
    n_subsets = math.comb(k, d)
    subsets = np.array(list(itertools.combinations(range(k), d)), dtype=np.int64)
    member = np.zeros((k, n_subsets), dtype=bool)
    member[subsets.T, np.arange(n_subsets)[None, :]] = True
    return member


def subset_selection_matrix(k: int, d: int, epsilon: float) -> np.ndarray:
    """The ``(k, C(k, d))`` channel matrix of subset selection (subsets in lexicographic
    order); ``d = 1`` is k-ary randomized response."""
    inside, outside = subset_selection_entries(k, d, epsilon)
    return np.where(subset_membership(k, d), inside, outside)

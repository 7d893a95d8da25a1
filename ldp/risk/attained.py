r"""The worst-case risk of the best mechanism in the library, to set beside the lower bounds.

* Distribution estimation: every frequency oracle of :data:`ldp.tasks.FREQUENCY_ORACLES`
  (the candidates of :func:`ldp.tasks.recommend`) with its unbiased estimator. For
  i.i.d. users each support count is binomial, so the risk at ``p`` is
  :math:`\sum_x t_x(1-t_x)/(n(p-q)^2)`, :math:`t_x = q + p_x(p-q)`
  (:meth:`~ldp.mechanisms.FrequencyOracle.variance` with ``convention="iid"``); it is concave
  and symmetric in ``p``, so its supremum is at the uniform law: the exact worst-case squared
  l2 risk. For l1 the value is :math:`\sum_x \sqrt{\mathrm{Var}\,\hat p_x}` at the uniform
  law (Jensen), an upper bound on the worst-case l1 risk. Each oracle's estimate followed by
  the Euclidean projection onto the simplex (``FrequencyEstimator(consistency="project")``)
  is a candidate too (l2^2 only): its worst-case risk is at most the unbiased one and at
  most a certified bound on :math:`\mathbb E\max_j(\hat p_j - p_j)`
  (:func:`ldp.risk.projected_oracle_risk`, proof in ``docs/lower_bounds.md`` §7), far
  smaller when ``k`` is large against :math:`\sqrt n\,\varepsilon`. Then ``exact`` is
  ``False``: the value is an upper bound on the worst-case risk of an estimator the library
  provides. The estimator that ignores the data and answers the uniform law is also a
  candidate (risk ``1 - 1/k`` in l2^2, ``2(1 - 1/k)`` in l1).
* Mean estimation: Duchi et al.'s mechanisms (:class:`~ldp.mechanisms.Duchi` on the interval
  and the box, :class:`~ldp.mechanisms.DuchiL2` on the ball) and, on the interval, the
  piecewise, hybrid and Laplace mechanisms; on the ball in ``d >= 2``, also
  :class:`~ldp.mechanisms.PrivUnit` and :class:`~ldp.mechanisms.PrivUnitG` (optimal for
  unit vectors, Asi-Feldman-Talwar (2022)). With i.i.d. users the risk is
  :math:`(\mathbb E g(X) - \|\mathbb E X\|^2)/n`, :math:`g(x) = \mathrm{tr\,Var}(Z\mid x) +
  \|x\|^2`; ``g`` is constant (Duchi's mechanisms, PrivUnit, PrivUnitG) or convex and
  symmetric (the others), so the worst case is :math:`\max_x g(x)/n`, attained by the
  two-point law on the ends. The estimator ``0`` (risk :math:`r^2`, or :math:`d r^2` on the
  box) is a candidate too.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ldp._validation import check_epsilon, check_integer, check_scalar
from ldp.mechanisms import (
    Duchi,
    DuchiL2,
    Hybrid,
    Laplace,
    Piecewise,
    PrivUnit,
    PrivUnitG,
    SubsetSelection,
)
from ldp.mechanisms.categorical.subset import optimal_subset_size
from ldp.risk._common import Bound, check_n
from ldp.risk.projection import projected_oracle_risk
from ldp.tasks.selection import FREQUENCY_ORACLES

__all__ = ["best_distribution_risk", "best_mean_risk"]

ACHIEVED = "risk of estimator"
_TRIVIAL_DISTRIBUTION = "the uniform law, ignoring the reports"
_TRIVIAL_MEAN = "the estimate 0, ignoring the reports"


def oracle_risks(k: int, n: int, epsilon: float, loss: str = "l2sq") -> dict[str, Bound]:
    """Worst-case risk (or its upper bound) of each frequency oracle's best estimator: the
    unbiased estimate or its simplex projection, whichever bound is smaller (module notes)."""
    out = {}
    for name, cls in FREQUENCY_ORACLES.items():
        try:
            mech = cls(k, epsilon)
        except ValueError:  # e.g. local hashing past 2^31 buckets at large epsilon
            continue
        if loss == "l2sq":
            out[name] = projected_oracle_risk(mech, n)
            continue
        # l1: sum_x sqrt(Var p_hat_x) at the uniform law (Jensen), for the unbiased estimate
        half = 2.0 if loss == "tv" else 1.0
        value = k * math.sqrt(float(mech.variance(n, 1.0 / k, convention="iid"))) / half
        method = f"{name} + unbiased estimate (upper bound on the worst-case risk)"
        out[name] = Bound(value, method, ACHIEVED, {"exact": False, "projected": False})
    if loss == "l2sq" and k >= 4:
        # followed by projection, larger subsets than the variance-optimal size can do better
        # (a heavy letter's count varies less): a fixed ladder of sizes up to k / 2
        default = optimal_subset_size(k, epsilon)
        for d in _larger_subsets(default, k):
            out[f"SS(d={d})"] = projected_oracle_risk(SubsetSelection(k, epsilon, d=d), n)
    return out


def _larger_subsets(default: int, k: int) -> list[int]:
    """Subset sizes above ``default`` up to ``k // 2``, about geometrically spaced."""
    top = k // 2
    if top <= default:
        return []
    sizes = np.unique(np.round(np.geomspace(default, top, 9)).astype(np.int64))
    return [int(d) for d in sizes if default < d <= top]


def best_distribution_risk(k: int, n: int, epsilon: float, *, loss: str = "l2sq") -> Bound:
    r"""Worst-case risk of the best frequency oracle in the library (or of the uniform guess).

    Parameters
    ----------
    k : int
        Alphabet size (``2 <= k <= 2^40``).
    n : int
        Number of users.
    epsilon : float
        Privacy level, ``> 0`` and finite.
    loss : {"l2sq", "l1", "tv"}
        ``"l2sq"``: the exact worst-case risk of an unbiased oracle, or an upper bound on the
        worst-case risk of an oracle + simplex projection; ``"l1"``/``"tv"``: an upper bound.

    Returns
    -------
    Bound
        ``quantity`` ``"risk of estimator"``; ``params``: ``mechanism`` (the oracle's name, or
        ``"uniform"``), ``projected`` (whether its estimate is projected onto the simplex:
        ``FrequencyEstimator(consistency="project")``), ``oracle_risks`` (every oracle's
        value), ``exact`` (whether ``value`` is the exact worst case rather than an upper
        bound on it).

    Examples
    --------
    >>> from ldp.risk import best_distribution_risk
    >>> b = best_distribution_risk(10, 100_000, 1.0)
    >>> b.mechanism, round(b.value, 8)      # subset selection, (k-1)^2/(n k T(k, eps))
    ('SS', 0.00030004)
    """
    size = check_integer(k, "k", low=2)
    if size > 1 << 40:
        raise ValueError(f"k must be <= 2^40, got {size}")
    users = check_n(n)
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    if loss not in ("l2sq", "l1", "tv"):
        raise ValueError(f"loss must be 'l2sq', 'l1' or 'tv', got {loss!r}")
    candidates = oracle_risks(size, users, eps, loss)
    risks = {key: b.value for key, b in candidates.items()}
    name = min(risks, key=lambda key: risks[key])
    trivial = (1.0 - 1.0 / size) * (2.0 if loss == "l1" else 1.0)
    exact, projected = True, False
    if trivial < risks[name]:
        value, chosen, method = trivial, "uniform", _TRIVIAL_DISTRIBUTION
    else:
        best = candidates[name]
        value, chosen = best.value, name
        exact, projected = bool(best.exact), bool(best.projected)
        estimator = "unbiased frequency estimate projected onto the simplex"
        method = f"{name} + " + (estimator if projected else "unbiased frequency estimator")
    method += " (exact worst-case risk)" if exact else " (upper bound on the worst-case risk)"
    return Bound(
        value,
        method,
        ACHIEVED,
        {
            "mechanism": chosen,
            "oracle_risks": risks,
            "exact": exact,
            "projected": projected,
            "loss": loss,
        },
    )


@functools.lru_cache(maxsize=256)
def _mean_candidates(epsilon: float, d: int, domain: str) -> tuple[Any, ...]:
    # cached: the planner's searches ask for the same (epsilon, d) at many n
    if domain == "box":
        return (Duchi(epsilon, d=d),)
    if domain == "ball":
        found: list[Any] = [DuchiL2(epsilon, d=d)]
        if d == 1:
            found += [Duchi(epsilon), Piecewise(epsilon), Hybrid(epsilon), Laplace(epsilon)]
        else:
            found += [PrivUnit(epsilon, d=d), PrivUnitG(epsilon, d=d)]
        return tuple(found)
    return (Duchi(epsilon), Piecewise(epsilon), Hybrid(epsilon), Laplace(epsilon))


def _worst_second_moment(mech) -> float:
    """``max_x tr Var(Z | x) + ||x||^2`` over the centre and the ends of the unit domain."""
    d = mech.d
    points = [np.zeros(d), np.eye(d)[0], -np.eye(d)[0]] if d > 1 else [0.0, 1.0, -1.0]
    best = 0.0
    for x in points:
        arr = np.asarray(x, dtype=np.float64)
        # vectors (and every input of the ball mechanism) go in as one row of a batch
        rows = arr.reshape(1, d) if d > 1 or isinstance(mech, DuchiL2) else arr
        value = float(np.sum(mech.per_user_variance(rows))) + float(np.sum(arr * arr))
        best = max(best, value)
    return best


def best_mean_risk(
    n: int, epsilon: float, *, d: int = 1, domain: str = "interval", r: float = 1.0
) -> Bound:
    r"""Worst-case i.i.d. squared-error risk of the best mean mechanism in the library.

    Parameters
    ----------
    n : int
        Number of users.
    epsilon : float
        Privacy level, ``> 0`` and finite.
    d : int
        Dimension (``1`` for ``"interval"``).
    domain : {"interval", "box", "ball"}
        :math:`[-r, r]`, :math:`[-r, r]^d` or the l2 ball of radius ``r``.
    r : float
        Half-width or radius.

    Returns
    -------
    Bound
        ``params``: ``mechanism`` (its name, or ``"zero"``) and ``mechanism_risks``.

    Examples
    --------
    >>> import math
    >>> from ldp.risk import best_mean_risk
    >>> b = best_mean_risk(1000, 1.0)
    >>> b.mechanism, math.isclose(b.value, ((math.e + 1) / (math.e - 1)) ** 2 / 1000)
    ('Duchi', True)
    """
    users = check_n(n)
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    dim = check_integer(d, "d", low=1)
    if domain not in ("interval", "box", "ball"):
        raise ValueError(f"domain must be 'interval', 'box' or 'ball', got {domain!r}")
    if domain == "interval" and dim != 1:
        raise ValueError(f"domain='interval' has d = 1, got d = {dim}")
    if dim > 1 << 20:
        raise ValueError(f"d must be <= 2^20, got {dim}")
    radius = check_scalar(r, "r", low=0.0, low_open=True)
    risks = {}
    for mech in _mean_candidates(eps, dim, domain):
        risks[mech.name] = radius**2 * _worst_second_moment(mech) / users
    name = min(risks, key=lambda key: risks[key])
    trivial = radius**2 * (dim if domain == "box" else 1.0)
    if trivial < risks[name]:
        value, chosen, method = trivial, "zero", _TRIVIAL_MEAN
    else:
        value, chosen, method = risks[name], name, f"{name} mechanism + sample mean"
    return Bound(
        value,
        method + " (exact worst-case i.i.d. risk)",
        ACHIEVED,
        {"mechanism": chosen, "mechanism_risks": risks, "domain": domain, "d": dim},
    )

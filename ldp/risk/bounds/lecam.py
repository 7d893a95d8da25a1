r"""Private Le Cam two-point bound (Asoodeh-Aliakbarpour-Calmon (2021), Lemma 3) and its
exact-channel variant.

Convention for ``separation``
-----------------------------
``separation`` is the loss between the two parameters, :math:`\ell(\theta(P_0), \theta(P_1))`,
which Asoodeh-Aliakbarpour-Calmon (2021) write as :math:`2\tau`. The bound returned is the
paper's

.. math:: \mathcal R_n \ge \frac{\tau}{2}\,[1 - \mathrm{TV}(M_0^n, M_1^n)]_+
          = \frac{\mathrm{separation}}{4}\,[1 - \mathrm{TV}(M_0^n, M_1^n)]_+ ,

where :math:`M_j^n` is the law of the privatized sample under :math:`P_j`. It holds for every
loss with :math:`\ell(t,\theta_0) + \ell(t,\theta_1) \ge \ell(\theta_0,\theta_1)/2` for all
``t``, which covers metrics and squared metrics (absolute and squared error): the minimax risk
is at least the average risk, and pointwise
:math:`p_0\ell(t,\theta_0) + p_1\ell(t,\theta_1) \ge \min(p_0,p_1)\,\ell(\theta_0,\theta_1)/2`.
For squared error the usual reduction through testing loses a factor 2 to 4 against this
constant; the direct averaging argument above shows that the paper's constant is in fact valid
for squared loss (tested against the exact two-point Bayes risk in ``tests/risk/test_risk.py``). For
a metric loss, twice the value is also valid.

The total variation is bounded, per ``method``, by

* ``"kl"``: Pinsker and the chain rule with Lemma 1, :math:`\sqrt{n\varphi\,\mathrm{KL}/2}`
  (Lemma 3; sequential interaction allowed);
* ``"hellinger"``: Lemma 1 applied to the squared Hellinger distance and its tensorization,
  :math:`\sqrt{2 - 2(1 - \varphi H^2/2)^n}` (Asoodeh-Aliakbarpour-Calmon (2021),
  eqs. (38)-(39));
* ``"djw"``: Duchi-Jordan-Wainwright's strong data-processing inequality for pure
  :math:`\varepsilon`-LDP, :math:`\mathrm{KL}+\mathrm{KL}^{\leftarrow} \le 4(e^\varepsilon-1)^2
  \mathrm{TV}^2` per sample, giving :math:`\sqrt n\,(e^\varepsilon-1)\,\mathrm{TV}(P_0,P_1)`;
* ``"kl-tanh"``, ``"hellinger-tanh"`` (pure LDP): the same two routes with the per-sample
  contraction :math:`\tanh^2(\varepsilon/2)` in place of :math:`\varphi`: every
  :math:`\varepsilon`-LDP channel has :math:`\eta_{KL} = \eta_{\chi^2} = \eta_{H^2}
  \le \eta_{TV}\tanh(\varepsilon/2) \le \tanh^2(\varepsilon/2)` (Ghazi-Issa (2023),
  Theorem 5, with :math:`\eta_{TV} \le \tanh(\varepsilon/2)`: their eq. (26) prints the
  reciprocal :math:`(e^\varepsilon+1)/(e^\varepsilon-1)`, which exceeds 1; the correct form
  is the one their Lemma 3 uses, checked in ``tests/contraction/test_contraction.py``),
  which is below :math:`1 - e^{-\varepsilon}` for every :math:`\varepsilon > 0` (about 3x
  at ``eps = 1``, 6.5x at ``eps = 0.5``);
* ``"best"``: the smallest of those that apply.

With a concrete :class:`~ldp.Channel` (the same channel for all ``n`` users) the privatized
laws are known: the TV of the n-fold product is computed exactly over the multinomial types
when that is cheap, and otherwise bounded through the exact privatized KL and Hellinger
affinity.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from ldp.channel import Channel
from ldp.divergences import hellinger, tv
from ldp.divergences import kl as kl_divergence
from ldp.references import cite
from ldp.risk._common import (
    MINIMAX,
    Bound,
    Privacy,
    as_pmf,
    check_n,
    check_nonnegative,
    check_positive,
    maximize,
    push,
    resolve_privacy,
    scaled,
)

__all__ = ["le_cam", "product_tv"]

#: Largest number of multinomial types enumerated for an exact n-fold TV.
MAX_TYPES = 200_000

_METHODS = ("best", "kl", "hellinger", "djw", "kl-tanh", "hellinger-tanh")


def product_tv(p: ArrayLike, q: ArrayLike, n: int, *, max_types: int = MAX_TYPES) -> float:
    """Exact ``TV(P^{(x)n}, Q^{(x)n})`` of two n-fold product laws on a finite alphabet.

    The likelihood ratio of the products depends on the sample only through its type
    (counts), so the sum runs over the ``C(n + m - 1, m - 1)`` types of the ``m`` outcomes
    that carry mass.

    Parameters
    ----------
    p, q : array_like
        Probability vectors of equal length.
    n : int
        Number of independent copies, ``n >= 1``.
    max_types : int, optional
        Refuse (``ValueError``) when there are more types than this.

    Returns
    -------
    float

    Examples
    --------
    >>> from ldp.risk import product_tv
    >>> product_tv([0.5, 0.5], [0.25, 0.75], 1)
    0.25
    >>> round(product_tv([0.5, 0.5], [0.25, 0.75], 2), 12)  # 1/2 sum |p x p - q x q|
    0.3125
    """
    p, q = as_pmf(p, "p"), as_pmf(q, "q")
    if p.size != q.size:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    n = check_n(n)
    out = _product_tv(p, q, n, max_types)
    if out is None:
        raise ValueError(
            f"too many types to enumerate for n={n} over {int(((p > 0) | (q > 0)).sum())} "
            f"outcomes (limit max_types={max_types})"
        )
    return out


def _compositions(n: int, m: int) -> np.ndarray:
    if m == 1:
        return np.array([[n]])
    if m == 2:
        c = np.arange(n + 1)
        return np.stack([c, n - c], axis=1)
    bars = np.array(list(itertools.combinations(range(n + m - 1), m - 1)), dtype=np.int64)
    rows = bars.shape[0]
    ext = np.concatenate(
        [np.full((rows, 1), -1), bars, np.full((rows, 1), n + m - 1)], axis=1, dtype=np.int64
    )
    return np.diff(ext, axis=1) - 1


def _product_tv(p: np.ndarray, q: np.ndarray, n: int, max_types: int) -> float | None:
    support = (p > 0) | (q > 0)
    a, b = p[support], q[support]
    m = a.size
    if m <= 1:
        return 0.0
    if math.comb(n + m - 1, m - 1) > max_types:
        return None
    counts = _compositions(n, m).astype(np.float64)
    log_mult = gammaln(n + 1.0) - gammaln(counts + 1.0).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        la, lb = np.log(a), np.log(b)
        lpa = np.where(counts > 0, counts * la, 0.0).sum(axis=1)
        lpb = np.where(counts > 0, counts * lb, 0.0).sum(axis=1)
        diff = np.exp(log_mult + lpa) - np.exp(log_mult + lpb)
    return float(np.clip(np.maximum(diff, 0.0).sum(), 0.0, 1.0))


def _tv_bounds_worst_case(
    priv: Privacy, n: int, *, kl01: float, h2: float | None, tv01: float | None
) -> dict[str, float]:
    """TV(M0^n, M1^n) bounds over all (eps, delta)-LDP mechanisms, by route."""
    factor = priv.factor()
    out = {"kl": math.sqrt(min(scaled(n * factor, kl01), 4.0) / 2.0)}
    if h2 is not None:
        # Asoodeh-Aliakbarpour-Calmon (2021), eqs. (38)-(39):
        # H^2(M0^n, M1^n) <= 2 - 2 (1 - phi H^2 / 2)^n and TV <= H
        affinity = max(0.0, 1.0 - factor * h2 / 2.0)
        out["hellinger"] = math.sqrt(
            max(0.0, -2.0 * math.expm1(n * math.log(affinity))) if affinity > 0 else 2.0
        )
    if tv01 is not None and priv.djw:
        out["djw"] = math.sqrt(n) * math.expm1(priv.epsilon) * tv01
    if priv.djw:
        # pure LDP: the per-sample contraction tanh^2(eps/2) replaces phi in both routes
        out["kl-tanh"] = math.sqrt(min(scaled(n * priv.tanh_factor, kl01), 4.0) / 2.0)
        if h2 is not None:
            affinity = max(0.0, 1.0 - priv.tanh_factor * h2 / 2.0)
            out["hellinger-tanh"] = math.sqrt(
                max(0.0, -2.0 * math.expm1(n * math.log(affinity))) if affinity > 0 else 2.0
            )
    return {k: min(v, 1.0) for k, v in out.items()}


def _tv_bound_channel(m0: np.ndarray, m1: np.ndarray, n: int) -> tuple[float, str]:
    exact = _product_tv(m0, m1, n, MAX_TYPES)
    if exact is not None:
        return exact, "exact TV of the n-fold privatized product"
    kl_min = min(kl_divergence(m0, m1), kl_divergence(m1, m0))
    pinsker = math.sqrt(min(n * kl_min, 4.0) / 2.0)
    # Le Cam's inequality TV <= sqrt(1 - BC^{2n}), BC = 1 - H^2/2 the Bhattacharyya affinity
    bc = max(0.0, 1.0 - hellinger(m0, m1) / 2.0)
    le_cam_h = math.sqrt(-math.expm1(2 * n * math.log(bc))) if bc > 0 else 1.0
    if pinsker <= le_cam_h:
        return min(pinsker, 1.0), "Pinsker on the exact privatized KL"
    return min(le_cam_h, 1.0), "exact privatized Hellinger affinity"


def le_cam(
    p0: ArrayLike | None = None,
    p1: ArrayLike | None = None,
    *,
    separation: float | tuple[float, float],
    n: int,
    epsilon: float | None = None,
    delta: float = 0.0,
    channel: Channel | None = None,
    kl: float | Callable[[float], float] | None = None,
    method: str = "best",
) -> Bound:
    r"""Private Le Cam two-point lower bound on the minimax risk.

    :math:`\mathcal R_n \ge (\mathrm{separation}/4)\,[1 - \mathrm{TV}(M_0^n, M_1^n)]_+`
    with ``separation`` :math:`= \ell(\theta(P_0), \theta(P_1)) = 2\tau`
    (Asoodeh-Aliakbarpour-Calmon (2021), Lemma 3);
    see the module docstring for the loss functions it covers.

    Parameters
    ----------
    p0, p1 : array_like, optional
        The two hypotheses as pmfs on the same finite alphabet.
    separation : float or (float, float)
        The loss between the two parameters (``> 0``). With a callable ``kl``, an interval
        ``(low, high)`` over which the separation is optimised.
    n : int
        Number of users, ``n >= 1``.
    epsilon, delta : float
        Worst case over all (sequentially interactive) ``(epsilon, delta)``-LDP mechanisms;
        ``epsilon=inf`` gives the non-private bound (Asoodeh-Aliakbarpour-Calmon (2021),
        eq. (7)).
    channel : Channel, optional
        A concrete mechanism used by every user (non-interactive); replaces ``epsilon``.
    kl : float or callable, optional
        Instead of ``p0, p1``: the per-sample ``KL(P0 || P1)``, or a function of the
        separation returning it (for parametric families; the separation is then optimised).
        Only the ``"kl"`` route applies.
    method : {"best", "kl", "hellinger", "djw", "kl-tanh", "hellinger-tanh"}
        Which bound on the total variation to use (module docstring); ``"kl"`` is Lemma 3
        of Asoodeh-Aliakbarpour-Calmon (2021) as printed.

    Returns
    -------
    Bound
        ``value``, ``method``, and ``params`` with ``separation``, ``tau``, ``tv_bound``,
        ``factor`` (``phi(eps, delta)``), ``route``.

    Examples
    --------
    Lemma 3 of Asoodeh-Aliakbarpour-Calmon (2021) with ``tau = 1`` (so ``separation = 2``),
    ``n = 100``, ``eps = 1``, ``KL = 0.01``:

    >>> from ldp.risk import le_cam
    >>> round(le_cam(kl=0.01, separation=2.0, n=100, epsilon=1.0, method="kl").value, 6)
    0.218904
    >>> round(le_cam(kl=0.01, separation=2.0, n=100, epsilon=1.0).value, 6)  # tanh^2 route
    0.336617

    Two Bernoulli laws under randomized response, worst case and exact:

    >>> import ldp
    >>> p0, p1 = [0.6, 0.4], [0.4, 0.6]
    >>> worst = le_cam(p0, p1, separation=0.04, n=50, epsilon=1.0)
    >>> exact = le_cam(p0, p1, separation=0.04, n=50, channel=ldp.randomized_response(1.0))
    >>> worst.value <= exact.value
    True
    """
    n = check_n(n)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    priv = resolve_privacy(epsilon, delta, channel)

    if kl is not None:
        if p0 is not None or p1 is not None:
            raise ValueError("pass either p0 and p1 or kl, not both")
        if priv.channel is not None:
            raise ValueError("a concrete channel needs the distributions p0 and p1, not kl")
        if method not in ("best", "kl", "kl-tanh"):
            raise ValueError(
                f"with kl only the 'kl' and 'kl-tanh' routes apply, got method={method!r}"
            )
        if callable(kl):
            return _le_cam_optimised(kl, separation, n, priv)
        kl01 = check_nonnegative(kl, "kl")
        sep = check_positive(separation, "separation")
        bounds = _tv_bounds_worst_case(priv, n, kl01=kl01, h2=None, tv01=None)
        if method == "best":
            route = min(bounds, key=bounds.__getitem__)
        elif method not in bounds:
            raise ValueError("method='kl-tanh' needs pure LDP: a finite epsilon and delta = 0")
        else:
            route = method
        return _result(sep, bounds[route], route, priv, n)

    if p0 is None or p1 is None:
        raise TypeError("pass the two hypotheses p0 and p1 (pmfs), or their per-sample kl")
    sep = check_positive(separation, "separation")
    p0, p1 = as_pmf(p0, "p0"), as_pmf(p1, "p1")
    if p0.size != p1.size:
        raise ValueError(f"p0 and p1 must have the same length, got {p0.size} and {p1.size}")

    if priv.channel is not None:
        m0, m1 = push(priv.channel, p0, "p0"), push(priv.channel, p1, "p1")
        tv_n, how = _tv_bound_channel(m0, m1, n)
        return Bound(
            sep / 4.0 * max(0.0, 1.0 - tv_n),
            f"Le Cam two-point with a concrete channel ({how})",
            MINIMAX,
            {"separation": sep, "tau": sep / 2.0, "tv_bound": tv_n, "route": "channel"},
        )

    bounds = _tv_bounds_worst_case(
        priv,
        n,
        kl01=float(min(kl_divergence(p0, p1), kl_divergence(p1, p0))),
        h2=float(hellinger(p0, p1)),
        tv01=float(tv(p0, p1)),
    )
    if method == "best":
        route = min(bounds, key=bounds.__getitem__)
    elif method not in bounds:
        raise ValueError(
            f"method={method!r} needs pure LDP: a finite epsilon and delta = 0 "
            f"(got epsilon={priv.epsilon}, delta={priv.delta})"
        )
    else:
        route = method
    return _result(sep, bounds[route], route, priv, n)


ROUTE_NAMES = {
    "kl": f"private Le Cam ({cite('asoodeh2021', 'Lemma 3')}: Pinsker + Lemma 1)",
    "hellinger": (
        f"private Le Cam via Hellinger ({cite('asoodeh2021', 'Lemma 1')} + eqs. (38)-(39))"
    ),
    "djw": f"private Le Cam via strong DPI ({cite('duchi2018', 'Theorem 1')})",
    "kl-tanh": (
        f"private Le Cam (Pinsker + eta_KL <= tanh^2(eps/2), {cite('ghazi2023', 'Theorem 5')})"
    ),
    "hellinger-tanh": (
        f"private Le Cam via Hellinger (eta_H2 <= tanh^2(eps/2), {cite('ghazi2023', 'Theorem 5')})"
    ),
}


def _result(sep: float, tv_n: float, route: str, priv: Privacy, n: int) -> Bound:
    name = ROUTE_NAMES[route]
    if not priv.private:
        name = (
            f"non-private Le Cam ({cite('asoodeh2021', 'eq. (7)')})"
            if route == "kl"
            else "non-private Le Cam via Hellinger tensorization"
        )
    return Bound(
        sep / 4.0 * max(0.0, 1.0 - tv_n),
        name,
        MINIMAX,
        {
            "separation": sep,
            "tau": sep / 2.0,
            "tv_bound": tv_n,
            "factor": priv.tanh_factor if route.endswith("tanh") else priv.factor(),
            "route": route,
        },
    )


def _le_cam_optimised(
    kl_of: Callable[[float], float], separation: object, n: int, priv: Privacy
) -> Bound:
    try:
        low, high = (float(x) for x in separation)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise TypeError(
            f"with a callable kl, separation must be an interval (low, high), got {separation!r}"
        ) from None
    low = check_positive(low, "separation[0]")
    high = check_positive(high, "separation[1]")
    if high < low:
        raise ValueError(f"separation interval must have low <= high, got {separation!r}")
    factor = priv.factor()

    def tv_of(s: float) -> float:
        value = kl_of(float(s))
        value = check_nonnegative(value, "kl(separation)")
        return min(1.0, math.sqrt(min(scaled(n * factor, value), 4.0) / 2.0))

    def objective(s: np.ndarray) -> np.ndarray:
        return np.array([x / 4.0 * max(0.0, 1.0 - tv_of(x)) for x in s])

    grid = np.concatenate([np.linspace(low, high, 201), np.geomspace(low, high, 201)])
    sep, _ = maximize(objective, grid)
    return _result(sep, tv_of(sep), "kl", priv, n)

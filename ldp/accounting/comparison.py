r"""Comparing privacy curves: Delta-divergence, approximate GDP, Blackwell order, Theorem B.1.

After Tran-Koskela-Räisä-Honkela (2025). Every function takes trade-off curves
(:class:`~ldp.accounting.TradeOffFunction`) or remove-direction privacy profiles given as
callables ``H(gamma) = D_gamma(P || Q)`` (vectorised over ``gamma >= 0``); a curve ``f``
enters through its profile ``H_f(gamma) = f.delta(log gamma)``.

* :func:`delta_divergence`: the symmetrised Delta-divergence of Kaissis et al. (2024),
  ``min{D : f(a + D) - D <= g(a) and g(a + D) - D <= f(a) for all a}``, computed in its
  profile form ``sup_gamma |H_f(gamma) - H_g(gamma)| / (1 + gamma)``.
* :func:`approx_gdp_distance`, :func:`is_approx_gdp`, :func:`approx_gdp_delta`:
  Delta-approximate ``mu``-GDP (Definition 2.7 of the paper),
  ``G_mu(a + D) - D <= f(a) <= G_mu(a - D) + D``, which is ``Delta(f, G_mu) <= D``; it implies
  ``delta(eps) <= delta_mu(eps) + D (1 + e^eps)`` (from the profile form).
* :func:`blackwell_compare`, :func:`is_blackwell_chain`: the Blackwell order of two curves
  (``f >= g`` everywhere iff ``H_f <= H_g`` everywhere) and the calibration points where two
  unordered curves cross (§3 of the paper); a family is a Blackwell chain when every pair is
  ordered, the condition of Theorem 3.6 under which the natural f-DP filter is valid.
* :func:`worst_case_adaptive_profile`: Theorem B.1: when the second mechanism is chosen
  from the output of a first one, every selection rule is dominated by
  ``(H_1 (x) max_k H_k)(gamma) = E_{y ~ P_1}[max_k H_k(gamma q_1(y)/p_1(y))]``, and for
  each single ``gamma`` some rule attains it.

These are numerical comparisons on a grid of ``log gamma`` refined by a scalar search; they
are not privacy guarantees and are not rounded outward.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import brentq, minimize_scalar

from ldp._validation import check_scalar
from ldp.accounting.central.subsampled_gaussian import SubsampledGaussianTradeOff
from ldp.accounting.tradeoff import GaussianTradeOff, TradeOffFunction

__all__ = [
    "BlackwellComparison",
    "approx_gdp_delta",
    "approx_gdp_distance",
    "blackwell_compare",
    "delta_divergence",
    "is_approx_gdp",
    "is_blackwell_chain",
    "worst_case_adaptive_profile",
]

Profile = Callable[[np.ndarray], np.ndarray]

#: The grid of ``log gamma`` on which curves are compared (then refined).
_LOG_GAMMA = np.linspace(-30.0, 30.0, 6001)


def _as_profile(curve: object, name: str) -> Profile:
    if isinstance(curve, TradeOffFunction):
        if curve.approx:
            raise ValueError(f"{name} is an approximation, not a trade-off curve; refused")

        def h(gamma: np.ndarray) -> np.ndarray:
            g = np.asarray(gamma, dtype=np.float64)
            with np.errstate(divide="ignore"):
                return np.asarray(curve.delta(np.log(g)), dtype=np.float64)

        return h
    if callable(curve) and not isinstance(curve, type):

        def hp(gamma: np.ndarray) -> np.ndarray:
            values = np.asarray(curve(np.asarray(gamma, dtype=np.float64)), dtype=np.float64)
            if values.shape != np.shape(gamma) or not np.all(np.isfinite(values)):
                raise ValueError(f"{name} must map gamma to finite profile values of its shape")
            return values

        return hp
    raise TypeError(
        f"{name} must be a TradeOffFunction or a profile callable, got {type(curve).__name__}"
    )


def _scaled_gap(hf: Profile, hg: Profile, t: float) -> float:
    g = np.array([math.exp(t)])
    return float(abs(hf(g)[0] - hg(g)[0]) / (1.0 + g[0]))


def delta_divergence(f: object, g: object) -> float:
    r"""The symmetrised Delta-divergence between two trade-off curves (Kaissis et al. (2024)).

    ``Delta(f, g) = min{D >= 0 : f(a + D) - D <= g(a) and g(a + D) - D <= f(a), all a}``,
    computed as ``sup_{gamma >= 0} |H_f(gamma) - H_g(gamma)| / (1 + gamma)`` (the profile
    form used by Tran-Koskela-Räisä-Honkela (2025), Appendix C). A metric: ``0`` iff the
    curves agree; convergence in it is pointwise convergence (their Theorem C.8).

    Parameters
    ----------
    f, g : TradeOffFunction or callable
        Curves, or remove-direction profiles ``H(gamma)``.

    Returns
    -------
    float
        ``Delta(f, g)`` in ``[0, 1/2]``.

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, delta_divergence
    >>> round(delta_divergence(GaussianTradeOff(1.0), GaussianTradeOff(1.2)), 6)
    0.034284
    """
    hf, hg = _as_profile(f, "f"), _as_profile(g, "g")
    gamma = np.exp(_LOG_GAMMA)
    gap = np.abs(hf(gamma) - hg(gamma)) / (1.0 + gamma)
    i = int(np.argmax(gap))
    best = float(gap[i])
    lo = _LOG_GAMMA[max(i - 1, 0)]
    hi = _LOG_GAMMA[min(i + 1, _LOG_GAMMA.size - 1)]
    res = minimize_scalar(
        lambda t: -_scaled_gap(hf, hg, t),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return max(best, -float(res.fun))


def approx_gdp_distance(f: object, mu: float) -> float:
    r"""The smallest ``D`` with ``f`` ``D``-approximately ``mu``-GDP: ``Delta(f, G_mu)``.

    Definition 2.7 of Tran-Koskela-Räisä-Honkela (2025):
    ``G_mu(a + D) - D <= f(a) <= G_mu(a - D) + D`` for all ``a``; the two inequalities are
    the two halves of the symmetrised Delta-divergence to ``G_mu``.

    Parameters
    ----------
    f : TradeOffFunction or callable
        A curve or a remove-direction profile.
    mu : float
        ``mu >= 0``.

    Returns
    -------
    float

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, approx_gdp_distance
    >>> round(approx_gdp_distance(GaussianTradeOff(2.0), 0.5), 6)
    0.242638
    """
    m = check_scalar(mu, "mu", low=0.0)
    return delta_divergence(f, GaussianTradeOff(m))


def is_approx_gdp(f: object, mu: float, distance: float) -> bool:
    r"""Whether ``f`` is ``distance``-approximately ``mu``-GDP (Definition 2.7).

    Parameters
    ----------
    f : TradeOffFunction or callable
    mu : float
        ``mu >= 0``.
    distance : float
        ``D`` in ``[0, 1]``.

    Returns
    -------
    bool

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, is_approx_gdp
    >>> f = GaussianTradeOff(1.2)
    >>> is_approx_gdp(f, 1.0, 0.035), is_approx_gdp(f, 1.0, 0.03)
    (True, False)
    """
    d = check_scalar(distance, "distance", low=0.0, high=1.0)
    return approx_gdp_distance(f, mu) <= d


def approx_gdp_delta(mu: float, distance: float, epsilon: ArrayLike) -> float | np.ndarray:
    r"""``delta(eps)`` implied by ``distance``-approximate ``mu``-GDP (both directions).

    ``min(1, delta_mu(eps) + D (1 + e^eps))``: from the profile form of the
    Delta-divergence, ``|H_f(gamma) - H_mu(gamma)| <= D (1 + gamma)``. A valid bound *given*
    the Delta-approximation; Theorem 4.3 of Tran-Koskela-Räisä-Honkela (2025) gives ``D``
    only up to unknown constants.

    Parameters
    ----------
    mu : float
        ``mu >= 0``.
    distance : float
        ``D`` in ``[0, 1]``.
    epsilon : float or array_like

    Returns
    -------
    float or numpy.ndarray

    Examples
    --------
    >>> from ldp.accounting import approx_gdp_delta
    >>> round(float(approx_gdp_delta(1.0, 0.001, 1.0)), 6)
    0.130655
    """
    m = check_scalar(mu, "mu", low=0.0)
    d = check_scalar(distance, "distance", low=0.0, high=1.0)
    e = np.asarray(epsilon, dtype=np.float64)
    if not np.all(np.isfinite(e)):
        raise ValueError("epsilon must be finite")
    base = GaussianTradeOff(m).delta(e)
    with np.errstate(over="ignore"):
        value = np.minimum(1.0, np.asarray(base) + d * (1.0 + np.exp(e)))
    return float(value) if value.ndim == 0 else value


@dataclass(frozen=True)
class BlackwellComparison:
    """How two curves compare in the Blackwell order; made by :func:`blackwell_compare`.

    Parameters
    ----------
    order : {"ge", "le", "equal", None}
        ``"ge"``: ``f >= g`` everywhere (``f`` is at least as private); ``"le"``: ``f <= g``;
        ``None``: neither (the curves cross).
    calibration_points : tuple of float
        The ``gamma`` where ``H_f - H_g`` changes sign (empty when ordered).
    max_gap : float
        ``Delta(f, g)``.

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff, blackwell_compare
    >>> blackwell_compare(GaussianTradeOff(1.0), GaussianTradeOff(2.0)).order
    'ge'
    """

    order: str | None
    calibration_points: tuple[float, ...]
    max_gap: float

    def __bool__(self) -> bool:
        return self.order is not None


def blackwell_compare(f: object, g: object, *, tol: float = 1e-9) -> BlackwellComparison:
    r"""Blackwell order of two curves and their calibration points.

    ``f >= g`` everywhere iff ``H_f <= H_g`` everywhere (Tran-Koskela-Räisä-Honkela (2025),
    Appendix A). Curves that are not ordered cross at calibration points: the ``gamma``
    where ``H_f - H_g`` changes sign (located by root finding). Differences within ``tol``
    count as ties.

    Parameters
    ----------
    f, g : TradeOffFunction or callable
        Curves or remove-direction profiles.
    tol : float, default 1e-9

    Returns
    -------
    BlackwellComparison

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff
    >>> from ldp.accounting.central import SubsampledGaussianTradeOff
    >>> from ldp.accounting import blackwell_compare
    >>> r = blackwell_compare(GaussianTradeOff(2.0), SubsampledGaussianTradeOff(0.3, 10.0))
    >>> r.order, [round(x, 3) for x in r.calibration_points]
    (None, [8.966])
    """
    t = check_scalar(tol, "tol", low=0.0)
    hf, hg = _as_profile(f, "f"), _as_profile(g, "g")
    gamma = np.exp(_LOG_GAMMA)
    diff = hf(gamma) - hg(gamma)
    above, below = diff > t, diff < -t
    gap = delta_divergence(hf, hg)
    if not above.any() and not below.any():
        return BlackwellComparison("equal", (), gap)
    if not above.any():
        return BlackwellComparison("ge", (), gap)
    if not below.any():
        return BlackwellComparison("le", (), gap)
    sign = np.where(above, 1, np.where(below, -1, 0))
    idx = np.nonzero(sign)[0]
    points = []
    for a, b in itertools.pairwise(idx):
        if sign[a] != sign[b]:

            def d(u: float) -> float:
                x = np.array([math.exp(u)])
                return float(hf(x)[0] - hg(x)[0])

            u = brentq(d, _LOG_GAMMA[a], _LOG_GAMMA[b], xtol=1e-12)
            points.append(math.exp(u))
    return BlackwellComparison(None, tuple(points), gap)


def is_blackwell_chain(family: Sequence[object], *, tol: float = 1e-9) -> bool:
    r"""Whether every pair of the family is Blackwell-ordered (a chain).

    Theorem 3.6 of Tran-Koskela-Räisä-Honkela (2025): the natural f-DP filter is valid for
    ``T`` steps when the family ``F^(T-2)`` of the curves available (closed under the
    tensor-with-limits operation of their Definition 3.5) is a chain; Theorem 3.8: outside
    pure-DP first steps it is invalid otherwise.

    Parameters
    ----------
    family : sequence of TradeOffFunction or callable
    tol : float, default 1e-9

    Returns
    -------
    bool

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff
    >>> from ldp.accounting.central import SubsampledGaussianTradeOff
    >>> from ldp.accounting import is_blackwell_chain
    >>> is_blackwell_chain([GaussianTradeOff(m) for m in (0.5, 1.0, 3.0)])
    True
    >>> is_blackwell_chain([GaussianTradeOff(2.0), SubsampledGaussianTradeOff(0.3, 10.0)])
    False
    """
    members = list(family)
    return all(
        blackwell_compare(members[i], members[j], tol=tol).order is not None
        for i in range(len(members))
        for j in range(i + 1, len(members))
    )


def _first_step(first: object) -> tuple[float, float]:
    if isinstance(first, GaussianTradeOff):
        return 1.0, float(first.mu)
    if isinstance(first, SubsampledGaussianTradeOff) and first.direction == "remove":
        return float(first.sample_rate), float(first.mu)
    raise TypeError(
        "first must be a GaussianTradeOff or a remove-direction SubsampledGaussianTradeOff, "
        f"got {type(first).__name__}"
    )


def worst_case_adaptive_profile(
    first: object, candidates: Sequence[object], gamma: ArrayLike
) -> float | np.ndarray:
    r"""Theorem B.1: the tight profile of a first step followed by an adaptive choice.

    ``H_worst(gamma) = E_{y ~ P_1}[max_k H_k(gamma q_1(y)/p_1(y))] = (H_1 (x) max_k H_k)``
    for ``P_1 = (1-q) N(0,1) + q N(mu,1)``, ``Q_1 = N(0,1)`` (``q = 1``: Gaussian). Every
    rule choosing the second mechanism among ``candidates`` from ``y_1`` has a profile
    below it, and for each ``gamma`` the rule ``argmax_k H_k(gamma q_1(y_1)/p_1(y_1))``
    attains it (Tran-Koskela-Räisä-Honkela (2025), Theorem B.1). It exceeds
    ``max_k (H_1 (x) H_k)`` exactly where candidates cross (Corollary B.4): then a natural
    f-DP filter budgeted by the non-adaptive compositions is violated.

    Parameters
    ----------
    first : GaussianTradeOff or SubsampledGaussianTradeOff
        The first step (remove direction).
    candidates : sequence of TradeOffFunction or callable
        Curves or remove-direction profiles of the possible second steps.
    gamma : float or array_like
        ``gamma >= 0``.

    Returns
    -------
    float or numpy.ndarray
        By trapezoid quadrature over ``y`` (4001 points on ``[-12, mu + 12]``).

    Examples
    --------
    >>> from ldp.accounting import GaussianTradeOff
    >>> from ldp.accounting.central import SubsampledGaussianTradeOff
    >>> from ldp.accounting import worst_case_adaptive_profile
    >>> import math
    >>> c = [GaussianTradeOff(2.0), SubsampledGaussianTradeOff(0.3, 10.0)]
    >>> round(float(worst_case_adaptive_profile(GaussianTradeOff(1.5), c, math.exp(3.5))), 4)
    0.3878
    """
    q, mu = _first_step(first)
    profiles = [_as_profile(c, f"candidates[{i}]") for i, c in enumerate(candidates)]
    if not profiles:
        raise ValueError("candidates must not be empty")
    g = np.asarray(gamma, dtype=np.float64)
    if g.size and (not np.all(np.isfinite(g)) or np.any(g < 0)):
        raise ValueError("gamma must be finite and >= 0")
    y = np.linspace(-12.0, mu + 12.0, 4001)
    w = np.full(y.size, y[1] - y[0])
    w[0] = w[-1] = w[0] / 2.0
    phi0 = np.exp(-0.5 * y * y) / math.sqrt(2.0 * math.pi)
    phi1 = np.exp(-0.5 * (y - mu) ** 2) / math.sqrt(2.0 * math.pi)
    p = (1.0 - q) * phi0 + q * phi1
    ratio = phi0 / p
    flat = g.ravel()
    probe = (flat[:, None] * ratio[None, :]).ravel()
    worst = np.max(np.stack([h(probe) for h in profiles]), axis=0).reshape(flat.size, y.size)
    result = np.clip(worst @ (w * p), 0.0, 1.0).reshape(g.shape)
    return float(result) if result.ndim == 0 else result

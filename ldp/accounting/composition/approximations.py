r"""Approximations of composed trade-off curves: CLT, Berry-Esseen, Edgeworth.

**None of the ``*_approx`` results is a privacy guarantee.** They are labelled as such
(``approx=True`` on curves, ``approx`` in every name) and post-processed into valid
trade-off functions (clipped to ``[0, 1 - alpha]``, made non-increasing and convex by the
lower convex hull) so that they can be plotted and queried like the exact objects.

* :func:`clt_mu_approx`: ``mu = 2 ||kl||_1 / sqrt(||kappa2||_1 - ||kl||_2^2)``
  (Dong-Roth-Su (2022), §3.2) from the functionals of symmetric curves
  (:func:`tradeoff_functionals`).
* :func:`berry_esseen_approx`: ``(mu, gamma)`` of the Berry-Esseen sandwich
  ``G_mu(a + gamma) - gamma <= f_1 (x) ... (x) f_n (a) <= G_mu(a - gamma) + gamma`` (constant
  0.56); only meaningful when ``gamma < 1/2``.
* :func:`edgeworth_tradeoff_approx`: degree 0/1/2 Edgeworth expansion with root-finding or
  Cornish-Fisher inversion (Zheng-Dong-Long-Su (2020), §3), from the per-step cumulants of
  the log-likelihood ratio under both hypotheses (``sigma_P`` for ``F`` and ``sigma_Q`` for
  ``F~``: the paper writes a single ``sigma_n`` for both, which is a notation slip). Not for
  lattice losses (finite channels: use the exact :func:`~ldp.accounting.compose`) or losses
  with atoms at ``+-inf`` (``delta > 0``): :func:`edgeworth_cumulants` raises for both,
  saying why. The expansion is asymptotic and its relative error in the far tails (the
  small deltas of privacy accounting) is unbounded: its curves and values warn with
  :class:`ApproximationWarning` where the last terms it keeps are not small against the
  normal tail they correct (``EDGEWORTH_RELIABLE``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from scipy.special import ndtr, ndtri

from ldp._numerics import inverse_monotone
from ldp._validation import check_integer, check_scalar
from ldp.accounting.curves import (
    GaussianTradeOff,
    LaplaceTradeOff,
    PiecewiseLinearTradeOff,
    SubsampledTradeOff,
    TradeOffFunction,
    tradeoff_from_channel,
)
from ldp.accounting.curves._common import cumulants_from_moments
from ldp.channel import Channel

__all__ = [
    "EDGEWORTH_RELIABLE",
    "ApproximationWarning",
    "EdgeworthTradeOff",
    "berry_esseen_approx",
    "clt_mu_approx",
    "edgeworth_cumulants",
    "edgeworth_tradeoff_approx",
    "edgeworth_value_approx",
    "laplace_cumulants",
    "tradeoff_functionals",
]


class ApproximationWarning(UserWarning):
    """An approximation (``*_approx``) was queried where it cannot be trusted.

    Raised by the Edgeworth approximations when the expansion's correction is not small
    against the normal tail it corrects (see ``EDGEWORTH_RELIABLE``): typically at the
    small deltas (far tails) that privacy accounting asks for, where the expansion's
    relative error is unbounded. Use an exact accountant there
    (:meth:`~ldp.accounting.central.PoissonSubsampledGaussian.epsilon_for_delta`,
    :func:`~ldp.accounting.compose`).

    Examples
    --------
    >>> import math, warnings
    >>> from ldp.accounting import (ApproximationWarning, edgeworth_tradeoff_approx,
    ...                             laplace_cumulants)
    >>> f = edgeworth_tradeoff_approx(*laplace_cumulants(3 / math.sqrt(5)), n=5)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = f.epsilon_for_delta(1e-10)  # a far tail: the correction dominates
    >>> [w.category is ApproximationWarning for w in caught]
    [True]
    """


#: The Edgeworth expansion is taken as reliable where the last terms it keeps are at most
#: this fraction of the normal tail probability they correct (both CDFs, upper tails).
#: Beyond it the neglected terms are of the same order and the tail, hence epsilon at a
#: small delta, can be off by factors (16.6 against an exact 9.53 at ``delta = 1e-5`` for a
#: Poisson-subsampled Gaussian with ``q = 0.188``, ``sigma = 1``, ``T = 50``). A heuristic
#: flag, not an error bound: on the Poisson-subsampled Gaussians and Laplace compositions of
#: the tests, epsilon is within about 5% of the exact value where it stays silent.
EDGEWORTH_RELIABLE = 0.25


def _relative_correction(h: np.ndarray, k3: float, k4: float, degree: int) -> np.ndarray:
    """The last terms the expansion keeps, against the upper normal tail ``1 - Phi(h)``.

    Degree 2: the ``O(1/n)`` terms ``phi(h) (k4/24 He3(h) + k3^2/72 He5(h))``; degree 1: the
    skewness term ``phi(h) k3/6 He2(h)``; degree 0 (the CLT) keeps none.
    """
    h = np.asarray(h, dtype=np.float64)
    if degree == 0:
        return np.zeros(h.shape)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        phi = np.exp(-0.5 * h * h) / math.sqrt(2 * math.pi)
        if degree == 1:
            last = k3 / 6 * (h * h - 1)
        else:
            last = k4 / 24 * (h**3 - 3 * h) + k3 * k3 / 72 * (h**5 - 10 * h**3 + 15 * h)
        ratio = np.abs(phi * last) / ndtr(-h)
    return np.where(np.isnan(ratio), np.inf, ratio)


def _warn_unreliable(what: str, value: float) -> None:
    warnings.warn(
        f"Edgeworth approximation outside its reliable range for {what}: its last terms are "
        f"{value:.3g} times the normal tail they correct (reliable up to "
        f"{EDGEWORTH_RELIABLE}); the value can be far from the truth (not a bound); use an "
        "exact accountant",
        ApproximationWarning,
        stacklevel=3,
    )


class EdgeworthTradeOff(PiecewiseLinearTradeOff):
    """The Edgeworth approximation of a composed trade-off curve: **not a guarantee**.

    A :class:`PiecewiseLinearTradeOff` with ``approx = True`` that also knows, for each
    vertex, the relative size of the Edgeworth correction there
    (``relative_correction``). :meth:`delta` and :meth:`epsilon_for_delta` warn with
    :class:`ApproximationWarning` when the vertex that decides the answer has a correction
    above ``EDGEWORTH_RELIABLE``. Built by :func:`edgeworth_tradeoff_approx`.

    Parameters
    ----------
    alphas, values : array_like
        Vertices of the curve, as for :class:`PiecewiseLinearTradeOff`.
    approx : bool, default False
        As for :class:`PiecewiseLinearTradeOff`; the curves built by
        :func:`edgeworth_tradeoff_approx` always have ``approx = True``.

    Examples
    --------
    >>> import math
    >>> from ldp.accounting import (EdgeworthTradeOff, edgeworth_tradeoff_approx,
    ...                             laplace_cumulants)
    >>> f = edgeworth_tradeoff_approx(*laplace_cumulants(3 / math.sqrt(5)), n=5)
    >>> isinstance(f, EdgeworthTradeOff), f.approx
    (True, True)
    >>> f.relative_correction.shape == f.vertices[0].shape
    True
    """

    relative_correction: np.ndarray

    @classmethod
    def _build(
        cls, alphas: np.ndarray, betas: np.ndarray, correction: np.ndarray
    ) -> EdgeworthTradeOff:
        obj = cls.__new__(cls)
        PiecewiseLinearTradeOff._init_trusted(obj, alphas, betas, True)
        where = np.clip(np.searchsorted(alphas, obj._a), 0, alphas.size - 1)
        obj.relative_correction = correction[where]
        obj._freeze()
        return obj

    def delta(self, epsilon):
        """The approximate profile; warns where the deciding vertex is unreliable."""
        value = super().delta(epsilon)
        e = np.atleast_1d(np.asarray(epsilon, dtype=np.float64)).ravel()
        c = 1.0 - self._b
        with np.errstate(over="ignore", invalid="ignore"):
            terms = c[None, :] - np.exp(e)[:, None] * self._a[None, :]
        used = np.argmax(np.where(self._a[None, :] > 0, terms, c[None, :]), axis=1)
        worst = float(np.max(self.relative_correction[used]))
        if worst > EDGEWORTH_RELIABLE:
            _warn_unreliable(f"epsilon = {epsilon!r}", worst)
        return value

    def epsilon_for_delta(self, delta):
        """The approximate epsilon; warns where the deciding vertex is unreliable."""
        value = super().epsilon_for_delta(delta)
        d = np.atleast_1d(np.asarray(delta, dtype=np.float64)).ravel()
        excess = (1.0 - self._b)[None, :] - d[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            levels = np.where(excess > 0, np.log(excess) - np.log(self._a[None, :]), -np.inf)
        levels = np.where(np.isnan(levels), -np.inf, levels)
        used = np.argmax(levels, axis=1)
        decided = np.max(levels, axis=1) > 0  # eps = 0 needs no vertex
        if np.any(decided):
            worst = float(np.max(self.relative_correction[used[decided]]))
            if worst > EDGEWORTH_RELIABLE:
                _warn_unreliable(f"delta = {delta!r}", worst)
        return value

    def __repr__(self) -> str:
        return f"<EdgeworthTradeOff (approximation) with {len(self._a)} vertices>"


#: The functionals of a curve (see :func:`tradeoff_functionals`).
FUNCTIONALS = ("kl", "kappa2", "kappa3", "kappa3_bar")


def _constant_functionals(value: float) -> dict:
    """All four functionals equal: 0 for the identity curve, inf where a CLT cannot apply."""
    return dict.fromkeys(FUNCTIONALS, value)


def _gaussian_functionals(mu: float) -> dict:
    """Closed forms for ``G_mu``.

    Under ``U[0, 1]`` the log-slope ``log|G_mu'(U)| = mu Z - mu^2/2`` with ``Z`` standard
    normal, i.e. ``L ~ N(-mu^2/2, mu^2)`` (Dong-Roth-Su (2022), §3.2 and Appendix D). So
    ``kl = mu^2/2``, ``kappa2 = E L^2 = mu^2 + mu^4/4``, ``kappa3_bar = mu^3 E|Z|^3 =
    2 sqrt(2/pi) mu^3`` and, adding the two one-sided third moments of ``N(m, s^2)``
    (``E[X^3; X > 0] = s^3 [(r^3 + 3r) Phi(r) + (r^2 + 2) phi(r)]``, ``r = m/s``),
    ``kappa3 = E|L|^3 = mu^3 [(a^3 + 3a) erf(a/sqrt 2) + 2 (a^2 + 2) phi(a)]`` with
    ``a = mu/2`` (checked against numerical integration in mpmath in the tests).
    """
    if mu == 0.0:
        return _constant_functionals(0.0)
    if math.isinf(mu):
        return _constant_functionals(math.inf)
    a = mu / 2.0
    phi = math.exp(-0.5 * a * a) / math.sqrt(2.0 * math.pi)
    return {
        "kl": mu * mu / 2.0,
        "kappa2": mu**2 + mu**4 / 4.0,
        "kappa3": mu**3
        * ((a**3 + 3.0 * a) * math.erf(a / math.sqrt(2.0)) + 2.0 * (a * a + 2.0) * phi),
        "kappa3_bar": 2.0 * math.sqrt(2.0 / math.pi) * mu**3,
    }


def _quad(g, lo: float, hi: float, points=()) -> float:
    from scipy.integrate import quad

    inner = [p for p in points if lo < p < hi]
    value, _ = quad(g, lo, hi, points=inner or None, epsabs=0.0, epsrel=1e-13, limit=200)
    return float(value)


def _laplace_functionals(theta: float) -> dict:
    """``T(Lap(0,1), Lap(theta,1))``: the log-slope has the ``P``-law of ``|x| - |x - theta|``:
    atoms ``-theta`` (mass 1/2) and ``+theta`` (``e^-theta/2``) and the density
    ``e^{-(l + theta)/2} / 4`` on ``(-theta, theta)`` (Zheng-Dong-Long-Su (2020), §5);
    ``kl`` and ``kappa2`` in closed form, the absolute third moments by quadrature."""
    if theta == 0.0:
        return _constant_functionals(0.0)
    if math.isinf(theta):
        return _constant_functionals(math.inf)
    e = math.exp(-theta)
    if theta < 0.5:  # both closed forms cancel for small theta: their Taylor series
        powers = [(-theta) ** j / math.factorial(j) for j in range(2, 40)]
        kl = math.fsum(powers)  # theta + e^-theta - 1
        kappa2 = theta**2 + math.fsum((2 * j - 4) * v for j, v in enumerate(powers, 2) if j >= 3)
    else:
        kl = theta + math.expm1(-theta)  # KL(Lap(0,1) || Lap(theta,1))
        kappa2 = theta**2 - 2 * theta + 4 - (2 * theta + 4) * e

    def expect(g, points=()) -> float:
        density = lambda v: g(v) * math.exp(-(v + theta) / 2.0) / 4.0  # noqa: E731
        return 0.5 * g(-theta) + 0.5 * e * g(theta) + _quad(density, -theta, theta, points)

    return {
        "kl": kl,
        "kappa2": kappa2,
        "kappa3": expect(lambda v: abs(v) ** 3, (0.0,)),
        "kappa3_bar": expect(lambda v: abs(v + kl) ** 3, (-kl,)),
    }


def _subsampled_functionals(f) -> dict:
    """``C_p(f)`` for ``f = G_mu`` or Laplace, by folding the curve at its slope -1 piece.

    ``C_p(f)`` is ``f_p = p f + (1 - p) Id`` on ``[0, x*]`` (``x*`` the fixed point of
    ``f``), slope -1 on ``[x*, y*]`` (``y* = f_p(x*)``) and ``f_p^{-1}`` beyond; with
    ``l = log|f_p'|`` and the substitution ``alpha = f_p(t)`` on the last piece,
    ``int_0^1 g(log|C_p'|) = int_0^{x*} [g(l) + |f_p'| g(-l)] dt + (y* - x*) g(0)``
    (Dong-Roth-Su (2022), Lemma G.2; the slope -1 piece contributes nothing to ``kl``,
    ``kappa2``, ``kappa3`` but ``(y* - x*) kl^3`` to ``kappa3_bar``, which the paper's §5.3
    formula leaves out).
    """
    p = f.p
    base = f.f
    if p == 0.0:
        return _constant_functionals(0.0)
    x_star = base.fixed_point()
    y_star = p * x_star + (1.0 - p) * (1.0 - x_star)
    mu = getattr(base, "mu", None)  # G_mu and Lap(mu); other curves raise below
    if mu == 0.0:  # the identity curve
        return _constant_functionals(0.0)
    if mu is not None and math.isinf(mu):
        return _constant_functionals(math.inf)
    if isinstance(base, GaussianTradeOff):
        mu = base.mu
        root = math.sqrt(2.0 * math.pi)

        def folded(g):  # alpha = Phi(-z), z in [mu/2, inf): |f_p'| = p e^{mu z - mu^2/2} + 1 - p
            def integrand(z):
                x = mu * z - mu * mu / 2.0
                if x > 30.0:  # log(p e^x + 1 - p) without overflow
                    loss = x + math.log(p + (1.0 - p) * math.exp(-x))
                else:
                    loss = math.log1p(p * math.expm1(x))
                weight = math.exp(-0.5 * z * z) / root
                mixed = p * math.exp(-0.5 * (z - mu) ** 2) / root + (1.0 - p) * weight
                return g(loss) * weight + g(-loss) * mixed

            return _quad(integrand, mu / 2.0, mu / 2.0 + 40.0 + mu)

    elif isinstance(base, LaplaceTradeOff):
        theta = base.mu
        edge = math.exp(-theta) / 2.0

        def folded(g):  # |f'| = e^theta below e^-theta/2, then e^-theta / (4 alpha^2)
            flat = math.log1p(p * math.expm1(theta))
            head = edge * (g(flat) + math.exp(flat) * g(-flat))

            def integrand(t):
                slope = p * math.exp(-theta) / (4.0 * t * t) + 1.0 - p
                loss = math.log(slope)
                return g(loss) + slope * g(-loss)

            return head + _quad(integrand, edge, x_star)

    else:
        raise TypeError(
            "tradeoff_functionals knows subsampled Gaussian and Laplace curves, got C_p of "
            f"{type(base).__name__}; pass a piecewise-linear curve instead"
        )
    segment = y_star - x_star
    kl = folded(lambda v: -v)
    return {
        "kl": kl,
        "kappa2": folded(lambda v: v * v),
        "kappa3": folded(lambda v: abs(v) ** 3),
        "kappa3_bar": folded(lambda v: abs(v + kl) ** 3) + segment * kl**3,
    }


def tradeoff_functionals(f: TradeOffFunction) -> dict:
    """``kl``, ``kappa2``, ``kappa3``, ``kappa3_bar`` of a curve (Dong-Roth-Su (2022), §3.2).

    ``kl = -int log|f'|``, ``kappa2 = int log^2|f'|``, ``kappa3 = int |log|f'||^3`` and
    ``kappa3_bar = int |log|f'| + kl|^3`` over ``[0, 1]``. Exact for piecewise-linear curves
    (sums over the linear pieces), closed forms for ``G_mu`` (all four) and
    :class:`LaplaceTradeOff` (``kl``, ``kappa2``; quadrature for the third moments), and by
    quadrature of the folded curve for :class:`SubsampledTradeOff` of either. ``f(0) < 1``
    gives ``kl = inf`` (the CLTs do not apply). Other curves raise ``TypeError``.

    Parameters
    ----------
    f : TradeOffFunction
        A piecewise-linear, Gaussian, Laplace or subsampled Gaussian/Laplace curve.

    Returns
    -------
    dict
        ``{"kl", "kappa2", "kappa3", "kappa3_bar"}`` to floats (``inf`` when ``f(0) < 1``).

    Examples
    --------
    >>> from ldp.accounting import EpsDeltaTradeOff, GaussianTradeOff, tradeoff_functionals
    >>> v = tradeoff_functionals(EpsDeltaTradeOff(0.9))
    >>> [round(v[k], 6) for k in ("kl", "kappa2", "kappa3", "kappa3_bar")]
    [0.379709, 0.81, 0.729, 0.705903]
    >>> round(tradeoff_functionals(GaussianTradeOff(1.0))["kappa3"], 6)  # E|N(-1/2, 1)|^3
    2.206547
    """
    if isinstance(f, GaussianTradeOff):
        return _gaussian_functionals(f.mu)
    if isinstance(f, LaplaceTradeOff):
        return _laplace_functionals(f.mu)
    if isinstance(f, SubsampledTradeOff):
        return _subsampled_functionals(f)
    if not isinstance(f, PiecewiseLinearTradeOff):
        raise TypeError(
            "tradeoff_functionals needs a piecewise-linear, Gaussian, Laplace or subsampled "
            f"Gaussian/Laplace curve, got {type(f).__name__}"
        )
    a, b = f.vertices
    if b[0] < 1.0:
        return _constant_functionals(math.inf)
    width = np.diff(a)
    slope = -np.diff(b) / width
    if np.any(slope <= 0):  # f reaches 0 before alpha = 1: log|f'| = -inf there
        return _constant_functionals(math.inf)
    log_s = np.log(slope)
    kl = float(-(width * log_s).sum())
    return {
        "kl": kl,
        "kappa2": float((width * log_s**2).sum()),
        "kappa3": float((width * np.abs(log_s) ** 3).sum()),
        "kappa3_bar": float((width * np.abs(log_s + kl) ** 3).sum()),
    }


def _group_key(item: object) -> object:
    """Items with equal keys have equal functionals: a channel by its matrix, a
    piecewise-linear curve by its vertices, ``G_mu`` and Laplace curves by ``mu``."""
    if isinstance(item, Channel):
        return item  # hashed and compared by its matrix
    if isinstance(item, PiecewiseLinearTradeOff):
        a, b = item.vertices
        return (type(item), item.approx, item.is_symmetric, a.tobytes(), b.tobytes())
    if isinstance(item, (GaussianTradeOff, LaplaceTradeOff)) and type(item) in (
        GaussianTradeOff,
        LaplaceTradeOff,
    ):  # exactly these types: a subclass may carry more than mu
        return (type(item), item.mu)
    return ("object", id(item))


def _functionals(items: Sequence[object]) -> list[tuple[dict, int]]:
    """The functionals of each distinct item with its multiplicity.

    Identical items are grouped as :func:`~ldp.accounting.compose` groups them, so that
    ``[channel] * 10_000`` costs one evaluation.
    """
    by_id: dict[int, list] = {}  # id -> [item, count] of its group, keyed once per object
    groups: dict[object, list] = {}
    for item in items:
        group = by_id.get(id(item))
        if group is None:
            if not isinstance(item, (Channel, TradeOffFunction)):
                raise TypeError(
                    f"expected Channels or TradeOffFunctions, got {type(item).__name__}"
                )
            group = by_id[id(item)] = groups.setdefault(_group_key(item), [item, 0])
        group[1] += 1
    out = []
    for item, count in groups.values():
        f = tradeoff_from_channel(item) if isinstance(item, Channel) else item
        if not f.is_symmetric:
            raise ValueError("the CLT of Dong-Roth-Su (2022) needs symmetric trade-off functions")
        v = tradeoff_functionals(f)
        if not math.isfinite(v["kl"]):
            raise ValueError(
                "kl(f) is infinite (f(0) < 1: an atom of infinite privacy loss, e.g. delta > 0);"
                " the CLT does not apply - split off f_{0,delta} and compose exactly"
            )
        out.append((v, count))
    return out


def _sums(items: Sequence[object], names: Sequence[str]) -> list[float]:
    """``sum_i v_i[name]`` over the items, each distinct item weighted by its count, and
    ``sum_i kl_i^2`` last."""
    grouped = _functionals(items)
    count = np.array([c for _, c in grouped], dtype=np.float64)
    totals = [float(count @ np.array([v[name] for v, _ in grouped])) for name in names]
    kl = np.array([v["kl"] for v, _ in grouped])
    return [*totals, float(count @ kl**2)]


def clt_mu_approx(mechanisms: Sequence[object]) -> float:
    """CLT approximation ``mu = 2 sum kl / sqrt(sum kappa2 - sum kl^2)`` (not a bound).

    Identical mechanisms are evaluated once and counted (``[m] * 10_000`` costs one).

    Parameters
    ----------
    mechanisms : sequence of Channel or TradeOffFunction
        The composed mechanisms; each must be symmetric with ``f(0) = 1``.

    Returns
    -------
    float
        The approximate GDP ``mu`` (``inf`` when the variance term vanishes).

    Examples
    --------
    >>> import math
    >>> from ldp.accounting import EpsDeltaTradeOff, clt_mu_approx
    >>> round(clt_mu_approx([EpsDeltaTradeOff(1 / math.sqrt(10))] * 10), 6)  # 2 sqrt(n) sinh
    1.004172
    """
    kl, k2, kl2 = _sums(mechanisms, ("kl", "kappa2"))
    var = k2 - kl2
    return math.inf if var <= 0 else float(2 * kl / math.sqrt(var))


def berry_esseen_approx(mechanisms: Sequence[object]) -> tuple[float, float]:
    """``(mu, gamma)`` of the Berry-Esseen sandwich of Dong-Roth-Su (2022), §3.2 (constant 0.56).

    The composition lies between ``G_mu(a + gamma) - gamma`` and ``G_mu(a - gamma) +
    gamma``; ``mu`` alone is only an approximation, and the sandwich is informative only
    when ``gamma < 1/2``. Identical mechanisms are evaluated once and counted.

    Parameters
    ----------
    mechanisms : sequence of Channel or TradeOffFunction
        The composed mechanisms; each must be symmetric with ``f(0) = 1``.

    Returns
    -------
    mu : float
        The CLT ``mu`` (as :func:`clt_mu_approx`).
    gamma : float
        The Berry-Esseen width of the sandwich.

    Examples
    --------
    >>> import math
    >>> from ldp.accounting import EpsDeltaTradeOff, berry_esseen_approx
    >>> mu, gamma = berry_esseen_approx([EpsDeltaTradeOff(1 / math.sqrt(10))] * 10)
    >>> round(mu, 6), round(gamma, 6)
    (1.004172, 0.183715)
    """
    kl, k2, k3, kl2 = _sums(mechanisms, ("kl", "kappa2", "kappa3_bar"))
    var = k2 - kl2
    mu = 2 * kl / math.sqrt(var)
    return float(mu), float(0.56 * k3 / var**1.5)


def laplace_cumulants(theta: float) -> tuple[np.ndarray, np.ndarray]:
    """Cumulants (1..4) of ``L = log(q/p)`` for ``Lap(0,1)`` vs ``Lap(theta,1)``.

    Zheng-Dong-Long-Su (2020), §5.

    Returns ``(under P, under Q)``; ``kappa~_r = (-1)^r kappa_r``.

    Parameters
    ----------
    theta : float
        Shift ``theta >= 0`` of the second Laplace law (scale 1).

    Returns
    -------
    under_p, under_q : ndarray
        The first four cumulants of the privacy loss under each law.

    Examples
    --------
    >>> from ldp.accounting import laplace_cumulants
    >>> [round(float(v), 6) for v in laplace_cumulants(0.8)[0]]
    [-0.249329, 0.461593, 0.2086, -0.287142]
    """
    t = check_scalar(theta, "theta", low=0.0, low_open=True)
    e = math.exp(-t)
    m = np.array(
        [
            1 - t - e,
            t**2 - 2 * t + 4 - (2 * t + 4) * e,
            -(t**3) + 3 * t**2 - 12 * t + 24 - (3 * t**2 + 12 * t + 24) * e,
            t**4 - 4 * t**3 + 24 * t**2 - 96 * t + 192 - (4 * t**3 + 24 * t**2 + 96 * t + 192) * e,
        ]
    )
    kp = cumulants_from_moments(m)
    return kp, kp * np.array([-1.0, 1.0, -1.0, 1.0])


def edgeworth_cumulants(mechanism: object) -> tuple[np.ndarray, np.ndarray]:
    """Per-step cumulants for the Edgeworth expansion, or an error saying why it does not apply.

    Supported: :class:`LaplaceTradeOff` and :class:`GaussianTradeOff`. Finite channels and
    piecewise-linear curves have lattice privacy losses (the Edgeworth series does not
    improve on the CLT there and its smooth CDF is wrong at the atoms: compose exactly);
    curves with ``f(0) < 1`` have an atom of infinite loss, for which no cumulant exists.

    Parameters
    ----------
    mechanism : LaplaceTradeOff or GaussianTradeOff
        One step of the composition.

    Returns
    -------
    under_p, under_q : ndarray
        The first four cumulants of the privacy loss under each law.

    Raises
    ------
    ValueError
        For finite channels, piecewise-linear curves and curves with ``f(0) < 1``.
    TypeError
        For anything else.

    Examples
    --------
    >>> from ldp import randomized_response
    >>> from ldp.accounting import edgeworth_cumulants
    >>> edgeworth_cumulants(randomized_response(1.0))
    Traceback (most recent call last):
    ...
    ValueError: Edgeworth expansion does not apply to a finite channel: its privacy loss ...
    """
    if isinstance(mechanism, LaplaceTradeOff):
        return laplace_cumulants(mechanism.mu)
    if isinstance(mechanism, GaussianTradeOff):
        m = mechanism.mu
        return np.array([-m * m / 2, m * m, 0.0, 0.0]), np.array([m * m / 2, m * m, 0.0, 0.0])
    if isinstance(mechanism, PiecewiseLinearTradeOff) and mechanism(0.0) < 1.0:
        raise ValueError(
            "Edgeworth expansion does not apply: f(0) < 1 means an atom of infinite privacy "
            "loss (delta > 0), which has no cumulants; split off f_{0,delta} and compose exactly"
        )
    if isinstance(mechanism, (Channel, PiecewiseLinearTradeOff)):
        kind = "a finite channel" if isinstance(mechanism, Channel) else "a piecewise-linear curve"
        raise ValueError(
            f"Edgeworth expansion does not apply to {kind}: its privacy loss lives on a "
            "lattice (the smooth expansion cannot follow the jumps of a lattice CDF); use "
            "ldp.accounting.compose for the exact result"
        )
    raise TypeError(f"no cumulants known for {type(mechanism).__name__}")


def _edgeworth_cdf(h: np.ndarray, k3: float, k4: float, degree: int) -> np.ndarray:
    phi = np.exp(-0.5 * h * h) / math.sqrt(2 * math.pi)
    corr = np.zeros_like(h)
    if degree >= 1:
        corr += k3 / 6 * (h * h - 1)
    if degree >= 2:
        corr += k4 / 24 * (h**3 - 3 * h) + k3 * k3 / 72 * (h**5 - 10 * h**3 + 15 * h)
    return ndtr(h) - phi * corr


def _edgeworth_quantile(
    upper: np.ndarray, a3: float, a4: float, degree: int, method: str
) -> np.ndarray:
    """The ``h`` with ``1 - F(h) = upper`` for the Edgeworth CDF ``F`` of :func:`_edgeworth_cdf`:
    Cornish-Fisher's closed form, or the root by bisection on ``[-40, 40]``."""
    z = ndtri(1.0 - upper)
    if method == "cornish_fisher" or degree == 0:
        h = z.copy()
        if degree >= 1:
            h += a3 / 6 * (z * z - 1)
        if degree >= 2:
            h += a4 / 24 * (z**3 - 3 * z) - a3 * a3 / 36 * (2 * z**3 - 5 * z)
        return h
    return inverse_monotone(
        lambda h: _edgeworth_cdf(h, a3, a4, degree),
        1.0 - upper,
        np.full(z.shape, -40.0),
        np.full(z.shape, 40.0),
        increasing=True,
        max_expansions=0,
        steps=100,
        rtol=1e-13,
    )


def edgeworth_value_approx(
    cumulants_p: Sequence[float],
    cumulants_q: Sequence[float],
    n: int,
    alpha: float,
    *,
    degree: int = 2,
    method: str = "root",
) -> float:
    """One raw Edgeworth value ``f_EW(alpha)`` (Zheng-Dong-Long-Su (2020), eq. (3.5)).

    The fast query behind :func:`edgeworth_tradeoff_approx` (scalar arithmetic, no grid, no
    post-processing: the value may even fall outside ``[0, 1 - alpha]``, see the paper's
    footnote 2). An approximation, not a bound; warns with :class:`ApproximationWarning`
    outside the reliable range (``EDGEWORTH_RELIABLE``).

    Parameters
    ----------
    cumulants_p, cumulants_q : sequence of float
        Per-step cumulants (four each) of the privacy loss under ``P`` and ``Q``.
    n : int
        Number of steps composed.
    alpha : float
        Type I error in ``[0, 1]``.
    degree : {0, 1, 2}, default 2
        Order of the expansion (0 is the CLT).
    method : {"root", "cornish_fisher"}, default "root"
        How the quantile is found.

    Returns
    -------
    float
        The approximate ``f(alpha)``; not a bound.

    Examples
    --------
    >>> import math
    >>> from ldp.accounting import edgeworth_value_approx, laplace_cumulants
    >>> round(edgeworth_value_approx(*laplace_cumulants(3 / math.sqrt(5)), 5, 0.1), 5)
    0.10135
    """
    n = check_integer(n, "n", low=1)
    a = check_scalar(alpha, "alpha", low=0.0, high=1.0)
    if degree not in (0, 1, 2):
        raise ValueError(f"degree must be 0, 1 or 2, got {degree!r}")
    if method not in ("root", "cornish_fisher"):
        raise ValueError(f"method must be 'root' or 'cornish_fisher', got {method!r}")
    if a == 0.0:
        return 1.0
    if a == 1.0:
        return 0.0
    kp = [float(v) * n for v in cumulants_p]
    kq = [float(v) * n for v in cumulants_q]
    sp, sq = math.sqrt(kp[1]), math.sqrt(kq[1])
    a3, a4, b3, b4 = kp[2] / sp**3, kp[3] / sp**4, kq[2] / sq**3, kq[3] / sq**4
    h = float(_edgeworth_quantile(np.array([a]), a3, a4, degree, method)[0])
    mu_n = (kq[0] - kp[0]) / sp
    g = (h - mu_n) * sp / sq
    worst = max(
        float(_relative_correction(np.array(h), a3, a4, degree)),
        float(_relative_correction(np.array(g), b3, b4, degree)),
    )
    if worst > EDGEWORTH_RELIABLE:
        _warn_unreliable(f"alpha = {a!r}", worst)
    return float(_edgeworth_cdf(np.array([g]), b3, b4, degree)[0])


def edgeworth_tradeoff_approx(
    cumulants_p: Sequence[float],
    cumulants_q: Sequence[float],
    n: int = 1,
    *,
    degree: int = 2,
    method: str = "root",
    grid: int = 2001,
) -> EdgeworthTradeOff:
    r"""Edgeworth approximation of ``T(P^n, Q^n)`` from per-step LLR cumulants.

    Zheng-Dong-Long-Su (2020), §3: ``f(a) = F~_EW((h* - mu_n) sigma_P / sigma_Q)`` with
    ``F_EW(h*) = 1 - a`` (root finding; the paper prints ``F_EW(h) - 1 - alpha = 0``, the
    equation meant is ``F_EW(h) = 1 - alpha``) or the Cornish-Fisher quantile; the
    cumulants are summed over ``n`` i.i.d. steps, so the cost does not grow with ``n``.
    Post-processed into a valid trade-off function and marked ``approx=True``: **an
    approximation, not a bound**. The result is an :class:`EdgeworthTradeOff`, whose
    ``delta`` and ``epsilon`` warn with :class:`ApproximationWarning` when the answer comes
    from the unreliable tails (typically small deltas).

    Parameters
    ----------
    cumulants_p, cumulants_q : sequence of 4 floats
        ``kappa_1..kappa_4`` of ``L = log(q/p)`` under ``P`` and under ``Q`` (one step).
    n : int
        Number of i.i.d. steps (``>= 1``).
    degree : {0, 1, 2}
        0 is the CLT (both CDFs normal), 1 keeps the skewness term, 2 all terms.
    method : {"root", "cornish_fisher"}
    grid : int
        Number of ``alpha`` points of the piecewise-linear result.

    Returns
    -------
    EdgeworthTradeOff
        The approximate curve (``approx = True``), convex-hulled and clipped to ``[0, 1 - a]``.

    Examples
    --------
    >>> import math
    >>> from ldp.accounting import edgeworth_tradeoff_approx, laplace_cumulants
    >>> f = edgeworth_tradeoff_approx(*laplace_cumulants(3 / math.sqrt(5)), n=5)
    >>> round(float(f(0.1)), 3), f.approx
    (0.101, True)
    """
    n = check_integer(n, "n", low=1)
    if degree not in (0, 1, 2):
        raise ValueError(f"degree must be 0, 1 or 2, got {degree!r}")
    if method not in ("root", "cornish_fisher"):
        raise ValueError(f"method must be 'root' or 'cornish_fisher', got {method!r}")
    kp = np.asarray(cumulants_p, dtype=np.float64) * n
    kq = np.asarray(cumulants_q, dtype=np.float64) * n
    if kp.shape != (4,) or kq.shape != (4,) or not np.all(np.isfinite(np.r_[kp, kq])):
        raise ValueError("cumulants_p and cumulants_q must be 4 finite numbers each")
    if kp[1] <= 0 or kq[1] <= 0:
        raise ValueError("the variances (second cumulants) must be positive")
    sp, sq = math.sqrt(kp[1]), math.sqrt(kq[1])
    mu_n = (kq[0] - kp[0]) / sp
    a3, a4 = kp[2] / sp**3, kp[3] / sp**4
    b3, b4 = kq[2] / sq**3, kq[3] / sq**4
    alpha = np.concatenate(([0.0], np.geomspace(1e-12, 1e-3, 200), np.linspace(1e-3, 1, grid)))
    alpha = np.unique(np.clip(alpha, 0.0, 1.0))
    inner = alpha[(alpha > 0) & (alpha < 1)]
    h = _edgeworth_quantile(inner, a3, a4, degree, method)
    g = (h - mu_n) * sp / sq
    values = _edgeworth_cdf(g, b3, b4, degree)
    beta = np.empty(alpha.shape)
    beta[alpha == 0] = 1.0
    beta[alpha == 1] = 0.0
    beta[(alpha > 0) & (alpha < 1)] = values
    beta = np.clip(beta, 0.0, 1.0 - alpha)
    beta = np.minimum.accumulate(beta)
    correction = np.zeros(alpha.shape)
    correction[(alpha > 0) & (alpha < 1)] = np.maximum(
        _relative_correction(h, a3, a4, degree), _relative_correction(g, b3, b4, degree)
    )
    return EdgeworthTradeOff._build(alpha, beta, correction)

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
    PiecewiseLinearTradeOff,
    TradeOffFunction,
    tradeoff_from_channel,
)
from ldp.accounting.curves.curve_closed_forms import laplace_cumulants, pieces_functionals
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


def tradeoff_functionals(f: TradeOffFunction) -> dict:
    """``kl``, ``kappa2``, ``kappa3``, ``kappa3_bar`` of a curve (Dong-Roth-Su (2022), §3.2).

    ``kl = -int log|f'|``, ``kappa2 = int log^2|f'|``, ``kappa3 = int |log|f'||^3`` and
    ``kappa3_bar = int |log|f'| + kl|^3`` over ``[0, 1]``. Exact for piecewise-linear curves
    (sums over the linear pieces), closed forms for ``G_mu`` (all four) and
    :class:`LaplaceTradeOff` (``kl``, ``kappa2``; quadrature for the third moments), and by
    quadrature of the folded curve for :class:`SubsampledTradeOff` of either. ``f(0) < 1``
    gives ``kl = inf`` (the CLTs do not apply). Each curve answers in
    :meth:`~ldp.accounting.TradeOffFunction.functionals`; one that answers ``None`` is
    summed over its finite :meth:`~ldp.accounting.TradeOffFunction.dominating_pair` (a
    piece of width ``p`` and slope ``q / p`` per outcome), and without one it is a
    ``TypeError``.

    Parameters
    ----------
    f : TradeOffFunction
        Any curve with functionals of its own or a finite dominating pair.

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
    if not isinstance(f, TradeOffFunction):
        raise TypeError(f"f must be a TradeOffFunction, got {type(f).__name__}")
    values = f.functionals()
    if values is not None:
        return dict(values)
    pair = f.dominating_pair()
    if pair is None:
        raise TypeError(
            "tradeoff_functionals needs a curve that gives its functionals() (piecewise-linear, "
            "Gaussian, Laplace, subsampled Gaussian and Laplace curves) or a finite "
            f"dominating_pair(), got {type(f).__name__}"
        )
    p, q = (np.asarray(v, dtype=np.float64) for v in pair)
    used = p > 0
    return pieces_functionals(p[used], q[used] / p[used], 1.0 - float(np.sum(q[~used])))


def _group_key(item: object) -> object:
    """Items with equal keys have equal functionals: a channel by its matrix, a curve by
    its :meth:`~ldp.accounting.TradeOffFunction.identity_key` (else by its identity)."""
    if isinstance(item, Channel):
        return item  # hashed and compared by its matrix
    key = item.identity_key() if isinstance(item, TradeOffFunction) else None
    return ("object", id(item)) if key is None else key


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


def edgeworth_cumulants(mechanism: object) -> tuple[np.ndarray, np.ndarray]:
    """Per-step cumulants for the Edgeworth expansion, or an error saying why it does not apply.

    Asks the curve (:meth:`~ldp.accounting.TradeOffFunction.loss_cumulants`: the Laplace
    and Gaussian curves answer). Finite channels and curves with a finite dominating pair
    (piecewise-linear curves) have lattice privacy losses (the Edgeworth series does not
    improve on the CLT there and its smooth CDF is wrong at the atoms: compose exactly);
    curves with ``f(0) < 1`` have an atom of infinite loss, for which no cumulant exists.

    Parameters
    ----------
    mechanism : TradeOffFunction
        One step of the composition, a curve that gives its ``loss_cumulants()``.

    Returns
    -------
    under_p, under_q : ndarray
        The first four cumulants of the privacy loss under each law.

    Raises
    ------
    ValueError
        For finite channels, curves with a finite dominating pair and curves with
        ``f(0) < 1``.
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
    if isinstance(mechanism, TradeOffFunction):
        cumulants = mechanism.loss_cumulants()
        if cumulants is not None:
            return cumulants
        if mechanism.dominating_pair() is not None and mechanism(0.0) < 1.0:
            raise ValueError(
                "Edgeworth expansion does not apply: f(0) < 1 means an atom of infinite "
                "privacy loss (delta > 0), which has no cumulants; split off f_{0,delta} and "
                "compose exactly"
            )
    if isinstance(mechanism, Channel) or (
        isinstance(mechanism, TradeOffFunction) and mechanism.dominating_pair() is not None
    ):
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

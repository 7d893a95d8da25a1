r"""Private hypothesis testing: the Chernoff-Stein bound of Asoodeh-Aliakbarpour-Calmon (2021),
Corollary 4, and the sample size it implies.

Corollary 4: for a test of :math:`P_0` against :math:`P_1` at type-I level :math:`\alpha`
through :math:`(\varepsilon,\delta)`-LDP channels, the type-II error satisfies
:math:`\liminf_n \frac1n \log\beta_n \ge -\varphi(\varepsilon,\delta)\,\mathrm{KL}(P_0\|P_1)`
(the paper writes ``lim``; without a strong-converse argument only the ``liminf`` is shown).
As proved, Corollary 4 covers non-interactive mechanisms, although the paper's setup allows
sequential interaction.

Non-asymptotic form (derived here, not in the paper): data processing of the binary KL, the
chain rule and Lemma 1 give, for every ``n`` and sequentially interactive mechanisms,
:math:`(1-\alpha)\log(1/\beta) - \log 2 \le n\,\varphi\,\mathrm{KL}(P_0\|P_1)`.
The type-II error is :math:`\Pr(T = 0 \mid H_1)`, as the paper's definition of
:math:`\beta` confirms (its Section VI prints :math:`\Pr(T = 1 \mid H_1)`).

Two hypotheses on any alphabet, without a KL between them (which is infinite when their
supports differ): :func:`kl_ceiling` bounds the KL one eps-LDP report carries by that of a
three-letter pair at the same total variation, :func:`sample_size_lower_bound` turns it into
the fewest users any sequentially interactive protocol needs, and :func:`best_binary_test`
gives the users randomized response on the best likelihood-ratio set needs, exactly
(``docs/lower_bounds.md`` §5).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import norm

from ldp._staircase_lp import (
    ColumnGenerationError,
    ZonotopePricer,
    divergence_column_values,
    solve_staircase_lp,
)
from ldp._validation import check_epsilon, check_probability, check_scalar
from ldp.channel import Channel
from ldp.divergences import kl as kl_divergence
from ldp.references import cite
from ldp.risk._common import (
    Bound,
    Privacy,
    as_pmf,
    check_error_rates,
    check_nonnegative,
    push,
    resolve_privacy,
    scaled,
)
from ldp.risk.bounds.minimax import binary_test_sample_size

__all__ = [
    "best_binary_test",
    "kl_ceiling",
    "min_sample_size",
    "sample_size_lower_bound",
    "stein_exponent",
]


def _contracted_kl(
    p0: ArrayLike | None, p1: ArrayLike | None, kl: float | None, priv: Privacy
) -> tuple[float, float]:
    """``(factor * KL, factor)``: the per-sample privatized KL or its worst-case bound."""
    if kl is not None:
        if p0 is not None or p1 is not None:
            raise ValueError("pass either p0 and p1 or kl, not both")
        if priv.channel is not None:
            raise ValueError("a concrete channel needs the distributions p0 and p1, not kl")
        value = check_nonnegative(kl, "kl")
    else:
        if p0 is None or p1 is None:
            raise TypeError("pass the two hypotheses p0 and p1 (pmfs), or their kl")
        a, b = as_pmf(p0, "p0"), as_pmf(p1, "p1")
        if a.size != b.size:
            raise ValueError(f"p0 and p1 must have the same length, got {a.size} and {b.size}")
        if priv.channel is not None:
            m0, m1 = push(priv.channel, a, "p0"), push(priv.channel, b, "p1")
            return float(kl_divergence(m0, m1)), 1.0
        value = float(kl_divergence(a, b))
    factor = priv.factor()
    return scaled(factor, value), factor


def stein_exponent(
    p0: ArrayLike | None = None,
    p1: ArrayLike | None = None,
    *,
    epsilon: float | None = None,
    delta: float = 0.0,
    channel: Channel | None = None,
    kl: float | None = None,
) -> Bound:
    r"""Lower bound on the private Chernoff-Stein exponent (Asoodeh-Aliakbarpour-Calmon (2021),
    Corollary 4).

    ``value`` :math:`= -\varphi(\varepsilon,\delta)\,\mathrm{KL}(P_0\|P_1)`, a lower bound on
    :math:`\liminf_n \frac1n\log\beta_n` for every ``(epsilon, delta)``-LDP channel. With a
    concrete ``channel`` it is Stein's exponent of that channel,
    :math:`-\mathrm{KL}(P_0K\|P_1K)`, exactly. ``-inf`` when the KL is infinite.

    Parameters
    ----------
    p0, p1 : array_like, optional
        The two hypotheses as pmfs on the same finite alphabet.
    epsilon, delta : float
        Worst case over all ``(epsilon, delta)``-LDP channels.
    channel : Channel, optional
        A concrete channel; replaces ``epsilon``.
    kl : float, optional
        Instead of ``p0, p1``: the per-sample ``KL(P0 || P1)``.

    Returns
    -------
    Bound
        The exponent (``<= 0``), with the contraction factor used in ``params``.

    Examples
    --------
    >>> from ldp.risk import stein_exponent
    >>> b = stein_exponent([0.5, 0.5], [0.25, 0.75], epsilon=1.0)
    >>> round(b.value, 6)   # -(1 - e^-1) * KL
    -0.090925
    """
    priv = resolve_privacy(epsilon, delta, channel)
    value, factor = _contracted_kl(p0, p1, kl, priv)
    name = (
        "Chernoff-Stein exponent of a concrete channel (exact)"
        if priv.channel is not None
        else f"private Chernoff-Stein ({cite('asoodeh2021', 'Corollary 4')})"
    )
    return Bound(
        -value if value > 0 else 0.0,
        name,
        "type-II error exponent lower bound",
        {"factor": factor, "kl": value / factor if factor > 0 else 0.0},
    )


def min_sample_size(
    p0: ArrayLike | None = None,
    p1: ArrayLike | None = None,
    *,
    alpha: float,
    beta: float,
    epsilon: float | None = None,
    delta: float = 0.0,
    channel: Channel | None = None,
    kl: float | None = None,
) -> Bound:
    r"""Minimum number of users to test :math:`P_0` vs :math:`P_1` at errors ``(alpha, beta)``.

    :math:`n \ge [(1-\alpha)\log(1/\beta) - \log 2]_+ / (\varphi\,\mathrm{KL}(P_0\|P_1))`
    (derived from Lemma 1 of Asoodeh-Aliakbarpour-Calmon (2021); valid for every ``n`` and
    sequentially interactive ``(epsilon, delta)``-LDP mechanisms). With a concrete ``channel``
    the exact privatized KL replaces :math:`\varphi\,\mathrm{KL}` (non-interactive). ``inf``
    when the privatized information is zero, ``0`` when it is infinite.

    Parameters
    ----------
    p0, p1 : array_like, optional
        The two hypotheses as pmfs on the same finite alphabet.
    alpha : float
        Type-I error, :math:`\Pr(T=1\mid H_0) \le \alpha`, in ``[0, 1)``.
    beta : float
        Target type-II error :math:`\Pr(T=0\mid H_1)`, in ``(0, 1]``.
    epsilon, delta : float
        Worst case over all ``(epsilon, delta)``-LDP mechanisms.
    channel : Channel, optional
        A concrete mechanism used by every user; replaces ``epsilon``.
    kl : float, optional
        Instead of ``p0, p1``: the per-sample ``KL(P0 || P1)``.

    Returns
    -------
    Bound
        The smallest number of users (``params["n_min"]`` rounded up), ``inf`` when the
        privatized information is zero.

    Examples
    --------
    >>> from ldp.risk import min_sample_size
    >>> b = min_sample_size([0.5, 0.5], [0.4, 0.6], alpha=0.05, beta=0.05, epsilon=1.0)
    >>> b.value > min_sample_size([0.5, 0.5], [0.4, 0.6], alpha=0.05, beta=0.05,
    ...                               epsilon=float("inf")).value
    True
    """
    a = check_scalar(alpha, "alpha", low=0.0, high=1.0, high_open=True)
    b = check_scalar(beta, "beta", low=0.0, high=1.0, low_open=True)
    priv = resolve_privacy(epsilon, delta, channel)
    rate, factor = _contracted_kl(p0, p1, kl, priv)
    need = (1.0 - a) * math.log(1.0 / b) - math.log(2.0)
    if need <= 0:
        value = 0.0
    elif rate == 0:
        value = math.inf
    else:
        value = need / rate
    return Bound(
        value,
        f"private testing sample size ({cite('asoodeh2021', 'Lemma 1')} + binary-KL data "
        "processing)",
        "sample size lower bound",
        {"factor": factor, "information_per_user": rate, "n_min": _ceil(value)},
    )


def _ceil(value: float) -> float:
    return value if np.isinf(value) else float(math.ceil(value - 1e-12))


# ------------------------------------------------------------- simple hypotheses, any alphabet
def kl_ceiling(tv: float, epsilon: float) -> Bound:
    r"""Largest :math:`\mathrm{KL}(P_0K\|P_1K)` over eps-LDP channels ``K`` and pairs
    :math:`(P_0, P_1)` at total variation ``tv``, certified from above.

    Any such pair is a garbling of the three-letter pair :math:`T_0 = (\tau, 0, 1-\tau)`,
    :math:`T_1 = (0, \tau, 1-\tau)` (:math:`\tau` = ``tv``): write
    :math:`P_i = (1-\tau) C + \tau A_i` with :math:`A_0 \perp A_1`, and map the letters to
    :math:`A_0, A_1, C`. Composing that map with ``K`` is again eps-LDP (its rows are mixtures
    of rows of ``K``), so the supremum for :math:`(T_0, T_1)`, a staircase LP over 8 columns
    (Kairouz-Oh-Viswanath (2016)), bounds every pair's. It is solved with a certified dual
    bound (``ldp._staircase_lp``), rounded up; where the symmetrised bound
    :math:`4(e^\varepsilon-1)^2\tau^2` of Duchi-Jordan-Wainwright (2018), Theorem 1, is
    smaller (or the tiny-``tv`` certificate is lost in round-off) that is used instead.

    Parameters
    ----------
    tv : float
        Total variation distance between the hypotheses, in ``[0, 1]``.
    epsilon : float
        Pure LDP level (finite, ``>= 0``).

    Returns
    -------
    Bound
        ``quantity`` ``"information per user upper bound"`` (nats).

    Examples
    --------
    >>> import math
    >>> from ldp.risk import kl_ceiling
    >>> b = kl_ceiling(1.0, 1.0)   # disjoint hypotheses: randomized response, eps tanh(eps/2)
    >>> round(b.value, 6), round(1.0 * math.tanh(0.5), 6)
    (0.462117, 0.462117)
    """
    tau = check_probability(tv, "tv")
    eps = check_epsilon(epsilon, allow_inf=False)
    name = f"three-letter staircase LP ({cite('kairouz2016')}), certified dual bound"
    if tau == 0.0 or eps == 0.0:
        return Bound(0.0, name, "information per user upper bound", {"tv": tau})
    t0 = np.array([tau, 0.0, 1.0 - tau])
    t1 = np.array([0.0, tau, 1.0 - tau])
    values = divergence_column_values("kl", t0, t1)
    # Duchi-Jordan-Wainwright: KL(M0||M1) + KL(M1||M0) <= 4 (e^eps - 1)^2 tv^2
    djw = 4.0 * math.expm1(eps) ** 2 * tau * tau
    try:
        solution = solve_staircase_lp(
            values, ZonotopePricer(t0, t1, values, eps), 3, eps, tolerance=1e-5, max_rounds=200
        )
    except ColumnGenerationError:  # tiny tv: the certificate's round-off margin dominates
        return Bound(
            djw,
            f"symmetrised KL bound ({cite('duchi2018', 'Theorem 1')})",
            "information per user upper bound",
            {"tv": tau},
        )
    if djw < solution.upper_bound:
        return Bound(
            djw,
            f"symmetrised KL bound ({cite('duchi2018', 'Theorem 1')})",
            "information per user upper bound",
            {"tv": tau, "attained": float(solution.value)},
        )
    return Bound(
        float(solution.upper_bound),
        name,
        "information per user upper bound",
        {"tv": tau, "attained": float(solution.value)},
    )


def _pmf_pair(p0: ArrayLike, p1: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    a, b = as_pmf(p0, "p0"), as_pmf(p1, "p1")
    if a.ndim != 1 or a.size != b.size or b.ndim != 1:
        raise ValueError(f"p0 and p1 must be pmfs of the same length, got {a.shape} and {b.shape}")
    return a, b


def sample_size_lower_bound(
    p0: ArrayLike,
    p1: ArrayLike,
    epsilon: float,
    *,
    alpha: float,
    beta: float,
    pair_ceiling: bool = True,
) -> Bound:
    r"""Fewest users with which any sequentially interactive eps-LDP protocol tests
    :math:`P_0` against :math:`P_1` at type-I error ``alpha`` and type-II error ``beta``.

    The test's decision is Bernoulli with mean at most ``alpha`` under :math:`P_0` and at least
    ``1 - beta`` under :math:`P_1`; data processing and the monotonicity of the binary KL
    :math:`d` give :math:`d(\alpha \| 1-\beta) \le \mathrm{KL}(\text{transcripts})`, and the
    chain rule bounds the transcripts' KL by ``n`` times the largest KL one eps-LDP report can
    carry (each user's channel, given the past, is eps-LDP). Swapping the hypotheses gives
    :math:`d(1-\beta \| \alpha)` against the reverse KL. The largest KL is bounded by the
    smaller of :func:`kl_ceiling` at the pair's total variation and, for ``k <= 32``, the
    certified bound of the pair's own staircase LP (column generation, at most 2 s), which is
    much smaller at large ``epsilon`` (``docs/lower_bounds.md`` §5).

    Parameters
    ----------
    p0, p1 : array_like
        The hypotheses, pmfs on the same alphabet.
    epsilon : float
        Pure LDP level (finite, ``> 0``).
    alpha, beta : float
        Type-I and type-II error targets, in ``(0, 1)``.
    pair_ceiling : bool, default True
        Also bound the KL by the pair's own staircase LP (tighter, up to seconds); ``False``
        uses the total-variation ceiling alone (milliseconds).

    Returns
    -------
    Bound
        ``value`` the bound on ``n`` (an integer, ``inf`` when ``p0 == p1``, ``0`` when
        ``alpha + beta >= 1``); ``params``: ``tv``, ``ceiling``, ``needed`` (nats).

    Examples
    --------
    >>> from ldp.risk import sample_size_lower_bound
    >>> b = sample_size_lower_bound([0.5, 0.3, 0.2], [0.3, 0.3, 0.4], 1.0, alpha=0.05, beta=0.2)
    >>> 50 < b.value < 200
    True
    """
    a, b = _pmf_pair(p0, p1)
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    size_one, size_two = check_error_rates(alpha, beta)
    tv = min(1.0, 0.5 * float(np.abs(a - b).sum()))
    by_tv = kl_ceiling(tv, eps).value
    forward = backward = by_tv
    if pair_ceiling:
        forward = min(by_tv, _pair_kl_bound(a, b, eps))  # sup_K KL(P0 K || P1 K)
        backward = min(by_tv, _pair_kl_bound(b, a, eps))  # sup_K KL(P1 K || P0 K)
    ceiling = max(forward, backward)
    name = (
        "binary-KL data processing + chain rule over the KL ceiling "
        "(proof: 'Lower bounds' docs page, §5)"
    )
    params = {
        "tv": tv,
        "ceiling": ceiling,
        "ceiling_by_tv": by_tv,
        "protocols": "sequentially interactive",
    }
    if size_one + size_two >= 1.0:
        return Bound(0.0, name, "sample size lower bound", {**params, "needed": 0.0})
    needs = (_bernoulli_kl(size_one, 1.0 - size_two), _bernoulli_kl(1.0 - size_two, size_one))
    if forward == 0.0 and backward == 0.0:
        value = math.inf
    else:
        with np.errstate(divide="ignore"):
            value = max(
                need / rate if rate > 0 else math.inf
                for need, rate in zip(needs, (forward, backward))
            )
        value = float(math.ceil(value - 1e-12))
    return Bound(value, name, "sample size lower bound", {**params, "needed": max(needs)})


#: Largest alphabet whose pair-specific KL ceiling is computed (column generation).
_PAIR_MAX_K = 32
#: Rounds of column generation spent on it (a count, not seconds: the same pair gets the same
#: bound on any machine); the certified bound reached by then is used.
_PAIR_ROUNDS = 30


def _pair_kl_bound(p0: np.ndarray, p1: np.ndarray, eps: float) -> float:
    """A certified upper bound on ``sup_K KL(P0 K || P1 K)`` over eps-LDP ``K``: the staircase
    LP of this very pair by column generation (``inf`` when it is not computed)."""
    if p0.size > _PAIR_MAX_K:
        return math.inf
    values = divergence_column_values("kl", p0, p1)
    try:
        solution = solve_staircase_lp(
            values,
            ZonotopePricer(p0, p1, values, eps),
            p0.size,
            eps,
            tolerance=1e-2,  # a sample size needs no more
            max_rounds=_PAIR_ROUNDS,
            give_up=True,
        )
    except ColumnGenerationError:
        return math.inf
    return float(solution.upper_bound)


def _bernoulli_kl(x: float, y: float) -> float:
    return float(x * math.log(x / y) + (1.0 - x) * math.log((1.0 - x) / (1.0 - y)))


#: Likelihood-ratio sets whose sample size is computed exactly (the best by a normal
#: approximation).
_EXACT_SETS = 3


def best_binary_test(
    p0: ArrayLike, p1: ArrayLike, epsilon: float, *, alpha: float, beta: float
) -> Bound:
    r"""Users needed by the best *binary* eps-LDP test of :math:`P_0` against :math:`P_1`,
    exactly: each user reports randomized response on whether its letter lies in a set ``S``,
    and the server runs the Neyman-Pearson test on the count.

    For a fixed ``S`` the reports are Bernoulli and the sample size is exact
    (:func:`~ldp.risk.binary_test_sample_size`); ``S`` ranges over the three best, by the
    normal approximation of their sample sizes, of the ``k - 1`` proper prefixes of the
    letters sorted by the likelihood ratio :math:`P_0/P_1` (among them
    :math:`\{P_0 > P_1\}`, the set randomized response needs to carry the total variation).

    Parameters
    ----------
    p0, p1 : array_like
        The hypotheses, pmfs on the same alphabet.
    epsilon : float
        Pure LDP level (finite, ``> 0``).
    alpha, beta : float
        Type-I and type-II error targets, in ``(0, 1)``.

    Returns
    -------
    Bound
        ``value`` the smallest ``n`` over the sets tried (``inf`` when ``p0 == p1``);
        ``mechanism`` ``"RR"``; ``params``: ``letters`` (the set ``S``), ``probabilities``
        (``P_0(S), P_1(S)``), ``type_two`` at that ``n``.

    Examples
    --------
    >>> from ldp.risk import best_binary_test
    >>> b = best_binary_test([0.5, 0.3, 0.2], [0.3, 0.3, 0.4], 1.0, alpha=0.05, beta=0.2)
    >>> b.letters, b.type_two <= 0.2   # randomized response on "letter 0 or 1"
    ((0, 1), True)
    """
    a, b = _pmf_pair(p0, p1)
    eps = check_epsilon(epsilon, positive=True, allow_inf=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(b > 0, a / np.where(b > 0, b, 1.0), np.inf)
    order = np.argsort(-ratio, kind="stable")
    sets = [tuple(sorted(int(x) for x in order[:cut])) for cut in range(1, a.size)]
    mass = np.array([[a[list(c)].sum(), b[list(c)].sum()] for c in sets]).reshape(-1, 2)
    # rank the prefixes by the normal approximation of their sample size; the exact search
    # runs on the few best (every one tried is an exact, achievable sample size)
    keep = np.r_[1.0 / (1.0 + math.exp(eps)), 1.0 / (1.0 + math.exp(-eps))]
    r = mass * keep[1] + (1.0 - mass) * keep[0]
    spread = np.abs(r[:, 0] - r[:, 1])
    size_one, size_two = check_error_rates(alpha, beta)
    z_one, z_two = norm.isf(size_one), norm.isf(size_two)
    with np.errstate(divide="ignore"):
        approx = np.where(
            spread > 0,
            (z_one * np.sqrt(r[:, 0] * (1 - r[:, 0])) + z_two * np.sqrt(r[:, 1] * (1 - r[:, 1])))
            ** 2
            / np.where(spread > 0, spread, 1.0) ** 2,
            np.inf,
        )
    best: tuple[float, tuple[int, ...], Bound] | None = None
    for index in np.argsort(approx, kind="stable")[:_EXACT_SETS]:
        if not np.isfinite(approx[index]):
            continue
        letters = sets[int(index)]
        inside0, inside1 = (min(float(m), 1.0) for m in mass[index])
        exact = binary_test_sample_size(inside0, inside1, eps, alpha=size_one, beta=size_two)
        if best is None or exact.value < best[0]:
            best = (exact.value, letters, exact)
    if best is None:
        return Bound(
            math.inf,
            "randomized response on a likelihood-ratio set (exact)",
            "sample size (achieved)",
            {"letters": (), "mechanism": "RR"},
        )
    value, letters, exact = best
    return Bound(
        value,
        "randomized response on a likelihood-ratio set + Neyman-Pearson (exact)",
        "sample size (achieved)",
        {
            "letters": letters,
            "probabilities": exact.rr_probabilities,
            "type_two": exact.type_two,
            "mechanism": "RR",
        },
    )

r"""Composition of repeated reports: same-input and adaptive, exact where it can be.

* :func:`compose` returns an immutable :class:`Composition` with ``delta(epsilon)``,
  ``epsilon_for_delta(delta)`` (``epsilon(delta)`` is a synonym), ``tv`` and ``tradeoff``;
  its ``kind`` says what was composed:

  - ``"same-input"``: ``compose(channel, n)`` for one finite :class:`~ldp.Channel` is a
    client answering the same question ``n`` times from the same input. The exact privacy
    is the maximum over ordered input pairs ``(x, x')`` of the profile of the product pair
    ``(K_x^n, K_{x'}^n)``; each pair is composed through its privacy-loss distribution
    (``ldp.accounting.curves.pld``), exactly when its log-ratios are commensurate and with
    losses rounded up otherwise;
  - ``"adaptive"``: ``compose(channel, n, adaptive=True)``, and every composition of
    trade-off curves or of a list of mechanisms. A channel then enters through its
    worst-case trade-off curve (the greatest lower bound over ordered input pairs,
    :func:`~ldp.accounting.curves.tradeoff_from_channel`); by the composition theorem
    (Dong-Roth-Su (2022), Theorem 3.2) the result bounds every adaptive sequence of reports,
    even one whose input pair changes between reports. It equals the same-input value when
    one input pair attains the curve (randomized response, k-RR, the erasure mechanisms)
    and is larger otherwise. Trade-off curves are guarantees about every input pair, so
    their compositions are adaptive by nature. Gaussian curves compose exactly to
    ``G_{sqrt(sum mu_i^2)}`` (Dong-Roth-Su (2022), Corollary 3.3).

  Every value is an upper bound that holds, floating point included (see
  ``ldp.accounting.curves.pld``).
* :func:`compose_eps_delta_eta` is the exact k-fold composition of (eps, delta)-DP,
  eta-TV mechanisms (Ghazi-Issa (2023), Theorem 2), computed in log space (the literal
  double sum overflows), with the heterogeneous extension.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from ldp._formulas import normalise_erasure
from ldp._frozen import Frozen
from ldp._progress import progress as show_progress
from ldp._validation import check_epsilon, check_integer, check_probability, compact
from ldp.accounting.composition.same_input import same_input_plds
from ldp.accounting.curves import (
    EpsDeltaEtaTradeOff,
    GaussianTradeOff,
    TradeOffFunction,
    get_tradeoff_from_profile,
    symmetrize,
    tradeoff_from_channel,
)
from ldp.accounting.curves._common import as_levels, out
from ldp.accounting.curves.pld import (
    DEFAULT_INTERVAL,
    PrivacyLossDistribution,
    find_lattice,
    loss_slack,
)
from ldp.channel import Channel
from ldp.core import Mechanism, PrivacyProfile, check_privacy_profile

__all__ = ["Composition", "EpsDeltaEtaComposition", "compose", "compose_eps_delta_eta"]

#: Lattice size above which an exact composition switches to pessimistic tail truncation.
_EXACT_LIMIT = 1 << 22
#: Largest ``n`` that :func:`compose` takes for a composition of privacy-loss distributions,
#: whose support grows with ``n`` (10^8 reports of a 4-ary k-RR hold about 1.5 GB): larger
#: ``n`` raises ``ValueError`` up front. Gaussian curves compose in closed form at any ``n``.
MAX_COMPOSE_FOLDS = 10**7
_UNIT = float(np.finfo(np.float64).eps) / 2.0
KINDS = ("same-input", "adaptive")


class Composition(Frozen):
    """The privacy of a composition: profile, its inverse, TV and trade-off curve.

    Immutable: every attribute is fixed when the composition is computed.

    Parameters
    ----------
    pld : PrivacyLossDistribution, optional
        The composed privacy-loss distribution (or give ``plds``, or ``mu``).
    mu : float, optional
        The GDP parameter of a pure GDP composition.
    exact, description, kind, plds
        As the attributes below. Compositions are made by :func:`compose` and its
        relatives, rarely by hand.

    Attributes
    ----------
    kind : {"same-input", "adaptive"}
        What was composed: ``"same-input"`` is one channel answering the same question
        ``n`` times from one input (the maximum over ordered input pairs of the exact pair
        composition); ``"adaptive"`` is the worst case over adaptive sequences (a different
        input pair may be chosen at every report; trade-off curves, GDP, lists of
        mechanisms).
    exact : bool
        ``True`` when the numbers are exact up to floating-point allowances (which are
        added, so they are still upper bounds); ``False`` when they are upper bounds from
        pessimistic rounding of the losses.
    plds : tuple of PrivacyLossDistribution
        The composed privacy-loss distributions: one per distinct ordered input pair
        (same-input), or one (adaptive); empty for pure GDP compositions.
    pld : PrivacyLossDistribution or None
        The composed privacy-loss distribution when there is exactly one.
    mu : float or None
        The GDP parameter (rounded up) when every part was Gaussian.
    description : str
        A sentence saying what was computed.

    Examples
    --------
    >>> from ldp import randomized_response
    >>> from ldp.accounting import compose
    >>> c = compose(randomized_response(1.0), 10)
    >>> round(c.delta(3.0), 8), round(c.tv, 8), c.exact, c.kind
    (0.6198918, 0.86959746, True, 'same-input')
    """

    def __init__(
        self,
        pld: PrivacyLossDistribution | None = None,
        mu: float | None = None,
        *,
        exact: bool,
        description: str = "",
        kind: str = "adaptive",
        plds: Sequence[PrivacyLossDistribution] | None = None,
    ) -> None:
        if pld is not None and plds is not None:
            raise ValueError("give pld or plds, not both")
        parts = tuple(plds) if plds is not None else (() if pld is None else (pld,))
        if (not parts) == (mu is None):
            raise ValueError("give exactly one of pld (or plds) and mu")
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        self.plds = parts
        self.pld = parts[0] if len(parts) == 1 else None
        self.mu = mu
        self.exact = bool(exact)
        self.description = description
        self.kind = kind

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """Tight (exact) or upper-bound delta at level(s) ``epsilon >= 0``."""
        e, scalar = as_levels(epsilon, "epsilon", low=0.0)
        if self.mu is not None:
            return GaussianTradeOff(self.mu).delta(epsilon)
        value = np.asarray(self.plds[0].delta(e))
        for pld in self.plds[1:]:
            value = np.maximum(value, np.asarray(pld.delta(e)))
        return out(value, scalar)

    def epsilon_for_delta(self, delta: ArrayLike) -> float | np.ndarray:
        """Smallest ``epsilon >= 0`` whose (upper-bound) delta is at most ``delta``."""
        if self.mu is not None:
            return GaussianTradeOff(self.mu).epsilon_for_delta(delta)
        d, scalar = as_levels(delta, "delta", low=0.0, high=1.0)
        value = np.asarray(self.plds[0].epsilon_for_delta(d))
        for pld in self.plds[1:]:  # each profile is non-increasing: the largest eps works
            value = np.maximum(value, np.asarray(pld.epsilon_for_delta(d)))
        return out(value, scalar)

    def epsilon(self, delta: ArrayLike) -> float | np.ndarray:
        """Synonym of :meth:`epsilon_for_delta` (the older spelling)."""
        return self.epsilon_for_delta(delta)

    @property
    def tv(self) -> float:
        """``delta(0)``: total variation between the composed output laws (bound)."""
        return float(self.delta(0.0))

    @property
    def gdp_mu(self) -> float:
        """The smallest ``mu`` such that the composition is ``mu``-GDP (rounded up).

        ``G_mu`` lies below the curve of the largest profile iff it lies below each
        distribution's curve, so this is the largest ``PrivacyLossDistribution.gdp_mu``
        over ``plds`` (each read from the tails of its privacy-loss distribution, with no
        loss of precision near the corners of the curve), or ``mu`` for a Gaussian
        composition.
        Exact when ``exact`` (up to a relative ``1e-6`` allowance for the rounding of the
        masses), an upper bound otherwise; ``inf`` when the composition is not GDP for any
        finite ``mu`` (mass at an infinite loss).

        Examples
        --------
        >>> from ldp import k_rr
        >>> from ldp.accounting import compose
        >>> round(compose(k_rr(4, 0.9), 365).gdp_mu, 4)
        13.3486
        """
        if self.mu is not None:
            return float(self.mu)
        return max(pld.gdp_mu for pld in self.plds)

    @property
    def tradeoff(self) -> TradeOffFunction:
        """A trade-off curve that the composition satisfies (tight when ``exact``).

        It is ``max_j f_{eps_j, delta(eps_j)}`` (Dong-Roth-Su (2022), Proposition 2.8) over
        the levels ``eps_j >= 0`` where the profile bends: the lattice levels of every
        privacy-loss distribution (the profile of one is linear in ``e^eps`` between them)
        and, for several input pairs, the crossings of their profiles. Built as an upper
        envelope of lines in ``O(N log N)`` time and ``O(N)`` memory for ``N`` levels.
        """
        if self.mu is not None:
            return GaussianTradeOff(self.mu)
        # each PLD's top level, where its reported profile is its +inf atom exactly (no finite
        # loss above it), gives the curve its certified f(0) = 1 - delta(inf): exactly 1 for
        # a pure mechanism (the last lattice level, read with its rounding allowance, can be
        # a few ulps above the atom, which would leave f(0) one ulp below 1 and no finite mu)
        tops = np.array([pld.top_level for pld in self.plds])
        parts = [np.zeros(1), tops[np.isfinite(tops)], *(pld.levels for pld in self.plds)]
        levels = np.unique(np.concatenate(parts))
        levels = levels[levels >= 0.0]
        if len(self.plds) > 1:
            levels = np.union1d(levels, self._crossings(levels))
        return get_tradeoff_from_profile(levels, self.delta(levels))

    def _crossings(self, levels: np.ndarray) -> np.ndarray:
        """Where the winning pair changes between two levels, the crossing of the two
        winners' profiles (each linear in ``e^eps`` there)."""
        best = np.full(levels.shape, -np.inf)
        winner = np.zeros(levels.shape, dtype=np.int64)
        for i, pld in enumerate(self.plds):
            value = np.asarray(pld.delta(levels))
            better = value > best
            best = np.where(better, value, best)
            winner = np.where(better, i, winner)
        change = np.nonzero(winner[:-1] != winner[1:])[0]
        if change.size == 0:
            return np.zeros(0)
        left, right = levels[change], levels[change + 1]
        a_left = np.empty(change.size)
        a_right = np.empty(change.size)
        b_left = np.empty(change.size)
        b_right = np.empty(change.size)
        for i, pld in enumerate(self.plds):
            mine = winner[change] == i
            if np.any(mine):
                a_left[mine] = np.asarray(pld.delta(left[mine]))
                a_right[mine] = np.asarray(pld.delta(right[mine]))
            theirs = winner[change + 1] == i
            if np.any(theirs):
                b_left[theirs] = np.asarray(pld.delta(left[theirs]))
                b_right[theirs] = np.asarray(pld.delta(right[theirs]))
        gap_left, gap_right = a_left - b_left, a_right - b_right
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.clip(gap_left / (gap_left - gap_right), 0.0, 1.0)
        t = np.where(np.isfinite(t), t, 0.0)
        return left + np.log1p(t * np.expm1(right - left))

    def __repr__(self) -> str:
        if self.mu is not None:
            return f"<Composition (adaptive): exactly {self.mu:.6g}-GDP>"
        kind = "exact" if self.exact else "upper bound"
        who = "same input" if self.kind == "same-input" else "adaptive"
        return f"<Composition ({kind}, {who}) {self.description}>"


def _as_curve(item: object, name: str) -> TradeOffFunction:
    check_privacy_profile(item, name)
    exact = item.gdp_mu() if isinstance(item, Mechanism) else None
    if exact is not None:  # exactly G_mu (no finite channel has its profile)
        return GaussianTradeOff(exact)
    if isinstance(item, Mechanism):  # a Channel, or any mechanism's privacy channel
        return tradeoff_from_channel(item.privacy_channel())
    if isinstance(item, TradeOffFunction):
        if item.approx:
            raise ValueError(
                f"{item!r} is an approximation, not a guarantee; compose guarantees only"
            )
        return item if item.is_symmetric else symmetrize(item)
    raise TypeError(
        f"{name}: compose needs mechanisms (Channels included) or trade-off curves; "
        f"{type(item).__name__} is a privacy profile without a trade-off curve"
    )


def compose(
    mechanisms: PrivacyProfile | Sequence[PrivacyProfile],
    n: int | None = None,
    *,
    adaptive: bool | None = None,
    interval: float | None = None,
    progress: bool = False,
) -> Composition:
    """Compose mechanisms: ``compose(m, n)`` (n reports of one mechanism) or ``compose([m1, ...])``.

    Parameters
    ----------
    mechanisms : PrivacyProfile or sequence of them
        Mechanisms (Channels included) and trade-off curves (anything else is refused with
        one ``TypeError``: not a privacy profile).
        Finite channels, piecewise-linear curves (``f_{eps,delta}``, ``f_{eps,delta,eta}``,
        user-supplied), :class:`GaussianTradeOff` (exact alone; discretised pessimistically
        when mixed), :class:`LaplaceTradeOff` (discretised pessimistically). Asymmetric
        curves are symmetrised (``max{f, f^{-1}}``); approximations are refused.
    n : int, optional
        Number of reports of a single ``mechanisms`` (``n >= 0``).
    adaptive : bool, optional
        For one :class:`~ldp.Channel` and ``n``: ``False`` (the default) is the **same-input**
        composition, the exact privacy of a client answering the same question ``n`` times
        (the maximum over ordered input pairs ``(x, x')`` of the exact composition of the
        pair ``(K_x, K_x')``); ``True`` is the **adaptive** worst case (the channel's
        worst-case curve composed ``n`` times: a different input pair may be chosen at
        every report), which is larger unless one input pair is the worst at every level.
        Curves and lists of mechanisms are adaptive by nature: ``adaptive=False`` is refused
        for them.
    interval : float, optional
        Lattice spacing for losses that are not commensurate (rounded up; default
        ``1e-4``). Ignored when an exact lattice exists.
    progress : bool, default False
        Show a tqdm bar over the input pairs or the distinct mechanisms (when tqdm is
        installed).

    Returns
    -------
    Composition
        Its ``kind`` is ``"same-input"`` or ``"adaptive"``.

    Examples
    --------
    >>> import math
    >>> from ldp import Channel
    >>> from ldp.accounting import EpsDeltaTradeOff, GaussianTradeOff, compose
    >>> round(compose(EpsDeltaTradeOff(1 / math.sqrt(10)), 10).epsilon(1e-3), 4)
    2.8897
    >>> round(compose([GaussianTradeOff(0.6), GaussianTradeOff(0.8)]).mu, 12)
    1.0
    >>> ch = Channel([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.3, 0.4, 0.3]])
    >>> same, worst = compose(ch, 10), compose(ch, 10, adaptive=True)
    >>> same.kind, worst.kind, bool(same.delta(1.0) < worst.delta(1.0))
    ('same-input', 'adaptive', True)
    """
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False, got {progress!r}")
    if adaptive is not None and not isinstance(adaptive, bool):
        raise TypeError(f"adaptive must be True, False or None, got {adaptive!r}")
    if (
        n is not None
        and check_integer(n, "n", low=0) > MAX_COMPOSE_FOLDS
        and not (isinstance(mechanisms, TradeOffFunction) and mechanisms.gdp_mu() is not None)
    ):
        raise ValueError(
            f"n must be <= MAX_COMPOSE_FOLDS = {MAX_COMPOSE_FOLDS:.0e} (ldp.accounting."
            f"composition) for a privacy-loss composition, got {compact(n)}; for more reports "
            "use a CLT approximation (clt_mu_approx) or a GDP bound"
        )
    exact = mechanisms.gdp_mu() if isinstance(mechanisms, Mechanism) else None
    if exact is not None:  # exactly mu-GDP: n reports are sqrt(n) mu-GDP
        return compose(GaussianTradeOff(exact), n, adaptive=adaptive)
    if isinstance(mechanisms, Mechanism) and not isinstance(mechanisms, Channel):
        # any mechanism composes through its privacy channel (the worst input pair reduced
        # to its likelihood-ratio classes); a dominating one gives an upper bound
        composed = compose(
            mechanisms.privacy_channel(),
            n,
            adaptive=adaptive,
            interval=interval,
            progress=progress,
        )
        if mechanisms.privacy_exact:
            return composed
        return Composition(
            pld=composed.pld,
            plds=None if composed.pld is not None else composed.plds,
            mu=composed.mu,
            exact=False,
            kind=composed.kind,
            description=f"upper bound for {mechanisms.key}: {composed.description}",
        )
    if n is not None:
        n = check_integer(n, "n", low=0)
        if isinstance(mechanisms, Channel) and not adaptive:
            return _compose_same_input(mechanisms, n, interval, progress)
        items = [mechanisms] * n if n < 2 else [mechanisms]
        counts = [n] if n >= 2 else [1] * n
    else:
        if isinstance(mechanisms, (Mechanism, TradeOffFunction)):
            raise TypeError("pass a sequence of mechanisms, or a mechanism and n")
        if not isinstance(mechanisms, Sequence):
            raise TypeError(f"mechanisms must be a sequence, got {type(mechanisms).__name__}")
        items, counts = list(mechanisms), [1] * len(mechanisms)
    if adaptive is False:
        raise ValueError(
            "adaptive=False (same-input composition) is defined for one finite Channel and n; "
            "trade-off curves and lists of mechanisms compose adaptively (adaptive=True)"
        )
    if not items:
        return Composition(mu=0.0, exact=True, description="nothing released")
    curves = [
        _as_curve(item, f"mechanisms[{i}]" if n is None else "mechanisms")
        for i, item in enumerate(show_progress(items, progress, desc="curves"))
    ]
    mus = [c.gdp_mu() for c in curves]
    if all(mu is not None for mu in mus):  # every curve is exactly G_mu: compose in closed form
        squares = [c * mu**2 for mu, c in zip(mus, counts) if mu is not None]
        total = math.sqrt(math.fsum(squares)) * (1.0 + 4.0 * _UNIT)  # rounded up
        return Composition(
            mu=total, exact=True, description=f"G_{total:.6g} (Dong-Roth-Su (2022), Cor. 3.3)"
        )
    plds = _common_lattice(curves, interval)
    total_pld: PrivacyLossDistribution | None = None
    for pld, count in show_progress(_group(plds, counts), progress, desc="compose"):
        size = pld.probs.size * count
        tau = 1e-15 if size > _EXACT_LIMIT or not pld.exact else 0.0
        part = pld.self_compose(count, truncation=tau)
        total_pld = part if total_pld is None else total_pld.compose(part, truncation=tau)
    assert total_pld is not None  # at least one item
    return Composition(
        pld=total_pld,
        exact=total_pld.exact,
        description=(
            f"adaptive worst case of {sum(counts)} mechanisms on a lattice of "
            f"{total_pld.interval:.6g}"
        ),
    )


def _compose_same_input(
    channel: Channel, n: int, interval: float | None, progress: bool, prune: bool = True
) -> Composition:
    """``max_{x != x'}`` of the exact composition of ``(K_x, K_x')``, ``n`` times.

    Only the pairs that can be the worst somewhere are composed (``prune``; see
    ``ldp.accounting.composition.same_input``); ``prune=False`` composes every distinct pair.
    """
    m = channel.matrix
    k = channel.n_inputs
    if n == 0 or k == 1:
        what = "nothing released" if n == 0 else "one input: nothing to tell apart"
        return Composition(mu=0.0, exact=True, kind="same-input", description=what)
    fallback = DEFAULT_INTERVAL if interval is None else interval
    plds, distinct = same_input_plds(
        np.asarray(m, dtype=np.float64), n, fallback, _EXACT_LIMIT, progress=progress, prune=prune
    )
    exact = all(pld.exact for pld in plds)
    return Composition(
        plds=plds,
        exact=exact,
        kind="same-input",
        description=(
            f"same input: {n} reports of one channel, the maximum over {k * (k - 1)} ordered "
            f"input pairs ({distinct} distinct, {len(plds)} that can be the worst) of their "
            "exact composition" + ("" if exact else ", losses rounded up")
        ),
    )


def _common_lattice(
    curves: list[TradeOffFunction], interval: float | None
) -> list[PrivacyLossDistribution]:
    """Each curve's own pessimistic PLD on one lattice (``curve.pld``).

    When every curve has a finite dominating pair the lattice is found from their losses
    (exact when they are commensurable); otherwise it is ``interval`` or the default.
    """
    pairs = [c.dominating_pair() for c in curves]
    finite, slacks = [], []
    for pair in pairs:
        if pair is None:
            continue
        p, q = pair
        keep = (p > 0) & (q > 0)
        log_q, log_p = np.log(q[keep]), np.log(p[keep])
        finite.append(log_q - log_p)
        slacks.append(loss_slack(log_q, log_p, finite[-1], len(p)))
    losses = np.concatenate(finite) if finite else np.zeros(0)
    found = None
    if all(pair is not None for pair in pairs):
        found = find_lattice(losses, np.concatenate(slacks)) if losses.size else (1.0, 0.0)
    if found is None:
        h, h_slack = (interval if interval is not None else DEFAULT_INTERVAL), 0.0
    else:
        h, h_slack = found
    return [c.pld(h, interval_slack=h_slack) for c in curves]


def _group(plds: list[PrivacyLossDistribution], counts: list[int]):
    groups: dict = {}
    for pld, count in zip(plds, counts):
        key = (pld.offset, pld.inf_mass, pld.shift, pld.probs.tobytes())
        if key in groups:
            groups[key][1] += count
        else:
            groups[key] = [pld, count]
    return [tuple(v) for v in groups.values()]


# ------------------------------------------------------- Ghazi-Issa (2023), Theorem 2
def _log_trinomial_sum(
    k: int, log_u: float, log_w: float, log_v: float, progress: bool = False
) -> np.ndarray:
    """``log P(N+ - N- = i)``, ``i = -k..k``, for (N+, N0, N-) ~ Multinomial(k; u, w, v).

    One vectorised pass per value of ``N-`` (``O(k^2)`` work, ``O(k)`` memory), every term
    in log space so that neither ``e^{k eps}`` overflows nor ``u^k`` underflows.
    """
    result = np.full(2 * k + 1, -np.inf)
    lg = gammaln(np.arange(k + 2, dtype=np.float64))  # lg[n + 1] = log n!
    base = lg[k + 1]
    for m in show_progress(range(k + 1), progress, desc="Theorem 2"):  # m = N-
        plus = np.arange(k - m + 1) if log_w != -np.inf else np.array([k - m])
        zero = k - m - plus
        if m > 0 and log_v == -np.inf:
            break
        with np.errstate(invalid="ignore"):
            terms = (
                base
                - lg[plus + 1]
                - lg[zero + 1]
                - lg[m + 1]
                + np.where(plus > 0, plus * log_u, 0.0)
                + np.where(zero > 0, zero * log_w, 0.0)
                + (m * log_v if m > 0 else 0.0)
            )
        where = plus - m + k
        result[where] = np.logaddexp(result[where], terms)
    return result


class EpsDeltaEtaComposition(Composition):
    """Exact k-fold composition of ``(eps, delta)``-DP, ``eta``-TV mechanisms.

    Ghazi-Issa (2023), Theorem 2. ``deltas[j]`` is the tight delta at ``j * eps``
    (``j = 0..k``), rounded up by the floating-point allowance of its computation; between
    grid points the tight profile is the interpolation in ``e^eps'``. The class contains
    every mechanism with these parameters, so the composition is adaptive by nature.

    Parameters
    ----------
    pld : PrivacyLossDistribution
        The composed privacy-loss distribution.
    params : tuple
        ``(epsilon, delta, eta)`` of one mechanism.
    k : int
        Number of folds.

    Examples
    --------
    >>> import math
    >>> from ldp.accounting import EpsDeltaEtaComposition, compose_eps_delta_eta
    >>> c = compose_eps_delta_eta(1.0, 0.0, 0.3, 4)
    >>> isinstance(c, EpsDeltaEtaComposition), c.k, c.deltas.shape
    (True, 4, (5,))
    >>> float(c.deltas[-1])  # at 4 * eps the pure 1-DP part is used up
    0.0
    >>> math.isclose(c.deltas[0], c.tv)  # delta(0) is the TV
    True
    """

    def __init__(self, pld: PrivacyLossDistribution, params: tuple, k: int) -> None:
        super().__init__(
            pld=pld,
            exact=True,
            description=f"Ghazi-Issa (2023) Theorem 2, {params}, k={k}",
        )
        self.params, self.k = params, k

    @property
    def deltas(self) -> np.ndarray:
        """``delta'_j`` at ``eps' = j * eps`` for ``j = 0..k`` (homogeneous case)."""
        eps = self.params[0]
        return np.asarray(self.delta(np.arange(self.k + 1) * eps), dtype=np.float64)


#: Largest number of folds for the exact Theorem 2 composition (O(k^2) work).
MAX_FOLDS = 100_000


def compose_eps_delta_eta(
    epsilon: float | ArrayLike,
    delta: float | ArrayLike = 0.0,
    eta: float | ArrayLike | None = None,
    k: int | None = None,
    *,
    progress: bool = False,
) -> Composition:
    r"""Tight composition of ``(eps, delta)``-DP, ``eta``-TV mechanisms (Ghazi-Issa (2023)).

    With scalars and ``k``: ``k`` copies of one class. The composed privacy loss of the
    dominating mechanism ``M_{eps,delta,eta}`` is ``eps (N+ - N-)`` with
    ``(N+, N0, N-) ~ Multinomial(k; (1-a)e^eps/(1+e^eps), a, (1-a)/(1+e^eps))`` and
    ``a = 1 - (eta - delta)(1 + e^eps)/((1 - delta)(e^eps - 1))``; its law is computed in
    log space (``gammaln``/``logsumexp``, ``O(k^2)``), the profile on the lattice by a
    positive backward recurrence and ``delta'_j = (1 - (1-delta)^k) + (1-delta)^k D_j`` with
    ``expm1``/``log1p`` (Theorem 2 of Ghazi-Issa (2023)). ``eta=None`` means ``eta_max``
    (Kairouz-Oh-Viswanath). Parameters are normalised first (``delta <- min(delta, eta)``,
    ``eta <- min(eta, eta_max)``). The values are rounded up by a bound on the rounding
    error of the log-space masses (a relative ``1e-13`` or so).

    With arrays (and ``k=None``): the heterogeneous composition of the listed mechanisms
    (an extension of the theorem: the sum of independent losses), exact when the epsilons
    are commensurate, an upper bound otherwise.

    Parameters
    ----------
    epsilon, delta, eta : float or array_like
        The class of each mechanism (``eta=None``: no TV constraint beyond ``eta_max``).
    k : int, optional
        Number of copies (homogeneous case); ``None`` composes the listed mechanisms.
    progress : bool, default False
        Show a tqdm bar over the ``k + 1`` passes (or the listed mechanisms) when tqdm is
        installed.

    Returns
    -------
    Composition
        ``delta(eps')``, ``epsilon_for_delta(delta')``, ``tv``; for the homogeneous case also
        ``deltas`` (the values at ``j * eps``).

    Examples
    --------
    >>> from ldp.accounting import compose_eps_delta_eta
    >>> c = compose_eps_delta_eta(1.0, 0.0, 0.7 * 0.46211715726000974, 5)
    >>> round(c.tv, 12)
    0.631089674853
    >>> [round(float(v), 9) for v in c.deltas]
    [0.631089675, 0.432692978, 0.239344949, 0.095372566, 0.022184569, 0.0]
    """
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False, got {progress!r}")
    if k is None:
        return _heterogeneous(epsilon, delta, eta, progress)
    eps = check_epsilon(epsilon)
    d0 = check_probability(delta, "delta")
    h0 = None if eta is None else check_probability(eta, "eta")
    k = check_integer(k, "k", low=0)
    if k > MAX_FOLDS:
        raise ValueError(
            f"k must be <= {MAX_FOLDS} for the exact Theorem 2 recurrence (its cost grows as "
            f"k^2), got {compact(k)}; for more folds use clt_mu_approx or a PLD composition"
        )
    d, h, alpha = normalise_erasure(eps, d0, h0)
    params = (eps, d, h)
    if k == 0 or eps == 0.0 or alpha == 1.0 or math.isinf(eps):
        # all finite mass at loss 0 (alpha = 1), or everything revealed (eps = inf)
        if math.isinf(eps):
            keep = math.exp(k * math.log1p(-h)) if h < 1 else 0.0
            pld = PrivacyLossDistribution(np.array([keep]), 0, 1.0, 1.0 - keep, exact=True)
        else:
            keep = math.exp(k * math.log1p(-d)) if d < 1 else 0.0
            pld = PrivacyLossDistribution(
                np.array([keep]),
                0,
                1.0,
                -math.expm1(k * math.log1p(-d)) if d < 1 else 1.0,
                exact=True,
            )
        return EpsDeltaEtaComposition(pld, params, k)
    log_e = -math.log1p(math.exp(-eps))  # log(e^eps / (1 + e^eps))
    log_f = -eps + log_e  # log(1 / (1 + e^eps))
    log_a1 = math.log1p(-alpha) if alpha < 1 else -math.inf
    log_w = math.log(alpha) if alpha > 0 else -math.inf
    logs = (log_a1 + log_e, log_w, log_a1 + log_f)
    logp = _log_trinomial_sum(k, *logs, progress)
    keep = k * math.log1p(-d) if d < 1 else -math.inf
    probs = np.exp(logp + keep)
    inf_mass = -math.expm1(keep) if d < 1 else 1.0
    # each log-mass is a sum of seven terms (three log-factorials, three k * log and the
    # constant), each within a few ulps, and logaddexp adds 2u per pass: a relative error
    # bound, by which every mass is rounded up (so small deltas keep their precision)
    size = 2.0 * float(gammaln(k + 1.0)) + k * max(abs(v) for v in logs if math.isfinite(v))
    rho = _UNIT * (16.0 * (size + abs(keep if math.isfinite(keep) else 0.0)) + 4.0 * k + 16.0)
    probs = probs * (1.0 + rho)
    inf_mass = min(1.0, inf_mass * (1.0 + 4.0 * _UNIT))
    pld = PrivacyLossDistribution(probs, -k, eps, inf_mass, exact=True)
    return EpsDeltaEtaComposition(pld, params, k)


def _heterogeneous(epsilon, delta, eta, progress: bool = False) -> Composition:
    e, _ = as_levels(epsilon, "epsilon", low=0.0)
    d, _ = as_levels(delta, "delta", low=0.0, high=1.0)
    if eta is None:
        h = np.full(np.broadcast(e, d).shape, np.nan)
    else:
        h, _ = as_levels(eta, "eta", low=0.0, high=1.0)
    e, d, h = np.broadcast_arrays(np.atleast_1d(e), np.atleast_1d(d), np.atleast_1d(h))
    if e.ndim != 1:
        raise ValueError(f"epsilon, delta and eta must be 1-D, got shape {e.shape}")
    curves = [
        EpsDeltaEtaTradeOff(float(a), float(b), 1.0 if np.isnan(c) else float(c))
        for a, b, c in zip(e, d, h)
    ]
    return compose(curves, progress=progress)

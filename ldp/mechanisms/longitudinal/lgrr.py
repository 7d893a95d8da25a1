"""Longitudinal collection with memoization: RAPPOR, L-GRR, L-OSUE, L-OUE and dBitFlipPM.

A client that reports the same question every day must not draw fresh noise each day (the
noise would average out). These mechanisms answer in two rounds:

1. a **permanent** randomized response of the value, drawn the first time the client holds
   that value and *memoized* (kept in the client's
   :class:`~ldp.mechanisms.longitudinal.memo.Memo`, never sent);
2. an **instantaneous** randomized response of the memoized answer, drawn afresh for every
   report.

``privatize_round(values, memos, rng)`` is one round for ``n`` clients: it returns the
reports and the clients' new memos. ``privatize(values, rng=rng)`` is the first round of fresh
clients (the memos are dropped): its law is the one-report channel, whose level is
``epsilon`` (``epsilon_1`` of the papers). Server-side decoding is the same in every
round (:meth:`estimate`): each report, marginally, has the one-report law.

**Privacy over many rounds.** With the value unchanged, ``t`` reports leak
:meth:`epsilon_repeated` ``(t)``, computed exactly (closed forms below, checked against
enumeration of the ``t``-round output law in the tests); it increases to the permanent level
:attr:`epsilon_permanent` and never exceeds it. The shortcut ``min(eps_inf, t * eps_1)``
found in the literature is **not** an upper bound: L-GRR with ``k = 1024``,
``eps_inf = 4``, ``eps_1 = 0.2`` leaks 3.81 after 5 reports, not 1.0 (and Arcolezi et al.
(2022), eq. (16), which prints a formula below that minimum, understates it too).
:meth:`epsilon_rounds` bounds histories whose value changes ``c`` times;
:meth:`epsilon_any_history` bounds any two histories.

**Exact maximisers.** For a GRR permanent round (``p1, q1``) followed by a GRR instantaneous
round (``p2, q2``, ratio ``r = p2/q2``), the likelihood of ``t`` reports under ``x`` is
``q2^t [q1 S + (p1 - q1) r^{m_x}]`` with ``m_b`` the number of reports equal to ``b`` and
``S = sum_b r^{m_b}``; the ratio for ``x`` against ``x'`` is largest when every report equals
``x`` (it increases in ``m_x``, decreases in ``m_{x'}`` and in ``S``), which gives
``eps_t = log((p1 r^t + 1 - p1) / (q1 r^t + 1 - q1))``. For unary rounds the bits are
independent and only the bits of ``x`` and ``x'`` differ; the ratio of one bit is monotone in
its number of ones, so the worst reports are all ones on the bit of ``x`` and all zeros on
the bit of ``x'``.
"""

from __future__ import annotations

import abc
import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from ldp._exact import (
    certified_epsilon,
    exp_down,
    log_up,
    nearest_within,
    probabilities,
    within_exp,
)
from ldp._rounding import UNIT, log_products_upper, round_up
from ldp._sampling import ExactLaw, choose, randint
from ldp._validation import (
    check_integer,
    check_random_state,
    compact,
)
from ldp.channel import Channel
from ldp.core import ReportCodec, index_codec
from ldp.mechanisms.base import FrequencyOracle
from ldp.mechanisms.limits import check_categories, check_mechanism_epsilon, index_dtype
from ldp.mechanisms.longitudinal.memo import Memo
from ldp.mechanisms.worst_pair import pair_channel

__all__ = [
    "LGRR",
    "MAX_CHANNEL_ENTRIES",
    "MAX_COUNT_VECTORS",
    "Memo",
    "MemoizedMechanism",
    "lambda_ratio_gap",
    "law_pair",
    "log_mix_ratio",
    "log_odds_upper",
    "log_ratio_of_products",
    "round_up_margin",
]

#: Largest ``groups * rounds^2`` of the exact partition search in ``epsilon_rounds``; beyond
#: it the coarser (still valid) ``min(groups * eps_inf, rounds * eps_instant)`` is returned.
MAX_PARTITION_WORK = 50_000_000

#: Largest matrix ``to_channel`` builds (entries).
MAX_CHANNEL_ENTRIES = 1 << 22

# relative margin that covers the double rounding of the few operations of an accounting
# formula (each is a handful of products and one or two logarithms)
_MARGIN = 64 * UNIT


def round_up_margin(value: float) -> float:
    """``value`` rounded up by a relative margin covering its double rounding."""
    if math.isinf(value):
        return value
    return round_up(max(0.0, value) * (1.0 + _MARGIN) + 4 * math.ulp(value), 2)


def log_ratio_of_products(numerators: list[float], denominators: list[float]) -> float:
    """An upper bound on ``log(prod(numerators) / prod(denominators))`` for probabilities
    that were themselves computed with a few roundings (each widened by 16 units)."""
    if any(d == 0.0 for d in denominators):
        return math.inf
    widen = 16 * UNIT
    return log_products_upper(
        [v * (1.0 + widen) for v in numerators], [v * (1.0 - widen) for v in denominators]
    )


def log_mix_ratio(a: float, a_rest: float, b: float, b_rest: float, log_l: float) -> float:
    """An upper bound on ``log((a L + a_rest) / (b L + b_rest))`` with ``L = e^log_l``
    (``log_l`` may be ``+-inf``), without overflow.

    The two logarithms are evaluated in doubles; the bound adds their rounding (a few units
    of ``2^-53`` relative to each logarithm and to each operand), so that a small difference
    of two large logarithms stays an upper bound. The caller passes ``log_l`` rounded in the
    direction that increases the ratio.
    """
    if log_l == math.inf:
        first, second = math.log(a), math.log(b)
    elif log_l >= 0.0:
        shrink = math.exp(-log_l)
        first, second = math.log(a + a_rest * shrink), math.log(b + b_rest * shrink)
    else:
        grow = math.exp(log_l)  # 0.0 at -inf
        first, second = math.log(a * grow + a_rest), math.log(b * grow + b_rest)
    return first - second + 16 * UNIT * (4.0 + abs(first) + abs(second))


def log_odds_upper(p: float, q: float, times: int = 1) -> float:
    """An upper bound on ``times * log(p / q)`` for ``p >= q >= 0`` (``inf`` when
    ``q = 0 < p``)."""
    if not p >= q >= 0.0:
        raise ValueError(f"log_odds_upper needs p >= q >= 0, got p={p!r}, q={q!r}")
    return round_up(times * log_ratio_of_products([p], [q]))


def law_pair(law: ExactLaw) -> tuple[float, float]:
    first, second = law.probabilities()
    return first, second


# ----------------------------------------------------------------------------- the protocol
class MemoizedMechanism(abc.ABC):
    """The longitudinal protocol: rounds with a per-client memo, and the accounting of
    repeated reports (a mixin of :class:`LGRR`, :class:`~ldp.mechanisms.LOSUE`,
    :class:`~ldp.mechanisms.LOUE`, :class:`~ldp.mechanisms.RAPPOR` and
    :class:`~ldp.mechanisms.DBitFlipPM`).

    These mechanisms answer to the common :class:`~ldp.core.Mechanism` protocol as
    their first round: :meth:`privatize`, ``epsilon``, ``privacy_channel`` and
    ``to_channel`` describe one report of a fresh client, so the registry's protocol tests,
    protocol files and decoders apply unchanged. The state between rounds is the client's
    :class:`~ldp.mechanisms.longitudinal.memo.Memo`, passed to and returned by
    :meth:`privatize_round`.
    ``ldp.accounting.compose(mechanism, T)`` accounts ``T`` *independent* fresh reports (what
    ``T`` calls of :meth:`privatize` produce), not memoized rounds: for those use
    :meth:`epsilon_repeated`, :meth:`epsilon_rounds` and :meth:`epsilon_any_history`.

    Parameters
    ----------
    *args, **kwargs
        Those of the concrete mechanism (this class is a mixin, never built on its own).

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import LGRR, MemoizedMechanism
    >>> mech = LGRR(1024, 0.2, 4.0)
    >>> isinstance(mech, MemoizedMechanism)
    True
    >>> round(mech.epsilon_repeated(5), 4)   # not min(4, 5 * 0.2) = 1.0
    3.8051
    """

    __slots__ = ()

    # hooks ---------------------------------------------------------------
    @property
    @abc.abstractmethod
    def _response_width(self) -> int:
        """Integers in one memoized permanent response."""

    @abc.abstractmethod
    def _response_ok(self, response: tuple[int, ...]) -> bool:
        """Whether ``response`` could have been drawn by this mechanism."""

    @abc.abstractmethod
    def _draw_permanent(self, x: np.ndarray, keys: np.ndarray, gen: object) -> np.ndarray:
        """Fresh permanent responses ``(m, width)`` for values ``x`` (memo keys ``keys``)."""

    @abc.abstractmethod
    def _instant(self, permanent: np.ndarray, memos: Sequence[Memo], gen: object) -> np.ndarray:
        """The reports of one round from the memoized responses."""

    def _prepare(self, memos: list[Memo], gen: object) -> list[Memo]:
        """Per-client state drawn once (dBitFlipPM: the sampled buckets)."""
        return memos

    def _memo_keys(self, x: np.ndarray, memos: Sequence[Memo]) -> np.ndarray:
        """The memo key of each client's value (the value itself by default)."""
        return x

    # rounds --------------------------------------------------------------
    def _check_memos(self, memos: object, n: int) -> list[Memo]:
        key = self.key  # type: ignore[attr-defined]
        if memos is None:
            return [Memo(key)] * n
        if isinstance(memos, Memo):
            memos = (memos,)
        if isinstance(memos, (str, bytes)) or not isinstance(memos, Sequence):
            raise TypeError(
                f"memos must be None or a sequence of Memo (one per client), got "
                f"{type(memos).__name__}"
            )
        if len(memos) != n:
            raise ValueError(f"memos must hold one Memo per value: {len(memos)} for {n} values")
        out = list(memos)
        for i, memo in enumerate(out):
            if not isinstance(memo, Memo):
                raise TypeError(f"memos[{i}] must be a Memo, got {type(memo).__name__}")
            if memo.mechanism != key:
                raise ValueError(f"memos[{i}] was written by {memo.mechanism}, not by {key}")
        return out

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        """One report per value from fresh clients (the first round; memos dropped).

        Its law is the one-report channel (level ``epsilon``). To report again, keep the
        memos: :meth:`privatize_round`.
        """
        return self.privatize_round(values, None, rng)[0]

    def privatize_round(
        self, values: ArrayLike, memos: Sequence[Memo] | Memo | None = None, rng: object = None
    ) -> tuple[np.ndarray, tuple[Memo, ...]]:
        """One round of reports for ``n`` clients, and their new memos.

        Parameters
        ----------
        values : array_like of int, shape (n,)
            Each client's current value.
        memos : sequence of Memo, optional
            Each client's memo from its previous round (``None``: new clients). A memo is
            kept on the device and never sent.
        rng : None, int, Generator or "os"
            ``"os"`` on devices; seeds for simulation only.

        Returns
        -------
        reports : ndarray
            One report per client (the ``codec``'s native form).
        memos : tuple of Memo
            The clients' memos after this round (a value seen for the first time now has its
            permanent response memoized).

        Notes
        -----
        Randomness is read in this order: state drawn once per client (dBitFlipPM's
        buckets), then the permanent responses of the clients whose value has none yet (in
        client order), then the instantaneous responses of every client.
        """
        x = check_categories(values, self.k)  # type: ignore[attr-defined]
        current = self._check_memos(memos, x.size)
        gen = check_random_state(rng)
        current = self._prepare(current, gen)
        keys = self._memo_keys(x, current)
        permanent = np.zeros((x.size, self._response_width), dtype=np.int64)
        missing = []
        for i, (memo, key) in enumerate(zip(current, keys.tolist(), strict=True)):
            stored = memo.get(key)
            if stored is None:
                missing.append(i)
            elif not self._response_ok(stored):
                raise ValueError(f"memos[{i}] holds a response this mechanism cannot draw")
            else:
                permanent[i] = stored
        if missing:
            rows = np.array(missing, dtype=np.int64)
            permanent[rows] = self._draw_permanent(x[rows], keys[rows], gen)
            for i in missing:
                current[i] = current[i].with_entry(int(keys[i]), tuple(permanent[i].tolist()))
        return self._instant(permanent, current, gen), tuple(current)

    def privatize_history(
        self, values: ArrayLike, rng: object = None, *, return_memos: bool = False
    ) -> np.ndarray | tuple[np.ndarray, tuple[Memo, ...]]:
        """``T`` rounds of ``n`` fresh clients at once (vectorised over clients and rounds).

        The reports have the law of ``T`` successive calls of :meth:`privatize_round`
        starting from new clients: one permanent response per distinct (client, memo key),
        drawn when the client first holds it, and fresh instantaneous noise in every report.
        The work is a handful of array operations instead of a loop over clients per round;
        randomness is read in another order than by the successive calls (per-client state
        for every client, then the permanent responses in order of first use, round by round
        and client by client, then every instantaneous response, round by round), so the
        same seed gives other reports with the same law.

        Parameters
        ----------
        values : array_like of int, shape (n, T)
            Row ``i`` is client ``i``'s value in each of the ``T`` rounds.
        rng : None, int, Generator or "os"
            Seeds for simulation only.
        return_memos : bool, default False
            Also return the clients' memos after the last round (to continue with
            :meth:`privatize_round`).

        Returns
        -------
        reports : ndarray, shape (n, T, ...)
            ``reports[:, t]`` are the reports of round ``t`` (the codec's native form).
        memos : tuple of Memo
            Only with ``return_memos=True``.

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.mechanisms import LGRR
        >>> mech = LGRR(4, 1.0, 2.0)
        >>> history = np.tile([0, 0, 3, 0], (1000, 1))   # 1000 clients, 4 days
        >>> reports, memos = mech.privatize_history(history, rng=1, return_memos=True)
        >>> reports.shape, len(memos[0].entries)   # two distinct values memoized
        ((1000, 4), 2)
        """
        arr = np.asarray(values)
        if arr.ndim != 2 or arr.shape[1] < 1:
            raise ValueError(
                f"values must be 2-D (clients x rounds, at least one round), got shape {arr.shape}"
            )
        n, t = arr.shape
        x = check_categories(arr.T.ravel(), self.k)  # type: ignore[attr-defined]
        gen = check_random_state(rng)
        memos = self._prepare([Memo(self.key)] * n, gen)  # type: ignore[attr-defined]
        keys = np.concatenate([self._memo_keys(x[r * n : (r + 1) * n], memos) for r in range(t)])
        clients = np.tile(np.arange(n, dtype=np.int64), t)  # round-major, like x and keys
        pairs = np.stack([clients, keys.astype(np.int64)], axis=1)
        _, first, inverse = np.unique(pairs, axis=0, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")  # draw in order of first use
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        drawn = self._draw_permanent(x[first[order]], keys[first[order]], gen)
        permanent = np.asarray(drawn)[rank[np.asarray(inverse).ravel()]]
        reports = self._instant(permanent, memos * t, gen)
        reports = np.asarray(reports).reshape(t, n, *np.shape(reports)[1:]).swapaxes(0, 1)
        if not return_memos:
            return reports
        out = list(memos)
        for j in order.tolist():
            i, key = int(clients[first[j]]), int(keys[first[j]])
            out[i] = out[i].with_entry(key, tuple(np.asarray(drawn)[rank[j]].tolist()))
        return reports, tuple(out)

    # privacy over rounds -------------------------------------------------
    @property
    @abc.abstractmethod
    def epsilon_permanent(self) -> float:
        """The LDP level of the permanent round (``eps_inf``), as sampled: the level asked for
        when the round realises at most it (exactly), else its level rounded up."""

    @property
    @abc.abstractmethod
    def epsilon_instant(self) -> float:
        """The LDP level of the instantaneous round as a channel from *any* memoized
        response (``eps_RR2``), as sampled, rounded up."""

    @abc.abstractmethod
    def _epsilon_repeated(self, t: int) -> float:
        """Exact ``eps_t`` (before rounding)."""

    @property
    def _max_groups(self) -> int:
        """The largest number of distinct memo entries one client can use."""
        return self.k  # type: ignore[attr-defined]

    def epsilon_repeated(self, rounds: int) -> float:
        """The exact privacy loss of ``rounds`` reports of an unchanged value (rounded up).

        The maximum over two values ``x, x'`` and all report sequences of the log-ratio of
        their probabilities, in closed form (see the module notes); at most
        :attr:`epsilon_permanent`, whatever ``rounds``.
        """
        t = check_integer(rounds, "rounds", low=1)
        return min(round_up_margin(self._epsilon_repeated(t)), self.epsilon_permanent)

    def epsilon_rounds(self, rounds: int, changes: int = 0) -> float:
        """An upper bound on the privacy loss of ``rounds`` reports whose value changes at
        most ``changes`` times.

        Memos are independent across distinct values, so a history that visits distinct
        values ``v_1 .. v_m`` in ``T_1 .. T_m`` reports leaks at most
        ``sum_j epsilon_repeated(T_j)``; the bound is the largest such sum over
        ``m <= min(changes + 1, rounds, k)`` and ``T_1 + ... + T_m = rounds`` (found
        exactly by a partition search; when that search would cost more than
        ``MAX_PARTITION_WORK``, the coarser ``m * epsilon_permanent`` is used), capped by
        :meth:`epsilon_any_history`. It compares two histories that change value at the same
        rounds (the same pattern of equal values); for any two histories use
        :meth:`epsilon_any_history`. ``changes = 0`` gives :meth:`epsilon_repeated`.
        """
        t = check_integer(rounds, "rounds", low=1)
        c = check_integer(changes, "changes", low=0)
        groups = min(c + 1, t, self._max_groups)
        cap = self.epsilon_any_history(t)
        if groups == 1:
            return min(self.epsilon_repeated(t), cap)
        if groups * t * t > MAX_PARTITION_WORK:
            return min(round_up(groups * self.epsilon_permanent, 2), cap)
        single = np.array([-np.inf] + [self.epsilon_repeated(s) for s in range(1, t + 1)])
        best = single.copy()  # best[s]: largest sum over partitions of s into <= g parts
        overall = best[t]
        lengths = np.arange(t + 1)
        for _ in range(2, groups + 1):
            # new[s] = max_{1 <= u < s} best[s - u] + single[u]
            shift = lengths[:, None] - lengths[None, :]  # s - r
            valid = (shift >= 1) & (lengths[None, :] >= 1)
            table = np.where(valid, best[None, :] + single[np.clip(shift, 0, t)], -np.inf)
            best = np.maximum(best, table.max(axis=1))
            overall = max(overall, float(best[t]))
        return min(round_up(float(overall), 2 * groups), cap)

    def epsilon_any_history(self, rounds: int) -> float:
        """An upper bound on the privacy loss of ``rounds`` reports for *any* two histories
        of values: ``rounds * epsilon_instant`` (each report's probability varies by at most
        ``e^epsilon_instant`` over the memoized responses it may come from)."""
        t = check_integer(rounds, "rounds", low=1)
        if t == 1:
            return self.epsilon  # type: ignore[attr-defined]
        return round_up(t * self.epsilon_instant, 2)

    def repeated_channel(self, rounds: int) -> Channel:
        """A 2-row :class:`~ldp.Channel` with the exact privacy profile of ``rounds``
        reports of an unchanged value (the worst pair of values, reduced to a sufficient
        statistic of the reports): its ``delta(eps)``, ``tv`` and trade-off curve are those
        of the ``rounds``-report law, and its ``epsilon`` is :meth:`epsilon_repeated` up to
        rounding.
        """
        t = check_integer(rounds, "rounds", low=1)
        return self._repeated_channel(t)

    @abc.abstractmethod
    def _repeated_channel(self, t: int) -> Channel:
        """See :meth:`repeated_channel`."""


#: Largest number of report-count vectors ``repeated_channel`` of L-GRR enumerates.
MAX_COUNT_VECTORS = 200_000


# ----------------------------------------------------------------------------- L-GRR
def lambda_ratio_gap(k: int, epsilon: float, epsilon_permanent: float) -> float:
    """``1 - lambda(eps) / lambda(eps_inf)`` for the eigenvalues ``lambda`` of k-ary
    randomized response (``tanh(eps/2)`` at ``k = 2``), with ``eps < eps_inf``.

    It is ``k (e^eps_inf - e^eps) / ((e^eps + k - 1)(e^eps_inf - 1))``, evaluated as
    ``k e^-eps expm1(eps - eps_inf) / ((1 + (k - 1) e^-eps) expm1(-eps_inf))``: accurate at
    every level (``1 - lambda`` of the quotient rounds to 0 above ``eps ~ 37``, and an
    ``expm1`` of ``eps_inf - eps`` carries the rounding of that difference into the result,
    ``1e-14`` at ``eps_inf - eps = 200``).
    """
    tail = math.exp(-epsilon)
    gap = math.expm1(epsilon - epsilon_permanent) / math.expm1(-epsilon_permanent)
    return k * tail * gap / (1.0 + (k - 1) * tail)


class LGRR(MemoizedMechanism, FrequencyOracle):
    """Longitudinal GRR (Arcolezi et al. (2022)): GRR memoized, then GRR on the memo.

    The permanent round is GRR at ``epsilon_permanent``; the instantaneous round is GRR on
    the memoized value with keep probability ``p2`` and ``q2 = (1 - p2)/(k - 1)``, chosen
    so that one report is exactly ``epsilon``-LDP: symmetric k-ary channels compose by
    multiplying their eigenvalues ``lambda(eps) = (e^eps - 1)/(e^eps + k - 1)``, so
    ``lambda2 = lambda(epsilon) / lambda(epsilon_permanent)``, ``q2 = (1 - lambda2)/k``,
    ``p2 = q2 + lambda2``.

    **As sampled.** The permanent odds ``e^eps_inf`` are the largest double at most
    ``e^eps_inf``, and the instantaneous keep weight is moved down from its formula to the
    first double at which one report (the two rounds as one k-RR, ``P(same) = p1 p2 +
    (1 - p1)(1 - p2)/(k - 1)``) has a likelihood ratio at most ``e^epsilon`` exactly:
    :attr:`epsilon` and :attr:`epsilon_permanent` are the levels asked for.

    The paper's eqs. (12)/(13) solve ``(p1 p2 + q1 q2)/(p1 q2 + q1 p2) = e^eps``, which is
    the one-report ratio only for ``k = 2``; for ``k > 2`` their one report is *less* than
    ``epsilon``-LDP (``k = 10``, ``eps_inf = 2``, ``eps_1 = 1``: 0.6994), i.e. more noise
    than asked for. The form above is exact for every ``k``.

    Parameters
    ----------
    k : int
        Number of categories, ``k >= 2``.
    epsilon : float
        Level of one report (``eps_1``), ``0 < epsilon < epsilon_permanent``.
    epsilon_permanent : float
        Level of the permanent round (``eps_inf``): the loss of any number of reports of an
        unchanged value stays below it.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import LGRR
    >>> lgrr = LGRR(10, 1.0, 2.0)
    >>> round(lgrr.instant_probabilities[0], 6)
    0.438525
    >>> [round(lgrr.epsilon_repeated(t), 4) for t in (1, 2, 3, 5, 10)]
    [1.0, 1.7532, 1.9601, 1.9992, 2.0]
    >>> reports, memos = lgrr.privatize_round(np.array([3, 3, 7]), rng=0)
    >>> again, memos = lgrr.privatize_round(np.array([3, 3, 7]), memos, rng=1)
    >>> len(memos), memos[0].get(3) is not None
    (3, True)
    """

    name = "l-grr"

    def __init__(self, k: int, epsilon: float, epsilon_permanent: float) -> None:
        super().__init__(k, epsilon)
        self._eps_perm = check_mechanism_epsilon(epsilon_permanent)
        if not self._eps_budget < self._eps_perm:
            raise ValueError(
                f"epsilon must be < epsilon_permanent, got epsilon={self._eps_budget!r}, "
                f"epsilon_permanent={self._eps_perm!r}"
            )
        k = self._k
        self._perm = ExactLaw([exp_down(self._eps_perm), float(k - 1)])  # keep : change
        change = (k - 1) * lambda_ratio_gap(k, self._eps_budget, self._eps_perm)  # 1 - lambda2
        keep = nearest_within(
            lambda w: within_exp(self._one_report_ratio(w, change), self._eps_budget),
            k - change,  # 1 + (k - 1) lambda2
            0.0,
        )
        self._inst = ExactLaw([keep, change])
        keep1, change1 = law_pair(self._perm)
        keep2, change2 = law_pair(self._inst)
        self._p1, self._q1, self._rest1 = keep1, change1 / (k - 1), change1
        self._p2, self._q2, self._rest2 = keep2, change2 / (k - 1), change2
        # one report: P(report v | x = v) and P(report v | x != v)
        self._ps = keep1 * keep2 + change1 * self._q2
        self._qs = self._q1 * keep2 + (1.0 - self._q1) * self._q2

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget, "epsilon_permanent": self._eps_perm}

    @property
    def p(self) -> float:
        """``P(report = v | x = v)`` of one report."""
        return self._ps

    @property
    def q(self) -> float:
        """``P(report = v | x != v)`` of one report."""
        return self._qs

    @property
    def permanent_probabilities(self) -> tuple[float, float]:
        """``(p1, q1)`` of the permanent round, as sampled."""
        return self._p1, self._q1

    @property
    def instant_probabilities(self) -> tuple[float, float]:
        """``(p2, q2)`` of the instantaneous round, as sampled."""
        return self._p2, self._q2

    def _one_report_ratio(self, keep: float, change: float) -> Fraction:
        """The likelihood ratio of one report with instantaneous weights ``keep : change``,
        exactly: the two rounds make one k-RR with ``P(same) = p1 p2 + (1 - p1)(1 - p2) /
        (k - 1)``, whose ratio is ``P(same) (k - 1) / (1 - P(same))``."""
        k = self._k
        p1 = probabilities(self._perm.weights)[0]
        p2 = probabilities([keep, change])[0]
        same = p1 * p2 + (1 - p1) * (1 - p2) / (k - 1)
        return same * (k - 1) / (1 - same)

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._one_report_ratio(*self._inst.weights), self._eps_budget)

    @property
    def epsilon_permanent(self) -> float:
        keep, change = self._perm.weights  # a k-RR: the ratio is keep (k - 1) / change
        return certified_epsilon(Fraction(keep) * (self._k - 1) / Fraction(change), self._eps_perm)

    @property
    def epsilon_instant(self) -> float:
        keep, change = self._inst.weights
        return log_up(Fraction(keep) * (self._k - 1) / Fraction(change))

    def _epsilon_repeated(self, t: int) -> float:
        # the ratio increases with L = (p2/q2)^t: an upper bound of log L gives one of eps_t
        log_l = log_odds_upper(self._p2, self._q2, t)
        return log_mix_ratio(self._p1, self._rest1, self._q1, 1.0 - self._q1, log_l)

    @property
    def report_bits(self) -> float:
        return math.log2(self._k)

    @property
    def codec(self) -> ReportCodec:
        return index_codec(self._k, np.dtype(index_dtype(self._k)).name)

    def sampler(self) -> dict[str, object]:
        """``permanent`` and ``instant``: the keep : change weights of each round."""
        return {"permanent": list(self._perm.weights), "instant": list(self._inst.weights)}

    @property
    def _response_width(self) -> int:
        return 1

    def _response_ok(self, response: tuple[int, ...]) -> bool:
        return len(response) == 1 and 0 <= response[0] < self._k

    def _grr(self, law: ExactLaw, x: np.ndarray, gen: object) -> np.ndarray:
        change = choose(gen, [law], np.zeros(x.size, dtype=np.int64)) == 1
        out = x.copy()
        other = randint(gen, self._k - 1, int(change.sum()))
        out[change] = other + (other >= x[change])
        return out

    def _draw_permanent(self, x: np.ndarray, keys: np.ndarray, gen: object) -> np.ndarray:
        return self._grr(self._perm, x, gen)[:, None]

    def _instant(self, permanent: np.ndarray, memos: Sequence[Memo], gen: object) -> np.ndarray:
        return self._grr(self._inst, permanent[:, 0], gen).astype(index_dtype(self._k))

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        return np.bincount(reports, minlength=self._k).astype(np.int64), reports.size

    def variance(self, n: int, f: ArrayLike | None = None, convention: str = "fixed"):
        """Exact variance of :meth:`estimate` in one round (see
        :meth:`FrequencyOracle.variance <ldp.mechanisms.FrequencyOracle.variance>`).

        With ``p, q`` the one-report probabilities, ``iid`` is ``g(1 - g)/(n (p - q)^2)``
        with ``g = q + f (p - q)``, the probability that a report supports ``v`` (the
        quantity in the proof of Theorem 1 of Arcolezi et al. (2022)). The paper prints
        eq. (10) as ``g = f(2 p1 p2 - 2 p1 q2 + 2 q2 - 1) + p2 q1 + q2 (1 - q1)``, which
        agrees only for symmetric rounds or ``f = 0`` and can be negative (L-GRR with
        the eq. (13) parameters, ``k = 10``, ``eps_inf = 2``, ``eps_1 = 1``, ``f = 0.3``:
        -0.0995, where the probability is 0.1184); it is not used here.
        """
        return super().variance(n, f, convention)

    def _pair_support(self) -> tuple[float, float]:
        """A report is one value: it never supports two."""
        return 0.0, 0.0

    def pair_moments(self, f: np.ndarray) -> tuple[float, float, np.ndarray | float, bool]:
        """A report is one value: ``(0, 0, 0, True)``."""
        return 0.0, 0.0, 0.0, True

    def to_channel(self) -> Channel:
        """The ``k x k`` one-report channel (``p`` on the diagonal, ``q`` off it)."""
        if self._k * self._k > MAX_CHANNEL_ENTRIES:
            raise ValueError(f"{self.name}.to_channel: k = {compact(self._k)} is too large")
        matrix = np.full((self._k, self._k), self._qs)
        np.fill_diagonal(matrix, self._ps)
        return Channel(matrix)

    def _repeated_channel(self, t: int) -> Channel:
        """Outputs: the counts ``m_b`` of each value among the ``t`` reports (the
        likelihood under ``x`` is ``q2^t (p1 r^{m_x} + q1 sum_{b != x} r^{m_b})`` with
        ``r = p2/q2``, times the multinomial coefficient); at most ``MAX_COUNT_VECTORS``
        count vectors."""
        k = self._k
        size = math.comb(t + k - 1, k - 1)
        if size > MAX_COUNT_VECTORS:
            raise ValueError(
                f"{self.name}.repeated_channel: {compact(size)} count vectors for k = {k}, "
                f"rounds = {t}; the limit is MAX_COUNT_VECTORS = {compact(MAX_COUNT_VECTORS)}"
            )
        # stars and bars: every count vector (m_0 .. m_{k-1}) summing to t
        bars = np.array(list(itertools.combinations(range(t + k - 1), k - 1)), dtype=np.int64)
        bars = bars.reshape(-1, k - 1)
        edges = np.column_stack([np.full(len(bars), -1), bars, np.full(len(bars), t + k - 1)])
        counts = np.diff(edges, axis=1) - 1  # (size, k)
        log_coef = gammaln(t + 1) - gammaln(counts + 1).sum(axis=1)
        log_r = math.log(self._p2) - math.log(self._q2)
        powers = np.exp((counts - counts.max(axis=1, keepdims=True)) * log_r)  # scaled r^m
        total = powers.sum(axis=1)
        scale = counts.max(axis=1) * log_r + t * math.log(self._q2) + log_coef
        rows = []
        for x in (0, 1):  # the worst pair: values 0 and 1 (all pairs are alike)
            mix = (self._p1 - self._q1) * powers[:, x] + self._q1 * total
            rows.append(np.exp(np.log(mix) + scale))
        matrix = np.array(rows)
        return Channel(matrix / matrix.sum(axis=1, keepdims=True))

    def privacy_channel(self) -> Channel:
        """One report: outputs ``x``, ``x'`` and anything else."""
        rest = 1.0 - self._ps - self._qs
        return pair_channel([self._ps, self._qs, rest], [self._qs, self._ps, rest])

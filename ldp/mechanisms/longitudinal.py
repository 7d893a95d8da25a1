"""Longitudinal collection with memoization: RAPPOR, L-GRR, L-OSUE, L-OUE and dBitFlipPM.

A client that reports the same question every day must not draw fresh noise each day (the
noise would average out). These mechanisms answer in two rounds:

1. a **permanent** randomized response of the value, drawn the first time the client holds
   that value and *memoized* (kept in the client's :class:`~ldp.mechanisms.memo.Memo`, never
   sent);
2. an **instantaneous** randomized response of the memoized answer, drawn afresh for every
   report.

``privatize_round(values, memos, rng)`` is one round for ``n`` clients: it returns the
reports and the clients' new memos. ``privatize(values, rng)`` is the first round of fresh
clients (the memos are dropped): its law is the one-report channel, whose level is
:attr:`epsilon` (``epsilon_1`` of the papers). Server-side decoding is the same in every
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

import numpy as np
from numpy.typing import ArrayLike

from ldp._mechanism import Field, ReportCodec, index_codec
from ldp._rounding import UNIT, log_products_upper, round_up
from ldp._sampling import ExactLaw, choose, randint
from ldp._validation import (
    as_real_array,
    check_integer,
    check_random_state,
    check_scalar,
    compact,
    scalar_or_array,
)
from ldp.channel import Channel
from ldp.mechanisms.base import (
    MAX_CATEGORIES,
    MAX_VECTOR_CATEGORIES,
    FrequencyMechanism,
    FrequencyOracle,
    SupportCounts,
    check_categories,
    check_convention,
    check_mechanism_epsilon,
    check_n,
    check_size,
    chunk_rows,
    index_dtype,
)
from ldp.mechanisms.frequency import packed_bit, packed_codec
from ldp.mechanisms.memo import Memo

__all__ = ["LGRR", "LOSUE", "LOUE", "RAPPOR", "DBitFlipPM", "Memo"]

#: Largest ``groups * rounds^2`` of the exact partition search in ``epsilon_rounds``; beyond
#: it the coarser (still valid) ``min(groups * eps_inf, rounds * eps_instant)`` is returned.
MAX_PARTITION_WORK = 50_000_000

#: Largest matrix ``to_channel`` builds (entries).
MAX_CHANNEL_ENTRIES = 1 << 22

# relative margin that covers the double rounding of the few operations of an accounting
# formula (each is a handful of products and one or two logarithms)
_MARGIN = 64 * UNIT


def _up(value: float) -> float:
    """``value`` rounded up by a relative margin covering its double rounding."""
    if math.isinf(value):
        return value
    return round_up(max(0.0, value) * (1.0 + _MARGIN) + 4 * math.ulp(value), 2)


def _log_ratio_of_products(numerators: list[float], denominators: list[float]) -> float:
    """An upper bound on ``log(prod(numerators) / prod(denominators))`` for probabilities
    that were themselves computed with a few roundings (each widened by 16 units)."""
    if any(d == 0.0 for d in denominators):
        return math.inf
    widen = 16 * UNIT
    return log_products_upper(
        [v * (1.0 + widen) for v in numerators], [v * (1.0 - widen) for v in denominators]
    )


def _log_mix_ratio(a: float, a_rest: float, b: float, b_rest: float, log_l: float) -> float:
    """``log((a L + a_rest) / (b L + b_rest))`` with ``L = e^log_l`` (``log_l`` may be
    ``+-inf``), without overflow."""
    if log_l == math.inf:
        return math.log(a) - math.log(b)
    if log_l >= 0.0:
        shrink = math.exp(-log_l)
        return math.log(a + a_rest * shrink) - math.log(b + b_rest * shrink)
    grow = math.exp(log_l)  # 0.0 at -inf
    return math.log(a * grow + a_rest) - math.log(b * grow + b_rest)


def _probabilities(law: ExactLaw) -> tuple[float, float]:
    first, second = law.probabilities()
    return first, second


def _pair(first: list[float], second: list[float]) -> Channel:
    """A 2-row channel of the worst input pair (zero columns dropped)."""
    matrix = np.array([first, second], dtype=np.float64)
    return Channel(matrix[:, matrix.sum(axis=0) > 0])


# ----------------------------------------------------------------------------- the protocol
class _Memoized(abc.ABC):
    """Rounds with a per-client memo, and the accounting of repeated reports (mixin)."""

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

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        """One report per value from fresh clients (the first round; memos dropped).

        Its law is the one-report channel (level :attr:`epsilon`). To report again, keep the
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
            One report per client (the :attr:`codec`'s native form).
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

    # privacy over rounds -------------------------------------------------
    @property
    @abc.abstractmethod
    def epsilon_permanent(self) -> float:
        """The LDP level of the permanent round (``eps_inf``), as sampled, rounded up."""

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
        return min(_up(self._epsilon_repeated(t)), self.epsilon_permanent)

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


# ----------------------------------------------------------------------------- L-GRR
def _grr_lambda(epsilon: float, k: int) -> float:
    """The eigenvalue ``(e^eps - 1) / (e^eps + k - 1)`` of k-ary randomized response."""
    return -math.expm1(-epsilon) / (1.0 + (k - 1) * math.exp(-epsilon))


class LGRR(_Memoized, FrequencyOracle):
    """Longitudinal GRR (Arcolezi et al. (2022)): GRR memoized, then GRR on the memo.

    The permanent round is GRR at ``epsilon_permanent``; the instantaneous round is GRR on
    the memoized value with keep probability ``p2`` and ``q2 = (1 - p2)/(k - 1)``, chosen
    so that one report is exactly ``epsilon``-LDP: symmetric k-ary channels compose by
    multiplying their eigenvalues ``lambda(eps) = (e^eps - 1)/(e^eps + k - 1)``, so
    ``lambda2 = lambda(epsilon) / lambda(epsilon_permanent)``, ``q2 = (1 - lambda2)/k``,
    ``p2 = q2 + lambda2``.

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
        self._perm = ExactLaw([math.exp(self._eps_perm), float(k - 1)])  # keep : change
        lam = _grr_lambda(self._eps_budget, k) / _grr_lambda(self._eps_perm, k)
        self._inst = ExactLaw([1.0 + (k - 1) * lam, (k - 1) * (1.0 - lam)])
        keep1, change1 = _probabilities(self._perm)
        keep2, change2 = _probabilities(self._inst)
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

    @property
    def epsilon(self) -> float:
        return _log_ratio_of_products([self._ps], [self._qs])

    @property
    def epsilon_permanent(self) -> float:
        return _log_ratio_of_products([self._p1], [self._q1])

    @property
    def epsilon_instant(self) -> float:
        return _log_ratio_of_products([self._p2], [self._q2])

    def _epsilon_repeated(self, t: int) -> float:
        log_r = math.log(self._p2) - math.log(self._q2) if self._q2 > 0 else math.inf
        return _log_mix_ratio(self._p1, self._rest1, self._q1, 1.0 - self._q1, t * log_r)

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
        agrees only for symmetric rounds or ``f = 0`` and can be negative (L-GRR,
        ``k = 10``, ``f = 0.3``: -0.0995); it is not used here.
        """
        return super().variance(n, f, convention)

    def to_channel(self) -> Channel:
        """The ``k x k`` one-report channel (``p`` on the diagonal, ``q`` off it)."""
        if self._k * self._k > MAX_CHANNEL_ENTRIES:
            raise ValueError(f"{self.name}.to_channel: k = {compact(self._k)} is too large")
        matrix = np.full((self._k, self._k), self._qs)
        np.fill_diagonal(matrix, self._ps)
        return Channel(matrix)

    def privacy_channel(self) -> Channel:
        """One report: outputs ``x``, ``x'`` and anything else."""
        rest = 1.0 - self._ps - self._qs
        return _pair([self._ps, self._qs, rest], [self._qs, self._ps, rest])


# ----------------------------------------------------------------------------- unary rounds
def _bit_counts(packed: np.ndarray, k: int) -> np.ndarray:
    total = np.zeros(k, dtype=np.int64)
    for rows in chunk_rows(packed.shape[0], 8 * packed.shape[1]):
        total += np.unpackbits(packed[rows], axis=1, count=k).sum(axis=0, dtype=np.int64)
    return total


class _MemoizedUnary(_Memoized, FrequencyOracle):
    """A unary-encoded value, each bit memoized (permanent) then flipped again each round.

    Subclasses call :meth:`_set_rounds` with the weights ``1 : 0`` of: the permanent bit of
    the value, every other permanent bit, an instantaneous bit whose memoized bit is 1, and
    one whose memoized bit is 0.
    """

    def _set_rounds(
        self,
        own: tuple[float, float],
        other: tuple[float, float],
        one: tuple[float, float],
        zero: tuple[float, float],
    ) -> None:
        _check_vector(self._k, type(self).__name__)
        self._own, self._other = ExactLaw(own), ExactLaw(other)
        self._one, self._zero = ExactLaw(one), ExactLaw(zero)
        self._p1, self._p1c = _probabilities(self._own)
        self._q1, self._q1c = _probabilities(self._other)
        self._p2, self._p2c = _probabilities(self._one)
        self._q2, self._q2c = _probabilities(self._zero)
        p1, p1c, q1, q1c = self._p1, self._p1c, self._q1, self._q1c
        p2, p2c, q2, q2c = self._p2, self._p2c, self._q2, self._q2c
        if not (q1 < p1 and q2 < p2):
            raise ValueError(f"{type(self).__name__}: both rounds must favour the true bit (q < p)")
        self._ps, self._psc = p1 * p2 + p1c * q2, p1 * p2c + p1c * q2c
        self._qs, self._qsc = q1 * p2 + q1c * q2, q1 * p2c + q1c * q2c

    @property
    def p(self) -> float:
        """``P(bit v = 1 | x = v)`` of one report."""
        return self._ps

    @property
    def q(self) -> float:
        """``P(bit v = 1 | x != v)`` of one report."""
        return self._qs

    @property
    def permanent_probabilities(self) -> tuple[float, float]:
        """``(p1, q1)``: a permanent bit is 1 with ``p1`` (the value's) or ``q1`` (another)."""
        return self._p1, self._q1

    @property
    def instant_probabilities(self) -> tuple[float, float]:
        """``(p2, q2)``: a reported bit is 1 with ``p2`` if its memoized bit is 1, else
        ``q2``."""
        return self._p2, self._q2

    @property
    def epsilon(self) -> float:
        # two inputs differ in two bits: p (1 - q) / ((1 - p) q)
        return _log_ratio_of_products([self._ps, self._qsc], [self._psc, self._qs])

    @property
    def epsilon_permanent(self) -> float:
        return _log_ratio_of_products([self._p1, self._q1c], [self._p1c, self._q1])

    @property
    def epsilon_instant(self) -> float:
        """``k * max(log(p2/q2), log((1-q2)/(1-p2)))``: two memoized vectors may differ in
        every bit."""
        one = _log_ratio_of_products([self._p2], [self._q2])
        zero = _log_ratio_of_products([self._q2c], [self._p2c])
        return round_up(self._k * max(one, zero), 2)

    def _epsilon_repeated(self, t: int) -> float:
        log_one = math.log(self._p2) - math.log(self._q2) if self._q2 > 0 else math.inf
        log_zero = (math.log(self._p2c) if self._p2c > 0 else -math.inf) - math.log(self._q2c)
        first = _log_mix_ratio(self._p1, self._p1c, self._q1, self._q1c, t * log_one)
        second = _log_mix_ratio(self._q1, self._q1c, self._p1, self._p1c, t * log_zero)
        return first + second

    @property
    def report_bits(self) -> float:
        return float(self._k)

    @property
    def codec(self) -> ReportCodec:
        _check_vector(self._k, f"{type(self).__name__}.codec")
        return packed_codec(self._k, _pad_check(self._k))

    def sampler(self) -> dict[str, object]:
        """Weights ``1 : 0`` of the permanent bits (``own``: the value's, ``other``) and of
        the instantaneous bits (``one``: memoized bit 1, ``zero``: memoized bit 0)."""
        return {
            "own": list(self._own.weights),
            "other": list(self._other.weights),
            "one": list(self._one.weights),
            "zero": list(self._zero.weights),
        }

    @property
    def _response_width(self) -> int:
        return (self._k + 7) // 8

    def _response_ok(self, response: tuple[int, ...]) -> bool:
        if len(response) != self._response_width or not all(0 <= b <= 255 for b in response):
            return False
        pad = (1 << (8 - self._k % 8)) - 1 if self._k % 8 else 0
        return (response[-1] & pad) == 0

    def _draw_permanent(self, x: np.ndarray, keys: np.ndarray, gen: object) -> np.ndarray:
        out = np.empty((x.size, self._response_width), dtype=np.uint8)
        columns = np.arange(self._k)
        for rows in chunk_rows(x.size, self._k):
            own = (columns[None, :] == x[rows, None]).ravel().astype(np.int64)
            bits = choose(gen, [self._other, self._own], own) == 0
            out[rows] = np.packbits(bits.reshape(-1, self._k), axis=1)
        return out.astype(np.int64)

    def _instant(self, permanent: np.ndarray, memos: Sequence[Memo], gen: object) -> np.ndarray:
        packed = permanent.astype(np.uint8)
        out = np.empty_like(packed)
        for rows in chunk_rows(packed.shape[0], self._k):
            memo_bits = np.unpackbits(packed[rows], axis=1, count=self._k).ravel()
            bits = choose(gen, [self._zero, self._one], memo_bits.astype(np.int64)) == 0
            out[rows] = np.packbits(bits.reshape(-1, self._k), axis=1)
        return out

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        return _bit_counts(reports, self._k), reports.shape[0]

    def variance(self, n: int, f: ArrayLike | None = None, convention: str = "fixed"):
        """Exact variance of :meth:`estimate` in one round.

        The estimate is Arcolezi et al. (2022), eq. (9), i.e. ``(C_v/n - q)/(p - q)`` with
        the one-report ``p = p1 p2 + (1 - p1) q2`` and ``q = q1 p2 + (1 - q1) q2``; ``iid``
        is ``g(1 - g)/(n (p - q)^2)`` with ``g = q + f (p - q)``. (The paper's printed
        eq. (10) for ``g`` agrees with it only when both rounds are symmetric or ``f = 0``,
        and can be negative; it is not used.)
        """
        return super().variance(n, f, convention)

    def to_channel(self) -> Channel:
        """The ``k x 2^k`` one-report channel (output ``z``: bit ``v`` is bit ``k - 1 - v``
        of ``z``)."""
        if self._k > 16:
            raise ValueError(f"{self.name}.to_channel: 2^{self._k} outputs is too many")
        z = np.arange(2**self._k)
        bits = (z[None, :] >> (self._k - 1 - np.arange(self._k))[:, None]) & 1
        ones = bits.sum(axis=0)
        base = self._qs ** (ones - bits) * self._qsc ** (self._k - 1 - ones + bits)
        return Channel(base * np.where(bits == 1, self._ps, self._psc))

    def privacy_channel(self) -> Channel:
        """One report: the bits of ``x`` and ``x'`` (11, 10, 01, 00)."""
        p1, p0, q1, q0 = self._ps, self._psc, self._qs, self._qsc
        return _pair([p1 * q1, p1 * q0, p0 * q1, p0 * q0], [q1 * p1, q1 * p0, q0 * p1, q0 * p0])

    def audit_statistic(self, x0: object, x1: object):
        """``2 bit[x0] + bit[x1]``: sufficient for the pair."""
        a, b = int(x0), int(x1)  # type: ignore[call-overload]
        return lambda reports: 2 * packed_bit(reports, a) + packed_bit(reports, b)


def _check_vector(k: int, what: str) -> None:
    check_size(k, MAX_VECTOR_CATEGORIES, "MAX_VECTOR_CATEGORIES", what, f"a report of k = {k} bits")


def _pad_check(k: int):
    def check(reports: np.ndarray, where) -> None:
        if k % 8:
            pad = (1 << (8 - k % 8)) - 1
            bad = (reports[:, -1] & pad) != 0
            if np.any(bad):
                raise ValueError(
                    f"{where(int(np.argmax(bad)))}: the report has bits set beyond k = {k} "
                    "(not a report of this mechanism)"
                )

    return check


def _check_levels(epsilon: float, epsilon_permanent: float) -> tuple[float, float]:
    eps = check_mechanism_epsilon(epsilon)
    perm = check_mechanism_epsilon(epsilon_permanent)
    if not eps < perm:
        raise ValueError(
            f"epsilon must be < epsilon_permanent, got epsilon={eps!r}, epsilon_permanent={perm!r}"
        )
    return eps, perm


class LOSUE(_MemoizedUnary):
    """L-OSUE (Arcolezi et al. (2022)): OUE memoized, then SUE on the memoized bits.

    Permanent: OUE at ``epsilon_permanent`` (``p1 = 1/2``, ``q1 = 1/(e^eps_inf + 1)``).
    Instantaneous: symmetric flips ``p2 = (1 + tau)/2 = 1 - q2`` with
    ``tau = tanh(epsilon/2) / tanh(epsilon_permanent/2)``, which is the paper's eq. (15)
    and makes one report exactly ``epsilon``-LDP.

    Parameters
    ----------
    k : int
        Number of categories.
    epsilon : float
        Level of one report (``eps_1``).
    epsilon_permanent : float
        Level of the permanent round (``eps_inf``), ``> epsilon``.

    Examples
    --------
    >>> from ldp.mechanisms import LOSUE
    >>> losue = LOSUE(8, 1.0, 2.0)
    >>> [round(v, 6) for v in losue.instant_probabilities]
    [0.803388, 0.196612]
    >>> [round(losue.epsilon_repeated(t), 4) for t in (1, 2, 3, 5, 10)]
    [1.0, 1.6417, 1.8992, 1.9937, 2.0]
    """

    name = "l-osue"

    def __init__(self, k: int, epsilon: float, epsilon_permanent: float) -> None:
        FrequencyOracle.__init__(self, k, epsilon)
        self._eps_budget, self._eps_perm = _check_levels(epsilon, epsilon_permanent)
        tau = math.tanh(self._eps_budget / 2) / math.tanh(self._eps_perm / 2)
        self._set_rounds(
            (1.0, 1.0),
            (1.0, math.exp(self._eps_perm)),
            (1.0 + tau, 1.0 - tau),
            (1.0 - tau, 1.0 + tau),
        )

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget, "epsilon_permanent": self._eps_perm}


def _unary_epsilon(p1: float, q1: float, p2: float, q2: float) -> float:
    ps, qs = p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2
    return math.log(ps * (1 - qs) / ((1 - ps) * qs))


class LOUE(_MemoizedUnary):
    """L-OUE (Arcolezi et al. (2022)): OUE memoized, then OUE-style flips of the memo.

    Permanent: OUE at ``epsilon_permanent``. Instantaneous: a memoized 1 is kept with
    ``p2 = 1/2``; a memoized 0 becomes 1 with ``q2``, the root in ``(0, 1/2)`` that makes one
    report ``epsilon``-LDP (found by bisection on the decreasing map ``q2 -> eps_1``, keeping
    the side whose level is at most ``epsilon``). One report cannot reach every
    ``epsilon < epsilon_permanent`` (at ``q2 -> 0`` it is below ``epsilon_permanent``); a
    level beyond reach raises ``ValueError`` naming the largest.

    Parameters
    ----------
    k : int
        Number of categories.
    epsilon : float
        Level of one report (``eps_1``).
    epsilon_permanent : float
        Level of the permanent round (``eps_inf``).

    Examples
    --------
    >>> from ldp.mechanisms import LOUE
    >>> loue = LOUE(8, 1.0, 2.0)
    >>> round(loue.instant_probabilities[1], 6)
    0.080937
    >>> round(loue.epsilon, 9) <= 1.0
    True
    """

    name = "l-oue"

    def __init__(self, k: int, epsilon: float, epsilon_permanent: float) -> None:
        FrequencyOracle.__init__(self, k, epsilon)
        self._eps_budget, self._eps_perm = _check_levels(epsilon, epsilon_permanent)
        p1, q1 = 0.5, 1.0 / (math.exp(self._eps_perm) + 1.0)
        reach = _unary_epsilon(p1, q1, 0.5, 0.0)
        if not self._eps_budget < reach:
            raise ValueError(
                f"epsilon must be < {reach:.6g} for L-OUE with epsilon_permanent="
                f"{self._eps_perm!r} (one report cannot reach more), got {self._eps_budget!r}"
            )
        lo, hi = 0.0, 0.5  # eps_1(lo) > epsilon >= eps_1(hi)
        for _ in range(200):
            mid = (lo + hi) / 2
            if mid in (lo, hi):
                break
            if _unary_epsilon(p1, q1, 0.5, mid) > self._eps_budget:
                lo = mid
            else:
                hi = mid
        self._set_rounds((1.0, 1.0), (1.0, math.exp(self._eps_perm)), (1.0, 1.0), (hi, 1.0 - hi))

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget, "epsilon_permanent": self._eps_perm}


class RAPPOR(_MemoizedUnary):
    """Basic RAPPOR (Erlingsson-Pihur-Korolova (2014)): one-hot encoding, a permanent
    randomized response (PRR) memoized per value, an instantaneous one (IRR) per report.

    PRR: each bit of the one-hot vector ``B`` becomes ``B'_i = 1`` with probability
    ``f/2``, ``0`` with ``f/2``, and stays with ``1 - f``. IRR: each reported bit is 1 with
    probability ``q`` if ``B'_i = 1`` and ``p`` if ``B'_i = 0``. This is the one-hash,
    one-cohort form (each value owns one bit; no Bloom filter, so no collisions and the
    decoding is the unbiased count ``(c - p* n) / ((1 - f)(q - p))`` of the authors' decoder,
    per value); the Bloom-filter form with ``h`` hash functions and cohorts (decoded by
    regression) is not implemented.

    Parameters
    ----------
    k : int
        Number of categories.
    f : float
        PRR noise, ``0 < f < 1``.
    p, q : float
        IRR probabilities, ``0 <= p < q <= 1``.

    Examples
    --------
    >>> from ldp.mechanisms import RAPPOR
    >>> rappor = RAPPOR(16, f=0.5, p=0.5, q=0.75)
    >>> round(rappor.epsilon_permanent, 4), round(rappor.epsilon, 4)   # 2 ln 3, one report
    (2.1972, 0.5371)
    >>> round(rappor.epsilon_repeated(100), 4)
    2.1972
    """

    name = "rappor"

    def __init__(self, k: int, f: float, p: float, q: float) -> None:
        self._k = check_integer(k, "k", low=2)
        if self._k > MAX_CATEGORIES:
            raise ValueError(f"k must be <= 2^40 (MAX_CATEGORIES), got {compact(self._k)}")
        self._f = check_scalar(f, "f")
        self._irr = (check_scalar(p, "p"), check_scalar(q, "q"))
        if not 0.0 < self._f < 1.0:
            raise ValueError(f"f must lie in (0, 1), got {self._f!r}")
        p_, q_ = self._irr
        if not 0.0 <= p_ < q_ <= 1.0:
            raise ValueError(f"RAPPOR needs 0 <= p < q <= 1, got p={p_!r}, q={q_!r}")
        half = self._f / 2
        self._set_rounds((1.0 - half, half), (half, 1.0 - half), (q_, 1.0 - q_), (p_, 1.0 - p_))
        self._eps_budget = self.epsilon

    @property
    def params(self) -> dict[str, object]:
        p, q = self._irr
        return {"k": self._k, "f": self._f, "p": p, "q": q}


# ----------------------------------------------------------------------------- dBitFlipPM
class DBitFlipPM(_Memoized, FrequencyMechanism):
    """dBitFlipPM (Ding-Kulkarni-Yekhanin (2017)): ``d`` sampled buckets, memoized bits.

    The domain ``0 .. k - 1`` is cut into ``b`` buckets (``bucket(v) = floor(v b / k)``).
    Each client samples ``d`` distinct buckets ``j_1 < ... < j_d`` once (kept in its memo and
    sent with every report, so that the server knows which buckets a report speaks about)
    and reports one bit per sampled bucket: 1 with probability ``e^{eps/2}/(e^{eps/2} + 1)``
    if its value's bucket is ``j_i``, else ``1/(e^{eps/2} + 1)``. The bits depend on the
    value only through the pattern (which sampled bucket, if any, holds it); one response is
    drawn per pattern and memoized, so at most ``min(d + 1, b)`` distinct responses exist.

    One report is ``epsilon``-LDP, and so is any number of reports of an unchanged value
    (they are identical). A history that visits ``m`` patterns leaks at most
    ``m * epsilon`` between histories that visit their patterns in the same order
    (:meth:`epsilon_rounds`: ``min(changes + 1, d + 1, b, rounds) * epsilon``). The rounds
    at which the response changes are visible, so two histories whose patterns change at
    different rounds are not indistinguishable for any finite epsilon:
    :meth:`epsilon_any_history` is ``inf`` beyond one report.

    Parameters
    ----------
    k : int
        Number of categories.
    epsilon : float
        Level of one report.
    b : int, optional
        Number of buckets, ``2 <= b <= k`` (default ``k``).
    d : int
        Sampled buckets per client, ``1 <= d <= b``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import DBitFlipPM
    >>> mech = DBitFlipPM(16, 1.0, b=16, d=4)
    >>> round(mech.epsilon_rounds(365, changes=10), 9)   # min(11, d + 1 = 5) * epsilon
    5.0
    >>> coarse = DBitFlipPM(16, 1.0, b=4, d=2)   # four buckets of four values
    >>> reports = coarse.privatize(np.arange(16).repeat(2000), rng=0)
    >>> bool(np.abs(coarse.estimate(reports) - 0.25).max() < 0.05)
    True
    """

    name = "dbitflip-pm"

    def __init__(self, k: int, epsilon: float, b: int | None = None, d: int = 1) -> None:
        self._k = check_integer(k, "k", low=2)
        self._eps_budget = check_mechanism_epsilon(epsilon)
        self._b = self._k if b is None else check_integer(b, "b", low=2)
        if self._b > self._k:
            raise ValueError(f"b must be <= k = {self._k}, got {self._b}")
        if self._b > MAX_VECTOR_CATEGORIES:
            raise ValueError(f"b must be <= {compact(MAX_VECTOR_CATEGORIES)}, got {self._b}")
        self._d = check_integer(d, "d", low=1)
        if self._d > self._b:
            raise ValueError(f"d must be <= b = {self._b}, got {self._d}")
        half = math.exp(self._eps_budget / 2)
        self._own, self._other = ExactLaw([half, 1.0]), ExactLaw([1.0, half])
        self._P, self._Pc = _probabilities(self._own)
        self._Q, self._Qc = _probabilities(self._other)

    @property
    def k(self) -> int:
        return self._k

    @property
    def b(self) -> int:
        """Number of buckets."""
        return self._b

    @property
    def d(self) -> int:
        """Buckets sampled per client."""
        return self._d

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget, "b": self._b, "d": self._d}

    def __repr__(self) -> str:
        return self.key

    def bucket(self, values: ArrayLike) -> np.ndarray:
        """``floor(v b / k)`` of each value."""
        x = check_categories(values, self._k)
        return (x * self._b) // self._k

    # privacy ---------------------------------------------------------------
    @property
    def epsilon(self) -> float:
        return _log_ratio_of_products([self._P, self._Qc], [self._Pc, self._Q])

    @property
    def epsilon_permanent(self) -> float:
        """One response per pattern: the level of one report."""
        return self.epsilon

    @property
    def epsilon_instant(self) -> float:
        """No instantaneous noise: a memoized response is sent as it is (``inf``)."""
        return math.inf

    def _epsilon_repeated(self, t: int) -> float:
        return self.epsilon

    def epsilon_rounds(self, rounds: int, changes: int = 0) -> float:
        """``min(changes + 1, d + 1, b, rounds) * epsilon``: at most that many patterns,
        one independent response each, between histories that change pattern at the same
        rounds (see the class notes)."""
        t = check_integer(rounds, "rounds", low=1)
        c = check_integer(changes, "changes", low=0)
        return round_up(min(c + 1, self._d + 1, self._b, t) * self.epsilon, 2)

    def epsilon_any_history(self, rounds: int) -> float:
        """``epsilon`` for one report; ``inf`` for more (when a response changes shows)."""
        t = check_integer(rounds, "rounds", low=1)
        return self.epsilon if t == 1 else math.inf

    @property
    def _max_groups(self) -> int:
        return min(self._d + 1, self._b)

    # rounds ----------------------------------------------------------------
    @property
    def _response_width(self) -> int:
        return self._d

    def _response_ok(self, response: tuple[int, ...]) -> bool:
        return len(response) == self._d and all(v in (0, 1) for v in response)

    def _prepare(self, memos: list[Memo], gen: object) -> list[Memo]:
        fresh = [i for i, m in enumerate(memos) if not m.sampled]
        for i, memo in enumerate(memos):
            s = memo.sampled
            if s and not (
                len(s) == self._d
                and all(a < c for a, c in itertools.pairwise(s))
                and s[-1] < self._b
            ):
                raise ValueError(f"memos[{i}] holds sampled buckets this mechanism cannot draw")
        if fresh:
            chosen = np.zeros((len(fresh), 0), dtype=np.int64)
            for step in range(self._d):
                r = randint(gen, self._b - step, len(fresh))
                # the r-th bucket not chosen yet
                for column in np.sort(chosen, axis=1).T:
                    r = r + (r >= column)
                chosen = np.column_stack([chosen, r])
            chosen.sort(axis=1)
            memos = list(memos)
            for row, i in enumerate(fresh):
                memos[i] = memos[i].with_sampled(tuple(chosen[row].tolist()))
        return memos

    def _memo_keys(self, x: np.ndarray, memos: Sequence[Memo]) -> np.ndarray:
        sampled = np.array([m.sampled for m in memos], dtype=np.int64).reshape(-1, self._d)
        hit = sampled == ((x * self._b) // self._k)[:, None]
        return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, 0)

    def _draw_permanent(self, x: np.ndarray, keys: np.ndarray, gen: object) -> np.ndarray:
        own = (np.arange(1, self._d + 1)[None, :] == keys[:, None]).ravel().astype(np.int64)
        bits = choose(gen, [self._other, self._own], own) == 0
        return bits.reshape(-1, self._d).astype(np.int64)

    def _instant(self, permanent: np.ndarray, memos: Sequence[Memo], gen: object) -> np.ndarray:
        sampled = np.array([m.sampled for m in memos], dtype=np.int64).reshape(-1, self._d)
        return np.column_stack([sampled, permanent]).astype(np.int64)

    # reports -----------------------------------------------------------------
    @property
    def codec(self) -> ReportCodec:
        fields = tuple(Field(f"bucket_{i}", "int", 0, self._b - 1) for i in range(self._d))
        fields += tuple(Field(f"bit_{i}", "int", 0, 1) for i in range(self._d))
        d = self._d

        def check(reports: np.ndarray, where) -> None:
            if d > 1:
                bad = np.any(np.diff(reports[:, :d], axis=1) <= 0, axis=1)
                if np.any(bad):
                    raise ValueError(
                        f"{where(int(np.argmax(bad)))}: the report's buckets are not distinct "
                        "and increasing (not a report of this mechanism)"
                    )

        return ReportCodec(fields, "int64", vector=True, check=check)

    def sampler(self) -> dict[str, object]:
        """``own``/``other``: weights ``1 : 0`` of the bit of the value's bucket / of another
        sampled bucket; ``b``, ``d``: buckets sampled uniformly without replacement."""
        return {
            "own": list(self._own.weights),
            "other": list(self._other.weights),
            "buckets": self._b,
            "sampled": self._d,
        }

    @property
    def report_bits(self) -> float:
        return math.log2(math.comb(self._b, self._d)) + self._d

    # decoding -----------------------------------------------------------------
    @property
    def statistic_size(self) -> int:
        """``2 b``: per bucket, the ones reported and the clients that sampled it."""
        return 2 * self._b

    @property
    def statistic_entries(self) -> int:
        return 2 * self._b

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        buckets, bits = reports[:, : self._d].ravel(), reports[:, self._d :].ravel()
        ones = np.bincount(buckets, weights=bits, minlength=self._b).astype(np.int64)
        sampled = np.bincount(buckets, minlength=self._b).astype(np.int64)
        return np.concatenate([ones, sampled]), reports.shape[0]

    def estimate(self, reports_or_counts: ArrayLike | SupportCounts) -> np.ndarray:
        """Unbiased bucket frequencies ``(b/(n d)) (ones_j - Q sampled_j)/(P - Q)``, one per
        bucket (per value when ``b = k``)."""
        counts = self.counts_of(reports_or_counts)
        if counts.n == 0:
            raise ValueError("cannot estimate frequencies from zero reports")
        ones, sampled = counts.counts[: self._b], counts.counts[self._b :]
        scale = self._b / (counts.n * self._d * (self._P - self._Q))
        return scale * (ones - self._Q * sampled)

    def _second_moments(self) -> tuple[float, float]:
        gap2 = (self._P - self._Q) ** 2
        ratio = self._b / self._d
        own = ratio * (self._P * self._Qc**2 + self._Pc * self._Q**2) / gap2
        other = ratio * self._Q * self._Qc / gap2
        return own, other

    def variance(
        self, n: int, f: ArrayLike | None = None, convention: str = "fixed"
    ) -> float | np.ndarray:
        """Exact variance of the estimate of a bucket of frequency ``f`` (``None``: 0).

        A client contributes ``Y = (b/d) 1[j sampled] (bit - Q)/(P - Q)`` (mean 1 if its
        value is in bucket ``j``, else 0); ``fixed``: ``(f (m_own - 1) + (1 - f) m_other)/n`` with
        ``m_own, m_other`` the second moments of ``Y``; ``iid`` adds ``f (1 - f)/n``.
        """
        users = check_n(n)
        conv = check_convention(convention)
        if f is None:
            freq, scalar = np.zeros(()), True
        else:
            freq = as_real_array(f, "f")
            if np.any(freq < 0) or np.any(freq > 1):
                raise ValueError("f must be frequencies in [0, 1]")
            scalar = freq.ndim == 0
        own, other = self._second_moments()
        out = (freq * (own - 1.0) + (1.0 - freq) * other) / users
        if conv == "iid":
            out = out + freq * (1.0 - freq) / users
        return scalar_or_array(out, scalar)

    # channels -----------------------------------------------------------------
    def _pattern_probabilities(self) -> tuple[float, float, float]:
        """P(both buckets sampled), P(a given one only), P(neither)."""
        b, d = self._b, self._d
        pairs = b * (b - 1)
        return d * (d - 1) / pairs, d * (b - d) / pairs, (b - d) * (b - d - 1) / pairs

    def privacy_channel(self) -> Channel:
        """Two values in different buckets ``a, b``: whether each is sampled, and its bit."""
        both, only, neither = self._pattern_probabilities()
        P, Pc, Q, Qc = self._P, self._Pc, self._Q, self._Qc
        first = [both * v for v in (P * Q, P * Qc, Pc * Q, Pc * Qc)]
        second = [both * v for v in (Q * P, Q * Pc, Qc * P, Qc * Pc)]
        first += [only * P, only * Pc, only * Q, only * Qc, neither]
        second += [only * Q, only * Qc, only * P, only * Pc, neither]
        return _pair(first, second)

    def audit_statistic(self, x0: object, x1: object):
        """The class of the report for the pair (see :meth:`privacy_channel`)."""
        a, c = (int(v) * self._b // self._k for v in (x0, x1))  # type: ignore[call-overload]
        d = self._d

        def statistic(reports: np.ndarray) -> np.ndarray:
            reports = np.asarray(reports)
            js, bits = reports[:, :d], reports[:, d:]
            in_a, in_c = js == a, js == c
            has_a, has_c = in_a.any(axis=1), in_c.any(axis=1)
            bit_a = (bits * in_a).sum(axis=1)
            bit_c = (bits * in_c).sum(axis=1)
            return np.where(
                has_a & has_c,
                2 * (1 - bit_a) + (1 - bit_c),
                np.where(has_a, 5 - bit_a, np.where(has_c, 7 - bit_c, 8)),
            ).astype(np.int64)

        if a == c:  # same bucket: the two values have one law
            return lambda reports: np.zeros(np.asarray(reports).shape[0], dtype=np.int64)
        return statistic

    def to_channel(self) -> Channel:
        """The one-report channel: rows values, columns (sampled buckets, bits)."""
        subsets = math.comb(self._b, self._d)
        if self._k * subsets * 2**self._d > MAX_CHANNEL_ENTRIES:
            raise ValueError(f"{self.name}.to_channel: the channel is too large")
        patterns = np.array(list(itertools.product((1, 0), repeat=self._d)))  # (2^d, d)
        buckets = (np.arange(self._k) * self._b) // self._k
        columns = []
        for subset in itertools.combinations(range(self._b), self._d):
            own = np.array(subset)[None, :] == buckets[:, None]  # (k, d)
            p1 = np.where(own, self._P, self._Q)
            p0 = np.where(own, self._Pc, self._Qc)
            prob = np.prod(
                np.where(patterns[None, :, :] == 1, p1[:, None, :], p0[:, None, :]), axis=2
            )
            columns.append(prob / subsets)
        return Channel(np.concatenate(columns, axis=1))

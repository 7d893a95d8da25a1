"""Memoized unary encodings: L-OSUE, L-OUE (Arcolezi et al. (2022)) and basic RAPPOR
(Erlingsson-Pihur-Korolova (2014)).

The value is one-hot encoded; every bit is memoized through a permanent randomized response
and flipped again in every report (see ``ldp.mechanisms.longitudinal`` for the rounds, the
memo and the accounting of repeated reports).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from ldp._exact import (
    certified_epsilon,
    exp_down,
    log_up,
    nearest_within,
    probabilities,
    smallest_double,
    within_exp,
)
from ldp._numerics import bisect_monotone, log_binomial
from ldp._rounding import round_up
from ldp._sampling import ExactLaw, choose
from ldp._validation import (
    check_integer,
    check_scalar,
    compact,
)
from ldp.channel import Channel
from ldp.core import ReportCodec
from ldp.mechanisms.base import FrequencyOracle
from ldp.mechanisms.categorical._bit_counts import bit_counts
from ldp.mechanisms.categorical._common import packed_bit, unary_ratio
from ldp.mechanisms.categorical.unary import unary_codec
from ldp.mechanisms.limits import (
    MAX_CATEGORIES,
    MAX_VECTOR_CATEGORIES,
    check_mechanism_epsilon,
    check_size,
    chunk_rows,
)
from ldp.mechanisms.longitudinal.lgrr import (
    MemoizedMechanism,
    lambda_ratio_gap,
    law_pair,
    log_mix_ratio,
    log_odds_upper,
)
from ldp.mechanisms.longitudinal.memo import Memo
from ldp.mechanisms.worst_pair import pair_channel

__all__ = ["LOSUE", "LOUE", "RAPPOR"]


# ----------------------------------------------------------------------------- unary rounds
class _MemoizedUnary(MemoizedMechanism, FrequencyOracle):
    """A unary-encoded value, each bit memoized (permanent) then flipped again each round.

    Subclasses call :meth:`_set_rounds` with the weights ``1 : 0`` of: the permanent bit of
    the value, every other permanent bit, an instantaneous bit whose memoized bit is 1, and
    one whose memoized bit is 0. The levels are computed exactly from those weights: a
    calibrated subclass (``_calibrated``) states its ``epsilon`` and ``epsilon_permanent``
    when the law sampled is within them, else (and for RAPPOR, which is given no levels) each
    is the smallest double whose exponential bounds the exact ratio.
    """

    #: whether the weights were calibrated to ``epsilon`` and ``epsilon_permanent``
    _calibrated = True
    _eps_perm: float

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
        self._p1, self._p1c = law_pair(self._own)
        self._q1, self._q1c = law_pair(self._other)
        self._p2, self._p2c = law_pair(self._one)
        self._q2, self._q2c = law_pair(self._zero)
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

    def _one_report_ratio(self) -> Fraction | None:
        """The likelihood ratio of one report, exactly (:func:`_report_ratio`)."""
        laws = (self._own, self._other, self._one, self._zero)
        return _report_ratio(*(law.weights for law in laws))

    def _exact_rounds(self) -> tuple[Fraction, Fraction, Fraction, Fraction]:
        """The exact probabilities of a 1 under the four laws ``own``, ``other``, ``one``,
        ``zero``."""
        laws = (self._own, self._other, self._one, self._zero)
        own, other, one, zero = (probabilities(law.weights)[0] for law in laws)
        return own, other, one, zero

    def _level(self, ratio: Fraction | None, permanent: bool) -> float:
        """The level to state for ``ratio``: the budget of that round when calibrated."""
        if not self._calibrated:
            return log_up(ratio)
        return certified_epsilon(ratio, self._eps_perm if permanent else self._eps_budget)

    @property
    def epsilon(self) -> float:
        return self._level(self._one_report_ratio(), permanent=False)

    @property
    def epsilon_permanent(self) -> float:
        own, other, _, _ = self._exact_rounds()
        return self._level(unary_ratio(own, other), permanent=True)

    @property
    def epsilon_instant(self) -> float:
        """``k * max(log(p2/q2), log((1-q2)/(1-p2)))``: two memoized vectors may differ in
        every bit."""
        _, _, one, zero = self._exact_rounds()
        if zero == 0 or one == 1:
            return math.inf
        bit = log_up(max(one / zero, (1 - zero) / (1 - one)))
        return round_up(self._k * bit)  # the product rounded up: never below k * bit

    def _epsilon_repeated(self, t: int) -> float:
        # the first ratio increases with log_one, the second decreases with log_zero (< 0):
        # round log_one up and log_zero down
        log_one = log_odds_upper(self._p2, self._q2, t)
        log_zero = -log_odds_upper(self._q2c, self._p2c, t) if self._p2c > 0 else -math.inf
        first = log_mix_ratio(self._p1, self._p1c, self._q1, self._q1c, log_one)
        second = log_mix_ratio(self._q1, self._q1c, self._p1, self._p1c, log_zero)
        return first + second

    @property
    def report_bits(self) -> float:
        return float(self._k)

    @property
    def codec(self) -> ReportCodec:
        _check_vector(self._k, f"{type(self).__name__}.codec")
        return unary_codec(self._k)

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
        return bit_counts(reports, self._k), reports.shape[0]

    def variance(self, n: int, f: ArrayLike | None = None, convention: str = "fixed"):
        """Exact variance of :meth:`estimate` in one round.

        The estimate is Arcolezi et al. (2022), eq. (9), i.e. ``(C_v/n - q)/(p - q)`` with
        the one-report ``p = p1 p2 + (1 - p1) q2`` and ``q = q1 p2 + (1 - q1) q2``; ``iid``
        is ``g(1 - g)/(n (p - q)^2)`` with ``g = q + f (p - q)``. (The paper's printed
        eq. (10) for ``g`` agrees with it only when both rounds are symmetric or ``f = 0``,
        and can be negative; it is not used.)
        """
        return super().variance(n, f, convention)

    def _pair_support(self) -> tuple[float, float]:
        """Each bit is memoized and flipped on its own: the bits of one report are
        independent given ``x`` (``p q`` when one is ``x``'s, ``q^2`` otherwise)."""
        return self.p * self.q, self.q * self.q

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

    def _repeated_channel(self, t: int) -> Channel:
        """Outputs: the numbers of ones ``(m_x, m_x')`` of the bits of ``x`` and ``x'`` over
        the ``t`` reports (the other bits have one law; the bits are independent)."""
        m = np.arange(t + 1)
        log_binom = log_binomial(t, m)

        def binomial(p: float, pc: float) -> np.ndarray:
            with np.errstate(divide="ignore"):
                logs = log_binom + m * np.log(p) + (t - m) * np.log(pc)
            return np.exp(logs)

        one, zero = binomial(self._p2, self._p2c), binomial(self._q2, self._q2c)
        own = self._p1 * one + self._p1c * zero  # the bit of the value
        other = self._q1 * one + self._q1c * zero  # the bit of the other value
        first = np.outer(own, other).ravel()
        second = np.outer(other, own).ravel()
        matrix = np.array([first, second])
        return pair_channel(*(matrix / matrix.sum(axis=1, keepdims=True)).tolist())

    def privacy_channel(self) -> Channel:
        """One report: the bits of ``x`` and ``x'`` (11, 10, 01, 00)."""
        p1, p0, q1, q0 = self._ps, self._psc, self._qs, self._qsc
        return pair_channel(
            [p1 * q1, p1 * q0, p0 * q1, p0 * q0], [q1 * p1, q1 * p0, q0 * p1, q0 * p0]
        )

    def audit_statistic(self, x0: object, x1: object):
        """``2 bit[x0] + bit[x1]``: sufficient for the pair."""
        a, b = int(x0), int(x1)  # type: ignore[call-overload]
        return lambda reports: 2 * packed_bit(reports, a) + packed_bit(reports, b)


def _check_vector(k: int, what: str) -> None:
    check_size(k, MAX_VECTOR_CATEGORIES, "MAX_VECTOR_CATEGORIES", what, f"a report of k = {k} bits")


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

    **As sampled.** ``e^eps_inf`` is the largest double at most ``e^eps_inf``, and the
    instantaneous weights ``1 + tau : 1 - tau`` are moved, the first one down, to the first
    double at which one report's likelihood ratio is at most ``e^epsilon`` exactly: both
    levels are the ones asked for.

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
        low = lambda_ratio_gap(2, self._eps_budget, self._eps_perm)  # 1 - tau
        own, other = (1.0, 1.0), (1.0, exp_down(self._eps_perm))

        def within(high: float) -> bool:
            return _within(own, other, (high, low), (low, high), self._eps_budget)

        high = nearest_within(within, 2.0 - low, 0.0)  # 1 + tau
        self._set_rounds(own, other, (high, low), (low, high))

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget, "epsilon_permanent": self._eps_perm}


def _report_ratio(
    own: Sequence[float], other: Sequence[float], one: Sequence[float], zero: Sequence[float]
) -> Fraction | None:
    """The likelihood ratio of one report of memoized unary rounds with these weights
    (``1 : 0`` of each law), exactly: each reported bit is 1 with probability
    ``own * one + (1 - own) * zero`` (the value's bit) or ``other * one +
    (1 - other) * zero`` (any other bit), and two inputs change two bits."""
    p1, q1, p2, q2 = (probabilities(w)[0] for w in (own, other, one, zero))
    return unary_ratio(p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2)


def _within(
    own: tuple[float, float],
    other: tuple[float, float],
    one: tuple[float, float],
    zero: tuple[float, float],
    epsilon: float,
) -> bool:
    """Whether one report of these rounds is within ``e^epsilon``, exactly."""
    ratio = _report_ratio(own, other, one, zero)
    return ratio is not None and within_exp(ratio, epsilon)


def _unary_epsilon(p1: float, q1: float, p2: float, q2: float) -> float:
    ps, qs = p1 * p2 + (1 - p1) * q2, q1 * p2 + (1 - q1) * q2
    return math.log(ps * (1 - qs) / ((1 - ps) * qs))


class LOUE(_MemoizedUnary):
    """L-OUE (Arcolezi et al. (2022)): OUE memoized, then OUE-style flips of the memo.

    Permanent: OUE at ``epsilon_permanent``. Instantaneous: a memoized 1 is kept with
    ``p2 = 1/2``; a memoized 0 becomes 1 with ``q2``, the root in ``(0, 1/2)`` that makes one
    report ``epsilon``-LDP: the smallest double whose one-report likelihood ratio (a
    rational number of the weights sampled) is at most ``e^epsilon`` exactly, found by
    bisection over the doubles on the decreasing map ``q2 -> eps_1``. ``e^eps_inf`` is the
    largest double at most ``e^eps_inf``: both levels are the ones asked for. One report
    cannot reach every ``epsilon < epsilon_permanent`` (at ``q2 -> 0`` it is below
    ``epsilon_permanent``); a level beyond reach raises ``ValueError`` naming the largest.

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
        # the q2 with eps_1(q2) <= epsilon, from above (eps_1 falls from eps_1(0) > epsilon
        # to eps_1(1/2) = 0): where the exact search below starts
        hi = bisect_monotone(
            lambda q2: _unary_epsilon(p1, q1, 0.5, q2) > self._eps_budget,
            0.0,
            0.5,
            side="high",
            ends=(True, False),
        )
        own, other = (1.0, 1.0), (1.0, exp_down(self._eps_perm))

        def within(q2: float) -> bool:  # true from the root up to 1/2
            if q2 >= 0.5:
                return True
            return _within(own, other, (1.0, 1.0), (q2, 1.0 - q2), self._eps_budget)

        q2 = smallest_double(within, hi)
        self._set_rounds(own, other, (1.0, 1.0), (q2, 1.0 - q2))

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
    per value); the Bloom-filter form with ``h`` hash functions and cohorts over strings
    (decoded by regression on candidate strings) is :class:`~ldp.mechanisms.BloomRAPPOR`.

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
    _calibrated = False  # given f, p and q, not levels: each level is computed

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

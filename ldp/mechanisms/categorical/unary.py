"""Unary encoding: one bit per category (SUE, i.e. basic RAPPOR, and OUE)."""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._coin_bytes import CoinBytes
from ldp._exact import (
    certified_epsilon,
    exp_down,
    log_up,
    probabilities,
)
from ldp._sampling import (
    ExactLaw,
    choose_after_first_byte,
    first_byte_thresholds,
    random_bytes,
)
from ldp._validation import check_random_state, check_scalar
from ldp._words import coin_lanes
from ldp.channel import Channel
from ldp.core import Field, ReportCodec
from ldp.mechanisms.base import FrequencyOracle
from ldp.mechanisms.categorical._bit_counts import bit_counts
from ldp.mechanisms.categorical._common import (
    check_channel_size,
    check_vector_size,
    packed_bit,
    unary_ratio,
)
from ldp.mechanisms.limits import check_categories, chunk_rows
from ldp.mechanisms.worst_pair import pair_channel

__all__ = ["OUE", "SUE", "UnaryEncoding"]


# --------------------------------------------------------------------------- unary encoding
def packed_codec(k: int, check=None) -> ReportCodec:
    """``ceil(k / 8)`` byte fields of a bit-packed vector (bit ``v`` is bit ``7 - v % 8`` of
    byte ``v // 8``; the pad bits beyond ``k`` are zero)."""
    return ReportCodec(byte_fields((k + 7) // 8), "uint8", vector=True, check=check)


@functools.lru_cache(maxsize=64)
def byte_fields(width: int) -> tuple[Field, ...]:
    """The ``width`` byte fields of a packed report (built once per width: they are frozen)."""
    return tuple(Field(f"byte_{i}", "int", 0, 255) for i in range(width))


@functools.lru_cache(maxsize=64)
def unary_codec(k: int) -> ReportCodec:
    """The codec of a unary encoding's reports over ``k`` categories (built once per ``k``:
    its field bounds are then computed once, not at every aggregate)."""
    return packed_codec(k, check_pad_bits(k))


def check_pad_bits(k: int):
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


@functools.lru_cache(maxsize=64)
def coin_bytes(p: Fraction) -> CoinBytes:
    """The byte sampler of the coin ``p`` (its table built once per probability)."""
    return CoinBytes(p)


class UnaryEncoding(FrequencyOracle):
    """Unary encoding: report the one-hot vector of ``x`` with each bit flipped independently.

    Bit ``v`` is 1 with probability ``p`` if ``v = x`` and ``q`` otherwise. Reports are
    bit-packed rows (``np.packbits``, ``ceil(k/8)`` bytes per user; bit ``v`` is bit
    ``7 - v % 8`` of byte ``v // 8``). ``epsilon = log(p (1 - q) / ((1 - p) q))``: two inputs
    differ in two bits. With ``p`` and ``q`` given, it is that level of the law sampled (the
    odds ``p : 1 - p`` and ``q : 1 - q`` of the doubles), rounded up to a double; the
    ``epsilon`` argument is only recorded in :attr:`params`. :class:`SUE` and :class:`OUE`
    calibrate their odds to their ``epsilon`` and state it.

    Parameters
    ----------
    k : int
        Number of categories.
    epsilon : float
        Privacy level, ``> 0``.
    p, q : float
        Bit probabilities; see :class:`SUE` and :class:`OUE` for the standard choices.

    Examples
    --------
    >>> from ldp.mechanisms import UnaryEncoding
    >>> ue = UnaryEncoding(8, 1.0, p=0.5, q=0.25)
    >>> round(ue.epsilon, 6)   # log(0.5 * 0.75 / (0.5 * 0.25))
    1.098612
    """

    name = "UE"
    #: whether the weights were calibrated to the ``epsilon`` argument (then it is stated)
    _calibrated = False

    def __init__(self, k: int, epsilon: float, p: float, q: float) -> None:
        super().__init__(k, epsilon)
        p, q = check_scalar(p, "p"), check_scalar(q, "q")
        if not (0.0 < q < p < 1.0):
            raise ValueError(f"unary encoding needs 0 < q < p < 1, got p={p!r}, q={q!r}")
        self._set_weights((p, 1.0 - p), (q, 1.0 - q))
        self._given = (p, q)

    def _set_weights(self, own: tuple[float, float], other: tuple[float, float]) -> None:
        """Bit ``x`` is 1 with odds ``own[0] : own[1]``, every other bit ``other[0] : other[1]``."""
        self._own = ExactLaw(own)
        self._other = ExactLaw(other)
        self._p = own[0] / (own[0] + own[1])
        self._q = other[0] / (other[0] + other[1])

    @property
    def params(self) -> dict[str, object]:
        p, q = self._given
        return {"k": self._k, "epsilon": self._eps_budget, "p": p, "q": q}

    @property
    def p(self) -> float:
        return self._p

    @property
    def q(self) -> float:
        return self._q

    def _ratio(self) -> Fraction | None:
        """The largest likelihood ratio of the law sampled, exactly."""
        own = probabilities(self._own.weights)[0]
        return unary_ratio(own, probabilities(self._other.weights)[0])

    @property
    def epsilon(self) -> float:
        ratio = self._ratio()
        if self._calibrated:
            return certified_epsilon(ratio, self._eps_budget)
        return log_up(ratio)

    @property
    def report_bits(self) -> float:
        return float(self._k)

    @property
    def work_per_report(self) -> float:
        """``k`` coins drawn and ``k`` bits counted."""
        return 2.0 * self._k

    def pair_covariance(self) -> tuple[float, float]:
        """Independent bits: ``(0, 0)``."""
        return 0.0, 0.0

    def simulate_support_counts(self, n_x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """Independent bits: a binomial of the holders and one of the others per value."""
        return gen.binomial(n_x, self.p) + gen.binomial(int(n_x.sum()) - n_x, self.q)

    @property
    def codec(self) -> ReportCodec:
        check_vector_size(self._k, f"{type(self).__name__}.codec")
        return unary_codec(self._k)

    def sampler(self) -> dict[str, object]:
        """``own``: odds ``1 : 0`` of the bit of ``x``; ``other``: of every other bit."""
        return {"own": list(self._own.weights), "other": list(self._other.weights)}

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        check_vector_size(self._k, f"{type(self).__name__}.privatize")
        x = check_categories(values, self._k)
        gen = check_random_state(rng)
        if isinstance(gen, np.random.Generator):
            return self._privatize_words(x, gen)
        out = np.empty((x.size, (self._k + 7) // 8), dtype=np.uint8)
        laws = [self._other, self._own]  # law 1 for the bit of x
        (t_other, open_other), (t_own, open_own) = map(first_byte_thresholds, laws)
        for rows in chunk_rows(x.size, self._k):
            m = rows.stop - rows.start
            first = random_bytes(gen, m * self._k).reshape(m, self._k)
            at = np.arange(m), x[rows]
            own_bytes = first[at]
            # bit = outcome 0 of the bit's law: decided by the first byte unless it equals the
            # law's threshold and the division there is inexact (then: the next bytes)
            bits = first < t_other
            bits[at] = own_bytes < t_own
            undecided = (first == t_other) if open_other else np.zeros_like(bits)
            undecided[at] = (own_bytes == t_own) if open_own else False
            where = np.flatnonzero(undecided)
            if where.size:
                own = np.zeros((m, self._k), dtype=bool)
                own[at] = True
                which = own.ravel()[where].astype(np.int64)
                outcome = choose_after_first_byte(gen, laws, which, first.ravel()[where])
                bits.ravel()[where] = outcome == 0
            out[rows] = np.packbits(bits, axis=1)
        return out

    def _privatize_words(self, x: np.ndarray, gen: np.random.Generator) -> np.ndarray:
        """The simulation path: every byte of the report a pattern of eight independent
        coins with the other bits' probability, drawn by table from 16 random bits
        (:class:`ldp._coin_bytes.CoinBytes`, in chunks of ``2^15`` bytes, the rare split
        cells refined at the end), then the bit of ``x`` replaced by an
        independent coin with its own (bit-sliced, :func:`ldp._words.coin_lanes`) and the
        pad bits cleared. The bits are independent with the law's probabilities, as in the
        byte protocol, drawn in another order."""
        k, width = self._k, (self._k + 7) // 8
        own_p, other_p = (
            Fraction(law.weights[0]) / sum(map(Fraction, law.weights))
            for law in (self._own, self._other)
        )
        sampler = coin_bytes(other_p)
        out = np.empty((x.size, width), dtype=np.uint8)
        flat = out.reshape(-1)
        sampler.draw(gen, flat.size, out=flat)
        own = np.unpackbits(coin_lanes(gen, own_p, -(-x.size // 64)).view(np.uint8))[: x.size]
        rows, column = np.arange(x.size), x >> 3
        shift = (7 - (x & 7)).astype(np.uint8)
        kept = out[rows, column] & ~(np.uint8(1) << shift)
        out[rows, column] = kept | (own << shift)
        if k % 8:
            out[:, -1] &= np.uint8((0xFF << (8 - k % 8)) & 0xFF)
        return out

    def _support_counts(self, reports: np.ndarray) -> tuple[np.ndarray, int]:
        return bit_counts(reports, self._k), reports.shape[0]

    def _support_counts_at(self, reports: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.array([packed_bit(reports, int(v)).sum() for v in values], dtype=np.int64)

    def _pair_support(self) -> tuple[float, float]:
        """The bits are independent given ``x``: ``p q`` when one of the two is ``x``'s bit,
        ``q^2`` otherwise (so the fixed-data covariance is diagonal)."""
        return self.p * self.q, self.q * self.q

    def privacy_channel(self) -> Channel:
        """The bits of ``x`` and ``x'`` (11, 10, 01, 00); the other bits have one law."""
        p1, p0 = self._own.probabilities()
        q1, q0 = self._other.probabilities()
        return pair_channel(
            [p1 * q1, p1 * q0, p0 * q1, p0 * q0], [q1 * p1, q1 * p0, q0 * p1, q0 * p0]
        )

    def audit_statistic(self, x0: Any, x1: Any):
        """``2 bit[x0] + bit[x1]``: sufficient for the pair."""
        a, b = int(x0), int(x1)
        return lambda reports: 2 * packed_bit(reports, a) + packed_bit(reports, b)

    def to_channel(self) -> Channel:
        """The ``k x 2^k`` channel, output ``z`` = the bit vector with bit ``v`` = bit
        ``k - 1 - v`` of the integer ``z``."""
        check_channel_size(math.log2(self._k) + self._k, type(self).__name__)
        z = np.arange(2**self._k)
        bits = (z[None, :] >> (self._k - 1 - np.arange(self._k))[:, None]) & 1  # (k, 2^k)
        ones = bits.sum(axis=0)
        q1, q0 = (w / sum(self._other.weights) for w in self._other.weights)
        p1, p0 = (w / sum(self._own.weights) for w in self._own.weights)
        # P(z | x) = prod_v P(bit_v): q^(#ones off x) (1-q)^(...) times p or (1-p) at x
        base = q1 ** (ones - bits) * q0 ** (self._k - 1 - ones + bits)
        at_x = np.where(bits == 1, p1, p0)
        return Channel(base * at_x)


class SUE(UnaryEncoding):
    """Symmetric unary encoding, i.e. basic one-time RAPPOR (Erlingsson et al. 2014).

    ``p = e^{eps/2} / (e^{eps/2} + 1)``, ``q = 1 - p``, with ``e^{eps/2}`` the largest double
    at most ``e^{eps/2}``: the ratio ``(p (1 - q) / ((1 - p) q)`` sampled is its square, at
    most ``e^eps`` exactly.

    Parameters
    ----------
    k : int
        Alphabet size, ``2 <= k <= 2^40``.
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import SUE
    >>> sue = SUE(6, 1.0)
    >>> reports = sue.privatize(np.arange(6).repeat(1000), rng=0)
    >>> reports.shape, reports.dtype
    ((6000, 1), dtype('uint8'))
    >>> bool(np.all(np.abs(sue.estimate(reports) - 1 / 6) < 0.1))
    True
    """

    name = "SUE"
    _calibrated = True

    def __init__(self, k: int, epsilon: float) -> None:
        FrequencyOracle.__init__(self, k, epsilon)
        half = exp_down(self._eps_budget / 2)  # half^2 <= e^eps: the sampled ratio
        self._set_weights((half, 1.0), (1.0, half))

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget}


class OUE(UnaryEncoding):
    """Optimized unary encoding (Wang et al. 2017): ``p = 1/2``, ``q = 1 / (e^eps + 1)``, with
    ``e^eps`` the largest double at most ``e^eps``.

    Parameters
    ----------
    k : int
        Alphabet size, ``2 <= k <= 2^40``.
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import OUE
    >>> oue = OUE(1024, 1.0)
    >>> round(oue.variance(10_000, 0.1) * 1e4, 10)   # (4e/(e-1)^2 + 0.1) / n, times n
    3.7826943768
    """

    name = "OUE"
    _calibrated = True

    def __init__(self, k: int, epsilon: float) -> None:
        FrequencyOracle.__init__(self, k, epsilon)
        self._set_weights((1.0, 1.0), (1.0, exp_down(self._eps_budget)))

    @property
    def params(self) -> dict[str, object]:
        return {"k": self._k, "epsilon": self._eps_budget}

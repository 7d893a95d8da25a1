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


#: Rows whose bits one byte lane sums (at most 255); 3 * 5 * 17, the row groups of the
#: three widening steps of :func:`bit_counts`.
_LANE_ROWS = 255
_GROUPS = (3, 5, 17)
#: 64-bit words of packed rows counted at once (512 KB): the scratch buffers (2, 2/3 and 1
#: times that, allocated once per call) stay within the L3 cache, and each numpy call of a step
#: covers four times as many words as with blocks of 2^14 (about 30% less time at k = 64,
#: 1024 and 65536; the buffers' fresh pages cost less than the calls saved)
_BLOCK_WORDS = 1 << 16
#: the even lanes of width 1, 2 and 4 bits
_MASKS = tuple(np.uint64(m) for m in (0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F))
#: the bit of each byte (from the lowest) that the widening steps leave in each part
_ORDER = (0, 4, 2, 6, 1, 5, 3, 7)
#: the part holding bit ``7 - i`` of every byte (bit ``i`` of the byte in category order)
_PART_OF = np.array([_ORDER.index(7 - i) for i in range(8)])
_PART_OF.flags.writeable = False


def _widen(parts: np.ndarray, level: int, split: np.ndarray, summed: np.ndarray) -> np.ndarray:
    """The stacked parts (``(P, R, W)`` 64-bit words of ``2^level``-bit counters) each split
    into its even and odd counters, in counters twice as wide (written into ``split``, as
    ``(P, 2, R, W)``), and their rows summed in ``_GROUPS[level]`` groups (written into
    ``summed``; no counter overflows: 3 rows of bits fit 2 bits, 5 rows of those 4 bits, 17
    rows of those 8 bits): ``(2 P, R / groups, W)``, the part ``2 p`` the even counters of
    part ``p``, ``2 p + 1`` its odd ones."""
    mask, groups = _MASKS[level], _GROUPS[level]
    count, rows, words = parts.shape
    halves = split[: 2 * parts.size].reshape(count, 2, rows, words)
    np.bitwise_and(parts, mask, out=halves[:, 0])
    np.right_shift(parts, np.uint64(1 << level), out=halves[:, 1])
    np.bitwise_and(halves[:, 1], mask, out=halves[:, 1])
    grouped = halves.reshape(2 * count, groups, rows // groups, words)
    out = summed[: grouped.size // groups].reshape(2 * count, rows // groups, words)
    if groups < 5:  # numpy adds a few slices faster than it reduces a short middle axis
        np.add(grouped[:, 0], grouped[:, 1], out=out)
        for i in range(2, groups):
            np.add(out, grouped[:, i], out=out)
        return out
    return np.add.reduce(grouped, axis=1, out=out)


def bit_counts(packed: np.ndarray, k: int) -> np.ndarray:
    """Column sums of bit-packed rows, 64 bits at a time: the rows viewed as little-endian
    64-bit words and summed as counters within the words, in blocks of 255 rows: the bits
    split into even and odd 2-bit counters summed over 3 rows, those into 4-bit counters
    summed over 5 of those rows, those into byte counters summed over 17 (no counter
    overflows, no carry crosses one); each of the eight resulting parts holds one bit of
    every byte, counted over 255 rows, and is added up in ``int64``. Bit ``v`` is bit
    ``7 - v % 8`` of byte ``v // 8``; rows are zero-padded to whole blocks and words. The
    parts of a block are stacked in one array, so that each step is a few calls, and the
    steps reuse two scratch buffers.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.categorical.unary import bit_counts
    >>> rows = np.packbits([[1, 0, 1], [1, 1, 0]], axis=1)
    >>> bit_counts(rows, 3).tolist()
    [2, 1, 1]
    """
    rows, width = packed.shape
    per_row = -(-width // 8)
    # the counts in category order: [byte column, bit of the byte from the highest]
    totals = np.zeros((8 * per_row, 8), dtype=np.int64)
    # blocks of about 2^16 words: whole lane blocks of rows, and of words when rows are wide
    chunk = min(per_row, max(1, _BLOCK_WORDS // _LANE_ROWS))  # words of a block's rows
    step = _LANE_ROWS * max(1, _BLOCK_WORDS // (_LANE_ROWS * chunk))
    # whole words with contiguous bytes: whole lane blocks are read in place
    whole = width % 8 == 0 and (rows == 0 or packed.strides[1] == 1)
    bulk = rows - rows % _LANE_ROWS if whole else 0
    blocks = [(start, min(start + step, bulk)) for start in range(0, bulk, step)]
    blocks += [(start, min(start + step, rows)) for start in range(bulk, rows, step)]
    size = min(step, -(-rows // _LANE_ROWS) * _LANE_ROWS) * chunk  # the largest block
    split = np.empty(2 * size, dtype=np.uint64)  # each step's halves
    summed = np.empty(2 * size // _GROUPS[0], dtype=np.uint64)  # each step's sums
    padded = np.empty(8 * size if blocks and not (whole and bulk == rows) else 0, np.uint8)
    for start, stop in blocks:
        m = stop - start
        for first in range(0, per_row, chunk):
            columns = slice(8 * first, min(8 * (first + chunk), width))
            if whole and m % _LANE_ROWS == 0:  # a view: read, never written
                block = packed[start:stop, columns]
            else:  # zero rows and columns up to whole blocks and words (one reused buffer)
                shape = (-(-m // _LANE_ROWS) * _LANE_ROWS, 8 * min(chunk, per_row - first))
                block = padded[: shape[0] * shape[1]].reshape(shape)
                used = columns.stop - columns.start
                if used < shape[1] or m < shape[0]:
                    block.fill(0)
                block[:m, :used] = packed[start:stop, columns]
            parts = block.view("<u8")[None]
            for level in range(len(_GROUPS)):
                parts = _widen(parts, level, split, summed)
            # byte j of a little-endian word counts the word's byte j (a copy only on a
            # big-endian machine, whose native words hold their bytes the other way round)
            counts = parts.astype("<u8", copy=False).view(np.uint8).sum(axis=1, dtype=np.int64)
            totals[8 * first : 8 * first + counts.shape[1]] += counts[_PART_OF, :].T
    return totals.reshape(-1)[:k]


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

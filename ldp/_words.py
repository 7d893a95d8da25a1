"""Exact samplers on 64-bit words: the fast path of simulations with a numpy ``Generator``.

The byte protocol of :mod:`ldp._sampling` fixes which byte of the stream decides what, so
that a device and the library make the same report from the same bytes. A numpy
``Generator`` is a simulation source that no device replays, so the privatizers may draw
from it in any order that realises *exactly the same law*: here every user takes one
uniform word of ``2b`` bits (``b = 16`` or ``32``; :func:`halves` cuts them from 64-bit
words), split into two independent uniform ``b``-bit halves (any fixed split of uniform bits
gives independent uniform parts, so the law does not depend on the machine's byte order),
and each half decides one draw against an integer threshold computed once per mechanism.

* :class:`WordCoin` decides ``U < p`` for an exact rational ``p`` in ``[0, 1]``: a half ``h``
  of ``b`` bits is the first ``b`` bits of the uniform real ``U = (h + V) / 2^b`` (``V``
  uniform on ``[0, 1)``, independent of ``h``); with ``T = floor(p 2^b)``, ``h < T`` gives
  ``U < T / 2^b <= p`` (true), ``h > T`` gives ``U >= (T + 1) / 2^b > p`` (false), and on the
  tie ``h = T``, ``U < p`` exactly when ``V < p 2^b - T``: the rare tie (probability
  ``2^-b``) is resolved by :meth:`WordCoin.resolve`, which reads ``V``'s bits from more words
  until they decide. So ``P(true) = T / 2^b + 2^-b (p 2^b - T) = p``, exactly.
* :func:`below` maps a ``b``-bit half ``h`` to ``floor(h m / 2^b)``, uniform on
  ``0 .. m - 1`` once the halves with ``(h m mod 2^b) < (2^b mod m)`` are rejected
  (Lemire's multiply-shift): each output ``r`` is then hit by exactly
  ``floor(2^b / m)`` halves. A rejected draw is redrawn from fresh words.
* :func:`uniform_below` draws uniform integers below any bound up to ``2^53`` (the hash words
  of local hashing): a power-of-two bound keeps the low bits of a uniform part (every bit
  of a uniform part is uniform and independent), a bound up to ``2^32`` takes :func:`below`
  with rejection, and a larger one keeps ``bit_length(bound - 1)`` bits of a 64-bit word and
  redraws the values at or above the bound (each accepted value equally likely).
* :func:`coin_lanes` draws 64 coins ``U < p`` per word, one per bit *lane*, bit-sliced: the
  ``j``-th random word of a lane group holds the ``j``-th binary digit of 64 independent
  uniforms ``U``, compared at once with the ``j``-th digit ``t_j`` of ``p``. A lane is decided
  at its first digit that differs from ``p``'s (``U < p`` exactly when that digit of ``U`` is
  0 and ``t_j`` is 1), so a lane reads about two digits; words are read eight digits at a
  time, and the rare words with a lane still undecided read more.

The coin and the index draws are written for any half width ``b`` up to 32, so that the
tests can enumerate every half of a tiny width; the privatizers use ``b = 16`` when the
bounds they need fit (a tie or a rejection then costs a redraw for one user in about
``2^16 / m``) and ``b = 32`` otherwise. The unary encodings take their bits from
:func:`coin_lanes` (the own bit from a separate lane), the same independent coins.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

__all__ = [
    "HALF_BITS",
    "WORD_CHUNK",
    "WordCoin",
    "below",
    "coin_lanes",
    "draw_below",
    "half_bits",
    "halves",
    "parts",
    "popcount",
    "uniform_below",
    "uniform_rank",
    "words",
]

#: Largest width of the half-words the privatizers compare with their thresholds.
HALF_BITS = 32
#: Users privatized per chunk on the word path (the temporaries stay in cache and are a
#: fixed size, not a multiple of the number of users).
WORD_CHUNK = 1 << 15
#: Where the low half of a double-width integer sits in memory.
_LOW = 0 if sys.byteorder == "little" else 1


#: Set bits of every byte value (``popcount`` where numpy has no ``bitwise_count``).
_BYTE_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.uint8)


def popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of each element of unsigned integer ``x`` (uint8, ``x``'s shape):
    ``np.bitwise_count`` on numpy >= 2.0, a byte table before it.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp._words import popcount
    >>> popcount(np.array([0, 1, 255, 2**64 - 1], dtype=np.uint64)).tolist()
    [0, 1, 8, 64]
    """
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x)
    return _popcount_by_bytes(x)


def _popcount_by_bytes(x: np.ndarray) -> np.ndarray:
    """:func:`popcount` by a table of the 256 byte values (numpy < 2.0)."""
    x = np.ascontiguousarray(x)
    per_byte = _BYTE_POPCOUNT[x.view(np.uint8)].reshape(*x.shape, x.itemsize)
    return per_byte.sum(axis=-1, dtype=np.uint8)


def words(gen: np.random.Generator, n: int) -> np.ndarray:
    """``n`` independent uniform 64-bit words (``uint64``)."""
    return gen.integers(0, 1 << 64, size=int(n), dtype=np.uint64)


def half_bits(bound: int) -> int:
    """The half width for index draws below ``bound``: 16 bits when ``bound <= 2^16``
    (half the random bits, and operations on 16-bit integers), else 32."""
    return 16 if bound <= 1 << 16 else HALF_BITS


def halves(
    gen: np.random.Generator, n: int, bits: int = HALF_BITS
) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays of ``n`` independent uniform ``bits``-bit integers (``bits`` 16 or 32, as
    contiguous ``uint16`` or ``uint32`` views of ``ceil(2 n bits / 64)`` uniform 64-bit
    words: every aligned ``bits``-bit part of a uniform word is uniform, and the parts are
    independent, so the first ``n`` parts and the next ``n`` are two independent draws)."""
    if bits not in (16, 32):
        raise ValueError(f"bits must be 16 or 32, got {bits!r}")
    n = int(n)
    per_word = 64 // bits
    parts = words(gen, -(-2 * n // per_word)).view(np.uint16 if bits == 16 else np.uint32)
    return parts[:n], parts[n : 2 * n]


def parts(gen: np.random.Generator, n: int, bits: int) -> np.ndarray:
    """``n`` independent uniform ``bits``-bit integers (``bits`` 16, 32 or 64), as a
    contiguous ``uint16``, ``uint32`` or ``uint64`` view of ``ceil(n bits / 64)`` uniform
    64-bit words."""
    if bits not in (16, 32, 64):
        raise ValueError(f"bits must be 16, 32 or 64, got {bits!r}")
    n = int(n)
    drawn = words(gen, -(-n * bits // 64))
    return drawn.view(np.dtype(f"uint{bits}"))[:n]


def uniform_below(
    gen: np.random.Generator, bound: int, count: int, *, narrow: bool = False
) -> np.ndarray:
    """``count`` independent uniform integers on ``0 .. bound - 1`` for a ``bound`` in
    ``[1, 2^53]``, exactly (module notes): ``int64``, or with ``narrow`` the unsigned
    type of the parts they were cut from when the bound is a power of two."""
    bound, count = int(bound), int(count)
    if not 1 <= bound <= 1 << 53:
        raise ValueError(f"bound must lie in [1, 2^53], got {bound}")
    if bound == 1:
        return np.zeros(count, dtype=np.int64)
    if bound & (bound - 1) == 0:  # the low bits of the narrowest uniform part
        width = 16 if bound <= 1 << 16 else 32 if bound <= 1 << 32 else 64
        drawn = parts(gen, count, width)
        out = drawn & drawn.dtype.type(bound - 1)
        return out if narrow else out.astype(np.int64)
    if bound <= 1 << 32:
        bits = half_bits(bound)
        r, rejected = below(parts(gen, count, bits), bound, bits)
        out = r.astype(np.int64)
        if rejected.any():
            at = np.flatnonzero(rejected)
            out[at] = draw_below(gen, bound, at.size, bits)
        return out
    mask = np.uint64((1 << (bound - 1).bit_length()) - 1)
    out = np.empty(count, dtype=np.int64)
    pending = np.arange(count)
    while pending.size:  # each value is accepted with probability above 1/2
        value = words(gen, pending.size) & mask
        accepted = value < np.uint64(bound)
        out[pending[accepted]] = value[accepted]
        pending = pending[~accepted]
    return out


@dataclass(frozen=True)
class WordCoin:
    """The coin ``U < p`` for an exact rational ``p`` in ``[0, 1]``, decided by ``bits``-bit
    halves against the threshold ``T = floor(p 2^bits)`` (module notes).

    Parameters
    ----------
    p : Fraction
        The probability of ``True``, exactly.
    bits : int, default 32
        Width of the halves it is compared with.

    Examples
    --------
    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from ldp._words import WordCoin
    >>> coin = WordCoin(Fraction(1, 3), bits=4)
    >>> coin.threshold, coin.rest   # 16 / 3 = 5 + 1/3
    (5, Fraction(1, 3))
    >>> heads, tied = coin.decide(np.arange(16, dtype=np.uint32))
    >>> int(heads.sum()), np.flatnonzero(tied).tolist()
    (5, [5])
    """

    p: Fraction
    bits: int = HALF_BITS

    def __post_init__(self) -> None:
        if not isinstance(self.p, Fraction) or not 0 <= self.p <= 1:
            raise ValueError(f"p must be a Fraction in [0, 1], got {self.p!r}")
        if not isinstance(self.bits, numbers.Integral) or not 1 <= self.bits <= HALF_BITS:
            raise ValueError(f"bits must be an integer in [1, {HALF_BITS}], got {self.bits!r}")

    @cached_property
    def threshold(self) -> int:
        """``T = floor(p 2^bits)``: a half below it decides ``True``."""
        return int(self.p * (1 << self.bits))

    @cached_property
    def rest(self) -> Fraction:
        """``p 2^bits - T``: the probability of ``True`` on the tie ``h = T``."""
        return self.p * (1 << self.bits) - self.threshold

    def decide(self, half: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(heads, tied)``: ``h < T``, and ``h = T`` where the coin is still undecided
        (never when ``rest`` is 0: the tie is then ``False``)."""
        t = self.threshold
        if t >= 1 << self.bits:  # p = 1
            return np.ones(half.shape, dtype=bool), np.zeros(half.shape, dtype=bool)
        threshold = half.dtype.type(t)
        heads = half < threshold
        if self.rest == 0:
            return heads, np.zeros(half.shape, dtype=bool)
        return heads, half == threshold

    def resolve(self, gen: np.random.Generator, count: int, step_bits: int = 64) -> np.ndarray:
        """``count`` independent coins ``V < rest`` for uniform ``V`` (the ties), exactly:
        ``V``'s bits are read ``step_bits`` at a time from fresh words until the interval
        they place ``V`` in lies on one side of ``rest`` (each step decides with probability
        at least ``1 - 2^-step_bits``)."""
        rest = (self.rest,)
        return np.array(
            [uniform_rank(gen, rest, step_bits) == 0 for _ in range(int(count))], dtype=bool
        )


def uniform_rank(
    gen: np.random.Generator, thresholds: Sequence[Fraction], step_bits: int = 64
) -> int:
    """How many of ``thresholds`` (rationals in ``[0, 1]``) are at most ``V``, for one uniform
    ``V`` on ``[0, 1)``, exactly: ``V``'s bits are read ``step_bits`` at a time from fresh
    words, each narrowing the interval ``[lo, lo + 2^-s)`` that holds ``V`` after ``s`` bits,
    until no threshold lies strictly inside it; then a threshold is at most ``V`` exactly
    when it is at most ``lo`` (one above ``lo`` is at least ``lo + 2^-s > V``). Each word
    decides with probability at least ``1 - len(thresholds) 2^-step_bits``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from ldp._words import uniform_rank
    >>> gen = np.random.default_rng(0)
    >>> ranks = [uniform_rank(gen, (Fraction(1, 3), Fraction(1, 2))) for _ in range(3000)]
    >>> [round(ranks.count(r) / 3000, 1) for r in range(3)]   # 1/3, 1/6, 1/2
    [0.3, 0.2, 0.5]
    """
    scale = 1 << step_bits
    lo, width = Fraction(0), Fraction(1)
    while True:
        width /= scale
        lo += int(gen.integers(0, scale, dtype=np.uint64)) * width
        if not any(lo < t < lo + width for t in thresholds):
            return sum(t <= lo for t in thresholds)


def below(half: np.ndarray, bound: int, bits: int = HALF_BITS) -> tuple[np.ndarray, np.ndarray]:
    """``(r, rejected)``: ``r = floor(h bound / 2^bits)`` for ``bits``-bit halves ``h``
    (``uint32`` when ``bits <= 16``, else ``uint64``), and the halves to reject
    (``h bound mod 2^bits < 2^bits mod bound``); the accepted ``r`` are uniform on
    ``0 .. bound - 1`` (module notes)."""
    if not 1 <= bound <= (1 << bits):
        raise ValueError(f"bound must lie in [1, 2^{bits}], got {bound}")
    kind = np.uint32 if bits <= 16 else np.uint64
    product = half.astype(kind)
    product *= kind(bound)
    limit = (1 << bits) % bound
    if limit and bits in (16, 32):  # the low half of each product, viewed in place
        low = product.view(np.uint16 if bits == 16 else np.uint32)[_LOW::2]
        rejected = low < limit
    elif limit:
        rejected = (product & kind((1 << bits) - 1)) < kind(limit)
    else:
        rejected = np.zeros(half.shape, dtype=bool)
    product >>= kind(bits)
    return product, rejected


def draw_below(gen: np.random.Generator, bound: int, count: int, bits: int) -> np.ndarray:
    """``count`` uniform integers on ``0 .. bound - 1`` from fresh ``bits``-bit halves, by
    :func:`below` with rejection (for redraws: the rejected and the rare)."""
    out = np.empty(int(count), dtype=np.int64)
    pending = np.arange(int(count))
    while pending.size:
        r, rejected = below(halves(gen, pending.size, bits)[0], bound, bits)
        out[pending[~rejected]] = r[~rejected]
        pending = pending[rejected]
    return out


def _digits(p: Fraction):
    """The binary digits of ``p`` in ``[0, 1)``, first after the point first."""
    remainder, denominator = p.numerator, p.denominator
    while True:
        remainder <<= 1
        digit = remainder >= denominator
        if digit:
            remainder -= denominator
        yield digit


def coin_lanes(gen: np.random.Generator, p: Fraction, count: int, planes: int = 8) -> np.ndarray:
    """``count`` words of 64 independent coins ``U < p`` each (bit lanes), bit-sliced (module
    notes): eight digits of every lane first, then more digits for the words with a lane
    still tied with ``p`` (``planes`` digits at a time)."""
    if not isinstance(p, Fraction) or not 0 <= p <= 1:
        raise ValueError(f"p must be a Fraction in [0, 1], got {p!r}")
    count = int(count)
    if p == 0 or p == 1:
        return np.full(count, np.uint64(0xFFFFFFFFFFFFFFFF) if p == 1 else 0, dtype=np.uint64)
    digits = _digits(p)
    drawn = words(gen, count * planes).reshape(planes, count)
    first = drawn[0]  # the tied lanes are every lane: lt = eq & ~u, eq & u become ~u, u
    if next(digits):
        lt, eq = np.invert(first), first  # a 0 against p's 1: U < p; a 1: still tied
    else:
        lt, eq = np.zeros(count, dtype=np.uint64), np.invert(first, out=first)
    lt, eq = _compare_digits(drawn[1:], lt, eq, digits)
    pending = np.flatnonzero(eq)  # words with a lane still tied with p
    while pending.size:
        drawn = words(gen, pending.size * planes).reshape(planes, pending.size)
        more_lt, more_eq = _compare_digits(drawn, lt[pending], eq[pending], digits)
        lt[pending], eq[pending] = more_lt, more_eq
        pending = pending[more_eq != 0]
    return lt


def _compare_digits(drawn: np.ndarray, lt: np.ndarray, eq: np.ndarray, digits) -> tuple:
    """The lanes ``lt`` (decided ``U < p``) and ``eq`` (tied) after the digit planes
    ``drawn`` (one row per digit, compared with ``next(digits)``; ``drawn`` is overwritten)."""
    for u in drawn:
        np.bitwise_and(u, eq, out=u)  # tied lanes whose digit is 1
        np.bitwise_xor(eq, u, out=eq)  # tied lanes whose digit is 0
        if next(digits):
            np.bitwise_or(lt, eq, out=lt)  # a 0 against p's 1: U < p, decided
            eq = u  # a 1 against p's 1: still tied
        # a 1 against p's 0: U > p, decided (it leaves eq, and lt stays 0)
    return lt, eq

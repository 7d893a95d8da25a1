"""Eight independent coins per 16-bit half, by table: the unary encodings' simulation path.

A byte of a unary report holds ``m = 8`` bits, each an independent coin ``U < p``; its
*pattern* ``j`` (the byte's value, coin ``i`` its bit ``m - 1 - i``: the ``np.packbits``
order) then has the law ``P(j) = p^|j| (1 - p)^(m - |j|)`` (``|j|`` the number of ones), and
a pattern drawn from that law is ``m`` independent coins. :class:`CoinBytes` draws patterns
by inverting the exact cumulative law ``F(j) = P(0) + ... + P(j - 1)`` (``F(0) = 0``,
``F(2^m) = 1``) at a uniform ``U`` in ``[0, 1)``: the pattern is ``#{j >= 1: F(j) <= U}``.
``U`` is read in three stages, each exact:

* **a table** on the first ``b = 16`` bits ``h`` of ``U`` (one 16-bit index per byte: the
  cell ``[h, h + 1) / 2^b``): when no ``F(j)`` lies strictly inside the cell, every ``U`` of
  it has one pattern, ``#{j >= 1: ceil(F(j) 2^b) <= h}``, which the table holds. Cells with
  a boundary inside are *split* (at most ``2^m - 1`` of the ``2^b``: a byte is split with
  probability at most ``255 / 65536``). The cell is read as ``h = order[u]`` from a uniform
  ``b``-bit index ``u``, ``order`` a fixed permutation of the cells with the split ones last
  (:attr:`CoinBytes.order`): a bijection of a uniform index is uniform, so ``h`` has the
  same law as ``u`` itself, and the split cells are the indices ``u >= first_split``, found
  by one comparison;
* **a threshold search** for a split cell: ``r = 48`` more bits ``s`` (from a fresh word)
  place ``U`` in ``[P, P + 1) / 2^(b + r)`` with ``P = h 2^r + s``; with
  ``T_j = floor(F(j) 2^(b + r))``, ``T_j < P`` gives ``F(j) < U`` and ``T_j > P`` gives
  ``F(j) > U``; ``T_j = P`` decides only when ``F(j) 2^(b + r)`` is the integer ``P``
  (then ``F(j) <= U``). So the count of ``T_j <= P`` is the pattern unless some ``T_j = P``
  is inexact (probability at most ``255 / 2^64`` per byte);
* **more words** in that last case: ``U``'s next bits are read 64 at a time, the interval
  that holds ``U`` narrowed, until no ``F(j)`` lies inside it (:meth:`CoinBytes.resolve`;
  each step decides unless a boundary falls in an interval of width ``2^-64`` times the
  last).

Each stage reads bits that no other byte reads, so the bytes are independent, and within a
byte every cell and sub-cell is decided by exactly the patterns whose intervals it meets, in
proportion to the overlap: ``P(pattern j) = F(j + 1) - F(j)`` exactly. Sixteen random bits
per eight coins (a quarter of a word), against about ten words per 64 coins for the
bit-sliced comparison of :func:`ldp._words.coin_lanes`.

The widths are parameters so that the tests can enumerate every half and sub-cell of tiny
ones (``coins``, ``bits``, ``refine_bits``); the privatizers use 8, 16 and 48.
"""

from __future__ import annotations

import bisect
import numbers
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from ldp._words import uniform_rank, words

__all__ = ["CoinBytes"]

#: Bytes drawn and looked up at once (their words, 64 KB, and ``intp`` indices stay in cache)
_LOOKUP = 1 << 15
#: Boundaries inside one split cell up to which :meth:`CoinBytes.refine` compares them one by
#: one (more, for very small or large ``p``: a binary search over all of them)
_SCAN = 8


@dataclass(frozen=True)
class CoinBytes:
    """Patterns of ``coins`` independent coins ``U < p`` (module notes), drawn ``bits`` bits
    per pattern with exact tie handling.

    Parameters
    ----------
    p : Fraction
        The probability of every coin, exactly, in ``[0, 1]``.
    coins : int, default 8
        Coins per pattern (1 to 8).
    bits : int, default 16
        Width of the table's index (1 to 16).
    refine_bits : int, default 48
        Further bits read for a split cell (``bits + refine_bits <= 64``).

    Examples
    --------
    >>> from fractions import Fraction
    >>> import numpy as np
    >>> from ldp._coin_bytes import CoinBytes
    >>> sampler = CoinBytes(Fraction(1, 4), coins=2, bits=4, refine_bits=4)
    >>> [str(f) for f in sampler.cumulative]   # P(00), P(01), P(10), P(11): 9, 3, 3, 1 / 16
    ['0', '9/16', '3/4', '15/16', '1']
    >>> sampler.table.tolist()   # every cell of width 1/16 holds one pattern: no split
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3]
    >>> patterns = sampler.draw(np.random.default_rng(0), 16_000)
    >>> np.bincount(patterns, minlength=4).round(-3).tolist()
    [9000, 3000, 3000, 1000]
    """

    p: Fraction
    coins: int = 8
    bits: int = 16
    refine_bits: int = 48

    def __post_init__(self) -> None:
        if not isinstance(self.p, Fraction) or not 0 <= self.p <= 1:
            raise ValueError(f"p must be a Fraction in [0, 1], got {self.p!r}")
        for name, value, top in (("coins", self.coins, 8), ("bits", self.bits, 16)):
            if not isinstance(value, numbers.Integral) or not 1 <= value <= top:
                raise ValueError(f"{name} must be an integer in [1, {top}], got {value!r}")
        r = self.refine_bits
        if not isinstance(r, numbers.Integral) or not 1 <= r <= 64 - self.bits:
            raise ValueError(f"refine_bits must be an integer in [1, {64 - self.bits}], got {r!r}")

    @cached_property
    def cumulative(self) -> tuple[Fraction, ...]:
        """``F(0), ..., F(2^coins)``: the exact cumulative law of the patterns."""
        m = self.coins
        out = [Fraction(0)]
        for j in range(1 << m):
            ones = j.bit_count()
            out.append(out[-1] + self.p**ones * (1 - self.p) ** (m - ones))
        return tuple(out)

    @cached_property
    def table(self) -> np.ndarray:
        """``uint16`` over the ``2^bits`` cells: the cell's pattern, plus ``2^coins`` when a
        boundary splits it (the pattern is then the one at the cell's start)."""
        scale = 1 << self.bits
        inner = self.cumulative[1:-1]  # F(1) .. F(2^m - 1)
        starts = np.array([-(-f.numerator * scale // f.denominator) for f in inner])
        out = np.searchsorted(starts, np.arange(scale), side="right").astype(np.uint16)
        for f in inner:
            if (f * scale).denominator != 1:  # strictly inside cell floor(F 2^b)
                out[int(f * scale)] |= np.uint16(1 << self.coins)
        return out

    @cached_property
    def order(self) -> np.ndarray:
        """The cells in draw order (``int64``): the unsplit ones in increasing order, then
        the split ones; a uniform index ``u`` draws the cell ``order[u]`` (a bijection of
        the cells, so that cell is uniform too)."""
        split = self.table >= np.uint16(1 << self.coins)
        return np.concatenate([np.flatnonzero(~split), np.flatnonzero(split)])

    @cached_property
    def first_split(self) -> int:
        """The first index ``u`` whose cell ``order[u]`` is split (``2^bits`` when none is)."""
        return int(np.count_nonzero(self.table < np.uint16(1 << self.coins)))

    @cached_property
    def lookup(self) -> np.ndarray:
        """``uint8`` over the indices ``u``: the pattern of the cell ``order[u]`` (for a split
        cell, the pattern at its start; the refinement replaces it)."""
        out = (self.table[self.order] & np.uint16((1 << self.coins) - 1)).astype(np.uint8)
        out.flags.writeable = False
        return out

    @cached_property
    def inside(self) -> np.ndarray:
        """``int64`` over the cells: the number of boundaries ``F(j)`` strictly inside each
        (nonzero exactly at the split cells)."""
        scale = 1 << self.bits
        cells = [int(f * scale) for f in self.cumulative[1:-1] if (f * scale).denominator != 1]
        return np.bincount(np.array(cells, dtype=np.intp), minlength=scale)

    @cached_property
    def most_inside(self) -> int:
        """The most boundaries inside one cell."""
        return int(self.inside.max())

    @cached_property
    def thresholds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(T, inexact)``: ``T_j = floor(F(j) 2^(bits + refine_bits))`` for ``j = 1 ..
        2^coins - 1`` (``uint64``) and whether ``F(j) 2^(bits + refine_bits)`` is not an
        integer."""
        scale = 1 << (self.bits + self.refine_bits)
        inner = self.cumulative[1:-1]
        cut = np.array([int(f * scale) for f in inner], dtype=np.uint64)
        inexact = np.array([(f * scale).denominator != 1 for f in inner])
        return cut, inexact

    def draw(
        self, gen: np.random.Generator, count: int, out: np.ndarray | None = None
    ) -> np.ndarray:
        """``count`` independent patterns (``uint8``) from ``gen``, written into ``out`` (a
        contiguous ``uint8`` array of ``count`` elements) when given."""
        if out is None:
            out = np.empty(int(count), dtype=np.uint8)
        split, cells = self.fill(gen, out)
        if split.size:
            out[split] = self.refine(gen, cells)
        return out

    def fill(self, gen: np.random.Generator, out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The table stage alone: ``out`` (contiguous ``uint8``) filled with patterns, except
        at the split cells, returned as ``(positions, cells)`` for :meth:`refine` (which
        may run later, on the split cells of several fills at once).

        Each byte reads a uniform index ``u`` and takes the cell ``order[u]`` (:attr:`order`:
        the split cells last, so that they are the ``u >= first_split``); its pattern is
        looked up in :attr:`lookup` through an ``intp`` copy, ``_LOOKUP`` bytes at a time (their
        words drawn for them: every temporary is small, reused and in cache)."""
        flat = out.reshape(-1)
        count = flat.size
        buffer = np.empty(min(count, _LOOKUP), dtype=np.intp)
        where, cells = [], []
        for start in range(0, count, _LOOKUP):
            stop = min(start + _LOOKUP, count)
            if self.bits == 16:  # four indices per word
                index = words(gen, -(-(stop - start) // 4)).view(np.uint16)[: stop - start]
            else:
                index = words(gen, stop - start) >> np.uint64(64 - self.bits)
            at = buffer[: stop - start]
            np.copyto(at, index, casting="unsafe")
            np.take(self.lookup, at, out=flat[start:stop], mode="wrap")  # every index < 2^bits
            if self.first_split < 1 << self.bits:
                split = np.flatnonzero(index >= self.first_split)
                where.append(split + start)
                cells.append(self.order[index[split]])
        if not where:
            return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.uint64)
        return np.concatenate(where), np.concatenate(cells).astype(np.uint64)

    def refine(self, gen: np.random.Generator, cells: np.ndarray) -> np.ndarray:
        """The patterns of the split cells ``cells``: ``refine_bits`` more bits, then
        :meth:`resolve` where a threshold is hit inexactly.

        The count of ``T_j <= P`` is the cell's starting pattern (every boundary at or
        before the cell's start has ``T_j <= h 2^r <= P``, every one at or after its end
        ``T_j >= (h + 1) 2^r > P``) plus the count among the boundaries inside the cell
        (:attr:`inside`), compared one by one when they are few."""
        r = self.refine_bits
        cut, inexact = self.thresholds
        place = cells.astype(np.uint64) << np.uint64(r)
        place |= words(gen, cells.size) >> np.uint64(64 - r)
        at = cells.astype(np.intp)
        if self.most_inside > _SCAN:
            hi = np.searchsorted(cut, place, side="right")  # the count of T_j <= P
        else:
            first = (self.table[at] & np.uint16((1 << self.coins) - 1)).astype(np.intp)
            inside = self.inside[at]
            hi = first.copy()
            for step in range(self.most_inside):
                below = cut[np.minimum(first + step, cut.size - 1)] <= place
                hi += below & (inside > step)
        # the largest j with T_j <= P: undecided when it equals P inexactly (the exact
        # thresholds equal to P come first: F is nondecreasing)
        last = np.maximum(hi, 1) - 1
        tied = (hi > 0) & (cut[last] == place) & inexact[last]
        out = hi.astype(np.uint8)
        for i in np.flatnonzero(tied):
            start = Fraction(int(place[i]), 1 << (self.bits + r))
            out[i] = self.resolve(gen, start, Fraction(1, 1 << (self.bits + r)))
        return out

    def resolve(
        self, gen: np.random.Generator, start: Fraction, width: Fraction, step_bits: int = 64
    ) -> int:
        """The pattern of ``U`` uniform on ``[start, start + width)``: the boundaries
        ``F(j)`` at most ``start``, and those inside the interval at most ``U``, whose next
        bits :func:`~ldp._words.uniform_rank` reads ``step_bits`` at a time."""
        inner = self.cumulative[1:-1]
        first = bisect.bisect_right(inner, start)  # boundaries <= start
        last = bisect.bisect_left(inner, start + width)  # boundaries < start + width
        if last == first:  # none inside
            return first
        return first + uniform_rank(
            gen, [(f - start) / width for f in inner[first:last]], step_bits
        )

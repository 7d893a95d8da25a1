"""Uniform subsets of at most 63 slots held in 64-bit words, of sizes drawn with given odds:
the simulation path of subset selection for ``k <= 64`` (a numpy ``Generator``; no byte
protocol to follow, only its law).

The ``N`` slots are the top ``N`` bits of a word (slot ``t`` is bit ``63 - t``), cut into
four 16-bit quarters of ``s_0 .. s_3`` slots. A ``c``-subset is a *composition*
``(m_0, .., m_3)`` (``m_i`` of its slots in quarter ``i``, ``sum m_i = c``) and, in each
quarter, one of the ``C(s_i, m_i)`` patterns with ``m_i`` bits there. A user's size
``c_j`` (probability ``o_j / sum o``, the odds ``o``) and a uniform ``c_j``-subset are drawn
exactly in two independent steps:

* the *outcome*, the size with the composition, with probability
  ``o_j / sum o * prod C(s_i, m_i) / C(N, c_j)`` (Vandermonde's identity: a size's
  compositions add up to its probability), from one uniform ``b``-bit word ``w``
  (``b = 64``). The outcomes' cumulative probabilities ``b_1 < b_2 < ..`` cut ``[0, 1)``
  into consecutive ranges, and ``w`` is the first ``b`` bits of the uniform real
  ``U = (w + V) / 2^b`` (``V`` uniform on ``[0, 1)``, independent of ``w``), which lies in
  exactly one range. With ``B_i = floor(b_i 2^b)``, ``w < B_i`` gives ``U < b_i`` and
  ``w > B_i`` gives ``U > b_i``; on the tie ``w = B_i`` with ``b_i 2^b`` not an integer
  (probability ``2^-b`` a boundary), ``U < b_i`` exactly when ``V < b_i 2^b - B_i``, which
  :func:`ldp._words.uniform_rank` decides from more words. So every outcome has exactly its
  probability, and no word is rejected. The range is found by a *guide table* on the top
  ``g`` bits of the word (``g = 16``): a *cell* (the words sharing those bits) without a
  ``B_i`` names its outcome; a word in a cell that a boundary cuts (about one in fifty at
  ``k = 64``) is placed by a finer guide on its next 8 bits, and one in a finer cell that a
  boundary cuts too (about one in 200 of those) by a search of the ``B_i``. So a word's top
  ``g`` bits are
  drawn first (a quarter of a 64-bit word), and its low ``b - g`` bits only where its cell
  is cut: the low bits of a uniform word are uniform and independent of its top bits, so
  drawing them later draws the same word.
* each quarter's pattern, uniform among those with ``m_i`` bits: a table row of ``2^h``
  entries holds each of the ``C(s_i, m_i)`` patterns ``floor(2^h / C)`` times and
  ``2^h mod C`` *rejection* marks, and a uniform ``h``-bit index (the low ``h`` bits of a
  16-bit part) picks an entry; the accepted entries are uniform on the patterns. Each row
  takes the narrowest ``h`` whose share of marks is within ``2^-10`` of a 16-bit row's
  (:func:`row_bits`): the rows that users read most are then small enough to stay in the
  caches. The mark is ``0xFFFF``, more bits than any
  pattern of its row, so a word drew a mark exactly when it holds more bits than its size;
  its four indices are then redrawn (the accepted tuples are uniform on the product).

A user takes a quarter of a word for its cell and a word for its four pattern indices, one
guide and four pattern look-ups, and whole-word operations: no per-value rounds, no
division, no coin of its own for the size. The word widths are parameters so that the tests
can enumerate every word of a small width.

The ``k - 1`` slots and ``x`` are the ``k`` values rotated: :func:`insert_value` sets the bit
below the slots where ``x`` is included and rotates the top ``k`` bits so that it lands on
``x``'s bit, and slot ``t`` on value ``(x + 1 + t) mod k`` (a bijection onto the values
other than ``x``, so a uniform subset of the slots is a uniform subset of those values).
Value ``v`` is then bit ``63 - v`` and the big-endian word is the bit-packed row (bit ``v``
is bit ``7 - v % 8`` of byte ``v // 8``).
"""

from __future__ import annotations

import itertools
import math
import numbers
import sys
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from ldp._words import popcount, uniform_rank, words

__all__ = ["SubsetWords", "insert_value"]

_QUARTER = 16
#: The column of quarter ``i`` (bits ``16 i .. 16 i + 15``) in a word viewed as four uint16.
_QUARTER_COLUMN = tuple(range(4)) if sys.byteorder == "little" else (3, 2, 1, 0)
#: Bits of the guide table's index (the top bits of a word that name its cell).
_GUIDE_BITS = 16
#: Bits below a cut cell's that the second, finer guide reads: 2^16 cells cut by about
#: a thousand boundaries at ``k = 64`` leave about one word in 200 of a cut cell to search.
_FINE_BITS = 8
#: The guide's entry of a cell that a range boundary cuts: its row of the pattern table
#: holds marks alone (the outcomes are numbered from 1).
_CUT = 0
_MARK = 0xFFFF


def row_bits(size: int, m: int, index_bits: int) -> int:
    """The index width ``h`` of row ``m`` of a ``size``-slot quarter: the narrowest with
    ``2^h`` at least its ``C = C(size, m)`` patterns whose share of marks,
    ``(2^h mod C) / 2^h``, exceeds that of the widest row (``h = index_bits``) by at most
    ``2^-10``. A narrower row is a smaller table, read from the caches more often, and
    redraws no more often: the rows that users read most at ``k = 64`` take 2^12 to 2^14
    entries instead of 2^16.

    Examples
    --------
    >>> from ldp.mechanisms.categorical._subset_words import row_bits
    >>> [row_bits(15, m, 16) for m in (3, 4, 5)]   # C = 455, 1365: 2^12 is 1 past 9 C, 3 C
    [12, 12, 16]
    """
    count = math.comb(size, m)
    widest = Fraction((1 << index_bits) % count, 1 << index_bits) + Fraction(1, 1 << 10)
    h = (count - 1).bit_length()
    while h < index_bits and Fraction((1 << h) % count, 1 << h) > widest:
        h += 1
    return h


def _pattern_rows(size: int, index_bits: int) -> list[np.ndarray]:
    """Rows ``m = 0 .. size`` of ``2^h`` entries (``h = row_bits(size, m, index_bits)``):
    the ``size``-bit patterns with ``m`` bits, in the top ``size`` bits of a quarter, each
    ``floor(2^h / C(size, m))`` times, then rejection marks."""
    by_count: list[list[int]] = [[] for _ in range(size + 1)]
    for v in range(1 << size):
        by_count[bin(v).count("1")].append(v << (_QUARTER - size))
    rows = []
    for m, patterns in enumerate(by_count):
        row = np.full(1 << row_bits(size, m, index_bits), _MARK, dtype=np.uint16)
        copies = row.size // len(patterns)
        row[: copies * len(patterns)] = np.tile(np.array(patterns, dtype=np.uint16), copies)
        rows.append(row)
    return rows


def _guide_entries(floors: np.ndarray, firsts: np.ndarray, shift: int) -> np.ndarray:
    """The guide's entries of the cells of ``2^shift`` words from ``firsts``: ``1 + r``
    where no ``B_i`` (``floors``, increasing) lies in the cell, ``r`` of them lying below it
    (every word of the cell is in range ``r``), else ``_CUT``."""
    below = np.searchsorted(floors, firsts, side="left")
    ends = firsts + np.uint64((1 << shift) - 1)  # each cell's last word
    pure = below == np.searchsorted(floors, ends, side="right")
    return np.where(pure, below + 1, _CUT).astype(np.uint16)


@dataclass(frozen=True)
class SubsetWords:
    """Uniform subsets of ``slots`` slots, of the sizes ``sizes`` drawn with the odds
    ``odds``, as words (module notes).

    Parameters
    ----------
    slots : int
        ``N`` in ``1 .. 63``: the top ``N`` bits of a word.
    sizes : tuple of int
        The subset sizes, each in ``0 .. N``; a user draws size ``sizes[j]`` (``which = j``).
    odds : tuple of int or Fraction, optional
        The sizes' relative probabilities, exactly (non-negative, not all zero); equal when
        omitted.
    rank_bits : int, default 64
        ``b``: width of the words an outcome is read from; :meth:`sample` needs 64.
    index_bits : int, default 16
        The widest rows' index width, at most 16 (``2^index_bits`` at least the number of
        patterns of every row); each row takes :func:`row_bits` of it, the low bits of a
        16-bit part. With 16 bits the indices of about one user in 25 are redrawn (at
        ``k = 64, d = 17``), and the rows take 1.9 MB in all.
    guide_bits : int, default 16
        ``g``: the top bits of a word that index the guide table, at most ``min(b, 16)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.categorical._subset_words import SubsetWords
    >>> draw = SubsetWords(5, (2, 3), odds=(1, 3))
    >>> words, which = draw.sample(np.random.default_rng(3), 8)
    >>> which.tolist()   # size 3 with probability 3/4
    [1, 1, 0, 1, 1, 0, 1, 0]
    >>> [bin(int(w) >> 59).count("1") for w in words]   # the top 5 bits: 2 + which
    [3, 3, 2, 3, 3, 2, 3, 2]
    >>> bool(np.all(words & np.uint64((1 << 59) - 1) == 0))   # nothing below the slots
    True
    """

    slots: int
    sizes: tuple[int, ...]
    odds: tuple[int | Fraction, ...] | None = None
    rank_bits: int = 64
    index_bits: int = 16
    guide_bits: int = _GUIDE_BITS

    def __post_init__(self) -> None:
        if not isinstance(self.slots, int) or not 1 <= self.slots <= 63:
            raise ValueError(f"slots must be an integer in [1, 63], got {self.slots!r}")
        if not self.sizes or not all(0 <= c <= self.slots for c in self.sizes):
            raise ValueError(f"sizes must lie in [0, slots = {self.slots}], got {self.sizes!r}")
        if self.odds is not None and (
            len(self.odds) != len(self.sizes)
            or not all(isinstance(o, numbers.Rational) and o >= 0 for o in self.odds)
            or not any(self.odds)
        ):
            raise ValueError(
                "odds must be one non-negative int or Fraction a size, not all zero, "
                f"got {self.odds!r}"
            )
        widest = max(math.comb(s, s // 2) for s in self.quarter_slots)
        if not widest <= 1 << self.index_bits <= 1 << 16:
            raise ValueError(
                f"index_bits must fit every pattern and 16 bits, got {self.index_bits}"
            )
        if not 1 <= self.rank_bits <= 64:
            raise ValueError(f"rank_bits must lie in [1, 64], got {self.rank_bits}")
        if not 1 <= self.guide_bits <= min(self.rank_bits, _GUIDE_BITS):
            raise ValueError(
                f"guide_bits must lie in [1, min(rank_bits, {_GUIDE_BITS})], got {self.guide_bits}"
            )

    @property
    def quarter_slots(self) -> tuple[int, ...]:
        """``s_0 .. s_3``: the slots in each quarter (quarter ``i`` is bits
        ``16 i .. 16 i + 15``; the slots are the top ``N`` bits)."""
        low = 64 - self.slots
        return tuple(min(_QUARTER, max(0, _QUARTER * (i + 1) - low)) for i in range(4))

    @property
    def probabilities(self) -> tuple[Fraction, ...]:
        """Each size's probability, exactly."""
        odds = [Fraction(o) for o in (self.odds or (1,) * len(self.sizes))]
        return tuple(o / sum(odds) for o in odds)

    def outcomes(self) -> list[tuple[int, tuple[int, ...], Fraction]]:
        """``(j, (m_0, .., m_3), probability)`` of every outcome with a positive
        probability, in the order of their ranges (outcome ``i + 1`` is entry ``i``): size
        after size, the compositions in the order of ``itertools.product`` over the
        quarters."""
        quarters = self.quarter_slots
        out = []
        for j, (c, p) in enumerate(zip(self.sizes, self.probabilities)):
            if p == 0:
                continue
            for counts in itertools.product(*(range(s + 1) for s in quarters)):
                if sum(counts) == c:
                    ways = math.prod(math.comb(s, m) for s, m in zip(quarters, counts))
                    out.append((j, counts, p * Fraction(ways, math.comb(self.slots, c))))
        return out

    @cached_property
    def _steps(self) -> int | None:
        """``+1`` when ``sizes[j] = sizes[0] + j``, ``-1`` when ``sizes[j] = sizes[0] - j``
        for every ``j`` (subset selection's ``d, d - 1``), else None."""
        first, count = self.sizes[0], len(self.sizes)
        for step in (1, -1):
            if self.sizes == tuple(first + step * j for j in range(count)):
                return step
        return None

    @cached_property
    def _tables(self) -> dict:
        """The outcomes' boundaries, the guide table, the pattern rows."""
        quarters = self.quarter_slots
        flat: list[np.ndarray] = []
        start: dict[tuple[int, int], int] = {}  # (quarter size, m): its row's first entry
        for size in sorted(set(quarters)):
            for m, row in enumerate(_pattern_rows(size, self.index_bits)):
                start[size, m] = sum(r.size for r in flat)
                flat.append(row)
        full = (1 << self.index_bits) - 1
        flat.append(np.full(full + 1, _MARK, dtype=np.uint16))  # the cut cells' row
        row_of = [[sum(r.size for r in flat[:-1])] * 4]  # outcome 0: the cut cells
        mask_of = [sum(full << (_QUARTER * i) for i in range(4))]
        size_of = [0]
        bounds: list[Fraction] = []
        cumulative = Fraction(0)
        for j, counts, p in self.outcomes():
            bases, mask = [0] * 4, 0
            for i, (size, m) in enumerate(zip(quarters, counts)):
                column = _QUARTER_COLUMN[i]
                bases[column] = start[size, m]
                mask |= ((1 << row_bits(size, m, self.index_bits)) - 1) << (_QUARTER * column)
            row_of.append(bases)
            mask_of.append(mask)
            size_of.append(j)
            cumulative += p
            bounds.append(cumulative)
        if len(row_of) > 1 << 16:
            raise ValueError(f"too many outcomes for the guide table: {len(row_of)}")
        bounds.pop()  # the last is 1: every word lies below it
        scale = 1 << self.rank_bits
        floors = [b.numerator * scale // b.denominator for b in bounds]  # B_i
        ties: dict[int, list[Fraction]] = {}  # B -> the b_i 2^b - B_i of its boundaries
        for b, floor in zip(bounds, floors):
            ties.setdefault(floor, []).append(b * scale - floor)
        cut = self.rank_bits - self.guide_bits
        found = np.array(floors, dtype=np.uint64)
        cells = np.arange(1 << self.guide_bits, dtype=np.uint64) << np.uint64(cut)
        guide = _guide_entries(found, cells, cut)
        fine = min(_FINE_BITS, cut)  # the finer guide of the cut cells
        cut_cells = np.flatnonzero(guide == _CUT).astype(np.uint64)
        subcells = np.arange(1 << fine, dtype=np.uint64) << np.uint64(cut - fine)
        firsts = ((cut_cells << np.uint64(cut))[:, None] | subcells).reshape(-1)
        cut_rank = np.zeros(guide.size, dtype=np.intp)
        cut_rank[cut_cells.astype(np.intp)] = np.arange(cut_cells.size)
        return {
            "cut": np.uint64(cut),
            "guide": guide,
            "fine_bits": fine,
            "cut_rank": cut_rank,
            "fine": _guide_entries(found, firsts, cut - fine),
            "floors": found,
            "ties": {b: tuple(r) for b, r in ties.items() if any(r)},
            "rows": np.array(row_of, dtype=np.uint32),
            "masks": np.array(mask_of, dtype=np.uint64),
            "patterns": np.concatenate(flat),
            "size_of": np.array(size_of, dtype=np.uint8),
            "first_of_one": size_of.index(1) if len(self.sizes) == 2 and 1 in size_of else None,
            "sizes": np.array(self.sizes, dtype=np.uint8),
        }

    def locate(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(outcome, tied)`` of ``rank_bits``-bit words: the outcome of each word's range
        (by the guide where its cell decides, else by a finer guide of the cut cells on the
        next ``_FINE_BITS`` bits, else by a search of the ``B_i``), taking ``U``
        above every boundary in the word's interval; ``tied`` marks the words whose interval
        holds a boundary strictly inside it, which :meth:`place` resolves."""
        t = self._tables
        outcome = self._guided(words).astype(np.intp)
        tied = np.zeros(words.size, dtype=bool)
        cut = np.flatnonzero(outcome == _CUT)
        if cut.size:  # the finer guide on the next bits of the cut cells' words
            chosen = words[cut]
            fine = t["fine_bits"]
            key = np.take(t["cut_rank"], (chosen >> t["cut"]).view(np.int64)) << fine
            key |= ((chosen >> (t["cut"] - np.uint64(fine))) & np.uint64((1 << fine) - 1)).view(
                np.int64
            )
            outcome[cut] = np.take(t["fine"], key)
            cut = cut[outcome[cut] == _CUT]
        if cut.size:  # a boundary cuts the finer cell too: a search
            chosen = words[cut]
            above = np.searchsorted(t["floors"], chosen, side="right")  # B_i <= w
            outcome[cut] = above + 1
            last = t["floors"][np.maximum(above, 1) - 1]
            maybe = np.flatnonzero((above > 0) & (last == chosen))
            tied[cut[maybe]] = [int(w) in t["ties"] for w in chosen[maybe].tolist()]
        return outcome, tied

    def place(self, gen: np.random.Generator, words: np.ndarray) -> np.ndarray:
        """The outcome of each ``rank_bits``-bit word, exactly: :meth:`locate`, and on a tie
        ``w = B_i`` the rest ``V`` of ``U`` compared with the boundaries in ``w``'s interval
        (:func:`~ldp._words.uniform_rank`; those above ``V`` move ``U`` one range down)."""
        outcome, tied = self.locate(words)
        rests = self._tables["ties"]
        for u in np.flatnonzero(tied).tolist():
            inside = rests[int(words[u])]
            outcome[u] -= len(inside) - uniform_rank(gen, inside)
        return outcome

    def _guided(self, words: np.ndarray) -> np.ndarray:
        """The guide's entries of the words' cells (``_CUT`` where a boundary cuts it)."""
        t = self._tables
        key = (words >> t["cut"]).view(np.int64)  # the cell, below 2^guide_bits: no cast
        # every key indexes the guide, so "wrap" never wraps; it only spares the bounds
        # check of the default mode (tested)
        return np.take(t["guide"], key, mode="wrap")

    def which(self, outcome: np.ndarray) -> np.ndarray:
        """The size index ``j`` of each outcome (``uint8``; 0 for ``_CUT``)."""
        first = self._tables["first_of_one"]
        if first is not None:  # two sizes: those of size 1 follow those of size 0
            return np.greater_equal(outcome, first).view(np.uint8)
        return np.take(self._tables["size_of"], outcome, mode="wrap")

    def patterns(self, outcome: np.ndarray, indices: np.ndarray) -> np.ndarray:
        """The words of the outcomes ``outcome`` with the pattern indices ``indices``
        (uniform 64-bit words, overwritten: each of its 16-bit parts, the part of quarter
        ``i`` in column ``_QUARTER_COLUMN[i]`` of its ``uint16`` view, is cut to the low
        ``row_bits`` of that quarter's row); a word holds a rejection mark where it has
        more bits than its size."""
        t = self._tables
        # an outcome names a row of ``rows`` and ``masks``, and each entry plus an index
        # below 2^row_bits lies in ``patterns`` (the tables are built so; tested): "wrap"
        # never wraps, it only spares the bounds checks of the default mode
        indices &= np.take(t["masks"], outcome, mode="wrap")
        at = np.take(t["rows"], outcome, axis=0, mode="wrap")
        at += indices.view(np.uint16).reshape(-1, 4)
        return np.take(t["patterns"], at, mode="wrap").view(np.uint64).reshape(-1)

    def sample(self, gen: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``(subsets, which)``: for each of ``n`` users independently, a size index ``j``
        with its probability and a uniform ``sizes[j]``-subset (``uint64`` words), from
        ``gen``'s 64-bit words (``rank_bits`` must be 64): :meth:`draft` then
        :meth:`finish`."""
        out, which, unfinished, outcome, keys = self.draft(gen, n)
        out[unfinished], which[unfinished] = self.finish(gen, outcome, keys)
        return out, which

    def draft(
        self, gen: np.random.Generator, n: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(out, which, unfinished, outcome, keys)``: the subsets and size indices of
        ``n`` users (a quarter of a word for the cell of each, a word for the four pattern
        indices), where a user's cell decides the outcome and its first indices draw no
        mark; the positions of the others (their entries of ``out`` and ``which`` are not
        theirs yet), and the guide's entries and cells of those others, for
        :meth:`finish`, which may run later: each user's draw uses only its own bits."""
        if self.rank_bits != 64:
            raise ValueError(f"draft needs rank_bits = 64, got {self.rank_bits}")
        drawn = words(gen, n + -(-n // 4))  # one call: a word, then a quarter, a user
        keys = drawn[n:].view(np.uint16)[:n]  # the cells: only their top bits are drawn
        if self.guide_bits < 16:
            keys = keys >> np.uint16(16 - self.guide_bits)
        outcome = np.take(self._tables["guide"], keys, mode="wrap")  # keys < 2^g: no wrap
        out = self.patterns(outcome, drawn[:n])
        which = self.which(outcome)
        unfinished = self._misfits(out, which)  # a mark, or a cut cell's row
        return out, which, unfinished, outcome[unfinished], keys[unfinished]

    def finish(
        self, gen: np.random.Generator, outcome: np.ndarray, keys: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(subsets, which)`` of the users :meth:`draft` left unfinished (the guide's
        entries ``outcome`` and the cells ``keys`` of those users): a cut cell's top bits
        are placed with fresh low bits, then the four indices are drawn until no mark is
        drawn."""
        outcome = outcome.astype(np.intp)
        cut = np.flatnonzero(outcome == _CUT)
        if cut.size:  # the cell's bits on top, fresh bits below
            chosen = keys[cut].astype(np.uint64) << self._tables["cut"]
            chosen |= words(gen, cut.size) >> np.uint64(self.guide_bits)
            outcome[cut] = self.place(gen, chosen)
        which = self.which(outcome)
        out = self.patterns(outcome, words(gen, outcome.size))
        again = self._misfits(out, which)
        while again.size:
            drawn = self.patterns(outcome[again], words(gen, again.size))
            out[again] = drawn
            again = again[self._misfits(drawn, which[again])]
        return out, which

    def _misfits(self, subsets: np.ndarray, which: np.ndarray) -> np.ndarray:
        """The positions of the words that do not hold ``sizes[which]`` bits. When the
        sizes step by one (``sizes[j] = sizes[0] + j``, or ``sizes[0] - j`` as subset
        selection's ``d, d - 1``), ``popcount -+ which`` is compared with ``sizes[0]``
        instead of looking the sizes up: a uint8 difference that wraps where
        ``popcount < which`` equals ``sizes[0] <= 63`` exactly when ``popcount = sizes[0]
        + which``, and a sum is at most 65."""
        counts = popcount(subsets)
        if self._steps == 1:
            counts -= which
        elif self._steps == -1:
            counts += which
        else:
            return np.flatnonzero(counts != np.take(self._tables["sizes"], which))
        return np.flatnonzero(counts != self.sizes[0])


def insert_value(subsets: np.ndarray, x: np.ndarray, include: np.ndarray, k: int) -> np.ndarray:
    """Subsets of the values ``0 .. k - 1`` (value ``v`` = bit ``63 - v``) from subsets of the
    ``k - 1`` slots (slot ``t`` = bit ``63 - t`` stands for value ``(x + 1 + t) mod k``),
    with ``x`` added where ``include``; ``subsets`` is overwritten.

    The top ``k`` bits are a field of ``k`` positions, position ``i`` being bit
    ``64 - k + i``: slot ``t`` is position ``k - 1 - t``, and ``include`` is set at position
    0, the bit below the slots. The field is rotated down by ``s = x + 1`` positions
    (position ``i`` gets position ``(i + s) mod k``): the word shifted right by ``s`` gives the
    positions ``i < k - s``, shifted left by ``k - s`` the others (bits shifted past the
    field's top fall out of the word; those shifted below it are cleared when ``k < 64``).
    Value ``v`` (position ``k - 1 - v``) then holds position ``(x - v) mod k``: position 0,
    ``include``, for ``v = x``, and for ``v != x`` slot ``k - 1 - ((x - v) mod k)``, which
    runs over the slots as ``v`` runs over the other values.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.categorical._subset_words import insert_value
    >>> slots = np.array([0b11 << 62], dtype=np.uint64)   # slots 0 and 1 of k - 1 = 3
    >>> out = insert_value(slots, np.array([1]), np.array([True]), 4)
    >>> [v for v in range(4) if int(out[0]) >> (63 - v) & 1]   # x = 1; values 2 and 3
    [1, 2, 3]
    """
    at = x.view(np.uint64) if x.dtype == np.int64 else x.astype(np.uint64)  # 0 <= x < k
    own = include.view(np.uint8)
    if k < 64:
        own = np.left_shift(own, 64 - k, dtype=np.uint64)
    subsets |= own  # position 0
    rotated = np.right_shift(subsets, at + np.uint64(1))
    np.left_shift(subsets, np.uint64(k - 1) - at, out=subsets)
    rotated |= subsets
    if k < 64:
        rotated &= np.uint64(((1 << k) - 1) << (64 - k))
    return rotated

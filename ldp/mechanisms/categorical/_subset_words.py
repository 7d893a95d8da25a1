"""Uniform subsets of at most 63 slots held in 64-bit words: the simulation path of subset
selection for ``k <= 64`` (a numpy ``Generator``; no byte protocol to follow, only its law).

The ``N`` slots are the top ``N`` bits of a word (slot ``t`` is bit ``63 - t``), cut into
four 16-bit quarters of ``s_0 .. s_3`` slots. A ``c``-subset is a *composition*
``(m_0, .., m_3)`` (``m_i`` of its slots in quarter ``i``, ``sum m_i = c``) and, in each
quarter, one of the ``C(s_i, m_i)`` patterns with ``m_i`` bits there. A uniform ``c``-subset
is therefore drawn exactly in two independent steps:

* the composition, with probability ``prod C(s_i, m_i) / C(N, c)`` (Vandermonde's identity:
  the weights add up to ``T = C(N, c)``). A uniform ``b``-bit word ``w`` (``b = 64``) is
  accepted when ``w < T L`` (``L = floor(2^b / T)``; a rejected word, probability below
  ``T 2^-b``, is redrawn), and the accepted words are cut into consecutive ranges, one per
  composition, of ``L prod C(s_i, m_i)`` words each: an accepted word lies in a range with
  exactly the composition's probability. The range is found by a *guide table* on the top
  ``g`` bits of the word (``g = 16``): a *cell* (the words sharing those bits) that lies
  within one range names it, and only a word in a cell that a range boundary or the rejected
  words cut (about one cell in a hundred at ``k = 64``) is placed by a search of the
  boundaries. Such a word's low ``b - g`` bits are first replaced by fresh ones: given its
  top bits, the low bits of a uniform word are uniform and independent of them, so the word
  is as uniform as before, and the caller may spend the low bits of the words whose cells
  decide alone (:meth:`SubsetWords.sample` reads only the top ``g`` bits of ``cells``);
* each quarter's pattern, uniform among those with ``m_i`` bits: a table row of ``2^h``
  entries (``h = 16``) holds each of the ``C(s_i, m_i)`` patterns ``floor(2^h / C)`` times
  and ``2^h mod C`` *rejection* marks, and a uniform ``h``-bit index picks an entry; the
  accepted entries are uniform on the patterns. The mark is ``0xFFFF``, more bits than any
  pattern of its row, so a word drew a mark exactly when it holds more than ``c`` bits; its
  four indices are then redrawn (the accepted tuples are uniform on the product).

The sampler takes the top bits of one 64-bit word for the composition and one word for the
four 16-bit indices, and its steps are table look-ups and whole-word operations, with no
per-value rounds and no division. The word widths are parameters so that the tests can
enumerate every word of a small width.

The ``k - 1`` slots stand for the values other than ``x`` (slot ``t`` for value
``t + (t >= x)``): :func:`insert_value` shifts the slots from ``x`` on one bit down and sets
``x``'s bit when it is included, so value ``v`` is bit ``63 - v`` and the big-endian word is
the bit-packed row (bit ``v`` is bit ``7 - v % 8`` of byte ``v // 8``).
"""

from __future__ import annotations

import itertools
import math
import sys
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ldp._words import popcount, words

__all__ = ["SubsetWords", "insert_value"]

_QUARTER = 16
#: The column of quarter ``i`` (bits ``16 i .. 16 i + 15``) in a word viewed as four uint16.
_QUARTER_COLUMN = tuple(range(4)) if sys.byteorder == "little" else (3, 2, 1, 0)
#: Bits of the guide table's index (the top bits of a word that name its cell).
_GUIDE_BITS = 16
#: The guide's entry of a cell that a range boundary or the rejected words cut: its row
#: of the pattern table holds marks alone (the compositions are numbered from 1).
_CUT = 0
_MARK = 0xFFFF
#: Bit 63 alone, signed: shifted right by ``x`` (arithmetically) it sets the top ``x + 1`` bits.
_TOP = np.int64(-(1 << 63))


def _pattern_rows(size: int, index_bits: int) -> np.ndarray:
    """Rows ``m = 0 .. size`` of ``2^index_bits`` entries: the ``size``-bit patterns with
    ``m`` bits, in the top ``size`` bits of a quarter, each ``floor(2^h / C(size, m))``
    times, then rejection marks."""
    span = 1 << index_bits
    rows = np.full((size + 1, span), _MARK, dtype=np.uint16)
    by_count: list[list[int]] = [[] for _ in range(size + 1)]
    for v in range(1 << size):
        by_count[bin(v).count("1")].append(v << (_QUARTER - size))
    for m, patterns in enumerate(by_count):
        copies = span // len(patterns)
        rows[m, : copies * len(patterns)] = np.tile(np.array(patterns, dtype=np.uint16), copies)
    return rows


@dataclass(frozen=True)
class SubsetWords:
    """Uniform subsets of ``slots`` slots of the sizes ``sizes`` as words (module notes).

    Parameters
    ----------
    slots : int
        ``N`` in ``1 .. 63``: the top ``N`` bits of a word.
    sizes : tuple of int
        The subset sizes, each in ``0 .. N``; a user asks for ``sizes[j]`` by ``j``.
    rank_bits : int, default 64
        ``b``: width of the words a composition is read from (``2^b`` at least every
        ``C(N, c)``); :meth:`sample` needs 64.
    index_bits : int, default 16
        Width of a quarter's pattern index, at most 16 (``2^index_bits`` at least the
        number of patterns of every row); :meth:`sample` takes the top bits of 16-bit
        parts. With 16 bits the indices of about one user in 25 are redrawn (at
        ``k = 64, d = 17``; one in five with 14 bits), for rows of 2 MiB a quarter; the
        fewer redraws are worth more than the smaller rows.
    guide_bits : int, default 16
        ``g``: the top bits of a word that index the guide table, at most ``min(b, 16)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.categorical._subset_words import SubsetWords
    >>> draw = SubsetWords(5, (2, 3))
    >>> draw.totals
    [10, 10]
    >>> words = draw.sample(np.random.default_rng(0), np.array([0, 1, 0], dtype=np.uint8))
    >>> [bin(int(w) >> 59)[2:].zfill(5).count("1") for w in words]   # the top 5 bits
    [2, 3, 2]
    >>> bool(np.all(words & np.uint64((1 << 59) - 1) == 0))   # nothing below the slots
    True
    """

    slots: int
    sizes: tuple[int, ...]
    rank_bits: int = 64
    index_bits: int = 16
    guide_bits: int = _GUIDE_BITS

    def __post_init__(self) -> None:
        if not isinstance(self.slots, int) or not 1 <= self.slots <= 63:
            raise ValueError(f"slots must be an integer in [1, 63], got {self.slots!r}")
        if not self.sizes or not all(0 <= c <= self.slots for c in self.sizes):
            raise ValueError(f"sizes must lie in [0, slots = {self.slots}], got {self.sizes!r}")
        widest = max(math.comb(s, s // 2) for s in self.quarter_slots)
        if not widest <= 1 << self.index_bits <= 1 << 16:
            raise ValueError(
                f"index_bits must fit every pattern and 16 bits, got {self.index_bits}"
            )
        if not 1 <= self.rank_bits <= 64 or max(self.totals) > 1 << self.rank_bits:
            raise ValueError(f"rank_bits must cover C(slots, size), got {self.rank_bits}")
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
    def totals(self) -> list[int]:
        """``C(N, c)`` for each size."""
        return [math.comb(self.slots, c) for c in self.sizes]

    @cached_property
    def _consecutive(self) -> bool:
        """Whether ``sizes[j] = sizes[0] + j`` for every ``j``."""
        return self.sizes == tuple(range(self.sizes[0], self.sizes[0] + len(self.sizes)))

    @cached_property
    def _tables(self) -> dict:
        """The compositions' ranges of words, the guide table, the pattern rows."""
        quarters = self.quarter_slots
        rows = {s: _pattern_rows(s, self.index_bits) for s in set(quarters)}
        first_row: dict[int, int] = {}
        flat: list[np.ndarray] = []
        for s, table in rows.items():
            first_row[s] = sum(t.shape[0] for t in flat)
            flat.append(table)
        cut = self.rank_bits - self.guide_bits
        cells = np.arange(1 << self.guide_bits, dtype=np.uint64) << np.uint64(cut)
        ends = cells + np.uint64((1 << cut) - 1)  # each cell's last word
        marks = sum(t.shape[0] for t in flat)  # a row of marks after the tables
        flat.append(np.full((1, 1 << self.index_bits), _MARK, dtype=np.uint16))
        lowers, lasts, guides, firsts = [], [], [], []
        row_of = [[marks << self.index_bits] * 4]  # composition 0: the cut cells
        for c, total in zip(self.sizes, self.totals):
            per_rank = (1 << self.rank_bits) // total  # L: the words of one rank
            firsts.append(len(row_of))
            starts = []
            key = 0
            for counts in itertools.product(*(range(s + 1) for s in quarters)):
                if sum(counts) != c:
                    continue
                starts.append(key * per_rank)
                key += math.prod(math.comb(s, m) for s, m in zip(quarters, counts))
                row = [0] * 4
                for i, (s, m) in enumerate(zip(quarters, counts)):
                    row[_QUARTER_COLUMN[i]] = (first_row[s] + m) << self.index_bits
                row_of.append(row)
            lower = np.array(starts, dtype=np.uint64)
            last = np.uint64(total * per_rank - 1)  # the last accepted word
            first = np.searchsorted(lower, cells, side="right") - 1
            pure = (first == np.searchsorted(lower, ends, side="right") - 1) & (ends <= last)
            guides.append(np.where(pure, firsts[-1] + first, _CUT))
            lowers.append(lower)
            lasts.append(last)
        if len(row_of) > 1 << 16:
            raise ValueError(f"too many compositions for the guide table: {len(row_of)}")
        return {
            "cut": np.uint64(cut),
            "guide": np.concatenate(guides).astype(np.uint16),
            "lowers": lowers,
            "lasts": lasts,
            "firsts": firsts,
            "rows": np.array(row_of, dtype=np.uint32),
            "patterns": np.concatenate(flat).reshape(-1),
            "sizes": np.array(self.sizes, dtype=np.uint8),
        }

    def _cells(self, words: np.ndarray, which: np.ndarray) -> np.ndarray:
        """The guide's entries of the words' cells in the tables of ``sizes[which]``."""
        t = self._tables
        key = (words >> t["cut"]).view(np.int64)  # the cell, below 2^guide_bits: no cast
        key |= np.left_shift(which, self.guide_bits, dtype=np.int64)
        # which < len(sizes) and the cell < 2^guide_bits: every key indexes the guide, so
        # "wrap" never wraps; it only spares the bounds check of the default mode (tested)
        return np.take(t["guide"], key, mode="wrap")

    def place(self, words: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(comp, rejected)``: the composition whose range of words holds each word
        (``rank_bits`` wide) of the size ``sizes[which]``, by a search of the boundaries,
        and the words past the accepted ones."""
        t = self._tables
        comp = np.empty(words.size, dtype=np.intp)
        rejected = np.empty(words.size, dtype=bool)
        for j in range(len(self.sizes)):
            at = np.flatnonzero(which == j)
            if at.size:
                chosen = words[at]
                found = np.searchsorted(t["lowers"][j], chosen, side="right")
                comp[at] = found + (t["firsts"][j] - 1)
                rejected[at] = chosen > t["lasts"][j]
        return comp, rejected

    def compositions(self, words: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(comp, rejected)`` of :meth:`place`, by the guide table where a word's cell
        decides and by :meth:`place` where it does not."""
        comp = self._cells(words, which).astype(np.intp)
        rejected = np.zeros(words.size, dtype=bool)
        cut = np.flatnonzero(comp == _CUT)
        comp[cut], rejected[cut] = self.place(words[cut], which[cut])
        return comp, rejected

    def patterns(self, comp: np.ndarray, indices: np.ndarray) -> np.ndarray:
        """The words of the compositions ``comp`` with the four ``index_bits``-bit pattern
        indices of each (``(n, 4)``, quarter ``i`` in column ``_QUARTER_COLUMN[i]``); a word
        holds a rejection mark where it has more bits than its size."""
        t = self._tables
        # comp names a row of ``rows`` and each entry plus an index below 2^index_bits lies
        # in ``patterns`` (the tables are built so; tested): "wrap" never wraps, it only
        # spares the bounds checks of the default mode
        at = np.take(t["rows"], comp, axis=0, mode="wrap")
        at += indices
        return np.take(t["patterns"], at, mode="wrap").view(np.uint64).reshape(-1)

    def sample(
        self, gen: np.random.Generator, which: np.ndarray, cells: np.ndarray | None = None
    ) -> np.ndarray:
        """A uniform ``sizes[which[u]]``-subset for every user ``u`` (``uint64`` words),
        independently, from ``gen``'s 64-bit words (``rank_bits`` must be 64): :meth:`draft`
        then :meth:`finish`.

        ``which`` is ``uint8``. ``cells``: uniform 64-bit words of which only the top
        ``guide_bits`` are read (the caller may spend the others); drawn when omitted."""
        if cells is None:
            cells = words(gen, which.size)
        out, unfinished, comp = self.draft(gen, which, cells)
        out[unfinished] = self.finish(gen, which[unfinished], comp, cells[unfinished])
        return out

    def draft(
        self, gen: np.random.Generator, which: np.ndarray, cells: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(out, unfinished, comp)``: the subsets of the users whose cell decides the
        composition and whose first indices draw no mark, the positions of the others
        (their words in ``out`` are not subsets), and the guide's entries of those others
        (``_CUT`` where the cell does not decide), for :meth:`finish`, which may run
        later: each user's draw uses only its own words."""
        comp = self._cells(cells, which)
        out = self.patterns(comp, self._indices(gen, which.size))
        unfinished = self._misfits(out, which)  # a mark, or a cut cell's row
        return out, unfinished, comp[unfinished]

    def finish(
        self, gen: np.random.Generator, which: np.ndarray, comp: np.ndarray, cells: np.ndarray
    ) -> np.ndarray:
        """The subsets of the users :meth:`draft` left unfinished (``which``, the guide's
        entries ``comp`` and the ``cells`` of those users): a cell that does not decide
        places its top bits with fresh low bits (a rejected word is redrawn whole), then
        the four indices are drawn until no mark is drawn."""
        comp = comp.astype(np.intp)
        cut = np.flatnonzero(comp == _CUT)
        if cut.size:
            shift = self._tables["cut"]
            chosen = (cells[cut] >> shift) << shift
            chosen |= words(gen, cut.size) >> np.uint64(self.guide_bits)
            placed, rejected = self.place(chosen, which[cut])
            again = np.flatnonzero(rejected)
            while again.size:
                placed[again], rejected = self.place(words(gen, again.size), which[cut[again]])
                again = again[rejected]
            comp[cut] = placed
        out = self.patterns(comp, self._indices(gen, which.size))
        again = self._misfits(out, which)
        while again.size:
            drawn = self.patterns(comp[again], self._indices(gen, again.size))
            out[again] = drawn
            again = again[self._misfits(drawn, which[again])]
        return out

    def _misfits(self, subsets: np.ndarray, which: np.ndarray) -> np.ndarray:
        """The positions of the words that do not hold ``sizes[which]`` bits. When the
        sizes are consecutive (``sizes[j] = sizes[0] + j``, as subset selection's ``d - 1,
        d``), ``popcount - which`` is compared with ``sizes[0]`` instead of looking the
        sizes up: the uint8 difference wraps where ``popcount < which``, and equals
        ``sizes[0] <= 63`` exactly when ``popcount = sizes[0] + which``."""
        counts = popcount(subsets)
        if self._consecutive:
            counts -= which
            return np.flatnonzero(counts != self.sizes[0])
        return np.flatnonzero(counts != np.take(self._tables["sizes"], which))

    def _indices(self, gen: np.random.Generator, n: int) -> np.ndarray:
        """``(n, 4)`` uniform ``index_bits``-bit indices: the top bits of the 16-bit parts of
        ``n`` uniform words."""
        parts = words(gen, n).view(np.uint16).reshape(n, 4)
        if self.index_bits < 16:
            parts >>= np.uint16(16 - self.index_bits)
        return parts


def insert_value(subsets: np.ndarray, x: np.ndarray, include: np.ndarray) -> np.ndarray:
    """Subsets of the values ``0 .. 63`` (value ``v`` = bit ``63 - v``) from subsets of the
    slots other than ``x`` (slot ``t`` = bit ``63 - t`` stands for value ``t + (t >= x)``),
    with ``x`` added where ``include``; ``subsets`` is overwritten.

    The slots are first moved one bit down (slot ``t`` to bit ``62 - t``: bit 0 is free,
    there are at most 63 slots), which places every slot ``t >= x`` at its value's bit;
    the slots ``t < x``, the bits ``62 .. 63 - x`` (the top ``x + 1`` bits, bit 63 being
    empty), are added once more: doubled, they move one bit up, back to their values'
    bits ``63 .. 64 - x``, where no other slot lies (those from ``x`` on are at ``62 - x``
    and below), so nothing else changes. Bit ``63 - x``, now free, is ``x``'s."""
    top = np.right_shift(_TOP, x.astype(np.int64, copy=False)).view(np.uint64)  # x + 1 bits
    subsets >>= np.uint64(1)
    top &= subsets  # the slots before x
    subsets += top
    own = np.left_shift(include, 63, dtype=np.uint64)
    np.right_shift(own, x, out=own, dtype=np.uint64, casting="unsafe")  # 0 <= x <= 63
    subsets |= own
    return subsets

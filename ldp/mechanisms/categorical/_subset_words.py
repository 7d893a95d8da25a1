"""Uniform subsets of at most 63 slots held in 64-bit words: the simulation path of subset
selection for ``k <= 64`` (a numpy ``Generator``; no byte protocol to follow, only its law).

The ``N`` slots are the top ``N`` bits of a word (slot ``t`` is bit ``63 - t``), cut into
four 16-bit quarters of ``s_0 .. s_3`` slots. A ``c``-subset is a *composition*
``(m_0, .., m_3)`` (``m_i`` of its slots in quarter ``i``, ``sum m_i = c``) and, in each
quarter, one of the ``C(s_i, m_i)`` patterns with ``m_i`` bits there. A uniform ``c``-subset
is therefore drawn exactly in two independent steps:

* the composition, with probability ``prod C(s_i, m_i) / C(N, c)`` (Vandermonde's identity:
  the weights add up to ``C(N, c)``): the compositions take consecutive ranges of *ranks*
  ``0 .. C(N, c) - 1``, one rank per subset, and a uniform rank ``r`` names one. ``r`` is
  ``w mod C(N, c)`` for a uniform ``b``-bit word ``w`` (``b = 64``), accepted when
  ``w < floor(2^b / C(N, c)) C(N, c)``: every rank is then hit by exactly
  ``floor(2^b / C(N, c))`` words (a rejected word, probability below ``C(N, c) 2^-b``, is
  redrawn). The range holding ``r`` is found by a guide table on its high bits and a step or
  two forward over the ranges' starts. The sizes a mechanism needs share one list of ranges
  (the ranks of a later size follow those of the earlier ones);
* each quarter's pattern, uniform among those with ``m_i`` bits: a table row of ``2^h``
  entries (``h = 16``) holds each of the ``C(s_i, m_i)`` patterns ``floor(2^h / C)`` times
  and ``2^h mod C`` *rejection* marks, and a uniform ``h``-bit index picks an entry; the
  accepted entries are uniform on the patterns. The mark is ``0xFFFF``, more bits than any
  pattern of its row, so a word drew a mark exactly when it holds more than ``c`` bits; its
  four indices are then redrawn (the accepted tuples are uniform on the product).

The sampler takes one 64-bit word for the rank and one for the four 16-bit indices, and its
steps are table look-ups and whole-word operations, with no per-value rounds. The word
widths are parameters so that the tests can enumerate every word of a small width.

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
#: Bits of the guide table's index.
_GUIDE_BITS = 16
_MARK = 0xFFFF
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_TOP = np.uint64(1 << 63)


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
        Width of the words a rank is cut from (``2^rank_bits`` at least every ``C(N, c)``).
    index_bits : int, default 16
        Width of a quarter's pattern index, at most 16 (``2^index_bits`` at least the
        number of patterns of every row); :meth:`sample` takes the top bits of 16-bit
        parts. With 16 bits the indices of about one user in 25 are redrawn (at
        ``k = 64, d = 17``; one in five with 14 bits), for rows of 2 MiB a quarter; the
        fewer redraws are worth more than the smaller rows.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms.categorical._subset_words import SubsetWords
    >>> draw = SubsetWords(5, (2, 3))
    >>> draw.totals
    [10, 10]
    >>> words = draw.sample(np.random.default_rng(0), np.array([0, 1, 0]))
    >>> [bin(int(w) >> 59)[2:].zfill(5).count("1") for w in words]   # the top 5 bits
    [2, 3, 2]
    >>> bool(np.all(words & np.uint64((1 << 59) - 1) == 0))   # nothing below the slots
    True
    """

    slots: int
    sizes: tuple[int, ...]
    rank_bits: int = 64
    index_bits: int = 16

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
    def _tables(self) -> dict:
        """Ranges of the compositions, the guide table, the pattern rows."""
        quarters = self.quarter_slots
        rows = {s: _pattern_rows(s, self.index_bits) for s in set(quarters)}
        first_row: dict[int, int] = {}
        flat: list[np.ndarray] = []
        for s, table in rows.items():
            first_row[s] = sum(t.shape[0] for t in flat)
            flat.append(table)
        starts, row_of = [], []
        key = 0
        for c in self.sizes:
            for counts in itertools.product(*(range(s + 1) for s in quarters)):
                if sum(counts) != c:
                    continue
                starts.append(key)
                key += math.prod(math.comb(s, m) for s, m in zip(quarters, counts))
                row = [0] * 4
                for i, (s, m) in enumerate(zip(quarters, counts)):
                    row[_QUARTER_COLUMN[i]] = (first_row[s] + m) << self.index_bits
                row_of.append(row)
        starts.append(key)  # the end of the last range
        shift = max(0, (key - 1).bit_length() - _GUIDE_BITS)
        cells = np.arange(((key - 1) >> shift) + 1, dtype=np.uint64) << np.uint64(shift)
        starts_array = np.array(starts, dtype=np.uint64)
        limits = [(1 << self.rank_bits) // t * t - 1 for t in self.totals]
        return {
            "shift": np.uint64(shift),
            "guide": (np.searchsorted(starts_array, cells, side="right") - 1).astype(np.intp),
            "starts": starts_array,
            "rows": np.array(row_of, dtype=np.intp),
            "patterns": np.concatenate(flat).reshape(-1),
            "totals": np.array(self.totals, dtype=np.uint64),
            "limits": np.array(limits, dtype=np.uint64),
            "bases": np.array([0, *itertools.accumulate(self.totals)][:-1], dtype=np.uint64),
            "sizes": np.array(self.sizes, dtype=np.uint8),
        }

    def ranks(self, words: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(key, rejected)``: for uniform ``rank_bits``-bit ``words``, the key of the rank
        ``w mod C(N, c)`` of the sizes ``sizes[which]`` (the ranks of size ``j`` offset by
        those of the sizes before it), and the words to reject."""
        t = self._tables
        keys = words % np.take(t["totals"], which)
        keys += np.take(t["bases"], which)
        return keys, words > np.take(t["limits"], which)

    def compositions(self, keys: np.ndarray) -> np.ndarray:
        """The index of the composition whose range holds each key."""
        t = self._tables
        starts = t["starts"]
        comp = np.take(t["guide"], keys >> t["shift"])
        ahead = np.flatnonzero(keys >= np.take(starts[1:], comp))
        if ahead.size:  # keys in a cell where a later range starts: search the starts
            comp[ahead] = np.searchsorted(starts, keys[ahead], side="right") - 1
        return comp

    def patterns(self, comp: np.ndarray, indices: np.ndarray) -> np.ndarray:
        """The words of the compositions ``comp`` with the four ``index_bits``-bit pattern
        indices of each (``(n, 4)``, quarter ``i`` in column ``_QUARTER_COLUMN[i]``); a word
        holds a rejection mark where it has more bits than its size."""
        t = self._tables
        at = np.take(t["rows"], comp, axis=0)
        at += indices
        return np.take(t["patterns"], at).view(np.uint64).reshape(-1)

    def sample(self, gen: np.random.Generator, which: np.ndarray) -> np.ndarray:
        """A uniform ``sizes[which[u]]``-subset for every user ``u`` (``uint64`` words),
        independently, from ``gen``'s 64-bit words (``rank_bits`` and ``index_bits`` must be
        64 and 16)."""
        n = which.size
        keys, rejected = self.ranks(words(gen, n), which)
        again = np.flatnonzero(rejected)
        while again.size:
            keys[again], rejected = self.ranks(words(gen, again.size), which[again])
            again = again[rejected]
        comp = self.compositions(keys)
        out = self.patterns(comp, self._indices(gen, n))
        size = np.take(self._tables["sizes"], which)
        again = np.flatnonzero(popcount(out) != size)
        while again.size:
            redrawn = self.patterns(comp[again], self._indices(gen, again.size))
            out[again] = redrawn
            again = again[popcount(redrawn) != size[again]]
        return out

    def _indices(self, gen: np.random.Generator, n: int) -> np.ndarray:
        """``(n, 4)`` uniform ``index_bits``-bit indices: the top bits of the 16-bit parts of
        ``n`` uniform words."""
        parts = words(gen, n).view(np.uint16).reshape(n, 4)
        parts >>= np.uint16(16 - self.index_bits)
        return parts


def insert_value(subsets: np.ndarray, x: np.ndarray, include: np.ndarray) -> np.ndarray:
    """Subsets of the values ``0 .. 63`` (value ``v`` = bit ``63 - v``) from subsets of the
    slots other than ``x`` (slot ``t`` = bit ``63 - t`` stands for value ``t + (t >= x)``),
    with ``x`` added where ``include``; ``subsets`` is overwritten."""
    shift = x.astype(np.uint64)
    moved = subsets & (_ALL >> shift)  # the slots from x on
    subsets ^= moved
    moved >>= np.uint64(1)
    subsets |= moved
    subsets |= (_TOP >> shift) * include.astype(np.uint64)
    return subsets

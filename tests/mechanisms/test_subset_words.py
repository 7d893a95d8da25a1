"""The word sampler of subset selection (k <= 64, numpy Generator): the exact law by
enumerating every word of small widths, and seeded goodness-of-fit tests at k = 64."""

from __future__ import annotations

import bisect
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from ldp.mechanisms import SubsetSelection
from ldp.mechanisms.categorical._subset_words import (
    _QUARTER_COLUMN,
    SubsetWords,
    _pattern_rows,
    insert_value,
)
from tests.report_laws import assert_subset_reports_fit_the_law


def _top(word: int, n: int) -> tuple[int, ...]:
    """The slots (bit 63 - t) set in ``word``."""
    return tuple(t for t in range(n) if word >> (63 - t) & 1)


def _enumerate(draw: SubsetWords, j: int) -> dict[tuple[int, ...], int]:
    """How many pairs (word, index of the one quarter with slots) of the small widths are
    accepted and give each subset of size ``sizes[j]`` (slots <= 16)."""
    words = np.arange(1 << draw.rank_bits, dtype=np.uint64)
    comp, rejected = draw.compositions(words, np.full(words.size, j, dtype=np.uint8))
    comp = comp[~rejected]
    span = 1 << draw.index_bits
    indices = np.zeros((comp.size * span, 4), dtype=np.uint16)
    indices[:, _QUARTER_COLUMN[3]] = np.tile(np.arange(span, dtype=np.uint16), comp.size)
    out = draw.patterns(np.repeat(comp, span), indices)
    out = out[np.bitwise_count(out) == draw.sizes[j]]  # the marks are rejected
    found: dict[tuple[int, ...], int] = {}
    for word, count in zip(*np.unique(out, return_counts=True)):
        found[_top(int(word), draw.slots)] = int(count)
    return found


@pytest.mark.parametrize("slots", range(1, 9))
def test_every_word_of_small_widths_draws_every_subset_equally(slots):
    """All words of 8 bits (a guide of 3 bits, so that cells are cut) and all pattern
    indices of the smallest width: every c-subset of the slots is drawn by exactly
    T floor(2^8 / T) floor(2^h / T) pairs (T = C(N, c): one composition, which every
    accepted word names), every size c, and nothing else is accepted."""
    sizes = tuple(range(slots + 1))
    bits = max(1, (math.comb(slots, slots // 2) - 1).bit_length())
    draw = SubsetWords(slots, sizes, rank_bits=8, index_bits=bits, guide_bits=3)
    for j, c in enumerate(sizes):
        total = math.comb(slots, c)
        expected = total * (256 // total) * ((1 << bits) // total)
        assert _enumerate(draw, j) == dict.fromkeys(
            itertools.combinations(range(slots), c), expected
        )


@pytest.mark.parametrize("size", [15, 16])
def test_pattern_rows_hold_every_pattern_equally_often(size):
    """Every row m of a quarter's table: each m-bit pattern (in the top bits of the
    quarter) floor(2^h / C) times, the other entries marks with more bits than m."""
    rows = _pattern_rows(size, 14)
    for m, row in enumerate(rows):
        patterns, counts = np.unique(row, return_counts=True)
        valid = np.bitwise_count(patterns) == m
        assert valid.sum() == math.comb(size, m)
        assert set(counts[valid].tolist()) == {(1 << 14) // math.comb(size, m)}
        assert np.all(patterns[valid] & ((1 << (16 - size)) - 1) == 0)
        assert np.all(np.bitwise_count(patterns[~valid]) > m)


@pytest.mark.parametrize(
    ("slots", "sizes", "bits", "index_bits", "guide_bits"),
    [
        (63, (16, 17), 64, 16, 16),
        (63, (0, 63), 64, 16, 16),
        (20, (3, 4), 16, 16, 6),
        (5, (0, 2, 5), 8, 4, 3),
    ],
)
def test_every_table_index_lies_in_its_table(slots, sizes, bits, index_bits, guide_bits):
    """The look-ups take mode="wrap" only to skip numpy's bounds checks: every key of the
    guide, every composition of a row and every row entry plus index must already lie in
    its table (a wrapped index would draw a wrong pattern silently)."""
    draw = SubsetWords(slots, sizes, bits, index_bits, guide_bits)
    t = draw._tables
    assert t["guide"].size == len(sizes) << guide_bits  # which < len(sizes), g-bit cells
    assert int(t["guide"].max()) < t["rows"].shape[0]
    assert int(t["rows"].max()) + (1 << index_bits) <= t["patterns"].size
    every = np.arange(1 << min(bits, 16), dtype=np.uint64) << np.uint64(max(0, bits - 16))
    for j in range(len(sizes)):
        comp, _ = draw.compositions(every, np.full(every.size, j, dtype=np.uint8))
        assert comp.min() >= 0 and comp.max() < t["rows"].shape[0]


@pytest.mark.parametrize("sizes", [(16, 17), (3, 5), (0, 1, 2)])
def test_misfits_compare_each_word_with_its_size(sizes):
    """The words whose bit count is not their size, by the consecutive sizes' difference
    or by looking the sizes up: the same positions as the definition, counts below
    ``which`` included."""
    draw = SubsetWords(63, sizes)
    gen = np.random.default_rng(5)
    n = 5000
    which = gen.integers(0, len(sizes), n).astype(np.uint8)
    width = gen.integers(0, 20, n)
    subsets = np.array([(1 << int(w)) - 1 for w in width], dtype=np.uint64)
    expected = np.flatnonzero(np.bitwise_count(subsets) != np.array(sizes)[which])
    assert np.array_equal(draw._misfits(subsets, which), expected)


def _reference_compositions(slots: int, sizes: tuple[int, ...], bits: int, words) -> list:
    """For each ``bits``-bit word and size index ``j``: the number of its composition (from
    1, in the order of ``itertools.product`` over the quarters, size after size), or
    ``None`` when the word is rejected: the rank ``w // L`` (``L = 2^bits // T``) placed
    among the compositions' cumulative counts of subsets, in Python integers."""
    low = 64 - slots
    quarters = [min(16, max(0, 16 * (i + 1) - low)) for i in range(4)]
    ranges, first = [], 1
    for c in sizes:
        widths = [
            math.prod(math.comb(s, m) for s, m in zip(quarters, counts))
            for counts in itertools.product(*(range(s + 1) for s in quarters))
            if sum(counts) == c
        ]
        ranges.append((first, list(itertools.accumulate(widths))))
        first += len(widths)
    out = []
    for word, j in words:
        first, ends = ranges[j]
        per_rank = (1 << bits) // ends[-1]
        rank = word // per_rank
        out.append(None if rank >= ends[-1] else first + bisect.bisect_right(ends, rank))
    return out


def _placed(draw: SubsetWords, words: list[int], which: list[int]) -> list:
    comp, rejected = draw.compositions(
        np.array(words, dtype=np.uint64), np.array(which, dtype=np.uint8)
    )
    return [None if r else int(c) for c, r in zip(comp, rejected)]


def test_every_word_of_16_bits_names_its_composition():
    """N = 20 slots in two quarters (4 + 16), sizes 3 and 4, words of 16 bits, a guide of
    6 bits: every word is placed as the rank w // L names it (the guide where its cell
    decides, the search where a boundary or the rejected words cut it), so composition
    (m_0, m_1) takes exactly L C(4, m_0) C(16, m_1) words."""
    draw = SubsetWords(20, (3, 4), rank_bits=16, guide_bits=6)
    assert (draw._tables["guide"] == 0).sum() >= 5  # cut cells are exercised
    every = list(range(1 << 16))
    for j in (0, 1):
        expected = _reference_compositions(20, (3, 4), 16, [(w, j) for w in every])
        assert _placed(draw, every, [j] * len(every)) == expected


def test_compositions_at_k_64_agree_with_the_ranks():
    """N = 63, sizes 16 and 17 (k = 64), 64-bit words: the words at every range's ends and
    at the acceptance limit, and random words, are placed as their rank w // L names them,
    by the guide table and by the search alike."""
    sizes = (16, 17)
    draw = SubsetWords(63, sizes)
    words, which = [], []
    for j in (0, 1):
        for start in draw._tables["lowers"][j].tolist()[1:]:
            words += [start - 1, start]
            which += [j, j]
        last = int(draw._tables["lasts"][j])
        words += [0, last, last + 1, (1 << 64) - 1]
        which += [j] * 4
    random = np.random.default_rng(3).integers(0, 1 << 64, 100_000, dtype=np.uint64)
    words += random.tolist()
    which += (np.arange(random.size) % 2).tolist()
    expected = _reference_compositions(63, sizes, 64, list(zip(words, which)))
    assert _placed(draw, words, which) == expected
    arrays = np.array(words, dtype=np.uint64), np.array(which, dtype=np.uint8)
    comp, rejected = draw.place(*arrays)
    assert [None if r else int(c) for c, r in zip(comp, rejected)] == expected


def test_the_cut_cells_are_placed_with_fresh_low_bits():
    """sample() reads only the top guide bits of the caller's words: with a guide of 2 bits
    (two of the four cells cut by a boundary at N = 18, quarters of 2 + 16 slots) and the
    caller's low bits all zero, the 3-subsets are still uniform (chi-square over all 816)
    and so is the number of slots in the small quarter (hypergeometric). Reading the low
    bits would place every word of a cut cell in its first composition (no 3-subset
    would hold both small slots)."""
    from scipy import stats

    draw = SubsetWords(18, (3,), guide_bits=2)
    assert (draw._tables["guide"] == 0).sum() == 2
    gen = np.random.default_rng(12)
    n = 200_000
    cells = gen.integers(0, 1 << 64, n, dtype=np.uint64) & np.uint64(0xC000000000000000)
    out = draw.sample(gen, np.zeros(n, dtype=np.uint8), cells)
    assert np.all(np.bitwise_count(out) == 3)
    index = {s: i for i, s in enumerate(itertools.combinations(range(18), 3))}
    counts = np.bincount([index[_top(int(w), 18)] for w in out], minlength=len(index))
    assert stats.chisquare(counts).pvalue > 1e-4
    small = np.bitwise_count(out >> np.uint64(62))  # slots 0 and 1
    law = [math.comb(2, a) * math.comb(16, 3 - a) / math.comb(18, 3) for a in range(3)]
    assert stats.chisquare(np.bincount(small, minlength=3), n * np.array(law)).pvalue > 1e-4


class _Words:
    """Stands in for a Generator whose 64-bit words are the given arrays, in order."""

    def __init__(self, *arrays):
        self.arrays = [np.array(a, dtype=np.uint64) for a in arrays]

    def integers(self, low, high, size, dtype):
        out = self.arrays.pop(0)
        assert (low, high, size, dtype) == (0, 1 << 64, out.size, np.uint64)
        return out


def test_a_rejected_word_of_a_cut_cell_is_redrawn_whole():
    """k = 64, size 17: the last cell holds the rejected words. A user in it whose fresh low
    bits are all ones lies past the accepted words and is redrawn whole: the next word, 0,
    names the first composition (1 slot in quarter 2, 16 in quarter 3, the top bits), and
    index 0 of each row its first pattern; keeping the rejected word would name the last
    composition (15 slots in quarter 0, the low bits)."""
    draw = SubsetWords(63, (16, 17))
    cells = np.array([0xFFFF << 48], dtype=np.uint64)
    assert draw._tables["guide"][(1 << 16) + 0xFFFF] == 0  # the last cell is cut
    gen = _Words([(1 << 64) - 1], [0], [0])  # fresh low bits, the redrawn word, indices
    out = draw.finish(gen, np.array([1], dtype=np.uint8), np.array([0]), cells)
    assert gen.arrays == []
    assert int(out[0]) >> 48 == 0xFFFF
    assert int(out[0]) & 0xFFFFFFFF == 0
    assert int(out[0]).bit_count() == 17


def test_insert_value_moves_the_slots_past_x():
    """Every x in 0..63: slot t becomes value t + (t >= x), and x is set when included."""
    gen = np.random.default_rng(4)
    subsets = gen.integers(0, 1 << 63, 64, dtype=np.uint64) << np.uint64(1)  # 63 slots
    x = np.arange(64)
    include = gen.random(64) < 0.5
    out = insert_value(subsets.copy(), x, include)
    for u in range(64):
        slots = _top(int(subsets[u]), 63)
        values = {t + (t >= u) for t in slots} | ({u} if include[u] else set())
        assert set(_top(int(out[u]), 64)) == values


@pytest.mark.parametrize("k", [5, 6, 7, 8])
def test_the_law_of_the_reports_at_small_k_is_the_channel(k):
    """The exact law of a report at k = 5..8, from every word of small widths: the
    inclusion coin's probability times the enumerated law of the other values, the values
    placed around x, equals the mechanism's channel matrix."""
    mech = SubsetSelection(k, 1.0, encoding="bits")
    d = mech.d
    inside, outside = (Fraction(w) for w in mech._law.weights)
    p_in = inside / (inside + outside)
    bits = max(1, (math.comb(k - 1, (k - 1) // 2) - 1).bit_length())
    draw = SubsetWords(k - 1, (d - 1, d), rank_bits=8, index_bits=bits, guide_bits=3)
    laws = []
    for j, weight in ((0, p_in), (1, 1 - p_in)):
        found = _enumerate(draw, j)
        total = sum(found.values())
        laws.append({s: weight * Fraction(c, total) for s, c in found.items()})
    subsets = list(itertools.combinations(range(k), d))
    matrix = np.zeros((k, len(subsets)))
    column = {s: i for i, s in enumerate(subsets)}
    for x in range(k):
        for j, law in enumerate(laws):
            for slots, prob in law.items():
                values = {t + (t >= x) for t in slots} | ({x} if j == 0 else set())
                matrix[x, column[tuple(sorted(values))]] += float(prob)
    assert np.allclose(matrix, mech.to_channel().matrix, rtol=1e-12, atol=0)


@pytest.mark.parametrize("k", [40, 64])
def test_reports_on_the_word_path_fit_the_law(k):
    """Seeded goodness of fit of privatize at k = 40 and 64 (the word path; the slots of
    k = 40 fill two quarters and part of a third): the inclusion of x
    (binomial), the other values' frequencies (uniform over the 63, chi-square), the
    members among the first 32 values other than x (hypergeometric given the inclusion),
    and how often two given values are reported together (a correct sampler fails each
    with probability 1e-4; seeded)."""
    mech = SubsetSelection(k, 1.0, encoding="bits")
    n, x = 200_000, 30
    reports = mech.privatize(np.full(n, x), rng=np.random.default_rng(11))
    assert_subset_reports_fit_the_law(mech, reports, x, pair=(3, k - 14))


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="slots"):
        SubsetWords(64, (3,))
    with pytest.raises(ValueError, match="sizes"):
        SubsetWords(10, (11,))
    with pytest.raises(ValueError, match="index_bits"):
        SubsetWords(63, (3,), index_bits=12)
    with pytest.raises(ValueError, match="rank_bits"):
        SubsetWords(20, (10,), rank_bits=16)
    with pytest.raises(ValueError, match="guide_bits"):
        SubsetWords(20, (3,), rank_bits=16, guide_bits=17)
    with pytest.raises(ValueError, match="guide_bits"):
        SubsetWords(5, (2,), rank_bits=8, guide_bits=9)

"""The word sampler of subset selection (k <= 64, numpy Generator): every word of small widths
placed against the outcomes' exact ranges, every pattern index of the tables enumerated, the
exact law of the reports at small k, and seeded goodness-of-fit tests at k = 64."""

from __future__ import annotations

import bisect
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from ldp.mechanisms import SubsetSelection
from ldp.mechanisms.categorical._subset_words import (
    _CUT,
    _QUARTER_COLUMN,
    SubsetWords,
    _pattern_rows,
    insert_value,
    row_bits,
)
from tests.report_laws import assert_subset_reports_fit_the_law


def _top(word: int, n: int) -> tuple[int, ...]:
    """The slots (bit 63 - t) set in ``word``."""
    return tuple(t for t in range(n) if word >> (63 - t) & 1)


def _quarters(slots: int) -> list[int]:
    low = 64 - slots
    return [min(16, max(0, 16 * (i + 1) - low)) for i in range(4)]


def _reference_bounds(slots: int, sizes, odds) -> tuple[list, list[Fraction]]:
    """The outcomes ``(j, counts)`` in their documented order (size after size, the
    compositions in the order of ``itertools.product``) and their cumulative probabilities
    ``odds_j / sum(odds) * prod C(s_i, m_i) / C(N, c_j)``, in Python arithmetic."""
    quarters = _quarters(slots)
    outcomes, bounds, total = [], [], Fraction(0)
    for j, c in enumerate(sizes):
        share = Fraction(odds[j], sum(odds))
        for counts in itertools.product(*(range(s + 1) for s in quarters)):
            if sum(counts) == c and share:
                ways = math.prod(math.comb(s, m) for s, m in zip(quarters, counts))
                total += share * Fraction(ways, math.comb(slots, c))
                outcomes.append((j, counts))
                bounds.append(total)
    assert total == 1
    return outcomes, bounds


def _word_law(bounds: list[Fraction], word: int, bits: int) -> dict[int, Fraction]:
    """``P(outcome = r + 1 | the first bits of U are word)``: the share of ``U``'s interval
    ``[w, w + 1) / 2^bits`` that range ``r`` (``[b_{r-1}, b_r)``) covers."""
    lo, hi = Fraction(word, 1 << bits), Fraction(word + 1, 1 << bits)
    law = {}
    for r in range(bisect.bisect_right(bounds, lo), bisect.bisect_left(bounds, hi) + 1):
        start = bounds[r - 1] if r else Fraction(0)
        law[r + 1] = (min(hi, bounds[r]) - max(lo, start)) * (1 << bits)
    return law


def _check_locate(draw: SubsetWords, words: list[int]) -> int:
    """Each word's ``locate`` against :func:`_word_law`: a word whose interval one range
    covers is placed there and not tied; a word whose interval several ranges share is
    tied and placed in the highest of them. Returns how many words were tied."""
    _, bounds = _reference_bounds(draw.slots, draw.sizes, draw.odds or (1,) * len(draw.sizes))
    outcome, tied = draw.locate(np.array(words, dtype=np.uint64))
    for w, found, tie in zip(words, outcome.tolist(), tied.tolist()):
        law = _word_law(bounds, w, draw.rank_bits)
        assert (found, tie) == (max(law), len(law) > 1), w
    return int(tied.sum())


@pytest.mark.parametrize(
    ("slots", "sizes", "odds", "bits", "guide_bits"),
    [
        (5, (2, 3), (1, 4), 8, 3),
        (6, (0, 1, 2, 3, 6), (1, 2, 3, 4, 5), 8, 3),
        (20, (3, 4), (2, 7), 16, 6),
        (20, (4,), None, 16, 12),
    ],
)
def test_every_word_of_small_widths_is_placed_in_its_range(slots, sizes, odds, bits, guide_bits):
    """Every word of 8 and 16 bits: by the guide, by the finer guide of the cut cells and by
    the search (each exercised: a cell and a finer cell cut), as the exact ranges place it,
    and the words whose interval holds a boundary marked tied."""
    draw = SubsetWords(slots, sizes, odds, rank_bits=bits, guide_bits=guide_bits)
    t = draw._tables
    assert (t["guide"] == _CUT).any() and (t["fine"] == _CUT).any()
    assert _check_locate(draw, list(range(1 << bits))) > 0


def test_words_at_k_64_are_placed_in_their_ranges():
    """N = 63, sizes 17 and 16 with subset selection's odds at k = 64, eps = 1: the words
    at every boundary and next to it, the first and last word, and random words."""
    mech = SubsetSelection(64, 1.0)
    inside, outside = (Fraction(w) for w in mech._law.weights)
    draw = SubsetWords(63, (mech.d, mech.d - 1), (outside, inside))
    _, bounds = _reference_bounds(63, draw.sizes, draw.odds)
    floors = [int(b * 2**64) for b in bounds[:-1]]
    words = [0, 2**64 - 1]
    for f in floors:
        words += [f - 1, f, f + 1]
    words += np.random.default_rng(3).integers(0, 2**64, 20_000, dtype=np.uint64).tolist()
    assert _check_locate(draw, words) == len(floors)  # b_i 2^64 is never a whole number


class _Words:
    """Stands in for a Generator whose 64-bit words are the given arrays, in order."""

    def __init__(self, *arrays):
        self.arrays = [np.array(a, dtype=np.uint64) for a in arrays]

    def integers(self, low, high, size=None, dtype=None):
        out = self.arrays.pop(0)
        if size is None:
            return out[0]
        assert (low, high, size, dtype) == (0, 1 << 64, out.size, np.uint64)
        return out


def test_a_tie_moves_down_past_the_boundaries_above_the_rest_of_u():
    """A tied word ``w = B_i``: with ``V = 0`` every boundary in its interval lies above
    ``U``, which is placed in the lowest range there; with ``V`` just below 1, in the
    highest (``locate``'s)."""
    draw = SubsetWords(6, (0, 1, 2, 3, 6), (1, 2, 3, 4, 5), rank_bits=8, guide_bits=3)
    word, rests = next(iter(draw._tables["ties"].items()))
    highest = int(draw.locate(np.array([word], dtype=np.uint64))[0][0])
    low = draw.place(_Words([0]), np.array([word], dtype=np.uint64))
    assert int(low[0]) == highest - len(rests)
    high = draw.place(_Words([2**64 - 1]), np.array([word], dtype=np.uint64))
    assert int(high[0]) == highest - sum(r > 1 - Fraction(1, 2**64) for r in rests)


@pytest.mark.parametrize("size", [15, 16])
def test_pattern_rows_hold_every_pattern_equally_often(size):
    """Every row m of a quarter's table, ``2^row_bits`` entries: each m-bit pattern (in the
    top bits of the quarter) ``floor(2^h / C)`` times, the other entries marks with more
    bits than m."""
    for m, row in enumerate(_pattern_rows(size, 16)):
        h = row_bits(size, m, 16)
        assert row.size == 1 << h
        patterns, counts = np.unique(row, return_counts=True)
        valid = np.bitwise_count(patterns) == m
        assert valid.sum() == math.comb(size, m)
        assert set(counts[valid].tolist()) == {(1 << h) // math.comb(size, m)}
        assert np.all(patterns[valid] & ((1 << (16 - size)) - 1) == 0)
        assert np.all(np.bitwise_count(patterns[~valid]) > m)


@pytest.mark.parametrize("size", [1, 5, 15, 16])
@pytest.mark.parametrize("index_bits", [14, 16])
def test_row_bits_are_the_narrowest_within_the_widest_rows_marks(size, index_bits):
    """By a scan of every width: the row width is the first with room for every pattern
    whose share of marks is within 2^-10 of the widest row's."""
    for m in range(size + 1):
        count = math.comb(size, m)
        if count > 1 << index_bits:
            continue
        widest = Fraction((1 << index_bits) % count, 1 << index_bits)
        first = next(
            h
            for h in range(index_bits + 1)
            if 1 << h >= count and Fraction((1 << h) % count, 1 << h) <= widest + Fraction(1, 1024)
        )
        assert row_bits(size, m, index_bits) == first


def test_the_rows_that_k_64_reads_most_are_narrow():
    """At k = 64 (quarters of 15 and 16 slots, about 4 slots a quarter) the rows of 2 to 4
    slots of the 15-slot quarter take 2^12 entries and the 4-slot row of the 16-slot
    quarter 2^14, where every row took 2^16."""
    assert [row_bits(15, m, 16) for m in (2, 3, 4)] == [12, 12, 12]
    assert row_bits(16, 4, 16) == 14


@pytest.mark.parametrize(
    ("slots", "sizes", "odds", "bits", "index_bits", "guide_bits"),
    [
        (63, (17, 16), (47, 46), 64, 16, 16),
        (63, (0, 63), None, 64, 16, 16),
        (20, (3, 4), (1, 2), 16, 16, 6),
        (5, (0, 2, 5), None, 8, 4, 3),
    ],
)
def test_every_table_index_lies_in_its_row(slots, sizes, odds, bits, index_bits, guide_bits):
    """The look-ups take mode="wrap" only to skip numpy's bounds checks: every key of the
    guides names an outcome, and for every outcome and quarter the row base plus every
    index its mask lets through lies in the rows of that quarter's ``(s, m)``, which hold
    exactly its patterns (a wrapped or stray index would draw a wrong pattern silently)."""
    draw = SubsetWords(slots, sizes, odds, bits, index_bits, guide_bits)
    t = draw._tables
    outcomes = draw.outcomes()
    assert t["guide"].size == 1 << guide_bits
    assert int(t["guide"].max()) <= len(outcomes) and int(t["fine"].max()) <= len(outcomes)
    cut = np.flatnonzero(t["guide"] == _CUT)
    assert sorted(t["cut_rank"][cut].tolist()) == list(range(cut.size))
    assert t["fine"].size == cut.size << t["fine_bits"]
    quarters = draw.quarter_slots
    rows = {q: _pattern_rows(q, index_bits) for q in set(quarters)}
    for r, (_, counts, _) in enumerate(outcomes, start=1):
        for i, (s, m) in enumerate(zip(quarters, counts)):
            column = _QUARTER_COLUMN[i]
            base = int(t["rows"][r, column])
            span = (int(t["masks"][r]) >> (16 * column) & 0xFFFF) + 1
            assert span == 1 << row_bits(s, m, index_bits)
            row = t["patterns"][base : base + span]
            assert np.array_equal(row, rows[s][m])
    marks = t["patterns"][int(t["rows"][_CUT, 0]) :]
    assert int(t["masks"][_CUT]) == sum(((1 << index_bits) - 1) << (16 * i) for i in range(4))
    assert marks.size == 1 << index_bits and np.all(marks == 0xFFFF)


@pytest.mark.parametrize("sizes", [(16, 17), (17, 16), (3, 5), (0, 1, 2)])
def test_misfits_compare_each_word_with_its_size(sizes):
    """The words whose bit count is not their size, by the sizes' step of one (up or down)
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


def _enumerated_law(draw: SubsetWords) -> dict[tuple[int, tuple[int, ...]], Fraction]:
    """The exact law of ``(which, subset)`` for a sampler of at most 16 slots (one quarter):
    every word of ``rank_bits`` placed by ``locate`` (a tied word by its exact share of the
    ranges), then every index of the quarter's row, the marks rejected."""
    _, bounds = _reference_bounds(draw.slots, draw.sizes, draw.odds or (1,) * len(draw.sizes))
    every = np.arange(1 << draw.rank_bits, dtype=np.uint64)
    outcome, tied = draw.locate(every)
    weight: dict[int, Fraction] = {}
    for w, r, tie in zip(every.tolist(), outcome.tolist(), tied.tolist()):
        shares = _word_law(bounds, w, draw.rank_bits) if tie else {r: Fraction(1)}
        for r, share in shares.items():
            weight[r] = weight.get(r, Fraction(0)) + share / (1 << draw.rank_bits)
    law: dict[tuple[int, tuple[int, ...]], Fraction] = {}
    span = 1 << draw.index_bits
    for r, p in weight.items():
        indices = np.zeros((span, 4), dtype=np.uint16)
        indices[:, _QUARTER_COLUMN[3]] = np.arange(span, dtype=np.uint16)
        words = draw.patterns(np.full(span, r), indices.view(np.uint64).reshape(-1))
        which = int(draw.which(np.array([r]))[0])
        words = words[np.bitwise_count(words) == draw.sizes[which]]  # the marks rejected
        subsets, counts = np.unique(words, return_counts=True)
        for word, count in zip(subsets.tolist(), counts.tolist()):
            key = (which, _top(word, draw.slots))
            law[key] = law.get(key, Fraction(0)) + p * Fraction(count, words.size)
    return law


@pytest.mark.parametrize("slots", range(1, 9))
def test_every_word_and_index_of_small_widths_draws_the_exact_law(slots):
    """All words of 8 bits (a guide of 3 bits, so that cells are cut and words tied) and
    all pattern indices: every size c has probability odds_c / sum(odds) and, given it,
    every c-subset of the slots 1 / C(N, c), exactly."""
    sizes = tuple(range(slots + 1))
    odds = tuple(range(1, slots + 2))
    bits = max(1, (math.comb(slots, slots // 2) - 1).bit_length())
    draw = SubsetWords(slots, sizes, odds, rank_bits=8, index_bits=bits, guide_bits=3)
    expected = {
        (j, subset): Fraction(odds[j], sum(odds)) / math.comb(slots, c)
        for j, c in enumerate(sizes)
        for subset in itertools.combinations(range(slots), c)
    }
    assert _enumerated_law(draw) == expected


def test_insert_value_rotates_the_slots_around_x():
    """k = 64, 40, 9 and 2, every x: slot t becomes value (x + 1 + t) mod k, x is set when
    included, and nothing is set outside the top k bits."""
    gen = np.random.default_rng(4)
    for k in (64, 40, 9, 2):
        slots = gen.integers(0, 1 << 63, k, dtype=np.uint64) << np.uint64(1)
        slots &= np.uint64(((1 << (k - 1)) - 1) << (65 - k))  # the top k - 1 bits
        x = np.arange(k)
        include = gen.random(k) < 0.5
        out = insert_value(slots.copy(), x, include, k)
        for u in range(k):
            values = {(u + 1 + t) % k for t in _top(int(slots[u]), k - 1)}
            assert set(_top(int(out[u]), 64)) == values | ({u} if include[u] else set())


@pytest.mark.parametrize("k", [5, 6, 7, 8])
def test_the_law_of_the_reports_at_small_k_is_the_channel(k):
    """The exact law of a report at k = 5..8, from every word and index of small widths:
    the enumerated law of (inclusion, other values), the values placed around x, equals the
    mechanism's channel matrix."""
    mech = SubsetSelection(k, 1.0, encoding="bits")
    d = mech.d
    inside, outside = (Fraction(w) for w in mech._law.weights)
    bits = max(1, (math.comb(k - 1, (k - 1) // 2) - 1).bit_length())
    draw = SubsetWords(k - 1, (d, d - 1), (outside, inside), 8, bits, 3)
    law = _enumerated_law(draw)
    subsets = list(itertools.combinations(range(k), d))
    column = {s: i for i, s in enumerate(subsets)}
    matrix = np.zeros((k, len(subsets)))
    for x in range(k):
        for (which, slots), prob in law.items():
            values = {(x + 1 + t) % k for t in slots} | ({x} if which == 1 else set())
            matrix[x, column[tuple(sorted(values))]] += float(prob)
    assert np.allclose(matrix, mech.to_channel().matrix, rtol=1e-12, atol=0)


def test_cut_cells_are_placed_with_fresh_low_bits():
    """A guide of 2 bits at N = 18, sizes 3 and 4 (odds 1 : 2): most users' cells are cut
    and placed in finish from fresh low bits; the sizes keep their odds (binomial), the
    3-subsets stay uniform (chi-square over all 816) and so does the number of slots in the
    small quarter (hypergeometric)."""
    draw = SubsetWords(18, (3, 4), (1, 2), guide_bits=2)
    assert (draw._tables["guide"] == _CUT).sum() >= 2
    n = 200_000
    out, which = draw.sample(np.random.default_rng(12), n)
    assert np.array_equal(np.bitwise_count(out), 3 + which)
    assert stats.binomtest(int(which.sum()), n, 2 / 3).pvalue > 1e-4
    three = out[which == 0]
    index = {s: i for i, s in enumerate(itertools.combinations(range(18), 3))}
    counts = np.bincount([index[_top(int(w), 18)] for w in three], minlength=len(index))
    assert stats.chisquare(counts).pvalue > 1e-4
    small = np.bitwise_count(three >> np.uint64(62))  # slots 0 and 1
    law = [math.comb(2, a) * math.comb(16, 3 - a) / math.comb(18, 3) for a in range(3)]
    expected = three.size * np.array(law)
    assert stats.chisquare(np.bincount(small, minlength=3), expected).pvalue > 1e-4


def test_draft_reads_the_indices_from_a_word_and_the_cell_from_a_quarter():
    """k = 64, one user: one call draws its index word, then the word whose first 16-bit
    part is its cell; the four indices are the parts of the index word (each cut to its
    row's width): with indices 0, a cell the guide decides gives its outcome's four rows'
    first entries, its first patterns."""
    draw = SubsetWords(63, (17, 16), (47, 46))
    t = draw._tables
    cell = int(np.flatnonzero(t["guide"] != _CUT)[0])
    r = int(t["guide"][cell])
    key = np.array([cell, 0, 0, 0], dtype=np.uint16).view(np.uint64)
    gen = _Words(np.concatenate([np.zeros(1, dtype=np.uint64), key]))
    out, which, unfinished, _, _ = draw.draft(gen, 1)
    assert gen.arrays == [] and unfinished.size == 0
    assert int(which[0]) == draw.outcomes()[r - 1][0]
    first = np.array([t["patterns"][t["rows"][r, c]] for c in range(4)], dtype=np.uint16)
    assert int(out[0]) == int(first.view(np.uint64)[0])
    assert int(out[0]).bit_count() == draw.sizes[int(which[0])]


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
    with pytest.raises(ValueError, match="odds"):
        SubsetWords(10, (3, 4), (1,))
    with pytest.raises(ValueError, match="odds"):
        SubsetWords(10, (3, 4), (0, 0))
    with pytest.raises(ValueError, match="odds"):
        SubsetWords(10, (3, 4), (1, -1))
    with pytest.raises(ValueError, match="odds"):
        SubsetWords(10, (3, 4), (1, 0.5))
    with pytest.raises(ValueError, match="index_bits"):
        SubsetWords(63, (3,), index_bits=12)
    with pytest.raises(ValueError, match="rank_bits"):
        SubsetWords(20, (10,), rank_bits=65)
    with pytest.raises(ValueError, match="guide_bits"):
        SubsetWords(20, (3,), rank_bits=16, guide_bits=17)
    with pytest.raises(ValueError, match="guide_bits"):
        SubsetWords(5, (2,), rank_bits=8, guide_bits=9)
    with pytest.raises(ValueError, match="rank_bits = 64"):
        SubsetWords(5, (2,), rank_bits=8, guide_bits=3).draft(np.random.default_rng(0), 3)

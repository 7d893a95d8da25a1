"""The word sampler of subset selection (k <= 64, numpy Generator): the exact law by
enumerating every word of small widths, and seeded goodness-of-fit tests at k = 64."""

from __future__ import annotations

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
    """How many pairs (rank word, index of the one quarter with slots) of the small widths
    are accepted and give each subset of size ``sizes[j]`` (slots <= 16)."""
    words = np.arange(1 << draw.rank_bits, dtype=np.uint64)
    keys, rejected = draw.ranks(words, np.full(words.size, j, dtype=np.intp))
    comp = draw.compositions(keys[~rejected])
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
    """All rank words of 8 bits and all pattern indices of the smallest width: every
    c-subset of the slots is drawn by exactly T floor(2^8 / T) floor(2^h / T) pairs
    (T = C(N, c): one composition, which every accepted rank word names), every size c,
    and nothing else is accepted."""
    sizes = tuple(range(slots + 1))
    bits = max(1, (math.comb(slots, slots // 2) - 1).bit_length())
    draw = SubsetWords(slots, sizes, rank_bits=8, index_bits=bits)
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


def test_compositions_take_their_share_of_the_ranks_and_are_found():
    """N = 63, sizes 16 and 17 (k = 64): the ranges of the compositions have the sizes
    prod C(s_i, m_i) and add up to C(63, c); every key at a range's ends, and random ones,
    is placed in its range (the guide table and the search agree with a plain search)."""
    draw = SubsetWords(63, (16, 17))
    starts = draw._tables["starts"].astype(object)
    assert starts[-1] == math.comb(63, 16) + math.comb(63, 17)
    quarters = draw.quarter_slots
    widths = [
        math.prod(math.comb(s, m) for s, m in zip(quarters, counts))
        for c in (16, 17)
        for counts in itertools.product(*(range(s + 1) for s in quarters))
        if sum(counts) == c
    ]
    assert np.diff(starts).tolist() == widths
    ends = np.array(starts[:-1].tolist() + (starts[1:] - 1).tolist(), dtype=np.uint64)
    random = np.random.default_rng(3).integers(0, int(starts[-1]), 100_000, dtype=np.uint64)
    keys = np.concatenate([ends, random])
    expected = np.searchsorted(draw._tables["starts"], keys, side="right") - 1
    assert np.array_equal(draw.compositions(keys), expected)


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
    draw = SubsetWords(k - 1, (d - 1, d), rank_bits=8, index_bits=bits)
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


def test_reports_at_k_64_fit_the_law():
    """Seeded goodness of fit of privatize at k = 64 (the word path): the inclusion of x
    (binomial), the other values' frequencies (uniform over the 63, chi-square), the
    members among the first 32 values other than x (hypergeometric given the inclusion),
    and how often two given values are reported together (a correct sampler fails each
    with probability 1e-4; seeded)."""
    mech = SubsetSelection(64, 1.0)
    n, x = 200_000, 40
    reports = mech.privatize(np.full(n, x), rng=np.random.default_rng(11))
    assert_subset_reports_fit_the_law(mech, reports, x, pair=(3, 50))


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="slots"):
        SubsetWords(64, (3,))
    with pytest.raises(ValueError, match="sizes"):
        SubsetWords(10, (11,))
    with pytest.raises(ValueError, match="index_bits"):
        SubsetWords(63, (3,), index_bits=12)
    with pytest.raises(ValueError, match="rank_bits"):
        SubsetWords(20, (10,), rank_bits=16)

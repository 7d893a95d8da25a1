"""The word samplers of simulations (ldp._words): every half of a tiny width enumerated, the
tie resolution enumerated over its first steps, and the sampled laws by seeded tests."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from ldp._words import (
    WordCoin,
    below,
    coin_lanes,
    draw_below,
    half_bits,
    halves,
    parts,
    uniform_below,
    uniform_rank,
    words,
)

PROBABILITIES = [
    Fraction(0),
    Fraction(1),
    Fraction(1, 3),
    Fraction(5, 16),
    Fraction(15, 16),
    Fraction(1, 1000),
    Fraction(999, 1000),
    Fraction(2**60 + 1, 2**61 + 7),
]


@pytest.mark.parametrize("p", PROBABILITIES, ids=str)
@pytest.mark.parametrize("bits", [1, 3, 4])
def test_coin_decides_every_half_with_the_exact_probability(p, bits):
    """Over all 2^bits halves: the heads, plus the ties weighted by the probability of heads
    on a tie, are exactly p 2^bits (the tie is the only half left undecided)."""
    coin = WordCoin(p, bits)
    every = np.arange(1 << bits, dtype=np.uint16)
    heads, tied = coin.decide(every)
    assert not np.any(heads & tied)
    assert int(tied.sum()) <= 1
    assert int(heads.sum()) + int(tied.sum()) * coin.rest == p * (1 << bits)
    # a half above the threshold is tails, below it heads
    assert np.all(heads == (every < coin.threshold))


class _Replay:
    """A generator whose ``integers`` returns given words, then runs out (raises)."""

    def __init__(self, drawn):
        self._drawn = list(drawn)

    def integers(self, low, high, dtype=None):
        if not self._drawn:
            raise LookupError("out of words")
        return self._drawn.pop(0)


@pytest.mark.parametrize(
    "rest", [Fraction(1, 3), Fraction(5, 7), Fraction(1, 4), Fraction(1, 2**9)]
)
def test_tie_resolution_enumerated_over_its_first_steps(rest):
    """Every sequence of three 2-bit steps: the sequences decided heads carry probability at
    most ``rest``, and with the undecided ones at least ``rest`` (so the coin's probability
    is ``rest`` exactly, as the undecided mass goes to zero)."""
    p = rest / 2  # a one-bit half below the threshold 0: a tie with rest p * 2 - 0
    coin = WordCoin(p, 1)
    assert coin.threshold == 0 and coin.rest == rest
    heads = undecided = 0
    steps = 3
    for sequence in itertools.product(range(4), repeat=steps):
        try:
            heads += bool(coin.resolve(_Replay(sequence), 1, step_bits=2)[0])
        except LookupError:
            undecided += 1
    total = 4**steps
    assert Fraction(heads, total) <= rest <= Fraction(heads + undecided, total)
    assert undecided <= 1  # at most one prefix of each length straddles rest


def test_tie_resolution_goodness_of_fit():
    coin = WordCoin(Fraction(1, 3) / 2**16, 16)  # threshold 0, rest 1/3
    drawn = coin.resolve(np.random.default_rng(4), 3000, step_bits=3)
    assert stats.binomtest(int(drawn.sum()), 3000, 1 / 3).pvalue > 1e-4


@pytest.mark.parametrize("bits", [4, 16])
@pytest.mark.parametrize("bound", [1, 2, 3, 5, 7, 10, 16, 1023, 12345, 65535, 65536])
def test_below_maps_every_half_evenly(bits, bound):
    """Over all 2^bits halves: each output 0 .. bound - 1 is accepted from exactly
    floor(2^bits / bound) of them (the law is uniform), and every output is below bound."""
    if bound > 1 << bits:
        pytest.skip("bound above the half's range")
    every = np.arange(1 << bits, dtype=np.uint16 if bits <= 16 else np.uint32)
    r, rejected = below(every, bound, bits)
    accepted = r[~rejected].astype(np.int64)
    assert accepted.max() < bound
    counts = np.bincount(accepted, minlength=bound)
    np.testing.assert_array_equal(counts, np.full(bound, (1 << bits) // bound))
    # multiply-shift, checked against Python integers
    for h in (0, 1, (1 << bits) - 1, (1 << bits) // 3):
        assert int(r[h]) == h * bound >> bits
        assert bool(rejected[h]) == ((h * bound) % (1 << bits) < (1 << bits) % bound)


def test_below_on_32_bit_halves_agrees_with_integer_arithmetic():
    h = np.random.default_rng(2).integers(0, 1 << 32, size=5000, dtype=np.uint64)
    h = np.concatenate([h, [0, 1, (1 << 32) - 1]]).astype(np.uint32)
    for bound in (3, 1023, 65537, 2**31 + 11, 2**32):
        r, rejected = below(h, bound, 32)
        for value, got, rej in zip(h.tolist(), r.tolist(), rejected.tolist()):
            assert got == value * bound >> 32
            assert rej == ((value * bound) % 2**32 < 2**32 % bound)


def test_draw_below_goodness_of_fit():
    gen = np.random.default_rng(3)
    for bound, bits in ((7, 16), (65537 * 3, 32)):
        drawn = draw_below(gen, bound, 70_000, bits)
        assert drawn.min() >= 0 and drawn.max() < bound
        observed = np.bincount(drawn * 7 // bound, minlength=7)  # 7 near-equal bins
        edges = [(-(-j * bound // 7)) for j in range(8)]
        expected = np.diff(edges) / bound * drawn.size
        assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_halves_are_independent_uniform_parts():
    gen = np.random.default_rng(9)
    for bits in (16, 32):
        first, second = halves(gen, 40_001, bits)
        assert first.size == second.size == 40_001
        assert first.dtype == np.dtype(f"uint{bits}")
        # top four bits of the pair: 256 equally likely cells
        top = (first >> (bits - 4)).astype(np.int64) * 16 + (second >> (bits - 4))
        assert stats.chisquare(np.bincount(top, minlength=256)).pvalue > 1e-4
    assert half_bits(2**16) == 16 and half_bits(2**16 + 1) == 32
    assert words(gen, 3).dtype == np.uint64


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="p must be"):
        WordCoin(Fraction(3, 2))
    with pytest.raises(ValueError, match="p must be"):
        WordCoin(0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="bits must be"):
        WordCoin(Fraction(1, 2), 33)
    with pytest.raises(ValueError, match="bound must"):
        below(np.zeros(2, np.uint16), 2**16 + 1, 16)
    with pytest.raises(ValueError, match="bits must be 16 or 32"):
        halves(np.random.default_rng(0), 2, 8)


class _Planes:
    """Gives the digit planes first, then words of a seeded generator."""

    def __init__(self, planes):
        self._planes = np.asarray(planes, dtype=np.uint64)
        self._rest = np.random.default_rng(0)

    def integers(self, low, high, size=None, dtype=None):
        if self._planes is not None:
            assert size == self._planes.size
            planes, self._planes = self._planes, None
            return planes
        return self._rest.integers(low, high, size=size, dtype=dtype)


@pytest.mark.parametrize("p", PROBABILITIES[2:], ids=str)
def test_coin_lanes_compare_every_digit_sequence(p):
    """One word, six digit planes: lane l carries the six digits of l, so the 64 lanes are
    every sequence of six digits; exactly the lanes below floor(64 p) are decided U < p,
    those above it U > p, and the lane equal to p's digits goes on reading."""
    planes = [sum(((lane >> (5 - j)) & 1) << lane for lane in range(64)) for j in range(6)]
    lanes = coin_lanes(_Planes(planes), p, 1, planes=6)
    heads = np.unpackbits(lanes.view("<u8").view(np.uint8), bitorder="little")
    threshold = int(p * 64)
    np.testing.assert_array_equal(heads[:threshold], 1)
    np.testing.assert_array_equal(heads[threshold + 1 :], 0)


@pytest.mark.parametrize("p", [Fraction(0), Fraction(1), *PROBABILITIES[2:]], ids=str)
def test_coin_lanes_goodness_of_fit(p):
    lanes = coin_lanes(np.random.default_rng(7), p, 2000)
    heads = int(np.unpackbits(lanes.view(np.uint8)).sum())
    if p in (0, 1):
        assert heads == p * 128_000
    else:
        assert stats.binomtest(heads, 128_000, float(p)).pvalue > 1e-4


class _Words:
    """A generator whose 64-bit words are given (``parts`` and ``uniform_below`` read
    ``integers(0, 2^64, size, dtype=uint64)``)."""

    def __init__(self, drawn):
        self._drawn = np.asarray(drawn, dtype=np.uint64)

    def integers(self, low, high, size=None, dtype=None):
        out, self._drawn = self._drawn[:size], self._drawn[size:]
        return out


@pytest.mark.parametrize("bound", [2, 8, 2**16, 2**22, 2**40])
def test_uniform_below_a_power_of_two_keeps_the_low_bits(bound):
    """Every value of the 16-bit parts' low bits is hit equally often, and a known word
    gives its low bits (the parts are the words' 16, 32 or 64-bit pieces)."""
    width = 16 if bound <= 2**16 else 32 if bound <= 2**32 else 64
    every = np.arange(1 << 16, dtype=np.uint64)
    if width == 16:  # four 16-bit parts per word: every part value once
        packed = every[0::4] | every[1::4] << 16 | every[2::4] << 32 | every[3::4] << 48
        got = uniform_below(_Words(packed), bound, 1 << 16)
        assert np.array_equal(np.sort(got), np.sort(every.astype(np.int64) % bound))
    word = 0x0123_4567_89AB_CDEF
    got = uniform_below(_Words([word] * 2), bound, 64 // width)
    pieces = [(word >> (width * j)) & ((1 << width) - 1) for j in range(64 // width)]
    assert sorted(got.tolist()) == sorted(piece % bound for piece in pieces)  # any byte order


def test_uniform_below_large_bounds_reject_the_values_above():
    """Above 2^32 and not a power of two: bit_length(bound - 1) low bits of a word, and a
    value at or above the bound is redrawn from the next word."""
    bound = 3 * 2**40 + 1
    mask = (1 << 42) - 1
    drawn = [mask, bound, bound - 1, 12345 | 1 << 60]  # the top bits are dropped
    got = uniform_below(_Words(drawn), bound, 2)
    assert got.tolist() == [bound - 1, 12345]


def test_uniform_below_goodness_of_fit():
    gen = np.random.default_rng(11)
    for bound in (7, 65537 * 3, 3**30):
        drawn = uniform_below(gen, bound, 70_000)
        assert drawn.dtype == np.int64 and drawn.min() >= 0 and drawn.max() < bound
        observed = np.bincount(drawn * 7 // bound, minlength=7)
        edges = [(-(-j * bound // 7)) for j in range(8)]
        expected = np.diff(edges) / bound * drawn.size
        assert stats.chisquare(observed, expected).pvalue > 1e-4
    assert uniform_below(gen, 1, 3).tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="bound must lie in"):
        uniform_below(gen, 2**53 + 1, 3)
    with pytest.raises(ValueError, match="bits must be 16, 32 or 64"):
        parts(gen, 3, 8)


def test_popcount_by_bytes_equals_bitwise_count_on_every_width():
    """The byte-table popcount (numpy < 2.0) against a bit-by-bit count, at every unsigned
    width and for strided input."""
    from ldp._words import _popcount_by_bytes, popcount

    gen = np.random.default_rng(4)
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        bits = 8 * np.dtype(dtype).itemsize
        x = gen.integers(0, 1 << bits, size=(50, 7), dtype=dtype, endpoint=False)
        x[0, 0], x[0, 1] = 0, np.iinfo(dtype).max
        expected = np.array([[bin(int(v)).count("1") for v in row] for row in x], dtype=np.int64)
        assert np.array_equal(_popcount_by_bytes(x), expected)
        assert np.array_equal(_popcount_by_bytes(x[:, ::2]), expected[:, ::2])
        assert np.array_equal(popcount(x), expected)


@pytest.mark.parametrize(
    "thresholds",
    [
        (Fraction(1, 3),),
        (Fraction(1, 3), Fraction(1, 2)),
        (Fraction(0), Fraction(5, 7), Fraction(5, 7), Fraction(1)),
        (Fraction(1, 2**9), Fraction(3, 4), Fraction(1, 5)),
    ],
    ids=str,
)
def test_uniform_rank_enumerated_over_its_first_steps(thresholds):
    """Every sequence of three 2-bit steps: the sequences decided ``r`` (that many
    thresholds at most ``V``) carry probability at most ``P(r)`` (the length of the
    interval of ``V`` between the ``r``-th and ``r + 1``-th smallest threshold), and with
    the undecided ones at least ``P(r)``: the law is exact as the undecided mass goes to
    zero."""
    ordered = [Fraction(0), *sorted(thresholds), Fraction(1)]
    exact = [ordered[r + 1] - ordered[r] for r in range(len(thresholds) + 1)]
    decided = [0] * len(exact)
    undecided = 0
    for sequence in itertools.product(range(4), repeat=3):
        try:
            decided[uniform_rank(_Replay(sequence), thresholds, step_bits=2)] += 1
        except LookupError:
            undecided += 1
    for r, p in enumerate(exact):
        assert Fraction(decided[r], 64) <= p <= Fraction(decided[r] + undecided, 64)
    assert undecided <= len(set(thresholds))  # one prefix a threshold straddles at most


def test_uniform_rank_goodness_of_fit():
    thresholds = (Fraction(1, 3), Fraction(1, 2), Fraction(7, 8))
    gen = np.random.default_rng(9)
    ranks = [uniform_rank(gen, thresholds, step_bits=3) for _ in range(4000)]
    law = np.diff([0, 1 / 3, 1 / 2, 7 / 8, 1])
    counts = np.bincount(ranks, minlength=4)
    assert stats.chisquare(counts, 4000 * law).pvalue > 1e-4

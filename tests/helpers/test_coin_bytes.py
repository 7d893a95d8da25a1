"""The byte sampler of the unary encodings (ldp._coin_bytes): at tiny widths every cell of the
table checked against the intervals it meets, the draw order of the cells checked, every
index and refinement enumerated (their masses add up to the exact law of the patterns), the
last stage checked step by step, and the sampled law at the production widths by seeded
goodness-of-fit tests."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from ldp import _coin_bytes as coin_bytes
from ldp._coin_bytes import CoinBytes

PROBABILITIES = [
    Fraction(0),
    Fraction(1),
    Fraction(1, 2),
    Fraction(1, 3),
    Fraction(5, 16),
    Fraction(1, 1000),
    Fraction(999, 1000),
    Fraction(2**60 + 1, 2**61 + 7),
]
#: (coins, bits, refine_bits): every half and every refinement enumerable
WIDTHS = [(1, 3, 2), (2, 3, 3), (3, 4, 3), (2, 1, 5)]


def exact_law(p: Fraction, coins: int) -> list[Fraction]:
    """P(pattern j): coin i is bit coins - 1 - i of j; independent coins of probability p."""
    out = []
    for j in range(1 << coins):
        bits = [(j >> (coins - 1 - i)) & 1 for i in range(coins)]
        prob = Fraction(1)
        for b in bits:
            prob *= p if b else 1 - p
        out.append(prob)
    return out


def overlaps(p: Fraction, coins: int, lo: Fraction, hi: Fraction) -> list[Fraction]:
    """The length of [lo, hi) inside each pattern's interval of the cumulative law."""
    out, start = [], Fraction(0)
    for prob in exact_law(p, coins):
        end = start + prob
        out.append(max(Fraction(0), min(end, hi) - max(start, lo)))
        start = end
    return out


class Words:
    """A stand-in generator whose 64-bit words are given, in order."""

    def __init__(self, values):
        self.values = [int(v) for v in values]

    def integers(self, low, high, size=None, dtype=None):
        assert (low, high) == (0, 1 << 64) or size is None
        if size is None:
            return np.uint64(self.values.pop(0))
        taken, self.values = self.values[:size], self.values[size:]
        return np.array(taken, dtype=np.uint64)


@pytest.mark.parametrize("p", PROBABILITIES, ids=str)
@pytest.mark.parametrize(("coins", "bits", "refine"), WIDTHS)
def test_every_table_cell_holds_the_one_pattern_it_meets(p, coins, bits, refine):
    sampler = CoinBytes(p, coins=coins, bits=bits, refine_bits=refine)
    for h in range(1 << bits):
        cell = overlaps(p, coins, Fraction(h, 1 << bits), Fraction(h + 1, 1 << bits))
        met = [j for j, length in enumerate(cell) if length > 0]
        value = int(sampler.table[h])
        if len(met) == 1:
            assert value == met[0], h
        else:
            assert value >= 1 << coins and (value & ((1 << coins) - 1)) == met[0], h


class Recording(CoinBytes):
    """Records the intervals handed to the last stage instead of reading more words."""

    def resolve(self, gen, start, width, step_bits=64):
        self.__dict__.setdefault("handed", []).append((start, width))
        return 0


@pytest.mark.parametrize("p", PROBABILITIES, ids=str)
@pytest.mark.parametrize(("coins", "bits", "refine"), WIDTHS)
def test_the_draw_order_puts_the_split_cells_last(p, coins, bits, refine):
    """``order`` is a permutation of the cells, the split ones (flagged in ``table``) at the
    indices from ``first_split`` on; ``lookup`` holds each index's cell pattern; ``inside``
    counts the boundaries strictly inside each cell, from the exact law."""
    sampler = CoinBytes(p, coins=coins, bits=bits, refine_bits=refine)
    order = sampler.order.tolist()
    assert sorted(order) == list(range(1 << bits))
    flag = 1 << coins
    split = [int(sampler.table[h]) >= flag for h in order]
    assert split == [u >= sampler.first_split for u in range(1 << bits)]
    assert sampler.lookup.tolist() == [int(sampler.table[h]) % flag for h in order]
    for h in range(1 << bits):
        lo, hi = Fraction(h, 1 << bits), Fraction(h + 1, 1 << bits)
        strictly = sum(lo < f < hi for f in sampler.cumulative)
        assert sampler.inside[h] == strictly, h
        assert (strictly > 0) == (int(sampler.table[h]) >= flag), h
    assert sampler.most_inside == max(sampler.inside.tolist())


@pytest.mark.parametrize("scan", [8, 0], ids=["compared-in-cell", "binary-search"])
@pytest.mark.parametrize("p", PROBABILITIES, ids=str)
@pytest.mark.parametrize(("coins", "bits", "refine"), WIDTHS)
def test_every_half_and_refinement_adds_up_to_the_exact_law(
    p, coins, bits, refine, scan, monkeypatch
):
    """Each index u (its cell ``order[u]``; then, in a split cell, each refinement s) drawn
    through ``draw`` from given words; the intervals handed to the last stage count by their
    overlaps with the patterns (what that stage samples, checked below). Both ways of
    counting the thresholds of a split cell are enumerated."""
    monkeypatch.setattr(coin_bytes, "_SCAN", scan)
    sampler = Recording(p, coins=coins, bits=bits, refine_bits=refine)
    mass = [Fraction(0)] * (1 << coins)
    for h in range(1 << bits):
        for s in range(1 << refine):
            gen = Words([h << (64 - bits), s << (64 - refine)])
            handed = len(sampler.__dict__.get("handed", []))
            (pattern,) = sampler.draw(gen, 1).tolist()
            weight = Fraction(1, 1 << (bits + refine))
            if len(gen.values) == 1:  # the table decided: s was not read
                mass[pattern] += weight
            elif len(sampler.__dict__.get("handed", [])) > handed:
                start, width = sampler.handed[-1]
                cell = int(sampler.order[h])
                assert (start, width) == (
                    Fraction((cell << refine) + s, 1 << (bits + refine)),
                    Fraction(1, 1 << (bits + refine)),
                )
                for j, length in enumerate(overlaps(p, coins, start, start + width)):
                    mass[j] += length / width * weight
            else:
                mass[pattern] += weight
    assert mass == exact_law(p, coins)


@pytest.mark.parametrize("p", [Fraction(1, 3), Fraction(5, 16), Fraction(1, 1000)], ids=str)
def test_the_last_stage_narrows_to_one_pattern(p):
    """Every sequence of four 2-bit steps into a quarter with boundaries inside: where it
    stops, the pattern returned holds the whole interval its steps read, and the masses
    decided within four steps bracket the exact overlaps (the rest, the subintervals of
    width 2^-8 that hold a boundary, is at most 7 of them)."""
    coins, step, length = 3, 2, 4
    sampler = CoinBytes(p, coins=coins, bits=2, refine_bits=2)
    start, width = Fraction(1, 4), Fraction(1, 4)  # the second quarter
    decided = [Fraction(0)] * (1 << coins)
    weight = width / (1 << (step * length))
    for steps in itertools.product(range(1 << step), repeat=length):
        gen = Words(steps)
        try:
            pattern = sampler.resolve(gen, start, width, step_bits=step)
        except IndexError:  # undecided after four steps
            continue
        lo, w = start, width
        for s in steps[: length - len(gen.values)]:
            w /= 1 << step
            lo += s * w
        assert overlaps(p, coins, lo, lo + w)[pattern] == w, steps
        decided[pattern] += weight
    total = overlaps(p, coins, start, start + width)
    rest = width - sum(decided)
    assert rest <= 7 * width / (1 << (step * length))
    for j in range(1 << coins):
        assert decided[j] <= total[j] <= decided[j] + rest


def test_patterns_follow_the_law_at_the_production_widths():
    """Seeded chi-square over the 256 patterns (the rare ones pooled), the split cells
    refined (about 1 byte in 260 at q = 1 / (e + 1)); at p = 1/1000 the boundaries crowd
    into few cells (up to 127 in one), counted by binary search."""
    for p in (Fraction(1) / (1 + Fraction(np.exp(1.0))), Fraction(3, 7), Fraction(1, 1000)):
        sampler = CoinBytes(p)
        n = 400_000
        drawn = np.bincount(sampler.draw(np.random.default_rng(11), n), minlength=256)
        expected = np.array([float(f) for f in exact_law(p, 8)]) * n
        big = expected >= 20
        observed, wanted = drawn[big], expected[big]
        if not big.all():
            observed = np.append(observed, drawn[~big].sum())
            wanted = np.append(wanted, expected[~big].sum())
        assert stats.chisquare(observed, wanted * n / wanted.sum()).pvalue > 1e-4


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="p must be a Fraction"):
        CoinBytes(0.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="coins must be an integer in \\[1, 8\\], got 9"):
        CoinBytes(Fraction(1, 2), coins=9)
    with pytest.raises(ValueError, match="bits must be an integer in \\[1, 16\\], got 17"):
        CoinBytes(Fraction(1, 2), bits=17)
    with pytest.raises(ValueError, match="refine_bits must be an integer in \\[1, 48\\], got 49"):
        CoinBytes(Fraction(1, 2), refine_bits=49)

"""The simulation path of local hashing (a numpy Generator: one word per user, ldp._words)
draws the law of the byte protocol: the bucket decision enumerated over every pair of halves
of a tiny width, and the pairs (hash function, bucket) by seeded goodness-of-fit tests."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from ldp._words import WordCoin
from ldp.mechanisms import BLH, OLH, LocalHashing
from ldp.mechanisms.categorical.local_hashing import grr_buckets, merge_buckets


@pytest.mark.parametrize(
    ("g", "xor"), [(2, False), (3, False), (4, False), (7, False), (4, True), (8, True)]
)
@pytest.mark.parametrize("p", [Fraction(1, 3), Fraction(5, 8), Fraction(7, 10)], ids=str)
def test_bucket_decision_enumerated_over_every_pair_of_halves(g, xor, p):
    """Over all pairs of 4-bit coin and index halves: the mass of each bucket, with a tied
    coin kept with its probability ``rest`` (else the bucket of the index half), and the
    rejected index halves left out (they are redrawn, so the law is that of the accepted
    ones), is exactly GRR's: ``p`` on the hashed bucket, ``(1 - p) / (g - 1)`` on each
    other one; with the other buckets numbered in increasing order, or (``xor``, a
    power-of-two ``g``) as ``h xor (r + 1)``."""
    bits = 4
    coin = WordCoin(p, bits)
    every = np.arange(1 << bits, dtype=np.uint16)
    coin_half, index_half = (a.ravel() for a in np.meshgrid(every, every, indexing="ij"))
    for h in range(g):
        hashed = np.full(coin_half.size, h)
        buckets, tied, rejected = grr_buckets(coin, g, hashed, coin_half, index_half, xor=xor)
        mass = [Fraction(0)] * g
        for i, b, t, r in zip(index_half.tolist(), buckets, tied, rejected):
            if r:
                continue
            if t:  # the coin is still open: keep with probability rest
                if g == 2:
                    other = 1 - h
                elif xor:
                    other = h ^ ((i * (g - 1) >> bits) + 1)
                else:
                    other = i * (g - 1) >> bits
                    other += int(other >= h)
                mass[h] += coin.rest
                mass[other] += 1 - coin.rest
            else:
                mass[int(b)] += 1
        total = sum(mass)
        assert mass[h] / total == p
        assert all(mass[b] / total == (1 - p) / (g - 1) for b in range(g) if b != h)
    assert int(tied.sum()) == (16 if coin.rest else 0)  # one tied coin half, every index


def test_merge_buckets_against_its_definition():
    g = 5
    hashed, keep, other = (a.ravel() for a in np.meshgrid(range(g), [0, 1], range(g - 1)))
    got = merge_buckets(hashed, keep.astype(bool), other, g)
    assert got.dtype == np.uint8
    for h, k, o, b in zip(hashed, keep, other, got):
        assert b == (h if k else [v for v in range(g) if v != h][o])
    assert merge_buckets(np.array([0, 1]), np.array([False, False]), None, 2).tolist() == [1, 0]


@pytest.mark.parametrize("g", [4, 8, 512])
def test_xor_merge_numbers_the_other_buckets_one_to_one(g):
    """With ``xor``, the ``g - 1`` values of ``other`` give the ``g - 1`` buckets that are
    not ``h``, each once; a kept user reports ``h``."""
    hashed, other = (a.ravel() for a in np.meshgrid(range(g), range(g - 1), indexing="ij"))
    changed = merge_buckets(hashed, np.zeros(hashed.size, dtype=bool), other, g, xor=True)
    kept = merge_buckets(hashed, np.ones(hashed.size, dtype=bool), other, g, xor=True)
    assert changed.dtype == kept.dtype == (np.uint8 if g <= 256 else np.uint16)
    assert np.array_equal(kept, hashed)
    for h, row in enumerate(changed.reshape(g, g - 1).tolist()):
        assert sorted(row) == [b for b in range(g) if b != h]
    with pytest.raises(ValueError, match="power-of-two g"):
        merge_buckets(np.array([0]), np.array([False]), np.array([0]), 6, xor=True)


def law_of_pairs(mech: LocalHashing, x: int) -> np.ndarray:
    """``P(hash function, bucket | x)``: every member equally likely, the bucket GRR of
    ``H(x)`` with the mechanism's ``p`` (from the exact keep weights)."""
    members = mech.hash_functions()
    keep, change = mech.sampler()["keep"]
    p = Fraction(keep) / (Fraction(keep) + Fraction(change))
    g = mech.g
    law = np.full((members.shape[0], g), float((1 - p) / (g - 1)))
    law[np.arange(members.shape[0]), mech.hash_values(members, x)] = float(p)
    return law / members.shape[0]


@pytest.mark.parametrize(
    ("mech", "x", "n"),
    [
        (BLH(5, 1.0), 3, 60_000),  # 8 members, 16 cells
        (OLH(4, 1.0), 2, 80_000),  # GF(2)^2: 64 members, 256 cells
        (LocalHashing(2, 1.5, 8), 1, 60_000),  # GF(2)^3, one digit: 64 members, 512 cells
        (LocalHashing(3, 0.7, 3), 1, 40_000),  # GF(3): 9 members
        (LocalHashing(3, 2.0, 6), 2, 150_000),  # ring Z_6: 216 members, 1296 cells
        (LocalHashing(4, 9.0, 5), 0, 60_000),  # a keep coin that ties often
    ],
    ids=repr,
)
def test_pairs_of_hash_function_and_bucket_follow_the_law(mech, x, n):
    # g = 4 and 8 take one word per user and the xor numbering of the other buckets
    assert mech._one_word == (mech.g in (4, 8))
    reports = mech.privatize(np.full(n, x), rng=np.random.default_rng(mech.g * 10 + x))
    members = mech.hash_functions()
    index = {tuple(row): i for i, row in enumerate(members.tolist())}
    cells = np.array([index[tuple(row)] for row in reports[:, :-1].tolist()]) * mech.g
    cells += reports[:, -1]
    observed = np.bincount(cells, minlength=members.shape[0] * mech.g)
    expected = law_of_pairs(mech, x).ravel() * n
    assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_large_words_are_uniform_on_their_size():
    """A hash word above 2^32 that is not a power of two (GF(3) rows of k = 2^40): masked
    64-bit words with rejection; its residues modulo 9 are uniform (the size is 3^26 * 3)."""
    mech = LocalHashing(2**40, 1.0, 3)
    (size,) = mech.word_sizes
    assert size > 1 << 32 and size & (size - 1)
    reports = mech.privatize(np.zeros(45_000, dtype=np.int64), rng=np.random.default_rng(5))
    assert reports[:, 0].min() >= 0 and reports[:, 0].max() < size
    assert stats.chisquare(np.bincount(reports[:, 0] % 9, minlength=9)).pvalue > 1e-4
    top = reports[:, 0] * 8 // size  # eight near-equal ranges of the size
    edges = [-(-j * size // 8) for j in range(9)]
    expected = np.diff(edges) / size * top.size
    assert stats.chisquare(np.bincount(top, minlength=8), expected).pvalue > 1e-4


def test_os_and_byte_sources_keep_the_byte_protocol():
    """rng="os" reads the operating system's bytes through the byte protocol (not the
    word path), and reports stay valid."""
    mech = OLH(64, 1.0)
    reports = mech.privatize(np.arange(64), rng="os")
    assert reports.shape == (64, 2)
    assert mech.aggregate(reports).n == 64


def test_rejected_index_halves_are_redrawn_with_the_law():
    """g - 1 = 2^15 + 1: about half the 16-bit index halves are rejected and redrawn; the
    kept fraction is p and the other buckets, counted from the hashed one, are uniform."""
    mech = LocalHashing(3, 8.0, 2**15 + 2)
    n = 100_000
    reports = mech.privatize(np.full(n, 1), rng=np.random.default_rng(12))
    hashed = mech.hash_values(reports[:, :-1], 1)
    kept = reports[:, -1] == hashed
    assert stats.binomtest(int(kept.sum()), n, mech.p).pvalue > 1e-4
    others = reports[~kept, -1]
    slot = others - (others > hashed[~kept])  # 0 .. g - 2, uniform
    bound = mech.g - 1
    edges = [-(-j * bound // 8) for j in range(9)]
    observed = np.histogram(slot, bins=edges)[0]
    expected = np.diff(edges) / bound * slot.size
    assert stats.chisquare(observed, expected).pvalue > 1e-4

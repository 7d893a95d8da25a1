"""The simulation path of the categorical privatizers (one word per user, ldp._words) draws
the law of the byte protocol: seeded goodness-of-fit tests on the paths the generic
goodness-of-fit tests (GRR(6), OUE(6), subset selection at small k) do not reach, and the
HCMS draws enumerated over every part of a small width."""

from __future__ import annotations

import hashlib
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from ldp._words import WordCoin
from ldp.mechanisms import GRR, HCMS
from ldp.mechanisms.sketches.words import hadamard_draws


def test_grr_with_32_bit_halves_keeps_and_moves_with_the_law():
    """k - 1 above 2^16: the coin and the other value come from 32-bit halves."""
    k, x, n = 2**17 + 3, 70_001, 60_000
    mech = GRR(k, 3.0)
    assert mech._bits == 32
    reports = mech.privatize(np.full(n, x), rng=np.random.default_rng(6)).astype(np.int64)
    kept = int(np.sum(reports == x))
    assert stats.binomtest(kept, n, mech.p).pvalue > 1e-4
    others = reports[reports != x]
    slot = others - (others > x)  # 0 .. k - 2, uniform
    bins = 16
    edges = [-(-j * (k - 1) // bins) for j in range(bins + 1)]
    observed = np.histogram(slot, bins=edges)[0]
    expected = np.diff(edges) / (k - 1) * others.size
    assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_grr_tie_and_rejection_paths_keep_the_law():
    """A keep probability that ties often (16-bit halves at eps = 9, k = 3: ties every
    2^16 users) and a bound with many rejections (k - 1 = 2^15 + 1): the law holds."""
    for k, eps, n in ((3, 9.0, 200_000), (2**15 + 2, 1.0, 200_000)):
        mech = GRR(k, eps)
        reports = mech.privatize(np.zeros(n, dtype=np.int64), rng=np.random.default_rng(k))
        kept = int(np.sum(reports == 0))
        assert stats.binomtest(kept, n, mech.p).pvalue > 1e-4
        others = reports[reports != 0].astype(np.int64) - 1
        if k == 3:
            assert stats.binomtest(int(np.sum(others == 0)), others.size, 0.5).pvalue > 1e-4
        else:
            observed = np.bincount(others * 8 // (k - 1), minlength=8)
            edges = [-(-j * (k - 1) // 8) for j in range(9)]
            expected = np.diff(edges) / (k - 1) * others.size
            assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_unary_bits_are_independent_with_their_probabilities():
    """Bit-sliced coins: every bit's frequency (the own bit p, the others q; k = 70 leaves
    pad bits, which stay 0), and two bits' joint frequency, seeded."""
    from ldp.mechanisms import OUE, SUE

    n, x = 40_000, 66
    for mech in (SUE(70, 1.0), OUE(70, 0.5)):
        reports = mech.privatize(np.full(n, x), rng=np.random.default_rng(8))
        assert np.all(reports[:, -1] & 0b11 == 0)
        bits = np.unpackbits(reports, axis=1, count=70).astype(np.int64)
        expected = np.full(70, mech.q)
        expected[x] = mech.p
        z = (bits.sum(axis=0) - n * expected) / np.sqrt(n * expected * (1 - expected))
        assert np.abs(z).max() < 4.5  # 70 bits: a correct sampler fails with probability 5e-4
        both = int(np.sum(bits[:, x] & bits[:, 3]))
        assert stats.binomtest(both, n, mech.p * mech.q).pvalue > 1e-4


@pytest.mark.parametrize(("depth", "width"), [(3, 4), (4, 8), (1, 2), (5, 16)])
def test_hcms_draws_enumerated_over_every_part_of_a_small_width(depth, width):
    """Every triple of 4-bit parts (coin, row, coefficient): the accepted triples give every
    (row, coefficient) equally often and, independently, keep with probability exactly
    ``p``, counting a tied coin part as ``rest`` of a keep (a rejected part is redrawn
    from fresh words, so the law is the law given acceptance)."""
    bits = 4
    p = Fraction(5, 7)
    coin = WordCoin(p, bits=bits)
    every = np.arange(1 << bits, dtype=np.uint16)
    c, r, k = (a.ravel() for a in np.meshgrid(every, every, every, indexing="ij"))
    rows, cols, keep, tied, bad_rows, bad_cols = hadamard_draws(coin, c, r, k, depth, width, bits)
    weight: dict[tuple[int, int, bool], Fraction] = {}
    accepted = ~(bad_rows | bad_cols)
    for row, col, kept, tie in zip(
        rows[accepted].tolist(), cols[accepted].tolist(), keep[accepted], tied[accepted]
    ):
        for outcome, mass in ((True, coin.rest), (False, 1 - coin.rest)) if tie else ((kept, 1),):
            key = (row, col, bool(outcome))
            weight[key] = weight.get(key, Fraction(0)) + Fraction(mass)
    total = sum(weight.values())
    expected = {
        (row, col, kept): Fraction(1, depth * width) * (p if kept else 1 - p)
        for row in range(depth)
        for col in range(width)
        for kept in (True, False)
    }
    assert {key: w / total for key, w in weight.items()} == expected


@pytest.mark.parametrize("users", [3, 5000])  # hashed per pair (few users), tabulated (many)
def test_hcms_word_path_signs_each_users_bucket(users):
    """At epsilon = 700 the sign is kept (a flip has probability below 1e-300): each bit is
    the Hadamard sign of the report's coefficient and its user's bucket, by hashlib."""
    mech = HCMS(700.0, width=64, depth=6, salt="w")
    values = np.array([f"v{i}" for i in np.random.default_rng(users).integers(0, 40, users)])
    reports = mech.privatize(values, rng=np.random.default_rng(1))
    buckets = [
        int.from_bytes(
            hashlib.sha256(
                b"ldpkit/sketch-hash/v1\x00"
                + (1).to_bytes(4, "big")
                + b"w"
                + int(row).to_bytes(4, "big")
                + str(v).encode()
            ).digest()[:8],
            "big",
        )
        % 64
        for row, v in zip(reports[:, 0], values)
    ]
    plus = [bin(int(col) & b).count("1") % 2 == 0 for col, b in zip(reports[:, 1], buckets)]
    assert reports[:, 2].tolist() == [int(x) for x in plus]


@pytest.mark.parametrize(("depth", "width", "eps"), [(3, 8, 0.8), (16, 1024, 1.0)])
def test_hcms_word_path_goodness_of_fit(depth, width, eps):
    """Seeded chi-square of (row, coefficient, bit) of one item against the exact law:
    uniform row and coefficient, the sign kept with probability e^eps / (1 + e^eps)."""
    mech = HCMS(eps, width=width, depth=depth, salt="g")
    n = 200_000
    reports = mech.privatize(np.array(["pear"] * n), rng=np.random.default_rng(11))
    bucket = mech.buckets(["pear"])[0]
    keep = math.exp(eps) / (1 + math.exp(eps))
    rows, cols, bits = (reports[:, j].astype(np.int64) for j in range(3))
    plus = np.array([bin(c & int(b)).count("1") % 2 == 0 for b in bucket for c in range(width)])
    # cells: (row, coefficient) pooled by whether the bit agrees with the sign
    agree = bits == plus.reshape(depth, width)[rows, cols]
    observed = np.bincount(rows * 2 + agree, minlength=2 * depth)
    expected = np.tile([1 - keep, keep], depth) / depth * n
    assert stats.chisquare(observed, expected).pvalue > 1e-4
    cells = np.bincount(rows * width + cols, minlength=depth * width)
    assert stats.chisquare(cells).pvalue > 1e-4

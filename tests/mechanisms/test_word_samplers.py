"""The simulation path of the categorical privatizers (one word per user, ldp._words) draws
the law of the byte protocol: seeded goodness-of-fit tests on the paths the generic
goodness-of-fit tests (GRR(6), OUE(6), subset selection at small k) do not reach."""

from __future__ import annotations

import numpy as np
from scipy import stats

from ldp.mechanisms import GRR


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

"""The simulation path of subset selection for k > 64 (Bernoulli rows, then a correction
round by round with the Generator's integer draws): the law of its reports."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ldp.mechanisms import SubsetSelection
from ldp.mechanisms.categorical._subset_wide import bernoulli_rows
from tests.report_laws import assert_subset_reports_fit_the_law


@pytest.mark.parametrize(("k", "c", "bits"), [(6, 2, 1), (6, 3, 2), (9, 1, 2), (9, 6, 1)])
def test_small_rows_are_uniform_subsets_of_the_others(k, c, bits):
    """Every c-subset of the k - 1 values other than x equally often (seeded chi-square over
    all C(k - 1, c) subsets; a correct sampler fails with probability 1e-4), x never."""
    n, x = 60_000, 2
    rows = bernoulli_rows(
        np.random.default_rng(5), np.full(n, x), np.full(n, c, dtype=np.int64), k, bits
    )
    members = np.unpackbits(rows, axis=1)[:, :k]
    assert rows.shape == (n, (k + 7) // 8)
    assert not members[:, x].any()
    assert np.all(members.sum(axis=1) == c)
    index = {s: i for i, s in enumerate(itertools.combinations(range(k - 1), c))}
    others = np.delete(members, x, axis=1)
    codes = others @ (1 << np.arange(k - 1))
    lookup = {sum(1 << t for t in s): i for s, i in index.items()}
    counts = np.bincount([lookup[int(v)] for v in codes], minlength=math.comb(k - 1, c))
    assert counts.size == math.comb(k - 1, c)
    assert stats.chisquare(counts).pvalue > 1e-4


def test_reports_at_k_1024_fit_the_law():
    """Seeded goodness of fit of privatize at k = 1024 (this path): the size, the inclusion
    of x (binomial), the other values' frequencies (uniform over the 1023, chi-square), the
    members among the first 512 values other than x (hypergeometric given the inclusion),
    and how often two given values are reported together (a correct sampler fails each
    with probability 1e-4; seeded)."""
    mech = SubsetSelection(1024, 1.0)
    assert mech.sampler()["bernoulli_bits"] == 2
    n, x = 20_000, 700
    reports = mech.privatize(np.full(n, x), rng=np.random.default_rng(12))
    assert_subset_reports_fit_the_law(mech, reports, x, pair=(3, 1000))

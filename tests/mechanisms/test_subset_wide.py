"""The simulation path of subset selection for k > 64 (Bernoulli rows, then a correction
round by round with the Generator's integer draws): the law of its reports."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ldp.mechanisms import SubsetSelection
from ldp.mechanisms.categorical._subset_wide import add_by_rejection, bernoulli_rows
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


def test_additions_are_uniform_among_the_clear_values():
    """add_by_rejection: from a fixed row with values 1 and 4 set (of k = 7), three added
    values are each of the C(5, 3) triples of clear values equally often, one added value
    each of the 5 clear values (users with different counts share the candidate blocks,
    so both the plain and the size-tested block are used); seeded chi-square, a correct
    sampler fails each with probability 1e-4."""
    n, k = 40_000, 7
    rows = np.zeros((n, 1), dtype=np.uint8)
    rows[:, 0] = 0b0100_1000  # values 1 and 4
    left = np.where(np.arange(n) % 2 == 0, 3, 1)
    add_by_rejection(rows, np.arange(n), left, np.random.default_rng(8), k)
    members = np.unpackbits(rows, axis=1)[:, :k]
    assert np.all(members[:, [1, 4]] == 1) and not np.unpackbits(rows, axis=1)[:, k:].any()
    assert np.array_equal(members.sum(axis=1), 2 + left)
    clear = [0, 2, 3, 5, 6]
    for count in (3, 1):
        chosen = members[left == count][:, clear]
        codes = chosen @ (1 << np.arange(len(clear)))
        subsets = [sum(1 << i for i in s) for s in itertools.combinations(range(5), count)]
        counts = np.array([np.count_nonzero(codes == s) for s in subsets])
        assert counts.sum() == chosen.shape[0]
        assert stats.chisquare(counts).pvalue > 1e-4


def test_rows_of_more_than_2_to_the_15_values_have_their_sizes():
    """Beyond 16-bit candidates (k = 33,000): every row has its size, x's bit clear, and
    no bit at or past k."""
    k, xs = 33_000, np.array([0, 32_999, 20_000])
    for bits in (1, 2):  # sizes about k / 2^bits, as a mechanism chooses bits: adds and drops
        sizes = np.array([-500, 0, 500]) + k // 2**bits
        rows = bernoulli_rows(np.random.default_rng(bits), xs, sizes, k, bits)
        members = np.unpackbits(rows, axis=1)
        assert np.array_equal(members.sum(axis=1), sizes)
        assert not members[np.arange(3), xs].any() and not members[:, k:].any()


@pytest.mark.parametrize("k", [64, 1024])
def test_every_chunk_and_every_call_draws_its_own_inclusions(k):
    """The inclusions of x in two chunks of one call, and in two calls on one Generator,
    are independent: users i and i + chunk (and user i of each call) are both included
    about n p^2 times, p the exact inclusion probability (a z-test at 4.5 sd, seeded); a
    draw reused across chunks or calls would include both exactly when it includes one."""
    from ldp._words import WORD_CHUNK
    from ldp.mechanisms.categorical import subset

    mech = SubsetSelection(k, 1.0)
    inside, outside = mech._law.weights
    p = inside / (inside + outside)
    width = (k + 7) // 8
    chunk = WORD_CHUNK if k <= 64 else max(WORD_CHUNK, subset._WIDE_CHUNK_BYTES // width)
    gen = np.random.default_rng(21)
    first = np.unpackbits(mech.privatize(np.zeros(2 * chunk, dtype=np.int64), rng=gen), axis=1)
    second = np.unpackbits(mech.privatize(np.zeros(chunk, dtype=np.int64), rng=gen), axis=1)
    included = first[:, 0].astype(bool), second[:, 0].astype(bool)
    for a, b in ((included[0][:chunk], included[0][chunk:]), (included[0][:chunk], included[1])):
        both = np.count_nonzero(a & b)
        sd = math.sqrt(chunk * p * p * (1 - p * p))
        assert abs(both - chunk * p * p) < 4.5 * sd

"""Heavy hitters (PEM, TreeHist): single-value decoding of the oracles, unbiased level
estimates with the variance of the random split, recall, privacy of a user's one report,
string codes, and bad input."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest
from scipy.stats import norm

from ldp.mechanisms import BLH, GRR, OLH, OUE, SUE, HadamardResponse, LocalHashing, SubsetSelection
from ldp.tasks import (
    MAX_BITS,
    PEM,
    HeavyHitters,
    TreeHist,
    decode_strings,
    encode_strings,
    heavy_hitters,
)


# --------------------------------------------------------------------- single-value decoding
@pytest.mark.parametrize(
    "oracle",
    [
        GRR(40, 1.0),
        OLH(300, 1.0),  # g = 4: linear over GF(2)^2
        OLH(300, 3.0),  # g = 21: bits with Z_21 coefficients
        LocalHashing(300, 1.0, g=9),  # GF(3)^2
        LocalHashing(300, 1.0, g=5),  # GF(5)
        BLH(300, 1.0),
        HadamardResponse(40, 1.0),
        OUE(40, 1.0),
        SUE(40, 1.0),
        SubsetSelection(40, 1.0),
    ],
    ids=repr,
)
def test_estimate_values_equals_full_decoding(oracle):
    rng = np.random.default_rng(5)
    x = rng.integers(0, 40, 3000)
    reports = oracle.privatize(x, rng=6)
    values = np.array([0, 3, 3, 39, oracle.k - 1, 17])
    # the full decoder (transforms, bit counts, histograms) is an independent computation
    assert np.allclose(oracle.estimate_values(reports, values), oracle.estimate(reports)[values])


@pytest.mark.parametrize("g", [2, 3, 4, 6, 9, 1_000_002])  # the last: no table, a modulo
def test_local_hashing_counts_at_match_the_hash_itself(g):
    """C_v counted by evaluating each user's hash at v (the public ``hash_values``)."""
    lh = LocalHashing(2**20, 1.0, g=g)
    reports = lh.privatize(np.random.default_rng(1).integers(0, 2**20, 500), rng=2)
    values = np.array([0, 1, 12345, 2**20 - 1])
    brute = np.array([(lh.hash_values(reports[:, :-1], v) == reports[:, -1]).sum() for v in values])
    expected = (brute / 500 - lh.q) / (lh.p - lh.q)
    assert np.allclose(lh.estimate_values(reports, values), expected)


def test_estimate_values_bad_input():
    olh = OLH(64, 1.0)
    reports = olh.privatize(np.arange(10), rng=0)
    with pytest.raises(ValueError, match="values must lie in"):
        olh.estimate_values(reports, [64])
    with pytest.raises(TypeError, match="values must contain integer"):
        olh.estimate_values(reports, [0.5])
    with pytest.raises(ValueError, match="zero reports"):
        olh.estimate_values(reports[:0], [1])
    with pytest.raises(ValueError, match="hash_0 outside"):
        olh.estimate_values(reports + 10**16, [1])


# --------------------------------------------------------------------- levels
def test_levels_as_the_authors_define_them():
    pem = PEM(4.0, bits=32, k=16, step=3)
    assert pem.lengths[0] == math.floor(math.log2(16)) + 1 == 5
    assert pem.groups == 1 + math.ceil((32 - 5) / 3) == 10
    assert PEM(1.0, bits=10, k=20, step=4).lengths == (5, 9, 10)
    assert PEM(1.0, bits=3, k=20).lengths == (3,)
    tree = TreeHist(1.0, bits=10, step=4)
    assert tree.lengths == (4, 8, 10, 10) and tree.tree_levels == 3


def test_group_split_is_balanced_and_uniform():
    pem = PEM(1.0, bits=8, k=2, step=3)  # 3 groups
    groups = pem.assign(1000, rng=0)
    assert sorted(np.bincount(groups)) == [333, 333, 334]
    # the split is uniform: user 0 lands in a group in proportion to its size (3, 2, 2 of 7)
    hits = np.bincount([pem.assign(7, rng=s)[0] for s in range(3000)], minlength=3) / 3000
    share = np.array([3, 2, 2]) / 7
    assert np.all(np.abs(hits - share) < 4 * np.sqrt(share * (1 - share) / 3000))


# --------------------------------------------------------------------- unbiased levels
def test_level_estimates_are_unbiased_with_the_variance_of_oracle_and_split():
    """A level estimate is unbiased for the population's prefix frequency; its variance is the
    oracle's (Wang et al. 2017, given the group) plus the hypergeometric variance of the group's
    prefix frequency (the split is a uniform random 1/groups of the users)."""
    bits, n = 12, 3000
    rng = np.random.default_rng(11)
    values = np.concatenate(
        [np.full(900, 0xABC), np.full(600, 0xAB0), rng.integers(0, 2**12, n - 1500)]
    )
    pem = PEM(2.0, bits=bits, k=4, step=4)  # lengths 3, 7, 11, 12
    level = 1
    shift = bits - pem.lengths[level]
    prefixes = np.array([0xABC >> shift, 0x123 >> shift, 0x000])
    truth = np.array([np.mean((values >> shift) == p) for p in prefixes])
    runs = 400
    est = np.array(
        [
            pem.estimate_prefixes(pem.privatize(values, rng=r)[level], level, prefixes)
            for r in range(runs)
        ]
    )
    m = n // pem.groups
    mech = pem.level_mechanism(level)
    split = truth * (1 - truth) / m * (n - m) / (n - 1)
    expected_var = np.array([mech.variance(m, f) for f in truth]) + split
    z = (est.mean(axis=0) - truth) / np.sqrt(expected_var / runs)
    assert np.all(np.abs(z) < 4), z
    ratio = est.var(axis=0, ddof=1) / expected_var
    # chi^2 with 399 degrees of freedom: the ratio lies in [0.8, 1.2] with probability > 0.99
    assert np.all((ratio > 0.8) & (ratio < 1.2)), ratio


@pytest.mark.slow  # 200 runs of the whole protocol (~3 s)
def test_treehist_final_estimates_are_unbiased_given_the_selection():
    values = np.concatenate([np.full(1200, 777), np.arange(2800) * 7 % 4096])
    tree = TreeHist(3.0, bits=12, step=4)
    finals = []
    for r in range(200):
        found = tree.run(values, rng=r)
        assert 777 in found.items
        finals.append(found.frequencies[list(found.items).index(777)])
    sd = math.sqrt(tree.level_mechanism(tree.groups - 1).variance(1000, 0.3) + 0.21 / 1000)
    assert abs(np.mean(finals) - 0.3) < 4 * sd / math.sqrt(200)


# --------------------------------------------------------------------- recall
def _zipf(n, bits, seed):
    rng = np.random.default_rng(seed)
    ranks = rng.zipf(1.1, size=3 * n)
    ranks = ranks[ranks <= 2**bits][:n]
    codes = np.random.default_rng(seed + 1).permutation(2**bits)  # a random bijection
    return codes[ranks - 1]


def _top(values, k):
    items, counts = np.unique(values, return_counts=True)
    return items[np.argsort(-counts, kind="stable")[:k]]


@pytest.mark.parametrize("method", ["pem", "treehist"])
def test_recall_on_zipf(method):
    values = _zipf(200_000, 18, seed=3)
    top = _top(values, 10)
    found = heavy_hitters(values, 4.0, k=10, bits=18, method=method, rng=4)
    assert found.recall(top) >= 0.9
    # the estimates are close to the true frequencies of the items found
    truth = np.array([np.mean(values == v) for v in found.items])
    assert np.all(np.abs(found.frequencies - truth) < 0.01)
    assert found.n == values.size and found.levels[-1].prefix_bits == 18


def test_treehist_finds_nothing_in_uniform_data():
    values = np.random.default_rng(0).integers(0, 2**16, 20_000)
    found = TreeHist(2.0, bits=16, step=4, beta=0.01).run(values, rng=1)
    assert found.items.size == 0 and found.frequencies.size == 0


def test_a_given_threshold_is_a_frequency():
    values = np.repeat([3, 900, 4000], [5000, 3000, 2000])
    found = TreeHist(4.0, bits=12, step=4, threshold=0.25).run(values, rng=0)
    assert list(found.items) == [3, 900]  # first nibbles 0x0 (0.5), 0x3 (0.3), 0xF (0.2)
    assert all(level.threshold == 0.25 for level in found.levels[:-1])


# --------------------------------------------------------------------- privacy
@pytest.mark.parametrize("eps", [0.5, 1.0, 4.0])
def test_each_user_sends_one_report_of_an_epsilon_ldp_oracle(eps):
    pem = PEM(eps, bits=32, k=20)
    for i in range(pem.groups):
        mech = pem.level_mechanism(i)
        assert isinstance(mech, OLH) and mech.k == 2 ** pem.lengths[i]
        assert eps <= mech.epsilon <= eps * (1 + 1e-12)
    assert pem.epsilon == max(pem.level_mechanism(i).epsilon for i in range(pem.groups))
    assert TreeHist(eps, oracle="GRR").epsilon <= eps * (1 + 1e-12)


def test_the_protocol_is_the_split_then_one_oracle_report_per_user():
    """privatize = assign (from n alone, not the values) + the level oracle on the prefix."""
    pem = PEM(1.0, bits=10, k=3, step=3)
    values = np.random.default_rng(2).integers(0, 1024, 500)
    reports = pem.privatize(values, rng=np.random.default_rng(9))
    gen = np.random.default_rng(9)
    groups = pem.assign(values.size, gen)
    for i in range(pem.groups):
        prefix = pem.prefixes(values[groups == i], i)
        again = pem.level_mechanism(i).privatize(prefix, rng=gen)
        assert np.array_equal(reports[i], again)
    other = pem.privatize(values[::-1].copy(), rng=np.random.default_rng(9))
    assert [r.shape for r in other] == [r.shape for r in reports]


def test_the_level_oracle_channel_is_epsilon_ldp():
    """The exact channel of a small level oracle (every hash function enumerated)."""
    pem = PEM(1.0, bits=3, k=2, step=1)  # levels of 2 and 3 bits, OLH with g = 4
    for i in range(pem.groups):
        mech = pem.level_mechanism(i)
        assert mech.to_channel().epsilon <= pem.epsilon * (1 + 1e-9)


# --------------------------------------------------------------------- strings
def test_hash_codes_are_the_leading_bits_of_blake2b():
    for s in ["", "abc", "grüße", "x" * 100]:
        full = int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest(), "big")
        for bits in (1, 20, 32, 40):
            assert encode_strings([s], bits=bits)[0] == full >> (64 - bits)
    assert encode_strings([b"abc"], bits=32)[0] == encode_strings(["abc"], bits=32)[0]


def test_byte_codes_round_trip():
    words = ["a", "ab", "abc", "abcd", "é", ""]
    codes = encode_strings(words, bits=32, method="bytes")
    assert codes[0] == 0x61000000 and codes[3] == 0x61626364
    assert decode_strings(codes, bits=32) == words
    assert decode_strings(encode_strings(["hello"], bits=40, method="bytes"), 40) == ["hello"]


def test_strings_through_heavy_hitters_and_labels():
    words = ["apple"] * 5000 + ["pear"] * 3000 + [f"w{i}" for i in range(4000)]
    found = heavy_hitters(words, 4.0, k=2, bits=24, rng=0)
    assert found.labels(["kiwi", "pear", "apple"]) == [["apple"], ["pear"]]
    same = heavy_hitters(np.array(words), 4.0, k=2, bits=24, rng=0)
    assert np.array_equal(same.items, found.items)


# --------------------------------------------------------------------- the result object
def test_result_is_immutable():
    found = PEM(4.0, bits=8, k=2).run(np.repeat([1, 2], 3000), rng=0)
    with pytest.raises(AttributeError):
        found.items = np.zeros(2)  # type: ignore[misc]
    with pytest.raises(ValueError):
        found.frequencies[0] = 1.0
    with pytest.raises(ValueError):
        found.levels[0].estimates[0] = 1.0
    assert np.allclose(found.counts, found.frequencies * 6000)
    with pytest.raises(AttributeError):
        PEM(1.0).foo = 1  # type: ignore[attr-defined]


# --------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        (lambda: PEM(1.0, bits=0), ValueError, "bits"),
        (lambda: PEM(1.0, bits=MAX_BITS + 1), ValueError, "bits must be <= 40"),
        (lambda: PEM(1.0, bits=2.5), TypeError, "bits"),
        (lambda: PEM(1.0, k=0), ValueError, "k"),
        (lambda: PEM(1.0, step=0), ValueError, "step"),
        (lambda: PEM(1.0, bits=8, start_bits=9), ValueError, "start_bits"),
        (lambda: PEM(0.0), ValueError, "epsilon"),
        (lambda: PEM(float("nan")), ValueError, "epsilon"),
        (lambda: PEM(1.0, oracle="OUE"), ValueError, "oracle"),
        (lambda: TreeHist(1.0, threshold=1e6 / 100), ValueError, "threshold is a frequency"),
        (lambda: TreeHist(1.0, threshold=0.0), ValueError, "threshold"),
        (lambda: TreeHist(1.0, beta=1.0), ValueError, "beta"),
        (lambda: TreeHist(1.0, max_width=0), ValueError, "max_width"),
        (lambda: PEM(1.0, bits=8).level_mechanism(9), ValueError, "level"),
        (lambda: PEM(1.0, bits=8).run([256]), ValueError, "values must lie in"),
        (lambda: PEM(1.0, bits=8).run([-1]), ValueError, "values must lie in"),
        (lambda: PEM(1.0, bits=8).run([1.5]), TypeError, "values"),
        (lambda: PEM(1.0, bits=8, k=2).identify([np.zeros(3)]), ValueError, "reports"),
        (lambda: heavy_hitters([1, 2], 1.0, method="sfp"), ValueError, "method"),
        (lambda: heavy_hitters("abc", 1.0), TypeError, "values"),
        (lambda: encode_strings(["abcde"], 32, "bytes"), ValueError, r"strings\[0\]"),
        (lambda: encode_strings(["a\x00"], 32, "bytes"), ValueError, "NUL"),
        (lambda: encode_strings(["a"], 12, "bytes"), ValueError, "multiple of 8"),
        (lambda: encode_strings(["a"], 32, "md5"), ValueError, "method"),
        (lambda: encode_strings([1], 32), TypeError, r"strings\[0\]"),
        (lambda: encode_strings("abc", 32), TypeError, "iterable"),
        (lambda: decode_strings([2**32], 32), ValueError, "codes"),
    ],
)
def test_bad_input(build, error, match):
    with pytest.raises(error, match=match):
        build()


def test_empty_group_is_refused():
    pem = PEM(1.0, bits=8, k=2, step=3)
    reports = list(pem.privatize(np.arange(10), rng=0))
    reports[1] = reports[1][:0]
    with pytest.raises(ValueError, match=r"reports\[1\] is empty"):
        pem.identify(reports)


def test_recall_needs_items():
    found = HeavyHitters(np.array([1]), np.array([0.5]), 10, 1.0, 4, "", ())
    with pytest.raises(ValueError, match="true_items"):
        found.recall([])
    with pytest.raises(ValueError, match="true_items"):
        found.recall([16])


def test_default_threshold_is_the_union_bound_quantile():
    tree = TreeHist(1.0, bits=12, step=4, beta=0.1)  # 3 tree levels
    assert tree.level_threshold(0.02, 40) == pytest.approx(norm.isf(0.1 / 120) * 0.02)


@pytest.mark.parametrize("g", [2, 3, 4, 5, 6, 9, 1_000_002])
@pytest.mark.parametrize("base", [2, 3, 5])
def test_estimate_values_on_a_grid_of_prefixes_and_children(g, base):
    """Candidates that factor as high * base^2 + low (a level's children of kept prefixes)
    take the split path of the decoder; the full decoder is the reference."""
    lh = LocalHashing(3000, 1.0, g=g)
    x = np.random.default_rng(g).integers(0, 3000, 4000)
    reports = lh.privatize(x, rng=base)
    his = np.array([0, 7, 31, 100])
    values = (his[:, None] * base**2 + np.arange(base**2)[None, :]).ravel()
    assert np.allclose(lh.estimate_values(reports, values), lh.estimate(reports)[values])

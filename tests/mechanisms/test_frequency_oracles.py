"""Frequency oracles: exact privacy by enumeration, p and q from the channel, reference values,
MSE against variance(), unbiasedness, sampler goodness of fit, merging, simulate_counts,
recommend() and bad input.

Reference values were computed independently from the formulas of Wang-Blocki-Li-Jha (2017),
Acharya-Sun-Zhang (2019) and Ye-Barg (2018), or are rebuilt here from the definitions
(scipy's Hadamard matrix, explicit subsets, enumeration of the hash family); none is copied
from the code under test.
"""

import io
import itertools
import math
import zlib

import numpy as np
import pytest
from scipy import linalg, stats

import ldp
from ldp._random import ByteSource
from ldp.mechanisms import (
    BLH,
    GRR,
    OLH,
    OUE,
    SUE,
    HadamardResponse,
    LocalHashing,
    SubsetSelection,
    SupportCounts,
)
from ldp.tasks import recommend, simulate_counts

E = math.e
ORACLES = [GRR, SUE, OUE, OLH, BLH, HadamardResponse, SubsetSelection]


def support_matrix(mech, k):
    """S[v, z] = 1 if output z (in to_channel's order) supports value v, from definitions."""
    ch = mech.to_channel()
    m = ch.n_outputs
    if isinstance(mech, GRR):
        return np.eye(k, dtype=bool)
    if isinstance(mech, SubsetSelection):
        subsets = list(itertools.combinations(range(k), mech.d))
        return np.array([[v in s for s in subsets] for v in range(k)])
    if isinstance(mech, ldp.mechanisms.UnaryEncoding):
        z = np.arange(m)
        return np.array([(z >> (k - 1 - v)) & 1 for v in range(k)], dtype=bool)
    if isinstance(mech, HadamardResponse):
        h = linalg.hadamard(mech.K)
        return h[1 : k + 1] == 1
    if isinstance(mech, LocalHashing):
        members = mech._packing.enumerate()
        table = np.array([mech.hash_values(members, v) for v in range(k)])  # (k, S)
        y = np.arange(mech.g)
        return (table[:, :, None] == y[None, None, :]).reshape(k, -1)
    raise AssertionError(type(mech))


# ----------------------------------------------------------------- closed forms / reference values
def test_variance_reference_values():
    n = 10_000
    assert OUE(50, 1.0).variance(n, 0.1) == pytest.approx(3.7826943768e-4, rel=1e-9)
    assert OUE(50, 1.0).variance(n, 0.1, "iid") == pytest.approx(3.8726943768e-4, rel=1e-9)
    assert GRR(10, 1.0).variance(n) == pytest.approx(3.6302486929e-4, rel=1e-9)
    assert GRR(10, 1.0).variance(n, 0.1) == pytest.approx(4.0958300584e-4, rel=1e-9)
    assert SUE(50, 1.0).variance(n) == pytest.approx(3.9176980890e-4, rel=1e-9)
    assert OLH(50, 1.0).g == 4  # round(e) + 1
    assert OLH(50, 1.0).variance(n) == pytest.approx(3.6916546175e-4, rel=1e-9)
    assert BLH(50, 1.0).variance(n) == pytest.approx(4.6826943768e-4, rel=1e-9)
    assert HadamardResponse(50, 1.0).variance(n) == pytest.approx(4.6826943768e-4, rel=1e-9)


def test_olh_bucket_rule_follows_round_not_continuous_optimum():
    # Wang et al.: g = e^eps + 1 is optimal; implementations use round(e^eps) + 1
    for eps, g in [(0.1, 2), (0.5, 3), (1.0, 4), (1.5, 5), (2.0, 8), (3.0, 21)]:
        assert OLH(64, eps).g == g
    continuous = OUE(64, 1.0).variance(10_000)
    assert continuous == pytest.approx(3.6826943768e-4, rel=1e-9)
    assert OLH(64, 1.0).variance(10_000) > continuous


def test_subset_selection_reference_values():
    ss = SubsetSelection(6, 1.0, d=2)
    assert ss.p == pytest.approx(0.5761168848, abs=1e-10)
    assert ss.q == pytest.approx(0.2847766230, abs=1e-10)
    big = SubsetSelection(100, 1.0)
    assert big.d == 27
    risk = 100 * big.variance(10_000, 1 / 100, "iid")  # uniform worst case, l2^2
    assert risk == pytest.approx(0.0360943485, rel=1e-8)
    asymptote = 4 * 99**2 * E / (100 * 1e4 * (E - 1) ** 2)
    assert asymptote == pytest.approx(0.0360940876, rel=1e-9)
    oue_risk = 100 * OUE(100, 1.0).variance(10_000, 1 / 100, "iid")
    assert oue_risk == pytest.approx(0.0370259438, rel=1e-8)
    assert oue_risk / risk == pytest.approx(1.0258, abs=1e-3)


def test_hadamard_invariant_g1():
    hr = HadamardResponse(5, 1.0)
    assert hr.K == 8
    supp = support_matrix(hr, 5)
    probs = hr.to_channel().matrix @ supp[0].astype(float)  # P(Y in C_0 | X = x)
    assert probs[0] == pytest.approx(E / (E + 1), abs=1e-12)
    assert probs[1:] == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
def test_closed_form_probabilities(eps):
    big = math.exp(eps)
    k = 7
    assert GRR(k, eps).p == pytest.approx(big / (big + k - 1), rel=1e-14)
    assert GRR(k, eps).q == pytest.approx(1 / (big + k - 1), rel=1e-14)
    assert SUE(k, eps).p == pytest.approx(math.exp(eps / 2) / (math.exp(eps / 2) + 1))
    assert SUE(k, eps).q == pytest.approx(1 / (math.exp(eps / 2) + 1))
    assert (OUE(k, eps).p, OUE(k, eps).q) == pytest.approx((0.5, 1 / (big + 1)))
    g = OLH(k, eps).g
    assert (OLH(k, eps).p, OLH(k, eps).q) == pytest.approx((big / (big + g - 1), 1 / g))
    assert (HadamardResponse(k, eps).p, HadamardResponse(k, eps).q) == pytest.approx(
        (big / (big + 1), 0.5)
    )


# ----------------------------------------------------------------- exact privacy by enumeration
def small_oracles():
    out = []
    for eps in (0.5, 1.0, 2.0):
        out += [
            GRR(5, eps),
            SUE(5, eps),
            OUE(5, eps),
            BLH(5, eps),
            OLH(5, eps),
            LocalHashing(4, eps, 4),
            LocalHashing(5, eps, 3),
            LocalHashing(3, eps, 6),
            HadamardResponse(5, eps),
            HadamardResponse(8, eps),
            SubsetSelection(6, eps, d=2),
            SubsetSelection(6, eps),
        ]
    return out


def brute_epsilon(matrix):
    """Max over outputs and input pairs of log K[x, z] / K[x', z] (explicit loops)."""
    best = 0.0
    for x, y in itertools.permutations(range(matrix.shape[0]), 2):
        best = max(best, float(np.max(np.log(matrix[x]) - np.log(matrix[y]))))
    return best


@pytest.mark.parametrize("mech", small_oracles(), ids=repr)
def test_channel_epsilon_and_support_probabilities(mech):
    ch = mech.to_channel()
    k = mech.k
    assert ch.n_inputs == k
    assert ch.epsilon == pytest.approx(mech.epsilon, rel=1e-12)
    assert brute_epsilon(ch.matrix) == pytest.approx(mech._eps_budget, rel=1e-12)
    # p and q of the mechanism, recomputed from the channel and the supports
    supp = support_matrix(mech, k).astype(float)
    pv = ch.matrix @ supp.T  # [x, v] = P(v in support | x)
    assert np.diag(pv) == pytest.approx(np.full(k, mech.p), abs=1e-12)
    off = pv[~np.eye(k, dtype=bool)]
    assert off == pytest.approx(np.full(off.size, mech.q), abs=1e-12)


@pytest.mark.parametrize(("k", "g"), [(5, 2), (5, 4), (6, 3), (4, 6), (9, 9), (5, 8)])
def test_hash_family_exactly_pairwise_independent(k, g):
    mech = LocalHashing(k, 1.0, g)
    members = mech._packing.enumerate()
    table = np.array([mech.hash_values(members, v) for v in range(k)])
    for v, x in itertools.permutations(range(k), 2):
        joint = np.bincount(table[v] * g + table[x], minlength=g * g)
        assert np.all(joint * g * g == members.shape[0])  # uniform on [g]^2


@pytest.mark.parametrize("g", [2, 3, 4, 6])
def test_local_hashing_epsilon_per_hash_function(g):
    eps = 1.0
    mech = LocalHashing(6, eps, g)
    members = mech._packing.enumerate()
    big = math.exp(eps)
    keep, other = big / (big + g - 1), 1 / (big + g - 1)
    for row in members[:: max(1, members.shape[0] // 200)]:
        hashed = mech.hash_values(np.repeat(row[None, :], 6, axis=0), np.arange(6))
        matrix = np.where(hashed[:, None] == np.arange(g)[None, :], keep, other)
        expected = eps if len(set(hashed.tolist())) > 1 else 0.0
        assert ldp.Channel(matrix).epsilon == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("g", [2, 3, 4, 5, 6, 8, 9, 10])
def test_local_hashing_fast_decode_equals_brute_force(g, rng):
    k = 37
    mech = LocalHashing(k, 1.0, g)
    reports = mech.privatize(rng.integers(0, k, 3000), rng=rng)
    brute = np.zeros(k, dtype=np.int64)
    for v in range(k):
        brute[v] = np.sum(mech.hash_values(reports[:, :-1], v) == reports[:, -1])
    assert np.array_equal(mech.aggregate(reports).counts, brute)


# ----------------------------------------------------------------- statistics
def run_estimates(mech, x, runs, seed):
    """``runs`` independent estimates for the fixed data set x (one privatize call)."""
    reports = mech.privatize(np.tile(x, runs), rng=seed)
    n = x.size
    return np.array([mech.estimate(reports[r * n : (r + 1) * n]) for r in range(runs)])


STAT_CASES = [
    (GRR, 12, 1.0),
    (SUE, 12, 1.0),
    (OUE, 12, 1.0),
    (OLH, 12, 1.0),
    (OLH, 40, 0.5),
    (BLH, 12, 1.0),
    (HadamardResponse, 12, 1.0),
    (SubsetSelection, 12, 2.0),
    (GRR, 30, 3.0),
]


@pytest.mark.parametrize(("cls", "k", "eps"), STAT_CASES, ids=lambda v: str(v))
def test_mse_matches_variance_and_unbiased(cls, k, eps):
    mech = cls(k, eps)
    freqs = np.linspace(1, 3, k)
    freqs /= freqs.sum()
    n = 1500
    counts = np.round(freqs * n).astype(int)
    counts[0] += n - counts.sum()
    x = np.repeat(np.arange(k), counts)
    f = counts / n
    runs = 600
    # a fixed seed per case (hash() of a str changes with PYTHONHASHSEED, on every run)
    est = run_estimates(mech, x, runs, seed=zlib.crc32(f"{cls.__name__} {k}".encode()))
    err2 = ((est - f) ** 2).sum(axis=1)  # one total squared error per run
    expected = float(np.sum(mech.variance(n, f)))
    # the mean of `runs` i.i.d. totals: tolerance from their sample standard deviation.
    # False failures (CLT): 4.5 se for the error (7e-6) and 5 se on each of k <= 40
    # coordinates for the bias (< 3e-5): below 4e-5 per case, whose seed fixes the outcome
    se = err2.std(ddof=1) / math.sqrt(runs)
    assert abs(err2.mean() - expected) < 4.5 * se
    assert se / expected < 0.05  # the test has power to see a 25% error in variance()
    # unbiasedness of every coordinate, tolerance from the run count
    bias_se = np.sqrt(mech.variance(n, f) / runs)
    assert np.all(np.abs(est.mean(axis=0) - f) < 5 * bias_se)


def test_iid_convention_matches_population_sampling(rng):
    mech = OUE(6, 1.0)
    pop = np.array([0.5, 0.2, 0.1, 0.1, 0.05, 0.05])
    n, runs = 1000, 800
    x = rng.choice(6, size=n * runs, p=pop)
    reports = mech.privatize(x, rng=rng)
    est = np.array([mech.estimate(reports[r * n : (r + 1) * n]) for r in range(runs)])
    err = ((est - pop) ** 2).sum(axis=1)
    iid = float(np.sum(mech.variance(n, pop, "iid")))
    fixed = float(np.sum(mech.variance(n, pop, "fixed")))
    se = err.std(ddof=1) / math.sqrt(runs)
    assert abs(err.mean() - iid) < 4.5 * se  # fails with probability 7e-6 (CLT; seeded)
    assert iid - fixed == pytest.approx(np.sum(pop * (1 - pop)) / n, rel=1e-12)


@pytest.mark.parametrize(
    "mech",
    [GRR(6, 1.0), OUE(6, 1.0), HadamardResponse(6, 1.0), LocalHashing(4, 1.0, 3)],
    ids=repr,
)
def test_sampler_goodness_of_fit(mech, rng):
    # the law of one report, for every input value, against the channel row
    ch = mech.to_channel()
    n = 40_000
    pvalues = []
    for x in range(mech.k):
        reports = mech.privatize(np.full(n, x), rng=rng)
        if isinstance(mech, LocalHashing):
            shape = reports[:, :-1].copy()
            words = mech._packing.enumerate()
            index = np.searchsorted(words[:, 0], shape[:, 0])
            out = index * mech.g + reports[:, -1]
        elif isinstance(mech, ldp.mechanisms.UnaryEncoding):
            bits = np.unpackbits(reports, axis=1, count=mech.k)
            out = bits @ (1 << (mech.k - 1 - np.arange(mech.k)))
        else:
            out = reports.astype(np.int64)
        observed = np.bincount(out, minlength=ch.n_outputs)
        expected = ch.matrix[x] * n
        pvalues.append(stats.chisquare(observed, expected).pvalue)
    # Bonferroni over the inputs: a correct sampler fails with probability < 1e-4
    assert min(pvalues) > 1e-4 / len(pvalues)


def test_subset_selection_sampler_goodness_of_fit(rng):
    ss = SubsetSelection(5, 1.0, d=2, encoding="bits")
    subsets = list(itertools.combinations(range(5), 2))
    n = 30_000
    for x in (0, 3):
        bits = np.unpackbits(ss.privatize(np.full(n, x), rng=rng), axis=1, count=5)
        assert np.all(bits.sum(axis=1) == 2)
        codes = [tuple(np.flatnonzero(b)) for b in bits[:5000]]
        observed = np.array([codes.count(s) for s in subsets])
        # from the definition: P(S) proportional to e^eps if x in S else 1
        weights = np.array([E if x in s else 1.0 for s in subsets])
        expected = weights / weights.sum() * 5000
        # a correct sampler fails with probability 1e-4 per input (seeded)
        assert stats.chisquare(observed, expected).pvalue > 1e-4


@pytest.mark.parametrize("include", [False, True])
def test_subset_selection_floyd_draws_every_subset_equally(monkeypatch, include):
    """Every sequence of randint outcomes, one user each: Floyd's algorithm (the byte
    protocol) must map them onto the c-subsets of the k - 1 other values evenly (an exact
    count, no sampling)."""
    import ldp.mechanisms.categorical.subset as frequency

    k, d, x = 40, 2, 2  # d / (k - 1) is far from 1/2, 1/4, 1/8: Floyd's algorithm
    assert SubsetSelection(k, 1.0, d=d, encoding="bits").sampler()["bernoulli_bits"] == 0
    slots = k - 1
    c = d - 1 if include else d
    bounds = [j + 1 for j in range(slots - c, slots)]
    paths = list(itertools.product(*[range(b) for b in bounds]))
    calls = iter(range(len(bounds)))

    def fake_choose(gen, laws, which):
        return np.full(which.size, 0 if include else 1)

    def fake_randint(gen, bound, n):
        step = next(calls)
        assert bound == bounds[step] and n == len(paths)
        return np.array([path[step] for path in paths], dtype=np.int64)

    monkeypatch.setattr(frequency, "choose", fake_choose)
    monkeypatch.setattr(frequency, "randint", fake_randint)
    byte_path = ByteSource(np.random.default_rng(0).bytes)  # a numpy Generator: the word path
    reports = SubsetSelection(k, 1.0, d=d, encoding="bits").privatize(
        np.full(len(paths), x), rng=byte_path
    )
    subsets = [tuple(np.flatnonzero(row)) for row in np.unpackbits(reports, axis=1, count=k)]
    others = [v for v in range(k) if v != x]
    expected = {
        tuple(sorted(chosen + ((x,) if include else ()))): len(paths) // math.comb(slots, c)
        for chosen in itertools.combinations(others, c)
    }
    assert {s: subsets.count(s) for s in set(subsets)} == expected


@pytest.mark.parametrize("include", [False, True])
@pytest.mark.parametrize(("k", "d", "rows"), [(7, 3, 1), (9, 2, 2), (17, 2, 3), (12, 3, 2)])
def test_subset_selection_bernoulli_rows_draw_every_subset_equally(
    monkeypatch, k, d, rows, include
):
    """Bernoulli rows then corrections (the byte protocol): every c-subset of the other
    values equally often (chi-square over all of them, seeded: a correct sampler fails with
    probability 1e-4)."""
    import ldp.mechanisms.categorical.subset as frequency

    ss = SubsetSelection(k, 1.0, d=d, encoding="bits")
    assert ss.sampler()["bernoulli_bits"] == rows
    monkeypatch.setattr(
        frequency, "choose", lambda gen, laws, which: np.full(which.size, 0 if include else 1)
    )
    x, n = k // 2, 60_000
    byte_path = ByteSource(np.random.default_rng(k * 10 + rows + include).bytes)
    reports = ss.privatize(np.full(n, x), rng=byte_path)
    members = np.unpackbits(reports, axis=1, count=k).astype(bool)
    assert np.all(members.sum(axis=1) == d) and np.all(members[:, x] == include)
    others = [v for v in range(k) if v != x]
    c = d - 1 if include else d
    index = {chosen: i for i, chosen in enumerate(itertools.combinations(others, c))}
    observed = np.zeros(len(index))
    keys = members[:, others] @ (1 << np.arange(len(others)))
    values, counts = np.unique(keys, return_counts=True)
    for key, count in zip(values, counts):
        chosen = tuple(o for j, o in enumerate(others) if key >> j & 1)
        observed[index[chosen]] = count
    assert stats.chisquare(observed).pvalue > 1e-4


def test_subset_selection_large_k_membership_frequencies(rng):
    ss = SubsetSelection(256, 1.0)
    n, x = 40_000, 17
    bits = np.unpackbits(ss.privatize(np.full(n, x), rng=rng), axis=1, count=256)
    assert np.all(bits.sum(axis=1) == ss.d)
    counts = bits.sum(axis=0)
    expected = np.full(256, ss.q * n)
    expected[x] = ss.p * n
    probability = expected / n
    z = (counts - expected) / np.sqrt(n * probability * (1 - probability))
    # Bonferroni over 256 values: a correct sampler fails with probability < 1e-4
    assert np.max(np.abs(z)) < stats.norm.isf(1e-4 / 512)


# ----------------------------------------------------------------- merging and simulation
@pytest.mark.parametrize("cls", ORACLES)
def test_chunked_aggregation_equals_one_shot(cls, rng):
    mech = cls(20, 1.0)
    reports = mech.privatize(rng.integers(0, 20, 5000), rng=rng)
    whole = mech.aggregate(reports)
    parts = sum(mech.aggregate(reports[a:b]) for a, b in [(0, 1), (1, 2000), (2000, 5000)])
    assert np.array_equal(whole.counts, parts.counts) and whole.n == parts.n == 5000
    assert np.array_equal(mech.estimate(parts), mech.estimate(reports))


def test_counts_of_other_mechanisms_are_rejected(rng):
    a = GRR(10, 1.0).aggregate(np.arange(10))
    with pytest.raises(ValueError, match="GRR"):
        GRR(10, 2.0).estimate(a)
    with pytest.raises(ValueError, match="cannot add"):
        a + GRR(10, 2.0).aggregate(np.arange(10))
    with pytest.raises(ValueError, match="counts"):
        SupportCounts(np.array([1, 5]), 3, "x")


def exact_support_pmf(n_v, n, p, q):
    """pmf of Bin(n_v, p) + Bin(n - n_v, q) by convolution."""
    a = stats.binom.pmf(np.arange(n_v + 1), n_v, p)
    b = stats.binom.pmf(np.arange(n - n_v + 1), n - n_v, q)
    return np.convolve(a, b)


@pytest.mark.parametrize("cls", [GRR, OUE, SUE, HadamardResponse])
def test_simulate_counts_matches_privatize_aggregate(cls, rng):
    k = 5
    mech = cls(k, 1.0)
    true = np.array([12, 0, 5, 3, 20])
    n = int(true.sum())
    runs = 3000
    x = np.repeat(np.arange(k), true)
    reports = mech.privatize(np.tile(x, runs), rng=rng)
    real = np.array([mech.aggregate(reports[r * n : (r + 1) * n]).counts for r in range(runs)])
    sim = np.array([simulate_counts(mech, true, rng=rng).counts for _ in range(runs)])
    # six chi-square tests at 1e-4 and one 5-sigma covariance check: a correct sampler fails
    # with probability below 7e-4 (seeded)
    for v in (0, 1, 4):  # marginal laws against the exact binomial convolution
        pmf = exact_support_pmf(int(true[v]), n, mech.p, mech.q)
        for sample in (real[:, v], sim[:, v]):
            observed = np.bincount(sample, minlength=pmf.size)
            keep = pmf * runs >= 5  # pool the tails into one cell
            obs = np.append(observed[keep], observed[~keep].sum())
            exp = np.append(pmf[keep], pmf[~keep].sum()) * runs
            assert stats.chisquare(obs, exp).pvalue > 1e-4
    # the joint law: covariance of two counts agrees between the two paths
    cov_real = np.cov(real[:, 0], real[:, 4])[0, 1]
    cov_sim = np.cov(sim[:, 0], sim[:, 4])[0, 1]
    scale = real[:, 0].std() * real[:, 4].std()
    assert abs(cov_real - cov_sim) < 5 * scale * math.sqrt(2 / runs)
    if cls is GRR:
        assert np.all(sim.sum(axis=1) == n)


def test_simulate_counts_large_and_unsupported():
    mech = GRR(64, 1.0)
    counts = simulate_counts(mech, np.full(64, 10**7), rng=1)
    assert counts.n == 64 * 10**7 and counts.counts.sum() == counts.n
    with pytest.raises(NotImplementedError, match="OLH"):
        simulate_counts(OLH(8, 1.0), np.ones(8, dtype=int))
    with pytest.raises(ValueError, match="shape"):
        simulate_counts(mech, np.ones(3, dtype=int))
    with pytest.raises(ValueError, match="non-negative"):
        simulate_counts(mech, -np.ones(64, dtype=int))


# ----------------------------------------------------------------- recommend
def closed_form_rare_variance(name, k, eps):
    """n * Var_fixed at f -> 0 from the closed forms."""
    big = math.exp(eps)
    if name == "GRR":
        return (big + k - 2) / (big - 1) ** 2
    if name == "SUE":
        h = math.exp(eps / 2)
        return h / (h - 1) ** 2
    if name == "OUE":
        return 4 * big / (big - 1) ** 2
    if name in ("BLH", "HR"):
        return ((big + 1) / (big - 1)) ** 2
    if name == "OLH":
        g = math.floor(big + 0.5) + 1
        return (big - 1 + g) ** 2 / ((big - 1) ** 2 * (g - 1))
    if name == "SS":
        best = math.inf
        for d in range(1, k):
            p = d * big / (d * big + k - d)
            q = d * ((d - 1) * big + k - d) / ((k - 1) * (d * big + k - d))
            best = min(best, q * (1 - q) / (p - q) ** 2)
        return best
    raise AssertionError(name)


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_recommend_grr_versus_oue_regime_rule(eps):
    threshold = 3 * math.exp(eps) + 2
    for k in range(2, 40):
        if abs(k - threshold) < 1e-6:
            continue
        choice = recommend(k, eps, candidates=("GRR", "OUE"), tolerance=0).mechanism
        assert isinstance(choice, GRR) == (k < threshold)


@pytest.mark.parametrize(("k", "eps"), [(4, 1.0), (8, 1.0), (64, 0.5), (1024, 1.0), (50, 4.0)])
def test_recommend_picks_smallest_closed_form_variance(k, eps):
    rec = recommend(k, eps, n=1000, tolerance=0)
    names = [row[0] for row in rec.table]
    forms = {name: closed_form_rare_variance(name, k, eps) for name in names}
    for name, var, _bits, _ok, _work in rec.table:
        if name != "SS":
            assert var * 1000 == pytest.approx(forms[name], rel=1e-9)
    best = min(forms.values())
    assert rec.mechanism.variance(1000) * 1000 <= best * (1 + 1e-9)
    assert rec.mechanism.name in rec.reason


@pytest.mark.parametrize(("k", "eps"), [(4, 1.0), (8, 1.0), (64, 0.5), (1024, 1.0), (50, 4.0)])
def test_recommend_trades_a_little_variance_for_much_less_work(k, eps):
    rec = recommend(k, eps, tolerance=0.05)
    best = min(row[1] for row in rec.table)
    chosen = next(row for row in rec.table if row[0] == rec.mechanism.name)
    assert chosen[1] <= best * 1.05
    near = [row for row in rec.table if row[1] <= best * 1.05]
    assert chosen[4] == min(row[4] for row in near)
    assert rec.mechanism.name in rec.reason
    if chosen[1] > best:
        assert "less work" in rec.reason


def test_recommend_at_k_1024_prefers_local_hashing_to_subset_selection():
    rec = recommend(1024, 1.0)
    assert rec.mechanism.name == "OLH"
    assert recommend(1024, 1.0, tolerance=0).mechanism.name == "SS"


def test_recommend_respects_communication():
    rec = recommend(1024, 1.0, communication=12)
    assert rec.mechanism.report_bits <= 12
    assert isinstance(rec.mechanism, HadamardResponse | BLH | GRR)
    with pytest.raises(ValueError, match="communication"):
        recommend(1024, 1.0, communication=1)
    with pytest.raises(ValueError, match="candidates"):
        recommend(10, 1.0, candidates=("RAPPOR",))


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("cls", ORACLES)
def test_bad_values(cls):
    mech = cls(10, 1.0)
    with pytest.raises(ValueError, match=r"\[0, 10\)"):
        mech.privatize(np.array([0, 10]))
    with pytest.raises(ValueError, match=r"\[0, 10\)"):
        mech.privatize(np.array([-1, 2]))
    with pytest.raises(TypeError, match="integer"):
        mech.privatize(np.array([0.5, 2.0]))
    with pytest.raises(ValueError, match="NaN"):
        mech.privatize(np.array([np.nan, 2.0]))
    with pytest.raises(TypeError, match="integer"):
        mech.privatize(np.array(["a", "b"]))
    with pytest.raises(ValueError, match="1-D"):
        mech.privatize(np.zeros((2, 2), dtype=int))
    assert mech.privatize(np.array([1.0, 2.0]), rng=0).shape[0] == 2  # whole floats are fine


@pytest.mark.parametrize("cls", ORACLES)
def test_bad_parameters(cls):
    for eps in (0.0, -1.0):
        with pytest.raises(ValueError, match="epsilon"):
            cls(10, eps)
    with pytest.raises(ValueError, match="NaN"):
        cls(10, math.nan)
    with pytest.raises(ValueError, match="k must be"):
        cls(1, 1.0)
    with pytest.raises(TypeError, match="k must be"):
        cls(3.5, 1.0)
    mech = cls(10, 1.0)
    with pytest.raises(ValueError, match="n"):
        mech.variance(0)
    with pytest.raises(ValueError, match="convention"):
        mech.variance(10, convention="population")
    with pytest.raises(ValueError, match="frequencies"):
        mech.variance(10, 1.5)
    with pytest.raises(TypeError, match="rng"):
        mech.privatize(np.arange(3), rng=np.random.RandomState(0))


@pytest.mark.parametrize("cls", ORACLES)
def test_reports_of_other_parameters_are_rejected(cls, rng):
    small, big = cls(10, 1.0), cls(40, 1.0)
    reports = big.privatize(np.full(50, 39), rng=rng)
    with pytest.raises(ValueError, match="reports"):
        small.aggregate(reports)
    with pytest.raises(ValueError, match="reports"):
        small.aggregate(reports[:, None] if reports.ndim == 1 else reports[:, :1])


def test_estimate_from_zero_reports():
    mech = GRR(4, 1.0)
    with pytest.raises(ValueError, match="zero reports"):
        mech.estimate(np.array([], dtype=int))


def test_unary_reports_with_padding_bits_are_rejected():
    mech = OUE(10, 1.0)
    bad = np.zeros((1, 2), dtype=np.uint8)
    bad[0, 1] = 1  # bit 15, beyond k = 10
    with pytest.raises(ValueError, match="beyond k"):
        mech.aggregate(bad)
    with pytest.raises(ValueError, match="exactly d"):
        SubsetSelection(10, 1.0, d=3, encoding="bits").aggregate(np.zeros((1, 2), dtype=np.uint8))


def test_report_dtypes_are_compact(rng):
    x = rng.integers(0, 1000, 100)
    assert GRR(1000, 1.0).privatize(x, rng=0).dtype == np.int16
    assert HadamardResponse(1000, 1.0).privatize(x, rng=0).dtype == np.int16
    assert OUE(1000, 1.0).privatize(x, rng=0).shape == (100, 125)
    assert OLH(1000, 1.0).privatize(x, rng=0).shape == (100, 2)


def test_seeded_privatize_is_reproducible(rng):
    x = rng.integers(0, 30, 200)
    for cls in ORACLES:
        mech = cls(30, 1.0)
        assert np.array_equal(mech.privatize(x, rng=5), mech.privatize(x, rng=5))


def test_chunked_grr_aggregation_memory_is_bounded():
    import tracemalloc

    mech = GRR(1024, 1.0)
    chunk = mech.privatize(np.arange(500_000) % 1024, rng=0)  # int16 reports, 1 MB
    tracemalloc.start()
    total = sum(mech.aggregate(chunk) for _ in range(20))  # 1e7 reports
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert total.n == 10_000_000
    assert peak < 20 * 2**20  # a few chunk-sized temporaries, never n-sized state


def test_large_epsilon_gives_finite_or_infinite_epsilon_never_nan():
    assert GRR(4, 30.0).epsilon == pytest.approx(30.0, rel=1e-9)
    # beyond MAX_EPSILON = 700, e^-eps leaves double precision: rejected, not silently inf
    with pytest.raises(ValueError, match="epsilon"):
        GRR(4, 800.0)
    assert GRR(4, 700.0).epsilon == pytest.approx(700.0, rel=1e-12)
    assert np.isfinite(GRR(4, 700.0).variance(10))


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_unary_encoding_reads_the_bytes_of_the_generic_exact_sampler(epsilon):
    """The unary encodings decide most bits by comparing their first byte with a threshold;
    the result must be the generic exact sampler's, byte for byte (refinements included)."""
    from ldp._sampling import choose

    data = np.random.default_rng(11).bytes(3000 * 37 * 2)
    for mechanism in (OUE(37, epsilon), SUE(37, epsilon)):
        x = np.random.default_rng(5).integers(0, 37, 3000)
        fast = mechanism.privatize(x, rng=ByteSource(io.BytesIO(data).read))
        gen = ByteSource(io.BytesIO(data).read)
        own = np.arange(37)[None, :] == x[:, None]
        laws = [mechanism._other, mechanism._own]
        bits = choose(gen, laws, own.ravel().astype(np.int64)) == 0
        np.testing.assert_array_equal(fast, np.packbits(bits.reshape(-1, 37), axis=1))


@pytest.mark.parametrize("include", [False, True])
@pytest.mark.parametrize(("k", "d"), [(9, 2), (12, 3), (40, 2)])
def test_subset_selection_index_reports_draw_every_subset_equally(monkeypatch, k, d, include):
    """Index encoding (rejection): every c-subset of the other values equally often
    (chi-square over all of them, seeded: a correct sampler fails with probability 1e-4),
    the members sorted and distinct."""
    import ldp.mechanisms.categorical.subset as frequency

    ss = SubsetSelection(k, 1.0, d=d, encoding="indices")
    assert ss.sampler()["members"] == "rejection"
    monkeypatch.setattr(
        frequency, "choose", lambda gen, laws, which: np.full(which.size, 0 if include else 1)
    )
    x, n = k // 2, 40_000
    reports = ss.privatize(np.full(n, x), rng=np.random.default_rng(k * 10 + d + include))
    assert reports.shape == (n, d) and np.all(np.diff(reports, axis=1) > 0)
    assert np.all((reports == x).any(axis=1) == include)
    others = [v for v in range(k) if v != x]
    c = d - 1 if include else d
    index = {chosen: i for i, chosen in enumerate(itertools.combinations(others, c))}
    observed = np.zeros(len(index))
    for row in reports:
        observed[index[tuple(int(v) for v in row if v != x)]] += 1
    assert stats.chisquare(observed).pvalue > 1e-4


def test_subset_selection_chooses_the_smaller_encoding():
    for k, eps in [(8, 1.0), (1024, 4.0), (2**20, 6.0), (1024, 1.0), (64, 0.5)]:
        ss = SubsetSelection(k, eps)
        indices = ss.d * math.ceil(math.log2(k))
        assert ss.encoding == ("indices" if indices < k else "bits")
        assert len(ss.codec.fields) == (ss.d if ss.encoding == "indices" else (k + 7) // 8)
    # the reports carry the same law either way: the support counts of a fixed stream agree
    # with the exact channel's expectation in both encodings
    for encoding in ("bits", "indices"):
        ss = SubsetSelection(12, 2.0, d=2, encoding=encoding)
        counts = ss.aggregate(ss.privatize(np.full(60_000, 5), rng=3)).counts
        expected = np.full(12, ss.q * 60_000)
        expected[5] = ss.p * 60_000
        assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected))


def test_subset_selection_index_reports_are_checked():
    ss = SubsetSelection(40, 3.0)
    assert ss.encoding == "indices"
    with pytest.raises(ValueError, match="distinct and increasing"):
        ss.aggregate(np.array([[5, 5]]))
    with pytest.raises(ValueError, match="outside"):
        ss.aggregate(np.array([[5, 40]]))
    assert SubsetSelection.from_params({"k": 40, "epsilon": 3.0, "d": 2}).encoding == "bits"
    with pytest.raises(ValueError, match="encoding"):
        SubsetSelection(40, 3.0, encoding="packed")


def test_each_family_declares_its_work_per_report():
    """The cost model of recommend, counted by hand: GRR and HR a coin and an index; unary
    encoding k coins and k bits; subset selection d draws and k bits (bytes of 8, counted
    twice); local hashing the words, one evaluation and g buckets; CMS a row, a hash and
    width bits, HCMS one sign; any other oracle k."""
    import math

    from ldp.mechanisms import BLH, CMS, GRR, HCMS, LGRR, OUE
    from ldp.mechanisms.categorical.hadamard import HadamardResponse
    from ldp.mechanisms.categorical.subset import SubsetSelection
    from ldp.tasks.selection import work_per_report

    ss = SubsetSelection(20, 1.0)
    blh = BLH(50, 1.0)
    expected = {
        GRR(5, 1.0): 2.0,
        HadamardResponse(9, 1.0): 2.0,
        OUE(7, 1.0): 14.0,
        ss: ss.d + 2.0 * math.ceil(20 / 8),
        blh: 3.0 + len(blh.word_sizes) + 2,
        CMS(1.0, width=16): 35.0,
        HCMS(1.0, width=16): 5.0,
        LGRR(5, 1.0, 2.0): 5.0,
    }
    for mechanism, work in expected.items():
        assert work_per_report(mechanism) == mechanism.work_per_report == work, mechanism


def test_pair_covariance_of_grr_is_its_channel_enumerated():
    """E[(S_v - q)(S_w - q)] summed over GRR's outputs (S_v = [y = v]), for a user holding a
    third value and for one holding v; families without a constant law refuse."""
    import numpy as np

    from ldp.mechanisms import GRR, OUE
    from ldp.mechanisms.categorical.hadamard import HadamardResponse

    grr = GRR(5, 1.3)
    matrix = grr.to_channel().matrix
    support = np.eye(5)  # S_v of output y
    v, w, third = 0, 1, 2
    terms = (support[:, v] - grr.q) * (support[:, w] - grr.q)
    e0, e1 = grr.pair_covariance()
    assert e0 == pytest.approx(float(matrix[third] @ terms), rel=1e-12)
    assert e1 == pytest.approx(float(matrix[v] @ terms), rel=1e-12)
    assert OUE(5, 1.0).pair_covariance() == (0.0, 0.0)
    from ldp.mechanisms import OLH

    assert OLH(8, 1.1).pair_covariance() == (0.0, 0.0)  # g = 4: 3-wise independent
    with pytest.raises(ValueError, match="power-of-two g, got g=3"):
        OLH(8, 0.5).pair_covariance()
    with pytest.raises(TypeError, match="no joint support law for HadamardResponse"):
        HadamardResponse(5, 1.0).pair_covariance()

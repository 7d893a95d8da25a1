"""ldp.design: the optimizer recovers the proven optima, and every channel it returns is
certified at the requested budget."""

import math
import zlib

import numpy as np
import pytest
from scipy import optimize

import ldp
from ldp import divergences as dv
from ldp.design import (
    DesignError,
    LinearDesign,
    compare,
    optimal_channel,
    utility_value,
)
from ldp.design.certify import certify


def mi_rr_uniform(k, eps):
    """I(X; Z) of k-RR under a uniform input: log k - H(row)."""
    big = math.exp(eps)
    keep, other = big / (big + k - 1), 1 / (big + k - 1)
    return math.log(k) + keep * math.log(keep) + (k - 1) * other * math.log(other)


def mi_binary_uniform(k, eps, size):
    """I(X; Z) of the binary mechanism with |T| = size under a uniform input."""
    s = 1 / (1 + math.exp(-eps))
    frac = size / k
    out = frac * s + (1 - frac) * (1 - s)  # P(Z = 0)

    def h(a):
        return -a * math.log(a) - (1 - a) * math.log(1 - a)

    return h(out) - h(s)


# ----------------------------------------------------------------- KOV regimes and oracles
def test_mi_uniform_k4_binary_then_rr():
    # eps = 0.5, LP = binary = log 2 - h(e^.5 / (1 + e^.5)) (closed form, computed with numpy)
    low = optimal_channel(4, 0.5, utility="mi", method="staircase")
    # the closed form above, computed with numpy
    assert low.value == pytest.approx(0.0302998620, abs=1e-9)
    assert low.channel.n_outputs == 2
    # MI(RR) = MI(binary, |T| = 2) at eps = 0.8221326247 (root found here; recomputed with brentq
    # on the MIs of the two channel matrices built by enumeration)
    switch = optimize.brentq(lambda e: mi_rr_uniform(4, e) - mi_binary_uniform(4, e, 2), 0.3, 2)
    assert switch == pytest.approx(0.8221326247, abs=1e-9)  # recomputed as said above
    below = optimal_channel(4, switch - 0.05, utility="mi", method="staircase")
    above = optimal_channel(4, switch + 0.05, utility="mi", method="staircase")
    assert below.value == pytest.approx(mi_binary_uniform(4, switch - 0.05, 2), abs=1e-8)
    assert above.value == pytest.approx(mi_rr_uniform(4, switch + 0.05), abs=1e-8)


def test_mi_uniform_k6_intermediate_regime_matches_kov_numbers():
    table = compare(6, 1.1, utility="mi")
    values = dict(zip(table.mechanism, table.value, strict=True))
    # MI under the uniform prior computed from the channel matrices by enumeration (numpy): the
    # 2-subset mechanism (= RR on 3 blocks) 0.1487078233, 6-RR 0.124655, binary 0.131098
    assert values["optimum"] == pytest.approx(0.1487078233, abs=1e-8)
    assert values["k-RR"] == pytest.approx(0.124655, abs=1e-6)  # computed as above
    assert values["binary"] == pytest.approx(0.131098, abs=1e-6)  # computed as above
    assert values["k-RR"] == pytest.approx(mi_rr_uniform(6, 1.1), abs=1e-12)
    full = optimal_channel(6, 1.1, utility="mi", method="staircase")
    assert full.value == pytest.approx(values["optimum"], abs=1e-8)


@pytest.mark.parametrize("eps", [0.5, 0.9, 1.1, 3.0])
def test_subset_reduction_equals_full_staircase_lp(eps):
    reduced = optimal_channel(6, eps, utility="mi", method="subset")
    full = optimal_channel(6, eps, utility="mi", method="staircase")
    assert reduced.value == pytest.approx(full.value, abs=1e-8)
    assert reduced.solver == "closed form"


def test_tv_utility_is_maximised_by_the_binary_mechanism():
    rng = np.random.default_rng(11)
    for _ in range(6):
        k = int(rng.integers(2, 7))
        p0, p1 = rng.dirichlet(np.ones(k), size=2)
        eps = float(rng.uniform(0.2, 3))
        result = optimal_channel(k, eps, utility="tv", hypotheses=(p0, p1))
        # KOV: value tanh(eps / 2) TV(p0, p1), attained with two outputs
        assert result.value == pytest.approx(math.tanh(eps / 2) * dv.tv(p0, p1), abs=1e-9)
    p0 = np.array([0.4, 0.3, 0.2, 0.1, 0.0])
    p1 = np.array([0.1, 0.2, 0.2, 0.2, 0.3])
    result = optimal_channel(5, 1.0, utility="tv", hypotheses=(p0, p1))
    assert result.value == pytest.approx(0.1848468629, abs=1e-9)  # tanh(1/2) * 0.4 (closed form)
    assert result.channel.n_outputs == 2


@pytest.mark.parametrize("utility", ["kl", "chi2", "hellinger"])
def test_interval_patterns_equal_the_full_lp(utility):
    # seeded from the name: hash() of a str changes with PYTHONHASHSEED, on every run
    rng = np.random.default_rng(zlib.crc32(utility.encode()))
    for _ in range(3):
        p0, p1 = rng.dirichlet(np.ones(6), size=2)
        eps = float(rng.uniform(0.3, 4))
        full = optimal_channel(6, eps, utility=utility, hypotheses=(p0, p1), method="staircase")
        fast = optimal_channel(6, eps, utility=utility, hypotheses=(p0, p1), method="interval")
        assert fast.value == pytest.approx(full.value, rel=1e-7, abs=1e-10)
        # and the optimizer's value is the divergence of its own certified channel
        out0 = fast.channel.output_distribution(p0)
        out1 = fast.channel.output_distribution(p1)
        named = {"kl": dv.kl, "chi2": dv.chi2, "hellinger": dv.hellinger}[utility]
        assert fast.value == pytest.approx(named(out0, out1), rel=1e-10)


def test_fisher_information_binary_input_is_rr():
    # binary inputs: every eps-LDP channel is a post-processing of RR, so RR is optimal
    theta, eps = 0.3, 1.2
    p, dp = np.array([1 - theta, theta]), np.array([-1.0, 1.0])
    result = optimal_channel(2, eps, utility="fisher", hypotheses=(p, dp))
    big = math.exp(eps)
    q = theta * big / (1 + big) + (1 - theta) / (1 + big)
    expected = ((big - 1) / (big + 1)) ** 2 / (q * (1 - q))
    assert result.value == pytest.approx(expected, rel=1e-8)


def test_staircase_structure_of_vertex_solutions():
    # k = 5, uniform MI, eps = 1.3, HiGHS vertex solution
    result = optimal_channel(5, 1.3, utility="mi", method="staircase", solver="HIGHS")
    q = result.channel.matrix
    assert q.shape[1] <= 5
    ratio = q.max(axis=0) / q.min(axis=0)
    assert np.all(np.isclose(ratio, math.exp(1.3)) | np.isclose(ratio, 1.0))
    assert result.channel.epsilon <= 1.3 + 1e-9


# ----------------------------------------------------------------- linear utilities
@pytest.mark.parametrize("k", [2, 5, 64])
def test_guessing_game_is_won_by_k_rr(k):
    eps = 1.0
    result = optimal_channel(k, eps, utility=np.eye(k))
    expected = math.exp(eps) / (math.exp(eps) + k - 1)  # k-RR's probability of a correct guess
    assert result.value == pytest.approx(expected, abs=1e-7)
    assert result.value <= expected + 1e-12  # certified channels never beat the optimum
    assert result.channel.is_ldp(eps)


def test_approximate_and_tv_budgets():
    eps, delta = 1.0, 0.1
    result = optimal_channel(2, eps, utility=np.eye(2), delta=delta)
    # RR with delta-disclosure: correct with probability delta + (1 - delta) e/(1 + e)
    assert result.value == pytest.approx(delta + (1 - delta) / (1 + math.exp(-eps)), abs=1e-7)
    assert result.delta <= delta
    capped = optimal_channel(2, eps, utility=np.eye(2), eta=0.2)
    # binary input: accuracy of a guess is (1 + TV) / 2 at best
    assert capped.value == pytest.approx(0.6, abs=1e-7)
    assert capped.tv <= 0.2


def test_sweep_reuses_the_compiled_problem_and_matches_fresh_solves():
    design = LinearDesign(np.eye(4), prior=[0.4, 0.3, 0.2, 0.1])
    epsilons = [0.1, 0.5, 1.0, 2.0]
    swept = design.sweep(epsilons)
    for eps, result in zip(epsilons, swept, strict=True):
        fresh = optimal_channel(4, eps, utility=np.eye(4), prior=[0.4, 0.3, 0.2, 0.1])
        assert result.value == pytest.approx(fresh.value, abs=1e-7)
        assert result.channel.is_ldp(eps)


@pytest.mark.slow  # 200 solves, about 3 s
def test_random_problems_are_always_certified():
    rng = np.random.default_rng(2026)
    for trial in range(200):
        k, m = int(rng.integers(2, 6)), int(rng.integers(2, 6))
        eps = float(rng.uniform(0, 4))
        delta = 0.0 if trial % 2 else float(rng.uniform(0, 0.2))
        eta = None if trial % 3 else float(rng.uniform(0, 1))
        gains = rng.normal(size=(k, m))
        prior = rng.dirichlet(np.ones(k))
        result = optimal_channel(k, eps, utility=gains, prior=prior, delta=delta, eta=eta)
        assert result.channel.is_ldp(eps, delta)
        if eta is not None:
            assert result.channel.tv <= eta * (1 + 1e-12)
        kept = result.extras["kept_outputs"]
        assert result.value == pytest.approx(
            float(np.sum(prior[:, None] * gains[:, kept] * result.channel.matrix))
        )
        assert result.value <= result.objective + 1e-6


# ----------------------------------------------------------------- certification
def test_certification_drops_numerically_empty_outputs():
    krr = ldp.k_rr(3, 1.0).matrix
    raw = np.hstack([krr, np.array([[1e-10], [0.0], [3e-11]])])
    raw /= raw.sum(axis=1, keepdims=True)
    assert ldp.Channel(raw).epsilon == math.inf  # what a raw solver output would claim
    channel, weight, kept = certify(raw, 1.0, 0.0, None)
    assert channel.n_outputs == 3 and list(kept) == [0, 1, 2]
    assert channel.is_ldp(1.0, rtol=0.0)
    # an output just above the threshold is kept and lifted into eps-LDP, not dropped
    raw = np.hstack([krr, np.array([[1e-8], [0.0], [3e-9]])])
    raw /= raw.sum(axis=1, keepdims=True)
    channel, weight, kept = certify(raw, 1.0, 0.0, None)
    assert channel.n_outputs == 4 and weight < 1e-7
    assert channel.is_ldp(1.0, rtol=0.0)


def test_certification_repairs_small_violations_and_refuses_large_ones():
    slightly = ldp.k_rr(3, 1.0 + 1e-8).matrix
    channel, weight, _ = certify(slightly, 1.0, 0.0, None)
    assert 0 < weight < 1e-6
    assert channel.epsilon <= 1.0
    with pytest.raises(DesignError, match="misses the budget"):
        certify(ldp.k_rr(3, 1.5).matrix, 1.0, 0.0, None)
    with pytest.raises(DesignError, match="misses the budget"):
        certify(ldp.binary_erasure(1.0, 0.2).matrix, 1.0, 0.1, None)


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"k": 3, "epsilon": -1.0, "utility": "mi"}, ValueError, "epsilon must be >= 0"),
        (
            {"k": 3, "epsilon": 1.0, "utility": "mi", "prior": [0.5, 0.6, 0.1]},
            ValueError,
            "prior must sum to 1",
        ),
        (
            {"k": 3, "epsilon": 1.0, "utility": "mi", "prior": [0.5, 0.5]},
            ValueError,
            "k = 3 entries",
        ),
        ({"k": 3, "epsilon": 1.0, "utility": np.eye(2)}, ValueError, r"shape \(k=3, m\)"),
        ({"k": 3, "epsilon": 1.0, "utility": "entropy"}, ValueError, "utility must be one of"),
        (
            {
                "k": 17,
                "epsilon": 1.0,
                "utility": "mi",
                "prior": np.arange(1, 18) / 153,
                "method": "staircase",
            },
            ValueError,
            "too large for the exact staircase LP",
        ),
        (
            {"k": 3, "epsilon": 1.0, "utility": np.eye(3), "solver": "NOPE"},
            ValueError,
            "unknown or uninstalled solver",
        ),
        ({"k": 3, "epsilon": 1.0, "utility": "kl"}, ValueError, "hypotheses"),
        ({"k": 3, "epsilon": 1.0, "utility": "mi", "delta": 0.1}, ValueError, "pure eps-LDP only"),
        ({"k": 3, "epsilon": 1.0, "utility": "mi", "method": "magic"}, ValueError, "method"),
        ({"k": 1, "epsilon": 1.0, "utility": "mi"}, ValueError, "k must be >= 2"),
        ({"k": 3, "epsilon": math.inf, "utility": "mi"}, ValueError, "finite"),
    ],
)
def test_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        optimal_channel(**kwargs)


def test_utility_value_checks():
    with pytest.raises(TypeError, match="Channel"):
        utility_value(np.eye(2), "mi")
    with pytest.raises(ValueError, match="shape"):
        utility_value(ldp.k_rr(3, 1.0), np.eye(2))


# ----------------------------------------------------------------- frequency estimation
def subset_selection_channel(k, d, eps):
    import itertools

    subsets = list(itertools.combinations(range(k), d))
    matrix = np.array([[math.exp(eps) if x in s else 1.0 for s in subsets] for x in range(k)])
    return ldp.Channel(matrix / matrix.sum(axis=1, keepdims=True))


@pytest.mark.parametrize(("k", "d", "eps"), [(6, 1, 1.0), (6, 2, 1.0), (7, 3, 0.5), (5, 2, 3.0)])
def test_subset_selection_worst_case_risk_matches_closed_form(k, d, eps):
    from ldp.design import frequency_risk

    n = 1000
    big = math.exp(eps)
    # Ye-Barg (2018): worst case is the uniform input, with this closed form
    closed = (k - 1) ** 2 * (d * big + k - d) ** 2 / (n * k * d * (k - d) * (big - 1) ** 2)
    # the support estimator's i.i.d. variance summed over the k coordinates at uniform p
    p_in = d * big / (d * big + k - d)
    q_in = d * ((d - 1) * big + k - d) / ((k - 1) * (d * big + k - d))
    t = q_in + (p_in - q_in) / k
    support = k * t * (1 - t) / (n * (p_in - q_in) ** 2)
    channel = subset_selection_channel(k, d, eps)
    assert frequency_risk(channel, n) == pytest.approx(support, rel=1e-9)
    assert frequency_risk(channel, n) == pytest.approx(closed, rel=1e-9)


def test_frequency_risk_worst_case_is_a_maximum():
    from ldp.design import frequency_risk

    rng = np.random.default_rng(8)
    channel = ldp.Channel(rng.dirichlet(np.ones(6), size=4))
    worst = frequency_risk(channel, 10)
    points = rng.dirichlet(np.full(4, 0.3), size=4000)
    values = [frequency_risk(channel, 10, q) for q in points]
    assert max(values) <= worst + 1e-12
    assert max(values) >= worst * 0.97  # the sampled maximum approaches it


def test_frequency_decoder_is_unbiased_minimum_norm_and_matches_simulation():
    from ldp.design import frequency_decoder, frequency_risk

    rng = np.random.default_rng(9)
    channel = ldp.Channel(rng.dirichlet(np.ones(5), size=3))
    p = np.array([0.5, 0.3, 0.2])
    weights = p @ channel.matrix
    decoder = frequency_decoder(channel, weights)
    assert channel.matrix @ decoder == pytest.approx(np.eye(3), abs=1e-12)
    # any other unbiased decoder D + N (K N = 0) has a larger weighted norm
    null = np.linalg.svd(channel.matrix)[2][3:].T  # (5, 2): K @ null = 0
    for _ in range(20):
        other = decoder + null @ rng.normal(size=(2, 3))
        assert (weights * (other**2).sum(1)).sum() >= (weights * (decoder**2).sum(1)).sum()
    # Monte Carlo: 4000 surveys of n = 200 reports; the tolerance is 5 standard errors, so a
    # correct decoder fails with probability about 6e-7 (normal approximation; seeded)
    n, runs = 200, 4000
    x = rng.choice(3, size=(runs, n), p=p)
    z = channel.privatize(x, rng=rng)
    counts = np.stack([np.bincount(row, minlength=5) for row in z]) / n
    errors = ((counts @ decoder - p) ** 2).sum(axis=1)
    expected = frequency_risk(channel, n, p, decoder=decoder)
    assert errors.mean() == pytest.approx(
        expected, rel=5 * errors.std() / errors.mean() / math.sqrt(runs)
    )


def test_optimal_frequency_channel_picks_the_best_subset_size():
    from ldp.design import optimal_frequency_channel

    best = optimal_frequency_channel(8, 1.0, n=1000)
    # the continuous optimum d* = k / (e^eps + 1) = 2.15 (Ye-Barg (2018)): d = 2
    assert best.name == "subset selection d=2"
    assert best.table.risk.is_monotonic_increasing
    assert best.risk == pytest.approx(best.table.risk.iloc[0])
    krr = optimal_frequency_channel(4, 5.0, n=10)  # k < 3 e^eps + 2: k-RR wins
    assert krr.name == "k-RR"
    skewed = optimal_frequency_channel(4, 1.0, p=[0.7, 0.1, 0.1, 0.1])
    assert skewed.risk <= optimal_frequency_channel(4, 1.0).risk


def test_frequency_design_bad_input():
    from ldp.design import frequency_decoder, frequency_risk, optimal_frequency_channel

    binary = ldp.Channel([[0.7, 0.3], [0.3, 0.7], [0.3, 0.7]])
    with pytest.raises(ValueError, match="not identifiable"):
        frequency_decoder(binary)
    with pytest.raises(ValueError, match=r"not 1\.0-LDP"):
        optimal_frequency_channel(3, 1.0, candidates={"3-RR": ldp.k_rr(3, 2.0)})
    with pytest.raises(ValueError, match="decoder"):
        frequency_risk(ldp.k_rr(3, 1.0), 10, decoder=np.eye(3) * 2)
    with pytest.raises(ValueError, match="n must be >= 1"):
        frequency_risk(ldp.k_rr(3, 1.0), 0)


def test_large_subset_selection_optimum_is_certified():
    # k = 19, uniform MI: the optimum has C(19, 5) = 11628+ outputs; row sums then round at
    # ~1e-12 relative, which certification must absorb (it used to raise DesignError)
    result = optimal_channel(19, 1.0, utility="mi")
    assert result.method.startswith("weight-class")
    assert result.epsilon <= 1.0 + 1e-10
    assert result.channel.n_outputs == math.comb(19, result.extras["subset_size"])


# ----------------------------------------------------------- structured optimum (no matrix)
def _ss_mi_mp(k, d, eps):
    """I(X; Z) of d-subset selection under the uniform prior, 50 digits: a report holds the
    input with p = d e^eps / (d e^eps + k - d) and each subset is equally likely, so
    I = KL(Bernoulli(p) || Bernoulli(d / k))."""
    import mpmath

    with mpmath.workdps(50):
        big = mpmath.exp(eps)
        p = d * big / (d * big + k - d)
        return p * mpmath.log(p * k / d) + (1 - p) * mpmath.log((1 - p) * k / (k - d))


def test_the_k32_mutual_information_optimum_is_subset_selection_held_as_a_mechanism():
    import mpmath

    from ldp.mechanisms import SubsetSelection

    k, eps = 32, 1.0
    values = {d: _ss_mi_mp(k, d, mpmath.mpf(1)) for d in range(1, k)}
    d = max(values, key=values.get)  # the best size, found here by enumeration: 11
    assert d == 11 and math.comb(k, d) == 129_024_480  # too many outputs for a matrix
    result = optimal_channel(k, eps, utility="mi")
    assert result.channel is None
    assert isinstance(result.mechanism, SubsetSelection)
    assert (result.mechanism.k, result.mechanism.d) == (k, d)
    assert result.extras["subset_size"] == d and result.extras["n_outputs"] == math.comb(k, d)
    expected = float(values[d])
    assert result.value == pytest.approx(expected, rel=1e-12)
    assert result.objective == pytest.approx(expected, rel=1e-12)
    # the dual certificate k max_w mu_w / (k + (e - 1) w), mu_w the information of a staircase
    # column with w entries e (uniform prior), is tight at the optimum
    with mpmath.workdps(50):
        e = mpmath.e

        def mu(w):
            column = [e] * w + [mpmath.mpf(1)] * (k - w)
            mass = sum(column) / k
            return sum(c * mpmath.log(c / mass) for c in column) / k

        upper = max(k * mu(w) / (k + (e - 1) * w) for w in range(k + 1))
    assert result.extras["upper_bound"] == pytest.approx(float(upper), rel=1e-12)
    assert 0.0 <= result.gap <= 1e-12
    # privacy recomputed from the mechanism: TV between two inputs is the mass of the
    # C(k-2, d-1) subsets holding one and not the other, each P(S|x) - P(S|x') apart
    assert result.epsilon == result.mechanism.epsilon <= eps * (1 + 1e-12)
    assert result.delta == 0.0
    with mpmath.workdps(50):
        big = mpmath.exp(1)
        p = d * big / (d * big + k - d)
        inside = p / mpmath.binomial(k - 1, d - 1)
        outside = (1 - p) / mpmath.binomial(k - 1, d)
        tv = mpmath.binomial(k - 2, d - 1) * (inside - outside)
    assert result.tv == pytest.approx(float(tv), rel=1e-9)


def test_the_structured_optimum_deploys_through_its_mechanism():
    from ldp.protocol import Protocol

    result = optimal_channel(32, 1.0, utility="mi")
    protocol = Protocol.from_mechanism(result.mechanism, labels=[f"a{i}" for i in range(32)])
    assert protocol.k == 32 and protocol.mechanism.params["d"] == 11
    assert protocol.epsilon <= 1.0 * (1 + 1e-12)
    reports = protocol.privatize(["a0"] * 2000 + ["a1"] * 1000, rng=0)
    estimate = protocol.decoder.estimate(protocol.aggregate(protocol.report_frame(reports)))
    assert estimate[0] == pytest.approx(2 / 3, abs=0.1) and estimate[1] == pytest.approx(
        1 / 3, abs=0.1
    )


def test_the_structured_optimum_deploys_as_a_design_result():
    from ldp.protocol import Protocol

    result = optimal_channel(32, 1.0, utility="mi")
    assert Protocol.from_mechanism(result).mechanism == result.mechanism


def test_structured_and_matrix_certification_agree_where_both_exist():
    """At k = 8 the subset-selection optimum fits a matrix; certified without it (from the
    mechanism's probabilities) it has the same value, privacy and gap."""
    from ldp.design.staircase import _structured_subset_selection, weight_class_values
    from ldp.design.utility import sublinear

    matrix = optimal_channel(8, 1.3, utility="mi")
    d = matrix.extras["subset_size"]
    target = sublinear("mi", 8, None, None)
    upper = float(weight_class_values(target, 8, 1.3).max())
    structured = _structured_subset_selection(
        target, 8, d, 1.3, matrix.objective, upper, "weight-class reduction"
    )
    assert structured.channel is None and matrix.mechanism is matrix.channel
    assert structured.value == pytest.approx(matrix.value, rel=1e-12)
    assert structured.value == pytest.approx(float(_ss_mi_mp(8, d, 1.3)), rel=1e-12)
    assert structured.epsilon == pytest.approx(matrix.epsilon, rel=1e-12)
    assert structured.tv == pytest.approx(matrix.tv, rel=1e-12)
    assert matrix.extras["upper_bound"] == upper and 0.0 <= matrix.gap <= 1e-12
    assert structured.gap <= 1e-12


def test_compare_reports_a_structured_optimum():
    table = compare(32, 1.0, utility="mi")
    optimum = table.set_index("mechanism").loc["optimum"]
    assert optimum["n_outputs"] == math.comb(32, 11)
    assert optimum["value"] == pytest.approx(float(_ss_mi_mp(32, 11, 1.0)), rel=1e-12)
    assert (table["value"] <= optimum["value"] * (1 + 1e-12)).all()


def test_a_design_result_needs_a_channel_or_a_mechanism():
    from ldp.design import DesignResult

    with pytest.raises(ValueError, match="channel or a mechanism"):
        DesignResult(None, 0.0, 0.0, "optimal", "closed form", "none", 1.0, 0.0, 0.0)


def test_the_weight_class_reduction_keeps_its_digits_at_tiny_epsilon():
    """At a tiny eps the information of d-subset selection is eps^2 q (1 - q) / 2 to leading
    order (q = d / k; a report holding the input has p - q ~ eps q (1 - q)): the best size is
    k / 2 and the optimum eps^2 / 8. The sizes' values differ by far less than the rounding
    of a column's sum, so they are compared in closed form."""
    eps = 1e-6
    result = optimal_channel(32, eps, utility="mi")
    assert result.extras["subset_size"] == 16
    assert result.value == pytest.approx(eps**2 / 8, rel=1e-5)
    assert result.extras["upper_bound"] == pytest.approx(eps**2 / 8, rel=1e-5)
    assert 0.0 <= result.gap <= 1e-8
    # eps = 0: every channel carries nothing; the bound is 0 and so is the gap
    flat = optimal_channel(40, 0.0, utility="mi")
    assert flat.value == 0.0 and flat.extras["upper_bound"] == 0.0 and flat.gap == 0.0

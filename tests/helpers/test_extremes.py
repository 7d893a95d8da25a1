"""Numerical extremes: eps up to 50 (and 700, and inf where meaningful), delta down to 1e-15,
k up to 2^16, n up to 1e9, 1e4-fold composition; finite and correct against mpmath."""

import math
import re

import mpmath
import numpy as np
import pytest

import ldp
from ldp import contraction, risk
from ldp.mechanisms import (
    BLH,
    GRR,
    OLH,
    OUE,
    SUE,
    Duchi,
    DuchiL2,
    HadamardResponse,
    Hybrid,
    Laplace,
    Piecewise,
    SquareWave,
    SubsetSelection,
)

mpmath.mp.dps = 60
E = mpmath.e
EPSILONS = [1e-6, 0.01, 1.0, 10.0, 20.0, 50.0]
N = 10**9


def _pq(name, k, eps):
    """Support probabilities of the frequency oracles in 60-digit arithmetic."""
    big = mpmath.exp(eps)
    if name == "GRR":
        return big / (big + k - 1), 1 / (big + k - 1)
    if name == "SUE":
        half = mpmath.exp(mpmath.mpf(eps) / 2)
        return half / (half + 1), 1 / (half + 1)
    if name == "OUE":
        return mpmath.mpf(1) / 2, 1 / (big + 1)
    if name in ("BLH", "HR"):
        return big / (big + 1), mpmath.mpf(1) / 2
    if name == "OLH":
        g = math.floor(math.exp(eps) + 0.5) + 1
        return big / (big + g - 1), mpmath.mpf(1) / g
    raise AssertionError(name)


def _variance(p, q, f, n):
    return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)


ORACLES = {"GRR": GRR, "SUE": SUE, "OUE": OUE, "BLH": BLH, "HR": HadamardResponse, "OLH": OLH}


@pytest.mark.parametrize("name", sorted(ORACLES))
@pytest.mark.parametrize("k", [2, 1000, 2**16])
@pytest.mark.parametrize("eps", EPSILONS)
def test_oracle_probabilities_epsilon_and_variance_against_mpmath(name, k, eps):
    if name == "OLH" and eps > 20:
        with pytest.raises(ValueError, match="g must be"):  # g = e^eps + 1 > 2^31 buckets
            OLH(k, eps)
        return
    oracle = ORACLES[name](k, eps)
    p, q = _pq(name, k, eps)
    assert oracle.p == pytest.approx(float(p), rel=1e-13)
    assert oracle.q == pytest.approx(float(q), rel=1e-13)
    assert oracle.epsilon == pytest.approx(eps, rel=1e-9)
    for f in (0.0, 0.3, 1.0):
        expected = float(_variance(p, q, mpmath.mpf(f), N))
        assert oracle.variance(N, f) == pytest.approx(expected, rel=1e-8)


@pytest.mark.parametrize("eps", [1e-6, 1.0, 20.0, 50.0, 700.0])
@pytest.mark.parametrize("k", [3, 200, 2**16])
def test_subset_selection_against_mpmath(eps, k):
    ss = SubsetSelection(k, eps)
    d, big = ss.d, mpmath.exp(eps)
    p = d * big / (d * big + k - d)
    q = d * ((d - 1) * big + k - d) / ((k - 1) * (d * big + k - d))
    assert ss.p == pytest.approx(float(p), rel=1e-12)
    assert ss.q == pytest.approx(float(q), rel=1e-12)
    assert ss.epsilon == pytest.approx(eps, rel=1e-9)
    assert ss.variance(N, 0.2) == pytest.approx(float(_variance(p, q, 0.2, N)), rel=1e-8)


@pytest.mark.parametrize("cls", [GRR, OUE, SUE, OLH, BLH, HadamardResponse, SubsetSelection])
def test_oracles_privatize_and_estimate_at_k_two_to_the_sixteen(cls):
    k = 2**16
    oracle = cls(k, 2.0)
    values = np.array([0, 1, k - 1, k // 2] * 50)
    estimate = oracle.estimate(oracle.privatize(values, rng=0))
    assert estimate.shape == (k,) and np.all(np.isfinite(estimate))
    assert estimate.sum() == pytest.approx(1.0, abs=5 * math.sqrt(k * oracle.variance(200)))


@pytest.mark.parametrize("cls", [GRR, OUE, SUE, BLH, HadamardResponse, SubsetSelection])
def test_oracles_at_epsilon_50_are_accurate_and_finite(cls):
    oracle = cls(64, 50.0)
    values = np.arange(64).repeat(20)
    estimate = oracle.estimate(oracle.privatize(values, rng=1))
    if cls in (GRR, SUE, SubsetSelection):  # p -> 1 and q -> 0: the report is the value
        np.testing.assert_allclose(estimate, 1 / 64, atol=1e-9)
    else:  # p or q stays 1/2: the estimate is noisy but within its standard deviation
        # 6 sd on each of 64 coordinates: fails with probability < 2e-7 (normal approximation)
        sd = math.sqrt(oracle.variance(values.size, 1 / 64))
        assert np.all(np.abs(estimate - 1 / 64) < 6 * sd)


@pytest.mark.parametrize("eps", [1e-6, 0.01, 1.0, 20.0, 50.0, 700.0])
def test_mean_mechanisms_against_mpmath(eps):
    e = mpmath.mpf(eps)
    c = (mpmath.exp(e) + 1) / (mpmath.exp(e) - 1)
    duchi = Duchi(eps)
    assert duchi.epsilon == pytest.approx(eps, rel=1e-9)
    assert duchi.variance(N, 0.5) == pytest.approx(float((c**2 - 0.25) / N), rel=1e-9)
    assert Duchi(eps, d=4).epsilon == pytest.approx(eps, rel=1e-9)
    assert DuchiL2(eps, d=5).epsilon == pytest.approx(eps, rel=1e-9)
    lap = Laplace(eps)
    assert lap.variance(N) == pytest.approx(float(8 / e**2 / N), rel=1e-12)
    z = mpmath.exp(e / 2)
    pm = Piecewise(eps)
    assert pm.epsilon == pytest.approx(eps, rel=1e-9)
    expected = (mpmath.mpf("0.09") / (z - 1) + (z + 3) / (3 * (z - 1) ** 2)) / N
    assert pm.variance(N, 0.3) == pytest.approx(float(expected), rel=1e-9)
    sw = SquareWave(eps)
    big = mpmath.exp(e)
    b = (e * big - big + 1) / (2 * big * (big - 1 - e))
    assert sw.b == pytest.approx(float(b), rel=1e-9)
    assert sw.epsilon == pytest.approx(eps, rel=1e-9)
    hybrid = Hybrid(eps)
    assert hybrid.epsilon == pytest.approx(eps, rel=1e-9)
    for mechanism in (duchi, lap, pm, sw, hybrid):
        assert 0 < mechanism.variance(N) < math.inf


def test_mechanism_epsilon_range_is_enforced():
    for cls in (GRR, OUE, Laplace, Piecewise):
        args = (4,) if cls in (GRR, OUE) else ()
        for bad in (800.0, 1e-9, math.inf):
            with pytest.raises(ValueError, match="epsilon"):
                cls(*args, bad)


@pytest.mark.parametrize("eps0", [1.0, 10.0, 50.0])
@pytest.mark.parametrize("delta", [1e-15, 1e-10, 1e-3])
def test_channel_delta_and_epsilon_for_delta_against_mpmath(eps0, delta):
    rr = ldp.randomized_response(eps0)
    big = mpmath.exp(eps0)
    assert rr.epsilon == pytest.approx(eps0, rel=1e-12)
    # delta(eps) = (e^eps0 - e^eps) / (1 + e^eps0) and its inverse
    for eps in (0.0, eps0 / 2):
        expected = (big - mpmath.exp(eps)) / (1 + big)
        assert rr.delta(eps) == pytest.approx(float(expected), rel=1e-12, abs=1e-300)
    # at eps0 itself the exact value is 0; the stored doubles and the rounding of e^eps0 may
    # leave a few units of 2^-53 (never below the truth, since epsilon is rounded up)
    assert 0.0 <= rr.delta(eps0) <= 2e-15
    expected = mpmath.log(big - delta * (1 + big))
    assert rr.epsilon_for_delta(delta) == pytest.approx(float(expected), rel=1e-12, abs=1e-14)
    assert ldp.eta_max(eps0, delta) == pytest.approx(
        float(delta + (1 - delta) * mpmath.tanh(mpmath.mpf(eps0) / 2)), rel=1e-14
    )


def test_infinite_epsilon_where_meaningful():
    identity = ldp.k_rr(4, math.inf)
    np.testing.assert_array_equal(identity.matrix, np.eye(4))
    assert identity.epsilon == math.inf and identity.tv == 1.0
    assert contraction.worst_case_tv(math.inf) == 1.0
    assert contraction.phi(math.inf, 0.0, 10) == 1.0
    private = risk.distribution_estimation(16, N, 1.0).value
    public = risk.distribution_estimation(16, N, math.inf).value
    assert 0 < public <= private < math.inf
    be = ldp.binary_erasure(50.0, 1e-15, 0.3)
    assert be.epsilon_for_delta(1e-15) <= 50.0 + 1e-9
    # exact up to the rounding of the 0.3 - e^50 * (0.3 e^-50) term: ulp(0.3) ~ 6e-17, upward
    assert 1e-15 * (1 - 1e-9) <= be.delta(50.0) <= 1e-15 + 1e-16


@pytest.mark.parametrize("n", [1, 10**6, 10**9])
@pytest.mark.parametrize("delta", [0.0, 1e-15])
def test_phi_against_mpmath(n, delta):
    for eps in (1e-12, 1e-6, 1.0, 50.0):
        expected = 1 - mpmath.exp(-n * mpmath.mpf(eps)) * (1 - mpmath.mpf(delta)) ** n
        assert contraction.phi(eps, delta, n) == pytest.approx(float(expected), rel=1e-10)


@pytest.mark.parametrize("eps", [0.01, 1.0, 50.0])
@pytest.mark.parametrize("k", [2, 2**16])
def test_krr_risk_at_a_billion_users_against_mpmath(eps, k):
    big = mpmath.exp(eps)
    gap = (big - 1) / (big + k - 1)  # p - q
    expected = (1 - mpmath.mpf(1) / k) / (N * gap**2)  # sum of t(1-t), t = 1/k
    assert risk.krr_distribution_risk(k, N, eps).value == pytest.approx(float(expected), rel=1e-9)
    for bound in (
        risk.distribution_estimation(k, N, eps, 1e-15),
        risk.bernoulli_mean(N, eps, 1e-15),
        risk.ball_mean(N, eps, 1e-15, d=8),
    ):
        assert 0 < bound.value < math.inf


@pytest.mark.slow  # 60-digit sums over 10^4 terms, about 2 s
def test_ten_thousand_fold_composition_against_mpmath():
    accounting = pytest.importorskip("ldp.accounting")
    if not hasattr(accounting, "compose_eps_delta_eta"):
        pytest.skip("ldp.accounting has no compose_eps_delta_eta")
    eps, k = 0.05, 10_000
    composed = accounting.compose_eps_delta_eta(eps, 0.0, None, k)
    e, big = mpmath.mpf(eps), mpmath.exp(eps)
    for target in (10.0, 20.0, 30.0):
        # Kairouz-Oh-Viswanath: k-fold eps-RR, delta(eps') = sum_l C(k,l)[e^{(k-l)eps} -
        # e^{eps' + l eps}]_+ / (1 + e^eps)^k
        total = mpmath.fsum(
            mpmath.binomial(k, j) * (mpmath.exp((k - j) * e) - mpmath.exp(target + j * e))
            for j in range(k + 1)
            if (k - j) * e > target + j * e
        )
        expected = float(total / (1 + big) ** k)
        assert composed.delta(target) == pytest.approx(expected, rel=1e-6, abs=1e-15)


# ----------------------------------------------------------------------------- regressions
# Each found by tests/helpers/test_fuzz.py or by the checks above, then fixed in place.


def test_regression_huge_entries_and_sizes_raise_value_errors_naming_the_argument():
    with pytest.raises(ValueError, match="matrix"):  # was: an overflow warning in the row sums
        ldp.Channel([[9e307, 9e307]])
    with pytest.raises(ValueError, match="k"):  # was: numpy's "Maximum allowed dimension"
        ldp.k_rr(2**70, 1.0)
    with pytest.raises(ValueError, match="k"):  # was: TypeError from gammaln
        SubsetSelection(2**70, 1.0)
    with pytest.raises(ValueError, match="d"):  # was: math.comb(2^64, 2^63), a hang
        Duchi(1.0, d=2**64)
    with pytest.raises(ValueError, match="radius"):  # was: OverflowError in the variance
        DuchiL2(1.0, 1, 1e300)
    with pytest.raises(ValueError, match="p"):  # was: np.full(4.7e9), out of memory
        risk.krr_distribution_risk(2**33, 10, 1.0)
    with pytest.raises(TypeError, match="joint"):  # was: ValueError without the name
        risk.e_gamma_information(["a", "b"], 1.0)
    from ldp.design import optimal_channel

    with pytest.raises(ValueError, match="epsilon"):  # was: OverflowError in math.exp
        optimal_channel(2, 1e300, utility="mi")
    with pytest.raises(ValueError, match="k"):  # was: numpy's "Maximum allowed dimension"
        optimal_channel(2**40, 1.0, utility="mi")


def test_regression_large_epsilon_overflows():
    q = ldp.binary_mechanism_with_erasure([0.5, 0.5], [0.2, 0.8], 710.0, 0.5)  # was: Overflow
    assert np.all(np.isfinite(q.matrix))
    # 1.7976931348623157e308 is the exact largest double (sys.float_info.max)
    assert contraction.phi(1.7976931348623157e308, 0.0, 2) == 1.0  # was: overflow warning
    assert contraction.chi2_output_bound(1e300, 1.0, 1.0) == math.inf  # was: OverflowError
    assert 0 < risk.bernoulli_mean(1, 2**70).value < math.inf  # was: OverflowError
    assert 0 < risk.krr_distribution_risk(2, 1, 710.0).value < math.inf  # was: OverflowError
    assert risk.krr_distribution_risk(2, 1, 2.2e-308).value == math.inf  # was: 1/0 warning
    assert 0 < risk.distribution_estimation(22, 22, 5e-324).value < math.inf  # was: warning
    with pytest.raises(ValueError, match="d"):  # was: np.arange(16, 6.4e9), out of memory
        risk.ball_mean(1, math.inf, d=6_443_493_446)


def test_regression_epsilon_is_exact_at_large_epsilon_and_large_k():
    # were inf (1 - p rounded to 0), or off by 1e-9 (differences of large log-gammas)
    assert SUE(8, 100.0).epsilon == pytest.approx(100.0, rel=1e-12)
    assert HadamardResponse(4, 60.0).epsilon == pytest.approx(60.0, rel=1e-12)
    assert Duchi(54.0, d=2).epsilon == pytest.approx(54.0, rel=1e-12)
    assert DuchiL2(54.0, d=3).epsilon == pytest.approx(54.0, rel=1e-12)
    assert Piecewise(100.0).epsilon == pytest.approx(100.0, rel=1e-12)  # was: 1/0 (C - 1 = 0)
    assert SubsetSelection(524283, 1.0).epsilon == pytest.approx(1.0, rel=1e-12)
    assert SubsetSelection(6, 700.0).epsilon == pytest.approx(700.0, rel=1e-12)  # was: log(0)
    assert Duchi(1.0, d=2001).bound == pytest.approx(
        float((E + 1) / (E - 1) * mpmath.mpf(2) ** 2000 / mpmath.binomial(2000, 1000)),
        rel=1e-9,
    )
    assert Duchi(1.0).privatize(np.array([]), rng=0).shape == (0,)  # was: a reshape error


@pytest.mark.parametrize(
    ("call", "limit", "argument"),
    [
        (lambda: GRR(2**40, 1.0).aggregate(np.array([0])), "MAX_STATISTIC_ENTRIES", "k"),
        (lambda: GRR(2**40, 1.0).estimate(np.array([0])), "MAX_STATISTIC_ENTRIES", "k"),
        (lambda: HadamardResponse(2**40, 1.0).aggregate([0]), "MAX_STATISTIC_ENTRIES", "k"),
        (lambda: OLH(2**40, 1.0).aggregate([[0, 0]]), "MAX_STATISTIC_ENTRIES", "k"),
        (lambda: OLH(2**40, 1.0).empty_statistic(), "MAX_STATISTIC_ENTRIES", "k"),
        (lambda: OUE(2**40, 1.0).privatize([0], rng=0), "MAX_VECTOR_CATEGORIES", "k"),
        (lambda: SUE(2**30, 1.0).aggregate([[0]]), "MAX_STATISTIC_ENTRIES", "k"),
        (lambda: SubsetSelection(2**30, 1.0).privatize([0], rng=0), "MAX_VECTOR_CATEGORIES", "k"),
        (lambda: OUE(2**20, 1.0).to_channel(), "MAX_CHANNEL_ENTRIES", "k"),
        (lambda: SubsetSelection(2**20, 1.0).to_channel(), "MAX_CHANNEL_ENTRIES", "k"),
        (lambda: OLH(2**20, 1.0).to_channel(), "MAX_CHANNEL_ENTRIES", "k"),
    ],
)
def test_sizes_beyond_the_limits_raise_up_front_naming_the_limit(call, limit, argument):
    """Were: 8-16 TiB histograms (GRR, HR, OLH with k = 2^40), 128 GiB for one OUE report, and
    an integer-string conversion error (or a 10-second binomial) building the size of the
    unary-encoding or subset-selection channel. Each is refused before any allocation, naming
    the module constant of the limit and the argument; sizes are printed compactly."""
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert limit in message and re.search(rf"(?<![\w-]){argument}\b", message), message
    assert len(message) < 300 and not re.search(r"\d{20}", message), message
    assert peak < 32 * 2**20  # nothing near the refused size was allocated


def test_local_hashing_with_a_huge_alphabet_is_built_without_a_table():
    """LocalHashing(2^26, g=6) used to build a 13 GiB table at construction (the ring hash of a
    non-prime-power g); it builds none, and its decoder stays within the statistic limit."""
    import tracemalloc

    from ldp.mechanisms import LocalHashing
    from ldp.mechanisms.limits import MAX_STATISTIC_ENTRIES

    tracemalloc.start()
    try:
        lh = LocalHashing(2**26, 1.0, g=6)
        reports = lh.privatize(np.array([0, 2**26 - 1]), rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20 and reports.shape == (2, lh.codec.width)
    assert lh.statistic_entries == 2**26 <= MAX_STATISTIC_ENTRIES


def test_compose_refuses_more_folds_than_its_limit_up_front():
    """compose(k_rr(4, 1), 10**9) grew for gigabytes (or failed deep inside the lattice with an
    unrelated message); n above MAX_COMPOSE_FOLDS is refused first. Gaussian curves compose
    in closed form at any n."""
    from ldp.accounting import GaussianTradeOff, compose
    from ldp.accounting.composition.exact import MAX_COMPOSE_FOLDS

    with pytest.raises(ValueError, match=r"n must be <= MAX_COMPOSE_FOLDS.*got 1e\+09"):
        compose(ldp.k_rr(4, 1.0), 10**9)
    with pytest.raises(ValueError, match="MAX_COMPOSE_FOLDS"):
        compose(GRR(4, 1.0), MAX_COMPOSE_FOLDS + 1, adaptive=True)
    assert compose(GaussianTradeOff(0.1), 10**12).mu == pytest.approx(0.1 * 10**6)


def test_huge_integers_are_compact_in_messages():
    from ldp._validation import check_integer, compact

    with pytest.raises(ValueError) as info:
        check_integer(-(10**300), "n", low=1)
    assert str(info.value) == "n must be >= 1, got -1e+300"
    with pytest.raises(ValueError) as info:
        check_integer(-(10**400), "n", low=1)
    assert str(info.value) == "n must be >= 1, got -about 2^1328"
    with pytest.raises(ValueError, match=r"2\^70"):
        GRR(2**70, 1.0)
    assert compact(2**40) == "2^40" and compact(1_100_000_000_000) == "1.1e+12"

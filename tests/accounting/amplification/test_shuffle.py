"""Shuffle amplification against the exact privacy of shuffled k-RR (multinomial enumeration),
a brute-force evaluation of the clone pair, and the published values of Feldman-McMillan-Talwar
(2021) (their authors' code and README)."""

import itertools
import math

import numpy as np
import pytest

import ldp
from ldp.accounting import shuffle_amplification
from ldp.accounting.amplification.blanket import BLANKET_BOUNDS, blanket_delta, blanket_probability
from ldp.accounting.amplification.shuffle import clone_probability, shuffle_delta


# ----------------------------------------------------------------- the exact oracle
def _shift(array, axis):
    """The histogram after one more report of value ``axis`` (no wrap-around)."""
    out = np.zeros_like(array)
    src = [slice(None)] * array.ndim
    dst = [slice(None)] * array.ndim
    src[axis] = slice(0, -1)
    dst[axis] = slice(1, None)
    out[tuple(dst)] = array[tuple(src)]
    return out


def _configurations(k, m):
    """Counts of the other users' values: 0 and 1 free, values 2..k-1 exchangeable."""
    for m0 in range(m + 1):
        for m1 in range(m - m0 + 1):
            rest = m - m0 - m1
            if k == 2:
                if rest == 0:
                    yield (m0, m1)
                continue
            for tail in itertools.combinations_with_replacement(range(rest + 1), k - 2):
                tail = tuple(sorted(tail, reverse=True))
                if sum(tail) == rest:
                    yield (m0, m1, *tail)


def exact_shuffled_krr(k, eps0, n):
    """Every configuration's pair of output laws (victim holds 0 or 1) of n shuffled k-RR
    users, as flat arrays over histograms: the exact mechanism, by enumeration."""
    e = math.exp(eps0)
    p, q = e / (e + k - 1), 1.0 / (e + k - 1)
    rows = np.full((k, k), q) + (p - q) * np.eye(k)
    pairs = []
    seen = set()
    for config in _configurations(k, n - 1):
        if config in seen:
            continue
        seen.add(config)
        s = np.zeros((n + 1,) * k)
        s[(0,) * k] = 1.0
        for value, count in enumerate(config):
            for _ in range(count):
                s = sum(rows[value, y] * _shift(s, y) for y in range(k))
        p0 = sum(rows[0, y] * _shift(s, y) for y in range(k))
        p1 = sum(rows[1, y] * _shift(s, y) for y in range(k))
        pairs.append((p0.ravel(), p1.ravel()))
    return pairs


def hockey(p, q, eps):
    e = math.exp(eps)
    return max(np.maximum(p - e * q, 0).sum(), np.maximum(q - e * p, 0).sum())


def exact_delta(pairs, eps):
    return max(hockey(p, q, eps) for p, q in pairs)


SLOW = pytest.mark.slow  # k = 3, n = 30: about 4 s of enumeration
CASES = [
    (2, 1.0, 5),
    (2, 1.0, 10),
    (2, 1.0, 30),
    (2, 2.0, 30),
    (2, 3.0, 20),
    (2, 0.5, 30),
    (3, 1.0, 10),
    (3, 2.0, 20),
    pytest.param((3, 1.0, 30), marks=SLOW),
    (4, 1.0, 10),
    (4, 2.0, 12),
]


class _Oracles(dict):
    def __missing__(self, case):
        self[case] = exact_shuffled_krr(*case)
        return self[case]


@pytest.fixture(scope="module")
def oracles():
    return _Oracles()


def test_oracle_reproduces_independent_values(oracles):
    # independently computed values (max over configurations, eps = eps0 / 2)
    assert exact_delta(oracles[(2, 1.0, 10)], 0.5) == pytest.approx(2.1498e-2, rel=1e-4)
    assert exact_delta(oracles[(2, 1.0, 30)], 0.5) == pytest.approx(1.1043e-3, rel=1e-4)
    assert exact_delta(oracles[(3, 2.0, 20)], 1.0) == pytest.approx(4.1407e-2, rel=1e-4)
    assert exact_delta(oracles[(4, 1.0, 10)], 0.5) == pytest.approx(8.7679e-3, rel=1e-4)
    # n = 1 is k-RR itself: delta(eps) = [p - e^eps q]_+
    ((p0, p1),) = exact_shuffled_krr(3, 1.0, 1)
    e = math.e
    assert hockey(p0, p1, 0.2) == pytest.approx((e - math.exp(0.2)) / (e + 2))


@pytest.mark.parametrize("case", CASES)
def test_every_bound_is_above_the_exact_shuffled_delta(oracles, case):
    k, eps0, n = case
    pairs = oracles[case]
    channel = ldp.k_rr(k, eps0)
    for eps in np.linspace(0.0, eps0, 9)[:-1]:
        exact = exact_delta(pairs, eps)
        generic = shuffle_delta(eps, eps0, n)
        stronger = shuffle_delta(eps, eps0, n, clone_probability(channel))
        assert exact <= stronger * (1 + 1e-12) + 1e-15, (case, eps)
        assert stronger <= generic * (1 + 1e-12) + 1e-15
    for delta in (1e-2, 1e-3, 1e-5):
        for mechanism in (None, channel):
            bound = shuffle_amplification(eps0, n, delta, mechanism=mechanism).epsilon
            assert exact_delta(pairs, bound) <= delta, (case, delta, mechanism)


@pytest.mark.parametrize("case", CASES)
def test_blanket_bounds_are_above_the_exact_shuffled_delta(oracles, case):
    k, eps0, n = case
    pairs = oracles[case]
    for eps in np.linspace(0.0, eps0, 9)[1:-1]:
        exact = exact_delta(pairs, eps)
        for bound in BLANKET_BOUNDS:
            for alphabet in (k, None):  # k-RR's blanket, and any eps0-LDP randomizer's
                value = blanket_delta(eps, eps0, n, k=alphabet, bound=bound)
                assert exact <= value, (case, eps, bound, alphabet)
    for delta in (1e-2, 1e-3):
        for mechanism in (None, ldp.k_rr(k, eps0)):
            r = shuffle_amplification(eps0, n, delta, mechanism=mechanism, method="blanket")
            assert exact_delta(pairs, r.epsilon) <= delta, (case, delta, mechanism)
            assert r.epsilon <= eps0


@pytest.mark.parametrize(
    "case", [(2, 0.5, 30), (2, 0.3, 20), pytest.param((3, 0.5, 30), marks=SLOW)]
)
def test_closed_form_is_above_the_exact_shuffled_delta_where_it_applies(oracles, case):
    # at n = 30 Theorem 3.1's range eps0 <= log(n / (16 log(2/delta))) needs a large delta
    _, eps0, n = case
    pairs = oracles[case]
    checked = 0
    for delta in (0.5, 0.7, 0.8, 0.9, 0.95):
        if eps0 > math.log(n / (16 * math.log(2 / delta))):
            continue
        r = shuffle_amplification(eps0, n, delta, method="closed-form")
        assert exact_delta(pairs, r.epsilon) <= delta, (case, delta)
        checked += 1
    assert checked >= 2


def _exact_epsilon(pairs, delta, hi):
    lo = 0.0
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if exact_delta(pairs, mid) <= delta else (mid, hi)
    return hi


@pytest.mark.parametrize(
    "case", [(2, 1.0, 30), (3, 1.0, 20), pytest.param((3, 1.0, 30), marks=SLOW), (2, 2.0, 30)]
)
def test_numerical_bound_is_close_to_exact(oracles, case):
    k, eps0, n = case
    exact = _exact_epsilon(oracles[case], 1e-3, eps0)
    bound = shuffle_amplification(eps0, n, 1e-3, mechanism=ldp.k_rr(k, eps0)).epsilon
    assert exact <= bound <= exact + 0.15 * eps0  # e.g. 0.5087 vs 0.5486 (k = 2, eps0 = 1)
    assert bound < eps0  # some amplification already at n = 30


# ------------------------------------------------- the clone pair, by brute force
def _clone_pair_brute(eps0, n, p_c, eps):
    """E_{e^eps}(P || Q) summed over every (c, a) of the clone pair (direct definition)."""
    from scipy.stats import binom

    alpha = math.exp(eps0) / (math.exp(eps0) + 1)
    total = 0.0
    for c in range(n):
        a = np.arange(c + 2)  # A + Delta under P, A + 1 - Delta under Q
        pa = alpha * binom.pmf(a - 1, c, 0.5) + (1 - alpha) * binom.pmf(a, c, 0.5)
        qa = (1 - alpha) * binom.pmf(a - 1, c, 0.5) + alpha * binom.pmf(a, c, 0.5)
        total += binom.pmf(c, n - 1, p_c) * np.maximum(0.0, pa - math.exp(eps) * qa).sum()
    return total


@pytest.mark.parametrize("eps0,n", [(1.0, 7), (2.0, 40), (4.0, 60), (0.3, 25)])
def test_clone_delta_equals_brute_force(eps0, n):
    for p_c in (math.exp(-eps0), 2 / (math.exp(eps0) + 1)):
        for eps in (0.0, 0.1, eps0 / 3, eps0 / 2, 0.9 * eps0):
            brute = _clone_pair_brute(eps0, n, p_c, eps)
            value = shuffle_delta(eps, eps0, n, p_c)
            assert brute <= value <= brute * (1 + 1e-8) + 1e-14


def test_clone_probability_of_k_rr_and_generic():
    for k in (2, 5, 64):
        for eps0 in (0.5, 4.0):
            expected = 2 / (math.exp(eps0) + 1)
            value = clone_probability(ldp.k_rr(k, eps0), eps0)
            assert expected * (1 - 1e-9) <= value <= expected
    assert clone_probability(None, 3.0) == math.exp(-3.0)
    # a channel whose matrix does not allow the stronger clone falls back towards e^-eps0
    ch = ldp.Channel([[0.7, 0.2, 0.1], [0.1, 0.2, 0.7], [0.4, 0.2, 0.4]])
    brute = min(
        ch.matrix[x, z] / ((ch.matrix[a, z] + ch.matrix[b, z]) / 2)
        for x in range(3)
        for a in range(3)
        for b in range(3)
        if a != b
        for z in range(3)
    )
    assert clone_probability(ch, ch.epsilon) == pytest.approx(max(brute, math.exp(-ch.epsilon)))


# ------------------------------------------------------ published values
# Feldman-McMillan-Talwar (2021): the authors' numerical analysis (their code, 20 bisection
# steps) brackets the exact clone-pair epsilon as [LB, UB]; the figures plot these values.
PUBLISHED = [  # (delta, eps0, n, LB, UB)
    (1e-6, 1.0, 10**3, 0.1811, 0.1852),
    (1e-6, 1.0, 10**4, 0.0530, 0.0550),
    (1e-6, 2.0, 10**3, 0.5360, 0.5588),
    (1e-6, 2.0, 10**4, 0.1548, 0.1592),
    (1e-6, 4.0, 10**4, 0.5926, 0.6208),
    (1e-6, 4.0, 10**5, 0.1675, 0.1724),
    (1e-8, 1.0, 10**4, 0.0688, 0.0704),
    (1e-8, 2.0, 10**5, 0.0587, 0.0589),
    (1e-8, 4.0, 10**4, 0.7438, 0.7676),
    (1e-8, 4.0, 10**5, 0.2121, 0.2183),
]


@pytest.mark.parametrize("delta,eps0,n,lb,ub", PUBLISHED)
def test_numerical_clone_bound_reproduces_published_values(delta, eps0, n, lb, ub):
    value = shuffle_amplification(eps0, n, delta, method="clones").epsilon
    assert lb - 1e-4 <= value <= ub + 1e-4


# n = 10^6, a few seconds each: its twin in the default run is
# test_numerical_clone_bound_reproduces_published_values (the same table and bound, n <= 10^5)
@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize(
    "delta,eps0,lb,ub", [(1e-6, 4.0, 0.0492, 0.0501), (1e-8, 1.0, 0.0061, 0.0063)]
)
def test_published_values_at_a_million_users(delta, eps0, lb, ub):
    value = shuffle_amplification(eps0, 10**6, delta, method="clones").epsilon
    assert lb - 1e-4 <= value <= ub + 1e-4


# Balle-Bell-Gascón-Nissim (2019): epsilon at delta = 1e-6 from the authors' code (root
# finding on its Hoeffding and Bennett bounds), run unmodified, for k-RR and for any
# eps0-LDP randomizer (None: "4 (none)" = no amplification), next to the exact epsilon of
# shuffled k-RR when all other users hold one value (a lower bound on the true epsilon).
BLANKET = [  # (eps0, n, k, Bennett, Hoeffding, generic Bennett, exact lower bound)
    (1.0, 10**4, 2, 0.0512, 0.0507, 0.1662, 0.0357),
    (1.0, 10**4, 10, 0.0280, 0.0647, 0.1662, 0.0189),
    (1.0, 10**4, 100, 0.0091, 0.0697, 0.1662, 0.0060),
    (1.0, 10**5, 100, 0.0026, 0.0205, 0.0485, 0.0016),
    (4.0, 10**4, 100, 0.2906, 4.0, 4.0, 0.1634),
    (4.0, 10**5, 2, 0.1387, 0.1367, 2.2085, 0.0847),
    (4.0, 10**5, 10, 0.1292, 0.2996, 2.2085, 0.0785),
    (4.0, 10**5, 100, 0.0815, 0.6543, 2.2085, 0.0477),
]


@pytest.mark.parametrize("eps0,n,k,bennett,hoeffding,generic,exact_lb", BLANKET)
def test_blanket_reproduces_the_authors_code(eps0, n, k, bennett, hoeffding, generic, exact_lb):
    r = shuffle_amplification(eps0, n, 1e-6, mechanism=ldp.k_rr(k, eps0), method="blanket")
    assert r.epsilon == pytest.approx(min(bennett, hoeffding), abs=1e-4)
    assert r.citation == "Balle-Bell-Gascón-Nissim (2019)"
    assert r.clone_probability == pytest.approx(k / (math.exp(eps0) + k - 1))
    assert exact_lb < r.epsilon
    any_randomizer = shuffle_amplification(eps0, n, 1e-6, method="blanket")
    assert any_randomizer.epsilon == pytest.approx(generic, abs=1e-4)
    # auto is the smaller of the clone and blanket bounds for k-RR
    clones = shuffle_amplification(eps0, n, 1e-6, mechanism=ldp.k_rr(k, eps0), method="clones")
    auto = shuffle_amplification(eps0, n, 1e-6, mechanism=ldp.k_rr(k, eps0))
    assert auto.epsilon == min(clones.epsilon, r.epsilon)
    assert auto.method == ("blanket" if r.epsilon < clones.epsilon else "clones")


def test_blanket_against_the_clone_bounds():
    # the stronger clone wins when k is small next to e^eps0, the blanket when k is large
    for eps0, n, k in [(4.0, 10**5, 2), (4.0, 10**5, 10)]:
        mech = ldp.k_rr(k, eps0)
        blanket = shuffle_amplification(eps0, n, 1e-6, mechanism=mech, method="blanket")
        clones = shuffle_amplification(eps0, n, 1e-6, mechanism=mech, method="clones")
        assert clones.epsilon < blanket.epsilon
    for eps0, n, k in [(1.0, 10**4, 10), (1.0, 10**5, 100), (4.0, 10**4, 100)]:
        mech = ldp.k_rr(k, eps0)
        blanket = shuffle_amplification(eps0, n, 1e-6, mechanism=mech, method="blanket")
        clones = shuffle_amplification(eps0, n, 1e-6, mechanism=mech, method="clones")
        assert blanket.epsilon < clones.epsilon
    # for an arbitrary randomizer the clone bound is the tighter one
    for eps0, n in [(1.0, 10**4), (4.0, 10**5)]:
        generic = shuffle_amplification(eps0, n, 1e-6, method="blanket")
        assert shuffle_amplification(eps0, n, 1e-6, method="clones").epsilon < generic.epsilon


def test_blanket_formulas_by_hand():
    # Bennett's sum over Bin(n, gamma) in closed form equals the direct sum
    from scipy.stats import binom

    eps, eps0, n, k = 0.4, 1.5, 40, 5
    g = blanket_probability(eps0, k)
    assert g == pytest.approx(k / (math.exp(eps0) + k - 1))
    a = math.expm1(eps)
    b_plus = g * (1 - math.exp(eps)) + (1 - g) * k
    c = g * (2 - g) * a * a + (1 - g) ** 2 * k * (math.exp(2 * eps) + 1)
    beta = a * b_plus / c
    kappa = c / b_plus**2 * ((1 + beta) * math.log1p(beta) - beta)
    m = np.arange(1, n + 1)
    direct = np.sum(binom.pmf(m, n, g) * np.exp(-m * kappa)) * b_plus / math.log1p(beta)
    assert blanket_delta(eps, eps0, n, k=k) == pytest.approx(direct / (g * n), rel=1e-9)
    b = (1 - g) * k * (math.exp(eps) + 1)
    hoeffding = b * b / (4 * a) * (1 - g * (1 - math.exp(-2 * a * a / b / b))) ** n / (g * n)
    assert blanket_delta(eps, eps0, n, k=k, bound="hoeffding") == pytest.approx(
        min(1.0, hoeffding), rel=1e-9
    )
    assert blanket_delta(eps0, eps0, n, k=k) == 0.0
    with pytest.raises(ValueError, match="bound"):
        blanket_delta(eps, eps0, n, bound="chernoff")
    with pytest.raises(ValueError, match="rounds"):
        shuffle_amplification(1.0, 100, 1e-6, method="blanket", rounds=2)


def test_closed_form_matches_the_authors_readme_and_is_above_the_numerical_bound():
    # README of the authors' code: eps0 = 4, n = 1e5, delta = 1e-6 gives 0.5378040242374512
    # with their (more conservative) variant; Theorem 3.1's expression gives 0.534634
    r = shuffle_amplification(4.0, 10**5, 1e-6, method="closed-form")
    x = 8 * math.sqrt(math.exp(4) * math.log(4e6) / 1e5) + 8 * math.exp(4) / 1e5
    assert r.epsilon == pytest.approx(math.log(1 + (math.e**4 - 1) / (math.e**4 + 1) * x))
    assert r.epsilon >= math.log(1 + (math.e**4 - 1) / (math.e**4 + 1) * x)
    assert r.epsilon < 0.5378040242374512  # the authors' README (another library's output)
    for eps0, n, delta in [(1.0, 10**3, 1e-6), (2.0, 10**4, 1e-8), (4.0, 10**5, 1e-8)]:
        cf = shuffle_amplification(eps0, n, delta, method="closed-form").epsilon
        assert shuffle_amplification(eps0, n, delta).epsilon < cf


# delta = 1e-8, eps0 = 4: the clone-pair bound of any randomizer and the stronger k-RR clone
# bound, next to the exact epsilon of shuffled binary RR when all others hold one value (a lower
# bound); n = 10^6 (about 1.5 s) runs with the long tests, its twin n = 10^5 in the default run
@pytest.mark.parametrize(
    "n,generic_value,krr_value,lower,auto_method,auto_value",
    [
        (10**5, 0.2149, 0.1507, 0.1097, "clones", 0.1507),
        pytest.param(
            10**6,
            0.0642,
            0.0451,
            0.0320,
            "blanket",
            0.0450,
            marks=[pytest.mark.slow, pytest.mark.long],
        ),
    ],
)
def test_many_users_at_eps0_4(n, generic_value, krr_value, lower, auto_method, auto_value):
    mech = ldp.k_rr(16, 4.0)
    generic = shuffle_amplification(4.0, n, 1e-8)
    krr = shuffle_amplification(4.0, n, 1e-8, mechanism=mech, method="clones")
    assert generic.epsilon == pytest.approx(generic_value, abs=1e-4)
    assert krr.epsilon == pytest.approx(krr_value, abs=1e-4)
    assert krr.citation == "Feldman-McMillan-Talwar (2023)"
    # auto reports the smaller of the clone and blanket bounds: the clones at 10^5 users, the
    # blanket (Bennett), a little tighter, at 10^6
    blanket = shuffle_amplification(4.0, n, 1e-8, mechanism=mech, method="blanket")
    auto = shuffle_amplification(4.0, n, 1e-8, mechanism=mech)
    assert auto.method == auto_method
    assert auto.epsilon == min(krr.epsilon, blanket.epsilon)
    assert lower < auto.epsilon <= krr.epsilon
    assert auto.epsilon == pytest.approx(auto_value, abs=1e-4)
    assert generic.citation == "Feldman-McMillan-Talwar (2021)"
    assert krr.epsilon < generic.epsilon < 0.25 < 4.0


def test_grr_mechanism_and_epsilon0_from_mechanism():
    grr = ldp.mechanisms.GRR(8, 2.0)
    a = shuffle_amplification(None, 1000, 1e-6, mechanism=grr)
    b = shuffle_amplification(2.0, 1000, 1e-6, mechanism=ldp.k_rr(8, 2.0))
    assert a.epsilon == pytest.approx(b.epsilon, rel=1e-6)
    assert a.epsilon < shuffle_amplification(2.0, 1000, 1e-6).epsilon


def test_monotone_in_n_and_plain_ldp_at_one_user():
    values = [shuffle_amplification(2.0, n, 1e-6).epsilon for n in (10, 100, 1000, 10**4)]
    assert values == sorted(values, reverse=True)
    # n = 1: the pair is randomized response itself, whose epsilon at delta -> 0 is eps0
    assert shuffle_amplification(2.0, 1, 1e-9).epsilon == pytest.approx(2.0, abs=1e-6)
    rr = ldp.randomized_response(2.0)
    assert shuffle_delta(0.5, 2.0, 1) == pytest.approx(float(rr.delta(0.5)), rel=1e-9)


# ------------------------------------------------------------ T shuffled rounds
def test_one_round_through_the_pld_is_close_to_the_direct_sum():
    direct = shuffle_amplification(2.0, 1000, 1e-6).epsilon
    pld = shuffle_amplification(2.0, 1000, 1e-6, rounds=2).pld
    assert pld is not None
    one = shuffle_amplification(2.0, 1000, 1e-6, rounds=1).epsilon
    assert one == direct


def _product(pairs_p, pairs_q, t):
    p, q = pairs_p, pairs_q
    for _ in range(t - 1):
        p, q = np.outer(p, pairs_p).ravel(), np.outer(q, pairs_q).ravel()
    return p, q


@pytest.mark.parametrize("k,eps0,n,t", [(2, 1.0, 6, 2), (2, 2.0, 5, 3), (3, 1.0, 4, 2)])
def test_rounds_bound_is_above_exact_repeated_shuffling(k, eps0, n, t):
    pairs = exact_shuffled_krr(k, eps0, n)
    for delta in (1e-2, 1e-4):
        r = shuffle_amplification(eps0, n, delta, mechanism=ldp.k_rr(k, eps0), rounds=t)
        for p, q in pairs:
            keep = (p > 0) | (q > 0)
            pp, qq = _product(p[keep], q[keep], t)
            assert hockey(pp, qq, r.epsilon) <= delta


def test_rounds_compose_between_one_round_and_basic_composition():
    one = shuffle_amplification(2.0, 10**4, 1e-6).epsilon
    ten = shuffle_amplification(2.0, 10**4, 1e-6, rounds=10)
    assert one < ten.epsilon < 10 * one
    assert "Dong-Roth-Su (2022), Theorem 3.2" in ten.citation


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"epsilon0": 1.0, "n": 0, "delta": 1e-6}, "n"),
        ({"epsilon0": 0.0, "n": 10, "delta": 1e-6}, "epsilon0"),
        ({"epsilon0": -1.0, "n": 10, "delta": 1e-6}, "epsilon0"),
        ({"epsilon0": 1.0, "n": 10, "delta": 0.0}, "delta"),
        ({"epsilon0": 1.0, "n": 10, "delta": 1.0}, "delta"),
        ({"epsilon0": 1.0, "n": 10, "delta": 1e-6, "method": "hoeffding"}, "method"),
        ({"epsilon0": 1.0, "n": 10, "delta": 1e-6, "rounds": 0}, "rounds"),
    ],
)
def test_bad_input_names_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        shuffle_amplification(**kwargs)


def test_closed_form_outside_its_range_says_the_condition():
    with pytest.raises(ValueError, match=r"log\(n / \(16 log\(2/delta\)\)\)"):
        shuffle_amplification(4.0, 1000, 1e-6, method="closed-form")
    with pytest.raises(ValueError, match="epsilon0 must be >= the mechanism's epsilon"):
        shuffle_amplification(1.0, 1000, 1e-6, mechanism=ldp.k_rr(4, 2.0))
    with pytest.raises(TypeError, match="mechanism"):
        shuffle_amplification(1.0, 1000, 1e-6, mechanism="k-rr")


@pytest.mark.parametrize("eps0,n", [(0.5, 50), (2.0, 3000), (4.0, 10**5), (30.0, 300)])
def test_pld_of_the_clone_pair_is_above_the_direct_sum_and_close(eps0, n):
    from ldp.accounting.amplification.shuffle import clone_pair_pld

    p_c = 2 / (math.exp(eps0) + 1)
    pld = clone_pair_pld(eps0, n, p_c)
    for eps in np.linspace(0.001, min(eps0, 3.0), 7):
        direct = shuffle_delta(eps, eps0, n, p_c)
        value = float(pld.delta(eps))
        assert direct <= value * (1 + 1e-9) + 1e-15
        # losses move up by at most one lattice step (1e-4), masses by 1e-13
        assert value <= shuffle_delta(eps - 1e-4, eps0, n, p_c) * (1 + 1e-9) + 1e-12


def exact_shuffled_channel(matrix, n):
    """Every (victim pair, configuration) pair of output laws of n shuffled users of an
    arbitrary finite channel (rows = inputs), by enumeration: the exact mechanism."""
    rows = np.asarray(matrix)
    k_in, k_out = rows.shape
    pairs = []
    for config in itertools.product(range(n), repeat=k_in):
        if sum(config) != n - 1:
            continue
        s = np.zeros((n + 1,) * k_out)
        s[(0,) * k_out] = 1.0
        for value, count in enumerate(config):
            for _ in range(count):
                s = sum(rows[value, y] * _shift(s, y) for y in range(k_out))
        for x0, x1 in itertools.combinations(range(k_in), 2):
            p0 = sum(rows[x0, y] * _shift(s, y) for y in range(k_out))
            p1 = sum(rows[x1, y] * _shift(s, y) for y in range(k_out))
            pairs.append((p0.ravel(), p1.ravel()))
    return pairs


@pytest.mark.parametrize(
    "matrix",
    [
        [[0.7, 0.2, 0.1], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3]],
        [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.25, 0.25, 0.5]],
    ],
)
def test_matrix_clone_probability_holds_for_other_channels(matrix):
    """The clone probability read off a channel's matrix (beyond k-RR) against the exact
    shuffled profile of that channel."""
    ch = ldp.Channel(matrix)
    p_c = clone_probability(ch, ch.epsilon)
    assert p_c > math.exp(-ch.epsilon)  # the matrix allows more than the generic reduction
    for n in (3, 6, 9):
        pairs = exact_shuffled_channel(matrix, n)
        for eps in np.linspace(0.0, ch.epsilon, 6)[:-1]:
            exact = exact_delta(pairs, eps)
            assert exact <= shuffle_delta(eps, ch.epsilon, n, p_c) * (1 + 1e-12) + 1e-15
        r = shuffle_amplification(None, n, 1e-2, mechanism=ch)
        assert exact_delta(pairs, r.epsilon) <= 1e-2

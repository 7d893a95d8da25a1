"""Composition: exact finite channels, GDP, Ghazi-Issa (2023) Theorem 2 (against reference
tables computed independently)."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp import Channel, binary_erasure, k_rr, randomized_response
from ldp.accounting import (
    EpsDeltaEtaTradeOff,
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    PiecewiseLinearTradeOff,
    compose,
    compose_eps_delta_eta,
    edgeworth_tradeoff_approx,
    get_delta_from_gdp,
)

TH1 = math.tanh(0.5)


def _kov_mpmath(eps, n, eps_target):
    """KOV / binomial profile of n randomized responses (Dong-Roth-Su (2022), Section 2.2), at
    50 digits."""
    mpmath.mp.dps = 50
    e0, et = mpmath.mpf(eps), mpmath.mpf(eps_target)
    total = mpmath.mpf(0)
    for flips in range(n + 1):
        term = mpmath.exp((n - flips) * e0) - mpmath.exp(et + flips * e0)
        if term > 0:
            total += mpmath.binomial(n, flips) * term
    return float(total / (1 + mpmath.exp(e0)) ** n)


def test_ten_randomized_responses_headline():
    c = compose(randomized_response(1.0), 10)
    assert c.exact
    # KOV binomial sum (_kov_mpmath below, mpmath at 50 digits) at eps = 3 and eps = 0
    assert c.delta(3.0) == pytest.approx(0.61989180, abs=5e-9)
    assert c.tv == pytest.approx(0.86959746, abs=5e-9)  # _kov_mpmath at eps = 0 (computed)
    for eps in [0.0, 0.5, 3.0, 7.5]:
        assert c.delta(eps) == pytest.approx(_kov_mpmath(1.0, 10, eps), rel=1e-11, abs=1e-14)


def test_dong_roth_su_figure_5():
    c = compose(EpsDeltaTradeOff(1 / math.sqrt(10)), 10)
    # Dong-Roth-Su (2022) Figure 5 (the paper prints eps = 2.89 and a gap < 0.013); the values
    # recomputed exactly from the binomial likelihood ratio of 10 randomized responses (brentq
    # on the hockey stick, the Neyman-Pearson trade-off at six alphas, scipy)
    assert round(c.epsilon(1e-3), 4) == 2.8897
    # sup vertical gap to G_1 is 0.01229 (paper: < 0.013)
    x = np.linspace(0, 1, 20001)
    assert np.max(np.abs(c.tradeoff(x) - GaussianTradeOff(1.0)(x))) == pytest.approx(
        0.01229, abs=2e-5
    )
    np.testing.assert_allclose(
        c.tradeoff([0.01, 0.05, 0.1, 0.2, 0.3, 0.5]),
        [0.91599, 0.75041, 0.61875, 0.43053, 0.32648, 0.16309],
        atol=6e-6,
    )


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize(
    "channel",
    [k_rr(3, 0.8), binary_erasure(1.0, 0.0, 0.3), binary_erasure(0.7, 0.02, 0.25)],
    ids=["3rr", "erasure", "erasure-delta"],
)
def test_brute_force_product_of_symmetric_channels(channel, n):
    product = channel
    for _ in range(n - 1):
        product = product.product(channel)
    eps = np.array([0.0, 0.3, 0.8, 1.7, 3.0])
    got = compose(channel, n).delta(eps)
    np.testing.assert_allclose(got, product.delta(eps), atol=1e-12)


def test_asymmetric_channel_is_an_upper_bound(rng):
    for _ in range(3):
        ch = Channel(rng.dirichlet(np.ones(3), size=3))
        # the product channel's inputs are triples: a different pair at every report
        prod = ch.product(ch).product(ch)
        eps = np.array([0.0, 0.2, 0.5, 1.0])
        # the product channel's inputs are triples: a different pair at every report
        got = compose(ch, 3, adaptive=True).delta(eps)
        assert np.all(got >= prod.delta(eps) - 1e-12)
        assert np.all(compose(ch, 3).delta(eps) <= got + 1e-12)  # same input: smaller


def test_gaussian_composition_exact_and_mixed_bound():
    c = compose([GaussianTradeOff(0.6), GaussianTradeOff(0.8)])
    assert c.mu == pytest.approx(1.0) and c.exact
    # Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) at mu=1, eps=1 (closed form, scipy)
    assert c.delta(1.0) == pytest.approx(0.1269367, abs=1e-7)
    mixed = compose([GaussianTradeOff(1.0), EpsDeltaTradeOff(0.0)])  # Id adds nothing
    eps = np.array([0.0, 1.0, 2.0])
    exact = get_delta_from_gdp(1.0, eps)
    got = mixed.delta(eps)
    assert not mixed.exact
    assert np.all(got >= exact) and np.all(got - exact < 1e-3)


def test_heterogeneous_lists_and_trivia():
    c = compose([randomized_response(1.0), randomized_response(0.5), k_rr(3, 1.5)])
    assert c.exact and c.pld.interval == pytest.approx(0.5)
    prod = randomized_response(1.0).product(randomized_response(0.5))
    np.testing.assert_allclose(
        compose([randomized_response(1.0), randomized_response(0.5)]).delta([0.0, 0.7]),
        prod.delta([0.0, 0.7]),
        atol=1e-12,
    )
    with pytest.raises(TypeError):
        compose(prod)
    assert compose(randomized_response(1.0), 0).tv == 0.0
    assert compose([]).delta(0.0) == 0.0


@settings(max_examples=20)
@given(st.floats(0.05, 2.0), st.integers(1, 30), st.floats(0.0, 5.0))
def test_composition_monotone_in_n(eps, n, level):
    rr = randomized_response(eps)
    assert compose(rr, n + 1).delta(level) >= compose(rr, n).delta(level) - 1e-12


def test_user_curve_is_symmetrised_and_approx_refused():
    f = PiecewiseLinearTradeOff([0, 0.1, 1], [0.7, 0.2, 0])
    c = compose(f, 2)
    assert c.delta(0.0) <= f.tv + f.tv  # never worse than adding TVs
    approx = edgeworth_tradeoff_approx([-0.5, 1, 0, 0], [0.5, 1, 0, 0], 1)
    with pytest.raises(ValueError, match="approximation"):
        compose(approx, 2)
    with pytest.raises(ValueError, match="n must be >= 0"):
        compose(randomized_response(1.0), -1)
    with pytest.raises(TypeError, match=r"mechanisms\[0\]=.rr. \(str\) is not a privacy profile"):
        compose(["rr"])


# ------------------------------------------------- Ghazi-Issa (2023), Theorem 2 (exact)
def test_theorem2_deltas_at_the_fig4_parameters():
    c = compose_eps_delta_eta(1.0, 0.0, 0.7 * TH1, 5)
    # Ghazi-Issa (2023) eq. (5) with mpmath at 80 digits (_eq5_mpmath below), equal to a brute-force
    # hockey stick of the 5-fold product of the 3-point dominating pair of eq. (7);
    # the values are rounded up by a bound on their rounding error (a relative 1e-13)
    assert c.tv == pytest.approx(0.631089674853377, rel=1e-13)
    # the same eq. (5) values at j = 0..5 (mpmath, 80 digits; brute force agrees)
    np.testing.assert_allclose(
        c.deltas,
        [0.631089674853377, 0.432692978468984, 0.239344949120141, 0.0953725659205623,
         0.022184569426149, 0],
        rtol=1e-13, atol=1e-15,
    )  # fmt: skip
    kov = compose_eps_delta_eta(1.0, 0.0, None, 5).deltas
    # KOV, Ghazi-Issa (2023) eq. (6), as the binomial sum _kov_mpmath (mpmath, 50 digits)
    np.testing.assert_allclose(
        kov[[1, 3, 5]], [0.537101719760969, 0.180554628602783, 0], atol=1e-14
    )
    # KOV's TV: _kov_mpmath(1.0, 5, 0.0) (mpmath, 50 digits)
    assert compose_eps_delta_eta(1.0, 0.0, None, 5).tv == pytest.approx(0.751014957126, abs=1e-12)


def test_theorem2_deltas_for_laplace_eta_and_kov():
    eta = 1 - math.exp(-0.5)
    d = compose_eps_delta_eta(1.0, 0.0, eta, 10).deltas
    # Ghazi-Issa (2023) eq. (5) with mpmath at 80 digits (_eq5_mpmath below)
    np.testing.assert_allclose(
        d[[0, 1, 5, 9, 10]],
        [0.844283615916277, 0.753217825845638, 0.231900762868612, 0.00551962703450801, 0],
        atol=1e-14,
    )
    kov = compose_eps_delta_eta(1.0, 0.0, None, 10).deltas
    # KOV binomial sum _kov_mpmath (mpmath, 50 digits) at eps' = 0, 2, 4, 6, 8
    np.testing.assert_allclose(
        kov[[0, 2, 4, 6, 8]],
        [0.869597463185156, 0.6895367715462, 0.430577144529756, 0.18150445995031,
         0.0377024449799655],
        atol=1e-13,
    )  # fmt: skip


# Ghazi-Issa (2023) eq. (5) evaluated with mpmath at 80 digits (_eq5_mpmath below); the last
# entry of each row is the exact 1 - (1 - delta)^k
@pytest.mark.parametrize(
    ("params", "k", "js", "expected"),
    [
        ((0.5, 0.01, 0.1), 4, [0, 1, 2, 3, 4],
         [0.254209867019154, 0.110849011471987, 0.052859685082543, 0.0404810436735268,
          0.03940399]),
        ((0.1, 0.0, 0.02), 60, [0, 1, 10, 20, 30, 59, 60],
         [0.192914255506234, 0.154624501919899, 0.00581596155994679, 5.33999097145632e-6,
          7.17370414025625e-11, 2.14927974064628e-42, 0]),
        ((0.2, 1e-5, 0.05), 50, [0, 2, 10, 20, 25, 50],
         [0.382395719480165, 0.264611726259479, 0.0206706075608839, 0.00053429038518891,
          0.000500159161529733, 0.000499877519597697]),
        ((1.0, 0.1, 0.1), 3, [0, 1, 2, 3], [0.271] * 4),
    ],
)  # fmt: skip
def test_theorem2_deltas_with_delta_and_many_folds(params, k, js, expected):
    d = compose_eps_delta_eta(*params, k).deltas
    np.testing.assert_allclose(d[js], expected, rtol=1e-10, atol=1e-300)


def _eq5_mpmath(eps, delta, eta, k, j):
    """Ghazi-Issa (2023) eq. (5) literally, at 80 digits (independent of the log-space code)."""
    mpmath.mp.dps = 80
    e, d, h = mpmath.mpf(eps), mpmath.mpf(delta), mpmath.mpf(eta)
    big = mpmath.e**e
    a = 1 - (h - d) * (1 + big) / ((1 - d) * (big - 1))
    total = mpmath.mpf(0)
    for aa in range(k - j):
        for ell in range(-(-(k - j - aa) // 2)):
            total += (
                mpmath.binomial(k, aa) * mpmath.binomial(k - aa, ell)
                * ((1 - a) / (1 + big)) ** (k - aa) * a**aa
                * (mpmath.e ** ((k - ell - aa) * e) - mpmath.e ** ((ell + j) * e))
            )  # fmt: skip
    return 1 - (1 - d) ** k * (1 - total)


@pytest.mark.parametrize(("j"), [0, 7, 30, 59])
def test_recurrence_matches_mpmath_eq5(j):
    got = compose_eps_delta_eta(0.1, 0.0, 0.02, 60).deltas[j]
    assert got == pytest.approx(float(_eq5_mpmath(0.1, 0.0, 0.02, 60, j)), rel=1e-10)


def test_interpolation_table_g():
    c = compose_eps_delta_eta(1.0, 0.0, 0.7 * TH1, 3)
    # the k=3 grid values of eq. (5) (_eq5_mpmath), interpolated linearly in e^eps' (the hockey
    # stick is linear in gamma between privacy-loss atoms), computed with numpy.interp
    np.testing.assert_allclose(
        c.delta([0.25, 0.5, 0.75, 1.5, 2.2]),
        [0.471122732778671, 0.418675846454449, 0.351332711388016, 0.196848721262610,
         0.0737977103031315],
        atol=1e-14,
    )  # fmt: skip
    eps = c.epsilon(0.3)
    assert c.delta(eps) <= 0.3 + 1e-12 and 0.75 < eps < 1.5


def test_heterogeneous_table_i():
    c = compose_eps_delta_eta([1.0, 0.4, 2.0], [0.01, 0.0, 0.05], [0.3, 0.1, 0.6])
    assert c.exact
    # brute-force hockey stick of the product of the three 5-point dominating pairs of
    # Ghazi-Issa (2023) eqs. (43)-(44) (125 outcomes, numpy); 0.0595 = 1 - 0.99 * 0.95 exactly
    np.testing.assert_allclose(
        c.delta([0, 0.3, 1.0, 1.4, 2.5, 3.4]),
        [0.678328671774147, 0.629185511797958, 0.478749062058978, 0.396423464207943,
         0.174321689149442, 0.0595],
        atol=1e-13,
    )  # fmt: skip


def test_dp_sgd_pipeline_table_n():
    p, k = 256 / 60000, 3516
    eps1 = math.log1p(p * math.expm1(2.0))
    # 0.2994776059 = 2 Phi(1/2.6) - 1, the TV of 1/1.3-GDP (closed form, scipy). The pinned
    # values are the k-fold hockey stick computed independently: 1 - (1-delta)^k (1 - E) with E
    # the binomial sum over erasure and sign counts of the 3-point pair (scipy binom, exact)
    c = compose_eps_delta_eta(eps1, p * get_delta_from_gdp(1 / 1.3, 2.0), p * 0.2994776059, k)
    assert c.tv == pytest.approx(0.227256649, abs=1e-9)  # binomial sum above (computed)
    assert c.delta(1.19) == pytest.approx(0.0442902760, abs=1e-9)  # computed likewise, eps' = 1.19


def test_ordering_exact_le_thm2_le_kov():
    # exact Laplace composition <= Ghazi-Issa (2023) Thm 2 <= KOV; here via the staircase-free
    # check that Thm 2 with eta < eta_max is below KOV and that f_{eps,delta,eta}^{(x)k}
    # computed by the general PLD code agrees with the closed form
    thm2 = compose_eps_delta_eta(1.0, 0.0, 0.3, 4)
    kov = compose_eps_delta_eta(1.0, 0.0, None, 4)
    eps = np.linspace(0, 4, 9)
    assert np.all(thm2.delta(eps) <= kov.delta(eps) + 1e-15)
    general = compose(EpsDeltaEtaTradeOff(1.0, 0.0, 0.3), 4)
    np.testing.assert_allclose(general.delta(eps), thm2.delta(eps), atol=1e-13)


def test_eps_delta_eta_bad_input():
    with pytest.raises(ValueError, match="delta"):
        compose_eps_delta_eta(1.0, 1.5, 0.3, 3)
    with pytest.raises(ValueError, match="k must be >= 0"):
        compose_eps_delta_eta(1.0, 0.0, 0.3, -1)
    with pytest.raises(ValueError, match="epsilon"):
        compose_eps_delta_eta(-1.0, 0.0, 0.3, 3)
    assert compose_eps_delta_eta(0.0, 0.1, 0.5, 3).tv == pytest.approx(1 - 0.9**3)


def test_laplace_composition_within_independent_bracket():
    # bracket computed independently of the library (k = 5, eps = 1): exact Laplace composition
    # in [0.67850, 0.67877] at j = 0, below Ghazi-Issa (2023) Theorem 2
    c = compose(LaplaceTradeOff(1.0), 5, interval=1e-4)
    assert not c.exact
    lo = [0.67850, 0.31376, 0.052942]
    hi = [0.67877, 0.31405, 0.053031]
    got = c.delta([0.0, 2.0, 4.0])
    assert np.all(got >= np.array(lo)) and np.all(got <= np.array(hi) + 5e-4)
    thm2 = compose_eps_delta_eta(1.0, 0.0, 1 - math.exp(-0.5), 5)
    assert np.all(got <= thm2.delta([0.0, 2.0, 4.0]) + 5e-4)  # exact <= Thm 2
    assert compose(LaplaceTradeOff(1.0), 1, interval=1e-4).tv == pytest.approx(
        1 - math.exp(-0.5), abs=2e-4
    )


def test_theorem2_fold_cap_names_k():
    from ldp.accounting import compose_eps_delta_eta

    with pytest.raises(ValueError, match=r"k must be <= 100000"):
        compose_eps_delta_eta(1.0, 0.0, 0.1, 2**65)


def _rr_delta_mpmath(matrix, n, eps):
    """E_{e^eps}(K_0^n || K_1^n) of a 2 x 2 channel (binomial over the count of output 0)."""
    mpmath.mp.dps = 60
    p = [mpmath.mpf(float(v)) for v in matrix[0]]
    q = [mpmath.mpf(float(v)) for v in matrix[1]]
    p, q = [v / sum(p) for v in p], [v / sum(q) for v in q]
    gamma = mpmath.exp(mpmath.mpf(eps))
    total = mpmath.mpf(0)
    for k in range(n + 1):
        c = mpmath.binomial(n, k)
        total += max(c * p[0] ** k * p[1] ** (n - k) - gamma * c * q[0] ** k * q[1] ** (n - k), 0)
    return total


@pytest.mark.parametrize("adaptive", [False, True])
def test_composition_of_rr16_is_never_below_the_exact_profile(adaptive):
    """RR at eps = 16 (an output of probability 1e-7): delta just below n * 16 was 2e-4
    relative low (the loss lost digits through 1 - (1 - 1e-7))."""
    rr = randomized_response(16.0)
    for n in [1, 2, 3]:
        c = compose(rr, n, adaptive=adaptive)
        for eps in [16.0 * n - 1e-6, 16.0 * n - 1e-3, 15.999 * (n - 1) + 0.3, 0.0]:
            exact = _rr_delta_mpmath(rr.matrix, n, eps)
            assert mpmath.mpf(c.delta(eps)) >= exact


# ------------------------------------------------------------ same input vs adaptive
def _same_input_delta_mpmath(matrix, n, eps):
    """max over ordered input pairs of E_{e^eps}(K_x^n || K_x'^n), by the multinomial over
    output counts, at 60 digits (independent of the PLD code)."""
    import itertools

    mpmath.mp.dps = 60
    k, d = matrix.shape
    rows = []
    for row in matrix:
        r = [mpmath.mpf(float(v)) for v in row]
        rows.append([v / sum(r) for v in r])
    gamma = mpmath.exp(mpmath.mpf(eps))
    counts = [c for c in itertools.product(range(n + 1), repeat=d) if sum(c) == n]
    coef = [mpmath.factorial(n) / mpmath.fprod(mpmath.factorial(x) for x in c) for c in counts]
    best = mpmath.mpf(0)
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            total = mpmath.mpf(0)
            for c, w in zip(counts, coef):
                a = w * mpmath.fprod(rows[i][z] ** c[z] for z in range(d))
                b = w * mpmath.fprod(rows[j][z] ** c[z] for z in range(d))
                total += max(a - gamma * b, 0)
            best = max(best, total)
    return best


def _random_channel(seed, inputs, outputs, concentration=1.0):
    rng = np.random.default_rng(seed)
    return Channel(rng.dirichlet(np.full(outputs, concentration), size=inputs))


@pytest.mark.parametrize(("seed", "shape", "n"), [(0, (3, 3), 4), (1, (2, 3), 5), (2, (3, 2), 6)])
def test_same_input_composition_is_the_exact_max_over_pairs(seed, shape, n):
    ch = _random_channel(seed, *shape)
    c = compose(ch, n)
    assert c.kind == "same-input"
    for eps in [0.0, 0.3, 1.0, 2.5]:
        exact = _same_input_delta_mpmath(ch.matrix, n, eps)
        got = c.delta(eps)
        assert mpmath.mpf(got) >= exact
        assert got - float(exact) <= n * 1e-4  # each loss rounded up by < 1e-4
    eps = c.epsilon(0.05)
    assert _same_input_delta_mpmath(ch.matrix, n, eps) <= 0.05


def test_same_input_composition_against_dp_accounting():
    """3 x 4 channel, 20 reports: max over ordered pairs of dp-accounting's PLD of the rows."""
    from dp_accounting.pld import privacy_loss_distribution as dpl

    ch = _random_channel(5, 3, 4, concentration=8.0)
    n, h = 20, 1e-4
    ours = compose(ch, n)
    adaptive = compose(ch, n, adaptive=True)
    assert ours.kind == "same-input" and adaptive.kind == "adaptive"
    m = ch.matrix
    eps = np.array([0.5, 1.0, 2.0, 3.0])
    lower, upper = np.zeros(eps.size), np.zeros(eps.size)
    for i in range(3):
        for j in range(3):
            if i == j:
                continue
            for pessimistic, store in ((False, lower), (True, upper)):
                pld = dpl.from_two_probability_mass_functions(
                    dict(enumerate(np.log(m[j]))),
                    dict(enumerate(np.log(m[i]))),
                    pessimistic_estimate=pessimistic,
                    value_discretization_interval=h,
                ).self_compose(n)
                store[:] = np.maximum(store, [pld.get_delta_for_epsilon(e) for e in eps])
    got = ours.delta(eps)
    assert np.all(got >= lower) and np.all(got <= upper + 1e-9)
    # the adaptive worst case (a different input pair at every report) is larger here
    assert np.all(adaptive.delta(eps) >= got)
    assert adaptive.delta(1.0) > got[1] + 0.01


def test_kinds_are_reported():
    rr = randomized_response(1.0)
    assert compose(rr, 3).kind == "same-input"
    assert compose(rr, 3, adaptive=True).kind == "adaptive"
    assert compose([rr, rr]).kind == "adaptive"
    assert compose(EpsDeltaTradeOff(1.0), 3).kind == "adaptive"
    assert compose(GaussianTradeOff(1.0), 3).kind == "adaptive"
    assert "same input" in repr(compose(rr, 3))
    assert "adaptive" in repr(compose(rr, 3, adaptive=True))
    # for randomized response the worst pair is the same at every report: both agree
    np.testing.assert_allclose(
        compose(rr, 5).delta([0.0, 1.0, 3.0]),
        compose(rr, 5, adaptive=True).delta([0.0, 1.0, 3.0]),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match="adaptive"):
        compose([rr, rr], adaptive=False)
    with pytest.raises(TypeError, match="adaptive"):
        compose(rr, 3, adaptive="yes")


def test_near_lattice_channel_is_not_snapped_down():
    """A channel whose log-ratios are 2 + 1.5e-9 and -1: composed as exactly that."""
    l1 = 2 + 1.5e-9
    p2 = -math.expm1(-l1) / (math.exp(1.0) - math.exp(-l1))
    p = np.array([1.0 - p2, p2])
    ch = Channel([p, p * np.exp([-l1, 1.0])])
    assert not compose(ch, 3).exact  # the pair's losses are not commensurate
    for adaptive in (False, True):
        c = compose(ch, 3, adaptive=adaptive)
        for eps in [0.0, 1.5, 3.0, 5.5]:
            exact = _same_input_delta_mpmath(ch.matrix, 3, eps)
            assert mpmath.mpf(c.delta(eps)) >= exact


# ------------------------------------------------------------ trade-off curve of a PLD
def test_tradeoff_of_a_fine_lattice_needs_linear_memory():
    """compose(LaplaceTradeOff(3), 1).tradeoff asked for memory quadratic in the levels
    (26.8 GiB at the default interval); here 6000 levels, 290 MB quadratic."""
    import tracemalloc

    c = compose(LaplaceTradeOff(3.0), 1, interval=1e-3)
    tracemalloc.start()
    f = c.tradeoff
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 30e6
    x = np.linspace(0.0, 1.0, 2001)
    exact = LaplaceTradeOff(3.0)(x)
    assert np.all(f(x) <= exact + 1e-12)  # the rounded-up PLD gives a lower curve
    assert np.max(exact - f(x)) < 2e-3
    fine = compose(LaplaceTradeOff(3.0), 1).tradeoff  # the default interval, 60000 levels
    assert np.all(fine(x) <= exact + 1e-12) and np.max(exact - fine(x)) < 2e-4


def test_tradeoff_of_gaussian_and_rr_composition():
    """G_1 (x) f_{1,0}: it raised MemoryError; its curve's profile is the composition's."""
    c = compose([GaussianTradeOff(1.0), EpsDeltaTradeOff(1.0)])
    f = c.tradeoff
    eps = np.array([0.0, 0.5, 1.0, 2.0, 4.0])
    np.testing.assert_allclose(f.delta(eps), c.delta(eps), rtol=1e-9, atol=1e-12)
    # the exact profile: mix the Gaussian profile over the loss +-1 of randomized response
    e_one = math.exp(1.0)
    exact = (e_one * GaussianTradeOff(1.0).delta(eps - 1.0)
             + GaussianTradeOff(1.0).delta(eps + 1.0)) / (1 + e_one)  # fmt: skip
    assert np.all(c.delta(eps) >= exact) and np.all(c.delta(eps) - exact < 1e-3)


def test_tradeoff_of_a_same_input_composition_is_the_envelope_of_the_pairs():
    ch = _random_channel(0, 3, 3)
    c = compose(ch, 4)
    assert len(c.plds) > 1 and c.pld is None
    f = c.tradeoff
    for eps in [0.0, 0.4, 1.0, 2.0, 3.0]:
        # a valid curve: its profile bounds the exact one (the mirrored supporting lines
        # of the symmetric family can make it tighter than the composition's own delta)
        got = f.delta(eps)
        assert mpmath.mpf(got) >= _same_input_delta_mpmath(ch.matrix, 4, eps)
        assert abs(got - c.delta(eps)) < 4e-4  # 4 reports, losses rounded up by < 1e-4


def test_envelope_matches_the_quadratic_evaluation(rng):
    from ldp.accounting import get_tradeoff_from_profile

    x = np.linspace(0.0, 1.0, 2001)
    for _ in range(40):
        size = int(rng.integers(1, 40))
        eps = rng.uniform(0.0, 4.0, size=size)
        deltas = rng.uniform(0.0, 1.0, size=size)
        f = get_tradeoff_from_profile(eps, deltas)
        slopes = np.concatenate((-np.exp(eps), -np.exp(-eps)))
        intercepts = np.concatenate((1 - deltas, (1 - deltas) * np.exp(-eps)))
        brute = np.clip(np.max(slopes[None, :] * x[:, None] + intercepts[None, :], axis=1), 0, 1)
        np.testing.assert_allclose(f(x), brute, atol=1e-12)


def _brute_force_composed_delta(channel_matrix, n, level):
    """max over ordered input pairs of E_{e^level}(P^n || Q^n), by enumerating the
    multinomial counts of n reports over three outputs."""
    from math import comb, exp

    best = 0.0
    rows = channel_matrix.shape[0]
    for a in range(rows):
        for b in range(rows):
            if a == b:
                continue
            p, q = channel_matrix[a], channel_matrix[b]
            total = 0.0
            for i in range(n + 1):
                for j in range(n + 1 - i):
                    m = n - i - j
                    ways = comb(n, i) * comb(n - i, j)
                    pp = ways * p[0] ** i * p[1] ** j * p[2] ** m
                    qq = ways * q[0] ** i * q[1] ** j * q[2] ** m
                    total += max(pp - exp(level) * qq, 0.0)
            best = max(best, total)
    return best


def test_composition_too_large_for_memory_is_refused_up_front():
    rng = np.random.default_rng(3)
    channel = Channel(rng.dirichlet(np.full(3, 8.0), size=3))
    with pytest.raises(ValueError, match="MAX_POINTS"):
        compose(channel, 10**5)
    coarse = compose(channel, 50, interval=1e-2)  # a coarser lattice: still an upper bound
    for level in [0.5, 2.0, 5.0]:
        exact = _brute_force_composed_delta(channel.matrix, 50, level)
        assert exact <= coarse.delta(level) <= exact + 0.05


def test_a_mechanism_that_declares_itself_gdp_composes_in_closed_form():
    """compose asks the mechanism (gdp_mu) instead of checking for the Gaussian class."""
    from ldp.accounting import GaussianTradeOff
    from ldp.mechanisms import Gaussian, Laplace

    class DeclaredGaussian(Laplace):  # a stand-in that claims to be exactly 0.5-GDP
        def gdp_mu(self):
            return 0.5

    assert Laplace(1.0).gdp_mu() is None and Gaussian(0.3).gdp_mu() == Gaussian(0.3).mu
    assert compose(DeclaredGaussian(1.0), 4).mu == pytest.approx(1.0, rel=1e-15)  # 0.5 sqrt 4
    mixed = compose([DeclaredGaussian(1.0), GaussianTradeOff(1.2)])
    assert mixed.mu == pytest.approx(1.3, rel=1e-15)  # sqrt(0.25 + 1.44)
    assert compose(Gaussian(0.3), 4).mu == pytest.approx(2 * Gaussian(0.3).mu, rel=1e-15)
    # an undeclared mechanism still composes through its privacy channel
    assert compose(Laplace(1.0), 2).mu is None

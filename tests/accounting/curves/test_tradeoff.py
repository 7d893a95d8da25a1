"""Trade-off function objects and conversions (Dong-Roth-Su (2022), Section 2; Ghazi-Issa
(2023)), against reference values computed independently."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldp import Channel, binary_erasure, k_rr, randomized_response
from ldp.accounting import (
    EpsDeltaEtaTradeOff,
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    PiecewiseLinearTradeOff,
    check_tradeoff,
    get_delta_from_tradeoff,
    get_epsilon_from_tradeoff,
    get_mu_from_tradeoff,
    get_tradeoff_from_profile,
    symmetrize,
    tradeoff_from_channel,
    tradeoff_from_pair,
)
from tests.strategies import stochastic_matrices

ALPHAS = [0.01, 0.05, 0.1, 0.2, 0.3, 0.5]


def test_gaussian_oracles():
    np.testing.assert_allclose(
        GaussianTradeOff(1.0)(ALPHAS),
        [0.907638, 0.740489, 0.610856, 0.437079, 0.317180, 0.158655],
        atol=6e-7,
    )
    np.testing.assert_allclose(
        GaussianTradeOff(2.0)(ALPHAS),
        [0.627919, 0.361240, 0.236240, 0.123355, 0.070026, 0.022750],
        atol=6e-7,
    )
    for mu, x in [(0.5, 0.40129), (1, 0.30854), (3, 0.06681), (6, 0.00135)]:
        assert GaussianTradeOff(mu).fixed_point() == pytest.approx(x, abs=6e-6)


def test_laplace_and_eps_delta_oracles():
    np.testing.assert_allclose(
        LaplaceTradeOff(1.0)(ALPHAS),
        [0.972817, 0.864086, 0.728172, 0.459849, 0.306566, 0.183940],
        atol=6e-7,
    )
    np.testing.assert_allclose(
        EpsDeltaTradeOff(1.0, 0.01)(ALPHAS),
        [0.962817, 0.854086, 0.718172, 0.446344, 0.253837, 0.180261],
        atol=6e-7,
    )


def test_laplace_profile_matches_numeric_conjugate():
    f = LaplaceTradeOff(1.3)
    alpha = np.linspace(0, 1, 400001)
    for eps in [0.0, 0.4, 1.0, 1.29]:
        numeric = np.max(1 - f(alpha) - math.exp(eps) * alpha)
        assert f.delta(eps) == pytest.approx(numeric, abs=1e-6)
    assert f.fixed_point() == pytest.approx(float(f(f.fixed_point())), abs=1e-12)


def test_gaussian_profile_matches_numeric_conjugate():
    g = GaussianTradeOff(1.0)
    alpha = np.geomspace(1e-12, 1, 400001)
    for eps in [0.0, 1.0, 2.5]:
        numeric = np.max(1 - g(alpha) - math.exp(eps) * alpha)
        assert g.delta(eps) == pytest.approx(numeric, abs=1e-7)


def test_pair_tradeoff_is_neyman_pearson():
    # f_{0.7,0} (x) f_{0.3,0} (Dong-Roth-Su (2022), Section 3.3) breakpoints, from the 4-point
    # product
    a7, a3 = math.exp(0.7), math.exp(0.3)
    p = np.kron([a7 / (1 + a7), 1 / (1 + a7)], [a3 / (1 + a3), 1 / (1 + a3)])
    q = np.kron([1 / (1 + a7), a7 / (1 + a7)], [1 / (1 + a3), a3 / (1 + a3)])
    a, b = tradeoff_from_pair(p, q).vertices
    np.testing.assert_allclose(a, [0, 0.141205, 0.331812, 0.616165, 1], atol=6e-7)
    np.testing.assert_allclose(b, [1, 0.616165, 0.331812, 0.141205, 0], atol=6e-7)


def test_channel_tradeoff_worst_pair_and_krr_closed_form():
    eps, k = 1.3, 5
    f = tradeoff_from_channel(k_rr(k, eps))
    x = np.linspace(0, 1, 1001)
    e = math.exp(eps)
    closed = np.maximum(EpsDeltaTradeOff(eps)(x), 1 - (e - 1) / (e + k - 1) - x)  # §8
    np.testing.assert_allclose(f(x), closed, atol=1e-12)
    assert f.tv == pytest.approx(k_rr(k, eps).tv, abs=1e-12)
    assert f.is_symmetric


def test_worst_pair_is_lower_envelope_of_all_pairs(rng):
    m = Channel(rng.dirichlet(np.ones(4), size=3))
    f = tradeoff_from_channel(m)
    x = np.linspace(0, 1, 501)
    pairs = [tradeoff_from_channel(m, i, j)(x) for i in range(3) for j in range(3) if i != j]
    assert np.all(f(x) <= np.min(pairs, axis=0) + 1e-12)
    # its profile is the channel's exact profile (max over ordered pairs)
    eps = np.array([0.0, 0.1, 0.3, 0.7])
    np.testing.assert_allclose(f.delta(eps), m.delta(eps), atol=1e-12)


def test_eps_delta_eta_is_dominating_mechanism_roc():
    for eps, delta, eta in [(1.0, 0.0, 0.3), (0.5, 0.01, 0.1), (2.0, 0.05, 0.6)]:
        f = EpsDeltaEtaTradeOff(eps, delta, eta)
        g = tradeoff_from_channel(binary_erasure(eps, delta, eta), 0, 1)
        x = np.linspace(0, 1, 2001)
        np.testing.assert_allclose(f(x), g(x), atol=1e-12)
        assert f.tv == pytest.approx(eta, abs=1e-12)
        assert f.delta(eps) == pytest.approx(delta, abs=1e-12)


def test_eps_delta_profile_closed_form():
    f = EpsDeltaTradeOff(1.0, 0.05)
    e = math.e
    for eps in [0.0, 0.3, 0.99]:
        # delta(eps) = 1 + f*(-e^eps), Dong-Roth-Su (2022), §2.4
        expected = 0.05 + 0.95 * (e - math.exp(eps)) / (1 + e)
        assert f.delta(eps) == pytest.approx(expected, abs=1e-14)
    assert f.delta(2.0) == pytest.approx(0.05, abs=1e-15)
    assert f.epsilon(0.05) == pytest.approx(1.0, abs=1e-12)
    assert f.epsilon(0.01) == math.inf
    assert get_delta_from_tradeoff(f, 1.0) == f.delta(1.0)
    assert get_epsilon_from_tradeoff(f, 0.3) == f.epsilon(0.3)


def test_inverse_symmetrise_fixed_point():
    f = PiecewiseLinearTradeOff([0, 0.1, 1], [0.7, 0.2, 0])
    g = f.inverse()
    x = np.linspace(0, 1, 1001)
    # left-continuous inverse: g(a) = inf{t : f(t) <= a}
    brute = np.array([x[np.argmax(f(x) <= a + 1e-12)] for a in x])
    np.testing.assert_allclose(g(x), brute, atol=2e-3)
    assert g.inverse()(0.3) == pytest.approx(f(0.3))
    s = symmetrize(f)
    np.testing.assert_allclose(s(x), np.maximum(f(x), g(x)), atol=1e-12)
    np.testing.assert_allclose(s(x), s.inverse()(x), atol=1e-9)
    c = symmetrize(f, "convex_min")
    assert np.all(c(x) <= np.minimum(f(x), g(x)) + 1e-12)
    assert f.fixed_point() == pytest.approx(float(f(f.fixed_point())), abs=1e-12)
    assert EpsDeltaTradeOff(1.0, 0.01).fixed_point() == pytest.approx(0.99 / (1 + math.e))


def test_profile_conversion_roundtrip():
    f = get_tradeoff_from_profile([0.0, 0.5, 1.0, 2.0], [0.4, 0.2, 0.05, 0.001])
    assert f.is_symmetric
    for eps, d in [(0.5, 0.2), (1.0, 0.05), (2.0, 0.001)]:
        assert f.delta(eps) <= d + 1e-12


def test_mu_from_tradeoff():
    # RR at eps is binding at its vertex (x*, x*): mu = 2 Phi^{-1}(e^eps / (1 + e^eps))
    from scipy.stats import norm

    mu = get_mu_from_tradeoff(tradeoff_from_channel(randomized_response(1.0)))
    assert mu == pytest.approx(2 * norm.ppf(math.e / (1 + math.e)), rel=1e-12)
    g = GaussianTradeOff(mu)
    x = np.linspace(0, 1, 10001)
    assert np.all(g(x) <= EpsDeltaTradeOff(1.0)(x) + 1e-12)
    assert np.any(GaussianTradeOff(mu * 0.999)(x) > EpsDeltaTradeOff(1.0)(x))
    assert get_mu_from_tradeoff(EpsDeltaTradeOff(1.0, 0.01)) == math.inf


@st.composite
def curves(draw):
    kind = draw(st.sampled_from(["gauss", "lap", "epsdelta", "eta", "channel"]))
    if kind == "gauss":
        return GaussianTradeOff(draw(st.floats(0, 5)))
    if kind == "lap":
        return LaplaceTradeOff(draw(st.floats(0, 5)))
    if kind == "epsdelta":
        return EpsDeltaTradeOff(draw(st.floats(0, 5)), draw(st.floats(0, 0.5)))
    if kind == "eta":
        return EpsDeltaEtaTradeOff(
            draw(st.floats(0, 5)), draw(st.floats(0, 0.2)), draw(st.floats(0, 1))
        )
    return tradeoff_from_channel(Channel(draw(stochastic_matrices(max_inputs=4, max_outputs=4))))


@given(curves())
def test_tradeoff_properties(f):
    x = np.linspace(0, 1, 401)
    y = f(x)
    assert np.all(y <= 1 - x + 1e-12)
    assert np.all(np.diff(y) <= 1e-12)
    assert np.all(np.diff(y, 2) >= -1e-9)  # convex
    eps = np.linspace(0, 8, 33)
    d = f.delta(eps)
    assert np.all(np.diff(d) <= 1e-12)
    assert np.all((d >= 0) & (d <= 1))
    target = float(np.clip(d[4], 1e-12, 1))
    e = f.epsilon(target)
    assert math.isinf(e) or f.delta(e) <= target + 1e-9


@pytest.mark.parametrize(
    ("alphas", "values", "match"),
    [
        ([0, 0.5, 0.6, 1], [1, 0.45, 0.3, 0], "convex"),
        ([0, 0.5, 1], [0.8, 0.9, 0], "non-increasing"),
        ([0, 0.5, 1], [1, 0.6, 0], "1 - alpha"),
        ([0, 0.5, 0.5, 1], [1, 0.4, 0.3, 0], "strictly increasing"),
        ([0.1, 0.5, 1], [0.8, 0.3, 0], "start at 0"),
        ([0, 0.5, 1], [1, -0.2, 0], r"\[0, 1\]"),
    ],
)
def test_bad_user_curves(alphas, values, match):
    with pytest.raises(ValueError, match=match):
        PiecewiseLinearTradeOff(alphas, values)
    with pytest.raises(ValueError, match=match):
        check_tradeoff(alphas, values)


def test_bad_parameters():
    with pytest.raises(ValueError, match="mu"):
        GaussianTradeOff(-1.0)
    with pytest.raises(ValueError, match="delta"):
        EpsDeltaTradeOff(1.0, 1.5)
    with pytest.raises(ValueError, match="alpha"):
        GaussianTradeOff(1.0)(1.5)
    with pytest.raises(TypeError, match="Channel"):
        tradeoff_from_channel([[1.0]])
    with pytest.raises(ValueError, match="method"):
        symmetrize(EpsDeltaTradeOff(1.0), "min")


def _hockey_stick_mpmath(p, q, eps):
    """E_{e^eps}(Q || P) = sum (q - e^eps p)_+ of the float rows, normalised exactly."""
    import mpmath

    mpmath.mp.dps = 60
    p = [mpmath.mpf(float(v)) for v in p]
    q = [mpmath.mpf(float(v)) for v in q]
    sp, sq = sum(p), sum(q)
    gamma = mpmath.exp(mpmath.mpf(eps))
    return sum(max(b / sq - gamma * a / sp, 0) for a, b in zip(p, q))


def test_channel_curve_vertices_are_rounded_outward():
    """Outputs of probability 1e-12..1e-6: the profile of the worst-case curve just below
    the largest loss was up to a relative 1e-10 low (1 - cumsum lost the small tail)."""
    import mpmath

    rng = np.random.default_rng(0)
    for _ in range(40):
        small = 10 ** rng.uniform(-12, -6, size=2)
        m = np.array(
            [
                [1 - small[0], small[0]],
                [small[1] * rng.uniform(0.5, 2), 1 - small[1] * rng.uniform(0.5, 2)],
            ]
        )
        ch = Channel(m / m.sum(axis=1, keepdims=True))
        f = tradeoff_from_channel(ch)
        rows = ch.matrix
        top = float(np.max(np.abs(np.log(rows[0] / rows[1]))))
        for eps in [top - 1e-6, top - 1e-2, 0.0]:
            exact = max(
                _hockey_stick_mpmath(rows[0], rows[1], eps),
                _hockey_stick_mpmath(rows[1], rows[0], eps),
            )
            assert mpmath.mpf(f.delta(eps)) >= exact
            pair = tradeoff_from_pair(rows[0], rows[1])
            assert mpmath.mpf(pair.delta(eps)) >= _hockey_stick_mpmath(rows[0], rows[1], eps)


def test_closed_forms_are_rounded_outward():
    """mu of randomized response, the Laplace profile and its inverse: never on the wrong
    side of the exact value (they were rounded to nearest: about half of them were low)."""
    import mpmath

    mpmath.mp.dps = 40
    for eps in np.linspace(0.01, 20.0, 60):
        mu = get_mu_from_tradeoff(EpsDeltaTradeOff(float(eps)))
        big = mpmath.exp(mpmath.mpf(float(eps)))
        exact = -2 * mpmath.sqrt(2) * mpmath.erfinv(2 / (1 + big) - 1)  # 2 Phi^-1(e/(1+e))
        assert mpmath.mpf(mu) >= exact and float((mu - exact) / exact) < 1e-12
    for theta in [0.5, 1.0, 3.0]:
        f = LaplaceTradeOff(theta)
        for eps in np.linspace(0.0, 0.9 * theta, 25):
            exact = 1 - mpmath.exp((mpmath.mpf(float(eps)) - theta) / 2)
            got = f.delta(float(eps))
            assert mpmath.mpf(got) >= exact and float((got - exact) / exact) < 1e-12
        for d in [0.5, 0.1, 1e-3, 1e-9]:
            exact = theta + 2 * mpmath.log1p(-mpmath.mpf(d))
            got = f.epsilon(d)
            assert mpmath.mpf(got) >= exact and float((got - exact) / exact) < 1e-12


def test_a_profile_with_levels_beyond_a_double_gives_a_valid_curve_without_warnings():
    """Lines with e^eps beyond a double are left out: the curve is lower (still valid) and no
    overflow reaches the user (with warnings as errors this would raise)."""
    from ldp.accounting import get_tradeoff_from_profile

    levels = np.array([0.0, 1.0, 800.0])
    deltas = np.array([0.5, 0.3, 0.0])
    f = get_tradeoff_from_profile(levels, deltas)
    kept = get_tradeoff_from_profile(levels[:2], deltas[:2])
    a = np.linspace(0.0, 1.0, 101)
    np.testing.assert_allclose(f(a), kept(a))


def test_gdp_level_of_a_nearly_revealing_composition_is_not_zero():
    """100 reports of randomized response at eps = 30 are nearly revealing: the GDP level
    must not read 0 (no privacy loss); a curve that jumps at a = 0 gives inf."""
    import ldp
    from ldp.accounting import compose, get_mu_from_tradeoff

    mu = get_mu_from_tradeoff(compose(ldp.k_rr(2, 30.0), 100).tradeoff)
    assert mu > 10.0
    jump = PiecewiseLinearTradeOff.from_points([0.0, 0.0, 1.0], [1.0, 0.0, 0.0])
    assert get_mu_from_tradeoff(jump) == math.inf
    assert get_mu_from_tradeoff(PiecewiseLinearTradeOff([0.0, 1.0], [1.0, 0.0])) == 0.0


@pytest.mark.parametrize("mu", [0.1, 1.0, 3.0])
def test_generic_fixed_point_is_the_last_double_at_or_above_the_diagonal(mu):
    """The generic fixed point (a bisection, before: ``brentq`` with ``rtol=4e-16``, which
    scipy refuses, so every curve without a closed form raised) returns the fixed point from
    below: ``f(x) >= x`` and ``f(x') < x'`` at the next double, as evaluated."""
    from ldp.accounting import tradeoff_summary
    from ldp.accounting.curves.tradeoff_base import TradeOffFunction, _InverseTradeOff

    for f in (GaussianTradeOff(mu), LaplaceTradeOff(mu), _InverseTradeOff(LaplaceTradeOff(mu))):
        x = TradeOffFunction.fixed_point(f)
        after = math.nextafter(x, 1.0)
        assert float(f(x)) >= x and float(f(after)) < after
    closed = GaussianTradeOff(mu).fixed_point()
    assert TradeOffFunction.fixed_point(GaussianTradeOff(mu)) == pytest.approx(closed, rel=1e-14)
    mu_star, _ = tradeoff_summary(_InverseTradeOff(GaussianTradeOff(mu)))
    assert mu_star == pytest.approx(mu, rel=1e-12)

"""Delta-divergence, approximate GDP, Blackwell order and the worst-case adaptive profile.

Reference values are those of Tran-Koskela-Räisä-Honkela (2025) (the calibration point
gamma_0 of Example 3.3 and the Theorem B.1 bound there) or recomputed independently here:
the Delta-divergence by bisection on its trade-off definition, profiles of tensor products
by direct quadrature, the adaptive profile by Monte Carlo.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from ldp.accounting import (
    BlackwellComparison,
    GaussianTradeOff,
    approx_gdp_delta,
    approx_gdp_distance,
    blackwell_compare,
    delta_divergence,
    is_approx_gdp,
    is_blackwell_chain,
    worst_case_adaptive_profile,
)
from ldp.accounting.central import SubsampledGaussianTradeOff, subsampled_gaussian_remove_profile


def _tradeoff_form(f, g) -> float:
    """min D with f(a + D) - D <= g(a) and g(a + D) - D <= f(a) on a fine grid, by bisection."""
    a = np.linspace(0.0, 1.0, 200001)

    def ok(d: float) -> bool:
        x = a[a <= 1.0 - d]
        return bool(np.all(f(x + d) - d <= g(x) + 1e-12) and np.all(g(x + d) - d <= f(x) + 1e-12))

    lo, hi = 0.0, 0.5
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


@pytest.mark.parametrize(("mu_f", "mu_g", "expected"), [(1.0, 1.2, 0.034284), (0.5, 2.0, 0.242638)])
def test_delta_divergence_gaussians(mu_f, mu_g, expected):
    f, g = GaussianTradeOff(mu_f), GaussianTradeOff(mu_g)
    d = delta_divergence(f, g)
    assert d == pytest.approx(expected, abs=1e-6)
    assert d == pytest.approx(_tradeoff_form(f, g), abs=1e-5)
    assert delta_divergence(g, f) == pytest.approx(d, abs=1e-12)
    assert delta_divergence(f, f) == 0.0


def test_delta_divergence_subsampled_against_tradeoff_form():
    f, g = SubsampledGaussianTradeOff(0.3, 2.0), GaussianTradeOff(0.8)
    assert delta_divergence(f, g) == pytest.approx(_tradeoff_form(f, g), abs=2e-5)


def test_delta_divergence_example_c5():
    # H_n(gamma) = [1 - gamma/n]_+ against H = 1: Delta = 1/(1 + n), sup-distance 1
    for n in (1, 5, 50):
        d = delta_divergence(lambda g, n=n: np.maximum(1 - g / n, 0.0), np.ones_like)
        assert d == pytest.approx(1 / (1 + n), rel=1e-6)


def test_approx_gdp_definition():
    f = GaussianTradeOff(1.2)
    d = approx_gdp_distance(f, 1.0)
    assert d == pytest.approx(0.034284, abs=1e-6)
    a = np.linspace(0.0, 1.0, 20001)
    g = GaussianTradeOff(1.0)
    # Definition 2.7 holds with d and fails with a smaller D
    lower, upper = a <= 1 - d, a >= d
    assert np.all(g(a[lower] + d) - d <= f(a[lower]) + 1e-9)
    assert np.all(f(a[upper]) <= g(a[upper] - d) + d + 1e-9)
    dd = 0.9 * d
    assert not np.all(g(a[a <= 1 - dd] + dd) - dd <= f(a[a <= 1 - dd]))
    assert is_approx_gdp(f, 1.0, d + 1e-6) and not is_approx_gdp(f, 1.0, 0.9 * d)


def test_approx_gdp_delta_is_a_consequence():
    f = SubsampledGaussianTradeOff(0.5, 1.5)
    mu = 0.9
    d = approx_gdp_distance(f, mu)
    eps = np.linspace(-3.0, 6.0, 301)
    assert np.all(f.delta(eps) <= approx_gdp_delta(mu, d, eps) + 1e-9)
    by_hand = norm.cdf(-1 / 1 + 0.5) - math.e * norm.cdf(-1 - 0.5) + 0.001 * (1 + math.e)
    assert approx_gdp_delta(1.0, 0.001, 1.0) == pytest.approx(by_hand, rel=1e-9)
    assert approx_gdp_delta(1.0, 0.5, 5.0) == 1.0


def test_blackwell_gaussians():
    g1, g2 = GaussianTradeOff(1.0), GaussianTradeOff(2.0)
    assert blackwell_compare(g1, g2).order == "ge"
    assert blackwell_compare(g2, g1).order == "le"
    r = blackwell_compare(g1, GaussianTradeOff(1.0))
    assert r.order == "equal" and r.max_gap == 0.0 and r
    assert isinstance(r, BlackwellComparison)


def test_two_step_crossing():
    # Gaussian mu = 2 against SG(q = 0.3, mu = 10): one crossing at gamma_c = 8.9663
    r = blackwell_compare(GaussianTradeOff(2.0), SubsampledGaussianTradeOff(0.3, 10.0))
    assert r.order is None and not r
    assert len(r.calibration_points) == 1
    assert r.calibration_points[0] == pytest.approx(8.9663, abs=2e-3)


def _sg_product(q, mu_a, mu_b):
    """(H_{SG,q,mu_a} (x) H_{SG,q,mu_b})(gamma) = E_{y~P}[H_b(gamma q(y)/p(y))], quadrature."""
    y = np.linspace(-9.0, mu_a + 9.0, 601)
    w = np.full(y.size, y[1] - y[0])
    w[0] = w[-1] = w[0] / 2
    p = (1 - q) * norm.pdf(y) + q * norm.pdf(y, mu_a)
    ratio = norm.pdf(y) / p

    def h(gamma):
        g = np.asarray(gamma, dtype=float)
        inner = subsampled_gaussian_remove_profile(q, mu_b, (g.ravel()[:, None] * ratio).ravel())
        return (inner.reshape(g.size, y.size) @ (w * p)).reshape(g.shape)

    return h


@pytest.fixture(scope="module")
def example_33():
    return _sg_product(0.5, 2.25, 2.25), _sg_product(0.5, 0.1, 10.0)


@pytest.mark.slow
def test_example_33_calibration_point(example_33):
    a, b = example_33
    r = blackwell_compare(a, b)
    assert r.order is None
    inside = [x for x in r.calibration_points if 0.51 < x < 1e4]
    assert len(inside) == 1 and inside[0] == pytest.approx(1.36333, abs=2e-3)


@pytest.mark.slow
def test_example_33_worst_case_profile(example_33):
    a, b = example_33
    first = SubsampledGaussianTradeOff(0.5, 1.3)
    gamma0 = 1.36333
    worst = worst_case_adaptive_profile(first, [a, b], gamma0)
    assert worst == pytest.approx(0.560630, abs=5e-4)
    # above both non-adaptive compositions (0.537365 and 0.537260): Corollary B.4
    for h in (a, b):
        assert worst - worst_case_adaptive_profile(first, [h], gamma0) > 0.02


def test_worst_case_profile_monte_carlo():
    # first step N(1.5, 1) vs N(0, 1); the rule argmax_k H_k(gamma q1/p1) realised by sampling
    cands = [GaussianTradeOff(2.0), SubsampledGaussianTradeOff(0.3, 10.0)]
    gamma = math.exp(3.5)
    rng = np.random.default_rng(7)
    y = rng.normal(1.5, 1.0, 400_000)
    probe = gamma * np.exp(-1.5 * y + 1.125)
    values = np.maximum(
        cands[0].delta(np.log(probe)), subsampled_gaussian_remove_profile(0.3, 10.0, probe)
    )
    mc, se = values.mean(), values.std() / math.sqrt(y.size)
    got = worst_case_adaptive_profile(GaussianTradeOff(1.5), cands, gamma)
    assert abs(got - mc) < 4 * se
    assert got == pytest.approx(0.387816, abs=2e-4)
    # a single Gaussian candidate composes to G_2.5 (Gaussian closure)
    alone = worst_case_adaptive_profile(GaussianTradeOff(1.5), cands[:1], gamma)
    assert alone == pytest.approx(float(GaussianTradeOff(2.5).delta(3.5)), abs=1e-6)


def test_chains():
    assert is_blackwell_chain([GaussianTradeOff(m) for m in (0.0, 0.5, 1.0, 3.0)])
    # for a fixed q the subsampled Gaussians are ordered in mu
    assert is_blackwell_chain([SubsampledGaussianTradeOff(0.5, m) for m in (0.1, 1.0, 2.25, 10.0)])
    assert not is_blackwell_chain([GaussianTradeOff(2.0), SubsampledGaussianTradeOff(0.3, 10.0)])
    assert is_blackwell_chain([])


def test_bad_input():
    g = GaussianTradeOff(1.0)
    with pytest.raises(TypeError, match="f"):
        delta_divergence("x", g)
    with pytest.raises(ValueError, match="mu"):
        approx_gdp_distance(g, -1.0)
    with pytest.raises(ValueError, match="distance"):
        is_approx_gdp(g, 1.0, 2.0)
    with pytest.raises(ValueError, match="distance"):
        approx_gdp_delta(1.0, float("nan"), 1.0)
    with pytest.raises(ValueError, match="candidates"):
        worst_case_adaptive_profile(g, [], 1.0)
    with pytest.raises(TypeError, match="first"):
        worst_case_adaptive_profile(SubsampledGaussianTradeOff(0.5, 1.0).add, [g], 1.0)
    with pytest.raises(ValueError, match="gamma"):
        worst_case_adaptive_profile(g, [g], -1.0)
    with pytest.raises(ValueError, match="tol"):
        blackwell_compare(g, g, tol=-1.0)
    with pytest.raises(ValueError, match="g must"):
        delta_divergence(g, lambda x: np.full_like(x, np.nan))

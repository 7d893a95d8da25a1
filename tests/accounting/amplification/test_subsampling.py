"""Subsampling (Dong-Roth-Su (2022), Section 4; Ghazi-Issa (2023), Proposition 1) and
Poisson-subsampled Gaussian accounting."""

import math
import time

import numpy as np
import pytest

from ldp import k_rr
from ldp.accounting import (
    EpsDeltaTradeOff,
    GaussianTradeOff,
    subsample_eps_delta,
    subsample_eps_delta_eta,
    subsample_tradeoff,
    subsampled_eps_delta_tradeoff,
    tradeoff_from_channel,
)
from ldp.accounting.central import PoissonSubsampledGaussian, noisy_sgd_mu_clt_approx


def test_cp_gaussian_oracle_fig6_left():
    c = subsample_tradeoff(GaussianTradeOff(1.8), 0.35)
    # Dong-Roth-Su (2022) eq. (14) for G_1.8 and p = 0.35 (their Fig. 6 left), evaluated with
    # scipy: the fixed point x* = 0.184060 by brentq, f_p(x*) = 0.594782, C_p at 4 points
    np.testing.assert_allclose(
        c([0.01, 0.1, 0.3, 0.5]), [0.888737, 0.690725, 0.478842, 0.278842], atol=6e-7
    )
    x = GaussianTradeOff(1.8).fixed_point()
    assert x == pytest.approx(0.184060, abs=1e-6)  # brentq on G(x) = x (scipy)
    assert c.fixed_point() == pytest.approx((0.184060 + 0.594782) / 2, abs=1e-6)  # eq. (14)


def test_cp_closed_form_agrees_with_biconjugate_route():
    # eq. (14) for G_mu vs the biconjugate of a fine piecewise-linear G_mu from below
    alpha = np.linspace(0, 1, 20001)
    from ldp.accounting import PiecewiseLinearTradeOff

    g = GaussianTradeOff(1.0)
    pl = PiecewiseLinearTradeOff._trusted(alpha, g(alpha))
    a = subsample_tradeoff(pl, 0.3)
    b = subsample_tradeoff(g, 0.3)
    x = np.linspace(0, 1, 997)
    assert np.max(np.abs(a(x) - b(x))) < 2e-4
    # the exact profile identity of the closed form vs the biconjugate's vertex profile
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    np.testing.assert_allclose(b.delta(eps), a.delta(eps), atol=2e-4)


def test_subsampled_line_uses_the_corrected_intercept():
    eps, delta, p = 3.0, 0.1, 0.2
    eps1, d1 = subsample_eps_delta(eps, delta, p)
    # log(1 - p + p e^eps) and p delta (closed form, computed)
    assert (round(eps1, 6), round(d1, 6)) == (1.572174, 0.02)
    closed = subsampled_eps_delta_tradeoff(eps, delta, p)
    biconj = subsample_tradeoff(EpsDeltaTradeOff(eps, delta), p)
    x = np.linspace(0, 1, 5001)
    np.testing.assert_allclose(closed(x), biconj(x), atol=1e-12)  # corrected form is exact
    e = math.exp(eps)
    printed = 1 - p * delta - p * (e - 1) / (e + 1)  # Dong-Roth-Su (2022), Cor 4.3 as printed
    correct = 1 - p * (e - 1 + 2 * delta) / (e + 1)
    assert printed == pytest.approx(0.798970, abs=1e-6)  # both closed forms computed by hand
    assert correct == pytest.approx(0.817073, abs=1e-6)  # closed form: 0.8170733 (computed)
    assert 1 - closed.tv == pytest.approx(correct, abs=1e-12)
    # the printed curve is valid but looser: never above the true C_p
    printed_curve = np.maximum(EpsDeltaTradeOff(eps1, d1)(x), np.clip(printed - x, 0, None))
    assert np.all(printed_curve <= closed(x) + 1e-12)
    assert np.max(closed(x) - printed_curve) == pytest.approx(0.0181, abs=2e-4)


def test_krr_is_subsampled_rr():
    # k-RR(eps) = C_p(f_{eps0,0}), e^eps0 = e^eps + k - 2 (subsampling as in Dong-Roth-Su (2022))
    eps, k = 1.0, 4
    e = math.exp(eps)
    c = subsample_tradeoff(EpsDeltaTradeOff(math.log(e + k - 2)), (e - 1) / (e + k - 3))
    x = np.linspace(0, 1, 2001)
    np.testing.assert_allclose(c(x), tradeoff_from_channel(k_rr(k, eps))(x), atol=1e-12)


def test_prop1_and_edges():
    # Ghazi-Issa (2023) Proposition 1: (log(1 + p(e - 1)), p delta, p eta), computed by hand
    assert subsample_eps_delta_eta(1.0, 0.01, 0.3, 0.1) == pytest.approx(
        (0.158565, 0.001, 0.03), abs=1e-6
    )
    x = np.linspace(0, 1, 11)
    np.testing.assert_allclose(subsample_tradeoff(GaussianTradeOff(1.0), 0.0)(x), 1 - x, atol=1e-9)
    np.testing.assert_allclose(
        subsample_tradeoff(EpsDeltaTradeOff(1.0), 1.0)(x), EpsDeltaTradeOff(1.0)(x), atol=1e-12
    )
    with pytest.raises(ValueError, match="p must be <= 1"):
        subsample_tradeoff(GaussianTradeOff(1.0), 1.5)
    with pytest.raises(ValueError, match="p must be >= 0"):
        subsample_eps_delta(1.0, 0.0, -0.1)


def test_drs_clt_oracle():
    # Dong-Roth-Su (2022) Corollary 5.4, p sqrt(2 T (e^{mu^2} Phi(1.5 mu) + 3 Phi(-mu/2) - 2)) at
    # sigma = 1, p = 0.05, T = 400, computed with scipy
    assert noisy_sgd_mu_clt_approx(1.0, 0.05, 400) == pytest.approx(1.71014, abs=1e-5)
    # Dong-Roth-Su (2022), Section 5.2 CLT at the MNIST settings of their Fig. 7: sigma 1.1,
    # 15 epochs of 60000 / 256 (value computed independently, not printed in the paper)
    assert noisy_sgd_mu_clt_approx(1.1, 256 / 60000, 3516) == pytest.approx(0.3687, abs=1e-4)


def test_poisson_sgd_bound_is_tight_and_certified():
    """q = 0.01, sigma = 1, 1000 steps, delta = 1e-5: between dp-accounting's optimistic
    estimate and prv-accountant's certified upper bound 1.83824 (the pessimistic lattice
    gave 1.8532, 1.4% loose), next to dp-accounting's connect-the-dots value, in < 1 s."""
    from dp_accounting.pld import privacy_loss_distribution as dpl

    sgd = PoissonSubsampledGaussian(0.01, 1.0, 1000)
    start = time.perf_counter()
    eps = sgd.epsilon(1e-5)
    elapsed = time.perf_counter() - start
    optimistic = (
        dpl.from_gaussian_mechanism(
            1.0,
            sampling_prob=0.01,
            pessimistic_estimate=False,
            use_connect_dots=False,
            value_discretization_interval=1e-4,
        )
        .self_compose(1000)
        .get_epsilon_for_delta(1e-5)
    )
    assert optimistic <= eps <= 1.83824  # prv-accountant's certified bound (another library)
    connect_dots = (
        dpl.from_gaussian_mechanism(1.0, sampling_prob=0.01, value_discretization_interval=1e-3)
        .self_compose(1000)
        .get_epsilon_for_delta(1e-5)
    )
    assert eps == pytest.approx(connect_dots, abs=1e-3)
    assert sgd.delta(eps) <= 1e-5
    assert elapsed < 2.0  # about 0.4 s on one core
    clt = sgd.epsilon_clt_approx(1e-5)
    assert sgd.mu_clt_approx == pytest.approx(0.01 * math.sqrt(1000 * math.expm1(1.0)))
    assert clt == pytest.approx(1.618, abs=1e-3)  # GDP closed form inverted by brentq (scipy)
    assert clt < eps - 0.1  # the CLT under-states epsilon: not a bound


def _sg_remove_profile_mpmath(q, mu, eps):
    """E_{e^eps}((1-q) N(0,1) + q N(mu,1) || N(0,1)), closed form at 60 digits: the
    integrand is positive for y > y*, e^eps = 1 - q + q e^{mu y* - mu^2/2}."""
    import mpmath

    mpmath.mp.dps = 60
    q, mu, gamma = mpmath.mpf(q), mpmath.mpf(mu), mpmath.exp(mpmath.mpf(eps))
    if gamma <= 1 - q:
        return 1 - gamma
    y = (mpmath.log((gamma - 1 + q) / q) + mu * mu / 2) / mu
    return (1 - q) * mpmath.ncdf(-y) + q * mpmath.ncdf(mu - y) - gamma * mpmath.ncdf(-y)


def _sg_add_profile_mpmath(q, mu, eps):
    """E_{e^eps}(N(0,1) || (1-q) N(0,1) + q N(mu,1)): positive for y < y' where
    1 - e^eps (1 - q) = e^eps q e^{mu y' - mu^2/2}; zero once e^eps (1 - q) >= 1."""
    import mpmath

    mpmath.mp.dps = 60
    q, mu, gamma = mpmath.mpf(q), mpmath.mpf(mu), mpmath.exp(mpmath.mpf(eps))
    rest = 1 - gamma * (1 - q)
    if rest <= 0:
        return mpmath.mpf(0)
    y = (mpmath.log(rest / (gamma * q)) + mu * mu / 2) / mu
    return rest * mpmath.ncdf(y) - gamma * q * mpmath.ncdf(y - mu)


def test_connect_the_dots_step_is_exact_at_the_lattice_and_above_between():
    import mpmath

    q, sigma, h = 0.3, 0.5, 1e-3
    remove, add = PoissonSubsampledGaussian(q, sigma, 1, interval=h).step_plds()
    for k in [0, 150, 300, 500, 1000, 2000, 4000]:
        eps = k * h
        exact = _sg_remove_profile_mpmath(q, 1 / sigma, eps)
        got = remove.delta(eps)
        assert mpmath.mpf(got) >= exact and float((got - exact) / exact) < 1e-9
        exact_add = _sg_add_profile_mpmath(q, 1 / sigma, eps)
        got_add = add.delta(eps)
        assert mpmath.mpf(got_add) >= exact_add
        if exact_add > 0:
            assert float((got_add - exact_add) / exact_add) < 1e-9
        else:  # eps >= -log(1 - q): no output is e^eps times likelier without the record
            assert got_add < 1e-15
    for eps in [0.0004, 0.3337, 1.2345, 3.0001]:  # between lattice points: above, close
        exact = _sg_remove_profile_mpmath(q, 1 / sigma, eps)
        got = remove.delta(eps)
        assert mpmath.mpf(got) >= exact and float(got - exact) < 1e-7


def test_single_step_profile_matches_closed_form():
    from ldp.accounting.central import subsampled_gaussian_remove_profile

    sgd = PoissonSubsampledGaussian(0.3, 0.5, 1, interval=1e-4)
    remove, _ = sgd.step_plds()
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    exact = subsampled_gaussian_remove_profile(0.3, 2.0, np.exp(eps))
    got = remove.delta(eps)
    assert np.all(got >= exact - 1e-12) and np.all(got - exact < 1e-3)


def test_poisson_sgd_bad_input():
    with pytest.raises(ValueError, match="q"):
        PoissonSubsampledGaussian(1.5, 1.0, 10)
    with pytest.raises(ValueError, match="sigma"):
        PoissonSubsampledGaussian(0.1, 0.0, 10)
    with pytest.raises(ValueError, match="steps"):
        PoissonSubsampledGaussian(0.1, 1.0, -1)


def test_amplification_by_subsampling_is_rounded_up():
    import mpmath

    mpmath.mp.dps = 40
    for eps in np.linspace(0.01, 10.0, 40):
        for p in [0.01, 0.3, 0.9]:
            eps1, d1 = subsample_eps_delta(float(eps), 0.1, p)
            exact = mpmath.log(1 + p * (mpmath.exp(mpmath.mpf(float(eps))) - 1))
            assert mpmath.mpf(eps1) >= exact and float((eps1 - exact) / exact) < 1e-12
            assert mpmath.mpf(d1) >= mpmath.mpf(p) * mpmath.mpf(0.1)

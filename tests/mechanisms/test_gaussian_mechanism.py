"""The Gaussian LDP mechanism: its profile against quadrature, its sampler against N(0, 1), its
calibration, composition and audit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

import ldp
from ldp.audit import epsilon_lower_bound
from ldp.mechanisms import Gaussian


def _hockey_stick(sigma: float, eps: float) -> float:
    """``int (p - e^eps q)_+`` for ``p = N(1, sigma^2)``, ``q = N(-1, sigma^2)`` by quadrature
    (the extreme inputs of ``[-1, 1]``), independent of the closed form."""
    p, q = stats.norm(1.0, sigma), stats.norm(-1.0, sigma)
    # p > e^eps q exactly where y > eps sigma^2 / 2 (the log ratio is 2y / sigma^2)
    start = eps * sigma**2 / 2.0
    value, _ = integrate.quad(
        lambda y: p.pdf(y) - math.exp(eps) * q.pdf(y), start, math.inf, epsabs=1e-14
    )
    return value


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 3.0])
def test_delta_is_the_hockey_stick_divergence_of_the_extreme_inputs(mu, eps):
    g = Gaussian(mu)
    exact = _hockey_stick(g.sigma, eps)
    assert g.delta(eps) >= exact - 1e-13
    assert g.delta(eps) == pytest.approx(exact, rel=1e-7, abs=1e-13)
    # the closer pair (0, 1) has a smaller divergence: the extremes are the worst pair
    half = stats.norm(0.5, g.sigma)
    inner = integrate.quad(
        lambda y: max(half.pdf(y) - math.exp(eps) * stats.norm(-0.5, g.sigma).pdf(y), 0.0),
        -10 * g.sigma,
        10 * g.sigma,
        limit=200,
    )[0]
    assert inner <= exact + 1e-12


def test_tv_epsilon_and_inverse_profile():
    g = Gaussian(1.0)
    assert g.epsilon == math.inf
    assert g.tv == pytest.approx(_hockey_stick(g.sigma, 0.0), rel=1e-9)
    assert g.tv == pytest.approx(2 * stats.norm.cdf(0.5) - 1, rel=1e-12)
    for delta in (1e-2, 1e-5, 1e-9):
        eps = g.epsilon_for_delta(delta)
        assert _hockey_stick(g.sigma, eps) <= delta * (1 + 1e-7)
        assert _hockey_stick(g.sigma, eps * (1 - 1e-4)) > delta
    assert g.epsilon_for_delta(0.0) == math.inf


def test_from_epsilon_delta_meets_the_target_tightly():
    for eps, delta in [(1.0, 1e-5), (0.5, 1e-3), (4.0, 1e-8)]:
        g = Gaussian.from_epsilon_delta(eps, delta)
        assert g.delta(eps) <= delta
        assert Gaussian(g.mu * (1 + 1e-6)).delta(eps) > delta
    # the analytic Gaussian mechanism (Balle-Wang 2018): sensitivity 1, eps = 1, delta = 1e-5
    # needs sigma = 3.73 (their Table); ours has sensitivity 2, so sigma = 2 * 3.73
    assert Gaussian.from_epsilon_delta(1.0, 1e-5).sigma == pytest.approx(2 * 3.7305, rel=1e-3)


def test_reports_are_normal_around_the_value_and_unbiased():
    g = Gaussian(0.8)
    x = np.linspace(-1.0, 1.0, 40_000)
    reports = g.privatize(x, rng=11)
    z = (reports - x) / g.sigma
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert stats.kstest(z**2, "chi2", args=(1,)).pvalue > 1e-3  # the tails too
    n = 200_000
    sims = g.privatize(np.full(n, 0.3), rng=12)
    assert abs(g.estimate(sims) - 0.3) < 5 * math.sqrt(g.variance(n, 0.3))
    assert np.var(sims) == pytest.approx(g.sigma**2, rel=0.02)
    steps = sims / g.resolution
    np.testing.assert_array_equal(steps, np.round(steps))  # released on the grid


def test_compose_is_exactly_sqrt_t_mu_gdp():
    g = Gaussian(0.7)
    ten = ldp.accounting.compose(g, 10)
    for eps in (0.5, 2.0):
        assert ten.delta(eps) == pytest.approx(Gaussian(0.7 * math.sqrt(10)).delta(eps), rel=1e-9)


def test_audit_stays_below_the_stated_epsilon():
    g = Gaussian(1.0)
    delta = 1e-3
    stated = g.epsilon_for_delta(delta)
    result = epsilon_lower_bound(g, -1.0, 1.0, n_samples=100_000, rng=5, delta=delta)
    assert result.epsilon_lower <= stated
    assert result.epsilon_lower > 0.3 * stated  # the statistic sees the mechanism's leak


def test_protocol_needs_a_delta_and_round_trips():
    from ldp.protocol import Protocol

    with pytest.raises(ValueError, match="delta > 0"):
        Protocol.from_mechanism(Gaussian(1.0))
    protocol = Protocol.from_mechanism(Gaussian(1.0), bounds=(0, 10), delta=1e-6)
    assert protocol.epsilon >= Gaussian(1.0).epsilon_for_delta(1e-6)
    assert Protocol.from_json(protocol.to_json()) == protocol


@pytest.mark.parametrize("mu", [0.0, -1.0, math.nan, math.inf, "1"])
def test_bad_mu_is_refused(mu):
    with pytest.raises((ValueError, TypeError), match="mu"):
        Gaussian(mu)


def test_values_outside_the_domain_are_refused():
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        Gaussian(1.0).privatize([1.5])
    with pytest.raises(ValueError, match="epsilon"):
        Gaussian.from_epsilon_delta(-1.0, 1e-5)
    with pytest.raises(ValueError, match="delta"):
        Gaussian.from_epsilon_delta(1.0, 0.0)

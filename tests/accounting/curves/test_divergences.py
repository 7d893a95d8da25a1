"""Renyi, chi^2_+ and Le Cam divergences: closed forms against direct sums and quadrature."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import laplace, norm

import ldp
from ldp.accounting import (
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    get_rdp_from_gdp,
    rr_renyi,
    tradeoff_chi2_plus,
    tradeoff_from_pair,
    tradeoff_renyi,
)
from ldp.divergences import le_cam, renyi


def _renyi_direct(p, q, a):
    return math.log(sum(pi**a * qi ** (1 - a) for pi, qi in zip(p, q) if pi > 0)) / (a - 1)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("a", [1.5, 2.0, 7.0])
def test_renyi_of_pairs_and_of_their_curves(seed, a):
    rng = np.random.default_rng(seed)
    p, q = rng.dirichlet(np.ones(5), size=2)
    direct = _renyi_direct(p, q, a)
    assert renyi(p, q, a) == pytest.approx(direct, rel=1e-12)
    # Proposition B.4 of Dong-Roth-Su (2022): the same number from T(P, Q) alone
    assert tradeoff_renyi(tradeoff_from_pair(p, q), a) == pytest.approx(direct, rel=1e-9)


def test_renyi_edge_cases():
    assert renyi([0.5, 0.5], [1.0, 0.0], 2.0) == math.inf
    assert renyi([0.0, 1.0], [0.5, 0.5], 3.0) == pytest.approx(math.log(2.0))
    # f(0) < 1 is finite (Q-mass where P has none), z_f < 1 infinite
    assert math.isfinite(tradeoff_renyi(tradeoff_from_pair([0.5, 0.5, 0.0], [0.3, 0.3, 0.4]), 2))
    assert tradeoff_renyi(tradeoff_from_pair([0.4, 0.3, 0.3], [0.5, 0.5, 0.0]), 2) == math.inf
    with pytest.raises(ValueError, match="order"):
        renyi([0.5, 0.5], [0.5, 0.5], 1.0)
    with pytest.raises(ValueError, match="order"):
        tradeoff_renyi(GaussianTradeOff(1.0), 0.5)
    with pytest.raises(TypeError, match="f must be"):
        tradeoff_renyi([0.1], 2.0)


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("a", [1.5, 3.0])
def test_gaussian_and_laplace_renyi_against_quadrature(mu, a):
    def by_density(dist, shift):
        value, _ = quad(
            lambda x: math.exp(a * dist.logpdf(x) + (1 - a) * dist.logpdf(x - shift)),
            -30,
            30,
            points=[0, shift],
            limit=400,
        )
        return math.log(value) / (a - 1)

    assert tradeoff_renyi(GaussianTradeOff(mu), a) == pytest.approx(by_density(norm, mu), rel=1e-8)
    assert get_rdp_from_gdp(mu, a) == pytest.approx(by_density(norm, mu), rel=1e-8)  # Cor B.6
    lap = tradeoff_renyi(LaplaceTradeOff(mu), a)
    assert lap == pytest.approx(by_density(laplace, mu), rel=1e-8)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 3.0])
def test_rr_renyi_and_the_counterexample_of_proposition_b7(eps):
    s = math.exp(eps) / (1 + math.exp(eps))
    orders = np.array([1.1, 2.0, 5.0, 20.0])
    direct = [_renyi_direct([s, 1 - s], [1 - s, s], a) for a in orders]
    np.testing.assert_allclose(rr_renyi(eps, orders), direct, rtol=1e-10)
    np.testing.assert_allclose(tradeoff_renyi(EpsDeltaTradeOff(eps), 2.0), direct[1], rtol=1e-9)
    # every Renyi divergence of RR is below the Gaussian's a eps^2 / 2 ...
    assert np.all(rr_renyi(eps, orders) <= get_rdp_from_gdp(eps, orders))
    # ... yet for small eps RR has the larger TV: no Renyi order gives the Blackwell order
    if eps <= 0.5:
        assert math.tanh(eps / 2) > 2 * norm.cdf(eps / 2) - 1


def test_chi2_plus_against_quadrature_and_pairs():
    for mu in (0.5, 1.0, 2.0):
        g = lambda z, mu=mu: max(math.exp(mu * z - mu * mu / 2) - 1, 0) ** 2 * norm.pdf(z)  # noqa: E731
        value, _ = quad(g, mu / 2, 40, limit=200)
        assert tradeoff_chi2_plus(GaussianTradeOff(mu)) == pytest.approx(value, rel=1e-8)
    for theta in (0.3, 1.0, 3.0):  # E_P[(q/p - 1)_+^2] for P = Lap(0), Q = Lap(theta)
        h = lambda x, t=theta: max(laplace.pdf(x - t) - laplace.pdf(x), 0) ** 2 / laplace.pdf(x)  # noqa: E731
        value, _ = quad(h, -5, 60, points=[0, theta / 2, theta], limit=400)
        assert tradeoff_chi2_plus(LaplaceTradeOff(theta)) == pytest.approx(value, rel=1e-8)
    rng = np.random.default_rng(3)
    p, q = rng.dirichlet(np.ones(6), size=2)
    direct = float(np.sum(np.maximum(q - p, 0) ** 2 / p))
    assert tradeoff_chi2_plus(tradeoff_from_pair(p, q)) == pytest.approx(direct, rel=1e-9)
    assert tradeoff_chi2_plus(EpsDeltaTradeOff(1.0, 0.01)) == math.inf
    assert tradeoff_chi2_plus(GaussianTradeOff(0.0)) == 0.0


def test_le_cam_divergence():
    rng = np.random.default_rng(5)
    p, q = rng.dirichlet(np.ones(4), size=2)
    for beta in (0.1, 0.5, 0.8):
        direct = beta * (1 - beta) * float(np.sum((p - q) ** 2 / (beta * p + (1 - beta) * q)))
        assert le_cam(p, q, beta) == pytest.approx(direct, rel=1e-12)
    np.testing.assert_allclose(le_cam(p, q, [0.2, 0.4]), [le_cam(p, q, 0.2), le_cam(p, q, 0.4)])
    assert le_cam([1, 0], [0, 1], 0.3) == pytest.approx(1.0)
    # Ghazi-Issa (2023), Theorem 5: for the dominating pair Q*_{eps,eta}, sup_beta LC_beta =
    # eta tanh(eps/2) (0.138635147178003 at eps = 1, eta = 0.3), attained at beta = 1/2
    channel = ldp.binary_erasure(1.0, 0.0, 0.3)
    betas = np.linspace(0.01, 0.99, 99)
    values = le_cam(channel.matrix[0], channel.matrix[1], betas)
    # 0.3 tanh(1/2), exact
    assert float(np.max(values)) == pytest.approx(0.138635147178003, rel=1e-12)
    assert betas[int(np.argmax(values))] == pytest.approx(0.5)
    e = math.e
    closed = (
        0.3
        * (e - 1)
        * betas
        * (1 - betas)
        * (1 / (betas * e + 1 - betas) + 1 / ((1 - betas) * e + betas))
    )
    np.testing.assert_allclose(values, closed, rtol=1e-12)
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="beta"):
            le_cam(p, q, bad)

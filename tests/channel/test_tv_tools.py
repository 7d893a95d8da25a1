"""Ghazi-Issa (2023) tools: intersection of guarantees (§VI-D), eq. (41), the utility proxy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import ldp
from ldp.accounting import (
    GaussianTradeOff,
    compose_eps_delta_eta,
    compose_eps_delta_eta_intersection,
    get_delta_from_gdp,
    get_tv_from_gdp,
)
from ldp.contraction import (
    erase,
    erasure_kl_ratio_lower_bound,
    max_kl_contraction,
    utility_proxy,
)
from ldp.divergences import hockey_stick, kl, le_cam


def _brute_force_delta(eps, delta, eta, k, level):
    """E_{e^level} of the k-fold product of the dominating pair, by enumeration."""
    m = ldp.binary_erasure(eps, delta, eta).matrix
    n = m.shape[1]
    p = np.array([math.prod(m[0, i] for i in idx) for idx in itertools.product(range(n), repeat=k)])
    q = np.array([math.prod(m[1, i] for i in idx) for idx in itertools.product(range(n), repeat=k)])
    return max(hockey_stick(p, q, math.exp(level)), hockey_stick(q, p, math.exp(level)))


def test_intersection_is_the_smallest_theorem_2_bound():
    mu = 1 / 1.3
    eps = np.array([0.25, 0.5, 1.0, 2.0])
    deltas = get_delta_from_gdp(mu, eps)
    eta = get_tv_from_gdp(mu)
    k = 3
    c = compose_eps_delta_eta_intersection(eps, deltas, eta, k)
    levels = np.array([0.0, 0.3, 0.9, 1.7, 3.0, 5.0])
    brute = np.array(
        [[_brute_force_delta(e, d, eta, k, t) for t in levels] for e, d in zip(eps, deltas)]
    )
    np.testing.assert_allclose(c.delta(levels), brute.min(axis=0), rtol=1e-9, atol=1e-13)
    # different guarantees win at different levels: the intersection is not one of them
    assert len(set(np.argmin(brute, axis=0).tolist())) > 1
    # the Gaussian mechanism meets every guarantee, so its exact composition lies below
    assert np.all(GaussianTradeOff(mu * math.sqrt(k)).delta(levels) <= c.delta(levels) + 1e-12)
    # the inverse: the smallest level at which the bound is met
    for target in (0.1, 0.03):
        e_min = c.epsilon_for_delta(target)
        assert c.delta(e_min) <= target * (1 + 1e-9)
        assert c.delta(max(e_min - 1e-3, 0.0)) > target
    # below the atoms 1 - (1 - delta_r)^k of every guarantee no level suffices
    assert c.epsilon_for_delta(1e-3) == math.inf and c.delta(50.0) > 1e-3
    assert c.tv == pytest.approx(float(c.delta(0.0)))
    assert np.all(c.tradeoff(np.linspace(0, 1, 101)) >= 0)


def test_intersection_bad_input():
    with pytest.raises(ValueError, match="eta"):
        compose_eps_delta_eta_intersection([1.0], [0.0], 1.5, 2)
    with pytest.raises(ValueError, match="one length"):
        compose_eps_delta_eta_intersection([1.0, 2.0, 3.0], [0.0, 0.1], 0.3, 2)
    with pytest.raises(ValueError, match="non-empty"):
        compose_eps_delta_eta_intersection([], [], 0.3, 2)
    one = compose_eps_delta_eta_intersection([1.0], [0.0], 0.3, 4)
    assert one.delta(1.0) == compose_eps_delta_eta(1.0, 0.0, 0.3, 4).delta(1.0)


@pytest.mark.parametrize("eps,eta_frac", [(0.1, 0.5), (0.5, 0.9), (1.0, 0.3), (2.0, 0.7)])
def test_erasure_ratio_bound_against_other_channels(eps, eta_frac):
    # Ghazi-Issa (2023), eq. (41): KL through the mechanism with erasure is at least the
    # bound times KL through any (eps, eta) channel; checked against channels of Theorem 7
    eta = eta_frac * math.tanh(eps / 2)
    bound = erasure_kl_ratio_lower_bound(eps, eta)
    assert bound == pytest.approx(eta / (2 * (math.exp(eps) - 1) * (1 + math.exp(-eps))))
    rng = np.random.default_rng(int(eps * 100))
    for _ in range(5):
        p0, p1 = rng.dirichlet(np.ones(4), size=2)
        be = ldp.binary_mechanism_with_erasure(p0, p1, eps, eta).matrix
        kl_be = kl(p0 @ be, p1 @ be)
        for k in (2, 4, 6):
            other = erase(ldp.k_rr(4, eps) if k == 4 else _random_ldp(rng, 4, k, eps), eps, eta)
            kl_other = kl(p0 @ other.matrix, p1 @ other.matrix)
            assert kl_be >= bound * kl_other * (1 - 1e-9)


def _random_ldp(rng, n, m, eps):
    """A random eps-LDP channel: rows with entries in [1, e^eps] times a common column law."""
    base = rng.dirichlet(np.ones(m))
    weights = np.exp(eps * rng.uniform(0.0, 1.0, size=(n, m)))
    rows = base * weights
    rows /= rows.sum(axis=1, keepdims=True)
    channel = ldp.Channel(rows)
    if channel.epsilon > eps:  # normalisation can push a ratio above e^eps: mix with uniform
        t = 0.5
        channel = ldp.Channel((1 - t) * rows + t / m)
    return channel if channel.epsilon <= eps else ldp.k_rr(n, eps)


def test_erasure_ratio_limit_and_bad_input():
    # eta = c eps, eps -> 0: the bound tends to c / 4 (Ghazi-Issa (2023), after eq. (41))
    for c in (0.1, 0.3, 0.45):
        assert erasure_kl_ratio_lower_bound(1e-5, c * 1e-5) == pytest.approx(c / 4, rel=1e-4)
    with pytest.raises(ValueError, match="epsilon"):
        erasure_kl_ratio_lower_bound(0.0, 0.0)
    with pytest.raises(ValueError, match="eta"):
        erasure_kl_ratio_lower_bound(1.0, 0.9)


@pytest.mark.parametrize("eps,eta", [(1.0, 0.3), (0.5, 0.1), (2.0, 0.5)])
def test_utility_proxy_is_the_le_cam_sup_of_the_dominating_pair(eps, eta):
    m = ldp.binary_erasure(eps, 0.0, eta).matrix
    betas = np.linspace(0.001, 0.999, 999)
    sup = float(np.max(le_cam(m[0], m[1], betas)))
    assert utility_proxy(eps, eta) == pytest.approx(sup, rel=1e-6)
    assert utility_proxy(eps, eta) == pytest.approx(max_kl_contraction(eps, eta), rel=1e-15)
    # the paper's value at eps = 1, eta = 0.3: eta tanh(eps/2), Ghazi-Issa (2023) Theorem 5
    assert utility_proxy(1.0, 0.3) == pytest.approx(0.138635147178003, rel=1e-13)


def test_utility_proxy_of_mechanisms_and_bad_input():
    rr = ldp.randomized_response(1.0)
    assert utility_proxy(rr) == pytest.approx(math.tanh(0.5) ** 2)
    assert utility_proxy(ldp.k_rr(5, 1.0)) < utility_proxy(rr)
    with pytest.raises(TypeError, match="eta"):
        utility_proxy(1.0)
    with pytest.raises(TypeError, match="eta only"):
        utility_proxy(rr, 0.2)
    with pytest.raises(ValueError, match="eta"):
        utility_proxy(1.0, 0.9)

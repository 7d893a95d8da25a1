"""Bayes success rate of an attacker guessing a value, against the Bayes rule on the laws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr, ndtri

import ldp
from ldp.accounting import (
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    attacker_success_rate,
    tradeoff_from_pair,
)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("prior", [0.05, 0.3, 0.5, 0.8])
def test_finite_pairs_match_the_bayes_rule(seed, prior):
    rng = np.random.default_rng(seed)
    p, q = rng.dirichlet(np.ones(5), size=2)
    # the Bayes rule guesses x_1 where pi q(z) > (1 - pi) p(z): success sum_z max(...)
    bayes = float(np.sum(np.maximum((1 - prior) * p, prior * q)))
    value = attacker_success_rate(tradeoff_from_pair(p, q), prior)
    assert value == pytest.approx(bayes, rel=1e-12, abs=1e-13)
    assert value >= bayes - 1e-15  # an upper bound


@pytest.mark.parametrize("mu", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("prior", [0.1, 0.5, 0.7])
def test_gaussian_against_a_grid_minimisation(mu, prior):
    alpha = np.concatenate((np.geomspace(1e-12, 0.5, 200001), np.linspace(0.5, 1, 200001)))
    beta = ndtr(ndtri(1 - alpha) - mu)
    grid = 1 - float(np.min((1 - prior) * alpha + prior * beta))
    assert attacker_success_rate(GaussianTradeOff(mu), prior) == pytest.approx(grid, abs=1e-9)
    if prior == 0.5:
        assert attacker_success_rate(GaussianTradeOff(mu)) == pytest.approx(ndtr(mu / 2))


def test_mechanisms_extremes_and_bad_input():
    rr = ldp.randomized_response(1.0)
    e = math.e
    assert attacker_success_rate(rr) == pytest.approx(e / (1 + e))
    assert attacker_success_rate(EpsDeltaTradeOff(1.0)) == pytest.approx(e / (1 + e))
    grr = ldp.mechanisms.GRR(4, 1.0)
    assert attacker_success_rate(grr) == pytest.approx(0.5 * (1 + grr.tv))
    assert attacker_success_rate(LaplaceTradeOff(1.0)) == pytest.approx(
        0.5 * (1 + (1 - math.exp(-0.5)))
    )
    assert attacker_success_rate(rr, 0.0) == 1.0 and attacker_success_rate(rr, 1.0) == 1.0
    assert attacker_success_rate(GaussianTradeOff(0.0), 0.8) == pytest.approx(0.8)
    with pytest.raises(ValueError, match="prior"):
        attacker_success_rate(rr, 1.5)
    with pytest.raises(TypeError, match="f must be"):
        attacker_success_rate(0.5)

"""Tests of ldp.risk.achieved.achievable: the exact risk of randomized response and k-RR
against its formula and a seeded simulation, and above the lower bound."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.risk import (
    bernoulli_mean,
    binomial_mean_absolute_deviation,
    distribution_estimation,
    krr_distribution_risk,
    rr_mean_risk,
)

INF = math.inf


class TestAchievability:
    def test_rr_risk_formula(self):
        for eps, theta in [(0.5, 0.5), (1.0, 0.2), (INF, 0.3)]:
            w = 1 / (1 + math.exp(eps)) if eps < INF else 0.0
            t = w + theta * (1 - 2 * w)
            expected = t * (1 - t) / (100 * (1 - 2 * w) ** 2)
            assert rr_mean_risk(100, eps, theta=theta).value == pytest.approx(expected)
        assert rr_mean_risk(100, 0.0).value == INF

    def test_rr_monte_carlo(self):
        rng = np.random.default_rng(7)
        n, eps, theta, runs = 200, 1.0, 0.3, 4000
        chan = ldp.randomized_response(eps)
        x = (rng.random((runs, n)) < theta).astype(int)
        z = chan.privatize(x.ravel(), rng=rng).reshape(runs, n)
        w = 1 / (1 + math.exp(eps))
        est = (z.mean(axis=1) - w) / (1 - 2 * w)
        losses = (est - theta) ** 2
        exact = rr_mean_risk(n, eps, theta=theta).value
        # 5 standard errors: fails with probability about 6e-7 (CLT; seeded)
        assert abs(losses.mean() - exact) <= 5 * losses.std(ddof=1) / math.sqrt(runs)

    @pytest.mark.parametrize("loss", ["l2sq", "l1"])
    def test_krr_monte_carlo(self, loss):
        rng = np.random.default_rng(11)
        k, n, eps, runs = 5, 300, 1.0, 3000
        p = np.array([0.4, 0.25, 0.2, 0.1, 0.05])
        chan = ldp.k_rr(k, eps)
        x = rng.choice(k, size=runs * n, p=p)
        z = chan.privatize(x, rng=rng).reshape(runs, n)
        counts = np.stack([(z == j).sum(axis=1) for j in range(k)], axis=1)
        keep, flip = math.exp(eps) / (math.exp(eps) + k - 1), 1 / (math.exp(eps) + k - 1)
        est = (counts / n - flip) / (keep - flip)
        err = est - p
        losses = (err**2).sum(1) if loss == "l2sq" else np.abs(err).sum(1)
        exact = krr_distribution_risk(p, n, eps, loss=loss).value
        # 5 standard errors: fails with probability about 6e-7 (CLT; seeded)
        assert abs(losses.mean() - exact) <= 5 * losses.std(ddof=1) / math.sqrt(runs)

    def test_binomial_mad(self):
        for n, p in [(1, 0.5), (7, 0.3), (50, 0.02), (40, 0.5), (10, 0.0), (10, 1.0)]:
            s = np.arange(n + 1)
            direct = np.sum(stats.binom.pmf(s, n, p) * np.abs(s - n * p))
            assert binomial_mean_absolute_deviation(n, p) == pytest.approx(direct, abs=1e-12)

    @pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 3.0, 8.0])
    @pytest.mark.parametrize("n", [10, 1000, 10**5])
    def test_achieved_exceeds_bound(self, eps, n):
        assert rr_mean_risk(n, eps).value >= bernoulli_mean(n, eps).value
        for k in (2, 10):
            for loss in ("l2sq", "l1"):
                lower = distribution_estimation(k, n, eps, loss=loss).value
                assert krr_distribution_risk(k, n, eps, loss=loss).value >= lower > 0


def test_rr_mean_risk_at_a_tiny_epsilon_is_unbounded_not_a_crash():
    # tanh(eps / 2)^2 underflows to 0 at eps = 1e-300: the risk is +inf, not a ZeroDivisionError
    assert rr_mean_risk(747_144_855, 1e-300).value == float("inf")
    assert rr_mean_risk(10, 1e-150).value > 1e290


@pytest.mark.parametrize("eps", [710.0, 1e4, INF])
def test_krr_l2_risk_past_the_exponent_range_is_the_empirical_risk(eps):
    # no privacy left: the empirical frequencies, whose squared l2 risk is sum p (1 - p) / n
    assert krr_distribution_risk(2, 1, eps).value == 0.5
    p = np.array([0.5, 0.3, 0.2])
    expected = float(np.sum(p * (1 - p))) / 40
    assert krr_distribution_risk(p, 40, eps).value == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("eps", [0.3, 1.0, 5.0])
def test_krr_l2_risk_is_the_sum_of_the_grr_iid_variances(eps):
    p = np.array([0.4, 0.25, 0.2, 0.1, 0.05])
    grr = ldp.mechanisms.GRR(5, eps)
    variances = grr.variance(300, p, convention="iid")
    # t (1 - t) / (n (keep - flip)^2) with t = flip + p (keep - flip), from the definition
    keep, flip = math.exp(eps) / (math.exp(eps) + 4), 1 / (math.exp(eps) + 4)
    t = flip + p * (keep - flip)
    by_hand = t * (1 - t) / (300 * (keep - flip) ** 2)
    np.testing.assert_allclose(variances, by_hand, rtol=1e-12)
    assert krr_distribution_risk(p, 300, eps).value == pytest.approx(by_hand.sum(), rel=1e-12)

"""ldp.audit: the lower bound holds, is tight for tight mechanisms, and catches a bug."""

import math

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.audit import audit, clopper_pearson
from ldp.design import optimal_channel

MARGIN = 0.05  # at 1e6 samples the audit of a tight mechanism comes this close to epsilon


def test_clopper_pearson_against_the_beta_quantiles_and_coverage():
    low, high = clopper_pearson(7, 40, 0.1)
    assert low == pytest.approx(stats.beta.ppf(0.05, 7, 34))
    assert high == pytest.approx(stats.beta.ppf(0.95, 8, 33))
    assert clopper_pearson(0, 10, 0.05)[0] == 0.0 and clopper_pearson(10, 10, 0.05)[1] == 1.0
    # coverage: the exact interval covers p = 0.3 in at least 95% of 4000 seeded draws
    rng = np.random.default_rng(0)
    draws = rng.binomial(50, 0.3, size=4000)
    covered = [lo <= 0.3 <= hi for lo, hi in (clopper_pearson(int(d), 50, 0.05) for d in draws)]
    assert np.mean(covered) >= 0.95


@pytest.mark.parametrize(
    ("name", "channel", "eps"),
    [
        ("RR", ldp.randomized_response(1.0), 1.0),
        ("RR", ldp.randomized_response(3.0), 3.0),
        ("4-RR", ldp.k_rr(4, 1.0), 1.0),
        ("16-RR", ldp.k_rr(16, 2.0), 2.0),
    ],
)
def test_tight_mechanisms_are_audited_close_to_their_epsilon(name, channel, eps):
    result = audit(channel.privatize, 0, 1, n_samples=1_000_000, rng=7)
    assert result.epsilon_lower <= eps
    assert result.epsilon_lower >= eps - MARGIN, name


def test_approximate_ldp_is_audited_at_its_delta():
    be = ldp.binary_erasure(1.0, 0.01, 0.3)
    assert audit(be.privatize, 0, 1, n_samples=400_000, rng=1).epsilon_lower > 3  # eps = inf
    at_delta = audit(be.privatize, 0, 1, n_samples=1_000_000, delta=0.01, rng=1)
    assert 1.0 - MARGIN <= at_delta.epsilon_lower <= 1.0


def test_optimizer_channels_never_fail_their_audit():
    rng = np.random.default_rng(3)
    for _ in range(5):
        k = int(rng.integers(2, 6))
        eps = float(rng.uniform(0.2, 3))
        result = optimal_channel(k, eps, utility="mi", prior=rng.dirichlet(np.ones(k)))
        lower = audit(result.channel.privatize, 0, k - 1, n_samples=200_000, rng=rng)
        assert lower.epsilon_lower <= eps


def test_a_broken_mechanism_is_caught():
    claimed = 1.0
    honest = ldp.k_rr(8, claimed)

    def leaky(values, rng):
        # bug: the "randomized" report is the true value 5% more often than it should be
        reports = honest.privatize(values, rng)
        leak = np.random.default_rng(rng.integers(2**32)).random(values.shape) < 0.05
        return np.where(leak, values, reports)

    result = audit(leaky, 0, 1, n_samples=1_000_000, rng=11)
    big = math.exp(claimed)
    keep = 0.05 + 0.95 * big / (big + 7)
    other = 0.95 / (big + 7)
    assert result.epsilon_lower > claimed  # the audit refutes the claim
    assert result.epsilon_lower <= math.log(keep / other)  # and stays below the truth


def test_statistic_for_vector_reports_and_errors():
    channel = ldp.k_rr(3, 1.0)

    def pairs(values, rng):
        return np.stack([channel.privatize(values, rng), np.zeros_like(values)], axis=1)

    with pytest.raises(ValueError, match="statistic"):
        audit(pairs, 0, 1, n_samples=1000, rng=0)
    result = audit(pairs, 0, 1, n_samples=100_000, statistic=lambda r: r[:, 0], rng=0)
    assert 0 < result.epsilon_lower <= 1.0
    with pytest.raises(TypeError, match="integer-valued"):
        audit(pairs, 0, 1, n_samples=1000, statistic=lambda r: r[:, 0] + 0.5, rng=0)
    with pytest.raises(TypeError, match="callable"):
        audit("not a mechanism", 0, 1)
    with pytest.raises(ValueError, match="alpha"):
        audit(channel.privatize, 0, 1, alpha=1.5)
    with pytest.raises(ValueError, match="n_samples"):
        audit(channel.privatize, 0, 1, n_samples=10)

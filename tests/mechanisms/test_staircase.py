"""The staircase mechanism (Ghazi-Issa (2023), §VI-C, App. K): law, TV, profile, moments."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chi2 as chi2_dist

from ldp.mechanisms import Staircase, staircase_tv

D = 2.0


def _density(y, eps, gamma):
    """The staircase noise density, written from the paper's definition (not the sampler)."""
    b = math.exp(-eps)
    a = (1 - b) / (2 * D * (gamma + b * (1 - gamma)))
    t = np.abs(np.asarray(y, dtype=float))
    k = np.floor(t / D)
    inner = t - k * D
    return a * b**k * np.where(inner < gamma * D, 1.0, b)


def _grid(eps):
    edge = 40.0 / eps + 10.0
    return np.linspace(-edge, edge, 800_001)


# Ghazi-Issa (2023) staircase TVs (gamma = 0.0139 is their "alpha ~ 0.3" example), recomputed
# exactly as the sum over the pieces of the two shifted piecewise-constant densities (numpy)
@pytest.mark.parametrize(
    "eps,gamma,eta",
    [
        (1.0, 0.0, 0.3160602794),
        (1.0, 0.0139, 0.3234330091),
        (1.0, 0.2, 0.3968965183),
        (1.0, 0.5, 0.4621171573),
        (1.0, 0.7, 0.3900226871),
        (1.0, 1.0, 0.3160602794),
        (2.0, 0.2, 0.6748630534),
        (2.0, 0.5, 0.7615941560),
    ],
)
def test_tv_formula_against_the_paper_and_integration(eps, gamma, eta):
    assert staircase_tv(eps, gamma) == pytest.approx(eta, abs=1e-9)
    y = _grid(eps)
    h = y[1] - y[0]
    p0, p1 = _density(y + 1.0, eps, gamma), _density(y - 1.0, eps, gamma)  # inputs -1, +1
    assert 0.5 * np.sum(np.abs(p0 - p1)) * h == pytest.approx(eta, abs=2e-4)
    assert Staircase(eps, gamma).tv == pytest.approx(eta, abs=1e-9)


@pytest.mark.parametrize("eps,gamma", [(1.0, 0.0139), (0.5, 0.3), (2.0, 0.8)])
def test_profile_is_the_extreme_pairs_hockey_stick(eps, gamma):
    m = Staircase(eps, gamma)
    y = _grid(eps)
    h = y[1] - y[0]
    p0, p1 = _density(y + 1.0, eps, gamma), _density(y - 1.0, eps, gamma)
    with np.errstate(divide="ignore"):
        llr = np.log(p1) - np.log(p0)
    # the log-likelihood ratio takes only the values -eps, 0, eps (Appendix K2)
    assert np.all(np.min(np.abs(llr[:, None] - np.array([-eps, 0.0, eps])), axis=1) < 1e-9)
    for level in (0.0, 0.3 * eps, 0.8 * eps, eps):
        hockey = np.sum(np.maximum(p1 - math.exp(level) * p0, 0.0)) * h
        assert m.delta(level) == pytest.approx(hockey, abs=3e-4)
    assert m.epsilon == pytest.approx(eps, rel=1e-12) and m.epsilon >= eps
    assert m.delta(eps) == pytest.approx(0.0, abs=1e-12)


def _cells(eps, gamma, periods):
    """Exact probabilities of (period k < periods, lower/upper step) for |N|, and the tail."""
    b = math.exp(-eps)
    p0 = gamma / (gamma + b * (1 - gamma))
    probs = []
    for k in range(periods):
        mass = (1 - b) * b**k
        probs += [mass * p0, mass * (1 - p0)]
    probs.append(b**periods)
    return np.array(probs)


@pytest.mark.parametrize("eps,gamma", [(1.0, 0.0139), (0.5, 0.3), (2.0, 0.5)])
def test_sampler_law_goodness_of_fit(eps, gamma):
    m = Staircase(eps, gamma)
    n = 200_000
    y = m.privatize(np.zeros(n), rng=12345)
    t = np.abs(y)
    periods = 6
    k = np.floor(t / D)
    upper = (t - k * D) >= gamma * D
    idx = np.where(k < periods, 2 * k + upper, 2 * periods).astype(int)
    observed = np.bincount(idx, minlength=2 * periods + 1)
    expected = n * _cells(eps, gamma, periods)
    keep = expected > 0
    stat = float(np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep]))
    assert chi2_dist.sf(stat, keep.sum() - 1) > 1e-4
    assert abs(float(np.mean(y < 0)) - 0.5) < 5 * math.sqrt(0.25 / n)


@pytest.mark.parametrize("eps,gamma", [(1.0, 0.0139), (0.5, 0.3)])
def test_moments_against_integration_and_simulation(eps, gamma):
    m = Staircase(eps, gamma)
    y = _grid(eps)
    h = y[1] - y[0]
    f = _density(y, eps, gamma)
    assert np.sum(f) * h == pytest.approx(1.0, abs=1e-4)
    first, second = m.noise_moments()
    assert first == pytest.approx(np.sum(np.abs(y) * f) * h, rel=1e-3)
    assert second == pytest.approx(np.sum(y * y * f) * h, rel=1e-3)
    draws = m.privatize(np.full(200_000, 0.25), rng=7)
    assert np.mean(draws) == pytest.approx(0.25, abs=5 * math.sqrt(second / 200_000))
    assert np.var(draws) == pytest.approx(m.variance(1), rel=0.03)


@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_default_gamma_minimises_the_mean_absolute_noise(eps):
    default = Staircase(eps)
    assert default.gamma == pytest.approx(1 / (1 + math.exp(eps / 2)))
    grid = np.linspace(0.0, 1.0, 1001)
    values = [Staircase(eps, float(g)).noise_moments()[0] for g in grid]
    assert default.noise_moments()[0] <= min(values) + 1e-12


def test_bad_input():
    with pytest.raises(ValueError, match="gamma"):
        Staircase(1.0, 1.5)
    with pytest.raises(TypeError, match="gamma"):
        Staircase(1.0, "half")
    with pytest.raises(ValueError, match="epsilon"):
        staircase_tv(0.0, 0.5)
    with pytest.raises(ValueError):
        Staircase(1.0).privatize([1.5])

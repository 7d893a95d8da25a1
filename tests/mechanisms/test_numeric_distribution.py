"""Square wave distribution estimation (Li et al. (2020)): the exact transition of the
released report, EM and EMS, and the histogram result.

The transition is checked three ways: against a brute-force sum over the output grid
(quadrature of the density times the randomized-rounding hat, with a coarse grid so that
rounding matters), against simulated reports of the mechanism as shipped, and against a
simulation of the continuous square wave followed by randomized rounding on the coarse grid.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from ldp.mechanisms import NumericDistribution, SquareWave
from ldp.mechanisms.numeric.distribution import (
    em_histogram,
    output_grid_edges,
    report_histogram,
    square_wave_transition,
)


def _hat_integral(lo: float, hi: float, k: int, step: float) -> float:
    """``int_lo^hi max(0, 1 - |y/step - k|) dy`` by quadrature."""
    a, c = max(lo, (k - 1) * step), min(hi, (k + 1) * step)
    if c <= a:
        return 0.0
    return integrate.quad(
        lambda y: max(0.0, 1.0 - abs(y / step - k)), a, c, points=[k * step], epsabs=1e-14
    )[0]


def _brute_force_transition(sw: SquareWave, step: float, bins: int, output_bins: int):
    """Sum over grid points of ``P(report = k step | v)``, averaged over ``v`` in each bin by
    Gauss-Legendre on the pieces where the integrand is a polynomial of degree <= 2."""
    b, p, q = sw.b, sw.p_density, sw.q_density
    edges = output_grid_edges(b, step, output_bins)
    ks = np.arange(edges[0], edges[-1])
    nodes, weights = np.polynomial.legendre.leggauss(4)
    matrix = np.zeros((output_bins, bins))
    for i in range(bins):
        lo, hi = i / bins, (i + 1) / bins
        # kinks of v -> P(k | v): v +- b on a grid point
        kinks = [lo, hi] + [k * step + s * b for k in ks for s in (-1, 1)]
        cuts = sorted({x for x in kinks if lo <= x <= hi})
        for a, c in itertools.pairwise(cuts):
            for node, weight in zip(nodes, weights, strict=True):
                v = (a + c) / 2 + (c - a) / 2 * node
                share = weight * (c - a) / 2 / (hi - lo)
                for k in ks:
                    mass = q * _hat_integral(-b, 1 + b, int(k), step) + (p - q) * _hat_integral(
                        v - b, v + b, int(k), step
                    )
                    j = np.searchsorted(edges, k, side="right") - 1
                    matrix[j, i] += share * mass
    return matrix


def test_transition_equals_brute_force_on_a_coarse_grid():
    sw = SquareWave(1.0)
    step = 1.0 / 16  # rounding moves mass between bins at this step
    exact = square_wave_transition(sw.b, sw.p_density, sw.q_density, step, 4, 6)
    brute = _brute_force_transition(sw, step, 4, 6)
    assert np.abs(exact - brute).max() < 1e-10
    assert np.abs(exact.sum(axis=0) - 1).max() < 1e-14
    # ignoring the grid (continuous output, bins at the same cuts) is visibly different
    naive = square_wave_transition(sw.b, sw.p_density, sw.q_density, 1e-9, 4, 6)
    assert np.abs(exact - naive).max() > 1e-3


def _chi2_pvalue(counts: np.ndarray, expected_probs: np.ndarray) -> float:
    expected = expected_probs * counts.sum()
    return float(stats.chisquare(counts, expected).pvalue)


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_transition_matches_the_shipped_sampler(eps):
    sw = SquareWave(eps)
    bins, out = 8, 24
    matrix = sw.transition(bins, out)
    rng = np.random.default_rng(11)
    for i in (0, 3, 7):
        v = (i + rng.random(40_000)) / bins
        counts = report_histogram(sw.privatize(v, rng=rng), sw.b, sw.resolution, out)
        assert _chi2_pvalue(counts, matrix[:, i]) > 1e-4


def test_transition_matches_simulated_rounding_on_a_coarse_grid():
    sw = SquareWave(1.0)
    b, p, q = sw.b, sw.p_density, sw.q_density
    step, bins, out = 1.0 / 16, 4, 10
    matrix = square_wave_transition(b, p, q, step, bins, out)
    rng = np.random.default_rng(5)
    n = 200_000
    for i in range(bins):
        v = (i + rng.random(n)) / bins
        near = rng.random(n) < 2 * b * p
        u = rng.random(n)
        y = np.where(near, v - b + 2 * b * u, np.where(u < v, u - b, u + b))
        low = np.floor(y / step)
        grid = (low + (rng.random(n) < y / step - low)) * step
        counts = report_histogram(grid, b, step, out)
        assert _chi2_pvalue(counts, matrix[:, i]) > 1e-4


def test_output_bins_cover_every_report():
    sw = SquareWave(1.0)
    edges = output_grid_edges(sw.b, sw.resolution, 7)
    assert edges[0] * sw.resolution <= -sw.b
    assert (edges[-1] - 1) * sw.resolution >= 1 + sw.b
    assert np.all(np.diff(edges) > 0)
    with pytest.raises(ValueError, match="output_bins"):
        output_grid_edges(0.25, 0.25, 9)


# ----------------------------------------------------------------------------- EM / EMS
def _reference_em(matrix, counts, smooth, max_iter=10_000, threshold=1e-3):
    """The reference code's loop, transcribed independently (EM; EMS with ``smooth``)."""
    n = matrix.shape[1]
    theta = np.ones(n) / n
    theta_old = np.zeros(n)
    r, old_ll = 0, 0.0
    while np.abs(theta_old - theta).sum() > 1 / counts.sum() and r < max_iter:
        theta_old = theta.copy()
        theta = theta_old * ((matrix.T / (matrix @ theta_old)) @ counts)
        theta = theta / theta.sum()
        if smooth is not None:
            theta = smooth @ theta
            theta = theta / theta.sum()
        ll = counts @ np.log(matrix @ theta)
        if r > 1 and abs(ll - old_ll) < threshold:
            break
        old_ll = ll
        r += 1
    return theta, r


def _binomial_smoother(n):
    s = np.zeros((n, n))
    s[0, :2] = [2 / 3, 1 / 3]
    s[-1, -2:] = [1 / 3, 2 / 3]
    for i in range(1, n - 1):
        s[i, i - 1 : i + 2] = [0.25, 0.5, 0.25]
    return s


@pytest.mark.parametrize("method", ["em", "ems"])
def test_em_follows_the_reference_stopping_rule(method):
    sw = SquareWave(1.0)
    matrix = sw.transition(32)
    rng = np.random.default_rng(3)
    counts = report_histogram(
        sw.privatize(rng.beta(2, 5, 20_000), rng=rng), sw.b, sw.resolution, 32
    )
    smooth = _binomial_smoother(32) if method == "ems" else None
    want, rounds = _reference_em(matrix, counts.astype(float), smooth)
    got, iterations, converged = em_histogram(matrix, counts, method=method)
    assert converged and abs(iterations - (rounds + 1)) <= 1  # the reference counts from 0
    assert np.abs(got - want).max() < 1e-12


def test_em_on_exact_expected_reports_recovers_the_distribution():
    sw = SquareWave(1.5)
    bins = 12
    matrix = sw.transition(bins, 30)
    truth = np.random.default_rng(1).dirichlet(np.ones(bins))
    expected = matrix @ truth * 1e7
    theta, _, converged = em_histogram(matrix, expected, method="em", max_iter=200_000, tol=0.0)
    assert converged
    assert np.abs(theta - truth).sum() < 2e-3
    # the likelihood is maximised at the truth: EM does not exceed it
    ll = expected @ np.log(matrix @ theta)
    assert ll <= expected @ np.log(matrix @ truth) + 1e-6


def test_ems_beats_em_on_a_smooth_density():
    sw = SquareWave(1.0)
    rng = np.random.default_rng(2)
    values = rng.beta(2.0, 5.0, 100_000)
    reports = sw.privatize(values, rng=rng)
    truth = np.histogram(values, bins=128, range=(0, 1))[0] / values.size
    ems = sw.estimate_distribution(reports, bins=128)
    em = sw.estimate_distribution(reports, bins=128, method="em")
    l1_ems = np.abs(ems.probabilities - truth).sum()
    l1_em = np.abs(em.probabilities - truth).sum()
    assert l1_ems < 0.15 < l1_em
    assert ems.iterations < em.iterations
    # quantiles and the mean of the smoothed estimate
    for level in (0.1, 0.5, 0.9):
        assert abs(ems.quantile(level) - np.quantile(values, level)) < 0.02
    assert abs(ems.mean() - values.mean()) < 0.01
    assert ems.method == "ems" and ems.n == values.size and ems.bins == 128


def test_smoothing_matrix_is_binomial():
    # one EMS round from a point mass equals one EM round followed by the smoother
    sw = SquareWave(1.0)
    matrix = sw.transition(6)
    counts = matrix @ np.array([0, 0, 1.0, 0, 0, 0]) * 1e4
    em_one, _, _ = em_histogram(matrix, counts, method="em", max_iter=1)
    ems_one, _, _ = em_histogram(matrix, counts, method="ems", max_iter=1)
    want = _binomial_smoother(6) @ em_one
    assert np.allclose(ems_one, want / want.sum(), atol=1e-15)


# ----------------------------------------------------------------------------- result object
def test_distribution_cdf_and_quantile_by_hand():
    dist = NumericDistribution([0.0, 0.25, 0.5, 1.0], [0.5, 0.0, 0.5], "em", 3, True, 10)
    assert dist.cdf(0.125) == 0.25
    assert dist.cdf([-1.0, 0.3, 2.0]).tolist() == [0.0, 0.5, 1.0]
    assert dist.quantile(0.5) == 0.25  # the smallest x with cdf >= 1/2
    assert dist.quantile(0.75) == 0.75
    assert dist.quantile([0.0, 1.0]).tolist() == [0.0, 1.0]
    assert math.isclose(dist.mean(), 0.5 * 0.125 + 0.5 * 0.75)
    assert math.isclose(dist.range_probability(0.125, 0.75), 0.5)
    levels = np.linspace(0.01, 0.99, 50)
    assert np.allclose(dist.cdf(dist.quantile(levels)), levels)
    with pytest.raises(AttributeError):
        dist.method = "ems"  # type: ignore[misc]
    with pytest.raises(ValueError):
        dist.probabilities[0] = 1.0


@pytest.mark.parametrize(
    ("edges", "probs", "match"),
    [
        ([0.0, 1.0, 0.5], [0.5, 0.5], "edges"),
        ([0.0, 0.5, 1.0], [1.0], "probabilities"),
        ([0.0, 0.5, 1.0], [1.5, -0.5], "non-negative"),
        ([0.0, 0.5, 1.0], [0.2, 0.2], "sum to 1"),
    ],
)
def test_distribution_bad_input(edges, probs, match):
    with pytest.raises(ValueError, match=match):
        NumericDistribution(edges, probs, "em", 1, True, 1)


def test_rescaled_maps_the_domain():
    dist = NumericDistribution([0.0, 0.25, 1.0], [0.5, 0.5], "ems", 3, True, 10)
    ages = dist.rescaled(18, 98)
    assert ages.edges.tolist() == [18.0, 38.0, 98.0]
    assert ages.quantile(0.5) == 38.0 and ages.mean() == pytest.approx(18 + 80 * dist.mean())
    assert ages.cdf(28.0) == dist.cdf(0.125)
    with pytest.raises(ValueError, match="high must be > low"):
        dist.rescaled(1.0, 1.0)


def test_distribution_quantile_bad_level():
    dist = NumericDistribution([0.0, 1.0], [1.0], "em", 1, True, 1)
    with pytest.raises(ValueError, match="q must lie"):
        dist.quantile(1.5)
    with pytest.raises(ValueError, match="high must be >= low"):
        dist.range_probability(0.5, 0.2)


def test_estimate_distribution_bad_input():
    sw = SquareWave(1.0)
    reports = sw.privatize(np.full(100, 0.5), rng=0)
    with pytest.raises(ValueError, match="bins"):
        sw.estimate_distribution(reports, bins=1)
    with pytest.raises(ValueError, match="MAX_BINS"):
        sw.estimate_distribution(reports, bins=5000)
    with pytest.raises(ValueError, match="method"):
        sw.estimate_distribution(reports, method="kde")
    with pytest.raises(ValueError, match="off its grid"):
        sw.estimate_distribution(reports + sw.resolution / 3)
    with pytest.raises(ValueError, match="zero reports"):
        sw.estimate_distribution(np.zeros(0))
    beyond = np.append(reports, (np.floor(-sw.b / sw.resolution) - 4) * sw.resolution)
    with pytest.raises(ValueError, match="outside the square wave's reach"):
        sw.estimate_distribution(beyond)
    with pytest.raises(TypeError):
        sw.estimate_distribution(reports, bins=2.5)


def test_em_histogram_bad_input():
    m = np.eye(2)
    with pytest.raises(ValueError, match="column-stochastic"):
        em_histogram(np.array([[0.5, 0.5], [0.6, 0.5]]), [1, 1])
    with pytest.raises(ValueError, match="one entry per row"):
        em_histogram(m, [1, 1, 1])
    with pytest.raises(ValueError, match="positive total"):
        em_histogram(m, [0, 0])
    with pytest.raises(ValueError, match="method"):
        em_histogram(m, [1, 1], method="EMS")
    with pytest.raises(ValueError, match="max_iter"):
        em_histogram(m, [1, 1], max_iter=0)

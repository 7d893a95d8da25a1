"""The two-row reduction of randomized-response-like channels agrees with the full pairwise
computation (run on the same channel with its outputs permuted, which hides the structure)
and with the closed forms, and makes a k = 4096 channel cheap."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from ldp import Channel, k_rr
from ldp._pairwise import symmetric_pair
from ldp.contraction import coefficient, k_rr_coefficient


def _hidden(channel: Channel) -> Channel:
    """The same channel with its outputs rotated: every pairwise value is unchanged, but the
    diagonal is no longer constant, so the full pairwise computation runs."""
    matrix = channel.matrix
    return Channel(np.roll(matrix, 1, axis=1))


@pytest.mark.parametrize("k", [3, 4, 7, 12])
@pytest.mark.parametrize("epsilon", [0.05, 0.7, 2.0, 6.0])
def test_reduced_profile_equals_full_computation(k, epsilon):
    reduced, full = k_rr(k, epsilon), _hidden(k_rr(k, epsilon))
    assert symmetric_pair(reduced.matrix) is not None
    assert symmetric_pair(full.matrix) is None
    # the rotated copy is normalised row by row again, so the two agree to rounding
    assert reduced.epsilon == pytest.approx(full.epsilon, rel=1e-13)
    assert reduced.epsilon == pytest.approx(epsilon, rel=1e-12)  # the exact level of the matrix
    assert reduced.tv == pytest.approx(full.tv, rel=1e-12)
    levels = [0.0, epsilon / 4, epsilon / 2, 0.9 * epsilon, math.inf]
    np.testing.assert_allclose(reduced.delta(levels), full.delta(levels), rtol=1e-12, atol=1e-16)
    for target in [0.0, 1e-3, 0.05, 0.2]:
        assert reduced.epsilon_for_delta(target) == pytest.approx(
            full.epsilon_for_delta(target), rel=1e-12, abs=1e-15
        )


@pytest.mark.parametrize("kind", ["tv", "chi2", "kl", "hellinger"])
@pytest.mark.parametrize("k", [3, 5, 9])
def test_reduced_contraction_equals_full_and_closed_form(kind, k):
    channel = k_rr(k, 1.3)
    reduced = coefficient(channel, kind)
    full = coefficient(_hidden(channel), kind)
    assert float(reduced) == pytest.approx(float(full), rel=1e-9)
    assert float(reduced) == pytest.approx(k_rr_coefficient(kind, k, 1.3), rel=1e-9)
    assert reduced.pair == (0, 1)
    p = reduced.p if reduced.p is not None else reduced.p0
    assert p.shape == (k,)


def test_reduced_f_search_reports_full_inputs():
    channel = k_rr(6, 1.0)
    result = coefficient(channel, "f", f=lambda t: (t - 1.0) ** 2)
    assert result.p0.shape == (6,) and result.p1.shape == (6,)
    assert float(result) <= k_rr_coefficient("chi2", 6, 1.0) * (1 + 1e-12)
    assert float(result) == pytest.approx(k_rr_coefficient("chi2", 6, 1.0), rel=1e-4)


def test_reduced_delta_is_exact_rational_for_large_k():
    k, epsilon, level = 1000, 1.0, 0.5
    channel = k_rr(k, epsilon)
    d, o = (Fraction(float(v)) for v in channel.matrix[0, :2])
    # E_gamma of the pair: (d - g o)_+ + (o - g d)_+ = d - g o, with g <= e^0.5 rounded down
    total = d + (k - 1) * o
    exact_upper = (d - Fraction(math.exp(level) * (1 - 1e-15)) * o) / total
    exact_lower = (d - Fraction(math.exp(level) * (1 + 1e-15)) * o) / total
    value = Fraction(channel.delta(level))
    assert exact_lower <= value <= exact_upper + Fraction(1, 10**15)


@pytest.mark.parametrize(
    "matrix",
    [
        np.eye(3),
        np.full((4, 4), 0.25),
        k_rr(5, 1.0).matrix,
    ],
)
def test_symmetric_pair_recognises_rr_like(matrix):
    pair = symmetric_pair(np.asarray(matrix))
    assert pair is not None and pair.shape == (2, 3)
    np.testing.assert_allclose(pair.sum(axis=1), 1.0)


def test_symmetric_pair_refuses_anything_else():
    matrix = k_rr(5, 1.0).matrix.copy()
    matrix[2, 3], matrix[2, 4] = matrix[2, 3] * 0.5, matrix[2, 4] * 1.5
    assert symmetric_pair(matrix) is None
    diagonal = k_rr(5, 1.0).matrix.copy()
    diagonal[1, 1], diagonal[1, 0] = diagonal[1, 0], diagonal[1, 1]
    assert symmetric_pair(diagonal) is None
    assert symmetric_pair(np.full((2, 2), 0.5)) is None  # k = 2 needs no reduction
    assert symmetric_pair(np.full((3, 4), 0.25)) is None


def test_large_k_rr_profile_and_contraction():
    channel = k_rr(4096, 1.0)
    assert channel.tv == pytest.approx(k_rr_coefficient("tv", 4096, 1.0), rel=1e-12)
    assert channel.tv >= k_rr_coefficient("tv", 4096, 1.0)
    assert float(channel.contraction("kl")) == pytest.approx(
        k_rr_coefficient("kl", 4096, 1.0), rel=1e-9
    )
    expected = (math.e - math.exp(0.5)) / (math.e + 4095)
    assert channel.delta(0.5) == pytest.approx(expected, rel=1e-12)
    assert channel.delta(0.5) >= expected * (1 - 1e-15)


@pytest.mark.parametrize("k", [3, 10, 300, 4096])
@pytest.mark.parametrize("epsilon", [0.01, 1.0, 8.0])
def test_privacy_channel_dominates_the_realised_pair(k, epsilon):
    channel = k_rr(k, epsilon)
    pair = channel.privacy_channel()
    assert pair.shape == (2, 3)
    d, o = (Fraction(float(v)) for v in channel.matrix[0, :2])
    total = d + (k - 1) * o
    law = [d / total, o / total, (k - 2) * o / total]  # what privatize realises, per pair
    stored = [Fraction(float(v)) for v in pair.matrix[0]]
    realised = [v / sum(stored) for v in stored]
    # the realised pair is a garbling of ``pair``: profile below it at every level
    for level in [0.0, epsilon / 3, epsilon / 2, epsilon * 0.99]:
        gamma = Fraction(math.exp(level))
        exact = max(Fraction(0), law[0] - gamma * law[1])
        assert Fraction(pair.delta(level)) >= exact
        assert max(Fraction(0), realised[0] - gamma * realised[1]) >= exact
    assert pair.delta(level) == pytest.approx(channel.delta(level), rel=1e-12)


def test_composition_of_large_k_rr_matches_the_rotated_copy():
    from ldp.accounting import compose

    small = k_rr(9, 1.0)
    reduced = compose([small] * 8)
    full = compose([_hidden(small)] * 8)
    for level in [0.5, 2.0, 5.0]:
        assert reduced.delta(level) == pytest.approx(full.delta(level), rel=1e-9, abs=1e-15)
    large = compose([k_rr(4096, 1.0)] * 10)
    assert 0.0 < large.delta(2.0) < 1e-3


# ------------------------------------------------------------- screened hockey stick
def _brute_hockey_stick(matrix: np.ndarray, gamma: float) -> float:
    """Every ordered pair, positive parts summed in exact rationals (independent of tiling)."""
    rows = [[Fraction(float(v)) for v in row] for row in matrix]
    g = Fraction(gamma)
    best = Fraction(0)
    for p in rows:
        for q in rows:
            if gamma >= 1:
                total = sum((max(Fraction(0), a - g * b) for a, b in zip(p, q)), Fraction(0))
            else:
                total = sum((max(Fraction(0), g * b - a) for a, b in zip(p, q)), Fraction(0))
            best = max(best, total)
    return float(best)


@pytest.mark.parametrize("gamma", [0.3, 1.0, 1.7, 40.0])
@pytest.mark.parametrize("kind", ["dirichlet", "near_ties", "tiny"])
def test_screened_hockey_stick_finds_the_exact_maximum(monkeypatch, gamma, kind):
    from ldp import _pairwise

    monkeypatch.setattr(_pairwise, "SCREEN_WORK", 1)  # screen even this small matrix
    rng = np.random.default_rng(7)
    if kind == "dirichlet":
        matrix = rng.dirichlet(np.full(12, 0.3), size=14)
    elif kind == "near_ties":  # rows one ulp apart: the screen keeps them all
        base = rng.dirichlet(np.ones(12))
        matrix = np.array([np.nextafter(base, base + (i % 3)) for i in range(14)])
    else:  # probabilities near the subnormal range
        matrix = rng.dirichlet(np.full(12, 0.05), size=14) * 1e-300
        matrix[:, 0] += 1.0 - matrix.sum(axis=1)
    value, i, j = _pairwise.max_pairwise_hockey_stick(matrix, gamma)
    expected = _brute_hockey_stick(matrix, gamma)
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-300)
    g = Fraction(gamma)
    p, q = matrix[i], matrix[j]
    if gamma >= 1:
        pair_value = sum(max(Fraction(0), Fraction(a) - g * Fraction(b)) for a, b in zip(p, q))
    else:
        pair_value = sum(max(Fraction(0), g * Fraction(b) - Fraction(a)) for a, b in zip(p, q))
    assert float(pair_value) == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_screen_falls_back_when_every_pair_ties(monkeypatch):
    from ldp import _pairwise

    monkeypatch.setattr(_pairwise, "SCREEN_WORK", 1)
    monkeypatch.setattr(_pairwise, "SCREEN_MAX_CANDIDATES", 4)
    matrix = np.roll(k_rr(8, 1.0).matrix, 3, axis=1)  # all 56 ordered pairs tie
    assert _pairwise._screened_candidates(matrix, math.e) is None
    value = _pairwise.max_pairwise_hockey_stick(matrix, math.e)[0]
    assert value == pytest.approx(_brute_hockey_stick(matrix, math.e), rel=1e-12)

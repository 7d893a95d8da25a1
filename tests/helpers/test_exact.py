"""Exact comparisons with e^t (``ldp._exact``) against mpmath at 400 bits."""

import math
import random
from fractions import Fraction

import mpmath
import pytest

from ldp._exact import (
    certified_epsilon,
    compare_exp,
    exp_bounds,
    exp_down,
    exp_up,
    log_up,
    nearest_within,
    probabilities,
    smallest_double,
    within_exp,
)

mpmath.mp.prec = 400


def _mp(value) -> mpmath.mpf:
    value = Fraction(value)
    return mpmath.mpf(value.numerator) / value.denominator


EXPONENTS = [0.0, 5e-324, 1e-300, 1e-12, 1e-6, 0.001, 0.5, 1.0, 2.0, 3.7, 50.0, 700.0, 1999.0]


@pytest.mark.parametrize("t", EXPONENTS + [-x for x in EXPONENTS[1:]])
def test_the_bounds_enclose_e_to_the_t_tightly(t):
    for bits in (64, 256):
        lo, hi = exp_bounds(t, bits)
        exact = mpmath.exp(_mp(t))
        assert _mp(lo) <= exact <= _mp(hi)
        assert _mp(hi - lo) <= exact * mpmath.mpf(2) ** (8 - bits)


def test_the_sign_is_exact_next_to_e_to_the_t():
    rng = random.Random(1)
    for _ in range(300):
        t = rng.choice([rng.uniform(0, 10), rng.uniform(-10, 0), rng.uniform(0, 1e-6)])
        w = float(mpmath.exp(_mp(t)))  # a double within half an ulp of e^t
        for candidate in (math.nextafter(w, 0), w, math.nextafter(w, math.inf)):
            expected = mpmath.sign(_mp(candidate) - mpmath.exp(_mp(t)))
            assert compare_exp(candidate, t) == expected
            assert within_exp(candidate, t) == (expected <= 0)
    assert compare_exp(1, 0.0) == 0 and compare_exp(Fraction(3, 2), 0.0) == 1
    assert compare_exp(0, 1.0) == -1


def test_log_up_is_the_smallest_double_above_the_log():
    rng = random.Random(2)
    ratios = [rng.uniform(1, 1e9) for _ in range(200)]
    ratios += [1 + rng.uniform(0, 1e-9) for _ in range(100)]
    ratios += [Fraction(rng.getrandbits(200) + 1, rng.getrandbits(100) + 1) for _ in range(50)]
    for r in ratios:
        t = log_up(r)
        if Fraction(r) <= 1:
            assert t == 0.0
            continue
        assert mpmath.exp(_mp(t)) >= _mp(r)
        assert mpmath.exp(_mp(math.nextafter(t, 0.0))) < _mp(r)
    assert log_up(None) == math.inf and log_up(0.5) == 0.0 and log_up(math.e) == 1.0


def test_exp_down_and_up_are_the_nearest_doubles_on_each_side():
    rng = random.Random(3)
    for t in [rng.uniform(-50, 50) for _ in range(300)] + [1e-6, 0.5, 1.0, 700.0]:
        exact = mpmath.exp(_mp(t))
        down, up = exp_down(t), exp_up(t)
        assert _mp(down) <= exact < _mp(math.nextafter(down, math.inf))
        assert _mp(up) >= exact > _mp(math.nextafter(up, 0.0))
    with pytest.raises(ValueError, match="largest double"):
        exp_down(710.0)


def test_certified_epsilon_states_the_budget_only_when_it_holds():
    for eps in (1e-6, 0.1, 0.5, 1.0, 3.0, 700.0):
        assert certified_epsilon(exp_down(eps), eps) == eps
        above = certified_epsilon(exp_up(eps), eps)
        assert above > eps and mpmath.exp(_mp(above)) >= _mp(exp_up(eps))
    assert certified_epsilon(None, 1.0) == math.inf


def test_smallest_double_brackets_from_any_guess():
    for guess in (0.0, 1.0, 1.5, 100.0, 1e-300):
        assert smallest_double(lambda t: t >= 1.25, guess) == 1.25
    assert smallest_double(lambda t: True, 3.0) == 0.0


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "1", True])
def test_bad_input_is_named(bad):
    with pytest.raises((TypeError, ValueError), match=r"ratio|t "):
        compare_exp(bad, 1.0)


def test_nearest_within_moves_only_as_far_as_needed():
    """From either side of a threshold, one double past it, however far the start is."""
    rng = random.Random(4)
    for _ in range(200):
        threshold = rng.uniform(1e-3, 1e3)
        for distance in (0, 1, 2, 7, 1000, 10**9):
            above = threshold
            for _ in range(min(distance, 7)):
                above = math.nextafter(above, math.inf)
            start = above if distance <= 7 else threshold * (1 + distance * 2.0**-52)
            down = nearest_within(lambda w, t=threshold: w <= t, start, 0.0)
            assert down == threshold
            up = nearest_within(
                lambda w, t=threshold: w >= t, threshold / (1 + distance * 1e-15), math.inf
            )
            assert up == threshold
    assert nearest_within(lambda w: w <= 5.0, 2.0, 0.0) == 2.0  # holds already: unchanged
    assert nearest_within(lambda w: w >= 1.0, 2.0, math.inf) == 2.0


def test_nearest_within_refuses_an_impossible_bound_and_a_bad_start():
    with pytest.raises(ValueError, match="no positive finite double"):
        nearest_within(lambda w: w < 0.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="no positive finite double"):
        nearest_within(lambda w: math.isinf(w), 1.0, math.inf)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="positive finite"):
            nearest_within(lambda w: True, bad, 0.0)


def test_probabilities_are_the_exact_ratios_of_the_weights():
    weights = [math.e, 3.0, 0.1]
    exact = probabilities(weights)
    total = sum(Fraction(w) for w in weights)
    assert exact == [Fraction(w) / total for w in weights] and sum(exact) == 1


def _brute_ratio(matrix):
    rows = [[Fraction(float(w)) for w in row] for row in matrix]
    rows = [[w / sum(row) for w in row] for row in rows]
    worst = Fraction(1)
    for z in range(len(rows[0])):
        column = [row[z] for row in rows]
        if max(column) == 0:
            continue
        if min(column) == 0:
            return None
        worst = max(worst, max(column) / min(column))
    return worst


def test_the_largest_likelihood_ratio_is_exact_against_brute_force():
    """Random matrices with ties, permuted rows, zero columns, near-equal entries and rows
    that do not sum to one exactly: the float pre-selection never loses the exact extremes."""
    import numpy as np

    from ldp._exact import largest_likelihood_ratio

    gen = np.random.default_rng(4)
    for trial in range(300):
        k, m = int(gen.integers(2, 7)), int(gen.integers(1, 7))
        matrix = gen.random((k, m))
        if trial % 3 == 0:  # permutations of one row: equal exact sums
            matrix = np.array([gen.permutation(matrix[0]) for _ in range(k)])
        if trial % 5 == 0:  # entries one ulp apart
            matrix[:, 0] = matrix[0, 0]
            matrix[1, 0] = np.nextafter(matrix[1, 0], 2.0)
        if trial % 7 == 0:
            matrix[:, -1] = 0.0
        if trial % 11 == 0:
            matrix[0, 0] = 0.0
        if np.any(matrix.sum(axis=1) == 0):
            continue
        matrix = matrix / matrix.sum(axis=1, keepdims=True)
        assert largest_likelihood_ratio(matrix) == _brute_ratio(matrix)
    tiny = np.array([[1e-300, 1.0], [2e-300, 1.0]])
    assert largest_likelihood_ratio(tiny) == _brute_ratio(tiny)

"""ldp.divergences against independent derivations: subset suprema, high-precision sums,
the defining identities, and the classical inequalities between divergences."""

import itertools
import re

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ldp import divergences as dv


def subsets(m):
    for r in range(m + 1):
        yield from itertools.combinations(range(m), r)


def brute_hockey_stick(p, q, gamma):
    """sup_A [P(A) - gamma Q(A)] - (1 - gamma)_+ by enumerating every event A (eq. 23)."""
    best = max(sum(p[i] for i in a) - gamma * sum(q[i] for i in a) for a in subsets(len(p)))
    return best - max(1.0 - gamma, 0.0)


@st.composite
def pmf_pairs(draw, max_m=6):
    m = draw(st.integers(1, max_m))
    elements = st.floats(0.0, 1.0, allow_subnormal=False)
    p = draw(hnp.arrays(np.float64, m, elements=elements))
    q = draw(hnp.arrays(np.float64, m, elements=elements))
    p[np.argmax(p)] += 0.1
    q[np.argmax(q)] += 0.1
    return p / p.sum(), q / q.sum()


gammas = st.one_of(st.floats(0.0, 1.0), st.floats(1.0, 50.0), st.just(np.inf))


@given(pmf_pairs(), gammas)
def test_hockey_stick_equals_supremum_over_events(pair, gamma):
    p, q = pair
    if np.isinf(gamma):
        expected = p[q == 0].sum()  # E_inf = P(q = 0)
    else:
        expected = brute_hockey_stick(p, q, gamma)
    assert dv.hockey_stick(p, q, gamma) == pytest.approx(max(expected, 0.0), abs=1e-12)


@given(pmf_pairs())
def test_hockey_stick_special_values_and_order(pair):
    p, q = pair
    assert dv.hockey_stick(p, q, 1.0) == pytest.approx(dv.tv(p, q), abs=1e-15)
    assert dv.hockey_stick(p, q, 0.0) == 0.0
    grid = [1.0, 1.5, 2.0, 4.0, 10.0]
    values = [dv.hockey_stick(p, q, g) for g in grid]
    assert all(a >= b - 1e-15 for a, b in itertools.pairwise(values))
    tv = dv.tv(p, q)
    for g, v in zip(grid, values):
        # Asoodeh-Aliakbarpour-Calmon (2021), eq. (28):
        # 1 - gamma (1 - TV) <= E_gamma <= TV for gamma >= 1
        assert 1 - g * (1 - tv) - 1e-12 <= v <= tv + 1e-12
    for g in [0.1, 0.5, 0.9]:
        # gamma < 1: E_gamma(P||Q) = gamma E_{1/gamma}(Q||P)
        assert dv.hockey_stick(p, q, g) == pytest.approx(
            g * dv.hockey_stick(q, p, 1 / g), abs=1e-13
        )


@given(pmf_pairs())
def test_tv_is_largest_event_gap(pair):
    p, q = pair
    brute = max(abs(sum(p[i] - q[i] for i in a)) for a in subsets(len(p)))
    assert dv.tv(p, q) == pytest.approx(brute, abs=1e-14)


def mp_kl(p, q):
    mpmath.mp.dps = 50
    total = mpmath.mpf(0)
    for a, b in zip(p, q):
        if a > 0:
            total += mpmath.mpf(a) * mpmath.log(mpmath.mpf(a) / mpmath.mpf(b))
    return float(total)


@given(pmf_pairs())
def test_kl_chi2_hellinger_against_high_precision(pair):
    p, q = pair
    if np.any((q == 0) & (p > 0)):
        assert dv.kl(p, q) == np.inf
        assert dv.chi2(p, q) == np.inf
    else:
        assert dv.kl(p, q) == pytest.approx(mp_kl(p, q), rel=1e-9, abs=1e-14)
        mpmath.mp.dps = 50
        chi = sum(mpmath.mpf(a) ** 2 / mpmath.mpf(b) for a, b in zip(p, q) if b > 0) - 1
        assert dv.chi2(p, q) == pytest.approx(float(chi), rel=1e-9, abs=1e-12)
    # squared Hellinger = 2 - 2 * Bhattacharyya coefficient
    assert dv.hellinger(p, q) == pytest.approx(2 - 2 * np.sum(np.sqrt(p * q)), abs=1e-12)


@given(pmf_pairs())
def test_classical_inequalities(pair):
    p, q = pair
    tv, kl, h2, c2 = dv.tv(p, q), dv.kl(p, q), dv.hellinger(p, q), dv.chi2(p, q)
    assert tv**2 <= kl / 2 + 1e-12  # Pinsker
    assert h2 / 2 <= tv + 1e-12 <= np.sqrt(h2) + 2e-12  # Le Cam: H^2/2 <= TV <= H
    assert kl <= np.log1p(c2) + 1e-12
    assert 0.0 <= h2 <= 2.0


def test_tiny_probabilities_stay_finite_and_exact():
    p = [1.0, 0.0]
    q = [1e-300, 1.0 - 1e-300]
    assert dv.kl(p, q) == pytest.approx(300 * np.log(10), rel=1e-14)
    assert dv.chi2(p, q) == pytest.approx(1e300, rel=1e-12)  # (1 - 1e-300)^2 / 1e-300 + ...
    assert dv.hockey_stick(p, q, np.exp(600.0)) == pytest.approx(1 - np.exp(600 - 300 * np.log(10)))
    q_tiny = [1e-320, 1.0 - 1e-320]
    assert np.isfinite(dv.kl(p, q_tiny))
    assert dv.hockey_stick(q_tiny, p, 1e300) == pytest.approx(1.0)


def test_named_divergences_are_f_divergences():
    rng = np.random.default_rng(1)
    p, q = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
    assert dv.f_divergence(p, q, lambda t: t * np.log(t)) == pytest.approx(dv.kl(p, q))
    assert dv.f_divergence(p, q, lambda t: (t - 1) ** 2) == pytest.approx(dv.chi2(p, q))
    assert dv.f_divergence(p, q, lambda t: 0.5 * np.abs(t - 1)) == pytest.approx(dv.tv(p, q))
    assert dv.f_divergence(p, q, lambda t: (np.sqrt(t) - 1) ** 2) == pytest.approx(
        dv.hellinger(p, q)
    )
    assert dv.f_divergence(p, q, lambda t: np.maximum(t - 2.0, 0.0)) == pytest.approx(
        dv.hockey_stick(p, q, 2.0)
    )


def test_f_divergence_outside_the_support():
    p, q = [0.5, 0.5], [1.0, 0.0]
    with pytest.raises(ValueError, match="f_prime_inf"):
        dv.f_divergence(p, q, lambda t: (t - 1) ** 2)
    value = dv.f_divergence(p, q, lambda t: np.maximum(t - 1.0, 0.0), f_prime_inf=1.0)
    assert value == pytest.approx(dv.tv(p, q))
    assert dv.f_divergence(p, q, lambda t: t * np.log(t), f_prime_inf=np.inf) == np.inf
    # f(0) = inf (reverse KL, -log t) is honoured rather than replaced by a finite limit
    assert dv.f_divergence(q, p, lambda t: -np.log(t)) == np.inf


def test_broadcasting_over_leading_axes():
    rng = np.random.default_rng(2)
    p = rng.dirichlet(np.ones(4), size=(3, 2))
    q = rng.dirichlet(np.ones(4), size=2)
    for fn in (dv.tv, dv.kl, dv.chi2, dv.hellinger):
        out = fn(p, q)
        assert out.shape == (3, 2)
        assert out[1, 0] == pytest.approx(fn(p[1, 0], q[0]))
    gam = np.array([[1.0], [2.0], [0.5]])
    out = dv.hockey_stick(p, q, gam)
    assert out.shape == (3, 2)
    assert out[2, 1] == pytest.approx(dv.hockey_stick(p[2, 1], q[1], 0.5))
    assert isinstance(dv.tv([0.5, 0.5], [1.0, 0.0]), float)


@pytest.mark.parametrize(
    ("p", "q", "error", "match"),
    [
        ([0.5, -0.1, 0.6], [0.3, 0.3, 0.4], ValueError, "p must be non-negative"),
        ([0.5, 0.6], [0.5, 0.5], ValueError, "p must sum to 1"),
        ([0.5, np.nan], [0.5, 0.5], ValueError, "p must contain only finite"),
        ([0.5, 0.5], [0.2, 0.3, 0.5], ValueError, "same number of outcomes"),
        (["a", "b"], [0.5, 0.5], TypeError, "p must be an array of real numbers"),
        ([0.5, 0.5], [1 + 0j, 0], TypeError, "q must be an array of real numbers"),
        ([], [], ValueError, "at least one outcome"),
        (0.5, 0.5, ValueError, "at least one axis"),
    ],
)
def test_bad_distributions(p, q, error, match):
    for fn in (dv.tv, dv.kl, dv.chi2, dv.hellinger):
        with pytest.raises(error, match=match):
            fn(p, q)


@pytest.mark.parametrize(
    ("gamma", "error", "match"),
    [
        (-1.0, ValueError, "gamma must be >= 0"),
        (np.nan, ValueError, "NaN"),
        ("2", TypeError, "gamma"),
        (True, TypeError, "gamma"),
    ],
)
def test_bad_gamma(gamma, error, match):
    with pytest.raises(error, match=match):
        dv.hockey_stick([0.5, 0.5], [0.2, 0.8], gamma)


@pytest.mark.parametrize(
    ("function", "name", "level"),
    [
        (dv.hockey_stick, "gamma", np.array([])),
        (dv.hockey_stick, "gamma", np.ones(3)),
        (dv.le_cam, "beta", np.full(3, 0.5)),
        (dv.le_cam, "beta", np.full((4, 3), 0.5)),
    ],
)
def test_levels_that_do_not_broadcast_are_named(function, name, level):
    # two pairs of distributions on three outcomes: the leading shape is (2,)
    p = np.full((2, 3), 1 / 3)
    q = np.array([[0.2, 0.3, 0.5], [0.5, 0.3, 0.2]])
    shape = re.escape(str(level.shape))
    with pytest.raises(ValueError, match=rf"{name} of shape {shape} and the leading axes"):
        function(p, q, level)


def test_bad_generators():
    p, q = [0.5, 0.5], [0.2, 0.8]
    with pytest.raises(ValueError, match=r"f\(1\) = 0"):
        dv.f_divergence(p, q, lambda t: t**2)
    with pytest.raises(ValueError, match="not convex"):
        dv.f_divergence(p, q, lambda t: np.sin(t - 1))
    with pytest.raises(TypeError, match="callable"):
        dv.f_divergence(p, q, 3.0)

"""GDP <-> (epsilon, delta) conversions (Dong-Roth-Su (2022), against reference values computed
independently)."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldp.accounting import (
    get_delta_from_gdp,
    get_epsilon_from_gdp,
    get_mu_from_epsilon_delta,
    get_tv_from_gdp,
)

DELTA_TABLE = [  # (mu, delta(0), delta(1)), Dong-Roth-Su (2022), §2.4
    (0.5, 0.197413, 6.829595e-3),
    (1.0, 0.382925, 0.1269367),
    (2.0, 0.682689, 0.5098617),
    (3.0, 0.866386, 0.7876007),
]
EPS_TABLE = [  # (mu, eps(1e-5), eps(1e-6)), row 5
    (0.5, 1.9931, 2.2541),
    (1.0, 4.3772, 4.8866),
    (2.0, 9.9973, 10.9972),
    (3.0, 16.6755, 18.1634),
]


@pytest.mark.parametrize(("mu", "d0", "d1"), DELTA_TABLE)
def test_delta_reference_values(mu, d0, d1):
    assert get_delta_from_gdp(mu, 0.0) == pytest.approx(d0, abs=5e-7)
    assert get_delta_from_gdp(mu, 1.0) == pytest.approx(d1, rel=2e-6)


def test_headline_values():
    assert round(get_delta_from_gdp(1.0, 1.0), 7) == 0.1269367
    assert round(get_epsilon_from_gdp(1.0, 1e-5), 4) == 4.3772


@pytest.mark.parametrize(("mu", "eps_1e5", "eps_1e6"), EPS_TABLE)
def test_epsilon_at_delta_matches_reference(mu, eps_1e5, eps_1e6):
    got = get_epsilon_from_gdp(mu, [1e-5, 1e-6])
    np.testing.assert_allclose(got, [eps_1e5, eps_1e6], atol=6e-5)
    # an upper bound: the delta there does not exceed the target
    assert np.all(get_delta_from_gdp(mu, got) <= np.array([1e-5, 1e-6]) * (1 + 1e-12))


def _delta_mpmath(mu, eps):
    mpmath.mp.dps = 60
    mu, eps = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.e**eps * mpmath.ncdf(-eps / mu - mu / 2)


@pytest.mark.parametrize(("mu", "eps"), [(0.1, 3.0), (1.0, 20.0), (0.5, 8.0), (5.0, 40.0)])
def test_log_space_keeps_relative_precision(mu, eps):
    exact = float(_delta_mpmath(mu, eps))
    assert get_delta_from_gdp(mu, eps) == pytest.approx(exact, rel=1e-9)


def test_no_nan_on_overflow_or_underflow():
    mus = np.array([0.0, 1e-300, 1e-3, 1.0, 50.0, 1e300, np.inf])
    eps = np.array([0.0, 1e-300, 1.0, 700.0, 1e5, 1e308, np.inf])
    grid = get_delta_from_gdp(mus[:, None], eps[None, :])
    assert np.all(np.isfinite(grid)) and np.all((grid >= 0) & (grid <= 1))
    assert get_delta_from_gdp(np.inf, 3.0) == 1.0
    assert get_delta_from_gdp(0.0, 0.0) == 0.0
    eps_small = get_epsilon_from_gdp(mus[:-1], 1e-300)
    assert not np.any(np.isnan(eps_small)) and np.all(np.isfinite(eps_small[:-1]))
    assert np.isinf(eps_small[-1])  # mu^2 / 2 = 5e599 is beyond the doubles: inf bounds it


def test_tv_and_edges():
    assert get_tv_from_gdp(1.0) == pytest.approx(0.3829249225, abs=1e-10)
    assert get_delta_from_gdp(1.2, 0.0) == pytest.approx(get_tv_from_gdp(1.2), abs=1e-15)
    assert get_epsilon_from_gdp(1.0, 0.5) == 0.0  # delta above the TV
    assert get_epsilon_from_gdp(1.0, 0.0) == math.inf
    assert get_epsilon_from_gdp(0.0, 0.0) == 0.0


def test_mu_calibration_roundtrip():
    mu = get_mu_from_epsilon_delta([1.0, 3.0], [1e-5, 1e-3])
    assert np.all(get_delta_from_gdp(mu, [1.0, 3.0]) <= [1e-5, 1e-3])
    assert np.all(get_delta_from_gdp(mu * (1 + 1e-9), [1.0, 3.0]) > [1e-5, 1e-3])
    assert get_mu_from_epsilon_delta(1.0, 1.0) == math.inf
    assert get_mu_from_epsilon_delta(1.0, 0.0) == 0.0


@given(
    st.floats(0.01, 6.0),
    st.lists(st.floats(0.0, 30.0), min_size=2, max_size=6),
)
def test_profile_decreasing_in_eps_increasing_in_mu(mu, eps):
    eps = np.sort(np.array(eps))
    d = get_delta_from_gdp(mu, eps)
    assert np.all(np.diff(d) <= 1e-15)
    assert np.all(get_delta_from_gdp(mu * 1.1, eps) >= d - 1e-15)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: get_delta_from_gdp(-1.0, 1.0), "mu must be >= 0"),
        (lambda: get_delta_from_gdp(1.0, -0.5), "epsilon must be >= 0"),
        (lambda: get_epsilon_from_gdp(1.0, 1.5), "delta must be <= 1"),
        (lambda: get_epsilon_from_gdp(1.0, -0.1), "delta must be >= 0"),
        (lambda: get_delta_from_gdp(float("nan"), 1.0), "mu must not be NaN"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_bad_type():
    with pytest.raises(TypeError, match="mu"):
        get_delta_from_gdp("1", 1.0)


def test_mu_from_huge_epsilon_and_shape_errors():
    import numpy as np

    from ldp.accounting import get_delta_from_gdp, get_mu_from_epsilon_delta

    # delta_mu(eps) = 1/2 when eps = mu^2 / 2 (Phi(0) - e^eps Phi(-mu) ~ 1/2): mu = sqrt(2 eps)
    mu = get_mu_from_epsilon_delta(1e300, 0.5)
    assert mu == pytest.approx(np.sqrt(2e300), rel=1e-9)
    assert get_delta_from_gdp(mu, 1e300) <= 0.5
    with pytest.raises(ValueError, match=r"epsilon of shape \(3,\) and delta of shape \(2,\)"):
        get_mu_from_epsilon_delta(np.ones(3), np.full(2, 0.1))


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("epsilon", lambda mu, x: get_delta_from_gdp(mu, x)),
        ("delta", lambda mu, x: get_epsilon_from_gdp(mu, x)),
    ],
)
def test_shapes_that_do_not_broadcast_are_named(name, call):
    # numpy's own broadcast error names no argument
    with pytest.raises(ValueError, match=rf"mu of shape \(2,\) and {name} of shape \(3,\)"):
        call([1.0, 2.0], [0.1, 0.2, 0.3])


# ------------------------------------------------------------------ precision and rounding
SMALL_MU = [1e-12, 3.7e-10, 1e-9, 2e-7, 1e-6, 1e-5, 1e-3]


@pytest.mark.parametrize("mu", SMALL_MU)
@pytest.mark.parametrize("ratio", [0.0, 0.2, 1.0, 3.0, 10.0])
def test_small_mu_delta_is_precise_and_never_below_the_truth(mu, ratio):
    """delta_mu(eps) for tiny mu is a difference of two numbers near 1/2: no cancellation."""
    from ldp.accounting import GaussianTradeOff

    eps = ratio * mu
    exact = _delta_mpmath(mu, eps)
    for got in (get_delta_from_gdp(mu, eps), GaussianTradeOff(mu).delta(eps)):
        assert mpmath.mpf(got) >= exact  # rounded outward
        assert float((got - exact) / exact) < 1e-12


@pytest.mark.parametrize("mu", SMALL_MU)
def test_small_mu_tv_is_precise_and_never_below_the_truth(mu):
    mpmath.mp.dps = 60
    exact = mpmath.erf(mpmath.mpf(mu) / (2 * mpmath.sqrt(2)))  # 2 Phi(mu/2) - 1
    got = get_tv_from_gdp(mu)
    assert mpmath.mpf(got) >= exact
    assert float((got - exact) / exact) < 1e-12


@pytest.mark.parametrize("mu", [1e-9, 1e-6, 1e-3])
def test_small_mu_epsilon_is_an_upper_bound(mu):
    for delta in [0.1 * mu, 1e-3 * mu]:
        eps = get_epsilon_from_gdp(mu, delta)
        assert _delta_mpmath(mu, eps) <= delta
        assert _delta_mpmath(mu, eps * (1 - 1e-9)) > delta  # and not loose


def _t_profile_mpmath(mu, t):
    """delta_mu at eps = mu t + mu^2/2, i.e. Phi(-t) - e^{mu t + mu^2/2} Phi(-t - mu)."""
    mpmath.mp.dps = 60
    mu, t = mpmath.mpf(mu), mpmath.mpf(t)
    return mpmath.ncdf(-t) - mpmath.exp(mu * t + mu * mu / 2) * mpmath.ncdf(-t - mu)


@pytest.mark.parametrize("mu", [1e9, 3e12, 1e20])
def test_huge_mu_epsilon_is_an_upper_bound(mu):
    """eps ~ mu^2/2: the profile must be evaluated in t = eps/mu - mu/2, not in eps."""
    target = 1e-5
    eps = get_epsilon_from_gdp(mu, target)
    mpmath.mp.dps = 60
    t_of = lambda e: mpmath.mpf(e) / mpmath.mpf(mu) - mpmath.mpf(mu) / 2  # noqa: E731
    assert _t_profile_mpmath(mu, t_of(eps)) <= target
    t_true = mpmath.findroot(lambda t: _t_profile_mpmath(mu, t) - target, 4.26)
    eps_true = mpmath.mpf(mu) * t_true + mpmath.mpf(mu) ** 2 / 2
    assert float((eps - eps_true) / eps_true) < 1e-12

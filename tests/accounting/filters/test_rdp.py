"""Rényi DP of the subsampled Gaussian, RDP -> (eps, delta) and the RDP filter.

Independent checks: the closed form at order 2, high-precision quadrature (mpmath) for
fractional orders, Google's dp-accounting RDP accountant for integer orders and for the
conversion, and the showcase of Tran-Koskela-Räisä-Honkela (2025), §4.5 (Fig. 2): the
accumulated RDP of 3650 steps and the roughly 10% gap between the GDP and RDP epsilons.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.accounting import (
    DEFAULT_ORDERS,
    FilterHaltedError,
    GaussianTradeOff,
    RDPFilter,
    get_epsilon_from_gdp,
    get_epsilon_from_rdp,
    rdp_subsampled_gaussian,
)

mpmath = pytest.importorskip("mpmath")


def _rdp_mp(q: float, sigma: float, alpha: float) -> float:
    mpmath.mp.dps = 30
    q, s, a = mpmath.mpf(q), mpmath.mpf(sigma), mpmath.mpf(alpha)

    def f(y):
        return mpmath.npdf(y, 0, s) * (1 - q + q * mpmath.exp((2 * y - 1) / (2 * s * s))) ** a

    return float(mpmath.log(mpmath.quad(f, [-mpmath.inf, 0, 1, mpmath.inf])) / (a - 1))


def test_order_two_closed_form():
    for q, s in [(0.01, 1.0), (0.2, 0.7), (0.9, 3.0)]:
        exact = math.log1p(q * q * math.expm1(1.0 / s**2))
        got = rdp_subsampled_gaussian(q, s, 2.0)
        assert exact <= got <= exact * (1 + 1e-8) + 1e-12
    # log(1 + q^2 (e^{1/sigma^2} - 1)) at q = 0.01, sigma = 1, the closed form of order 2
    assert rdp_subsampled_gaussian(0.01, 1.0, 2.0) == pytest.approx(1.7181342e-4, rel=1e-7)


@pytest.mark.parametrize(
    ("q", "sigma", "alpha"), [(0.01, 1.0, 1.5), (0.1, 2.0, 1.5), (0.1, 2.0, 2.5), (0.5, 0.8, 3.7)]
)
def test_fractional_orders_against_quadrature(q, sigma, alpha):
    exact = _rdp_mp(q, sigma, alpha)
    got = rdp_subsampled_gaussian(q, sigma, alpha)
    assert exact <= got <= exact * (1 + 1e-8) + 1e-11


def test_integer_orders_against_dp_accounting():
    ra = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    orders = np.array([2.0, 3.0, 4.0, 8.0, 16.0, 32.0, 64.0])
    for q, s in [(0.01, 1.0), (0.1, 2.0), (0.9, 3.0), (0.3, 0.6)]:
        ours = rdp_subsampled_gaussian(q, s, orders)
        ref = ra._compute_rdp_poisson_subsampled_gaussian(q, s, orders)
        np.testing.assert_allclose(ours, ref, rtol=1e-8)
        assert np.all(ours >= ref * (1 - 1e-12))


def test_fractional_orders_not_above_dp_accounting():
    # dp-accounting's fractional-order series is an upper bound; ours is the exact value
    ra = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    orders = np.array([1.5, 2.5, 5.5])
    ours = rdp_subsampled_gaussian(0.01, 1.0, orders)
    ref = ra._compute_rdp_poisson_subsampled_gaussian(0.01, 1.0, orders)
    assert np.all(ours <= ref * (1 + 1e-9))


def test_full_batch_is_gaussian_and_zero_rate_is_free():
    a = np.array([1.5, 2.0, 10.0])
    np.testing.assert_allclose(rdp_subsampled_gaussian(1.0, 2.0, a), a / 8.0, rtol=1e-14)
    assert np.all(rdp_subsampled_gaussian(1.0, 2.0, a) >= a / 8.0)
    np.testing.assert_array_equal(rdp_subsampled_gaussian(0.0, 2.0, a), 0.0)


def test_monotone_in_order():
    r = rdp_subsampled_gaussian(0.05, 1.2, DEFAULT_ORDERS)
    assert np.all(np.diff(r) >= -1e-15)


def _showcase_rdp() -> np.ndarray:
    t = np.arange(1, 3651)
    sigma = 1.5 + np.sin(np.pi / 3650 * 150 * np.ceil(t / 150))
    total = np.zeros(DEFAULT_ORDERS.size)
    for s in np.unique(sigma):
        total += np.sum(sigma == s) * rdp_subsampled_gaussian(0.01, s, DEFAULT_ORDERS)
    return total


@pytest.fixture(scope="module")
def showcase():
    return _showcase_rdp()


def test_showcase_accumulated_rdp(showcase):
    # the Section 4.5 showcase of Tran-Koskela-Räisä-Honkela (2025): the integer-order binomial
    # sum of the Poisson subsampled Gaussian RDP over the 3650 steps, recomputed with mpmath
    expected = {2: 0.0987527, 4: 0.198889, 8: 0.403532, 14: 0.722386, 16: 0.832165, 32: 894.7}
    for alpha, value in expected.items():
        got = showcase[np.argmin(np.abs(DEFAULT_ORDERS - alpha))]
        assert got == pytest.approx(value, rel=1e-5 if alpha < 32 else 1e-4)


# the same showcase: GDP column from the closed form delta(eps) at mu = sqrt(2 B) inverted by brentq
# (scipy); the classic (log(1/delta)/(alpha - 1)) and improved (Canonne-Kamath-Steinke) RDP
# conversions minimised over the orders, recomputed from the mpmath RDP sums (and a scipy quad
# for the fractional orders)
@pytest.mark.parametrize(
    ("delta", "gdp", "improved", "classic"),
    [
        (1e-3, 0.7771, 0.9139, 1.2424),
        (1e-5, 1.1911, 1.3309, 1.5994),
        (1e-10, 1.8967, 2.0786, 2.3058),
    ],
)
def test_showcase_gdp_beats_rdp(showcase, delta, gdp, improved, classic):
    mu = math.sqrt(2 * 0.0493771)
    eps_gdp = float(get_epsilon_from_gdp(mu, delta))
    eps_rdp = get_epsilon_from_rdp(DEFAULT_ORDERS, showcase, delta)
    assert eps_gdp == pytest.approx(gdp, abs=2e-4)
    assert eps_rdp == pytest.approx(improved, abs=2e-4)
    assert get_epsilon_from_rdp(DEFAULT_ORDERS, showcase, delta, "classic") == pytest.approx(
        classic, abs=2e-4
    )
    # the paper: the approximate GDP epsilon is about 10% below the RDP epsilon
    assert 0.84 < eps_gdp / eps_rdp < 0.92


def test_conversion_against_dp_accounting(showcase):
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import rdp_privacy_accountant as ra

    acc = ra.RdpAccountant(list(DEFAULT_ORDERS))
    t = np.arange(1, 3651)
    sigma = 1.5 + np.sin(np.pi / 3650 * 150 * np.ceil(t / 150))
    for s in np.unique(sigma):
        event = dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(float(s)))
        acc.compose(event, int(np.sum(sigma == s)))
    for delta in (1e-3, 1e-6):
        ref = acc.get_epsilon(delta)
        ours = get_epsilon_from_rdp(DEFAULT_ORDERS, showcase, delta)
        assert ref <= ours <= ref + 1e-9


def test_classic_conversion_by_hand():
    orders = [2.0, 4.0, 8.0, 16.0, 32.0]
    rdp = [o / 8.0 for o in orders]
    by_hand = min(o / 8.0 + math.log(1e5) / (o - 1) for o in orders)
    got = get_epsilon_from_rdp(orders, rdp, 1e-5, "classic")
    assert by_hand <= got <= by_hand + 1e-12


def test_gaussian_rdp_bound_never_below_exact_gdp_epsilon():
    # mu-GDP implies (alpha, alpha mu^2/2)-RDP; the conversion is a valid (looser) bound
    mu = 0.5
    flt = RDPFilter(budgets=DEFAULT_ORDERS * mu**2 / 2)
    for delta in (1e-2, 1e-5, 1e-9):
        assert flt.epsilon(delta) >= float(GaussianTradeOff(mu).epsilon_for_delta(delta))


def test_filter_semantics():
    orders = [2.0, 8.0, 32.0]
    step = rdp_subsampled_gaussian(0.01, 1.0, orders)
    flt = RDPFilter(orders, 100 * step)
    accepted = sum(flt.request(step) for _ in range(101))
    assert accepted == 100 and flt.halted
    with pytest.raises(FilterHaltedError):
        flt.request(step)
    assert np.all(flt.spent >= 100 * step)
    # skip mode: a refused request is skipped, a cheaper one still fits
    flt = RDPFilter([2.0], [1.0], halt_on_refusal=False)
    assert flt.request([0.6]) and not flt.request([0.6]) and flt.request([0.4])
    assert not flt.halted and flt.remaining[0] == pytest.approx(0.0, abs=1e-12)
    # Gaussian curves are charged alpha mu^2 / 2
    flt = RDPFilter([2.0, 4.0], [1.0, 2.0])
    assert flt.request(GaussianTradeOff(1.0)) and not flt.request(GaussianTradeOff(0.1))


def test_filter_epsilon_covers_what_ran():
    orders = DEFAULT_ORDERS
    step = rdp_subsampled_gaussian(0.01, 1.0, orders)
    flt = RDPFilter(orders, 50 * step)
    while flt.request(step):
        pass
    direct = get_epsilon_from_rdp(orders, 50 * step, 1e-5)
    assert flt.epsilon(1e-5) >= direct - 1e-12


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: rdp_subsampled_gaussian(1.5, 1.0, 2.0), "sample_rate"),
        (lambda: rdp_subsampled_gaussian(0.1, 0.0, 2.0), "sigma"),
        (lambda: rdp_subsampled_gaussian(0.1, 1.0, 1.0), "orders"),
        (lambda: rdp_subsampled_gaussian(0.1, 1.0, float("nan")), "orders"),
        (lambda: get_epsilon_from_rdp([2.0], [0.1], 0.0), "delta"),
        (lambda: get_epsilon_from_rdp([2.0], [0.1], 1e-5, "best"), "method"),
        (lambda: get_epsilon_from_rdp([2.0, 3.0], [0.1], 1e-5), "same length"),
        (lambda: get_epsilon_from_rdp([2.0], [-0.1], 1e-5), "rdp"),
        (lambda: RDPFilter([2.0, 3.0], [1.0, 2.0, 3.0]), "budgets"),
        (lambda: RDPFilter([0.5], [1.0]), "orders"),
        (lambda: RDPFilter([2.0], [-1.0]), "budgets"),
        (lambda: RDPFilter([2.0], [1.0]).request([0.1, 0.2]), "rdp"),
        (lambda: RDPFilter([2.0], [1.0]).request([-0.1]), "rdp"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_bad_types():
    with pytest.raises(TypeError, match="mechanism"):
        RDPFilter([2.0], [1.0]).request("gauss")
    with pytest.raises(TypeError, match="halt_on_refusal"):
        RDPFilter([2.0], [1.0], halt_on_refusal=1)

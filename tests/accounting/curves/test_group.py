"""Group privacy 1 - (1 - f)^{∘k} (Dong-Roth-Su (2022), §2.5) against pointwise composition."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.accounting import (
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    PiecewiseLinearTradeOff,
    TradeOffFunction,
    group_privacy,
    tradeoff_from_pair,
)

GRID = np.linspace(0.0, 1.0, 20001)


def _pointwise(f, k, alpha):
    """1 - h(h(...h(alpha))) with h = 1 - f, evaluated point by point."""
    x = np.asarray(alpha, dtype=float)
    for _ in range(k):
        x = 1.0 - f(x)
    return 1.0 - x


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize(
    "make",
    [
        lambda: EpsDeltaTradeOff(0.7, 0.01),
        lambda: tradeoff_from_pair([0.5, 0.3, 0.2], [0.2, 0.3, 0.5]),
    ],
)
def test_piecewise_linear_matches_pointwise_composition(make, k):
    f = make()
    g = group_privacy(f, k)
    np.testing.assert_allclose(g(GRID), _pointwise(f, k, GRID), atol=1e-12)
    assert np.all(g(GRID) <= _pointwise(f, k, GRID) + 1e-13)


@pytest.mark.parametrize("eps,k", [(0.5, 2), (1.0, 3), (0.2, 5)])
def test_pure_dp_group_is_between_k_eps_dp_and_the_laplace_limit(eps, k):
    g = group_privacy(EpsDeltaTradeOff(eps), k)
    # classical group privacy: k eps-DP, never better than the group curve
    assert np.all(EpsDeltaTradeOff(k * eps)(GRID) <= g(GRID) + 1e-12)
    assert g.epsilon(0.0) == pytest.approx(k * eps, rel=1e-12)
    # below the Laplace limit T(Lap(0,1), Lap(k eps, 1)) (Dong-Roth-Su (2022), §2.5)
    assert np.all(g(GRID) <= LaplaceTradeOff(k * eps)(GRID) + 1e-12)


@pytest.mark.parametrize("mu,k,gap", [(1.0, 4, 0.00688), (2.0, 4, 0.02409), (1.0, 10, 0.00119)])
def test_gap_to_the_laplace_limit(mu, k, gap):
    # the sup gap of 1 - (1 - f_{mu/k,0})^{∘k} to the Laplace limit; Dong-Roth-Su (2022)
    # say "within 0.005" for mu = 1, k = 4, but the gap is 0.00688 (checked here by
    # pointwise composition on a fine grid, independently of the vertex algebra)
    f = EpsDeltaTradeOff(mu / k)
    fine = np.linspace(0.0, 1.0, 400001)
    lap = LaplaceTradeOff(mu)(fine)
    assert np.max(lap - _pointwise(f, k, fine)) == pytest.approx(gap, abs=5e-6)
    assert np.max(lap - group_privacy(f, k)(fine)) == pytest.approx(gap, abs=5e-6)


def test_gaussian_and_laplace_shift_families():
    assert group_privacy(GaussianTradeOff(0.5), 3).mu == 1.5  # mu-GDP => k mu-GDP
    assert group_privacy(LaplaceTradeOff(0.3), 4).mu == pytest.approx(1.2)
    # the shift rule agrees with pointwise composition of the curve itself
    for f in (GaussianTradeOff(0.8), LaplaceTradeOff(0.8)):
        a = np.linspace(0.001, 0.999, 999)
        np.testing.assert_allclose(group_privacy(f, 3)(a), _pointwise(f, 3, a), atol=1e-9)


class _Opaque(TradeOffFunction):
    """G_mu seen only through its values (forces the polygon path)."""

    is_symmetric = True

    def __init__(self, mu):
        self._g = GaussianTradeOff(mu)

    def _evaluate(self, alpha):
        return self._g._evaluate(alpha)

    def _delta(self, epsilon):
        return self._g._delta(epsilon)


def test_generic_curve_is_bounded_below():
    g = group_privacy(_Opaque(1.0), 3)
    assert isinstance(g, PiecewiseLinearTradeOff)
    exact = GaussianTradeOff(3.0)(GRID)
    assert np.all(g(GRID) <= exact + 1e-15)
    assert np.max(exact - g(GRID)) < 1e-4
    assert g.delta(1.0) >= GaussianTradeOff(3.0).delta(1.0)
    assert g.delta(1.0) == pytest.approx(GaussianTradeOff(3.0).delta(1.0), abs=1e-4)


def test_k_one_and_bad_input():
    f = EpsDeltaTradeOff(1.0)
    assert group_privacy(f, 1) is f
    with pytest.raises(ValueError, match="k"):
        group_privacy(f, 0)
    with pytest.raises(TypeError, match="k"):
        group_privacy(f, 2.0)
    with pytest.raises(TypeError, match="f must be"):
        group_privacy(lambda a: 1 - a, 2)
    assert math.isfinite(group_privacy(f, 50).epsilon(1e-6))

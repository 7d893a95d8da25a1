"""(mu*, gamma) of Zheng-Dong-Long-Su (2020), §4, against quadrature and the paper's values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import ndtri

from ldp.accounting import (
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    compose,
    edgeworth_tradeoff_approx,
    laplace_cumulants,
    tradeoff_summary,
)


def _by_quadrature(f):
    area, _ = quad(lambda x: float(f(x)), 0, 1, limit=500, epsabs=1e-13, points=[0.5])
    fixed = brentq(lambda x: float(f(x)) - x, 0, 1, xtol=1e-15)
    return -2 * ndtri(fixed), area


@pytest.mark.parametrize(
    "f", [GaussianTradeOff(0.7), LaplaceTradeOff(1.3), EpsDeltaTradeOff(1.0, 0.05)]
)
def test_summary_against_quadrature(f):
    mu_star, gamma = tradeoff_summary(f)
    ref_mu, ref_gamma = _by_quadrature(f)
    assert mu_star == pytest.approx(ref_mu, rel=1e-9)
    assert gamma == pytest.approx(ref_gamma, rel=1e-8)


def test_paper_values_laplace_five_fold():
    # Zheng-Dong-Long-Su (2020), §4 (Laplace, theta = 3/sqrt(5), n = 5): Edgeworth
    # (2.5554, 0.0365), exact (2.5541, 0.0369), CLT gamma = Phi(-mu/sqrt 2) = 0.0286
    theta, n = 3 / math.sqrt(5), 5
    ew = tradeoff_summary(edgeworth_tradeoff_approx(*laplace_cumulants(theta), n=n))
    assert ew.mu_star == pytest.approx(2.5554, abs=2e-4)
    assert ew.gamma == pytest.approx(0.0365, abs=2e-4)
    exact = tradeoff_summary(compose(LaplaceTradeOff(theta), n).tradeoff)
    assert exact.mu_star == pytest.approx(2.5541, abs=5e-4)
    assert exact.gamma == pytest.approx(0.0369, abs=2e-4)
    assert tradeoff_summary(GaussianTradeOff(2.68900)).gamma == pytest.approx(0.0286, abs=1e-4)


def test_identity_extremes_and_bad_input():
    ident = GaussianTradeOff(0.0)
    assert tradeoff_summary(ident) == (0.0, 0.5)
    assert tradeoff_summary(EpsDeltaTradeOff(0.0)).gamma == pytest.approx(0.5)
    total = tradeoff_summary(EpsDeltaTradeOff(1.0, 1.0))
    assert total.mu_star == math.inf and total.gamma == 0.0
    assert np.isfinite(tradeoff_summary(LaplaceTradeOff(40.0)).gamma)
    with pytest.raises(TypeError, match="f must be"):
        tradeoff_summary(0.5)

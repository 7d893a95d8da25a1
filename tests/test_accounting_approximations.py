"""CLT / Berry-Esseen / Edgeworth approximations (seeds 000, 002; digest §5.6 oracles)."""

import math

import numpy as np
import pytest

from ldp import randomized_response
from ldp.accounting import (
    EpsDeltaTradeOff,
    GaussianTradeOff,
    berry_esseen_approx,
    clt_mu_approx,
    compose,
    edgeworth_cumulants,
    edgeworth_tradeoff_approx,
    edgeworth_value_approx,
    laplace_cumulants,
    sg_cumulants,
    tradeoff_functionals,
)

ALPHA = [0.01, 0.05, 0.1, 0.3, 0.5]


def test_rr_functionals_lemma_d8():
    v = tradeoff_functionals(EpsDeltaTradeOff(0.9))
    t = math.tanh(0.45)
    assert v["kl"] == pytest.approx(0.9 * t)
    assert v["kappa2"] == pytest.approx(0.81)
    assert v["kappa3_bar"] == pytest.approx(0.729 * (1 - t**4))
    assert math.isinf(tradeoff_functionals(EpsDeltaTradeOff(1.0, 0.01))["kl"])


def test_clt_and_berry_esseen_cor_d7():
    n, eps = 10, 1 / math.sqrt(10)
    mu, gamma = berry_esseen_approx([randomized_response(eps)] * n)
    assert mu == pytest.approx(2 * math.sqrt(n) * math.sinh(eps / 2))
    assert gamma == pytest.approx(0.183715, abs=1e-6)
    exact = compose(randomized_response(eps), n).tradeoff
    x = np.linspace(0, 1, 2001)
    g = GaussianTradeOff(mu)
    lower = np.clip(g(np.clip(x + gamma, 0, 1)) - gamma, 0, None)
    upper = g(np.clip(x - gamma, 0, 1)) + gamma
    assert np.all(lower <= exact(x) + 1e-12) and np.all(exact(x) <= upper + 1e-12)
    assert clt_mu_approx([EpsDeltaTradeOff(eps)] * n) == pytest.approx(mu)


@pytest.mark.parametrize(
    ("n", "expected", "cf"),
    [
        (5, [0.42373, 0.18091, 0.10135, 0.02141, 0.00646], [0.42092, 0.18418, 0.10176, 0.02136]),
        (10, [0.37998, 0.15820, 0.08604, 0.01717, 0.00453], [0.38057, 0.15899, 0.08608, 0.01716]),
    ],
)
def test_edgeworth_laplace_oracle_a(n, expected, cf):
    kp, kq = laplace_cumulants(3 / math.sqrt(n))
    np.testing.assert_allclose(edgeworth_tradeoff_approx(kp, kq, n)(ALPHA), expected, atol=2e-5)
    got_cf = edgeworth_tradeoff_approx(kp, kq, n, method="cornish_fisher")(ALPHA[:4])
    np.testing.assert_allclose(got_cf, cf, atol=2e-5)


def test_edgeworth_sgd_oracle_b():
    kp, kq = sg_cumulants(0.5, 1.0)
    np.testing.assert_allclose(kp, [-0.1114215, 0.1784652, 0.1077961, 0.0849998], atol=1e-7)
    np.testing.assert_allclose(kq, [0.1385785, 0.3429924, 0.2369429, 0.1767447], atol=1e-7)
    kp, kq = sg_cumulants(0.33437, 1.0)
    f = edgeworth_tradeoff_approx(kp, kq, 5)
    np.testing.assert_allclose(
        f([0.01, 0.05, 0.1, 0.2, 0.3, 0.5]),
        [0.92548, 0.77104, 0.65977, 0.51232, 0.40128, 0.23726],
        atol=2e-5,
    )


def test_laplace_moments_monte_carlo():
    rng = np.random.default_rng(3)
    theta = 0.8
    x = rng.laplace(0.0, 1.0, 2_000_000)
    loss = np.abs(x) - np.abs(x - theta)  # log q/p for Lap(theta) vs Lap(0)
    kp, _ = laplace_cumulants(theta)
    assert kp[0] == pytest.approx(loss.mean(), abs=2e-3)
    assert kp[1] == pytest.approx(loss.var(), abs=3e-3)


def test_outputs_are_valid_labelled_curves():
    kp, kq = laplace_cumulants(3.0)
    for degree in (0, 1, 2):
        for method in ("root", "cornish_fisher"):
            f = edgeworth_tradeoff_approx(kp, kq, 1, degree=degree, method=method)
            x = np.linspace(0, 1, 501)
            y = f(x)
            assert f.approx
            assert np.all(np.diff(y) <= 1e-12) and np.all(y <= 1 - x + 1e-12)
            assert np.all(np.diff(y, 2) >= -1e-9)


def test_edgeworth_refuses_lattice_and_infinite_losses():
    with pytest.raises(ValueError, match="lattice"):
        edgeworth_cumulants(randomized_response(1.0))
    with pytest.raises(ValueError, match="infinite privacy loss"):
        edgeworth_cumulants(EpsDeltaTradeOff(1.0, 0.01))
    with pytest.raises(ValueError, match="infinite"):
        clt_mu_approx([EpsDeltaTradeOff(1.0, 0.01)])
    with pytest.raises(ValueError, match="degree"):
        edgeworth_tradeoff_approx([0, 1, 0, 0], [0, 1, 0, 0], degree=3)
    with pytest.raises(ValueError, match="n must be >= 1"):
        edgeworth_tradeoff_approx([0, 1, 0, 0], [0, 1, 0, 0], n=0)


def test_edgeworth_warns_outside_its_reliable_range():
    """q = 0.188, sigma = 1, T = 50 at delta = 1e-5: Edgeworth says 16.6, the certified
    value is 9.53; it said so without a word."""
    import warnings

    from ldp.accounting import ApproximationWarning, PoissonSubsampledGaussian

    sgd = PoissonSubsampledGaussian(0.188, 1.0, 50)
    exact = sgd.epsilon(1e-5)
    assert 9.5 < exact < 9.6
    with pytest.warns(ApproximationWarning, match="reliable range"):
        approx = sgd.epsilon_edgeworth_approx(1e-5)
    assert approx > exact + 5.0
    kp, kq = sg_cumulants(0.188, 1.0)
    f = edgeworth_tradeoff_approx(kp, kq, 50)
    assert f.approx and f.relative_correction.shape == f.vertices[0].shape
    with pytest.warns(ApproximationWarning):
        f.delta(8.0)
    with pytest.warns(ApproximationWarning):
        edgeworth_value_approx(kp, kq, 50, 1e-6)
    # where the expansion holds it stays silent, and is close to the certified value
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sgd.epsilon_edgeworth_approx(0.3) == pytest.approx(sgd.epsilon(0.3), rel=0.01)
        edgeworth_value_approx(*laplace_cumulants(3 / math.sqrt(5)), 5, 0.1)
        edgeworth_tradeoff_approx(*laplace_cumulants(3 / math.sqrt(10)), n=10).epsilon(0.3)

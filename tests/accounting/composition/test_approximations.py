"""CLT / Berry-Esseen / Edgeworth approximations (Dong-Roth-Su (2022), Zheng-Dong-Long-Su
(2020)), against reference values computed independently."""

import itertools
import math

import mpmath
import numpy as np
import pytest

from ldp import randomized_response
from ldp.accounting import (
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    berry_esseen_approx,
    clt_mu_approx,
    compose,
    edgeworth_cumulants,
    edgeworth_tradeoff_approx,
    edgeworth_value_approx,
    laplace_cumulants,
    tradeoff_functionals,
)
from ldp.accounting.central import subsampled_gaussian_cumulants

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
def test_edgeworth_laplace_reference_values(n, expected, cf):
    kp, kq = laplace_cumulants(3 / math.sqrt(n))
    np.testing.assert_allclose(edgeworth_tradeoff_approx(kp, kq, n)(ALPHA), expected, atol=2e-5)
    got_cf = edgeworth_tradeoff_approx(kp, kq, n, method="cornish_fisher")(ALPHA[:4])
    np.testing.assert_allclose(got_cf, cf, atol=2e-5)


def test_edgeworth_subsampled_gaussian_cumulants():
    kp, kq = subsampled_gaussian_cumulants(0.5, 1.0)
    np.testing.assert_allclose(kp, [-0.1114215, 0.1784652, 0.1077961, 0.0849998], atol=1e-7)
    np.testing.assert_allclose(kq, [0.1385785, 0.3429924, 0.2369429, 0.1767447], atol=1e-7)
    kp, kq = subsampled_gaussian_cumulants(0.33437, 1.0)
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

    from ldp.accounting import ApproximationWarning
    from ldp.accounting.central import PoissonSubsampledGaussian

    sgd = PoissonSubsampledGaussian(0.188, 1.0, 50)
    exact = sgd.epsilon(1e-5)
    assert round(exact, 2) == 9.53
    with pytest.warns(ApproximationWarning, match="reliable range"):
        approx = sgd.epsilon_edgeworth_approx(1e-5)
    assert round(approx, 1) == 16.6
    kp, kq = subsampled_gaussian_cumulants(0.188, 1.0)
    f = edgeworth_tradeoff_approx(kp, kq, 50)
    assert f.approx and f.relative_correction.shape == f.vertices[0].shape
    with pytest.warns(ApproximationWarning):
        f.delta(8.0)
    with pytest.warns(ApproximationWarning, match="reliable range for delta = 1e-05"):
        assert f.epsilon_for_delta(1e-5) == pytest.approx(approx, rel=1e-9)
    with pytest.warns(ApproximationWarning):
        edgeworth_value_approx(kp, kq, 50, 1e-6)
    # where the expansion holds it stays silent, and is close to the certified value
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sgd.epsilon_edgeworth_approx(0.3) == pytest.approx(sgd.epsilon(0.3), rel=0.01)
        edgeworth_value_approx(*laplace_cumulants(3 / math.sqrt(5)), 5, 0.1)
        edgeworth_tradeoff_approx(*laplace_cumulants(3 / math.sqrt(10)), n=10).epsilon(0.3)


def test_edgeworth_guard_example_exact_value_against_dp_accounting():
    """The certified 9.53 of the guard's example (q = 0.188, sigma = 1, T = 50,
    delta = 1e-5) is dp-accounting's Poisson-subsampled Gaussian PLD to its discretisation."""
    dpl = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    from ldp.accounting.central import PoissonSubsampledGaussian

    theirs = (
        dpl.from_gaussian_mechanism(1.0, sampling_prob=0.188, value_discretization_interval=1e-4)
        .self_compose(50)
        .get_epsilon_for_delta(1e-5)
    )
    ours = PoissonSubsampledGaussian(0.188, 1.0, 50).epsilon(1e-5)
    assert ours == pytest.approx(theirs, abs=2e-3)
    assert ours >= theirs - 1e-4


# ------------------------------------------------------------ functionals of smooth curves
def _log_slope_integrals_mpmath(slope, breaks, dps=30):
    """kl, kappa2, kappa3, kappa3_bar as integrals over [0, 1] of g(log|f'(x)|), directly
    from the slope of the curve (tanh-sinh quadrature, breakpoints at the kinks)."""
    mpmath.mp.dps = dps
    pts = [mpmath.mpf(0), *[mpmath.mpf(b) for b in sorted(breaks)], mpmath.mpf(1)]
    log_slope = lambda x: mpmath.log(slope(x))  # noqa: E731
    kl = -mpmath.quad(log_slope, pts)
    return {
        "kl": kl,
        "kappa2": mpmath.quad(lambda x: log_slope(x) ** 2, pts),
        "kappa3": mpmath.quad(lambda x: abs(log_slope(x)) ** 3, pts),
        "kappa3_bar": mpmath.quad(lambda x: abs(log_slope(x) + kl) ** 3, pts),
    }


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 2.5, 6.0])
def test_gaussian_functionals_closed_form_vs_integration(mu):
    """kappa3 of G_mu was NaN. Under U[0, 1], log|G_mu'| = mu Z - mu^2/2 ~ N(-mu^2/2, mu^2):
    each functional is an integral against that normal density, done here in mpmath."""
    got = tradeoff_functionals(GaussianTradeOff(mu))
    mpmath.mp.dps = 40
    m, s = -(mpmath.mpf(mu) ** 2) / 2, mpmath.mpf(mu)
    pts = [-mpmath.inf, m - 10 * s, m, 0, m + 10 * s, mpmath.inf]

    def integral(g):
        return mpmath.quad(lambda x: g(x) * mpmath.npdf(x, m, s), sorted(pts))

    kl = -integral(lambda x: x)
    ref = {
        "kl": kl,
        "kappa2": integral(lambda x: x * x),
        "kappa3": integral(lambda x: abs(x) ** 3),
        "kappa3_bar": integral(lambda x: abs(x + kl) ** 3),
    }
    for key in ("kl", "kappa2", "kappa3", "kappa3_bar"):
        assert math.isfinite(got[key])
        assert got[key] == pytest.approx(float(ref[key]), rel=1e-12, abs=0)


@pytest.mark.parametrize("theta", [0.3, 1.0, 3.0])
def test_laplace_functionals_vs_integration(theta):
    t = mpmath.mpf(theta)
    edge = mpmath.exp(-t) / 2

    def slope(x):  # Dong-Roth-Su (2022), Lemma A.6
        if x < edge:
            return mpmath.exp(t)
        return mpmath.exp(-t) / (4 * x * x) if x <= 0.5 else mpmath.exp(-t)

    got = tradeoff_functionals(LaplaceTradeOff(theta))
    kl = float(t + mpmath.exp(-t) - 1)
    kink = math.sqrt(math.exp(kl - theta) / 4)  # log|f'| = -kl there
    ref = _log_slope_integrals_mpmath(slope, [float(edge), 0.5, kink])
    for key in ("kl", "kappa2", "kappa3", "kappa3_bar"):
        assert got[key] == pytest.approx(float(ref[key]), rel=1e-10, abs=0)
    mu = clt_mu_approx([LaplaceTradeOff(theta)] * 10)  # usable by the CLTs now
    assert mu == pytest.approx(2 * 10 * kl / math.sqrt(10 * (got["kappa2"] - kl * kl)))


@pytest.mark.parametrize(("kind", "param", "p"), [("gauss", 1.5, 0.3), ("laplace", 1.5, 0.3)])
def test_subsampled_functionals_vs_integration(kind, param, p):
    """C_p of G_mu / Laplace: integrals of g(log|C_p'|) over the three pieces of the curve,
    the last through f_p^{-1} found by root finding (no folding), in double precision."""
    from scipy.integrate import quad
    from scipy.optimize import brentq
    from scipy.special import ndtr, ndtri

    from ldp.accounting import subsample_tradeoff

    if kind == "gauss":
        base = GaussianTradeOff(param)
        base_f = lambda x: ndtr(-ndtri(x) - param)  # noqa: E731
        base_slope = lambda x: math.exp(-param * ndtri(x) - param**2 / 2)  # noqa: E731
        x_star, kinks = float(ndtr(-param / 2)), []
    else:
        base = LaplaceTradeOff(param)
        edge = math.exp(-param) / 2

        def base_f(x):  # Dong-Roth-Su (2022), Lemma A.6
            return 1 - x * math.exp(param) if x < edge else math.exp(-param) / (4 * x)

        def base_slope(x):
            return math.exp(param) if x < edge else math.exp(-param) / (4 * x * x)

        x_star, kinks = math.exp(-param / 2) / 2, [edge]
    f_p = lambda x: p * base_f(x) + (1 - p) * (1 - x)  # noqa: E731
    fp_slope = lambda x: p * base_slope(x) + 1 - p  # noqa: E731
    y_star = f_p(x_star)

    def log_slope(x):
        if x <= x_star:
            return math.log(fp_slope(x))
        if x <= y_star:
            return 0.0
        t = brentq(lambda s: f_p(s) - x, 0.0, x_star, xtol=1e-300, rtol=1e-15)
        return -math.log(fp_slope(t))

    cuts = sorted({0.0, *kinks, *(f_p(k) for k in kinks), x_star, y_star, 1.0})

    def integral(g):
        return sum(
            quad(lambda x: g(log_slope(x)), lo, hi, epsabs=0, epsrel=1e-11, limit=200)[0]
            for lo, hi in itertools.pairwise(cuts)
        )

    got = tradeoff_functionals(subsample_tradeoff(base, p))
    kl = -integral(lambda v: v)
    ref = {
        "kl": kl,
        "kappa2": integral(lambda v: v * v),
        "kappa3": integral(lambda v: abs(v) ** 3),
        "kappa3_bar": integral(lambda v: abs(v + kl) ** 3),
    }
    for key in ("kl", "kappa2", "kappa3", "kappa3_bar"):
        assert got[key] == pytest.approx(ref[key], rel=1e-7, abs=0)


def test_functionals_of_other_curves_raise_a_clear_type_error():
    from ldp.accounting import TradeOffFunction, subsample_tradeoff

    class Custom(TradeOffFunction):
        def _evaluate(self, alpha):
            return 1.0 - alpha

        def _delta(self, epsilon):
            return np.maximum(0.0, -np.expm1(epsilon))

    with pytest.raises(TypeError, match="tradeoff_functionals needs"):
        tradeoff_functionals(Custom())
    with pytest.raises(TypeError, match="subsampled Gaussian and Laplace"):
        tradeoff_functionals(
            subsample_tradeoff(subsample_tradeoff(GaussianTradeOff(1.0), 0.5), 0.5)
        )


@pytest.mark.parametrize("theta", [1e-9, 1e-4, 0.01, 0.5])
def test_laplace_functionals_keep_precision_for_small_theta(theta):
    """theta + e^-theta - 1 and E L^2 cancel for small theta (kappa2 came out negative)."""
    mpmath.mp.dps = 50
    t = mpmath.mpf(theta)
    kl = t + mpmath.exp(-t) - 1
    kappa2 = t**2 - 2 * t + 4 - (2 * t + 4) * mpmath.exp(-t)
    got = tradeoff_functionals(LaplaceTradeOff(theta))
    assert got["kl"] == pytest.approx(float(kl), rel=1e-12, abs=0)
    assert got["kappa2"] == pytest.approx(float(kappa2), rel=1e-12, abs=0)


def test_subsampled_gaussian_functionals_for_a_large_mu():
    """C_p(G_30): exp(mu z) overflowed in the folded integrand."""
    from ldp.accounting import subsample_tradeoff

    whole = tradeoff_functionals(subsample_tradeoff(GaussianTradeOff(30.0), 1.0))
    closed = tradeoff_functionals(GaussianTradeOff(30.0))
    for key in ("kl", "kappa2", "kappa3", "kappa3_bar"):
        assert whole[key] == pytest.approx(closed[key], rel=1e-9)
    half = tradeoff_functionals(subsample_tradeoff(GaussianTradeOff(30.0), 0.5))
    assert all(math.isfinite(v) and v > 0 for v in half.values())
    assert half["kl"] < closed["kl"]


def _ungrouped(items):
    """The CLT and Berry-Esseen numbers summed item by item, with no grouping."""
    from ldp.accounting import tradeoff_from_channel

    vals = [
        tradeoff_functionals(tradeoff_from_channel(x) if hasattr(x, "matrix") else x) for x in items
    ]
    kl = math.fsum(v["kl"] for v in vals)
    var = math.fsum(v["kappa2"] for v in vals) - math.fsum(v["kl"] ** 2 for v in vals)
    k3 = math.fsum(v["kappa3_bar"] for v in vals)
    return 2 * kl / math.sqrt(var), 0.56 * k3 / var**1.5


def test_clt_groups_identical_items_and_equals_the_ungrouped_sums():
    from ldp import k_rr

    a, b = k_rr(5, 0.7), randomized_response(0.3)
    a_again = k_rr(5, 0.7)  # equal matrix, another object: same group
    items = [a] * 40 + [b] * 7 + [a_again] * 3 + [EpsDeltaTradeOff(0.5)] * 5
    items += [GaussianTradeOff(0.2), GaussianTradeOff(0.2), LaplaceTradeOff(0.4)]
    mu, gamma = _ungrouped(items)
    assert clt_mu_approx(items) == pytest.approx(mu, rel=1e-12)
    got = berry_esseen_approx(items)
    assert got[0] == pytest.approx(mu, rel=1e-12) and got[1] == pytest.approx(gamma, rel=1e-12)


def test_clt_evaluates_each_distinct_item_once(monkeypatch):
    import ldp.accounting.composition.approximations as approx
    from ldp import k_rr

    calls = []
    real = approx.tradeoff_functionals
    monkeypatch.setattr(approx, "tradeoff_functionals", lambda f: calls.append(f) or real(f))
    c = k_rr(8, 1.0)
    mu = clt_mu_approx([c] * 10_000 + [k_rr(8, 1.0)] * 5 + [GaussianTradeOff(0.1)] * 3)
    assert len(calls) == 2  # the two equal k-RR channels and the Gaussian
    # k-RR: kl and kappa2 of its binary hypothesis test, n = 10005 copies, plus G_0.1 x 3
    v = real(approx.tradeoff_from_channel(c))
    var = 10_005 * (v["kappa2"] - v["kl"] ** 2) + 3 * 0.1**2
    assert mu == pytest.approx(2 * (10_005 * v["kl"] + 3 * 0.1**2 / 2) / math.sqrt(var))


def test_clt_rejects_a_foreign_item_anywhere():
    with pytest.raises(TypeError, match="got str"):
        clt_mu_approx([EpsDeltaTradeOff(0.5)] * 3 + ["rr"])

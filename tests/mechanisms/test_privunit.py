"""PrivUnit and PrivUnitG: constants against independent derivations and the published
reference values, the samplers against their laws, unbiasedness and variance by simulation.

Reference values: Bhowmick et al. (2018) and Asi-Feldman-Talwar (2022) as computed
independently with mpmath and Monte Carlo for the project's specification (d = 256, eps = 4:
exact-epsilon error 110.726, Theorem 1 split 156.435 spending 3.5727, PrivUnitG 111.442,
DuchiL2 430.850; the sweep over epsilon and the large-d table).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from ldp.audit import epsilon_lower_bound
from ldp.mechanisms import DuchiL2, PrivUnit, PrivUnitG, privunit_design
from ldp.mechanisms.vector.privunit import (
    _gamma_draws,
    _inner_products,
    angle_constants,
    envelope_constants,
)

mpmath.mp.dps = 40


# ----------------------------------------------------------------------------- reference values
# eps: (PrivUnit exact, Theorem 1 split, PrivUnitG, Duchi l2), E||Z - u||^2 at d = 256
SWEEP = {
    0.5: (6432.97, 6477.17, 6446.04, 6689.64),
    1.0: (1616.83, 1656.73, 1620.49, 1878.35),
    2.0: (412.56, 452.97, 413.87, 690.93),
    4.0: (110.73, 156.44, 111.44, 430.85),
    8.0: (33.46, 39.39, 34.03, 400.88),
    16.0: (11.79, 12.71, 12.30, 400.34),
}


@pytest.mark.parametrize("eps", sorted(SWEEP))
def test_errors_match_the_reference_sweep_at_d_256(eps):
    exact, split, gaussian, duchi = SWEEP[eps]
    assert privunit_design(eps, 256).error == pytest.approx(exact, abs=0.006)
    assert privunit_design(eps, 256, split="theorem1").error == pytest.approx(split, abs=0.006)
    assert PrivUnitG(eps, 256).worst_case_variance() - 1 == pytest.approx(gaussian, abs=0.006)
    assert DuchiL2(eps, 256).worst_case_variance() - 1 == pytest.approx(duchi, abs=0.006)
    assert PrivUnit(eps, 256).worst_case_variance() - 1 == pytest.approx(exact, abs=0.006)


def test_the_exact_split_beats_theorem_1_at_d_256_eps_4():
    exact = privunit_design(4.0, 256)
    assert (exact.gamma, exact.p, exact.cap) == pytest.approx(
        (0.094607, 0.791969, 6.51822e-2), rel=2e-5
    )
    assert exact.scale == pytest.approx(10.57005, rel=1e-6)
    assert exact.error == pytest.approx(110.726, abs=5e-4)
    assert exact.epsilon == 4.0
    loose = privunit_design(4.0, 256, split="theorem1")
    assert loose.gamma == pytest.approx(0.060186, rel=1e-4)
    assert loose.p == pytest.approx(0.878123, rel=1e-5)
    assert loose.epsilon_cap == pytest.approx(2.0252, abs=1e-4)
    assert loose.error == pytest.approx(156.435, abs=5e-4)
    assert loose.epsilon == pytest.approx(3.5727, abs=1e-4)  # what the split actually spends
    mech = PrivUnit(4.0, 256)
    assert mech.epsilon >= 4.0 and mech.epsilon - 4.0 < 1e-10
    assert mech.gamma == exact.gamma


def test_privunitg_reference_values():
    mech = PrivUnitG(4.0, 256)
    assert mech.p == pytest.approx(0.790946, abs=2e-6)
    assert mech.gamma == pytest.approx(1.515638, abs=2e-6)
    assert math.exp(float(stats.norm.logsf(mech.gamma))) == pytest.approx(6.48055e-2, rel=1e-5)
    assert mech.sigma == pytest.approx(0.659788, rel=2e-6)
    assert mech.worst_case_variance() - 1 == pytest.approx(111.442, abs=5e-4)
    # the optimal p does not depend on d
    assert PrivUnitG(4.0, 5).p == mech.p == PrivUnitG(4.0, 10**6).p


@pytest.mark.parametrize(
    ("d", "s", "p", "per_d"),
    [
        (16, 1.43628, 0.807626, 0.39196),
        (256, 1.51075, 0.791969, 0.43252),
        (10**4, 1.51551, 0.790972, 0.43525),
        (10**6, 1.51564, 0.790946, 0.43532),
    ],
)
def test_large_d_constants_are_stable_and_converge_to_privunitg(d, s, p, per_d):
    design = privunit_design(4.0, d)
    assert design.gamma * math.sqrt(d - 1) == pytest.approx(s, abs=2e-5)
    assert design.p == pytest.approx(p, abs=2e-6)
    assert design.error / d == pytest.approx(per_d, abs=2e-5)
    assert (PrivUnitG(4.0, d).worst_case_variance() - 1) / d == pytest.approx(0.43532, abs=2e-5)
    mech = PrivUnit(4.0, d)
    assert math.isfinite(mech.bound) and 4.0 <= mech.epsilon < 4.0 + 1e-10


# ----------------------------------------------------------------------------- constants
def _mp_cap(d: int, gamma: float) -> mpmath.mpf:
    a = mpmath.mpf(d - 1) / 2
    return mpmath.betainc(a, a, 0, (1 - mpmath.mpf(gamma)) / 2, regularized=True)


@pytest.mark.parametrize(("d", "gamma"), [(2, 0.3), (3, 0.5), (5, 0.2), (16, 0.36), (256, 0.0946)])
def test_cap_and_scale_against_quadrature_of_the_sphere_law(d, gamma):
    """``C`` and ``m`` integrated directly from the density of ``<V, u>``, proportional to
    ``(1 - t^2)^((d-3)/2)`` on ``[-1, 1]`` (not from the incomplete beta function)."""
    mech = PrivUnit(1.0, d, gamma=gamma)
    k = mpmath.mpf(d - 3) / 2
    density = lambda t: (1 - t * t) ** k  # noqa: E731
    total = mpmath.quad(density, [-1, 0, 1])
    cap = mpmath.quad(density, [gamma, 1]) / total
    first = mpmath.quad(lambda t: t * density(t), [gamma, 1]) / total
    assert float(cap) == pytest.approx(mech.cap, rel=1e-13)
    p = mpmath.mpf(mech.p)
    m = first * (p / cap - (1 - p) / (1 - cap))  # E<V,u> with the cap drawn w.p. p
    assert float(1 / m) == pytest.approx(mech.bound, rel=1e-12)


def test_unregularized_form_of_the_paper_agrees_with_the_log_form():
    # m = (1 - gamma^2)^a / (2^(d-2) (d-1)) [p / (B(a,a) - B(tau;a,a)) - (1-p) / B(tau;a,a)]
    for d, gamma in [(4, 0.3), (40, 0.2), (300, 0.09)]:
        mech = PrivUnit(2.0, d, gamma=gamma)
        a = mpmath.mpf(d - 1) / 2
        tau = (1 + mpmath.mpf(gamma)) / 2
        b_tau = mpmath.betainc(a, a, 0, tau)
        b_full = mpmath.beta(a, a)
        p = mpmath.mpf(mech.p)
        m = (
            (1 - mpmath.mpf(gamma) ** 2) ** a
            / (2 ** (d - 2) * (d - 1))
            * (p / (b_full - b_tau) - (1 - p) / b_tau)
        )
        assert float(1 / m) == pytest.approx(mech.bound, rel=1e-12)


@pytest.mark.parametrize(
    ("eps", "d"), [(1e-6, 3), (0.5, 2), (1.0, 16), (4.0, 256), (8.0, 64), (16.0, 100)]
)
def test_epsilon_is_an_upper_bound_on_the_exact_ratio_and_tight(eps, d):
    mech = PrivUnit(eps, d)
    cap = _mp_cap(d, mech.gamma)
    odds = mpmath.mpf(mech.sampler()["keep"][0]) / mpmath.mpf(mech.sampler()["keep"][1])
    exact = mpmath.log(odds) + mpmath.log((1 - cap) / cap)
    assert mech.epsilon >= exact
    assert mech.epsilon - exact < 1e-11
    g = PrivUnitG(eps, d)
    w0, w1 = (mpmath.mpf(w) for w in g.sampler()["keep"])
    upper = mpmath.ncdf(-mpmath.mpf(g.gamma))
    exact_g = mpmath.log(w0 / w1) + mpmath.log((1 - upper) / upper)
    assert g.epsilon >= exact_g and g.epsilon - exact_g < 1e-11
    # the privacy channel has the same ratio, and never more
    for m in (mech, g):
        assert m.privacy_channel().epsilon <= m.epsilon


def test_theorem1_is_loose_everywhere_and_the_exact_design_never_worse():
    for eps in (0.3, 1.0, 3.0, 6.0):
        for d in (8, 100, 5000):
            exact = privunit_design(eps, d)
            loose = privunit_design(eps, d, split="theorem1")
            assert exact.error <= loose.error * (1 + 1e-9)
            assert loose.epsilon < eps  # the sufficient condition wastes budget
            # the optimum is a maximum of m over gamma: nearby gammas are worse
            for factor in (0.97, 1.03):
                other = PrivUnit(eps, d, gamma=exact.gamma * factor)
                assert other.worst_case_variance() >= exact.scale**2 * (1 - 1e-12)


# ----------------------------------------------------------------------------- samplers
def _conditional_cdf(d: int, gamma: float, cap: bool):
    a = (d - 1) / 2

    def full(t):
        return stats.beta.cdf((1 + np.asarray(t)) / 2, a, a)

    low = full(gamma)
    if cap:
        return lambda t: (full(t) - low) / (1 - low)
    return lambda t: full(t) / low


@pytest.mark.parametrize(
    ("d", "gamma", "cap", "envelope"),
    [
        (2, 0.3, True, False),
        (2, 0.3, False, False),
        (2, 0.999, True, False),
        (3, 0.5, True, True),
        (16, 0.2, True, False),
        (16, 0.5, True, True),
        (16, 0.5, False, False),
        (300, 0.25, True, True),
        (300, 0.05, False, False),
    ],
)
def test_inner_product_sampler_against_its_law(d, gamma, cap, envelope):
    gen = np.random.default_rng(d * 1000 + int(gamma * 100) + 7 * cap + 3 * envelope)
    constants = envelope_constants(d, gamma) if envelope else None
    angle = angle_constants(gamma) if d == 2 else None
    t = _inner_products(gen, 20_000, d, gamma, cap, constants, angle)
    assert np.all(t >= gamma) if cap else np.all(t < gamma)
    result = stats.kstest(t, _conditional_cdf(d, gamma, cap))
    assert result.pvalue > 1e-3


@pytest.mark.parametrize("shape", [1.0, 2.5, 7.5, 500.0])
def test_gamma_sampler_against_its_law(shape):
    draws = _gamma_draws(np.random.default_rng(int(shape * 10)), 20_000, shape)
    assert stats.kstest(draws, stats.gamma(shape).cdf).pvalue > 1e-3


@pytest.mark.parametrize(("eps", "d"), [(1.0, 16), (8.0, 16)])
def test_privunit_reports_have_the_law_of_the_mechanism(eps, d):
    """``<Z, u> m`` is ``T``: in the cap with probability ``p``, with the sphere's conditional
    law on either side; the perpendicular part is uniform on the sphere of ``u^perp``."""
    mech = PrivUnit(eps, d)
    n = 20_000
    u = np.zeros((n, d))
    u[:, 2] = 1.0
    z = mech.privatize(u, rng=11)
    t = z[:, 2] / mech.bound
    in_cap = t >= mech.gamma
    share = in_cap.mean()
    assert abs(share - mech.p) < 4 * math.sqrt(mech.p * (1 - mech.p) / n)
    assert stats.kstest(t[in_cap], _conditional_cdf(d, mech.gamma, True)).pvalue > 1e-3
    assert stats.kstest(t[~in_cap], _conditional_cdf(d, mech.gamma, False)).pvalue > 1e-3
    perpendicular = np.delete(z, 2, axis=1) / mech.bound
    w = perpendicular / np.sqrt(np.maximum(1e-300, 1 - t * t))[:, None]
    a = (d - 2) / 2  # one coordinate of a uniform unit vector in R^(d-1)
    assert stats.kstest((w[:, 0] + 1) / 2, stats.beta(a, a).cdf).pvalue > 1e-3


def test_privunitg_reports_have_the_law_of_the_mechanism():
    mech = PrivUnitG(2.0, 8)
    n = 20_000
    u = np.zeros((n, 8))
    u[:, 0] = 1.0
    y = mech.privatize(u, rng=5) / mech.sigma
    alpha = y[:, 0]
    tail = alpha >= mech.gamma
    assert abs(tail.mean() - mech.p) < 4 * math.sqrt(mech.p * (1 - mech.p) / n)
    g = mech.gamma
    upper = stats.norm.sf(g)
    tail_cdf = lambda a: (stats.norm.cdf(a) - stats.norm.cdf(g)) / upper  # noqa: E731
    body_cdf = lambda a: stats.norm.cdf(a) / stats.norm.cdf(g)  # noqa: E731
    assert stats.kstest(alpha[tail], tail_cdf).pvalue > 1e-3
    assert stats.kstest(alpha[~tail], body_cdf).pvalue > 1e-3
    for j in (1, 7):
        assert stats.kstest(y[:, j], stats.norm.cdf).pvalue > 1e-3


# ----------------------------------------------------------------------------- estimation
@pytest.mark.parametrize("cls", [PrivUnit, PrivUnitG])
def test_unbiased_for_mixed_inputs_inside_the_ball(cls):
    """Unit, shorter and zero inputs (radius 2): the estimate's error, standardised by the
    exact per-coordinate variance, is chi-square with d degrees of freedom."""
    d, n = 6, 60_000
    rng = np.random.default_rng(1)
    directions = rng.normal(size=(n, d))
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    lengths = rng.choice([0.0, 0.7, 2.0], size=n)
    x = directions * lengths[:, None]
    mech = cls(1.5, d, radius=2.0)
    reports = mech.privatize(x, rng=2)
    decoded = mech.decode(reports)
    error = decoded.mean(axis=0) - x.mean(axis=0)
    per_coordinate = ((decoded - x) ** 2).mean(axis=0) / n  # consistent variance estimate
    statistic = float((error**2 / per_coordinate).sum())
    assert stats.chi2.sf(statistic, d) > 1e-3
    assert np.allclose(mech.estimate(reports), decoded.mean(axis=0))


@pytest.mark.parametrize("cls", [PrivUnit, PrivUnitG])
@pytest.mark.parametrize("length", [1.0, 0.4, 0.0])
def test_variance_matches_simulation(cls, length):
    d, n = 10, 40_000
    mech = cls(2.0, d, radius=1.5)
    x = np.zeros((n, d))
    x[:, 3] = length
    z = mech.privatize(x, rng=int(length * 10) + 3)
    observed = ((z - x) ** 2).sum(axis=1)
    expected = float(mech.per_user_variance(x[:1])[0])
    assert expected == pytest.approx(mech.radius**2 * mech.worst_case_variance() / 2.25 - length**2)
    assert observed.mean() == pytest.approx(expected, rel=0.03)
    # variance of the mean estimate: the trace of the per-user variance over n
    assert mech.variance(n, x[0]) == pytest.approx(expected / n)


def test_privunit_beats_duchi_l2():
    for eps in (1.0, 4.0):
        for d in (3, 64, 1000):
            duchi = DuchiL2(eps, d).worst_case_variance()
            assert PrivUnit(eps, d).worst_case_variance() < duchi
            assert PrivUnitG(eps, d).worst_case_variance() < duchi * 1.001 or d < 10


# ----------------------------------------------------------------------------- privacy
@pytest.mark.parametrize("cls", [PrivUnit, PrivUnitG])
def test_audit_is_below_and_close_to_epsilon(cls):
    mech = cls(1.0, 3)
    x0, x1 = [1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]
    result = epsilon_lower_bound(mech, x0, x1, n_samples=400_000, rng=2026)
    assert result.value <= mech.epsilon
    assert result.value >= mech.epsilon - 0.06


def test_privacy_channel_is_the_antipodal_pair():
    mech = PrivUnit(2.0, 5)
    pair = mech.privacy_channel().matrix
    far = (1 - mech.p) * mech.cap / (1 - mech.cap)
    np.testing.assert_allclose(pair[0], [mech.p, far, 1 - mech.p - far], rtol=1e-12)
    assert math.log(pair[0, 0] / pair[0, 1]) == pytest.approx(2.0, rel=1e-12)
    # simulated: the share of u's reports in the cap of -u
    n = 100_000
    x = np.zeros((n, 5))
    x[:, 0] = 1.0
    t = mech.privatize(x, rng=4)[:, 0] / mech.bound
    assert abs((t <= -mech.gamma).mean() - far) < 4 * math.sqrt(far / n)


# ----------------------------------------------------------------------------- bad input
def test_bad_parameters_raise_naming_the_argument():
    with pytest.raises(ValueError, match="d must be >= 2"):
        PrivUnit(1.0, 1)
    with pytest.raises(TypeError, match="d must be an integer"):
        PrivUnit(1.0, 2.5)
    with pytest.raises(ValueError, match="gamma"):
        PrivUnit(1.0, 5, gamma=1.0)
    with pytest.raises(ValueError, match="gamma"):
        PrivUnit(1.0, 5, gamma=-0.1)
    with pytest.raises(ValueError, match="gamma"):
        PrivUnit(1.0, 10**6, gamma=0.9)  # the cap's probability underflows
    with pytest.raises(ValueError, match="radius"):
        PrivUnit(1.0, 5, radius=0.0)
    with pytest.raises(ValueError, match="epsilon"):
        PrivUnitG(0.0, 5)
    with pytest.raises(ValueError, match="p must be"):
        PrivUnitG(1.0, 5, p=0.99)  # gamma would be negative
    with pytest.raises(ValueError, match="p"):
        PrivUnitG(1.0, 5, p=0.4)
    with pytest.raises(ValueError, match="split"):
        privunit_design(1.0, 5, split="half")
    with pytest.raises(TypeError, match="epsilon"):
        privunit_design("1", 5)


@pytest.mark.parametrize("cls", [PrivUnit, PrivUnitG])
def test_bad_values_and_reports_raise(cls):
    mech = cls(1.0, 4)
    with pytest.raises(ValueError, match=r"shape \(n, 4\)"):
        mech.privatize(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="ball"):
        mech.privatize(np.full((2, 4), 0.9))
    with pytest.raises(ValueError, match=r"NaN|finite"):
        mech.privatize(np.full((2, 4), np.nan))
    reports = mech.privatize(np.eye(4), rng=0)
    bad = reports.copy()
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match="row 1"):
        mech.decode(bad)
    if cls is PrivUnit:
        off = reports.copy()
        off[2] = 0.0  # on the grid, but not on the sphere of radius bound
        with pytest.raises(ValueError, match=r"row 2.*norm"):
            mech.decode(off)


@pytest.mark.parametrize(("eps", "d"), [(50.0, 2), (50.0, 3), (700.0, 2), (700.0, 1000), (1e-6, 5)])
def test_extreme_parameters_give_valid_mechanisms_and_reports(eps, d):
    for mech in (PrivUnit(eps, d), PrivUnitG(eps, d)):
        assert eps <= mech.epsilon < eps * (1 + 1e-9) + 1e-11
        assert math.isfinite(mech.worst_case_variance()) and mech.worst_case_variance() >= 1
        x = np.zeros((50, d))
        x[:, -1] = 1.0
        reports = mech.privatize(x, rng=3)
        np.testing.assert_array_equal(mech.decode(reports), reports)  # valid reports


def test_identity_and_parameters_round_trip():
    mech = PrivUnit(3.0, 7, radius=2.5)
    assert PrivUnit(**mech.params) == mech
    assert mech.params["gamma"] == mech.gamma
    g = PrivUnitG(3.0, 7)
    assert PrivUnitG(**g.params) == g and g.params["p"] == g.p


@pytest.mark.parametrize("cls", [PrivUnit, PrivUnitG])
def test_privatize_works_in_blocks_of_users(cls, monkeypatch):
    """Working memory is bounded: users go through in blocks, in order, each block drawing
    as a batch of its own (here 3 users per block)."""
    import ldp.mechanisms.limits as limits

    mech = cls(2.0, 4)
    x = np.tile([0.0, 0.6, 0.0, 0.8], (7, 1))
    monkeypatch.setattr(limits, "CHUNK_ELEMENTS", 12)
    whole = mech.privatize(x, rng=9)
    monkeypatch.setattr(limits, "CHUNK_ELEMENTS", 1 << 22)
    gen = np.random.default_rng(9)
    parts = [mech.privatize(x[i : i + 3], rng=gen) for i in (0, 3, 6)]
    np.testing.assert_array_equal(whole, np.vstack(parts))

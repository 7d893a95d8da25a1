"""Theorem 4.2 parameters and Algorithm 3 of Tran-Koskela-Räisä-Honkela (2025).

Independent checks: Gaussian steps (exact PLRV moments in closed form, where the CLT mu is
the exact composed GDP parameter), exact quadrature moments of subsampled Gaussian steps
against the Dong-Roth-Su CLT, and the per-record budgets of Algorithm 3 recomputed by hand
(number of full-clip steps, last clip norm) and against the global Algorithm 2 filter.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp.accounting import ApproxGDPFilter
from ldp.accounting.central import (
    IndividualApproxGDPAccountant,
    adaptive_clt_params,
    approx_gdp_charge,
    approx_gdp_clip,
    subsampled_gaussian_loss_moments,
)


def test_theorem_43_reduction():
    b = 0.0493771
    p = adaptive_clt_params(b, b, 0.0, 0.0, 2 * b, 0.0, 0.0)
    # sqrt(2 B) at the Section 4.5 showcase budget of Tran-Koskela-Räisä-Honkela (2025),
    # computed with mpmath
    assert p.mu == pytest.approx(0.314252, abs=1e-6)
    assert p.phi == 0.0 and p.delta_over_c == 0.0


def test_gaussian_steps():
    # L_t ~ N(mu_t^2/2, mu_t^2) under P, N(-mu_t^2/2, mu_t^2) under Q: E|L - EL|^3 =
    # 2 sqrt(2/pi) mu_t^3, so rho = 2 sqrt(2/pi) max mu_t
    previous = math.inf
    for steps in (10, 100, 1000):
        mus = np.full(steps, 1.0 / math.sqrt(steps))
        v = float(np.sum(mus**2))
        rho = 2 * math.sqrt(2 / math.pi) * float(mus.max())
        if 4 * rho * rho > v:
            continue
        p = adaptive_clt_params(v / 2, v / 2, 0.0, 0.0, v, 0.0, rho)
        assert p.mu == pytest.approx(1.0, rel=1e-12)  # G_1 exactly
        r = rho / math.sqrt(v)
        assert p.delta_over_c == pytest.approx(r * abs(math.log(r)), rel=1e-12)
        assert p.delta_over_c < previous  # O(log T / sqrt T)
        previous = p.delta_over_c


def test_subsampled_steps_match_dong_roth_su_clt():
    q, sigma, steps = 0.01, 1.0, 10_000
    m = subsampled_gaussian_loss_moments(q, sigma)
    v_p, v_q = steps * m["var_p"], steps * m["var_q"]
    v = (v_p + v_q) / 2
    p = adaptive_clt_params(
        steps * m["mean_p"], -steps * m["mean_q"], 0.0, 0.0, v, abs(v_p - v_q) / 2, 0.1
    )
    drs = q * math.sqrt(steps * math.expm1(1 / sigma**2))  # Dong-Roth-Su (2022), Cor. 5.4
    assert p.mu == pytest.approx(drs, rel=0.03)
    assert p.phi == 0.0


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ((0.1, 0.1, 0, 0, 0.0, 0, 0), "v"),
        ((0.1, 0.1, -1, 0, 1.0, 0, 0), "eta1"),
        ((0.1, 0.1, 0, 0, 1.0, 0.3, 0), "kappa"),
        ((0.1, 0.1, 0, 0, 1.0, 0, 0.6), "rho"),
        ((float("nan"), 0.1, 0, 0, 1.0, 0, 0), "m1"),
    ],
)
def test_clt_bad_input(args, name):
    with pytest.raises(ValueError, match=name):
        adaptive_clt_params(*args)


def test_charge_and_clip_are_inverse():
    for regime in ("small_q", "large_q"):
        for q, s, b in [(0.01, 1.0, 1e-5), (0.9, 5.0, 0.003), (0.1, 2.0, 0.0)]:
            c = approx_gdp_clip(regime, q, s, b)
            assert approx_gdp_charge(regime, q, s, c) == pytest.approx(b, rel=1e-12, abs=1e-300)
    assert approx_gdp_charge("small_q", 0.01, 1.0) == pytest.approx(0.5e-4 * (math.e - 1))
    assert approx_gdp_charge("large_q", 0.9, 2.0, 3.0) == pytest.approx(0.81 * 9 / 8)


def _run(acc, q, sigma, clip, norms, max_steps=100_000):
    bounds_log = []
    while acc.active.any() and acc.steps < max_steps:
        bounds = acc.clip_bounds(q, sigma, clip)
        bounds_log.append(bounds)
        acc.charge(np.minimum(bounds, norms))
    return bounds_log


def test_full_norm_record_matches_hand_count_and_algorithm_2():
    q, sigma, b = 0.01, 1.0, 0.05
    a = 0.5 * q * q * math.expm1(1 / sigma**2)
    full = math.floor(b / a)
    last = math.sqrt(math.log1p(2 * (b - full * a) / q**2))
    acc = IndividualApproxGDPAccountant([b], "small_q")
    log = _run(acc, q, sigma, 1.0, np.array([np.inf]))
    assert len(log) == full + 1 == 582
    assert log[-1][0] == pytest.approx(last, rel=1e-9)
    assert acc.remaining[0] == 0.0
    # the global filter (Algorithm 2) stops at the same step with the same clip ratio
    flt = ApproxGDPFilter(b, "small_q", q_bar=q)
    steps = 0
    while True:
        ratio, stop = flt.step(q, sigma)
        steps += 1
        if stop:
            break
    assert steps == len(log) and ratio == pytest.approx(log[-1][0], rel=1e-9)


def test_records_are_charged_by_their_actual_norms():
    # absolute clip C = 2, noise sigma C = 3; record norms 2, 1, 0, budgets 1
    q, sigma, clip = 0.95, 1.5, 2.0
    acc = IndividualApproxGDPAccountant([1.0, 1.0, 1.0], "large_q")
    norms = np.array([2.0, 1.0, 0.0])
    bounds = acc.clip_bounds(q, sigma, clip)
    np.testing.assert_array_equal(bounds, [2.0, 2.0, 2.0])
    left = acc.charge(np.minimum(bounds, norms))
    expected = 1.0 - 0.5 * q * q * norms**2 / 9.0
    np.testing.assert_allclose(left, expected, rtol=1e-12)
    log = _run(acc, q, sigma, clip, norms, max_steps=100)
    per_step = 0.5 * q * q * np.array([4.0, 1.0]) / 9.0
    # records 0 and 1 stop after ceil(B / charge) steps in all; record 2 never pays
    assert [int(np.sum(np.array(log)[:, j] > 0)) + 1 for j in (0, 1)] == [
        math.ceil(1.0 / c) for c in per_step
    ]
    assert acc.remaining[2] == 1.0 and acc.active[2]


def test_budgets_never_overspent_random():
    rng = np.random.default_rng(3)
    n = 50
    budgets = rng.uniform(0.0, 0.02, n)
    acc = IndividualApproxGDPAccountant(budgets, "small_q")
    spent = np.zeros(n)
    for _ in range(400):
        q, sigma = rng.uniform(0.01, 0.1), rng.uniform(0.8, 3.0)
        bounds = acc.clip_bounds(q, sigma, 1.0)
        norms = np.minimum(bounds, rng.uniform(0.0, 1.5, n))
        spent += approx_gdp_charge("small_q", q, sigma, norms)
        acc.charge(norms)
    assert np.all(spent <= budgets * (1 + 1e-9))
    np.testing.assert_allclose(acc.remaining, np.maximum(budgets - spent, 0.0), atol=1e-12)


def test_accountant_bad_input():
    with pytest.raises(ValueError, match="budgets"):
        IndividualApproxGDPAccountant([-1.0])
    with pytest.raises(ValueError, match="budgets"):
        IndividualApproxGDPAccountant([])
    with pytest.raises(ValueError, match="regime"):
        IndividualApproxGDPAccountant([1.0], "medium")
    acc = IndividualApproxGDPAccountant([0.1, 0.1])
    with pytest.raises(RuntimeError, match="clip_bounds"):
        acc.charge([0.0, 0.0])
    with pytest.raises(ValueError, match="sample_rate"):
        acc.clip_bounds(0.0, 1.0, 1.0)
    bounds = acc.clip_bounds(0.01, 1.0, 1.0)
    with pytest.raises(RuntimeError, match="charge"):
        acc.clip_bounds(0.01, 1.0, 1.0)
    with pytest.raises(ValueError, match="norms"):
        acc.charge([0.0])
    with pytest.raises(ValueError, match="norms"):
        acc.charge(bounds * 2)
    with pytest.raises(ValueError, match="norms"):
        acc.charge([float("nan"), 0.0])
    with pytest.raises(ValueError, match="norm"):
        approx_gdp_charge("small_q", 0.1, 1.0, -1.0)
    with pytest.raises(ValueError, match="budget"):
        approx_gdp_clip("small_q", 0.1, 1.0, -1.0)

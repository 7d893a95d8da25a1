"""The natural f-DP filter on certified Blackwell chains (Tran-Koskela-Räisä-Honkela (2025),
Theorems 3.6 and 3.8, Example D.3), checked by brute force.

Every adaptive run is enumerated exactly: binary randomized response on one record, the
analyst's choice a function of the outputs so far, the filter deciding at each step. The
realised output laws under the two neighbouring inputs give the hockey-stick profile
``sum_y (p(y) - e^eps q(y))_+`` directly (no library code), which must lie below the
budget's profile in both directions.
"""

from __future__ import annotations

import copy
import itertools
import math

import numpy as np
import pytest

from ldp.accounting import (
    EpsDeltaTradeOff,
    FilterHaltedError,
    GaussianTradeOff,
    InvalidFilterError,
    LaplaceTradeOff,
    NaturalFDPFilter,
    blackwell_compare,
    compose,
    is_blackwell_chain,
    natural_filter_counterexample,
)
from ldp.accounting.central import SubsampledGaussianTradeOff

EPS = np.union1d(np.linspace(0.0, 12.0, 4801), np.arange(0.0, 12.0, 0.125))


def _rr(eps: float, x: int) -> np.ndarray:
    """Binary randomized response: the law of the report given the bit ``x``."""
    keep = math.exp(eps) / (1.0 + math.exp(eps)) if math.isfinite(eps) else 1.0
    return np.array([keep, 1.0 - keep]) if x == 0 else np.array([1.0 - keep, keep])


def _hockey(p: np.ndarray, q: np.ndarray, eps: np.ndarray = EPS) -> np.ndarray:
    return np.maximum(p[None, :] - np.exp(eps)[:, None] * q[None, :], 0.0).sum(axis=1)


def _excess(p: np.ndarray, q: np.ndarray, budget) -> float:
    """max over eps of the realised profile (both directions) minus the budget's."""
    bound = np.asarray(budget.delta(EPS))
    return float(max(np.max(_hockey(p, q) - bound), np.max(_hockey(q, p) - bound)))


def _laws(paths: dict) -> tuple[np.ndarray, np.ndarray]:
    keys = sorted(paths, key=repr)
    return np.array([paths[k][1] for k in keys]), np.array([paths[k][0] for k in keys])


# ------------------------------------------------------------------ the chains themselves
def test_certified_families_are_chains_and_their_closures_are_not():
    assert is_blackwell_chain([EpsDeltaTradeOff(e) for e in (0.0, 0.1, 0.5, 1.0, 2.0, 4.0)])
    assert is_blackwell_chain([LaplaceTradeOff(e) for e in (0.0, 0.1, 0.5, 1.0, 2.0, 4.0)])
    assert is_blackwell_chain([compose(EpsDeltaTradeOff(0.5), n).tradeoff for n in range(1, 5)])
    # one step of the tensor closure (Definition 3.5) already leaves the chain: f_1 (x) f_1
    # crosses f_1.5, and so do the Laplace curves, which is why only two steps are certified
    rr = blackwell_compare(compose([EpsDeltaTradeOff(1.0)] * 2).tradeoff, EpsDeltaTradeOff(1.5))
    lap = blackwell_compare(compose([LaplaceTradeOff(1.0)] * 2).tradeoff, LaplaceTradeOff(1.5))
    assert rr.order is None and len(rr.calibration_points) == 2
    assert lap.order is None and len(lap.calibration_points) == 2
    # by hand: at eps = 0 f_1.5 leaks more, at eps = 1.5 the composition does
    p1, p15 = math.e / (1 + math.e), math.exp(1.5) / (1 + math.exp(1.5))
    assert p1**2 * (1 - math.exp(-2)) < p15 * (1 - math.exp(-1.5))
    assert p1**2 * (1 - math.exp(-0.5)) > 0.2 > 1e-12 > EpsDeltaTradeOff(1.5).delta(1.5)


@pytest.mark.parametrize("family", ["pure_dp", "laplace"])
def test_uncertified_step_counts_are_refused(family):
    budget = GaussianTradeOff(1.0)
    for steps in (None, 3, 10):
        with pytest.raises(InvalidFilterError, match=r"Theorems 3\.6 and 3\.8"):
            NaturalFDPFilter(budget, family=family, max_steps=steps)
    assert NaturalFDPFilter(budget, family=family, max_steps=2).max_steps == 2


def test_subsampled_gaussian_family_is_refused_and_the_counterexample_shows_why():
    with pytest.raises(InvalidFilterError, match=r"Example 3\.3"):
        NaturalFDPFilter(GaussianTradeOff(1.0), family="subsampled_gaussian", max_steps=3)
    r = natural_filter_counterexample()
    assert r["violated"] and r["adaptive"] - r["budget"] > 0.02


# ------------------------------------------------------------ two steps of pure eps-DP
CANDIDATES = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)


@pytest.mark.parametrize(
    ("budget", "first"),
    [
        (EpsDeltaTradeOff(2.0, 0.05), 1.0),
        (EpsDeltaTradeOff(2.0, 0.05), 0.5),
        (GaussianTradeOff(1.5), 1.0),
        (EpsDeltaTradeOff(2.5, 0.0), 1.0),
    ],
)
def test_pure_dp_filter_decisions_match_brute_force_composition(budget, first):
    """Each second step is accepted iff RR(eps_1) x RR(eps_2) stays below the budget."""
    accepted = []
    for second in CANDIDATES:
        flt = NaturalFDPFilter(budget, family="pure_dp", max_steps=2)
        assert flt.request(first)
        ok = flt.request(EpsDeltaTradeOff(second))
        accepted.append(ok)
        p = np.kron(_rr(first, 1), _rr(second, 1))
        q = np.kron(_rr(first, 0), _rr(second, 0))
        excess = _excess(p, q, budget)
        if ok:
            assert excess <= 1e-9, (second, excess)
        else:
            assert excess > -1e-9, (second, excess)  # refused only when it does not fit
            assert flt.halted
    assert any(accepted) and not all(accepted)


@pytest.mark.parametrize(
    ("budget", "first"),
    [
        (EpsDeltaTradeOff(2.0, 0.05), 1.0),
        (GaussianTradeOff(1.5), 1.0),
        (EpsDeltaTradeOff(2.5), 0.5),
    ],
)
def test_pure_dp_filter_is_valid_for_every_adaptive_rule(budget, first):
    """Theorem 3.6 with T = 2: whatever the analyst picks after seeing y_1, the released
    pair (halted steps release nothing) satisfies the budget; without the filter some rule
    breaks it (the check can fail)."""
    decide = {}
    for second in CANDIDATES:
        flt = NaturalFDPFilter(budget, family="pure_dp", max_steps=2)
        assert flt.request(first)
        decide[second] = flt.request(second)
    worst_filtered, worst_unfiltered = -1.0, -1.0
    for rule in itertools.product(CANDIDATES, repeat=2):
        for use_filter in (True, False):
            paths: dict = {}
            for x in (0, 1):
                for y1 in (0, 1):
                    p1 = _rr(first, x)[y1]
                    second = rule[y1]
                    if use_filter and not decide[second]:
                        paths.setdefault((y1, "halt"), [0.0, 0.0])[x] += p1
                        continue
                    for y2 in (0, 1):
                        paths.setdefault((y1, y2), [0.0, 0.0])[x] += p1 * _rr(second, x)[y2]
            p, q = _laws(paths)
            excess = _excess(p, q, budget)
            if use_filter:
                worst_filtered = max(worst_filtered, excess)
            else:
                worst_unfiltered = max(worst_unfiltered, excess)
    assert worst_filtered <= 1e-9
    assert worst_unfiltered > 0.01


# ------------------------------------------------------- self-compositions, many steps
def _run(flt: NaturalFDPFilter, rule, eps0: float, steps: int) -> dict:
    """Enumerate every path of an adaptive run: at step t the analyst asks for
    ``rule(outputs so far)`` copies of RR(eps0); the filter decides."""
    paths: dict = {}

    def walk(history: tuple, flt: NaturalFDPFilter, prob: list, t: int) -> None:
        if t == steps or flt.halted:
            paths.setdefault(history, [0.0, 0.0])
            for x in (0, 1):
                paths[history][x] += prob[x]
            return
        n = rule(history)
        nxt = copy.deepcopy(flt)
        if not nxt.request(n):
            walk((*history, "halt"), nxt, prob, steps)
            return
        for bits in itertools.product((0, 1), repeat=n):
            weight = [math.prod(_rr(eps0, x)[b] for b in bits) for x in (0, 1)]
            walk((*history, bits), nxt, [prob[x] * weight[x] for x in (0, 1)], t + 1)

    walk((), flt, [1.0, 1.0], 0)
    return paths


def test_self_composition_budget_matches_brute_force():
    budget, eps0 = GaussianTradeOff(1.5), 0.5
    flt = NaturalFDPFilter(budget, family="self_composition", base=EpsDeltaTradeOff(eps0))
    n = flt.copies_budget
    assert n is not None and n >= 2

    def n_fold(k: int) -> tuple[np.ndarray, np.ndarray]:
        # the number of ones among k reports is sufficient: binomial laws
        from scipy.stats import binom

        keep = math.exp(eps0) / (1 + math.exp(eps0))
        j = np.arange(k + 1)
        return binom.pmf(j, k, keep), binom.pmf(j, k, 1 - keep)

    assert _excess(*n_fold(n), budget) <= 1e-9
    assert _excess(*n_fold(n + 1), budget) > 0.0
    # the base may be a mechanism: randomized response has the curve f_{eps,0}
    from ldp import randomized_response

    rr = NaturalFDPFilter(budget, family="self_composition", base=randomized_response(eps0))
    assert rr.copies_budget == n


def test_self_composition_filter_is_valid_for_adaptive_runs():
    """Example D.3: the self-compositions of one curve are a chain closed under composition,
    so the filter is valid for any number of steps; 40 random adaptive rules over four
    steps, each enumerated exactly."""
    budget, eps0 = GaussianTradeOff(1.5), 0.5
    base = EpsDeltaTradeOff(eps0)
    template = NaturalFDPFilter(budget, family="self_composition", base=base)
    rng = np.random.default_rng(2025)
    worst, halted_runs = -1.0, 0
    for _ in range(40):
        table: dict = {}

        def rule(history: tuple, table: dict = table) -> int:
            if history not in table:
                table[history] = int(rng.integers(0, 4))
            return table[history]

        paths = _run(copy.deepcopy(template), rule, eps0, steps=4)
        halted_runs += any("halt" in k for k in paths)
        p, q = _laws(paths)
        worst = max(worst, _excess(p, q, budget))
    assert worst <= 1e-9
    assert halted_runs > 5  # the budget binds on many runs


# ------------------------------------------------------------------------- bookkeeping
def test_natural_filter_bookkeeping_and_bad_input():
    flt = NaturalFDPFilter(
        GaussianTradeOff(1.0), family="self_composition", base=EpsDeltaTradeOff(0.5)
    )
    assert flt.copies_budget == 3
    assert flt.request(flt.base) and flt.request(2) and flt.history == [1.0, 2.0]
    assert not flt.request(1) and flt.halted
    with pytest.raises(FilterHaltedError):
        flt.request(0)
    assert flt.guarantee() is flt.budget
    with pytest.raises(InvalidFilterError, match="Blackwell chain"):
        NaturalFDPFilter(GaussianTradeOff(1.0), family="pure_dp", max_steps=2).request(
            LaplaceTradeOff(1.0)
        )
    with pytest.raises(InvalidFilterError, match="Blackwell chain"):
        NaturalFDPFilter(GaussianTradeOff(1.0), family="pure_dp", max_steps=2).request(
            EpsDeltaTradeOff(1.0, 1e-6)
        )
    with pytest.raises(ValueError, match="family"):
        NaturalFDPFilter(GaussianTradeOff(1.0), family="poisson")
    with pytest.raises(ValueError, match="base"):
        NaturalFDPFilter(GaussianTradeOff(1.0), family="self_composition")
    with pytest.raises(ValueError, match="base"):
        NaturalFDPFilter(GaussianTradeOff(1.0), base=EpsDeltaTradeOff(1.0))
    with pytest.raises(ValueError, match="max_steps"):
        NaturalFDPFilter(GaussianTradeOff(1.0), max_steps=0)
    with pytest.raises(TypeError, match="n must be an integer"):
        NaturalFDPFilter(
            GaussianTradeOff(1.0), family="self_composition", base=EpsDeltaTradeOff(0.5)
        ).request(1.5)
    # max_steps: the Gaussian family stops after that many accepted mechanisms
    g = NaturalFDPFilter(GaussianTradeOff(1.0), max_steps=2)
    assert g.request(0.1) and g.request(0.1) and not g.request(0.1) and g.halted


# ------------------------------------------- subsampled Gaussians with one rate, two steps
Q_RATE = 0.5
SG_CANDIDATES = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)
Y = np.linspace(-12.0, 15.0, 5401)
W = np.full(Y.size, Y[1] - Y[0])
W[0] = W[-1] = W[0] / 2.0
GAMMAS = np.exp(np.linspace(-14.0, 14.0, 561))


def _phi(y: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * y * y) / math.sqrt(2.0 * math.pi)


def _gaussian_profile(mu: float, gamma: np.ndarray) -> np.ndarray:
    from scipy.special import ndtr

    t = -np.log(gamma) / mu
    return ndtr(t + mu / 2.0) - gamma * ndtr(t - mu / 2.0)


def _sg_profile(mu: float, gamma: np.ndarray) -> np.ndarray:
    """``D_gamma((1-q) N(0,1) + q N(mu,1) || N(0,1))`` by quadrature (no library code)."""
    p = (1.0 - Q_RATE) * _phi(Y) + Q_RATE * _phi(Y - mu)
    q = _phi(Y)
    return np.maximum(p[None, :] - gamma[:, None] * q[None, :], 0.0) @ W


def _after_first(mu1: float, second, gamma: np.ndarray) -> np.ndarray:
    """``E_{y ~ P_1}[H_2(y)(gamma q_1(y) / p_1(y))]``: the remove profile of step 1 followed by
    the step-2 profile chosen from ``y`` (``second(y, probe)`` returns its values)."""
    p1 = (1.0 - Q_RATE) * _phi(Y) + Q_RATE * _phi(Y - mu1)
    probe = gamma[:, None] * (_phi(Y) / p1)[None, :]
    return second(Y[None, :].repeat(gamma.size, 0), probe) @ (W * p1)


def _profile_table(mu: float) -> tuple[np.ndarray, np.ndarray]:
    grid = np.exp(np.linspace(-20.0, 20.0, 4001))
    return grid, _sg_profile(mu, grid)


def _interp(table: tuple[np.ndarray, np.ndarray], x: np.ndarray) -> np.ndarray:
    grid, values = table
    inside = np.interp(np.log(np.clip(x, grid[0], grid[-1])), np.log(grid), values)
    return np.where(x < grid[0], 1.0 - x * (1.0 - values[0]) / grid[0], inside)


def test_subsampled_gaussian_chain():
    assert is_blackwell_chain([SubsampledGaussianTradeOff(Q_RATE, m) for m in SG_CANDIDATES])
    with pytest.raises(InvalidFilterError, match=r"Example 3\.3"):
        NaturalFDPFilter(GaussianTradeOff(1.0), family="subsampled_gaussian", sample_rate=0.5)


@pytest.mark.parametrize(("budget_mu", "mu1"), [(1.0, 0.5), (2.0, 1.0)])
def test_subsampled_gaussian_filter_two_steps_is_valid_for_every_rule(budget_mu, mu1):
    """Theorem 3.6 with T = 2 for ``SG_{q, .}``: the worst adaptive rule (Theorem B.1: pick, at
    each probe point, the largest accepted profile) stays below the budget; the decisions
    agree with a quadrature of each non-adaptive pair; without the filter the worst rule
    breaks the budget."""
    budget = GaussianTradeOff(budget_mu)
    h_b = _gaussian_profile(budget_mu, GAMMAS)
    flt = NaturalFDPFilter(budget, family="subsampled_gaussian", sample_rate=Q_RATE, max_steps=2)
    assert flt.request(mu1)
    accepted = [m for m in SG_CANDIDATES if flt.would_accept(m)]
    assert accepted and len(accepted) < len(SG_CANDIDATES)
    tables = {m: _profile_table(m) for m in SG_CANDIDATES}
    for m in SG_CANDIDATES:
        pair = _after_first(mu1, lambda y, x, t=tables[m]: _interp(t, x), GAMMAS)
        excess = float(np.max(pair - h_b))
        # refused exactly when it does not fit: SG_1 (x) SG_2 exceeds G_2 only near eps = 13
        # (by 3.7e-10, which the filter sees too)
        assert (excess <= 1e-10) if m in accepted else (excess > 0.0), (m, excess)

    def worst(candidates):
        return lambda y, x: np.max([_interp(tables[m], x) for m in candidates], axis=0)

    identity = np.maximum(1.0 - GAMMAS, 0.0)
    filtered = np.maximum(_after_first(mu1, worst(accepted), GAMMAS), identity)
    assert float(np.max(filtered - h_b)) <= 1e-10
    unfiltered = _after_first(mu1, worst(SG_CANDIDATES), GAMMAS)
    assert float(np.max(unfiltered - h_b)) > 0.01


def test_subsampled_gaussian_family_bad_input():
    with pytest.raises(ValueError, match="sample_rate"):
        NaturalFDPFilter(GaussianTradeOff(1.0), family="subsampled_gaussian", max_steps=2)
    with pytest.raises(ValueError, match="sample_rate"):
        NaturalFDPFilter(GaussianTradeOff(1.0), sample_rate=0.5)
    with pytest.raises(ValueError, match="sample_rate"):
        NaturalFDPFilter(
            GaussianTradeOff(1.0), family="subsampled_gaussian", sample_rate=1.5, max_steps=2
        )
    flt = NaturalFDPFilter(
        GaussianTradeOff(1.0), family="subsampled_gaussian", sample_rate=0.5, max_steps=2
    )
    with pytest.raises(InvalidFilterError, match="Blackwell chain"):
        flt.request(SubsampledGaussianTradeOff(0.3, 1.0))  # another sampling rate
    with pytest.raises(InvalidFilterError, match="Blackwell chain"):
        flt.request(SubsampledGaussianTradeOff(0.5, 1.0, direction="add"))
    with pytest.raises(ValueError, match="mu"):
        flt.request(math.inf)
    assert flt.request(SubsampledGaussianTradeOff(0.5, 0.5)) and flt.history == [0.5]


def test_laplace_filter_decisions_match_quadrature():
    """Two Laplace steps: accepted iff ``Lap_1 (x) Lap_mu2`` stays below the budget, the pair's
    profile by a 2-D quadrature of ``(p_1 p_2 - gamma q_1 q_2)_+`` (no library code)."""
    budget = GaussianTradeOff(1.5)
    y = np.linspace(-14.0, 17.0, 1551)
    w = np.full(y.size, y[1] - y[0])
    w[0] = w[-1] = w[0] / 2.0
    lap = lambda m: 0.5 * np.exp(-np.abs(y - m))  # noqa: E731
    eps = np.linspace(0.0, 6.0, 61)
    bound = np.asarray(budget.delta(eps))
    flt = NaturalFDPFilter(budget, family="laplace", max_steps=2)
    assert flt.request(LaplaceTradeOff(1.0))
    decisions = []
    for mu2 in (0.25, 0.5, 1.0, 1.5, 2.0):
        p = np.outer(lap(1.0) * w, lap(mu2) * w)
        q = np.outer(lap(0.0) * w, lap(0.0) * w)
        profile = np.array([np.maximum(p - math.exp(e) * q, 0.0).sum() for e in eps])
        excess = float(np.max(profile - bound))
        ok = flt.would_accept(mu2)
        decisions.append(ok)
        assert (excess <= 1e-4) if ok else (excess > -1e-4), (mu2, excess)
    assert any(decisions) and not all(decisions)

"""Refutation tests of the oracle + simplex projection risk bound (docs/lower_bounds.md §7).

The bound is ``min(E||p_hat - p||^2, B)`` with ``B >= sup_p E max_j (p_hat_j - p_j)``. Each
step is attacked separately: the supremum over the simplex of the summed binomial moment
generating functions (against many laws, computed by another formula), ``E max_j z_j`` and
the projected risk by exact enumeration of k-RR's multinomial counts, and both by
simulation of the real mechanisms and ``project_simplex`` for i.i.d. and fixed users.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from scipy.special import gammaln

from ldp.mechanisms import GRR, OLH, OUE, SUE, SubsetSelection
from ldp.risk import best_distribution_risk, projected_oracle_risk
from ldp.tasks import project_simplex


def _laws(k: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Point mass, uniform, sparse uniform laws, one heavy atom over a uniform floor, and
    random Dirichlet laws from very sparse to flat."""
    out = [np.eye(k)[0], np.full(k, 1.0 / k)]
    for s in sorted({2, 3, 5, 10, 30, 100, k // 4, k // 2} - {0, 1}):
        if s < k:
            p = np.zeros(k)
            p[:s] = 1.0 / s
            out.append(p)
    for w in (0.3, 0.6, 0.9):
        out.append(np.full(k, (1 - w) / k) + w * np.eye(k)[0])
    for alpha in (0.01, 0.1, 1.0, 10.0):
        out.extend(rng.dirichlet(np.full(k, alpha), size=3))
    for s1, s2, w in ((1, 8, 0.5), (2, 30, 0.7), (3, k - 3, 0.6), (5, 50, 0.3)):
        if s2 >= 1 and s1 + s2 <= k:  # two levels: where a separable sum over the simplex peaks
            p = np.zeros(k)
            p[:s1], p[s1 : s1 + s2] = w / s1, (1 - w) / s2
            out.append(p)
    return out


def _softmax_value(p: np.ndarray, n: int, keep: float, other: float, mu: float) -> float:
    """(1/lambda) log sum_j E exp(lambda z_j), each E exp(mu (B - t)) written out as the
    two-point expectation of a Bernoulli(t) (not through log1p/expm1)."""
    gap = keep - other
    t = other + p * gap
    one_user = np.log((1 - t) * np.exp(-mu * t) + t * np.exp(mu * (1 - t)))
    log_sum = np.logaddexp.reduce(n * one_user)
    return float(log_sum / (mu * n * gap))


ORACLES = [
    (GRR, 64, 300, 2.0),
    (GRR, 16, 50, 4.0),
    (OUE, 1024, 1000, 4.0),
    (SUE, 1024, 1000, 4.0),
    (SubsetSelection, 1024, 1000, 1.0),
    (SubsetSelection, 1024, 100_000, 2.0),
    (SubsetSelection, 64, 1000, 0.5),
    (functools.partial(SubsetSelection, d=63), 1024, 1000, 4.0),
    (OLH, 1024, 1000, 2.0),
    (OUE, 10, 20, 1.0),
]


@pytest.mark.parametrize(("cls", "k", "n", "eps"), ORACLES)
def test_the_simplex_supremum_dominates_every_law(cls, k, n, eps):
    """At the exponent the bound picked, the soft maximum of every law is below it: the
    heavy/light split and the chord/tangent majorants lose validity nowhere."""
    mech = cls(k, eps)
    b = projected_oracle_risk(mech, n)
    rng = np.random.default_rng(k + n)
    worst = 0.0
    for p in _laws(k, rng):
        value = _softmax_value(p, n, mech.p, mech.q, b.mu)
        worst = max(worst, value)
        assert value <= b.max_deviation, (value, b.max_deviation, p[:5])
    # and the supremum step is not vacuous: some law comes within 25% of it
    assert worst >= 0.75 * b.max_deviation, (worst, b.max_deviation)


def _multinomial_outcomes(n: int, k: int):
    for cut in itertools.combinations(range(n + k - 1), k - 1):
        bounds = (-1, *cut, n + k - 1)
        yield np.array([bounds[i + 1] - bounds[i] - 1 for i in range(k)])


@pytest.mark.parametrize(("k", "n", "eps"), [(3, 12, 1.0), (4, 10, 2.0), (5, 8, 0.5), (3, 30, 4.0)])
def test_exact_enumeration_for_k_rr(k, n, eps):
    """k-RR's report counts are multinomial(n, q + p_x (p - q)) for i.i.d. users: E max_j z_j
    and E||Pi(p_hat) - p||^2 exactly, at many laws, never above the bounds."""
    mech = GRR(k, eps)
    b = projected_oracle_risk(mech, n)
    counts = np.array(list(_multinomial_outcomes(n, k)), dtype=np.float64)
    estimates = (counts / n - mech.q) / (mech.p - mech.q)
    projected = project_simplex(estimates)
    rng = np.random.default_rng(k * 100 + n)
    grid = [np.array(c) / 4 for c in itertools.product(range(5), repeat=k) if sum(c) == 4]
    worst_max = worst_risk = 0.0
    for p in [*grid, *_laws(k, rng)]:
        t = mech.q + p * (mech.p - mech.q)
        log_pmf = gammaln(n + 1) - gammaln(counts + 1).sum(axis=1)
        log_pmf = log_pmf + (counts * np.log(np.maximum(t, 1e-300))).sum(axis=1)
        pmf = np.exp(log_pmf)
        assert math.isclose(pmf.sum(), 1.0, rel_tol=1e-9)
        e_max = float(pmf @ (estimates - p).max(axis=1))
        risk = float(pmf @ ((projected - p) ** 2).sum(axis=1))
        worst_max, worst_risk = max(worst_max, e_max), max(worst_risk, risk)
    assert worst_max <= b.max_deviation, (worst_max, b.max_deviation)
    assert worst_risk <= b.value, (worst_risk, b.value)
    assert worst_risk <= worst_max + 1e-12  # the projection inequality itself


@pytest.mark.parametrize(("k", "n", "eps"), [(3, 7, 1.0), (4, 6, 2.0), (3, 8, 4.0)])
def test_exact_enumeration_for_fixed_users(k, n, eps):
    """Fixed users: every composition of n users over k letters, every one of the k^n report
    vectors of k-RR with its exact probability; the target is the users' empirical law."""
    mech = GRR(k, eps)
    b = projected_oracle_risk(mech, n)
    reports = np.array(list(itertools.product(range(k), repeat=n)))
    counts = np.stack([(reports == j).sum(axis=1) for j in range(k)], axis=1)
    estimates = (counts / n - mech.q) / (mech.p - mech.q)
    projected = project_simplex(estimates)
    worst_max = worst_risk = 0.0
    for composition in _multinomial_outcomes(n, k):
        x = np.repeat(np.arange(k), composition)  # user i holds x[i]
        prob = np.where(reports == x, mech.p, mech.q).prod(axis=1)
        assert math.isclose(prob.sum(), 1.0, rel_tol=1e-9)
        target = composition / n
        worst_max = max(worst_max, float(prob @ (estimates - target).max(axis=1)))
        worst_risk = max(worst_risk, float(prob @ ((projected - target) ** 2).sum(axis=1)))
    assert worst_max <= b.max_deviation, (worst_max, b.max_deviation)
    assert worst_risk <= b.value, (worst_risk, b.value)


SIMULATED = [
    (SubsetSelection, 512, 400, 1.0),
    (SUE, 512, 400, 4.0),
    (OUE, 256, 600, 2.0),
    (OLH, 256, 400, 2.0),
    (GRR, 64, 300, 2.0),
    (functools.partial(SubsetSelection, d=63), 1024, 1000, 4.0),  # larger than d = 18
]


@pytest.mark.parametrize("fixed", [False, True], ids=["iid", "fixed"])
@pytest.mark.parametrize(("cls", "k", "n", "eps"), SIMULATED)
def test_simulated_projected_risk_is_below_the_bound(cls, k, n, eps, fixed):
    """The real mechanism, its unbiased estimate and project_simplex: the Monte Carlo
    E max_j z_j and projected risk (plus four standard errors of slack for chance) never
    exceed the bounds, at point masses, the uniform law and sparse uniform laws; for fixed
    users the target is their empirical law."""
    mech = cls(k, eps)
    b = projected_oracle_risk(mech, n)
    assert b.projected  # the sparse regime: the projection bound is the one in use
    rng = np.random.default_rng(7 * k + n)
    trials = 120
    for s in (1, 4, 32, k):
        law = np.zeros(k)
        law[:s] = 1.0 / s
        maxima, errors = np.empty(trials), np.empty(trials)
        fixed_x = np.repeat(np.arange(s), n // s + 1)[:n]
        for i in range(trials):
            x = fixed_x if fixed else rng.choice(k, size=n, p=law)
            target = np.bincount(x, minlength=k) / n if fixed else law
            est = mech.estimate(mech.privatize(x, rng=rng))
            maxima[i] = np.max(est - target)
            errors[i] = np.sum((project_simplex(est) - target) ** 2)
        for sample, bound in ((maxima, b.max_deviation), (errors, b.value)):
            mean, se = sample.mean(), sample.std(ddof=1) / math.sqrt(trials)
            assert mean - 4 * se <= bound, (s, mean, se, bound)


def test_the_bound_never_increases_with_n():
    """A fixed exponent grid keeps the bound non-increasing in n (the planner bisects)."""
    for mech in (SubsetSelection(1024, 1.0), OUE(256, 3.0), GRR(20, 0.5)):
        values = [
            projected_oracle_risk(mech, n).value
            for n in np.unique(np.geomspace(2, 1e9, 80).astype(int))
        ]
        assert all(a >= b for a, b in itertools.pairwise(values)), mech


def test_best_distribution_risk_uses_the_projection_in_the_sparse_regime():
    b = best_distribution_risk(1024, 1000, 2.0)
    assert b.projected and not b.exact and "projected onto the simplex" in b.method
    if b.mechanism.startswith("SS(d="):  # subset selection at a larger size (see below)
        oracle = functools.partial(SubsetSelection, d=int(b.mechanism[len("SS(d=") : -1]))
    else:
        oracle = {"SS": SubsetSelection, "OLH": OLH, "SUE": SUE, "OUE": OUE}[b.mechanism]
    assert b.value == projected_oracle_risk(oracle(1024, 2.0), 1000).value
    assert b.value < min(projected_oracle_risk(oracle(1024, 2.0), 1000).unbiased, 0.2)
    # dense regime: the exact unbiased risk, flagged exact
    dense = best_distribution_risk(10, 100_000, 1.0)
    assert dense.exact and not dense.projected and dense.mechanism == "SS"
    # l1 keeps the unbiased oracles' bound
    l1 = best_distribution_risk(256, 100_000, 1.0, loss="l1")
    assert not l1.projected and not l1.exact and l1.mechanism == "SS"


def test_projected_oracle_risk_rejects_non_oracles():
    with pytest.raises(TypeError, match="oracle"):
        projected_oracle_risk("SS", 10)
    with pytest.raises(ValueError, match="n"):
        projected_oracle_risk(GRR(4, 1.0), 0)


def test_a_larger_subset_can_win_after_projection():
    """At n = 1000, k = 1024, eps = 4 subset selection at d = 63 (not the variance-optimal
    18) has the smallest projected bound; the best achieved risk names it."""
    b = best_distribution_risk(1024, 1000, 4.0)
    assert b.mechanism.startswith("SS(d=") and b.projected
    d = int(b.mechanism[len("SS(d=") : -1])
    assert d > SubsetSelection(1024, 4.0).d
    assert b.value == projected_oracle_risk(SubsetSelection(1024, 4.0, d=d), 1000).value
    assert b.value < projected_oracle_risk(SUE(1024, 4.0), 1000).value

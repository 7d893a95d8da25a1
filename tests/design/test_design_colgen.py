"""Column generation for the staircase LP (ldp.design.optimal_channel with
method="column-generation"), mutual information here (the two-hypothesis utilities are in
tests/design/test_design_divergences.py): agreement with the full LP over all 2^k patterns,
with subset selection under a uniform prior, a certified gap that is a true upper bound, and
certified privacy of the returned channel."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ldp._staircase_lp import mi_column_value as _phi
from ldp.design import DesignError, optimal_channel, utility_value
from ldp.mechanisms import GRR


def dirichlet(k: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).dirichlet(np.ones(k))


def test_phi_is_the_mutual_information_of_one_column():
    rng = np.random.default_rng(1)
    for _ in range(20):
        k, eps = int(rng.integers(2, 9)), float(rng.uniform(0.1, 4))
        p = rng.dirichlet(np.ones(k))
        s = rng.random(k) < 0.5
        column = 1.0 + math.expm1(eps) * s
        mass = p @ column
        terms = p * column * np.log(column / mass)
        direct = float(np.sum(terms))
        w = float(p[s].sum())
        t = math.expm1(eps)
        phi = float(_phi(np.array(w), eps, t))
        # both sides are sums of terms of either sign: each rounds to a few units of the
        # largest term (a column of one value gives 0.0 against a few 1e-15 of rounding)
        scale = max(
            float(np.sum(np.abs(terms))),
            eps * (t + 1.0) * w,
            (1.0 + t * w) * abs(math.log1p(t * w)),
        )
        assert math.isclose(phi, direct, rel_tol=1e-12, abs_tol=64 * np.finfo(float).eps * scale)


@pytest.mark.parametrize("k", [4, 8, 10])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 4.0])
def test_agrees_with_the_full_staircase_lp(k, eps):
    prior = dirichlet(k, k + int(10 * eps))
    full = optimal_channel(k, eps, utility="mi", prior=prior, method="staircase")
    cg = optimal_channel(
        k, eps, utility="mi", prior=prior, method="column-generation", gap_tolerance=1e-6
    )
    assert abs(cg.value - full.value) <= 1e-6 * full.value
    # the certificate is an upper bound on the true optimum, and the gap is honest
    upper = cg.extras["upper_bound"]
    assert upper >= full.objective * (1 - 1e-9)
    assert cg.gap == pytest.approx((upper - cg.value) / upper, abs=1e-15)
    assert cg.gap <= 1e-6 + 1e-12
    assert cg.epsilon <= eps and cg.channel.is_ldp(eps)
    assert cg.value == pytest.approx(utility_value(cg.channel, "mi", prior=prior), rel=1e-12)


def test_worked_example_k8():
    prior = np.array([0.3, 0.2, 0.15, 0.1, 0.1, 0.05, 0.05, 0.05])
    cg = optimal_channel(8, 1.0, utility="mi", prior=prior, method="column-generation")
    full = optimal_channel(8, 1.0, utility="mi", prior=prior, method="staircase")
    assert cg.value == pytest.approx(full.value, rel=1e-7)
    assert cg.channel.n_outputs <= 8 + 1


@pytest.mark.parametrize(("k", "eps"), [(12, 1.0), (16, 2.0), (14, 0.5)])
def test_uniform_prior_agrees_with_subset_selection(k, eps):
    closed = optimal_channel(k, eps, utility="mi", method="subset")
    cg = optimal_channel(k, eps, utility="mi", method="column-generation")
    assert cg.value <= closed.value * (1 + 1e-9)  # subset selection is optimal (KOV)
    assert cg.value >= closed.value * (1 - 1e-5)
    assert cg.extras["upper_bound"] >= closed.value * (1 - 1e-9)


def test_auto_uses_column_generation_above_16():
    prior = dirichlet(20, 3)
    res = optimal_channel(20, 1.0, utility="mi", prior=prior)
    assert res.method == "staircase LP by column generation"
    assert res.gap is not None and res.gap <= 1e-5
    assert optimal_channel(6, 1.0, utility="mi", prior=dirichlet(6, 1)).gap is None


@pytest.mark.parametrize(
    "k",
    # 13 above the sizes of test_agrees_with_the_full_staircase_lp; 16, the largest exact LP
    # (2^16 columns), takes seconds: the long run
    [13, pytest.param(16, marks=[pytest.mark.slow, pytest.mark.long])],
)
def test_agrees_with_the_exact_lp_at_the_largest_sizes(k):
    prior = dirichlet(k, k)
    full = optimal_channel(k, 1.0, utility="mi", prior=prior, method="staircase")
    cg = optimal_channel(
        k, 1.0, utility="mi", prior=prior, method="column-generation", gap_tolerance=1e-6
    )
    assert abs(cg.value - full.value) <= 1e-6 * full.value
    assert cg.extras["upper_bound"] >= full.objective * (1 - 1e-9)


LONG = [pytest.mark.slow, pytest.mark.long]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("k", "eps"),
    [
        (32, 0.5),
        (24, 4.0),  # the harder epsilon, at a size of a few seconds; the largest in the long run
        pytest.param(32, 4.0, marks=LONG),
        pytest.param(64, 0.5, marks=LONG),
        pytest.param(64, 4.0, marks=LONG),
    ],
)
def test_large_k_is_certified_within_the_default_rounds(k, eps):
    prior = dirichlet(k, k)
    res = optimal_channel(k, eps, utility="mi", prior=prior)
    assert res.gap <= 1e-4
    assert res.extras["rounds"] <= 1000  # the default budget: a count, the same everywhere
    assert res.epsilon <= eps and res.channel.is_ldp(eps)
    assert res.channel.n_inputs == k
    # at least k-RR's information under the same prior (k-RR is one feasible design)
    rr = utility_value(GRR(k, eps).to_channel(), "mi", prior=prior)
    assert res.value >= rr * (1 - 1e-12)
    assert res.extras["upper_bound"] >= res.value


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"k": 65}, ValueError, "k must be <= 64"),
        (
            {"utility": "kl", "hypotheses": ([0.5, 0.5] + [0] * 17, [0.05] * 20)},
            ValueError,
            "hypotheses",
        ),
        ({"gap_tolerance": 0.0}, ValueError, "gap_tolerance"),
        ({"max_rounds": 0}, ValueError, "max_rounds"),
        ({"max_rounds": 2.5}, TypeError, "max_rounds"),
    ],
)
def test_bad_input(kwargs, error, match):
    args = {"k": 20, "epsilon": 1.0, "utility": "mi", "method": "column-generation"}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        optimal_channel(args.pop("k"), args.pop("epsilon"), **args)


def test_a_spent_round_budget_is_an_error_not_a_silent_answer():
    with pytest.raises(DesignError, match=r"gap 1e-07 in 2 rounds"):
        optimal_channel(
            40, 4.0, utility="mi", prior=dirichlet(40, 2), method="column-generation",
            gap_tolerance=1e-7, max_rounds=2,
        )  # fmt: skip


def test_a_call_is_reproducible_and_certifies_the_promised_gap():
    """The budget counts rounds, not seconds: two calls give the same channel and bound; the
    gap is (bound - value) / bound, at most gap_tolerance, and the bound holds against the
    exact LP over all 2^k patterns."""
    k, eps, tol = 12, 2.0, 1e-6
    prior = dirichlet(k, 5)
    first, second = (
        optimal_channel(
            k, eps, utility="mi", prior=prior, method="column-generation", gap_tolerance=tol
        )
        for _ in range(2)
    )
    assert np.array_equal(first.channel.matrix, second.channel.matrix)
    for key in ("upper_bound", "rounds", "columns", "exact_pricings"):
        assert first.extras[key] == second.extras[key], key
    assert first.gap == second.gap
    upper = first.extras["upper_bound"]
    assert first.gap == pytest.approx((upper - first.value) / upper, abs=1e-15)
    assert first.gap <= tol
    full = optimal_channel(k, eps, utility="mi", prior=prior, method="staircase")
    assert full.objective <= upper * (1 + 1e-9)
    assert first.value >= full.value * (1 - tol)


def test_cli_design_reports_the_gap(capsys):
    from ldp.cli import main

    prior = ",".join(["0.15"] + ["0.05"] * 17)
    assert main(["design", "--k", "18", "--epsilon", "1", "--utility", "mi", "--prior", prior]) == 0
    out = capsys.readouterr().out
    assert "column generation" in out and "certified optimality gap" in out

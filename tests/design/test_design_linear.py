"""The pure-LDP linear design LP solved by HiGHS directly (ldp.design.LinearDesign): its
optimum against the LP in its pairwise form solved independently, the closed forms at
eps = 0 (the best constant answer) and at large eps (the best answer for each input), and
the cvxpy program it replaces by default."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog

from ldp.design import LinearDesign, optimal_channel


def pairwise_optimum(gains: np.ndarray, prior: np.ndarray, eps: float) -> float:
    """``max sum prior_x gains[x, z] K[x, z]`` subject to ``K[x, z] <= e^eps K[x', z]`` for
    every ordered pair and output (no auxiliary variables), rows summing to one."""
    k, m = gains.shape
    rows = []
    for a, b in itertools.permutations(range(k), 2):
        for z in range(m):
            line = np.zeros(k * m)
            line[a * m + z], line[b * m + z] = 1.0, -math.exp(eps)
            rows.append(line)
    a_eq = np.kron(np.eye(k), np.ones((1, m)))
    res = linprog(
        -(prior[:, None] * gains).ravel(),
        A_ub=np.array(rows),
        b_ub=np.zeros(len(rows)),
        A_eq=a_eq,
        b_eq=np.ones(k),
        bounds=(0, None),
        method="highs",
    )
    assert res.status == 0
    return -float(res.fun)


@pytest.mark.parametrize(("k", "m"), [(2, 2), (3, 5), (5, 3), (6, 6)])
@pytest.mark.parametrize("eps", [0.05, 0.5, math.log(2), 0.7, 2.0, 5.0])
def test_equals_the_pairwise_lp(k, m, eps):
    rng = np.random.default_rng(100 * k + m)
    gains, prior = rng.normal(size=(k, m)), rng.dirichlet(np.ones(k))
    result = LinearDesign(gains, prior).solve(eps)
    assert result.solver == "HIGHS" and result.channel.is_ldp(eps)
    expected = pairwise_optimum(gains, prior, eps)
    assert result.value == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert result.value <= expected * (1 + 1e-12) + 1e-15  # a certified channel: feasible


@pytest.mark.parametrize("eps", [0.0, 30.0, 700.0])
def test_closed_forms_at_the_ends(eps):
    rng = np.random.default_rng(7)
    gains, prior = rng.normal(size=(5, 4)), rng.dirichlet(np.ones(5))
    result = LinearDesign(gains, prior).solve(eps)
    weighted = prior[:, None] * gains
    if eps == 0.0:  # one answer for every input: the best column
        expected = float(weighted.sum(axis=0).max())
    else:  # e^eps >= 1e13: each input's best answer, up to e^-eps of mass
        expected = float(weighted.max(axis=1).sum())
    assert result.value == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert result.epsilon <= eps


def test_at_least_the_cvxpy_program_and_reproducible():
    rng = np.random.default_rng(3)
    gains, prior = rng.normal(size=(8, 8)), rng.dirichlet(np.ones(8))
    direct = LinearDesign(gains, prior)
    conic = LinearDesign(gains, prior, solver="CLARABEL")
    for eps in (0.3, 1.0, 3.0):
        ours, theirs = direct.solve(eps), conic.solve(eps)
        assert theirs.solver == "CLARABEL"
        assert ours.value >= theirs.value - 1e-12
        assert np.array_equal(ours.channel.matrix, direct.solve(eps).channel.matrix)
    assert optimal_channel(8, 1.0, utility=gains, prior=prior).solver == "HIGHS"

"""Marginals in the tasks layer: cell indexing and marginal maps against brute force, the
exact variance of sums of cells against an enumeration of one report's law, and each
design's estimates against their exact law (unbiased, variance as stated)."""

import itertools
import math

import numpy as np
import pytest

from ldp.mechanisms import GRR, OUE, SUE
from ldp.tasks import simulate_counts
from ldp.tasks.marginals import (
    MAX_JOINT_CELLS,
    MAX_TABLE_CELLS,
    build_design,
    cell_index,
    cell_values,
    marginal_matrix,
    marginalize,
    sum_variance,
)


@pytest.mark.parametrize("sizes", [(2,), (3, 4), (2, 1, 3), (2, 3, 2, 2)])
def test_cells_round_trip_in_row_major_order(sizes):
    combos = list(itertools.product(*[range(k) for k in sizes]))  # row-major by construction
    codes = [np.array([c[j] for c in combos]) for j in range(len(sizes))]
    assert cell_index(codes, sizes).tolist() == list(range(len(combos)))
    back = cell_values(np.arange(len(combos)), sizes)
    assert all(np.array_equal(a, b) for a, b in zip(back, codes))


@pytest.mark.parametrize("keep", [(0,), (2,), (1, 0), (0, 2), (2, 1, 0), ()])
def test_marginal_is_the_brute_force_sum_and_its_matrix(keep):
    sizes = (2, 3, 4)
    rng = np.random.default_rng(0)
    table = rng.random(24)
    expected = {}
    for cell, combo in enumerate(itertools.product(*[range(k) for k in sizes])):
        key = tuple(combo[a] for a in keep)
        expected[key] = expected.get(key, 0.0) + table[cell]
    order = list(itertools.product(*[range(sizes[a]) for a in keep]))
    want = np.array([expected[key] for key in order])
    assert np.allclose(marginalize(table, sizes, keep), want)
    assert np.allclose(marginal_matrix(sizes, keep) @ table, want)


def test_bad_cells_raise():
    with pytest.raises(ValueError, match=r"codes\[1\] must lie in 0 \.\. 2"):
        cell_index([[0], [3]], (2, 3))
    with pytest.raises(ValueError, match="keep must be distinct"):
        marginalize(np.ones(4), (2, 2), (0, 0))


def _sum_law_variance(oracle, f, subset):
    """Var of one report's contribution to the estimate of sum_{v in S} f_v, enumerated."""
    k, p, q = oracle.k, oracle.p, oracle.q
    m = len(subset)
    means, second = [], []
    for x in range(k):
        if oracle.name == "GRR":  # support of a report is the report itself
            prob_in = p if x in subset else 0.0
            prob_in += q * (m - (1 if x in subset else 0))
            z_mean = (prob_in - m * q) / (p - q)
            z_var = prob_in * (1 - prob_in) / (p - q) ** 2
        else:  # independent bits: bit v is 1 w.p. p if v == x else q
            probs = np.array([p if v == x else q for v in subset])
            z_mean = (probs.sum() - m * q) / (p - q)
            z_var = np.sum(probs * (1 - probs)) / (p - q) ** 2
        means.append(z_mean)
        second.append(z_var + z_mean**2)
    mean = np.dot(f, means)
    return np.dot(f, second) - mean**2


@pytest.mark.parametrize("oracle", [GRR(5, 1.0), GRR(6, 0.3), OUE(5, 1.0), SUE(6, 2.0)])
@pytest.mark.parametrize("subset", [(0,), (1, 3), (0, 2, 4), (0, 1, 2, 3, 4)])
def test_sum_variance_matches_the_enumerated_law(oracle, subset):
    f = np.random.default_rng(len(subset)).dirichlet(np.ones(oracle.k))
    n = 37
    want = _sum_law_variance(oracle, f, subset) / n
    got = sum_variance(oracle, n, f[list(subset)].sum(), len(subset))
    assert got == pytest.approx(want, rel=1e-10, abs=1e-15)


def _exact_law_statistics(design, joint, n, rng):
    """Group sizes, group inputs and oracle counts drawn from their exact law."""
    sizes = design.sizes
    groups = rng.multinomial(n, np.full(len(design.groups), 1.0 / len(design.groups)))
    codes = cell_values(np.arange(joint.size), sizes)
    stats = []
    for g, oracle in enumerate(design.oracles):
        inputs = design.group_input(g, codes)
        law = np.bincount(inputs, joint, oracle.k)
        stats.append(simulate_counts(oracle, rng.multinomial(groups[g], law / law.sum()), rng))
    return stats


CASES = [
    ("joint", (2, 3, 2), [(0, 1), (1, 2)], (0, 1)),
    ("joint", (3, 3, 4), [(0, 2)], (2,)),
    ("groups", (2, 3, 4, 2), [(0, 1), (1, 2), (2, 3)], (1, 2)),
    ("groups", (5, 2, 3, 2), [(0, 1, 2), (2, 3)], (2, 0)),
    ("fourier", (2, 2, 2, 2), [(0, 1), (1, 2), (2, 3), (0, 3)], (0, 3)),
    ("fourier", (2, 2, 2), [(0, 1, 2)], (2, 0, 1)),
]


@pytest.mark.parametrize(("method", "sizes", "tables", "target"), CASES)
def test_design_estimates_are_unbiased_with_the_stated_variance(method, sizes, tables, target):
    rng = np.random.default_rng(7)
    joint = rng.dirichlet(np.ones(math.prod(sizes)))
    design = build_design(method, sizes, tables, 1.0)
    truth = marginalize(joint, sizes, target)
    n, reps = 3000, 800
    errors, variances = [], []
    for _ in range(reps):
        est, var, _ = design.estimate(_exact_law_statistics(design, joint, n, rng), target)
        errors.append(est - truth)
        variances.append(var)
    errors = np.array(errors)
    se = errors.std(axis=0, ddof=1) / math.sqrt(reps)
    assert np.all(np.abs(errors.mean(axis=0)) < 4 * se)
    # the empirical variance against the stated one (plug-in, averaged over the runs); the
    # relative sd of a variance from 800 normal draws is 5%
    ratio = errors.var(axis=0, ddof=1) / np.mean(variances, axis=0)
    assert np.all((ratio > 0.78) & (ratio < 1.25)), ratio


def test_the_design_privatizes_rows_as_the_exact_law_says():
    sizes, tables = (2, 3, 2), [(0, 1), (1, 2)]
    design = build_design("groups", sizes, tables, 1.5)
    rng = np.random.default_rng(3)
    joint = rng.dirichlet(np.ones(12))
    cells = rng.choice(12, size=40_000, p=joint)
    group, reports = design.privatize(cell_values(cells, sizes), rng)
    assert np.bincount(group).tolist() == [len(r) for r in reports]
    est, var, source = design.estimate(design.aggregate(reports), (1, 2))
    z = (est - marginalize(joint, sizes, (1, 2))) / np.sqrt(var)
    assert np.all(np.abs(z) < 4.5) and source == "groups:GRR"


def test_design_limits_and_bad_designs_name_the_problem():
    with pytest.raises(ValueError, match="MAX_JOINT_CELLS"):
        build_design("joint", (10,) * 6, [(0, 1), (2, 3), (4, 5)], 1.0)
    assert MAX_JOINT_CELLS < 10**6
    with pytest.raises(ValueError, match="MAX_TABLE_CELLS"):
        build_design("groups", (100_000, 1000), [(0, 1)], 1.0)
    assert MAX_TABLE_CELLS < 100_000 * 1000
    with pytest.raises(ValueError, match=r"binary columns; columns \[1\]"):
        build_design("fourier", (2, 3), [(0, 1)], 1.0)
    with pytest.raises(ValueError, match="method must be one of"):
        build_design("best", (2, 2), [(0, 1)], 1.0)
    with pytest.raises(ValueError, match="distinct columns"):
        build_design("groups", (2, 2), [(0, 0)], 1.0)


@pytest.mark.parametrize(("method", "sizes", "tables", "target"), CASES[::2] + CASES[3:4])
def test_design_covariance_matches_the_exact_law(method, sizes, tables, target):
    rng = np.random.default_rng(13)
    joint = rng.dirichlet(np.ones(math.prod(sizes)))
    design = build_design(method, sizes, tables, 1.0)
    truth = marginalize(joint, sizes, target)
    estimates, predicted = [], []
    for _ in range(1000):
        stats = _exact_law_statistics(design, joint, 3000, rng)
        estimates.append(design.estimate(stats, target)[0])
        predicted.append(design.covariance(stats, target, truth))
    empirical = np.cov(np.array(estimates).T)
    expected = np.mean(predicted, axis=0)
    # the diagonal is the variance of the estimate() test; off the diagonal, the
    # covariances (negative, by the sum constraint) within 20% of the scale of the diagonal
    scale = np.sqrt(np.outer(np.diag(expected), np.diag(expected)))
    assert np.all(np.abs(empirical - expected) <= 0.2 * scale)

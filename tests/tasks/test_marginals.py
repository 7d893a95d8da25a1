"""Marginals in the tasks layer: cell indexing and marginal maps against brute force, the
and each design's estimates against their exact law (unbiased, variance as stated), with the
default oracles and with every registered one as a candidate. The variance of sums of cells
is tested against the enumerated report law in tests/mechanisms/test_sum_variance.py."""

import itertools
import math

import numpy as np
import pytest

from ldp.tasks import simulate_counts
from ldp.tasks.marginals import (
    MAX_JOINT_CELLS,
    MAX_TABLE_CELLS,
    best_oracle,
    build_design,
    cell_index,
    cell_values,
    marginal_matrix,
    marginalize,
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


def _exact_law_statistics(design, joint, n, rng):
    """Group sizes, group inputs and oracle counts drawn from their exact law."""
    sizes = design.sizes
    groups = rng.multinomial(n, np.full(len(design.groups), 1.0 / len(design.groups)))
    codes = cell_values(np.arange(joint.size), sizes)
    stats = []
    for g, oracle in enumerate(design.oracles):
        inputs = design.group_input(g, codes)
        law = np.bincount(inputs, joint, oracle.k)
        counts = rng.multinomial(groups[g], law / law.sum())
        if oracle.name in ("GRR", "OUE", "SUE", "HR"):  # an exact shortcut for the counts
            stats.append(simulate_counts(oracle, counts, rng))
        else:  # the reports themselves (subset selection, local hashing)
            inputs = rng.permutation(np.repeat(np.arange(oracle.k), counts))
            stats.append(oracle.aggregate(oracle.privatize(inputs, rng=rng)))
    return stats


ALL = ("GRR", "OUE", "SUE", "OLH", "BLH", "HR", "SS")

CASES = [
    ("joint", (2, 3, 2), [(0, 1), (1, 2)], (0, 1)),
    ("joint", (3, 3, 4), [(0, 2)], (2,)),
    ("groups", (2, 3, 4, 2), [(0, 1), (1, 2), (2, 3)], (1, 2)),
    ("groups", (5, 2, 3, 2), [(0, 1, 2), (2, 3)], (2, 0)),
    ("fourier", (2, 2, 2, 2), [(0, 1), (1, 2), (2, 3), (0, 3)], (0, 3)),
    ("fourier", (2, 2, 2), [(0, 1, 2)], (2, 0, 1)),
    ("joint", (3, 4, 2), [(0, 1)], (1,)),  # candidates ALL: subset selection on 12 cells
]


@pytest.mark.parametrize(("method", "sizes", "tables", "target"), CASES)
def test_design_estimates_are_unbiased_with_the_stated_variance(method, sizes, tables, target):
    rng = np.random.default_rng(7)
    joint = rng.dirichlet(np.ones(math.prod(sizes)))
    candidates = ALL if sizes == (3, 4, 2) else ("GRR", "OUE")
    design = build_design(method, sizes, tables, 1.0, candidates)
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
    with pytest.raises(ValueError, match=r"binary columns \(2 categories each\); column 1 has 3 "):
        build_design("fourier", (2, 3), [(0, 1)], 1.0)
    wide = r"binary columns \(2 categories each\); 'b', 'c' have 3, 5 categories$"
    with pytest.raises(ValueError, match=wide):
        build_design("fourier", (2, 3, 5), [(0, 1), (1, 2)], 1.0, names=["a", "b", "c"])
    with pytest.raises(ValueError, match="names must name the 2 columns of sizes, got 1 names"):
        build_design("groups", (2, 3), [(0, 1)], 1.0, names=["a"])
    with pytest.raises(ValueError, match="method must be one of"):
        build_design("best", (2, 2), [(0, 1)], 1.0)
    with pytest.raises(ValueError, match="distinct columns"):
        build_design("groups", (2, 2), [(0, 0)], 1.0)
    with pytest.raises(ValueError, match=r"candidates .*'HR'.* no oracle with an exact sum"):
        build_design("groups", (3, 4), [(0, 1)], 1.0, ("HR",))
    with pytest.raises(ValueError, match=r"names among .*, got \('GRR', 'XRR'\)"):
        build_design("groups", (3, 4), [(0, 1)], 1.0, ("GRR", "XRR"))
    with pytest.raises(TypeError, match="a sequence of oracle names, got 'GRR'"):
        build_design("groups", (3, 4), [(0, 1)], 1.0, "GRR")
    # Hadamard response is passed over (its sum variance depends on which cells)
    assert best_oracle(12, 1.0, ("HR", "OLH")).name == "OLH"


@pytest.mark.parametrize(("method", "sizes", "tables", "target"), CASES[:6:2] + CASES[3:4])
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

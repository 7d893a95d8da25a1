"""Post-processing of marginals: consistency agrees on overlaps and yields distributions,
keeps consistent inputs, and the maximum-entropy models reproduce their marginals (the
tree's sampled rows by a seeded chi-square goodness-of-fit test)."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ldp.tasks.marginals import (
    MAX_IPF_CELLS,
    cell_index,
    consistent_marginals,
    fit_ipf,
    fit_tree,
    marginalize,
    overlap_gap,
    shared_columns,
)


def _tables_of(joint, sizes, tables):
    return [marginalize(joint, sizes, t) for t in tables]


@pytest.mark.parametrize("seed", range(5))
def test_consistency_agrees_on_overlaps_and_gives_distributions(seed):
    rng = np.random.default_rng(seed)
    sizes = (3, 2, 4, 2, 3)
    tables = [(0, 1), (1, 2), (0, 2, 3), (3, 4), (0, 4)]
    joint = rng.dirichlet(np.ones(math.prod(sizes)))
    raw = [t + rng.normal(0, 0.05, t.size) for t in _tables_of(joint, sizes, tables)]
    variances = [np.full(t.size, rng.uniform(0.5, 2)) for t in raw]
    out = consistent_marginals(tables, sizes, raw, variances)
    assert overlap_gap(tables, sizes, out) <= 1e-9
    for t in out:
        assert t.min() >= 0 and t.sum() == pytest.approx(1.0, abs=1e-12)


def test_consistent_distributions_are_left_as_they_are():
    rng = np.random.default_rng(1)
    sizes = (2, 3, 2)
    tables = [(0, 1), (1, 2), (0, 2)]
    exact = _tables_of(rng.dirichlet(np.ones(12)), sizes, tables)
    out = consistent_marginals(tables, sizes, exact, [np.ones(t.size) for t in exact])
    assert all(np.allclose(a, b, atol=1e-14) for a, b in zip(out, exact))


def test_weighted_average_on_an_overlap():
    # two 1-way tables of the same column: the inverse-variance weighted mean (interior)
    out = consistent_marginals(
        [(0, 1), (0, 2)],
        (2, 2, 2),
        [np.array([0.2, 0.2, 0.3, 0.3]), np.array([0.3, 0.3, 0.2, 0.2])],
        [np.full(4, 1.0), np.full(4, 3.0)],
    )
    first = marginalize(out[0], (2, 2), (0,))
    assert first == pytest.approx([0.4 * 0.75 + 0.6 * 0.25, 0.6 * 0.75 + 0.4 * 0.25])


def test_shared_columns_are_closed_under_intersection():
    assert shared_columns([(0, 1, 2), (1, 2, 3), (2, 3, 4)]) == [(2,), (1, 2), (2, 3)]
    assert shared_columns([(0, 1), (2, 3)]) == []


def test_ipf_is_the_product_for_disjoint_marginals_and_matches_overlapping_ones():
    rng = np.random.default_rng(2)
    a, b = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(4))
    model = fit_ipf((2, 3, 2, 2), {(0, 1): a, (2, 3): b})
    assert np.allclose(model.joint, np.outer(a, b).ravel(), atol=1e-12)  # max entropy
    sizes = (2, 3, 2, 2)
    joint = rng.dirichlet(np.ones(24))
    tables = [(0, 1), (1, 2), (2, 3), (0, 3)]
    fitted = fit_ipf(sizes, dict(zip(tables, _tables_of(joint, sizes, tables))))
    for t in tables:
        assert np.allclose(marginalize(fitted.joint, sizes, t), marginalize(joint, sizes, t))


def test_ipf_refuses_a_joint_above_its_limit():
    with pytest.raises(ValueError, match="MAX_IPF_CELLS"):
        fit_ipf((1024, 1025), {(0,): np.full(1024, 1 / 1024)})
    assert MAX_IPF_CELLS < 1024 * 1025


def _chi2_pvalue(codes, sizes, cols, probs):
    counts = np.bincount(
        cell_index([codes[c] for c in cols], [sizes[c] for c in cols]), minlength=probs.size
    )
    keep = probs > 0
    assert counts[~keep].sum() == 0
    expected = probs[keep] * counts.sum()
    return stats.chisquare(counts[keep], expected).pvalue


def test_samples_of_both_models_fit_their_marginals():
    rng = np.random.default_rng(4)
    sizes = (3, 2, 4, 2)
    joint = rng.dirichlet(np.ones(48))
    pairs = list(itertools.combinations(range(4), 2))
    margins = dict(zip(pairs, _tables_of(joint, sizes, pairs)))
    ipf = fit_ipf(sizes, margins)
    codes = ipf.sample(20_000, rng=np.random.default_rng(5))
    for t in pairs:
        assert _chi2_pvalue(codes, sizes, t, marginalize(ipf.joint, sizes, t)) > 1e-4
    tree = fit_tree(sizes, margins)
    assert sorted(tree.parents).count(-1) == 1  # connected: a tree
    codes = tree.sample(20_000, rng=np.random.default_rng(6))
    for child, parent in enumerate(tree.parents):
        if parent >= 0:
            pair = (min(child, parent), max(child, parent))
            assert _chi2_pvalue(codes, sizes, pair, margins[pair]) > 1e-4


def test_the_tree_is_the_maximum_mutual_information_tree():
    # column 2 copies column 0; column 1 is independent: the tree links 0-2
    sizes = (2, 2, 2)
    joint = np.zeros(8)
    for x0, x1 in itertools.product(range(2), range(2)):
        joint[cell_index([[x0], [x1], [x0]], sizes)[0]] = 0.25
    pairs = [(0, 1), (0, 2), (1, 2)]
    tree = fit_tree(sizes, dict(zip(pairs, _tables_of(joint, sizes, pairs))))
    assert tree.parents[2] == 0 or tree.parents[0] == 2


def test_cell_intervals_are_the_normal_interval_clipped_to_shares():
    from scipy.stats import norm

    from ldp.tasks.marginals import cell_intervals

    unbiased, variance = np.array([-0.01, 0.3, 0.995]), np.array([4e-4, 1e-2, 1e-4])
    std, low, high = cell_intervals(unbiased, variance, 0.9)
    z = norm.ppf(0.95)  # two-sided 90%
    assert std.tolist() == pytest.approx([0.02, 0.1, 0.01], rel=1e-15)
    assert low.tolist() == pytest.approx([0.0, 0.3 - z * 0.1, 0.995 - z * 0.01], rel=1e-12)
    assert high.tolist() == pytest.approx([-0.01 + z * 0.02, 0.3 + z * 0.1, 1.0], rel=1e-12)
    with pytest.raises(ValueError, match="confidence"):
        cell_intervals(unbiased, variance, 1.0)


def test_fit_marginals_decodes_each_table_and_makes_them_consistent():
    from ldp.tasks.marginals import build_design, check_group_reports, fit_marginals

    design = build_design("groups", (2, 3), [(0,), (0, 1)], 1.0)
    rng = np.random.default_rng(3)
    reports = [o.privatize(rng.integers(0, o.k, 400), rng=rng) for o in design.oracles]
    stats = design.aggregate(reports)
    fitted = fit_marginals(design, stats)
    assert fitted.tables == ((0,), (0, 1))
    for t, est, var, source in zip(fitted.tables, fitted.unbiased, fitted.variance, fitted.sources):
        mine, mine_var, mine_source = design.estimate(stats, t)
        assert np.array_equal(est, mine) and np.array_equal(var, mine_var)
        assert source == mine_source
    # the consistent tables agree on column 0 and are distributions
    assert fitted.consistent[1].reshape(2, 3).sum(axis=1) == pytest.approx(
        fitted.consistent[0], abs=1e-9
    )
    assert all(t.min() >= 0 and t.sum() == pytest.approx(1.0) for t in fitted.consistent)
    check_group_reports(design, [2, 6])
    with pytest.raises(ValueError, match=r"columns \('a', 'b'\) has 5 reports, fewer than its 6"):
        check_group_reports(design, [2, 5], ["a", "b"])
    fourier = build_design("fourier", (2, 2), [(0, 1)], 1.0)
    check_group_reports(fourier, [1, 1, 1])
    with pytest.raises(ValueError, match=r"\(0, 1\) has 0 reports, fewer than its 1"):
        check_group_reports(fourier, [1, 1, 0])

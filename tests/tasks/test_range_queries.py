"""Hierarchical histograms for range queries (Cormode-Kulkarni-Srivastava (2019)) with
Hay et al. (2010)'s consistency.

Checked against independent derivations: the consistency equals constrained least squares
solved by linear algebra; the weights behind the exact variance reproduce the equal-variance
table of worst and mean range variances (computed separately by brute force over every range
of 256 values); the exact variance and unbiasedness are checked by simulation with every
kind of level oracle (GRR's reports are negatively correlated across values, unary encoding
and hashing over GF(2) are not).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ldp.mechanisms import OUE
from ldp.tasks import (
    HierarchicalCounts,
    HierarchicalHistogram,
    HierarchicalReports,
    b_adic_nodes,
    recommend,
    recommend_branching,
    tree_consistency,
)


def _incidence(branching: int, height: int) -> np.ndarray:
    """Rows: the nodes of levels 1..h in order; columns: leaves; 1 where the node holds it."""
    leaves = branching**height
    rows = []
    for level in range(1, height + 1):
        span = branching ** (height - level)
        for node in range(branching**level):
            row = np.zeros(leaves)
            row[node * span : (node + 1) * span] = 1.0
            rows.append(row)
    return np.array(rows)


def _constrained_least_squares(y: np.ndarray, branching: int, height: int, root: float):
    """argmin ||y - A l||^2 over leaves l with sum(l) = root (null-space parametrisation)."""
    a = _incidence(branching, height)
    leaves = a.shape[1]
    base = np.full(leaves, root / leaves)
    null = np.eye(leaves)[:, :-1] - np.eye(leaves)[:, 1:]  # sums to zero
    z = np.linalg.lstsq(a @ null, y - a @ base, rcond=None)[0]
    return base + null @ z


@pytest.mark.parametrize(("branching", "height"), [(2, 3), (3, 2), (4, 2), (2, 1)])
def test_consistency_is_constrained_least_squares(branching, height):
    rng = np.random.default_rng(branching * 10 + height)
    sizes = [branching**level for level in range(1, height + 1)]
    levels = [rng.normal(1.0 / s, 0.3, s) for s in sizes]
    out = tree_consistency(levels, branching, root=1.0)
    want = _constrained_least_squares(np.concatenate(levels), branching, height, 1.0)
    assert np.abs(out[-1] - want).max() < 1e-12
    # a valid tree: every node is the sum of its children, the top level sums to the root
    assert math.isclose(out[0].sum(), 1.0, abs_tol=1e-12)
    for upper, lower in itertools.pairwise(out):
        assert np.allclose(upper, lower.reshape(-1, branching).sum(axis=1), atol=1e-12)
    # a consistent tree is left alone; leading axes are independent trees
    a = _incidence(branching, height)
    leaves = rng.dirichlet(np.ones(branching**height))
    node_values = np.split(a @ leaves, np.cumsum(sizes)[:-1])
    assert np.allclose(tree_consistency(node_values, branching)[-1], leaves, atol=1e-14)
    batch = tree_consistency([np.stack([lv, lv * 2]) for lv in levels], branching, root=1.0)
    assert np.allclose(batch[-1][0], out[-1], atol=1e-14)


def test_weighted_consistency_is_weighted_least_squares():
    branching, height = 3, 3
    rng = np.random.default_rng(7)
    sizes = [branching**level for level in range(1, height + 1)]
    levels = [rng.normal(1.0 / s, 0.3, s) for s in sizes]
    variances = [0.2, 1.0, 3.0]
    out = tree_consistency(levels, branching, root=1.0, variances=variances)
    scale = np.concatenate([np.full(s, 1 / math.sqrt(v)) for s, v in zip(sizes, variances)])
    a = _incidence(branching, height)
    leaves = a.shape[1]
    base = np.full(leaves, 1.0 / leaves)
    null = np.eye(leaves)[:, :-1] - np.eye(leaves)[:, 1:]
    y = np.concatenate(levels)
    z = np.linalg.lstsq(scale[:, None] * (a @ null), scale * (y - a @ base), rcond=None)[0]
    assert np.abs(out[-1] - (base + null @ z)).max() < 1e-12
    # equal variances are Hay et al.'s closed form
    same = tree_consistency(levels, branching, variances=[2.0] * height)
    assert np.abs(same[-1] - tree_consistency(levels, branching)[-1]).max() < 1e-15
    with pytest.raises(ValueError, match="variances"):
        tree_consistency(levels, branching, variances=[1.0, 0.0, 1.0])


def test_auto_levels_with_variance_weighting_beat_oue_everywhere():
    """GRR on the small top level has a smaller variance than OUE; with the levels weighted
    by their variances the tree's mean range variance is below the all-OUE tree's (and the
    batched variance agrees with the prefix-sum mean)."""
    tree = HierarchicalHistogram(256, 1.0, branching=4)
    assert [o.name for o in tree.oracles] == ["GRR", "OUE", "OUE", "OUE"]
    a, b = np.triu_indices(257, 1)
    weighted = tree.variance(1000, a, b).mean()
    assert weighted == pytest.approx(tree.mean_variance(1000), rel=1e-10)
    hay_tree = HierarchicalHistogram(256, 1.0, branching=4, oracle="OUE")
    assert weighted < hay_tree.mean_variance(1000)


def test_b_adic_decomposition_by_brute_force():
    branching, height = 3, 3
    leaves = branching**height
    counts = []
    for a in range(leaves):
        for b in range(a + 1, leaves + 1):
            covered = np.zeros(leaves, dtype=int)
            per_level = np.zeros(height + 1, dtype=int)
            for level, index in b_adic_nodes(a, b, branching, height):
                span = branching ** (height - level)
                covered[index * span : (index + 1) * span] += 1
                per_level[level] += 1
            want = np.zeros(leaves, dtype=int)
            want[a:b] = 1
            assert np.array_equal(covered, want), (a, b)
            assert per_level[1:].max() <= 2 * (branching - 1)
            counts.append(per_level.sum())
    assert b_adic_nodes(0, leaves, branching, height) == [(0, 0)]
    assert max(counts) <= 2 * (branching - 1) * height


# ----------------------------------------------------------------------------- variances
#: Worst and mean variance over every range of 256 values, in units of one node's variance,
#: with equal independent node variances: (worst without consistency, worst with,
#: mean without, mean with). Computed by brute force from the two passes' linear map.
TABLE_256 = {2: (14, 2.414, 6.05, 1.55), 4: (20, 4.603, 8.74, 2.95), 16: (44, 11.29, 18.87, 7.36)}


def _linear_map_of_consistency(branching: int, height: int) -> np.ndarray:
    """``L[node, leaf]``: the consistent leaves are ``y @ L`` (root 0), from basis vectors."""
    sizes = [branching**level for level in range(1, height + 1)]
    basis = np.eye(sum(sizes))
    levels = np.split(basis, np.cumsum(sizes)[:-1], axis=1)
    return tree_consistency(levels, branching, root=0.0)[-1]


@pytest.mark.parametrize("branching", sorted(TABLE_256))
def test_equal_variance_table_over_every_range(branching):
    height = round(math.log(256, branching))
    a, b = np.triu_indices(257, 1)
    # brute force: the answer's weights on the raw nodes, from the basis images
    linear = _linear_map_of_consistency(branching, height)
    cumulative = np.concatenate([np.zeros((linear.shape[0], 1)), np.cumsum(linear, 1)], 1)
    weights = cumulative[:, b] - cumulative[:, a]  # (nodes, ranges)
    hay = (weights**2).sum(axis=0)
    worst_raw, worst_hay, mean_raw, mean_hay = TABLE_256[branching]
    assert hay.max() == pytest.approx(worst_hay, abs=5e-3)  # the table has 4 digits
    assert hay.mean() == pytest.approx(mean_hay, abs=6e-3)
    # the library's exact variance with OUE at f -> 0 is h V_F / n times the same numbers
    n = 1000
    tree = HierarchicalHistogram(256, 1.0, branching=branching, oracle="OUE")
    unit = tree.height * OUE(4, 1.0).variance(1) / n
    assert np.allclose(tree.variance(n, a, b) / unit, hay, rtol=1e-10)
    sample = slice(None, None, 7)  # without consistency: count the decomposition's nodes
    raw = tree.variance(n, a[sample], b[sample], consistency=False) / unit
    nodes = [
        sum(level > 0 for level, _ in b_adic_nodes(x, y, branching, height))
        for x, y in zip(a[sample], b[sample], strict=True)
    ]
    assert np.allclose(raw, nodes, rtol=1e-10)
    if branching == 2:  # the full table without consistency is cheap for B = 2 only
        everything = tree.variance(n, a, b, consistency=False) / unit
        assert everything.max() == pytest.approx(worst_raw, abs=1e-9)
        assert everything.mean() == pytest.approx(mean_raw, abs=6e-3)


CASES = {
    "GRR": dict(k=16, epsilon=1.0, branching=4, oracle="GRR"),
    "OUE": dict(k=16, epsilon=1.0, branching=2, oracle="OUE"),
    "OLH": dict(k=16, epsilon=1.0, branching=4, oracle="OLH"),  # g = 4: hashing over GF(2)
    "auto": dict(k=27, epsilon=2.0, branching=3, oracle="auto"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_exact_variance_and_unbiasedness_by_simulation(case):
    tree = HierarchicalHistogram(**CASES[case])
    k = tree.k
    rng = np.random.default_rng(sorted(CASES).index(case))
    weights = rng.dirichlet(np.full(k, 0.5))
    n = 300
    values = rng.choice(k, size=n, p=weights)
    f = np.bincount(values, minlength=k) / n  # fixed data: the empirical frequencies
    ranges = [(0, k), (1, 5), (3, 4), (2, k - 3), (k // 2, k)]
    a = np.array([r[0] for r in ranges])
    b = np.array([r[1] for r in ranges])
    trials = 3000
    answers = {True: np.empty((trials, len(ranges))), False: np.empty((trials, len(ranges)))}
    for t in range(trials):
        counts = tree.aggregate(tree.privatize(values, rng=rng))
        for consistency in (True, False):
            answers[consistency][t] = tree.estimate(counts, consistency).range(a, b)
    truth = np.array([f[x:y].sum() for x, y in ranges])
    for consistency, got in answers.items():
        exact = tree.variance(n, a, b, f, consistency=consistency)
        mean, var = got.mean(axis=0), got.var(axis=0, ddof=1)
        full = exact > 0  # the whole domain is the known root: no variance
        assert np.all(np.abs(mean - truth)[full] < 4.5 * np.sqrt(exact[full] / trials))
        assert np.allclose(mean[~full], truth[~full], atol=1e-12)
        ratio = var[full] / exact[full]
        assert np.all(np.abs(ratio - 1) < 4.5 * math.sqrt(2 / trials)), (consistency, ratio)


def test_covariance_terms_matter():
    """GRR's negative correlation between values of one level changes the variance of a
    range of several nodes; unary encoding has none (the formula's two forms differ)."""
    n = 1000
    grr = HierarchicalHistogram(16, 1.0, branching=4, oracle="GRR")
    # without consistency, [0, 8) is two level-1 nodes of one report: Var < 2 Var(node)
    pair = grr.variance(n, 0, 8, consistency=False)
    single = grr.variance(n, 0, 4, consistency=False)
    assert pair < 2 * single
    oue = HierarchicalHistogram(16, 1.0, branching=4, oracle="OUE")
    assert oue.variance(n, 0, 8, consistency=False) == pytest.approx(
        2 * oue.variance(n, 0, 4, consistency=False), rel=1e-12
    )


def test_iid_convention_adds_the_sampling_variance():
    tree = HierarchicalHistogram(16, 1.0)
    f = np.full(16, 1 / 16)
    fixed = tree.variance(500, 2, 10, f)
    iid = tree.variance(500, 2, 10, f, convention="iid")
    assert iid - fixed == pytest.approx(0.5 * 0.5 / 500, rel=1e-12)


def test_plug_in_variance_and_frequencies():
    tree = HierarchicalHistogram(10, 2.0, branching=2)  # padded to 16 leaves
    values = np.repeat(np.arange(10), 500)
    est = tree.estimate(tree.privatize(values, rng=4))
    assert est.frequencies.shape == (10,)
    assert est.range(0, 10) == pytest.approx(1.0 - est.leaves[10:].sum(), abs=1e-12)
    plug = est.variance(np.array([0, 3]), np.array([5, 9]))
    exact = tree.variance(values.size, np.array([0, 3]), np.array([5, 9]), np.full(10, 0.1))
    assert np.allclose(plug, exact, rtol=0.2)


# ----------------------------------------------------------------------------- plumbing
def test_privacy_is_the_levels_epsilon():
    tree = HierarchicalHistogram(64, 1.5, branching=4)
    assert tree.epsilon == max(o.epsilon for o in tree.oracles)
    assert tree.epsilon == pytest.approx(1.5, abs=1e-12)
    assert [o.k for o in tree.oracles] == [4, 16, 64]


def test_levels_are_uniform_and_counts_merge():
    tree = HierarchicalHistogram(64, 1.0, branching=4)
    values = np.arange(64).repeat(300)
    sent = tree.privatize(values, rng=9)
    per_level = np.bincount(sent.levels, minlength=4)[1:]
    expected = values.size / 3
    chi2 = ((per_level - expected) ** 2 / expected).sum()
    assert chi2 < 13.8  # chi-square with 2 degrees of freedom, p = 0.001
    whole = tree.aggregate(sent)
    first = tree.aggregate(tree.privatize(values[:100], rng=1))
    second = tree.aggregate(tree.privatize(values[100:], rng=2))
    merged = first + second
    assert merged.n == whole.n == values.size and sum([first, second]).n == values.size
    assert isinstance(merged, HierarchicalCounts)
    other = HierarchicalHistogram(64, 2.0, branching=4)
    with pytest.raises(ValueError, match="cannot add"):
        merged + other.aggregate(other.privatize(values[:10], rng=0))
    with pytest.raises(ValueError, match="counts come from"):
        other.estimate(merged)


def test_bad_input():
    with pytest.raises(ValueError, match="k"):
        HierarchicalHistogram(1, 1.0)
    with pytest.raises(ValueError, match="branching"):
        HierarchicalHistogram(16, 1.0, branching=1)
    with pytest.raises(ValueError, match="branching"):
        HierarchicalHistogram(16, 1.0, branching=300)
    with pytest.raises(ValueError, match="oracle"):
        HierarchicalHistogram(16, 1.0, oracle="HR")
    with pytest.raises(ValueError, match="power-of-two"):
        HierarchicalHistogram(16, 0.5, oracle="OLH")  # g = 3
    with pytest.raises(ValueError, match="MAX_LEAVES"):
        HierarchicalHistogram(2**21, 1.0, branching=2)
    with pytest.raises(ValueError, match="epsilon"):
        HierarchicalHistogram(16, 0.0)
    tree = HierarchicalHistogram(16, 1.0)
    with pytest.raises(ValueError, match="values"):
        tree.privatize([0, 16])
    with pytest.raises(TypeError, match="HierarchicalReports"):
        tree.aggregate(np.zeros(3, dtype=int))
    sent = tree.privatize(np.arange(16), rng=0)
    broken = HierarchicalReports(sent.levels, (sent.reports[0], sent.reports[1][:-1]))
    with pytest.raises(ValueError, match="users but"):
        tree.aggregate(broken)
    with pytest.raises(ValueError, match="levels must lie"):
        tree.aggregate(HierarchicalReports(np.full(16, 3), sent.reports))
    est = tree.estimate(sent)
    for a, b in ((3, 3), (-1, 4), (0, 17)):
        with pytest.raises(ValueError, match="0 <= a < b <= k"):
            est.range(a, b)
    with pytest.raises(TypeError, match="integer"):
        est.range(0.5, 3)
    with pytest.raises(ValueError, match="f must have 16"):
        tree.variance(10, 0, 3, f=np.ones(4) / 4)
    with pytest.raises(ValueError, match="summing to 1"):
        tree.variance(10, 0, 3, f=np.ones(16) / 17)
    with pytest.raises(ValueError, match="convention"):
        tree.variance(10, 0, 3, convention="bayes")
    with pytest.raises(ValueError, match="n"):
        tree.variance(0, 0, 3)
    with pytest.raises(TypeError, match="consistency"):
        tree.estimate(sent, consistency="yes")
    with pytest.raises(ValueError, match="levels"):
        tree_consistency([np.ones(3)], 2)
    with pytest.raises(ValueError, match="zero reports"):
        tree.estimate(tree.aggregate(tree.privatize(np.zeros(0, dtype=int), rng=0)))


def test_value_objects_are_frozen():
    tree = HierarchicalHistogram(16, 1.0)
    sent = tree.privatize(np.arange(16), rng=0)
    est = tree.estimate(sent)
    with pytest.raises(AttributeError):
        tree.k = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        est.n = 3  # type: ignore[misc]
    with pytest.raises(ValueError):
        est.leaves[0] = 1.0
    with pytest.raises(ValueError):
        sent.levels[0] = 1
    assert tree == HierarchicalHistogram(16, 1.0) and hash(tree) == hash(
        HierarchicalHistogram(16, 1.0)
    )


# ----------------------------------------------------------------------------- planning
@pytest.mark.parametrize(("k", "branching", "oracle"), [(27, 3, "GRR"), (20, 2, "auto")])
def test_mean_variance_equals_the_mean_over_every_range(k, branching, oracle):
    tree = HierarchicalHistogram(k, 1.0, branching=branching, oracle=oracle)
    f = np.random.default_rng(k).dirichlet(np.ones(k))
    a, b = np.triu_indices(k + 1, 1)
    for freq in (None, f):
        brute = np.mean([tree.variance(50, x, y, freq) for x, y in zip(a, b, strict=True)])
        assert tree.mean_variance(50, freq) == pytest.approx(brute, rel=1e-12)


def test_variance_in_chunks_equals_one_range_at_a_time():
    tree = HierarchicalHistogram(4096, 1.0, branching=4)  # 1024 ranges per pass
    rng = np.random.default_rng(0)
    ends = np.sort(rng.integers(0, 4097, (1500, 2)), axis=1)
    ends = ends[ends[:, 0] < ends[:, 1]]
    together = tree.variance(100, ends[:, 0], ends[:, 1])
    for r in (0, 1023, 1024, len(ends) - 1):
        assert together[r] == pytest.approx(tree.variance(100, *ends[r]), rel=1e-12)


def test_recommend_branching_picks_the_smallest_mean_variance():
    choice = recommend_branching(30, 1.0, n=1000, candidates=(2, 3, 5))
    a, b = np.triu_indices(31, 1)
    brute = {
        branching: float(np.mean(HierarchicalHistogram(30, 1.0, branching).variance(1000, a, b)))
        for branching in (2, 3, 5, 30)  # 30: the flat oracle is always a candidate
    }
    assert choice.branching == min(brute, key=brute.get)
    table = {row[0]: row[3] for row in choice.table}
    assert set(table) == set(brute)
    assert all(table[x] == pytest.approx(brute[x], rel=1e-12) for x in brute)
    assert "smallest mean range variance" in str(choice) and "runner-up" in choice.reason
    assert recommend_branching(1024, 1.0).branching == 4
    with pytest.raises(ValueError, match="MAX_PLANNED_VALUES"):
        recommend_branching(5000, 1.0)
    with pytest.raises(ValueError, match="candidates"):
        recommend_branching(30, 1.0, candidates=())
    with pytest.raises(ValueError, match="candidates"):
        recommend_branching(30, 1.0, candidates=(1,))


def test_auto_levels_follow_recommend():
    tree = HierarchicalHistogram(4096, 1.0, branching=4)
    for oracle in tree.oracles:
        assert oracle == recommend(oracle.k, 1.0, candidates=("GRR", "OUE"), tolerance=0).mechanism
    assert [o.name for o in tree.oracles] == ["GRR", "OUE", "OUE", "OUE", "OUE", "OUE"]

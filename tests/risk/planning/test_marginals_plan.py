"""Planning the marginals of a table: the planned number of users reaches the target risk in
simulation, the worst case is the uniform table, the lower bound (the one-column bound of the
largest marginal) stays below the achieved risk, the design is the one
``MarginalEstimator(method="auto")`` fits, and bad input is refused by name."""

import itertools
import math

import numpy as np
import pytest

from ldp.mechanisms import GRR, OLH, OUE, SUE, SubsetSelection
from ldp.risk import (
    distribution_lower_bound,
    gap,
    marginals_lower_bound,
    marginals_risk,
    plan,
)
from ldp.tasks import simulate_counts
from ldp.tasks.marginals import (
    MAX_JOINT_CELLS,
    build_design,
    cell_values,
    marginalize,
    requested_tables,
)


def _simulated_risks(design, joint, n, reps, rng):
    """Per marginal of ``design``, the mean over ``reps`` of the squared l2 error of its
    unbiased estimate; the devices draw their groups at random (multinomial group sizes),
    and each group's oracle counts come from their exact law."""
    codes = cell_values(np.arange(joint.size), design.sizes)
    laws = []
    for g in range(len(design.groups)):
        law = np.bincount(design.group_input(g, codes), joint, design.oracles[g].k)
        laws.append(law / law.sum())
    errors = np.zeros(len(design.tables))
    for _ in range(reps):
        sizes = rng.multinomial(n, np.full(len(design.groups), 1.0 / len(design.groups)))
        stats = [
            simulate_counts(o, rng.multinomial(m, law), rng)
            for o, m, law in zip(design.oracles, sizes, laws)
        ]
        for i, t in enumerate(design.tables):
            est = design.estimate(stats, t)[0]
            errors[i] += np.sum((est - marginalize(joint, design.sizes, t)) ** 2)
    return errors / reps


@pytest.mark.parametrize(
    ("sizes", "eps", "target"),
    [((2, 3, 2), 1.0, 2e-3), ((2, 2, 2, 2), 0.5, 5e-3), ((3, 5, 2, 4), 2.0, 1e-3)],
)
def test_the_planned_users_reach_the_target_in_simulation(sizes, eps, target):
    p = plan("marginals", eps, target, sizes=sizes)
    method = p.mechanism.split(":")[0]
    tables = list(itertools.combinations(range(len(sizes)), 2))
    design = build_design(method, sizes, tables, eps)
    uniform = np.full(math.prod(sizes), 1.0 / math.prod(sizes))
    # 400 runs: the mean squared error of a marginal has a relative sd below 8%, so the
    # simulated worst marginal lies within 25% of the target unless the plan is wrong
    simulated = _simulated_risks(design, uniform, p.n_required, 400, np.random.default_rng(3))
    assert 0.75 * target < simulated.max() < 1.25 * target, (simulated, p)
    assert p.gap.achieved.value <= target < marginals_risk(sizes, p.n_required - 1, eps).value


@pytest.mark.parametrize("method", ["joint", "groups", "fourier"])
def test_the_uniform_table_risk_is_what_simulation_gives(method):
    sizes, eps, n = (2, 2, 2), 1.0, 4000
    risk = marginals_risk(sizes, n, eps, method=method).value
    design = build_design(method, sizes, list(itertools.combinations(range(3), 2)), eps)
    uniform = _simulated_risks(design, np.full(8, 0.125), n, 300, np.random.default_rng(8))
    assert 0.8 * risk < uniform.max() < 1.2 * risk


@pytest.mark.parametrize(
    "oracle", [GRR(6, 1.0), OUE(12, 0.5), SUE(8, 2.0), OLH(12, 1.0), SubsetSelection(10, 1.0)]
)
@pytest.mark.parametrize(("cells", "m"), [(2, 3), (3, 2), (4, 1), (2, 6)])
def test_a_marginal_whose_cells_are_equal_has_the_largest_total_variance(oracle, cells, m):
    # the claim the worst case rests on, over random marginals of ``cells`` cells, each the
    # sum of ``m`` cells of the oracle's table (the variance itself is checked against the
    # enumerated report law in tests/mechanisms/test_sum_variance.py)
    if cells * m > oracle.k:
        pytest.skip("more cells than the oracle's table")
    worst = cells * oracle.sum_variance(100, 1.0 / cells, m)
    totals = np.random.default_rng(cells * m).dirichlet(np.full(cells, 0.5), size=500)
    spread = np.sum(oracle.sum_variance(100, np.clip(totals, 0.0, 1.0), m), axis=1)
    assert np.all(spread <= worst * (1 + 1e-12))
    assert spread.min() < worst


GRID = [
    ((2, 3), 2),
    ((2, 2, 2, 2), 2),
    ((4, 3, 5), 2),
    ((2, 2, 2), 3),
    ((10, 2, 7, 3, 2, 5, 4, 9), 2),
    ((3, 4, 2, 5, 2), [(0, 1), (2, 3, 4)]),
]


@pytest.mark.parametrize(("sizes", "marginals"), GRID)
@pytest.mark.parametrize("eps", [0.25, 1.0, 4.0])
@pytest.mark.parametrize("n", [10, 1000, 10**5, 10**8])
def test_the_lower_bound_is_below_every_design_and_is_the_largest_marginals(
    sizes, marginals, eps, n
):
    lower = marginals_lower_bound(sizes, n, eps, marginals=marginals)
    achieved = marginals_risk(sizes, n, eps, marginals=marginals)
    for value in achieved.design_risks.values():
        assert lower.value <= value
    tables = (
        itertools.combinations(range(len(sizes)), marginals)
        if isinstance(marginals, int)
        else marginals
    )
    each = [distribution_lower_bound(math.prod(sizes[c] for c in t), n, eps).value for t in tables]
    assert lower.value == pytest.approx(max(each), rel=1e-12)


def test_gap_and_the_inverse_question():
    g = gap("marginals", 50_000, 1.0, sizes=(2, 3, 4), marginals=2)
    assert g.lower.value < g.achieved.value and g.ratio > 1
    p = plan("marginals", None, 2e-3, n=50_000, sizes=(2, 3, 4), method="groups")
    assert p.mechanism.startswith("groups:")
    assert p.epsilon_lower_bound <= p.epsilon_required
    at = marginals_risk((2, 3, 4), 50_000, p.epsilon_required, method="groups").value
    assert at <= 2e-3


def _auto_method(sizes, tables, eps, consistency, n, candidates=("GRR", "OUE")):
    """The design of smallest total variance of what the estimator reports, from the
    designs' own variances (``consistent_variance`` is checked against the trace of the
    projected covariance in tests/tasks/test_marginals_projection.py)."""
    used = sorted({c for t in tables for c in t})
    methods = ["groups"]
    if math.prod(sizes[c] for c in used) <= MAX_JOINT_CELLS:
        methods.append("joint")
    if all(sizes[c] == 2 for c in used):
        methods.append("fourier")
    totals = {}
    for method in methods:
        design = build_design(method, sizes, tables, eps, candidates)
        if consistency:
            totals[method] = design.consistent_variance(n)
        else:
            totals[method] = sum(design.planned_variance(n, t) for t in tables)
    return min(totals, key=totals.get), totals


CHOICES = [
    ((2, 2, 2, 2), 2, 1.0),
    ((2, 2, 2, 2), 2, 0.25),
    ((2, 2, 2), 3, 1.0),
    ((2, 3, 4), 2, 1.0),
    ((3, 4, 2, 5, 2), [(0, 1), (2, 3, 4)], 0.5),
    ((2, 2, 2, 2, 2), [(0, 1), (1, 2), (2, 3), (3, 4)], 2.0),
    ((10, 2, 7, 3, 2, 5, 4, 9), 2, 1.0),
    ((4, 4, 4, 4, 4, 4), 2, 4.0),
]


@pytest.mark.parametrize("consistency", [True, False])
@pytest.mark.parametrize(
    ("sizes", "marginals", "eps", "candidates"),
    [(*case, ("GRR", "OUE")) for case in CHOICES]
    + [((8, 8, 8), 2, 1.0, ("GRR", "OUE", "SS")), ((2, 6, 5, 3), 2, 0.5, ("SS", "OLH"))],
)
def test_the_plan_takes_the_design_auto_fits(sizes, marginals, eps, candidates, consistency):
    from estimators import MarginalEstimator

    tables = requested_tables(len(sizes), marginals)
    expected, _ = _auto_method(sizes, tables, eps, consistency, 1 << 20, candidates)
    names = [f"c{j}" for j in range(len(sizes))]
    est = MarginalEstimator(
        eps,
        categories={name: list(range(k)) for name, k in zip(names, sizes)},
        marginals=marginals
        if isinstance(marginals, int)
        else [[names[c] for c in t] for t in tables],
        consistency=consistency,
        candidates=candidates,
    )
    fitted = est.device_protocol().design
    assert fitted.method == expected
    options = {"marginals": marginals, "consistency": consistency, "candidates": candidates}
    p = plan("marginals", eps, 1e-2, sizes=sizes, **options)
    oracles = "/".join(sorted({o.name for o in fitted.oracles if o is not None}))
    assert p.mechanism == f"{expected}:{oracles}"
    for n in (500, 10**6):
        risk = marginals_risk(sizes, n, eps, **options)
        assert risk.mechanism == p.mechanism
        # both totals of the chosen design at n, from the design's own variances
        design = build_design(expected, sizes, tables, eps, candidates)
        unbiased = sum(design.planned_variance(n, t) for t in tables)
        assert risk.total_unbiased == pytest.approx(unbiased, rel=1e-12)
        assert risk.total_consistent == pytest.approx(design.consistent_variance(n), rel=1e-12)
        others = _auto_method(sizes, tables, eps, consistency, n, candidates)[1]
        assert risk.design_totals == pytest.approx(others, rel=1e-12)


def test_consistency_changes_the_planned_design_of_four_binary_columns():
    # the unbiased Fourier tables are the smaller, the consistent groups tables the smaller
    # (each one-way margin is averaged over the three pairs that hold it)
    on = plan("marginals", 1.0, 1e-3, sizes=(2, 2, 2, 2))
    off = plan("marginals", 1.0, 1e-3, sizes=(2, 2, 2, 2), consistency=False)
    assert on.mechanism == "groups:GRR" and off.mechanism == "fourier:GRR"
    totals = on.gap.achieved
    assert totals.total_consistent < totals.total_unbiased
    assert "after consistency" in str(on) and f"{totals.total_consistent:.6g}" in str(on)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({}, TypeError, "problem 'marginals' needs sizes"),
        ({"sizes": (2, 0)}, ValueError, r"sizes\[1\] must be an integer >= 1, got 0"),
        ({"sizes": "23"}, TypeError, "sizes must be a non-empty sequence of category counts"),
        ({"sizes": (2, 3), "marginals": 3}, ValueError, "must be a width in 1 .. 2, got 3"),
        ({"sizes": (2, 3), "marginals": [(0, 2)]}, ValueError, r"distinct columns in 0 \.\. 1"),
        ({"sizes": (2, 3), "marginals": "ab"}, TypeError, "marginals must be an int k"),
        (
            {"sizes": (2, 3), "marginals": [("a", "b")]},
            TypeError,
            r"marginals must hold column indices \(integers in 0 \.\. 1\), got \('a', 'b'\)",
        ),
        ({"sizes": (2, 3), "method": "fourier"}, ValueError, "method 'fourier' does not apply"),
        ({"sizes": (2, 3), "method": "best"}, ValueError, "method must be one of"),
        ({"sizes": (2, 3), "loss": "tv"}, TypeError, "does not take loss"),
        ({"sizes": (5000, 5000)}, ValueError, "MAX_TABLE_CELLS"),
        ({"sizes": (2, 3), "consistency": "yes"}, TypeError, "consistency must be True or"),
    ],
)
def test_bad_input_names_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match) as info:
        plan("marginals", 1.0, 1e-3, **kwargs)
    assert "\n" not in str(info.value)

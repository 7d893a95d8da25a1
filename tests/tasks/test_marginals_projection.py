"""The linear step of the marginals' consistency and its exact covariance.

``consistent_projection`` against the weighted least-squares problem solved naively (the
tables as marginals of one joint, the total constrained to one, the KKT system solved with
a pseudo-inverse); ``MarginalDesign.consistent_variance`` against the trace of ``L S L^T``
with ``L`` that naive projection matrix and ``S`` the stacked tables' covariance built from
each oracle's own covariance matrix; and against simulation (support counts drawn from
their exact law, the squared error averaged over seeded repetitions, within five standard
errors of that average).
"""

import itertools
import math

import numpy as np
import pytest

from ldp.tasks import simulate_counts
from ldp.tasks.marginals import (
    build_design,
    component_weights,
    consistent_marginals,
    consistent_projection,
    marginal_matrix,
    overlap_gap,
    requested_tables,
)

CASES = [
    ((2, 2, 2, 2), tuple(itertools.combinations(range(4), 2))),
    ((2, 3, 4), ((0, 1), (1, 2), (0, 2))),
    ((3, 2, 4, 2), ((0, 1), (1, 2), (0, 2, 3), (3,))),
    ((2, 3, 2), ((0, 1), (0,), (2,))),
]


def _stacked_map(sizes, tables):
    """The matrix from the joint over ``sizes`` to every table's cells, stacked."""
    return np.vstack([marginal_matrix(sizes, t) for t in tables])


def _naive_projection(sizes, tables, mean_var):
    """``(L, c)`` with ``z = L y + c`` the minimiser of ``sum_t ||z_t - y_t||^2 / v_t`` over
    the stacked marginals ``z = A x`` of a joint ``x`` with ``sum(x) = 1``."""
    a = _stacked_map(sizes, tables)
    w = np.concatenate(
        [np.full(math.prod(sizes[c] for c in t), 1.0 / v) for t, v in zip(tables, mean_var)]
    )
    cells = a.shape[1]
    kkt = np.zeros((cells + 1, cells + 1))
    kkt[:cells, :cells] = a.T @ (w[:, None] * a)
    kkt[:cells, cells] = kkt[cells, :cells] = 1.0
    inverse = np.linalg.pinv(kkt)
    linear = a @ inverse[:cells, :cells] @ (a.T * w)
    constant = a @ inverse[:cells, cells]
    return linear, constant


@pytest.mark.parametrize(("sizes", "tables"), CASES)
def test_the_projection_is_the_weighted_least_squares_solution(sizes, tables):
    rng = np.random.default_rng(len(tables) + sum(sizes))
    cells = [math.prod(sizes[c] for c in t) for t in tables]
    raw = [rng.normal(1.0 / k, 0.2, k) for k in cells]
    variances = [np.full(k, rng.uniform(0.5, 3.0)) for k in cells]
    out = consistent_projection(tables, sizes, raw, variances)
    linear, constant = _naive_projection(sizes, tables, [v[0] for v in variances])
    assert np.allclose(np.concatenate(out), linear @ np.concatenate(raw) + constant, atol=1e-12)
    assert overlap_gap(tables, sizes, out) < 1e-12
    assert all(t.sum() == pytest.approx(1.0, abs=1e-12) for t in out)


def test_consistent_tables_summing_to_one_are_fixed_and_the_weights_sum_to_one():
    sizes, tables = CASES[2]
    joint = np.random.default_rng(3).dirichlet(np.ones(math.prod(sizes)))
    exact = [marginal_matrix(sizes, t) @ joint for t in tables]
    out = consistent_projection(tables, sizes, exact, [np.ones(e.size) for e in exact])
    assert all(np.allclose(a, b, atol=1e-14) for a, b in zip(out, exact))
    assert component_weights([1.0, 2.0, 4.0], [3, 1, 2]).sum() == pytest.approx(1.0)


def test_non_negative_projections_are_what_consistency_returns():
    sizes, tables = CASES[1]
    joint = np.random.default_rng(4).dirichlet(np.full(24, 5.0))
    rng = np.random.default_rng(5)
    exact = [marginal_matrix(sizes, t) @ joint for t in tables]
    raw = [e + rng.normal(0, 1e-3, e.size) for e in exact]
    variances = [np.full(r.size, 1.0) for r in raw]
    linear = consistent_projection(tables, sizes, raw, variances)
    assert min(t.min() for t in linear) > 0
    fixed = consistent_marginals(tables, sizes, raw, variances)
    assert all(np.allclose(a, b, atol=1e-15) for a, b in zip(fixed, linear))


def _stacked_covariance(design, n):
    """The covariance of the stacked unbiased tables at the uniform table, from each
    group's oracle covariance matrix (``"groups"``: a table per group, independent;
    ``"joint"``: every table a marginal of the one group; ``"fourier"``: independent
    coefficients)."""
    sizes, tables = design.sizes, design.tables
    per_group = n // len(design.groups)
    if design.method == "fourier":
        blocks = []
        for t in tables:
            k = len(t)
            bits = (np.arange(1 << k)[:, None] >> (k - 1 - np.arange(k))[None, :]) & 1
            row = np.zeros((1 << k, len(design.groups)))
            for g, group in enumerate(design.groups):
                if set(group) <= set(t):
                    picked = [t.index(c) for c in group]
                    row[:, g] = (1.0 - 2.0 * (bits[:, picked].sum(axis=1) % 2)) / 2**k
            blocks.append(row)
        b = np.vstack(blocks)
        var = [4.0 * o.covariance(per_group, [0.5, 0.5], "iid")[0, 0] for o in design.oracles]
        return b @ np.diag(var) @ b.T
    if design.method == "joint":
        (group,), (oracle,) = design.groups, design.oracles
        inner = oracle.covariance(per_group, np.full(oracle.k, 1.0 / oracle.k), "iid")
        a = np.vstack([marginal_matrix([sizes[c] for c in group], [group.index(c) for c in t])
                       for t in tables])  # fmt: skip
        return a @ inner @ a.T
    size = sum(math.prod(sizes[c] for c in t) for t in tables)
    out, at = np.zeros((size, size)), 0
    for t in tables:
        oracle = design.oracles[design.groups.index(t)]
        k = oracle.k
        out[at : at + k, at : at + k] = oracle.covariance(per_group, np.full(k, 1.0 / k), "iid")
        at += k
    return out


@pytest.mark.parametrize(
    ("method", "sizes", "tables"),
    [(m, *case) for case in CASES[:3] for m in ("groups", "joint")] + [("fourier", *CASES[0])],
)
def test_the_consistent_variance_is_the_trace_of_the_naive_projection(method, sizes, tables):
    design = build_design(method, sizes, tables, 1.0)
    n = 6_000 * len(design.groups)
    sigma = _stacked_covariance(design, n)
    bounds = np.cumsum([0] + [math.prod(sizes[c] for c in t) for t in tables])
    mean_var = [np.trace(sigma[a:b, a:b]) / (b - a) for a, b in itertools.pairwise(bounds)]
    linear, _ = _naive_projection(sizes, tables, mean_var)
    exact = np.trace(linear @ sigma @ linear.T)
    assert design.consistent_variance(n) == pytest.approx(exact, rel=1e-9)
    before = sum(design.planned_variance(n, t) for t in tables)
    assert before == pytest.approx(np.trace(sigma), rel=1e-9)
    if method == "groups":
        assert design.consistent_variance(n) < 0.8 * before


@pytest.mark.parametrize(("method", "sizes"), [("groups", (2, 3, 4)), ("fourier", (2, 2, 2))])
def test_the_consistent_variance_matches_simulation(method, sizes):
    tables = requested_tables(len(sizes), 2)
    design = build_design(method, sizes, tables, 1.0)
    per_group, reps = 400, 1_200
    n = per_group * len(design.groups)
    truth = [np.full(math.prod(sizes[c] for c in t), 1.0 / math.prod(sizes[c] for c in t))
             for t in tables]  # fmt: skip
    variances = [np.full(v.size, design.planned_variance(n, t) / v.size)
                 for v, t in zip(truth, tables)]  # fmt: skip
    rng = np.random.default_rng(11)
    errors = np.empty(reps)
    for r in range(reps):
        stats = [
            simulate_counts(o, rng.multinomial(per_group, np.full(o.k, 1.0 / o.k)), rng)
            for o in design.oracles
        ]
        unbiased = [design.estimate(stats, t)[0] for t in tables]
        out = consistent_projection(tables, sizes, unbiased, variances)
        errors[r] = sum(float(np.sum((z - f) ** 2)) for z, f in zip(out, truth))
    expected = design.consistent_variance(n)
    assert abs(errors.mean() - expected) < 5 * errors.std(ddof=1) / math.sqrt(reps)


def test_bad_input_names_the_argument_and_its_value():
    tables, sizes = [(0, 1), (1, 2)], (2, 2, 2)
    good = [np.full(4, 0.25), np.full(4, 0.25)]
    ones = [np.ones(4), np.ones(4)]
    with pytest.raises(ValueError, match=r"estimates of table \(0, 1\) must be finite"):
        consistent_projection(tables, sizes, [np.array([0.5, np.nan, 0.25, 0.25]), good[1]], ones)
    for bad in (np.array([1.0, -1.0, 1.0, 1.0]), np.array([1.0, np.inf, 1.0, 1.0])):
        with pytest.raises(ValueError, match=r"variances of table \(1, 2\) must be finite"):
            consistent_marginals(tables, sizes, good, [ones[0], bad])
    with pytest.raises(ValueError, match="one entry per table"):
        consistent_projection(tables, sizes, good[:1], ones)

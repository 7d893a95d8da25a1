"""Acceptance of MarginalEstimator on tables of d = 4 to 8 columns (domains of 2 to 10): every
unbiased marginal is unbiased over 200 seeded datasets, the automatic design is within 10% of
the best fixed one in average TV error, and ``independence``, ``goodness_of_fit`` and
``two_sample`` on the estimator's cell estimates hold their level over 2,000 datasets under
the null.

Each dataset's group statistics are drawn from their exact law (the devices' groups are
multinomial; within a group, the inputs are multinomial from the group's marginal of the
joint and the oracle's support counts come from ``simulate_counts``), which is what the
devices' reports aggregate to; the estimator's own answers are then computed from them.
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from estimators import MarginalEstimator
from ldp.inference import goodness_of_fit, independence, two_sample
from ldp.tasks import simulate_counts
from ldp.tasks.marginals import build_design, cell_values, consistent_marginals, marginalize


def _group_laws(design, joint):
    codes = cell_values(np.arange(joint.size), design.sizes)
    laws = []
    for g, oracle in enumerate(design.oracles):
        law = np.bincount(design.group_input(g, codes), joint, oracle.k)
        laws.append(law / law.sum())
    return laws


def _statistics(design, laws, n, rng):
    """One dataset's group statistics, from their exact law."""
    sizes = rng.multinomial(n, np.full(len(design.groups), 1.0 / len(design.groups)))
    return [
        simulate_counts(o, rng.multinomial(m, law), rng)
        for o, m, law in zip(design.oracles, sizes, laws)
    ]


WIDE = [
    pytest.param("joint", (10, 2, 5, 3), id="joint-d4"),
    pytest.param("groups", (2, 7, 3, 10, 4), id="groups-d5"),
    pytest.param("fourier", (2,) * 6, id="fourier-d6"),
    pytest.param("groups", (2, 5, 3, 10, 2, 4, 3), id="groups-d7"),
    pytest.param("joint", (2, 5, 3, 10, 2, 4, 3), id="joint-d7"),
    pytest.param("groups", (3, 2, 10, 2, 4, 2, 5, 3), id="groups-d8"),
    pytest.param("joint", (3, 2, 10, 2, 4, 2, 5, 3), id="joint-d8"),
    pytest.param("fourier", (2,) * 8, id="fourier-d8"),
]


@pytest.mark.long
@pytest.mark.parametrize(("method", "sizes"), WIDE)
def test_every_marginal_is_unbiased_over_200_seeds(method, sizes):
    rng = np.random.default_rng(len(sizes) + len(method))
    joint = rng.dirichlet(np.ones(math.prod(sizes)))
    tables = list(itertools.combinations(range(len(sizes)), 2))
    design = build_design(method, sizes, tables, 1.0)
    laws = _group_laws(design, joint)
    truth = [marginalize(joint, sizes, t) for t in tables]
    errors = [[] for _ in tables]
    for _ in range(200):
        stats = _statistics(design, laws, 200_000, rng)
        for i, t in enumerate(tables):
            errors[i].append(design.estimate(stats, t)[0] - truth[i])
    for t, err in zip(tables, errors):
        err = np.array(err)  # before the non-negativity step: the unbiased estimates
        se = err.std(axis=0, ddof=1) / math.sqrt(200)
        assert np.all(np.abs(err.mean(axis=0)) < 4 * se), t


def _average_tv(design, stats, tables, truth):
    est = [design.estimate(stats, t) for t in tables]
    fixed = consistent_marginals(tables, design.sizes, [e[0] for e in est], [e[1] for e in est])
    return float(np.mean([0.5 * np.abs(f - m).sum() for f, m in zip(fixed, truth)]))


@pytest.mark.long
@pytest.mark.parametrize(
    ("sizes", "epsilon"),
    [((2, 5, 3, 10, 2, 4, 3), 2.0), ((3, 2, 10, 2, 4, 2, 5, 3), 1.0), ((2,) * 8, 0.5)],
)
def test_auto_is_within_ten_percent_of_the_best_design_on_wide_tables(sizes, epsilon):
    rng = np.random.default_rng(sum(sizes))
    joint = rng.dirichlet(np.ones(math.prod(sizes)))
    names = [f"c{j}" for j in range(len(sizes))]
    cats = {c: list(range(k)) for c, k in zip(names, sizes)}
    n = 400_000
    rows = cell_values(rng.choice(joint.size, size=40_000, p=joint), sizes)
    frame = pd.DataFrame(dict(zip(names, rows)))
    auto = MarginalEstimator(epsilon, categories=cats, random_state=0).fit(frame).design_
    tables = list(itertools.combinations(range(len(sizes)), 2))
    truth = [marginalize(joint, sizes, t) for t in tables]
    methods = ["joint", "groups"] + (["fourier"] if set(sizes) == {2} else [])
    errors = {}
    for method in methods:
        design = build_design(method, sizes, tables, epsilon)
        laws = _group_laws(design, joint)
        runs = [
            _average_tv(design, _statistics(design, laws, n, rng), tables, truth) for _ in range(8)
        ]
        errors[method] = float(np.mean(runs))
    assert auto.method in methods  # the choice depends on the domains and epsilon only
    assert errors[auto.method] <= 1.10 * min(errors.values()), (auto.method, errors)


def _null_estimator(method, epsilon):
    """A fitted estimator of three independent columns (2, 3, 2 categories; binary for
    "fourier"), the group laws of its null joint and the true table of ``(c0, c1)``."""
    sizes = (2, 2, 2) if method == "fourier" else (2, 3, 2)
    cols = [np.full(k, 1.0 / k) + np.linspace(-0.1, 0.1, k) for k in sizes]
    joint = np.einsum("i,j,k->ijk", *cols).ravel()
    names = ["c0", "c1", "c2"]
    cats = {c: list(range(k)) for c, k in zip(names, sizes)}
    rng = np.random.default_rng(17)
    rows = cell_values(rng.choice(joint.size, size=5_000, p=joint), sizes)
    est = MarginalEstimator(epsilon, categories=cats, method=method, random_state=1)
    est.fit(pd.DataFrame(dict(zip(names, rows))))
    return est, _group_laws(est.design_, joint), np.outer(cols[0], cols[1]).ravel()


def _rejection_rates(method, epsilon, reps, seed):
    """The rejection rates at level 0.05 of the three tests on the estimator's table of
    ``(c0, c1)``, over ``reps`` null datasets (pairs of them for ``two_sample``)."""
    est, laws, truth = _null_estimator(method, epsilon)
    twin, _, _ = _null_estimator(method, epsilon)
    rng = np.random.default_rng(seed)
    pvalues = {"independence": [], "goodness_of_fit": [], "two_sample": []}
    for _ in range(reps):
        for fitted in (est, twin):
            stats = _statistics(est.design_, laws, 20_000, rng)
            fitted.statistics_ = tuple(stats)  # what fit_reports aggregates from the reports
            fitted.n_reports_ = np.array([s.n for s in stats])
        pair = ("c0", "c1")
        pvalues["independence"].append(independence(est, pair).pvalue)
        pvalues["goodness_of_fit"].append(goodness_of_fit(est, truth, column=pair).pvalue)
        pvalues["two_sample"].append(two_sample(est, twin, column=pair).pvalue)
    return {test: float(np.mean(np.asarray(p) < 0.05)) for test, p in pvalues.items()}


@pytest.mark.long
@pytest.mark.parametrize("method", ["joint", "groups", "fourier"])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_every_test_on_the_estimator_holds_its_level(method, epsilon):
    rates = _rejection_rates(method, epsilon, 2000, 23)
    for rate in rates.values():  # three binomial standard errors around 0.05
        assert 0.035 <= rate <= 0.065, rates


def test_every_test_on_the_estimator_holds_its_level_quickly():
    """The default run's twin: 400 datasets of the joint design (the pair summed from a
    3-column joint), three binomial standard errors (0.011) around 0.05."""
    rates = _rejection_rates("joint", 2.0, 400, 29)
    for rate in rates.values():
        assert 0.017 <= rate <= 0.083, rates


@pytest.mark.long
@pytest.mark.parametrize(("method", "epsilon", "n"), [("joint", 0.2, 3600), ("groups", 0.5, 380)])
def test_independence_holds_its_level_down_to_its_refusal(method, epsilon, n):
    """Just above the fewest reports independence accepts (its second-order ratio at the
    uniform table just below 1; half of them, it rejected 12% of null datasets), over
    2,000 null datasets. A groups dataset whose group drew too few devices is refused
    whatever its reports say (and, rarely, one whose estimated marginal has no positive
    cell), so the rate is over the datasets answered."""
    est, laws, _ = _null_estimator(method, epsilon)
    rng = np.random.default_rng(37)
    pvalues, refused = [], 0
    for _ in range(2000):
        stats = _statistics(est.design_, laws, n, rng)
        est.statistics_ = tuple(stats)
        est.n_reports_ = np.array([s.n for s in stats])
        try:
            pvalues.append(independence(est, ("c0", "c1")).pvalue)
        except ValueError:  # too few reports in the group, or a marginal with no positive cell
            refused += 1
    rate = float(np.mean(np.asarray(pvalues) < 0.05))
    # never too often (three binomial standard errors above 0.05); a little below 0.05 is
    # allowed here, where the neglected term makes the test conservative (3% at joint-0.2)
    assert refused < 100 and 0.02 <= rate <= 0.065, (rate, refused)

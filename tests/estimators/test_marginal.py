"""MarginalEstimator: the table it answers, its exact-law behaviour through real rows
(unbiased, intervals that cover), the automatic design against each fixed one, synthetic
rows against the estimated marginals (a seeded chi-square test), and bad input."""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from estimators import MarginalEstimator
from ldp import PrivacyLeakWarning
from ldp.tasks.marginals import cell_values, marginalize


def _table(sizes, n, rng, joint=None):
    joint = rng.dirichlet(np.ones(math.prod(sizes))) if joint is None else joint
    codes = cell_values(rng.choice(joint.size, size=n, p=joint), sizes)
    frame = pd.DataFrame({f"c{j}": codes[j] for j in range(len(sizes))})
    cats = {f"c{j}": list(range(k)) for j, k in enumerate(sizes)}
    return frame, cats, joint


def test_the_answer_is_one_row_per_cell_in_declared_order():
    rng = np.random.default_rng(0)
    X, cats, joint = _table((2, 3, 2), 30_000, rng)
    cats["c1"] = [2, 0, 1]  # declared order is the table's order
    est = MarginalEstimator(2.0, categories=cats, random_state=1).fit(X)
    table = est.marginal(["c1", "c0"])
    assert list(table.columns) == ["c1", "c0", "estimate", "ci_low", "ci_high", "unbiased", "std"]
    assert table[["c1", "c0"]].values.tolist() == [[2, 0], [2, 1], [0, 0], [0, 1], [1, 0], [1, 1]]
    truth = marginalize(joint, (2, 3, 2), (1, 0)).reshape(3, 2)[[2, 0, 1]].ravel()
    assert np.all(np.abs(table.unbiased - truth) < 5 * table["std"])
    assert table.estimate.sum() == pytest.approx(1.0) and table.estimate.min() >= 0
    assert np.all((table.ci_low <= table.unbiased + 1e-12) | (table.ci_low == 0))
    one_way = est.marginal("c2")
    assert one_way.estimate.tolist() == pytest.approx(
        marginalize(est.consistent_[("c1", "c2")], (3, 2), (1,)).tolist()
    )
    assert est.epsilon_total_ == 2.0 and "2-LDP" in est.privacy_


@pytest.mark.parametrize("method", ["joint", "groups", "fourier"])
def test_fit_reports_decodes_what_fit_simulates(method):
    rng = np.random.default_rng(2)
    X, cats, _ = _table((2, 2, 2), 5_000, rng)
    est = MarginalEstimator(1.0, categories=cats, method=method, random_state=3).fit(X)
    codes = [X[c].to_numpy() for c in X.columns]
    _, reports = est.design_.privatize(codes, np.random.default_rng(3))
    server = MarginalEstimator(1.0, categories=cats, method=method).fit_reports(reports)
    for key in est.tables_:
        assert np.array_equal(server.unbiased_[key], est.unbiased_[key])
    assert server.method_ == est.method_


def _average_tv(est, joint, sizes):
    names = [c.name for c in est.columns_]
    tv = []
    for key in est.tables_:
        cols = [names.index(c) for c in key]
        tv.append(0.5 * np.abs(est.consistent_[key] - marginalize(joint, sizes, cols)).sum())
    return float(np.mean(tv))


@pytest.mark.parametrize(
    ("sizes", "epsilon"),
    [
        ((2, 2, 2, 2), 1.0),
        ((3, 2, 4, 2, 5), 2.0),
        ((2,) * 6, 0.5),
    ],
)
def test_auto_is_within_ten_percent_of_the_best_design(sizes, epsilon):
    rng = np.random.default_rng(sum(sizes))
    joint = rng.dirichlet(np.ones(math.prod(sizes)))
    cats = {f"c{j}": list(range(k)) for j, k in enumerate(sizes)}
    methods = ["joint", "groups"] + (["fourier"] if set(sizes) == {2} else [])
    errors = {m: [] for m in [*methods, "auto"]}
    for seed in range(12):
        X, _, _ = _table(sizes, 20_000, np.random.default_rng(seed), joint)
        for m in errors:
            est = MarginalEstimator(epsilon, categories=cats, method=m, random_state=seed)
            errors[m].append(_average_tv(est.fit(X), joint, sizes))
    best = min(np.mean(errors[m]) for m in methods)
    assert np.mean(errors["auto"]) <= 1.10 * best, {m: np.mean(e) for m, e in errors.items()}


def test_auto_ranks_by_the_variance_of_what_marginal_reports():
    # four binary columns at eps = 1: Fourier has the smaller unbiased variance, groups the
    # smaller one after the consistency's linear step (each one-way margin averaged)
    cats = {f"c{j}": [0, 1] for j in range(4)}
    chosen = {}
    for consistency in (True, False):
        est = MarginalEstimator(1.0, categories=cats, consistency=consistency)
        chosen[consistency] = est.device_protocol().design
    assert chosen[True].method == "groups" and chosen[False].method == "fourier"
    n = 10_000
    after = {d.method: d.consistent_variance(n) for d in chosen.values()}
    before = {d.method: sum(d.planned_variance(n, t) for t in d.tables) for d in chosen.values()}
    assert after["groups"] < after["fourier"] and before["fourier"] < before["groups"]


@pytest.mark.long
@pytest.mark.parametrize("method", ["joint", "groups", "fourier"])
def test_unbiased_and_covered_over_200_seeds_through_rows(method):
    sizes = (2, 2, 2, 2)
    joint = np.random.default_rng(9).dirichlet(np.ones(16))
    cats = {f"c{j}": [0, 1] for j in range(4)}
    truth = marginalize(joint, sizes, (0, 2))
    errors, covered = [], []
    for seed in range(200):
        X, _, _ = _table(sizes, 4_000, np.random.default_rng(seed), joint)
        est = MarginalEstimator(1.0, categories=cats, method=method, random_state=seed).fit(X)
        table = est.marginal(["c0", "c2"])
        errors.append(table.unbiased.to_numpy() - truth)
        covered.append((table.ci_low <= truth) & (truth <= table.ci_high))
    errors = np.array(errors)
    assert np.all(np.abs(errors.mean(0)) < 4 * errors.std(0, ddof=1) / math.sqrt(200))
    rate = np.mean(covered)  # 800 interval checks at 95%: binomial sd 0.8%
    assert 0.92 < rate < 0.98


def test_synthetic_rows_reproduce_the_estimated_two_way_marginals():
    rng = np.random.default_rng(5)
    sizes = (3, 2, 4, 2)
    X, cats, _ = _table(sizes, 40_000, rng)
    est = MarginalEstimator(2.0, categories=cats, method="groups", random_state=6).fit(X)
    rows = est.sample(30_000, random_state=7)
    assert list(rows.columns) == list(X.columns) and len(rows) == 30_000
    for key in est.tables_:
        expected = est.consistent_[key]
        counts = rows.groupby(list(key)).size()
        grid = pd.MultiIndex.from_product([cats[c] for c in key])
        observed = counts.reindex(grid, fill_value=0).to_numpy()
        keep = expected > 1e-12
        assert observed[~keep].sum() == 0
        pvalue = stats.chisquare(observed[keep], expected[keep] / expected[keep].sum() * 30_000)
        assert pvalue.pvalue > 1e-4, key


def test_numeric_columns_are_binned_by_declared_edges():
    rng = np.random.default_rng(8)
    X = pd.DataFrame({"age": rng.uniform(18, 90, 20_000), "smoker": rng.integers(0, 2, 20_000)})
    est = MarginalEstimator(
        2.0, categories={"smoker": [0, 1]}, bins={"age": [18, 40, 65, 90]}, random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = est.fit(X).marginal(["age"])
    assert table.age.tolist() == ["[18, 40)", "[40, 65)", "[65, 90]"]
    assert table.unbiased.to_numpy() == pytest.approx([22 / 72, 25 / 72, 25 / 72], abs=0.05)
    with pytest.raises(ValueError, match="outside its bins"):
        est.fit(X.assign(age=X.age + 10))


def _one_line(kind, match):
    return _OneLine(pytest.raises(kind, match=match))


class _OneLine:
    def __init__(self, raises):
        self.raises = raises

    def __enter__(self):
        self.info = self.raises.__enter__()
        return self.info

    def __exit__(self, *exc):
        out = self.raises.__exit__(*exc)
        assert "\n" not in str(self.info.value)
        return out


def test_bad_input_gives_one_line_errors():
    rng = np.random.default_rng(1)
    X, cats, _ = _table((2, 3, 2), 2_000, rng)
    with pytest.warns(PrivacyLeakWarning, match="read from the private data"):
        MarginalEstimator(random_state=0).fit(X)
    with _one_line(ValueError, match="unknown column 'z'"):
        MarginalEstimator(categories=cats, marginals=[("c0", "z")]).fit(X)
    est = MarginalEstimator(categories=cats, marginals=[("c0", "c1")], random_state=0).fit(X)
    with _one_line(ValueError, match="no requested marginal holds the columns"):
        est.marginal(["c0", "c2"])
    for twice in ([("c0", "c1"), ("c0", "c1")], [("c1", "c0"), ("c2",), ("c0", "c1")]):
        with _one_line(ValueError, match=r"lists the marginal of \('c.', 'c.'\) twice"):
            MarginalEstimator(categories=cats, marginals=twice).fit(X)
    with _one_line(ValueError, match="unknown column 'q'"):
        est.marginal(["q"])
    with _one_line(
        TypeError, match="columns must be a column name or a list of column names, got 3"
    ):
        est.marginal(3)
    with _one_line(ValueError, match=r"columns must name at least one of the columns \['c0'"):
        est.cell_estimate([])
    from ldp.inference import goodness_of_fit, independence

    with _one_line(ValueError, match="columns must name two columns for the independence test"):
        independence(est, "c0")
    with _one_line(TypeError, match=r"expected must be an array of real numbers, got 'flat'"):
        goodness_of_fit(est, "flat", column="c0")
    big = {"a": list(range(5000)), "b": list(range(5000))}
    tiny = pd.DataFrame({"a": [0, 1], "b": [1, 0]})
    with _one_line(ValueError, match="MAX_TABLE_CELLS"):
        MarginalEstimator(categories=big).fit(tiny)
    with _one_line(ValueError, match=r"has 2 reports, fewer than its 4 cells"):
        MarginalEstimator(categories=cats, method="groups", random_state=0).fit(X.iloc[:10])
    with _one_line(ValueError, match="method must be one of"):
        MarginalEstimator(method="best").fit(X)
    with _one_line(TypeError, match="marginals must be"):
        MarginalEstimator(marginals="c0").fit(X)
    wide = r"binary columns \(2 categories each\); 'c1' has 3 categories$"
    with _one_line(ValueError, match=wide):
        MarginalEstimator(categories=cats, method="fourier").fit(X)
    with _one_line(ValueError, match=wide):
        MarginalEstimator(categories=cats, method="fourier").device_protocol()
    with _one_line(ValueError, match="fit_reports needs every column declared"):
        MarginalEstimator().fit_reports([])
    with _one_line(ValueError, match=r"candidates must be names among .*'XYZ'"):
        MarginalEstimator(categories=cats, candidates=("GRR", "XYZ")).fit(X)
    with _one_line(TypeError, match="candidates must be a sequence of oracle names, got 'GRR'"):
        MarginalEstimator(categories=cats, candidates="GRR").fit(X)
    with _one_line(ValueError, match=r"candidates \('HR',\) have no oracle with an exact"):
        MarginalEstimator(categories=cats, candidates=("HR",)).device_protocol()


def test_rows_are_never_read_when_every_domain_is_declared_and_sampling_is_seeded():
    rng = np.random.default_rng(4)
    X, cats, _ = _table((2, 2), 1_000, rng)
    est = MarginalEstimator(categories=cats, random_state=0).fit(X)
    assert est.sample(50, random_state=1).equals(est.sample(50, random_state=1))
    assert set(itertools.chain.from_iterable(est.tables_)) == {"c0", "c1"}


def test_chunks_and_merged_shards_give_the_one_shot_statistics():
    rng = np.random.default_rng(11)
    X, cats, _ = _table((2, 3, 2), 6_000, rng)
    codes = [X[c].to_numpy() for c in X.columns]
    base = MarginalEstimator(1.0, categories=cats).fit_reports
    design = MarginalEstimator(1.0, categories=cats).fit(X.iloc[:2000]).design_
    _, first = design.privatize([c[:3000] for c in codes], np.random.default_rng(1))
    _, second = design.privatize([c[3000:] for c in codes], np.random.default_rng(2))
    whole = base([np.concatenate([a, b]) for a, b in zip(first, second)])
    chunked = MarginalEstimator(1.0, categories=cats).partial_fit_reports(first)
    chunked.partial_fit_reports(second)
    merged = base(first).merge(MarginalEstimator(1.0, categories=cats).fit_reports(second))
    for est in (chunked, merged):
        assert est.n_rows_ == 6_000
        for key in whole.tables_:
            assert np.allclose(est.unbiased_[key], whole.unbiased_[key], atol=1e-12)
    with pytest.raises(ValueError, match="would be counted twice"):
        merged.merge(merged)
    other = MarginalEstimator(1.0, categories=cats, consistency=False).fit_reports(second)
    with pytest.raises(ValueError, match="parameter 'consistency' differs"):
        merged.merge(other)
    streamed = MarginalEstimator(1.0, categories=cats, random_state=0).partial_fit(X[:3000])
    assert streamed.partial_fit(X[3000:]).n_rows_ == 6_000


def test_cell_estimate_feeds_the_independence_test():
    from ldp.inference import independence

    rng = np.random.default_rng(21)
    sizes = (2, 3, 2)
    joint = np.einsum("i,j,k->ijk", [0.4, 0.6], [0.2, 0.3, 0.5], [0.5, 0.5]).ravel()
    X, cats, _ = _table(sizes, 30_000, rng, joint)
    X["c2"] = X["c0"]  # c0 and c2 are dependent, c0 and c1 are not
    est = MarginalEstimator(1.0, categories=cats, method="groups", random_state=2).fit(X)
    cells = est.cell_estimate(["c0", "c1"])
    assert cells.shape == (2, 3) and cells.n == est.n_reports_[est.design_.groups.index((0, 1))]
    assert np.array_equal(cells.value, est.unbiased_[("c0", "c1")])
    cov = cells.covariance(marginalize(joint, sizes, (0, 1)))
    assert cov.shape == (6, 6) and np.allclose(cov, cov.T)
    assert independence(est, ("c0", "c2")).pvalue < 1e-6
    assert independence(est, ("c0", "c1")).pvalue > 1e-4  # independent columns
    with pytest.raises(ValueError, match="one or two columns"):
        est.cell_estimate(["c0", "c1", "c2"])
    from ldp.inference import goodness_of_fit

    with _one_line(ValueError, match=r"columns must name one or two of the columns \['c0'"):
        goodness_of_fit(est, [0.5, 0.5])  # which column?


def test_two_samples_of_different_protocols_are_refused_in_one_line():
    from ldp.inference import two_sample

    rng = np.random.default_rng(31)
    X, cats, joint = _table((2, 3, 2), 8_000, rng)
    Y, _, _ = _table((2, 3, 2), 8_000, rng, joint)
    fit = lambda eps, data, **kw: MarginalEstimator(  # noqa: E731
        eps, categories=cats, random_state=3, **kw
    ).fit(data)
    same = two_sample(fit(1.0, X), fit(1.0, Y), column=["c0", "c1"])
    assert 0.0 < same.pvalue <= 1.0 and same.df == 5
    cases = [
        (fit(1.0, X), fit(2.0, Y)),  # another epsilon
        (fit(1.0, X, method="groups"), fit(1.0, Y, method="joint")),  # another design
    ]
    for a, b in cases:
        with _one_line(ValueError, match="collected by different protocols"):
            two_sample(a, b, column=["c0", "c1"])


def test_a_joint_too_large_for_memory_is_refused_with_the_limit_named():
    cats = {f"c{j}": list(range(10)) for j in range(6)}
    tiny = pd.DataFrame({c: [0, 1] for c in cats})
    with _one_line(ValueError, match=r"MAX_JOINT_CELLS"):
        MarginalEstimator(categories=cats, method="joint").fit(tiny)


def test_a_column_with_one_level_is_refused_by_the_tests_never_a_nan_pvalue():
    from ldp.inference import goodness_of_fit, independence, two_sample

    rng = np.random.default_rng(41)
    X, cats, _ = _table((2, 3), 4_000, rng)
    X["const"], cats["const"] = "x", ["x"]
    fit = lambda seed: MarginalEstimator(1.0, categories=cats, random_state=seed).fit(X)  # noqa: E731
    est = fit(1)
    assert est.marginal("const").estimate.tolist() == [1.0]
    with _one_line(ValueError, match="'const' has one category"):
        independence(est, ("c0", "const"))
    with _one_line(ValueError, match="'const' has one category"):
        goodness_of_fit(est, [1.0], column="const")
    with _one_line(ValueError, match="'const' has one category"):
        two_sample(est, fit(2), column="const")


def test_synthetic_rows_keep_each_columns_dtype_whatever_their_number():
    import pickle

    rng = np.random.default_rng(43)
    n = 3_000
    X = pd.DataFrame(
        {
            "colour": pd.Categorical(rng.choice(["red", "blue"], n), categories=["red", "blue"]),
            "size": pd.Categorical(rng.choice(["S", "L"], n), categories=["S", "L"], ordered=True),
            "city": rng.choice(["a", "b", "c"], n),
            "kids": rng.integers(0, 3, n),
            "member": rng.random(n) < 0.3,
        }
    )
    cats = {"colour": ["blue", "red"], "city": list("abc"), "kids": [0, 1, 2], "member": [0, 1]}
    cats["size"] = ["S", "L"]
    cats["member"] = [False, True]
    est = MarginalEstimator(2.0, categories=cats, random_state=0).fit(X)
    many, none = est.sample(50, random_state=1), est.sample(0)
    assert many.dtypes.to_dict() == none.dtypes.to_dict()
    assert list(many.colour.cat.categories) == ["blue", "red"]  # the declared domain
    assert not many.colour.cat.ordered and many["size"].cat.ordered
    assert many.kids.dtype == np.int64 and many.member.dtype == bool
    assert set(many.city) <= {"a", "b", "c"} and many.city.dtype == none.city.dtype
    again = pickle.loads(pickle.dumps(est))
    assert again.sample(50, random_state=1).equals(many)

"""FrequencyEstimator and MeanEstimator: accuracy against the exact variance, exact chunked and
merged aggregation, intervals and lower bounds."""

import copy
import math

import numpy as np
import pandas as pd
import pytest

from estimators import FrequencyEstimator, MeanEstimator, Privatizer
from ldp.datasets import make_categorical, make_mixed
from ldp.mechanisms import GRR, OUE

K = 32
N = 20_000
REPS = 150


@pytest.mark.parametrize(
    "mechanism",
    ["GRR", "OUE", "OLH", "HR", pytest.param("SS", marks=pytest.mark.slow)],  # SS: about 3 s
)
def test_l2_error_matches_exact_variance(mechanism):
    """Mean squared l2 error over seeded repetitions is within 10% of the exact variance.

    The estimand is the empirical frequency of the fixed data set, so the expected squared
    l2 error is exactly ``sum_v Var_fixed(f_v)`` (the oracle's closed form). Each repetition's
    error has standard deviation ``s``; the average over ``REPS`` has standard error
    ``s / sqrt(REPS)``. The test first checks that 10% of the target is at least 4 standard
    errors (so a correct implementation fails with probability below 1e-4 by the CLT), then
    that the average is within 10%.
    """
    values, _ = make_categorical(N, K, "zipf", rng=2024)
    empirical = np.bincount(values, minlength=K) / N
    X = values.reshape(-1, 1)
    errors = []
    for rep in range(REPS):
        est = FrequencyEstimator(
            epsilon=1.0, categories=[list(range(K))], mechanism=mechanism, random_state=rep
        ).fit(X)
        errors.append(np.sum((est.frequencies_[0] - empirical) ** 2))
    mech = est.mechanisms_[0]
    expected = float(np.sum(mech.variance(N, empirical, "fixed")))
    errors = np.asarray(errors)
    standard_error = errors.std(ddof=1) / np.sqrt(REPS)
    assert 4 * standard_error < 0.1 * expected
    assert abs(errors.mean() - expected) < 0.1 * expected
    # the estimator reports the same exact variance (plug-in at its estimate, close to truth)
    assert np.sum(est.variance("fixed")[0]) == pytest.approx(expected, rel=0.05)


def test_mean_error_matches_worst_case_bound():
    rng = np.random.default_rng(7)
    x = rng.choice([-1.0, 1.0], size=(N, 1))  # the worst case of Duchi: V = C^2 - 1
    errors = []
    for rep in range(REPS):
        est = MeanEstimator(1.0, bounds=(-1, 1), mechanism="Duchi", random_state=rep).fit(x)
        errors.append((est.mean_[0] - x.mean()) ** 2)
    mech = est.mechanisms_[0]
    expected = float(mech.variance(N, x[:, 0]))
    # chi^2_1 average, REPS=150: its relative sd is sqrt(2 / 150) = 0.115, so rel=0.25 is 2.2
    # sd and a correct estimator fails with probability 3% over seeds. random_state=rep
    # fixes the outcome (it passes), but a change in the noise stream re-draws it.
    assert np.mean(errors) == pytest.approx(expected, rel=0.25)
    assert est.variance("worst")[0] >= expected


def _reports(budget, seed=3, n=6000):
    frame, truth = make_mixed(n, rng=11)
    priv = Privatizer(
        2.0,
        bounds=truth["bounds"],
        mechanism={"region": "OLH", "device": "OUE"},
        budget=budget,
        random_state=seed,
    ).set_output(transform="pandas")
    return frame, priv, priv.fit_transform(frame)


def _same_counts(a, b):
    assert a.n_rows_ == b.n_rows_
    np.testing.assert_array_equal(a.n_reports_, b.n_reports_)
    for sa, sb in zip(a.statistics_, b.statistics_):
        if hasattr(sa, "counts"):
            np.testing.assert_array_equal(sa.counts, sb.counts)
        else:
            assert float(sa.total) == pytest.approx(float(sb.total), rel=1e-12, abs=1e-9)
        assert sa.n == sb.n


@pytest.mark.parametrize("budget", ["split", "sample"])
@pytest.mark.parametrize("cls", [FrequencyEstimator, MeanEstimator])
def test_chunks_and_merge_equal_one_fit(budget, cls):
    _, priv, reports = _reports(budget)
    params = dict(epsilon=2.0, mechanism={"region": "OLH", "device": "OUE"}, budget=budget)
    whole = cls(**params).fit_reports(reports, priv)
    chunked = cls(**params)
    for part in np.array_split(np.arange(len(reports)), 4):
        chunked.partial_fit_reports(reports.iloc[part], priv)
    left = cls(**params).fit_reports(reports.iloc[:2500], priv)
    right = cls(**params).fit_reports(reports.iloc[2500:], priv)
    merged = left.merge(right)
    for other in (chunked, merged):
        _same_counts(whole, other)
    if cls is FrequencyEstimator:
        for a, b in zip(whole.frequencies_, merged.frequencies_):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    else:
        np.testing.assert_allclose(whole.mean_, merged.mean_, rtol=1e-12)


@pytest.mark.parametrize("budget", ["split", "sample"])
def test_partial_fit_on_raw_chunks_continues_one_noise_stream(budget):
    frame, _ = make_mixed(3000, rng=5)
    cats = frame[["region", "device"]]
    generator = np.random.default_rng(99)
    reference = Privatizer(1.0, budget=budget, random_state=copy.deepcopy(generator)).fit(cats)
    est = FrequencyEstimator(1.0, budget=budget, random_state=generator)
    chunks = np.array_split(np.arange(len(cats)), 3)
    reports = [reference.transform(cats.iloc[c]) for c in chunks]
    for c in chunks:
        est.partial_fit(cats.iloc[c])
    one = FrequencyEstimator(1.0, budget=budget).fit_reports(np.vstack(reports), reference)
    _same_counts(est, one)


def test_fit_reports_from_declared_schema_matches_privatizer():
    values, _ = make_categorical(5000, 6, rng=1)
    categories = {"answer": list(range(6))}
    priv = Privatizer(1.0, categories=categories, random_state=4).fit(pd.DataFrame({"answer": [0]}))
    reports = priv.transform(pd.DataFrame({"answer": values}))
    a = FrequencyEstimator(1.0, categories=categories).fit_reports(reports)
    b = FrequencyEstimator(1.0, categories=categories).fit_reports(reports, priv)
    _same_counts(a, b)
    assert list(a.feature_names_in_) == ["answer"]


@pytest.mark.parametrize("consistency", ["project", "norm_sub", "ibu"])
def test_consistency_gives_a_distribution(consistency):
    values, truth = make_categorical(4000, 10, rng=3)
    est = FrequencyEstimator(
        0.5, categories=[list(range(10))], consistency=consistency, random_state=8
    )
    est.fit(values.reshape(-1, 1))
    freq = est.frequencies_[0]
    assert freq.min() >= 0 and freq.sum() == pytest.approx(1.0)
    assert est.unbiased_frequencies_[0].min() < 0  # the raw estimate at eps = 0.5 is not
    assert np.sum((freq - truth) ** 2) < np.sum((est.unbiased_frequencies_[0] - truth) ** 2)


def test_confidence_interval_coverage():
    values, _ = make_categorical(4000, 5, "geometric", rng=12)
    truth = np.bincount(values, minlength=5) / values.size
    covered = []
    for rep in range(200):
        est = FrequencyEstimator(1.0, categories=[list(range(5))], random_state=1000 + rep)
        ci = est.fit(values.reshape(-1, 1)).confidence_interval(0.1, convention="fixed")[0]
        covered.append((ci[:, 0] <= truth) & (truth <= ci[:, 1]))
    rate = np.mean(covered)
    assert 0.86 < rate < 0.94  # nominal 0.90; 1000 Bernoulli draws, sd ~ 0.01


def test_lower_bound_sits_below_achieved_error():
    values, _ = make_categorical(10_000, 8, rng=21)
    est = FrequencyEstimator(1.0, categories=[list(range(8))], mechanism=GRR.name, random_state=3)
    est.fit(values.reshape(-1, 1))
    bound = est.lower_bound()[0]
    achieved = float(np.sum(est.variance("iid")[0]))
    assert 0 < bound.value < achieved
    assert bound.quantity == "minimax risk lower bound"
    table = est.to_frame()
    assert list(table.columns) == [
        "column",
        "category",
        "frequency",
        "unbiased",
        "std",
        "ci_low",
        "ci_high",
    ]
    mean = MeanEstimator(1.0, bounds=(0, 10), random_state=1).fit(
        np.random.default_rng(2).uniform(0, 10, size=(5000, 2))
    )
    for lb, var in zip(mean.lower_bound(), mean.variance("worst")):
        assert 0 < lb.value < var
    ci = mean.confidence_interval(0.05, kind="empirical")
    assert np.all((ci[:, 0] <= mean.mean_) & (mean.mean_ <= ci[:, 1]))


def test_epsilon_total_is_recomputed_from_the_mechanisms():
    frame, truth = make_mixed(500, rng=0)
    split = Privatizer(2.0, bounds=truth["bounds"]).fit(frame)
    assert split.epsilon_total_ == pytest.approx(sum(m.epsilon for m in split.mechanisms_))
    assert split.epsilon_total_ == pytest.approx(2.0)
    sample = Privatizer(2.0, bounds=truth["bounds"], budget="sample").fit(frame)
    assert sample.epsilon_total_ == pytest.approx(max(m.epsilon for m in sample.mechanisms_))
    assert all(m.epsilon == pytest.approx(2.0) for m in sample.mechanisms_)
    reports = sample.transform(frame)
    assert np.all(np.sum(~np.isnan(reports), axis=1) >= 1)
    assert isinstance(OUE(4, 1.0).epsilon, float)


def test_mean_to_frame_has_the_mean_its_standard_error_and_interval():
    """Duchi's one-dimensional mechanism: a decoded report on [-1, 1] has variance
    ((e^eps + 1) / (e^eps - 1))^2 - x^2, largest at x = 0; in column units the slope is half
    the width, so the worst-case standard error is (high - low) / 2 (e + 1) / (e - 1) / sqrt n
    at eps = 1 (a budget of 2 split over the two columns)."""
    gen = np.random.default_rng(3)
    X = pd.DataFrame({"age": gen.uniform(20, 60, 4000), "score": gen.uniform(0, 1, 4000)})
    est = MeanEstimator(
        2.0, bounds={"age": (0, 100), "score": (-1, 1)}, mechanism="Duchi", random_state=4
    ).fit(X)
    table = est.to_frame(alpha=0.1)
    assert list(table["column"]) == ["age", "score"]
    assert list(table["low"]) == [0, -1] and list(table["high"]) == [100, 1]
    assert list(table["n_reports"]) == [4000, 4000]
    np.testing.assert_array_equal(table["mean"], est.mean_)
    e = math.e
    unit = (e + 1) / (e - 1) / math.sqrt(4000)
    np.testing.assert_allclose(table["std"], [50 * unit, 1 * unit], rtol=1e-12)
    z = 1.6448536269514722  # the 95% quantile of the standard normal
    for row in table.itertuples():
        assert row.ci_low == pytest.approx(max(row.mean - z * row.std, row.low), rel=1e-12)
        assert row.ci_high == pytest.approx(min(row.mean + z * row.std, row.high), rel=1e-12)
    empirical = est.to_frame(kind="empirical")
    np.testing.assert_allclose(empirical["std"], np.sqrt(est.variance("empirical")))
    assert np.all(empirical["std"] < table["std"])  # the worst case is at x = 0

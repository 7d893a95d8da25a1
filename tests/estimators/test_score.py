"""``score`` of the frequency and mean estimators: the documented held-out criterion,
computed independently here, its expectation against the closed-form variance, and model
selection with ``GridSearchCV``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import GridSearchCV, KFold

from estimators import FrequencyEstimator, MeanEstimator
from ldp.mechanisms import GRR, OUE


def _rows(counts: list[int]) -> np.ndarray:
    return np.repeat(np.arange(len(counts)), counts).reshape(-1, 1)


def test_frequency_score_is_minus_the_squared_distance_to_held_out_frequencies():
    rng = np.random.default_rng(0)
    train = pd.DataFrame({"a": rng.integers(0, 5, 3000), "b": rng.choice(["x", "y"], 3000)})
    test = pd.DataFrame({"a": rng.integers(0, 5, 700), "b": rng.choice(["x", "y"], 700)})
    est = FrequencyEstimator(
        1.0, categories={"a": [0, 1, 2, 3, 4], "b": ["x", "y"]}, random_state=1
    ).fit(train)
    expected = 0.0
    for name, freq, cats in zip(["a", "b"], est.frequencies_, est.categories_):
        empirical = np.array([(test[name] == c).mean() for c in cats])
        expected += np.sum((freq - empirical) ** 2)
    assert est.score(test) == pytest.approx(-expected, rel=1e-12)
    assert est.score(test) <= 0.0
    with pytest.raises(ValueError, match="outside its 5 known categories"):
        est.score(test.assign(a=9))
    with pytest.raises(ValueError, match="0 sample"):
        est.score(test.iloc[:0])


def test_frequency_score_expectation_is_the_closed_form_variance():
    # Scored on its own rows, E[-score] of the unbiased estimate is the summed fixed-data
    # variance of GRR (Wang et al. 2017), over 300 independent privatizations.
    X = _rows([500, 300, 150, 50])
    truth = np.array([0.5, 0.3, 0.15, 0.05])
    losses = [
        -FrequencyEstimator(1.0, categories=[[0, 1, 2, 3]], mechanism="GRR", random_state=s)
        .fit(X)
        .score(X)
        for s in range(300)
    ]
    exact = float(np.sum(GRR(4, 1.0).variance(X.shape[0], truth, "fixed")))
    sd = np.std(losses) / np.sqrt(len(losses))
    assert abs(np.mean(losses) - exact) < 4 * sd


def test_grid_search_picks_the_lower_variance_oracle_and_the_larger_epsilon():
    # k = 32, eps = 1: OUE's summed variance is a third of GRR's (closed forms below), so
    # held-out selection must prefer it; between two budgets it prefers the larger one.
    k, n = 32, 30_000
    X = np.random.default_rng(3).integers(0, k, n).reshape(-1, 1)
    grr = np.sum(GRR(k, 1.0).variance(n, np.full(k, 1 / k)))
    oue = np.sum(OUE(k, 1.0).variance(n, np.full(k, 1 / k)))
    assert oue < grr / 2.5
    base = FrequencyEstimator(1.0, categories=[list(range(k))], random_state=0)
    cv = KFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(base, {"mechanism": ["GRR", "OUE"]}, cv=cv).fit(X)
    assert search.best_params_ == {"mechanism": "OUE"}
    scores = search.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores)) and np.all(scores < 0)
    search = GridSearchCV(base, {"epsilon": [0.5, 2.0]}, cv=cv).fit(X)
    assert search.best_params_ == {"epsilon": 2.0}


def test_mean_score_is_minus_the_squared_error_per_width():
    rng = np.random.default_rng(4)
    train = rng.uniform(0, 10, size=(5000, 2)) * [1, 10]
    test = rng.uniform(0, 10, size=(800, 2)) * [1, 10]
    est = MeanEstimator(1.0, bounds=[(0, 10), (0, 100)], random_state=5).fit(train)
    expected = ((est.mean_ - test.mean(axis=0)) / np.array([10.0, 100.0])) ** 2
    assert est.score(test) == pytest.approx(-expected.sum(), rel=1e-10)
    with pytest.raises(ValueError, match="outside its bounds"):
        est.score(test * 20)


def test_mean_grid_search_prefers_the_lower_variance_mechanism():
    # At 0.5 per column Duchi's variance ((e^.5 + 1) / (e^.5 - 1))^2 = 16.7 is half of
    # Laplace's 8 / 0.5^2 = 32 (closed forms below). One column's squared error is too noisy
    # to rank them (a chi-square with one degree of freedom per fold), so 40 columns and 5
    # folds are scored: the expected gap is then about four standard deviations.
    d = 40
    X = np.random.default_rng(6).uniform(-1, 1, size=(20_000, d))
    base = MeanEstimator(0.5 * d, bounds=(-1, 1), random_state=0)
    duchi = base.set_params(mechanism="Duchi").fit(X).mechanisms_[0]
    laplace = base.set_params(mechanism="Laplace").fit(X).mechanisms_[0]
    assert duchi.variance(1) == pytest.approx(((np.e**0.5 + 1) / (np.e**0.5 - 1)) ** 2)
    assert laplace.variance(1) == pytest.approx(32.0)
    search = GridSearchCV(
        base, {"mechanism": ["Laplace", "Duchi"]}, cv=KFold(5, shuffle=True, random_state=1)
    ).fit(X)
    assert search.best_params_ == {"mechanism": "Duchi"}

"""A DataFrame whose columns are not the fitted ones (renamed, reordered, missing, extra) is
refused in one line naming the fitted columns and the ones received, by every estimator and
every method that reads rows after the fit."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from estimators import (
    FrequencyEstimator,
    LDPLogisticRegression,
    LDPNaiveBayes,
    MarginalEstimator,
    MeanEstimator,
    Privatizer,
    VectorMeanEstimator,
)

RNG = np.random.default_rng(3)
CATEGORICAL = pd.DataFrame(
    {"a": RNG.choice(["x", "y"], 400), "b": RNG.choice(["u", "v", "w"], 400)}
)
NUMERIC = pd.DataFrame({"a": RNG.uniform(-1, 1, 400), "b": RNG.uniform(-1, 1, 400)})
LABELS = RNG.integers(0, 2, 400)
CATEGORIES = {"a": ["x", "y"], "b": ["u", "v", "w"]}
BOUNDS = {"a": (-1.0, 1.0), "b": (-1.0, 1.0)}

# (estimator, its rows, whether it takes labels, the methods that read rows after fit)
CASES = [
    (MarginalEstimator(categories=CATEGORIES, random_state=0), CATEGORICAL, False, ["partial_fit"]),
    (
        FrequencyEstimator(categories=CATEGORIES, random_state=0),
        CATEGORICAL,
        False,
        ["partial_fit", "score"],
    ),
    (MeanEstimator(bounds=BOUNDS, random_state=0), NUMERIC, False, ["partial_fit", "score"]),
    (Privatizer(categories=CATEGORIES, random_state=0), CATEGORICAL, False, ["transform"]),
    (
        LDPNaiveBayes(categories=CATEGORIES, classes=[0, 1], random_state=0),
        CATEGORICAL,
        True,
        ["partial_fit", "predict"],
    ),
    (
        LDPLogisticRegression(bounds=BOUNDS, classes=[0, 1], random_state=0),
        NUMERIC,
        True,
        ["partial_fit", "predict"],
    ),
    (VectorMeanEstimator(radius=2.0, random_state=0), NUMERIC, False, ["partial_fit", "score"]),
]

IDS = [type(case[0]).__name__ for case in CASES]

BAD = {
    "renamed": (lambda X: X.rename(columns={"a": "c"}), "['c', 'b']"),
    "reordered": (lambda X: X[["b", "a"]], "['b', 'a']"),
    "missing": (lambda X: X[["a"]], "['a']"),
    "extra": (lambda X: X.assign(c=X["a"]), "['a', 'b', 'c']"),
}


@pytest.mark.parametrize("bad", sorted(BAD))
@pytest.mark.parametrize(("estimator", "X", "supervised", "methods"), CASES, ids=IDS)
def test_other_columns_are_refused_in_one_line_naming_both_lists(
    estimator, X, supervised, methods, bad
):
    args = (LABELS,) if supervised else ()
    fitted = clone(estimator).fit(X, *args)
    change, received = BAD[bad]
    for name in methods:
        method = getattr(fitted, name)
        extra = args if name in ("partial_fit", "score") and supervised else ()
        with pytest.raises(ValueError) as info:
            method(change(X), *extra)
        message = str(info.value)
        assert "\n" not in message, (type(estimator).__name__, name, message)
        assert "X must have the fitted columns ['a', 'b']" in message
        assert f"got {received}" in message


@pytest.mark.parametrize(("estimator", "X", "supervised", "methods"), CASES, ids=IDS)
def test_the_fitted_columns_are_accepted(estimator, X, supervised, methods):
    args = (LABELS,) if supervised else ()
    fitted = clone(estimator).fit(X, *args)
    for name in methods:
        extra = args if name in ("partial_fit", "score") and supervised else ()
        getattr(fitted, name)(X.copy(), *extra)


def test_the_message_says_what_differs():
    est = MarginalEstimator(categories=CATEGORIES, random_state=0).fit(CATEGORICAL)
    with pytest.raises(ValueError, match=r"\(the same columns in another order\)$"):
        est.partial_fit(CATEGORICAL[["b", "a"]])
    with pytest.raises(ValueError, match=r"\(missing \['a'\], unknown \['c'\]\)$"):
        est.partial_fit(CATEGORICAL.rename(columns={"a": "c"}))

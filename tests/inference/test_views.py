"""The views estimators hand to the tests: CellEstimate and MeanSample, and the estimators'
``cell_estimate`` and ``mean_sample``."""

import numpy as np
import pandas as pd
import pytest

from estimators import FrequencyEstimator, MeanEstimator
from ldp.inference import CellEstimate, MeanSample
from ldp.mechanisms import GRR


def _cells(**changes):
    grr = GRR(3, 1.0)
    fields = dict(
        value=np.array([0.5, 0.3, 0.2]),
        shape=(3,),
        n=100,
        covariance=lambda f: grr.covariance(100, f),
        labels=(("a", "b", "c"),),
        protocol="p",
    )
    fields.update(changes)
    return CellEstimate(**fields)


def test_cell_estimate_is_frozen_and_checked():
    cells = _cells()
    assert cells.size == 3 and cells.shape == (3,)
    with pytest.raises(AttributeError):
        cells.n = 3
    with pytest.raises(ValueError):
        cells.value[0] = 1.0
    table = _cells(value=np.full((2, 3), 1 / 6), shape=(2, 3), labels=((0, 1), "xyz"))
    assert table.value.shape == (6,) and table.labels == ((0, 1), ("x", "y", "z"))
    assert cells.fits == frozenset() and _cells(fits=["a", "b"]).fits == frozenset({"a", "b"})


@pytest.mark.parametrize(
    "changes, error, match",
    [
        ({"shape": (4,)}, ValueError, "cells"),
        ({"shape": (1, 1, 3)}, ValueError, "axes"),
        ({"labels": (("a", "b"),)}, ValueError, "labels"),
        ({"covariance": None}, TypeError, "callable"),
        ({"value": [0.5, np.nan, 0.2]}, ValueError, "finite"),
        ({"n": -1}, ValueError, "n"),
        ({"fits": "abc"}, TypeError, "fits"),
    ],
)
def test_cell_estimate_bad_input(changes, error, match):
    with pytest.raises(error, match=match):
        _cells(**changes)


def test_mean_sample_checks():
    sample = MeanSample(1, 2, 3, "p")
    assert (sample.value, sample.variance, sample.n) == (1.0, 2.0, 3)
    with pytest.raises(ValueError, match="variance"):
        MeanSample(0.0, -1.0, 10, "p")
    with pytest.raises(ValueError, match="scalars"):
        MeanSample(np.zeros(2), 1.0, 10, "p")


def test_frequency_estimator_cell_estimate():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {"colour": rng.choice(["red", "blue", "green"], 3000), "size": rng.choice(["S", "L"], 3000)}
    )
    kw = {
        "mechanism": "OUE",
        "categories": {"colour": ["red", "blue", "green"], "size": ["S", "L"]},
    }
    est = FrequencyEstimator(2.0, random_state=1, **kw).fit(X)
    cells = est.cell_estimate("colour")
    j = list(est.feature_names_in_).index("colour")
    np.testing.assert_array_equal(cells.value, est.unbiased_frequencies_[j])
    assert cells.n == est.n_reports_[j] and cells.shape == (3,)
    assert cells.labels == (tuple(str(c) for c in est.categories_[j]),)
    f = np.array([0.2, 0.3, 0.5])
    np.testing.assert_array_equal(cells.covariance(f), est.mechanisms_[j].covariance(cells.n, f))
    assert est.cell_estimate(j).protocol == cells.protocol
    assert est.cell_estimate("size").protocol != cells.protocol
    again = FrequencyEstimator(2.0, random_state=2, **kw).fit(X)
    assert again.cell_estimate("colour").protocol == cells.protocol  # same collection
    other = FrequencyEstimator(1.0, random_state=2, **kw).fit(X)
    assert other.cell_estimate("colour").protocol != cells.protocol
    with pytest.raises(ValueError, match="column must be given"):
        est.cell_estimate()
    with pytest.raises(ValueError, match="'shape' is not one of"):
        est.cell_estimate("shape")
    with pytest.raises(ValueError, match="out of range"):
        est.cell_estimate(5)
    with pytest.raises(TypeError, match="column"):
        est.cell_estimate(1.5)
    assert est.cell_estimate(np.int64(j)).protocol == cells.protocol
    from ldp.inference import independence

    with pytest.raises(TypeError, match="each column on its own") as info:
        independence(est, ("colour", "size"))  # no joint table: the columns were split
    assert "\n" not in str(info.value)


def test_mean_estimator_mean_sample():
    X = np.random.default_rng(3).uniform(10, 30, size=(4000, 2))
    est = MeanEstimator(2.0, bounds=(0, 40), mechanism="Duchi", random_state=4).fit(X)
    for j in (0, 1):
        sample = est.mean_sample(j)
        assert sample.value == est.mean_[j] and sample.n == 4000
        # the decoded reports, mapped to the column's units, have this sample variance
        assert sample.variance / sample.n == pytest.approx(est.variance("empirical")[j])
    assert est.mean_sample(0).protocol != est.mean_sample(1).protocol
    with pytest.raises(ValueError, match="column must be given"):
        est.mean_sample()

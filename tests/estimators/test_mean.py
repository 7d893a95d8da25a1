"""MeanEstimator's intervals: the mechanism's own, mapped to the column, and they cover."""

import numpy as np
import pytest

from estimators import MeanEstimator
from ldp.mechanisms import Laplace


def test_worst_case_interval_is_the_mechanisms_interval_in_column_units():
    values = np.random.default_rng(3).uniform(10, 30, size=(4000, 1))
    est = MeanEstimator(1.0, bounds=(0, 40), mechanism="Laplace", random_state=4).fit(values)
    mech, stat = est.mechanisms_[0], est.statistics_[0]
    assert isinstance(mech, Laplace)
    own = mech.interval(stat, 0.9)
    # Laplace's domain is [-1, 1]: the column is 20 + 20 x
    expected = np.clip(20.0 + 20.0 * np.array([own.lower, own.upper]), 0.0, 40.0)
    np.testing.assert_allclose(est.confidence_interval(0.1)[0], expected, rtol=1e-12)
    # the half-width is z * sqrt(worst-case variance / n), recomputed from Laplace's law
    b = 2.0 / 1.0  # scale of the noise on [-1, 1] at epsilon = 1
    half = 1.6448536269514722 * 20.0 * np.sqrt(2 * b**2 / stat.n)
    lo, hi = est.confidence_interval(0.1)[0]
    assert (hi - lo) / 2 == pytest.approx(half, rel=1e-9)


@pytest.mark.parametrize("kind", ["worst", "empirical"])
def test_intervals_cover_the_true_mean_in_simulation(kind):
    rng = np.random.default_rng(11)
    truth, covered, runs = 0.3 * 100, 0, 200
    for run in range(runs):
        values = rng.uniform(5, 55, size=(1000, 1))
        values = values - values.mean() + truth  # the users' mean is exactly the truth
        est = MeanEstimator(1.0, bounds=(0, 100), mechanism="Duchi", random_state=run)
        lo, hi = est.fit(values).confidence_interval(0.1, kind)[0]
        covered += lo <= truth <= hi
    # nominal 0.9: 200 runs give a standard error of about 0.02
    assert covered / runs >= 0.84


def test_bad_kind_is_refused():
    est = MeanEstimator(1.0, bounds=(0, 1), random_state=0).fit(np.full((10, 1), 0.5))
    with pytest.raises(ValueError, match="kind"):
        est.confidence_interval(kind="exact")

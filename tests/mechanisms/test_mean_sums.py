"""MeanSums keeps the sum of squares of the decoded reports: merging, the sample variance
against numpy, and statistics without it (older pickles, sums built from a total)."""

import pickle

import numpy as np
import pytest

from ldp.mechanisms import Duchi, DuchiL2, Laplace, MeanSums, Piecewise
from ldp.mechanisms.base import MeanSums as BaseMeanSums


@pytest.mark.parametrize("mech", [Laplace(1.0), Duchi(1.0), Piecewise(2.0), DuchiL2(1.0, d=3)])
def test_squares_and_sample_variance(mech):
    rng = np.random.default_rng(4)
    shape = (300,) if mech.d == 1 else (300, 3)
    x = rng.uniform(-0.3, 0.3, size=shape)
    if mech.d > 1:
        x /= np.maximum(1.0, np.linalg.norm(x, axis=1, keepdims=True))
    reports = mech.privatize(x, rng=5)
    decoded = mech.decode(reports)
    whole = mech.aggregate(reports)
    chunks = mech.aggregate(reports[:120]) + mech.aggregate(reports[120:])
    for stat in (whole, chunks, sum([mech.empty_statistic(), whole])):
        np.testing.assert_allclose(stat.squares, (decoded**2).sum(axis=0), rtol=1e-12)
        np.testing.assert_allclose(stat.sample_variance, decoded.var(axis=0, ddof=1), rtol=1e-9)


def test_unknown_squares_stay_unknown():
    lap = Laplace(1.0)
    known = lap.aggregate(lap.privatize(np.array([0.1, 0.2, 0.3]), rng=0))
    bare = MeanSums(np.array(0.5), 2, lap.key)
    assert bare.squares is None and bare.sample_variance is None
    merged = known + bare
    assert merged.squares is None and merged.n == 5
    assert float(merged.total) == pytest.approx(float(known.total) + 0.5)
    assert lap.estimate(merged) == pytest.approx(float(merged.total) / 5)


def test_a_statistic_pickled_without_squares_loads():
    """An instance whose state lacks ``squares`` (as pickled before it existed) reads as
    unknown, adds, and decodes; the old import path is the same class."""
    assert BaseMeanSums is MeanSums
    lap = Laplace(1.0)
    old = MeanSums(np.array(0.25), 2, lap.key)
    del old.__dict__["squares"]
    restored = pickle.loads(pickle.dumps(old))
    assert restored.squares is None
    assert (restored + lap.aggregate(lap.privatize(np.array([1.0]), rng=0))).n == 3
    assert lap.estimate(restored) == pytest.approx(0.125)


@pytest.mark.parametrize(
    "squares, match",
    [(np.array(-1.0), "non-negative"), (np.zeros(2), "shape"), (np.array(np.inf), "finite")],
)
def test_bad_squares(squares, match):
    with pytest.raises(ValueError, match=match):
        MeanSums(np.array(1.0), 2, "Laplace(epsilon=1.0)", squares)


def test_sample_variance_needs_two_reports():
    lap = Laplace(1.0)
    stat = lap.aggregate(lap.privatize(np.array([0.5]), rng=0))
    with pytest.raises(ValueError, match="at least 2 reports"):
        stat.sample_variance

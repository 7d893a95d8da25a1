"""Tests of ldp.risk.planning.problems: the named problems of ``preset``."""

from __future__ import annotations

import pytest

import ldp


def test_preset_dispatches_to_the_named_bound_and_estimator():
    """ldp.risk.preset is the calculators by name: same numbers, strict options."""
    lower, achieved = ldp.risk.preset("distribution", 500, 1.0, k=6, loss="l1", route="djw")
    direct = ldp.risk.distribution_estimation(6, 500, 1.0, loss="l1", method="djw")
    assert lower.value == direct.value
    assert achieved.value == ldp.risk.krr_distribution_risk(6, 500, 1.0, loss="l1").value
    lower, achieved = ldp.risk.preset("bernoulli-mean", 200, 0.5, 0.01, support=(-1, 1))
    assert lower.value == ldp.risk.bernoulli_mean(200, 0.5, 0.01, support=(-1, 1)).value
    assert achieved.value == ldp.risk.rr_mean_risk(200, 0.5, support=(-1, 1)).value
    lower, achieved = ldp.risk.preset("moment-mean", 100, 1.0, moment=4)
    assert achieved is None and lower.value == ldp.risk.moment_mean(100, 1.0, k=4).value
    assert set(ldp.risk.PRESETS) == {
        "bernoulli-mean", "moment-mean", "ball-mean", "distribution", "beta-bernoulli"
    }  # fmt: skip
    with pytest.raises(ValueError, match="preset must be one of"):
        ldp.risk.preset("median", 10, 1.0)
    with pytest.raises(TypeError, match="does not take"):
        ldp.risk.preset("distribution", 10, 1.0, k=3, moment=2)
    with pytest.raises(TypeError, match="needs d"):
        ldp.risk.preset("ball-mean", 10, 1.0)

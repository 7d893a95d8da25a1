"""The estimators' base classes declare their hooks: a subclass missing one cannot be built."""

import inspect

import numpy as np
import pytest

from estimators import LDPLogisticRegression, LDPNaiveBayes
from estimators._base import ProtocolEstimator
from estimators._supervised import BasePrivateLearner
from estimators.frequency import FrequencyEstimator
from estimators.mean import MeanEstimator

LEARNER_HOOKS = {"_setup", "_encode", "_row_width", "_aggregator", "_refresh"}
PROTOCOL_HOOKS = {"_domain_param", "_update"}


@pytest.mark.parametrize(
    ("base", "hooks"),
    [(BasePrivateLearner, LEARNER_HOOKS), (ProtocolEstimator, PROTOCOL_HOOKS)],
)
def test_the_bases_declare_their_hooks_abstract(base, hooks):
    assert inspect.isabstract(base)
    assert base.__abstractmethods__ == hooks
    with pytest.raises(TypeError, match="abstract"):
        base()


@pytest.mark.parametrize(
    "cls", [LDPNaiveBayes, LDPLogisticRegression, FrequencyEstimator, MeanEstimator]
)
def test_the_estimators_implement_every_hook(cls):
    assert not inspect.isabstract(cls)
    cls()


def test_a_learner_without_a_hook_cannot_be_built():
    namespace = {name: getattr(LDPNaiveBayes, name) for name in LEARNER_HOOKS - {"_refresh"}}
    partial = type("Partial", (BasePrivateLearner,), namespace)
    with pytest.raises(TypeError, match="_refresh"):
        partial()


@pytest.mark.parametrize(
    ("cls", "attribute"), [(LDPNaiveBayes, "joint_"), (LDPLogisticRegression, "statistics_")]
)
def test_the_statistic_is_the_documented_fitted_attribute(cls, attribute):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=200)
    X = np.column_stack([y, 1 - y]).astype(float)
    kwargs = {"categories": [[0, 1]] * 2} if cls is LDPNaiveBayes else {"bounds": (0, 1)}
    est = cls(4.0, classes=[0, 1], random_state=0, **kwargs).fit(
        X.astype(int) if cls is LDPNaiveBayes else X, y
    )
    assert est._aggregator is getattr(est, attribute)
    assert not cls(**kwargs)._has_statistic()

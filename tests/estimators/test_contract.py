"""The estimators' base classes declare their hooks: a subclass missing one cannot be built."""

import inspect

import numpy as np
import pytest

from estimators import (
    FrequencyEstimator,
    LDPLogisticRegression,
    LDPNaiveBayes,
    MeanEstimator,
    Privatizer,
    VectorMeanEstimator,
)
from estimators._base import ProtocolEstimator
from estimators._supervised import BasePrivateLearner

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


# ----------------------------------------------------------------- parameters
BAD = {
    "epsilon": (-1.0, ValueError, r"epsilon must be > 0\.0, got -1\.0"),
    "budget": ("both", ValueError, r"budget must be 'split' or 'sample', got 'both'"),
    "strict": (1, TypeError, r"strict must be True or False, got 1 \(int\)"),
    "alpha": (-0.5, ValueError, r"alpha must be >= 0\.0, got -0\.5"),
    "consistency": ("clip", ValueError, r"consistency must be one of .*, got 'clip'"),
    "mechanism": ("Laplace", ValueError, r"mechanism must be 'auto' or one of .*, got 'Laplace'"),
    "radius": (-2.0, ValueError, r"radius must be > 0\.0, got -2\.0"),
}


def _fit_args(cls):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=60)
    cat = np.column_stack([y, 1 - y])
    num = cat.astype(float)
    if cls is VectorMeanEstimator:
        return {"radius": 2.0}, (rng.normal(size=(60, 3)) / 3,)
    if cls in (Privatizer, FrequencyEstimator):
        return {"categories": [[0, 1]] * 2}, (cat,)
    if cls is MeanEstimator:
        return {"bounds": (0, 1)}, (num,)
    if cls is LDPNaiveBayes:
        return {"categories": [[0, 1]] * 2, "classes": [0, 1]}, (cat, y)
    return {"bounds": (0, 1), "classes": [0, 1]}, (num, y)


ESTIMATORS = [
    Privatizer,
    FrequencyEstimator,
    MeanEstimator,
    VectorMeanEstimator,
    LDPNaiveBayes,
    LDPLogisticRegression,
]
CASES = [(cls, name) for cls in ESTIMATORS for name in cls._parameter_checks]


def test_every_estimator_declares_its_checks_once():
    for cls in ESTIMATORS:
        params = set(inspect.signature(cls.__init__).parameters) - {"self"}
        assert set(cls._parameter_checks) <= params, cls.__name__
        assert {"epsilon"} <= set(cls._parameter_checks), cls.__name__
    assert FrequencyEstimator._parameter_checks.keys() > ProtocolEstimator._parameter_checks.keys()
    assert MeanEstimator._parameter_checks is ProtocolEstimator._parameter_checks
    assert LDPNaiveBayes._parameter_checks is BasePrivateLearner._parameter_checks


@pytest.mark.parametrize(("cls", "name"), CASES, ids=[f"{c.__name__}-{n}" for c, n in CASES])
def test_a_bad_parameter_is_refused_at_fit_naming_it_and_its_value(cls, name):
    kwargs, args = _fit_args(cls)
    value, error, message = BAD[name]
    est = cls(**{**kwargs, name: value})  # __init__ only stores it
    assert est.get_params()[name] == value
    with pytest.raises(error, match=message):
        est.fit(*args)
    cls(**kwargs).fit(*args)  # the valid parameters fit

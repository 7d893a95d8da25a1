"""Fitted estimators pickled by an earlier version still load, predict and estimate alike.

The pickles in ``tests/data/estimator_*.pkl`` and the numbers they gave when written
(``tests/data/estimator_pickles.json``) come from ``tests/data/make_estimator_pickles.py``,
run once with the code of main at 7d76862 (0.1.0 plus the unreleased changes of the
CHANGELOG, before the estimators' base classes became ABCs); they are never rewritten to
follow a change of the estimators' state: a renamed state attribute needs a
``__setstate__`` that reads the old one.
"""

import importlib.util
import json
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import InconsistentVersionWarning

from ldp import PrivacyLeakWarning

DATA = Path(__file__).resolve().parents[1] / "data"
KINDS = ["privatizer", "frequency", "mean", "vector_mean", "naive_bayes", "logistic"]


def _writer():
    spec = importlib.util.spec_from_file_location(
        "make_estimator_pickles", DATA / "make_estimator_pickles.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: Pickles written when this estimator kept its integer seed in the pickle: loading one drops
#: the seed with a PrivacyLeakWarning (whoever wrote it could predict the noise).
SEEDED = {"vector_mean"}


def _load(kind):
    with warnings.catch_warnings():
        # another scikit-learn version than the writer's: its own warning, not this test's
        warnings.simplefilter("ignore", InconsistentVersionWarning)
        # their mechanisms are named by the module paths they had (which forward, and warn)
        warnings.simplefilter("ignore", DeprecationWarning)
        blob = (DATA / f"estimator_{kind}.pkl").read_bytes()
        if kind not in SEEDED:
            return pickle.loads(blob)
        with pytest.warns(PrivacyLeakWarning, match="seed"):
            est = pickle.loads(blob)
        assert est.random_state is None
        return est


def _assert_same(got, expected, where):
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected), where
        for key in expected:
            _assert_same(got[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list) and expected and isinstance(expected[0], str):
        assert got == expected, where
    else:
        np.testing.assert_allclose(
            np.asarray(got, dtype=np.float64),
            np.asarray(expected, dtype=np.float64),
            rtol=1e-12,
            atol=0,
            err_msg=where,
        )


@pytest.mark.parametrize("kind", KINDS)
def test_old_pickles_load_and_give_the_same_numbers(kind):
    expected = json.loads((DATA / "estimator_pickles.json").read_text())[kind]
    est = _load(kind)
    _assert_same(_writer().outputs(kind, est), expected, kind)
    clone(est)  # the parameters are whole


@pytest.mark.parametrize("kind", ["frequency", "mean", "vector_mean", "naive_bayes", "logistic"])
def test_old_pickles_keep_updating(kind):
    """A restored estimator takes more rows (fresh noise) and merges with a new fit."""
    writer = _writer()
    old, new = _load(kind), writer.fitted()[kind]
    d = writer.data()
    X = {"frequency": d["cat"], "naive_bayes": d["cat"], "vector_mean": d["vec"]}.get(
        kind, d["num"]
    )
    args = (X[:100], d["y"][:100]) if kind in ("naive_bayes", "logistic") else (X[:100],)
    old.partial_fit(*args)
    old.merge(new)
    writer.outputs(kind, old)  # still answers

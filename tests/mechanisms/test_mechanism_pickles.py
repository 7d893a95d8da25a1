"""Mechanisms pickled by the 0.1.0 release load with today's code and decode alike.

``tests/data/mechanisms_0_1_0.pkl`` holds every mechanism 0.1.0 registered, pickled by that
release (``tests/data/make_mechanism_pickles.py``, run once on its code), and
``mechanisms_0_1_0.json`` the reports it made and the estimates it decoded from them. Their
classes are named by the module paths of 0.1.0 (``ldp.mechanisms.frequency``, ...), which
forward to today's homes with a ``DeprecationWarning``; attributes added since are filled
in from the mechanism's parameters.
"""

import json
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest

from ldp.core import Mechanism
from ldp.mechanisms.registry import REGISTRY

DATA = Path(__file__).resolve().parents[1] / "data"
BLOBS = pickle.loads((DATA / "mechanisms_0_1_0.pkl").read_bytes())
NUMBERS = json.loads((DATA / "mechanisms_0_1_0.json").read_text())


def _answers(mechanism):
    """Three answers from the mechanism's domain."""
    domain = mechanism.domain
    if hasattr(domain, "k"):
        return np.array([0, 1, domain.k - 1])
    d = getattr(domain, "dimension", getattr(domain, "d", 1))
    if not hasattr(domain, "low"):  # a ball
        return np.zeros((3, d))
    point = np.full(3, float(domain.low))
    return point if d == 1 else np.repeat(point[:, None], d, axis=1)


def _load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the 0.1.0 module paths
        return pickle.loads(BLOBS[name])


def test_every_mechanism_of_0_1_0_is_there():
    assert set(BLOBS) == set(NUMBERS)
    assert len(BLOBS) == 16
    assert set(BLOBS) <= set(REGISTRY)


@pytest.mark.parametrize("name", sorted(BLOBS))
def test_an_old_mechanism_loads_and_decodes_its_reports_alike(name):
    mechanism = _load(name)
    assert isinstance(mechanism, Mechanism)
    fresh = type(mechanism).from_params(mechanism.params)
    assert mechanism == fresh and type(mechanism) is type(fresh)
    expected = NUMBERS[name]
    reports = np.asarray(expected["reports"])
    if expected["estimate"] is not None:
        estimate = np.asarray(mechanism.estimate(reports), dtype=np.float64)
        np.testing.assert_allclose(estimate, expected["estimate"], rtol=1e-9, atol=1e-12)
    # the restored object is whole: it privatizes, states its privacy and pickles again
    again = pickle.loads(pickle.dumps(mechanism))
    assert again == mechanism
    out = mechanism.privatize(_answers(mechanism), rng=1)
    assert len(out) == 3
    assert mechanism.epsilon <= fresh.epsilon * (1 + 1e-12)

"""VectorMeanEstimator: the mean of vectors on a ball from PrivUnit (or DuchiL2) reports."""

from __future__ import annotations

import io
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

import ldp
from estimators import PrivacyLeakWarning, VectorMeanEstimator
from ldp.mechanisms import DuchiL2, Laplace, PrivUnit, PrivUnitG
from ldp.protocol import Protocol

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
import ldp_client


def _embeddings(n: int, d: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d)) / np.sqrt(d) + np.linspace(-1, 1, d) / np.sqrt(d)
    return x / np.linalg.norm(x, axis=1)[:, None]


def test_mean_is_unbiased_and_its_variance_exact():
    x = _embeddings(4000, 16)
    errors = []
    for seed in range(40):
        est = VectorMeanEstimator(2.0, radius=1.0, random_state=seed).fit(x)
        errors.append(float(((est.mean_ - x.mean(axis=0)) ** 2).sum()))
    mech = PrivUnit(2.0, 16)
    assert est.mechanism_ == mech and est.n_reports_ == 4000 and est.n_features_in_ == 16
    expected = float(mech.per_user_variance(x).mean()) / 4000
    assert est.variance() == pytest.approx(mech.worst_case_variance() / 4000)
    # mean of 40 squared errors (each a sum of 16 terms): within 15% of the exact value
    assert np.mean(errors) == pytest.approx(expected, rel=0.15)
    assert est.variance("empirical") == pytest.approx(expected, rel=0.1)


def test_error_radius_covers_at_least_its_level():
    x = _embeddings(500, 8, seed=3)
    misses = 0
    for seed in range(200):
        est = VectorMeanEstimator(1.0, radius=1.0, random_state=seed).fit(x)
        misses += float(np.linalg.norm(est.mean_ - x.mean(axis=0))) > est.error_radius(0.2)
    assert misses / 200 <= 0.2


def test_auto_is_privunit_and_beats_duchi_l2():
    x = _embeddings(3000, 64, seed=1)
    auto = VectorMeanEstimator(4.0, radius=1.0, random_state=0).fit(x)
    duchi = VectorMeanEstimator(4.0, radius=1.0, mechanism="DuchiL2", random_state=0).fit(x)
    assert auto.mechanism_.name == "privunit" and duchi.mechanism_.name == "DuchiL2"
    assert auto.variance() < duchi.variance() / 3
    one = VectorMeanEstimator(1.0, radius=2.0, random_state=0).fit(np.full((10, 1), 1.5))
    assert one.mechanism_ == DuchiL2(1.0, 1, radius=2.0)


def test_reports_from_the_client_give_the_same_estimate_as_the_library():
    protocol = Protocol.from_mechanism(PrivUnitG(2.0, 5, radius=3.0))
    x = _embeddings(60, 5, seed=2) * 2.5
    records = []
    for i, row in enumerate(x):
        stream = io.BytesIO(np.random.default_rng(i).bytes(1 << 14))
        pinned = {"pinned_fingerprints": [protocol.pin]}  # PrivUnitG runs only when pinned
        records.append(
            ldp_client.privatize(
                protocol.to_dict(), row.tolist(), policy=pinned, randbytes=stream.read
            )
        )
    est = VectorMeanEstimator(protocol=protocol).fit_reports(records)
    library = protocol.read_reports(records)
    assert est.n_reports_ == 60
    np.testing.assert_allclose(est.mean_, library.mean(axis=0) / 1.0)
    foreign = Protocol.from_mechanism(PrivUnitG(2.0, 5, radius=2.0))
    with pytest.raises(ValueError, match=r"fingerprint|protocol"):
        VectorMeanEstimator(protocol=foreign).fit_reports(records)


def test_chunks_and_merge_equal_one_fit():
    mech = PrivUnit(1.0, 6, radius=2.0)
    x = _embeddings(300, 6, seed=4) * 1.7
    reports = mech.privatize(x, rng=5)
    whole = VectorMeanEstimator(protocol=mech).fit_reports(reports)
    part = VectorMeanEstimator(protocol=mech).fit_reports(reports[:100])
    part.partial_fit_reports(reports[100:])
    other = VectorMeanEstimator(protocol=mech).fit_reports(reports[:200])
    other.merge(VectorMeanEstimator(protocol=mech).fit_reports(reports[200:]))
    for est in (part, other):
        np.testing.assert_allclose(est.mean_, whole.mean_, rtol=1e-12, atol=1e-15)
        assert est.n_reports_ == 300
        assert est.variance("empirical") == pytest.approx(whole.variance("empirical"))
    # without a protocol, the estimator's own parameters define it (the width from the array)
    own = VectorMeanEstimator(1.0, radius=2.0).fit_reports(reports)
    np.testing.assert_allclose(own.mean_, whole.mean_)
    with pytest.raises(ValueError, match="protocols differ"):
        whole.merge(VectorMeanEstimator(protocol=PrivUnit(1.0, 6)).fit_reports(reports[:1] / 2))


def test_a_published_protocol_reads_no_bare_array():
    mech = PrivUnit(2.0, 3)
    reports = mech.privatize(np.tile([1.0, 0.0, 0.0], (50, 1)), rng=0)
    with pytest.raises(ValueError, match="carries no fingerprint"):
        VectorMeanEstimator(protocol=Protocol.from_mechanism(mech)).fit_reports(reports)
    assert VectorMeanEstimator(protocol=mech).fit_reports(reports).n_reports_ == 50


def test_reports_no_honest_device_sends_are_flagged():
    """Reports kept only when they point the right way (a hostile selection of honest
    reports) decode to a mean outside the ball: a warning, or under strict a refusal that
    keeps the previous fit."""
    mech = PrivUnit(2.0, 3)
    reports = mech.privatize(np.tile([1.0, 0.0, 0.0], (6000, 1)), rng=0)
    chosen = reports[reports[:, 0] > 0][:2000]
    with pytest.warns(ldp.ImplausibleReportsWarning, match="bounds test"):
        VectorMeanEstimator(protocol=mech).fit_reports(chosen)
    est = VectorMeanEstimator(protocol=mech, strict=True).fit_reports(reports[:2000])
    before = est.mean_.copy()
    with pytest.raises(ValueError, match="bounds test"):
        est.fit_reports(chosen)
    with pytest.raises(ValueError, match="bounds test"):
        est.partial_fit_reports(chosen)
    np.testing.assert_array_equal(est.mean_, before)
    assert est.n_reports_ == 2000


def test_bad_input_raises():
    x = _embeddings(20, 4)
    with pytest.raises(ValueError, match="ball"):
        VectorMeanEstimator(1.0, radius=0.5).fit(x)
    with pytest.raises(ValueError, match="mechanism"):
        VectorMeanEstimator(1.0, radius=1.0, mechanism="Laplace").fit(x)
    with pytest.raises(ValueError, match="l2 ball"):
        VectorMeanEstimator(protocol=Laplace(1.0)).fit(x)
    with pytest.raises(ValueError, match="feature"):
        VectorMeanEstimator(protocol=PrivUnit(1.0, 5)).fit(x)
    with pytest.raises(ValueError, match="radius must be given"):
        VectorMeanEstimator(1.0).fit_reports(PrivUnit(1.0, 4).privatize(x, rng=0))
    with pytest.raises(ValueError, match=r"NaN|infinity"):
        VectorMeanEstimator(1.0, radius=1.0).fit(np.full((3, 4), np.nan))
    with pytest.raises(ValueError, match="alpha"):
        VectorMeanEstimator(1.0, radius=1.0, random_state=0).fit(x).error_radius(1.5)
    with pytest.warns(PrivacyLeakWarning, match="radius"):
        VectorMeanEstimator(1.0, random_state=0).fit(x)


def test_pickles_carry_no_seed_and_keep_the_estimate():
    x = _embeddings(50, 4)
    est = VectorMeanEstimator(1.0, radius=1.0, random_state=7).fit(x)
    blob = pickle.dumps(est)
    assert b"PCG64" not in blob
    again = pickle.loads(blob)
    assert "_rng" not in again.__dict__ and again.random_state is None  # the seed stays home
    np.testing.assert_array_equal(again.mean_, est.mean_)
    again.partial_fit(x)  # continues with fresh entropy
    assert again.n_reports_ == 100

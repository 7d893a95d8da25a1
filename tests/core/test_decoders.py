"""Every registered mechanism's decoder answers for itself: the :class:`ldp.core.Decoder`
protocol (aggregate, estimate, interval) and its frozen :class:`ldp.core.Estimate`.

The tests iterate :data:`ldp.mechanisms.REGISTRY`: each decoder is a ``Decoder``, its
interval is the estimate plus or minus ``z`` standard errors of the variance computed here
independently, and its intervals cover the truth at (at least) the stated rate in a seeded
simulation.
"""

import dataclasses
import math

import numpy as np
import pytest
from scipy.stats import binom, norm

from ldp.channel import Channel
from ldp.core import Decoder, Estimate, Items, check_confidence, normal_z
from ldp.mechanisms import (
    REGISTRY,
    CountMeanSketch,
    FrequencyMechanism,
    MeanMechanism,
)
from ldp.mechanisms.registry import example
from ldp.protocol import Protocol
from ldp.tasks import ChannelOracle
from tests.core.test_mechanism_protocol import valid_values

NAMES = sorted(REGISTRY)
ITEMS = ["apple", "pear", "fig"]


def decoder_of(mechanism):
    """What the server decodes with (``Protocol.decoder``, for mechanisms without a pure
    protocol file too)."""
    return ChannelOracle(mechanism) if isinstance(mechanism, Channel) else mechanism


def options(decoder) -> dict:
    """The queried items of a sketch (the only decoder that needs to be told what to query)."""
    return {"items": ITEMS} if isinstance(decoder.domain, Items) else {}


@pytest.mark.parametrize("name", NAMES)
def test_every_decoder_is_a_decoder(name):
    decoder = decoder_of(example(name))
    assert isinstance(decoder, Decoder)
    # the protocol file's decoder is the same one
    try:
        protocol = Protocol.from_mechanism(example(name))
    except ValueError:  # the Gaussian mechanism needs a delta in a protocol file
        protocol = Protocol.from_mechanism(example(name), delta=1e-6)
    assert isinstance(protocol.decoder, Decoder)
    assert type(protocol.decoder) is type(decoder)


@pytest.mark.parametrize("name", NAMES)
def test_interval_is_estimate_plus_minus_z_standard_errors(name):
    mechanism = example(name)
    decoder = decoder_of(mechanism)
    rng = np.random.default_rng(7)
    values = valid_values(mechanism, 500, rng)
    statistic = decoder.aggregate(mechanism.privatize(values, rng=rng))
    for confidence in (0.95, 0.8):
        est = decoder.interval(statistic, confidence=confidence, **options(decoder))
        assert isinstance(est, Estimate) and est.n == 500 and est.confidence == confidence
        assert isinstance(est.method, str) and est.method.startswith("normal")
        # computed here from the decoder's own formulas, family by family
        if isinstance(decoder, CountMeanSketch):
            value = np.asarray(decoder.estimate(statistic).frequency(ITEMS))
            variance = decoder.variance(500, np.clip(value, 0, 1))
            assert est.names == tuple(ITEMS)
        elif isinstance(decoder, FrequencyMechanism):
            value = decoder.estimate(statistic)
            variance = decoder.variance(500, np.clip(value, 0, 1), convention="fixed")
        else:
            assert isinstance(decoder, MeanMechanism)
            value = decoder.estimate(statistic)
            variance = decoder.worst_case_variance() / 500
        z = norm.ppf(0.5 + confidence / 2)
        half = z * np.sqrt(variance)
        np.testing.assert_allclose(est.value, value, rtol=1e-13, atol=0)
        np.testing.assert_allclose(est.lower, value - half, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(est.upper, value + half, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(est.half_width, half, rtol=1e-12)
        # the reports give the same answer as their statistic
        again = decoder.interval(statistic, confidence, **options(decoder))
        np.testing.assert_array_equal(again.upper, est.upper)


def coverage_data(mechanism, n: int, rng: np.random.Generator):
    """Fixed values and the truth the estimate targets (the empirical frequencies or mean)."""
    if isinstance(mechanism.domain, Items):  # one item: no collisions bias the sketch
        return np.array([ITEMS[0]] * n, dtype=object), np.array([1.0])
    values = valid_values(mechanism, n, rng)
    decoder = decoder_of(mechanism)
    if isinstance(decoder, FrequencyMechanism):
        if hasattr(decoder, "bucket"):  # dBitFlipPM estimates the frequencies of buckets
            cells = decoder.bucket(values)
            return values, np.bincount(cells, minlength=decoder.params["b"]) / n
        return values, np.bincount(values, minlength=decoder.k) / n
    return values, values.mean(axis=0)


REPETITIONS, USERS = 400, 1000
#: the mechanisms whose 400 000 reports take over a second (memos, bucket sampling)
SLOW = {"dbitflip-pm", "rappor", "l-oue", "l-osue", "l-grr"}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in NAMES]
)
def test_intervals_cover_at_the_stated_rate(name):
    mechanism = example(name)
    decoder = decoder_of(mechanism)
    rng = np.random.default_rng(2026)
    values, truth = coverage_data(mechanism, USERS, rng)
    query = {"items": ITEMS[:1]} if isinstance(decoder, CountMeanSketch) else {}
    # one privatization of every repetition's users (independent reports), then per block
    reports = mechanism.privatize(np.concatenate([values] * REPETITIONS), rng=rng)
    covered = []
    for block in np.array_split(reports, REPETITIONS):
        est = decoder.interval(decoder.aggregate(block), confidence=0.95, **query)
        covered.append((est.lower <= truth) & (truth <= est.upper))
    rate = float(np.mean(covered))
    # each repetition's entries are dependent: the tolerance is that of 400 single trials
    low = binom.ppf(1e-4, REPETITIONS, 0.95) / REPETITIONS
    assert rate >= low, f"{name}: coverage {rate:.3f} below {low:.3f}"
    if isinstance(decoder, (FrequencyMechanism, CountMeanSketch)):  # exact variance
        high = binom.isf(1e-4, REPETITIONS, 0.95) / REPETITIONS
        assert rate <= high, f"{name}: coverage {rate:.3f} above {high:.3f}"


def test_confidence_is_checked():
    mechanism = example("GRR")
    statistic = mechanism.aggregate(np.array([0, 1, 2]))
    for bad in (0.0, 1.0, 1.5, -0.1, math.nan):
        with pytest.raises(ValueError, match="confidence"):
            mechanism.interval(statistic, confidence=bad)
    for bad in ("0.9", None, True):
        with pytest.raises(TypeError, match="confidence"):
            check_confidence(bad)
    # sqrt(2) erfinv(0.95) computed with mpmath
    assert normal_z(0.95) == pytest.approx(1.959963984540054, rel=1e-15)


def test_sketch_interval_needs_items():
    cms = example("cms")
    statistic = cms.aggregate(cms.privatize(["a", "b"], rng=0))
    with pytest.raises(TypeError, match="items"):
        cms.interval(statistic)
    with pytest.raises(TypeError, match="items"):
        cms.interval(statistic, items="a")


def test_estimate_is_a_frozen_value():
    grr = example("GRR")
    est = grr.interval(grr.aggregate(grr.privatize(np.arange(5).repeat(50), rng=0)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        est.confidence = 0.5  # type: ignore[misc]
    with pytest.raises(ValueError, match="read-only"):
        est.value[0] = 1.0
    named = est.named(list("abcde"))
    frame = named.to_frame()
    assert list(frame.columns) == ["name", "estimate", "std", "ci_low", "ci_high"]
    assert frame.attrs["n"] == 250 and frame.attrs["confidence"] == 0.95
    np.testing.assert_array_equal(frame["ci_high"], est.upper)
    with pytest.raises(ValueError, match="names"):
        est.named(["a"])
    with pytest.raises(ValueError, match="standard_error"):
        Estimate(np.zeros(3), np.zeros(2), 0.9, 10, "normal")
    with pytest.raises(ValueError, match="confidence"):
        Estimate(0.0, 1.0, 1.0, 10, "normal")
    with pytest.raises(ValueError, match="n must"):
        Estimate(0.0, 1.0, 0.5, -1, "normal")
    scalar = Estimate(0.25, 0.1, 0.9, 10, "normal")
    assert scalar.lower == pytest.approx(0.25 - norm.ppf(0.95) * 0.1)
    assert len(scalar.to_frame()) == 1

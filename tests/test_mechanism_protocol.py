"""Every registered mechanism answers to the one protocol: identity, domain, codec, sampler.

The tests iterate :data:`ldp.mechanisms.REGISTRY` (with the registry's example instances), so
a new mechanism is tested here without editing this file.
"""

import io

import numpy as np
import pytest

import ldp
from ldp._mechanism import Ball, Categories, Interval, Mechanism, canonical_json
from ldp._random import ByteSource
from ldp.mechanisms import REGISTRY, mechanism_from_spec
from ldp.mechanisms.registry import example

NAMES = sorted(REGISTRY)


def valid_values(mechanism: Mechanism, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` random inputs from the mechanism's domain."""
    domain = mechanism.domain
    if isinstance(domain, Categories):
        return rng.integers(0, domain.k, size=n)
    if isinstance(domain, Interval):
        shape = (n,) if domain.d == 1 else (n, domain.d)
        return rng.uniform(domain.low, domain.high, size=shape)
    assert isinstance(domain, Ball)
    points = rng.normal(size=(n, domain.d))
    points /= np.linalg.norm(points, axis=1)[:, None]
    return points * domain.radius * rng.uniform(0, 1, size=(n, 1))


@pytest.fixture(params=NAMES)
def mechanism(request):
    return example(request.param)


def test_the_registry_is_complete():
    assert set(NAMES) == {
        "BLH", "Channel", "Duchi", "DuchiL2", "GRR", "HR", "Hybrid", "LH", "Laplace", "OLH",
        "OUE", "Piecewise", "SS", "SUE", "SquareWave", "UE",
    }  # fmt: skip
    for name, cls in REGISTRY.items():
        assert cls.name == name and issubclass(cls, Mechanism)


def test_identity_round_trips(mechanism):
    rebuilt = type(mechanism).from_params(mechanism.params)
    assert rebuilt == mechanism and hash(rebuilt) == hash(mechanism)
    assert mechanism_from_spec(mechanism.name, mechanism.params) == mechanism
    assert rebuilt.key == mechanism.key
    canonical_json(mechanism.params)  # JSON-able, finite


def test_sampler_constants_and_fields_are_json(mechanism):
    canonical_json(mechanism.sampler())
    fields = mechanism.codec.to_dict()["fields"]
    assert [f["name"] for f in fields] == mechanism.codec.names
    assert len(set(mechanism.codec.names)) == len(fields)


def test_codec_round_trips_and_refuses_what_cannot_be_output(mechanism):
    rng = np.random.default_rng(11)
    reports = mechanism.privatize(valid_values(mechanism, 40, rng), rng=rng)
    codec = mechanism.codec
    rows = codec.to_rows(reports)
    assert rows.shape == (40, codec.width)
    np.testing.assert_array_equal(codec.from_rows(rows), reports)
    np.testing.assert_array_equal(codec.from_rows(rows.astype(np.float64)), reports)
    field = codec.fields[0]
    bad = rows.astype(np.float64)
    bad[3, 0] = field.high + (1 if field.kind == "int" else abs(field.high) + 1)
    with pytest.raises(ValueError, match=r"reports row 3\b"):
        codec.from_rows(bad)
    bad = rows.astype(np.float64)
    bad[5, -1] = np.nan
    with pytest.raises(ValueError, match=r"reports row 5\b.*finite"):
        codec.from_rows(bad)
    with pytest.raises(ValueError, match="field"):
        codec.from_rows(np.zeros((2, codec.width + 1)))


def test_the_same_bytes_give_the_same_reports(mechanism):
    values = valid_values(mechanism, 5, np.random.default_rng(2))
    data = np.random.default_rng(3).bytes(1 << 16)
    first = mechanism.privatize(values, rng=ByteSource(io.BytesIO(data).read))
    second = mechanism.privatize(values, rng=ByteSource(io.BytesIO(data).read))
    np.testing.assert_array_equal(first, second)
    os_reports = mechanism.privatize(values, rng="os")
    assert os_reports.shape == first.shape


def test_epsilon_bounds_the_exact_channel_where_there_is_one(mechanism):
    try:
        channel = mechanism.to_channel()
    except (NotImplementedError, ValueError):
        pytest.skip(f"{mechanism.name} has no small finite channel")
    assert mechanism.epsilon >= channel.epsilon - 1e-12
    assert mechanism.epsilon == pytest.approx(channel.epsilon, rel=1e-12, abs=1e-13)


def test_epsilon_is_rounded_up_not_to_nearest():
    # k-RR: the stored matrix's exact ratio, in rationals, is never above the printed epsilon
    from fractions import Fraction

    import mpmath

    mpmath.mp.dps = 60
    for eps in (1e-6, 0.5, 1.0, 30.0, 700.0):
        channel = ldp.k_rr(4, eps)
        rows = [[Fraction(v) for v in row] for row in channel.matrix.tolist()]
        sums = [sum(row) for row in rows]
        worst = max(
            (rows[i][z] / sums[i]) / (rows[j][z] / sums[j])
            for i in range(4)
            for j in range(4)
            for z in range(4)
        )
        exact = mpmath.log(mpmath.mpf(worst.numerator) / worst.denominator)
        assert channel.epsilon >= exact
        assert channel.epsilon - exact < 1e-13 * max(1.0, eps)


def test_domains_check_values(mechanism):
    domain = mechanism.domain
    if isinstance(domain, Categories):
        with pytest.raises(ValueError):
            mechanism.privatize(np.array([domain.k]))
    elif isinstance(domain, Interval):
        shape = (1,) if domain.d == 1 else (1, domain.d)
        with pytest.raises(ValueError) as info:
            mechanism.privatize(np.full(shape, domain.high + 123.25))
        assert "123.25" not in str(info.value)  # the value is not echoed
    else:
        with pytest.raises(ValueError, match="ball"):
            mechanism.privatize(np.full((1, domain.d), domain.radius))

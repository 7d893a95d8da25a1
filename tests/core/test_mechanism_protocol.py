"""Every registered mechanism answers to the one protocol: identity, domain, codec, sampler.

The tests iterate :data:`ldp.mechanisms.REGISTRY` (with the registry's example instances), so
a new mechanism is tested here without editing this file.

Memoized (longitudinal) mechanisms (:class:`~ldp.mechanisms.MemoizedMechanism`) are stateful
across rounds: each client keeps a memo. They answer to this protocol as their first round
(``privatize`` is ``privatize_round`` of fresh clients, memos dropped; ``epsilon`` and the
privacy channel are those of one report), so every test below applies to them unchanged; the
test at the end checks that reading, and ``tests/mechanisms/test_longitudinal.py`` checks the
rounds.
"""

import io
import itertools
import math

import numpy as np
import pytest

import ldp
from ldp._random import ByteSource
from ldp.core import Ball, Categories, Interval, Items, Mechanism, canonical_json
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
    if isinstance(domain, Items):  # strings, bytes and integers of an open domain
        pool = np.array(["apple", "pear", "café", b"\x00raw", 12345, -7], dtype=object)
        return pool[rng.integers(0, pool.size, size=n)]
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
        "OUE", "Piecewise", "SS", "SUE", "SquareWave", "UE", "staircase", "gaussian",
        # longitudinal (memoized): privatize() is the first round of fresh clients
        "dbitflip-pm", "l-grr", "l-osue", "l-oue", "rappor",
        # sketches of an open domain of items
        "cms", "hcms",
        # unit vectors
        "privunit", "privunitg",
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


@pytest.mark.parametrize(
    "arr",
    [
        np.random.default_rng(0).integers(-(2**40), 2**40, (1000, 3)),
        np.random.default_rng(1).integers(0, 2**64, (999, 2), dtype=np.uint64),
        np.random.default_rng(2).normal(size=(1001, 5)),
        np.random.default_rng(3).integers(0, 9, (7, 12)).astype(np.uint8),
    ],
)
def test_the_codecs_column_extremes_in_blocks_are_the_column_min_and_max(arr):
    from ldp.core.codec import _column_extremes

    for step in (1, 10, 256, 1 << 14):
        low, high = _column_extremes(arr, step)
        assert np.array_equal(low, arr.min(axis=0))
        assert np.array_equal(high, arr.max(axis=0))
        assert low.dtype == arr.dtype


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
    elif isinstance(domain, Items):
        for bad in ([1.5], [None], [True], ["\ud800"], [["nested"]]):
            with pytest.raises((ValueError, TypeError)):
                mechanism.privatize(bad)
        with pytest.raises(TypeError):
            mechanism.privatize("one item, not a list")
    else:
        with pytest.raises(ValueError, match="ball"):
            mechanism.privatize(np.full((1, domain.d), domain.radius))


# ----------------------------------------------------------------------------- privacy profile
LEVELS = (0.0, 0.2, 0.5, 0.9)


def test_privacy_channel_is_a_small_stochastic_channel(mechanism):
    if math.isinf(mechanism.epsilon):  # no finite channel has its profile (Gaussian)
        with pytest.raises(NotImplementedError, match="no finite privacy channel"):
            mechanism.privacy_channel()
        return
    pair = mechanism.privacy_channel()
    assert isinstance(pair, ldp.Channel) and pair.n_inputs <= 16
    np.testing.assert_allclose(pair.matrix.sum(axis=1), 1.0, atol=1e-12)
    assert pair.epsilon <= mechanism.epsilon * (1 + 1e-12) + 1e-15
    for level in LEVELS:
        assert mechanism.delta(level) == pytest.approx(float(pair.delta(level)), abs=1e-15) or (
            not mechanism.privacy_exact and mechanism.delta(level) <= pair.delta(level)
        )


@pytest.mark.parametrize(
    "factory",
    [
        lambda: ldp.mechanisms.GRR(6, 1.3),
        lambda: ldp.mechanisms.SUE(5, 0.7),
        lambda: ldp.mechanisms.OUE(6, 2.0),
        lambda: ldp.mechanisms.UnaryEncoding(4, 1.0, p=0.7, q=0.2),
        lambda: ldp.mechanisms.LocalHashing(5, 1.0, 3),
        lambda: ldp.mechanisms.LocalHashing(3, 2.0, 6),
        lambda: ldp.mechanisms.HadamardResponse(6, 1.5),
        lambda: ldp.mechanisms.SubsetSelection(7, 1.0, d=3),
        lambda: ldp.mechanisms.Duchi(1.0, d=3),
        lambda: ldp.mechanisms.Duchi(2.0, d=1),
    ],
    ids=["GRR", "SUE", "OUE", "UE", "LH3", "LH6", "HR", "SS", "Duchi3", "Duchi1"],
)
def test_the_worst_pair_has_the_profile_of_the_whole_channel(factory):
    mechanism = factory()
    full, pair = mechanism.to_channel(), mechanism.privacy_channel()
    assert mechanism.privacy_exact
    assert pair.tv == pytest.approx(full.tv, abs=1e-12)
    for level in (0.0, 0.1, 0.4, 0.8, 1.2):
        assert float(pair.delta(level)) == pytest.approx(float(full.delta(level)), abs=1e-12)
    composed_pair = ldp.accounting.compose(mechanism, 6)
    composed_full = ldp.accounting.compose(full, 6)
    for level in (0.5, 2.0):
        assert composed_pair.delta(level) == pytest.approx(composed_full.delta(level), abs=1e-9)


def _piecewise_density(mechanism, x: float):
    """Breakpoints and the constant density of each piece (the paper's law)."""
    c = mechanism.C
    z = math.exp(mechanism.epsilon / 2)
    left = (c + 1) * x / 2 - (c - 1) / 2
    right = left + c - 1
    tail, window = 1 / ((z + 1) * (c + 1)), z / ((z + 1) * (c - 1))
    return np.array([-c, left, right, c]), np.array([tail, window, tail])


def _square_wave_density(mechanism, v: float):
    b = mechanism.b
    return np.array([-b, v - b, v + b, 1 + b]), np.array(
        [mechanism.q_density, mechanism.p_density, mechanism.q_density]
    )


def _hockey_stick(first, second, gamma: float) -> float:
    """``int (p - gamma q)_+`` of two piecewise-constant densities, exactly."""
    points = np.union1d(first[0], second[0])
    total = 0.0
    for a, b in itertools.pairwise(points):
        mid = (a + b) / 2
        p = first[1][np.searchsorted(first[0], mid) - 1] if first[0][0] < mid < first[0][-1] else 0
        q = (
            second[1][np.searchsorted(second[0], mid) - 1]
            if second[0][0] < mid < second[0][-1]
            else 0
        )
        total += max(0.0, p - gamma * q) * (b - a)
    return total


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_continuous_pairs_are_dominated_by_the_privacy_channel(epsilon):
    cases = [
        (ldp.mechanisms.Piecewise(epsilon), _piecewise_density, np.linspace(-1, 1, 9)),
        (ldp.mechanisms.SquareWave(epsilon), _square_wave_density, np.linspace(0, 1, 9)),
    ]
    for mechanism, density, grid in cases:
        pair = mechanism.privacy_channel()
        for level in (0.0, 0.3 * epsilon, 0.7 * epsilon):
            gamma = math.exp(level)
            worst = 0.0
            for x, y in itertools.permutations(grid, 2):
                worst = max(
                    worst, _hockey_stick(density(mechanism, x), density(mechanism, y), gamma)
                )
            assert worst == pytest.approx(float(pair.delta(level)), rel=1e-9, abs=1e-12)


def test_laplace_profile_closed_forms_against_integration():
    from scipy import integrate

    lap = ldp.mechanisms.Laplace(1.5)
    b = lap.scale

    def density(y, x):
        return math.exp(-abs(y - x) / b) / (2 * b)

    for level in (0.0, 0.4, 1.0):
        gamma = math.exp(level)
        value = sum(
            integrate.quad(lambda y, g=gamma: max(0.0, density(y, 1) - g * density(y, -1)), a, c)[0]
            for a, c in ((-60, -1), (-1, 1), (1, 60))
        )
        assert lap.delta(level) == pytest.approx(value, abs=1e-9)
        assert lap.delta(level) <= float(lap.privacy_channel().delta(level)) + 1e-15
    assert lap.tv == pytest.approx(lap.delta(0.0), abs=1e-12)
    assert lap.epsilon_for_delta(lap.delta(0.4)) == pytest.approx(0.4)
    composed = ldp.accounting.compose(lap, 3)
    assert not composed.exact and "upper bound" in composed.description


def test_compose_takes_every_registered_mechanism(mechanism):
    ten = ldp.accounting.compose(mechanism, 10)
    one = ldp.accounting.compose(mechanism, 1)
    assert ten.delta(1.0) >= one.delta(1.0) - 1e-12
    assert ten.epsilon(0.0) <= 10 * mechanism.epsilon * (1 + 1e-9) + 1e-9


def test_statistics_of_the_wrong_shape_or_not_finite_are_refused():
    grr = ldp.mechanisms.GRR(4, 1.0)
    with pytest.raises(ValueError, match="4 entries"):
        grr.estimate(ldp.mechanisms.SupportCounts(np.array([1, 2, 3]), 5, grr.key))
    for total in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match="finite"):
            ldp.mechanisms.MeanSums(total, 3, "Laplace(epsilon=1.0)")
    lap = ldp.mechanisms.Laplace(1.0)
    with pytest.raises(ValueError, match="shape"):
        lap.estimate(ldp.mechanisms.MeanSums(np.zeros(3), 3, lap.key))
    # a report the mechanism cannot output moves nothing: it is refused, naming the row
    honest = lap.privatize(np.zeros(999), rng=0)
    with pytest.raises(ValueError, match=r"reports row 999\b"):
        lap.aggregate(np.append(honest, 1e12))
    with pytest.raises(ValueError, match=r"reports row 0\b.*grid"):
        lap.aggregate(np.array([0.1]))


def test_plain_summary_against_closed_forms():
    for k, eps in ((2, 1.0), (4, 0.5), (10, 3.0)):
        plain = ldp.k_rr(k, eps).summary()
        e = math.exp(eps)
        assert plain.p_true_report == pytest.approx(e / (e + k - 1), rel=1e-12)
        # k-RR: the best guess of a uniform answer is the report itself
        assert plain.observer_accuracy == pytest.approx(e / (e + k - 1), rel=1e-12)
        assert plain.odds_factor >= e and plain.odds_factor == pytest.approx(e, rel=1e-14)
        assert plain.prior_accuracy == pytest.approx(1 / k)
    rng = np.random.default_rng(4)
    matrix = rng.dirichlet(np.ones(6), size=3)
    channel = ldp.Channel(matrix)
    brute = sum(max(matrix[x, z] for x in range(3)) for z in range(6)) / 3  # MAP, uniform prior
    assert channel.summary().observer_accuracy == pytest.approx(brute)
    assert channel.summary().p_true_report is None  # outputs are not answers
    big = ldp.mechanisms.OLH(10_000, 1.0).summary()
    assert not big.observer_accuracy_exact
    assert big.observer_accuracy == pytest.approx(math.e / (math.e + 9999))
    assert big.p_true_report == pytest.approx(ldp.mechanisms.OLH(10_000, 1.0).p)
    assert ldp.mechanisms.Laplace(1.0).summary().observer_accuracy is None
    erasure = ldp.binary_erasure(1.0, 0.1, 0.3).summary(delta=0.1)
    assert erasure.delta == 0.1 and any("0.1" in line for line in erasure.lines())


MEMOIZED = [n for n in NAMES if issubclass(REGISTRY[n], ldp.mechanisms.MemoizedMechanism)]


@pytest.mark.parametrize("name", MEMOIZED)
def test_memoized_mechanisms_answer_as_their_first_round(name):
    mechanism = example(name)
    values = valid_values(mechanism, 6, np.random.default_rng(8))
    data = np.random.default_rng(9).bytes(1 << 14)
    single = mechanism.privatize(values, rng=ByteSource(io.BytesIO(data).read))
    first, memos = mechanism.privatize_round(values, None, rng=ByteSource(io.BytesIO(data).read))
    np.testing.assert_array_equal(single, first)
    assert len(memos) == 6 and all(m.mechanism == mechanism.key for m in memos)
    # the one-report epsilon is the first of the repeated-report losses
    assert mechanism.epsilon_repeated(1) == pytest.approx(mechanism.epsilon, rel=1e-12)
    assert mechanism.epsilon_repeated(3) <= mechanism.epsilon_permanent

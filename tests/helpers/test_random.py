"""rng="os": the OS generator's draws are exact, every privatizer accepts it, misuse raises.

OS randomness cannot be seeded, so these statistical checks are the suite's only ones whose
outcome changes from run to run. Ten of them are tests at level P_FLOOR and about fifty are
5-standard-deviation checks: a correct implementation fails a run with probability about
1e-5 + 50 * 6e-7 < 5e-5 (at the former P_FLOOR = 1e-4 it was about 1e-3, a false alarm
every thousand CI runs). The checks that use a seeded generator are fixed.
"""

import io
import math

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp._random import ByteSource, OSGenerator
from ldp._validation import check_random_state
from ldp.mechanisms import (
    BLH,
    GRR,
    OLH,
    OUE,
    SUE,
    Duchi,
    DuchiL2,
    HadamardResponse,
    Hybrid,
    Laplace,
    Piecewise,
    SquareWave,
    SubsetSelection,
)
from ldp.mechanisms.draws import exponential_draws, snap_to_grid
from ldp.tasks import simulate_counts

P_FLOOR = 1e-6  # the statistical checks below fail by chance with at most this probability


def test_uniform_doubles_pass_a_ks_test_and_have_53_bits():
    gen = OSGenerator()
    u = gen.random(200_000)
    assert u.dtype == np.float64 and u.shape == (200_000,)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert stats.kstest(u, "uniform").pvalue > P_FLOOR
    assert np.all(u * 2.0**53 == np.floor(u * 2.0**53))  # multiples of 2^-53
    assert isinstance(gen.random(), float)
    assert gen.random((3, 4)).shape == (3, 4)
    assert gen.random(0).shape == (0,)


@pytest.mark.parametrize("span", [3, 7, 10, 1000, 2**31 - 1])
def test_integers_are_unbiased(span):
    gen = OSGenerator()
    draws = gen.integers(0, span, size=70_000)
    assert draws.dtype == np.int64 and draws.min() >= 0 and draws.max() < span
    cells = min(span, 7)
    # fold the range onto `cells` cells of exactly equal size, then chi-square
    usable = draws[draws < span - span % cells] if span % cells else draws
    counts = np.bincount(usable % cells, minlength=cells)
    assert stats.chisquare(counts).pvalue > P_FLOOR


def test_integers_ranges_dtypes_and_numpy_semantics():
    gen = OSGenerator()
    assert set(gen.integers(5, size=1000).tolist()) == set(range(5))  # [0, low)
    assert set(gen.integers(-3, 0, size=1000).tolist()) == {-3, -2, -1}
    assert set(gen.integers(1, 2, size=10, endpoint=True).tolist()) == {1, 2}
    assert gen.integers(0, 2, size=(2, 3), dtype=np.int8).dtype == np.int8
    big = gen.integers(0, 2**62, size=10_000)
    assert big.min() >= 0 and big.max() < 2**62 and big.max() > 2**61  # all 62 bits used
    full = gen.integers(-(2**63), 2**63 - 1, size=1000, endpoint=True)
    assert full.min() < -(2**61) and full.max() > 2**61
    assert isinstance(gen.integers(10), int)
    assert gen.integers(7, 8) == 7
    with pytest.raises(ValueError, match="high"):
        gen.integers(3, 3)
    with pytest.raises(ValueError, match="bounds"):
        gen.integers(0, 300, dtype=np.uint8)
    with pytest.raises(TypeError, match="low"):
        gen.integers(0.5, 3)


def test_normals_bytes_and_unsupported_methods():
    gen = OSGenerator()
    z = gen.standard_normal(100_000)
    assert stats.kstest(z, "norm").pvalue > P_FLOOR
    assert isinstance(gen.bytes(16), bytes) and len(gen.bytes(16)) == 16
    assert gen.bytes(16) != gen.bytes(16)
    for method in ("binomial", "multinomial", "choice", "laplace"):
        with pytest.raises(TypeError, match="client-side privatization"):
            getattr(gen, method)(1, 0.5)
    with pytest.raises(AttributeError):
        gen.not_a_method
    with pytest.raises(TypeError, match="dtype"):
        gen.random(3, dtype=np.float32)
    assert repr(gen) == "OSGenerator()"


@pytest.mark.parametrize(
    "bad", ["OS", "urandom", "", 1.5, True, np.random.RandomState(0), object(), [1, 2]]
)
def test_bad_rng_values_raise_type_error_naming_rng(bad):
    with pytest.raises(TypeError, match="rng"):
        check_random_state(bad)
    with pytest.raises(TypeError, match="rng"):
        GRR(3, 1.0).privatize([0, 1], rng=bad)


def test_check_random_state_returns_the_os_generator():
    assert isinstance(check_random_state("os"), OSGenerator)
    gen = OSGenerator()
    assert check_random_state(gen) is gen
    with pytest.raises(TypeError, match="client-side privatization"):
        simulate_counts(GRR(3, 1.0), [10, 10, 10], rng="os")


ORACLES = [
    GRR(5, 1.0),
    SUE(5, 1.0),
    OUE(5, 1.0),
    OLH(5, 1.0),
    BLH(5, 1.0),
    HadamardResponse(5, 1.0),
    SubsetSelection(5, 1.0),
]


@pytest.mark.parametrize("oracle", ORACLES, ids=repr)
def test_every_frequency_oracle_privatizes_with_os_randomness(oracle):
    values = np.repeat(np.arange(5), 4000)
    first = oracle.privatize(values, rng="os")
    assert not np.array_equal(first, oracle.privatize(values, rng="os"))
    # statistical sanity: the estimate of the uniform distribution within 5 sd
    sd = math.sqrt(oracle.variance(values.size))
    assert np.abs(oracle.estimate(first) - 0.2).max() < 5 * sd


def test_grr_and_channel_reports_follow_their_law_under_os_randomness():
    grr = GRR(4, 1.0)
    reports = grr.privatize(np.zeros(40_000, dtype=int), rng="os")
    expected = np.array([grr.p, grr.q, grr.q, grr.q]) * reports.size
    assert stats.chisquare(np.bincount(reports, minlength=4), expected).pvalue > P_FLOOR
    channel = ldp.binary_erasure(1.0, 0.05, 0.3)
    out = channel.privatize(np.ones(40_000, dtype=int), rng="os")
    observed = np.bincount(out, minlength=channel.n_outputs)
    possible = channel.matrix[1] > 0
    assert observed[~possible].sum() == 0
    expected = channel.matrix[1][possible] * out.size
    assert stats.chisquare(observed[possible], expected).pvalue > P_FLOOR


MEANS = [
    (Duchi(1.0), np.full(20_000, 0.3)),
    (Duchi(1.0, d=2), np.full((20_000, 2), 0.3)),
    (Duchi(1.0, d=3), np.full((20_000, 3), -0.3)),
    (DuchiL2(1.0, d=3), np.full((20_000, 3), 0.3)),
    (Laplace(1.0), np.full(20_000, 0.3)),
    (Piecewise(1.0), np.full(20_000, 0.3)),
    (Hybrid(1.0), np.full(20_000, 0.3)),
    (Hybrid(0.4), np.full(20_000, 0.3)),
    (SquareWave(1.0), np.full(20_000, 0.3)),
]


@pytest.mark.parametrize(("mechanism", "values"), MEANS, ids=[repr(m) for m, _ in MEANS])
def test_every_mean_mechanism_privatizes_with_os_randomness(mechanism, values):
    first = mechanism.privatize(values, rng="os")
    assert not np.array_equal(first, mechanism.privatize(values, rng="os"))
    sd = np.sqrt(np.asarray(mechanism.variance(values.shape[0], values[0])))
    assert np.all(np.abs(mechanism.estimate(first) - values[0]) < 5 * sd)


def test_laplace_reports_follow_the_laplace_law_on_a_fixed_grid():
    lap = Laplace(0.5)
    for rng in ("os", 1):
        y = lap.privatize(np.full(50_000, 0.25), rng=rng)
        assert stats.kstest(y, "laplace", args=(0.25, lap.scale)).pvalue > P_FLOOR
        # every report is a multiple of the resolution, whatever the input (Mironov 2012)
        assert np.array_equal(y / lap.resolution, np.round(y / lap.resolution))


@pytest.mark.parametrize("mechanism", [Piecewise(0.7), SquareWave(2.0), Hybrid(3.0)], ids=repr)
def test_continuous_reports_lie_on_the_grid_and_decode(mechanism):
    x = np.linspace(mechanism.low, mechanism.high, 7).repeat(500)
    y = mechanism.privatize(x, rng=2)
    grid = mechanism._pm.resolution if isinstance(mechanism, Hybrid) else mechanism.resolution
    continuous = np.abs(y) != getattr(getattr(mechanism, "_duchi", None), "bound", np.nan)
    assert np.array_equal(y[continuous] / grid, np.round(y[continuous] / grid))
    mechanism.decode(y)  # the rounded reports stay within the decoder's range


def test_snapping_is_unbiased_and_exponential_has_an_unbounded_tail():
    rng = np.random.default_rng(4)
    y = np.full(200_000, 0.3 + 2.0**-30)
    snapped = snap_to_grid(y, 2.0**-10, rng)
    assert set(np.unique(snapped).tolist()) <= {307 / 1024, 308 / 1024}
    assert snapped.mean() == pytest.approx(0.3 + 2.0**-30, abs=5 * 2.0**-10 / math.sqrt(2e5))
    e = exponential_draws(100_000, rng)
    assert stats.kstest(e, "expon").pvalue > P_FLOOR
    # eight zero bytes, then 0x01: J = 64 + 7 zero bits; then a zero uniform: E = 71 log 2
    stream = io.BytesIO(bytes(8) + b"\x01" + bytes(7))
    tail = exponential_draws(1, ByteSource(stream.read))
    assert tail[0] == pytest.approx(71 * math.log(2))  # beyond the 53 log 2 of -log(u)

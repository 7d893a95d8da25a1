"""The goodness-of-fit test of reports against the mechanism's image (``report_fit``).

Three kinds of evidence, each independent of the code under test:

* **domination** (why the p-value is valid): for small mechanisms the exact covariance of
  one decoded report is computed by brute force, from the enumerated channel
  (``to_channel``) and the mechanism's own decoding of each possible report, and the
  diagonal metric of the test must dominate it (``diag(w) - Sigma`` positive semi-definite,
  its rank at most the test's degrees of freedom) at interior and boundary populations;
* **level**: seeded simulations of honest reports (output histograms drawn from the exact
  channel, so thousands of replications cost little) for every registered frequency
  mechanism, at populations on the boundary of the simplex too: the test rejects at most
  ``alpha`` of them, up to binomial noise;
* **power**: reports of edited protocols (the identity channel under a k-RR protocol, GRR
  devices that send the true answer, unflipped OUE bits, the true hash bucket, a shifted
  Laplace report) are flagged with tiny p-values at a few thousand reports.
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

import ldp
from ldp.design import optimal_channel
from ldp.mechanisms import (
    BLH,
    GRR,
    LGRR,
    LOSUE,
    LOUE,
    OLH,
    OUE,
    RAPPOR,
    SUE,
    DBitFlipPM,
    Duchi,
    FrequencyMechanism,
    HadamardResponse,
    Laplace,
    LocalHashing,
    MeanMechanism,
    MeanSums,
    PrivUnit,
    SubsetSelection,
    SupportCounts,
    UnaryEncoding,
)
from ldp.mechanisms.registry import REGISTRY, example
from ldp.protocol import Protocol, read_reports
from ldp.tasks import ChannelOracle, check_reports, plausibility, report_fit


# ----------------------------------------------------------------------------- enumeration
def _output_reports(mech, m: int) -> np.ndarray:
    """The native report of each output of ``mech.to_channel()`` (in the channel's order,
    as each ``to_channel`` docstring states it)."""
    if isinstance(mech, (ChannelOracle, GRR, LGRR, HadamardResponse)):
        return np.arange(m)
    if isinstance(mech, (UnaryEncoding, LOSUE, LOUE, RAPPOR)):
        z = np.arange(m)[:, None]
        bits = (z >> (mech.k - 1 - np.arange(mech.k))[None, :]) & 1
        return np.packbits(bits.astype(bool), axis=1)
    if isinstance(mech, LocalHashing):
        z = np.arange(m)
        return np.column_stack([mech.hash_functions()[z // mech.g], z % mech.g])
    if isinstance(mech, SubsetSelection):
        subsets = list(itertools.combinations(range(mech.k), mech.d))
        if mech.encoding == "indices":
            return np.array(subsets)
        member = np.zeros((len(subsets), mech.k), dtype=bool)
        for row, subset in enumerate(subsets):
            member[row, list(subset)] = True
        return np.packbits(member, axis=1)
    if isinstance(mech, DBitFlipPM):
        return np.array(
            [
                [*subset, *bits]
                for subset in itertools.combinations(range(mech.b), mech.d)
                for bits in itertools.product((1, 0), repeat=mech.d)
            ]
        )
    raise TypeError(type(mech).__name__)


def _enumerate(mech):
    """``(K, S, Y)``: the one-report channel, the statistic of each output, and the decoded
    estimate of each output alone (its per-report contribution)."""
    channel = mech.channel if isinstance(mech, ChannelOracle) else mech.to_channel()
    matrix = channel.matrix
    reports = _output_reports(mech, matrix.shape[1])
    S = np.array([mech.aggregate(reports[z : z + 1]).counts for z in range(len(reports))])
    Y = np.array([mech.estimate(SupportCounts(s, 1, mech.key)) for s in S])
    # the output order is right: the decoded report is unbiased for every input (for the
    # bucket of every input, with dBitFlipPM)
    inputs = np.arange(matrix.shape[0])
    cells = mech.bucket(inputs) if isinstance(mech, DBitFlipPM) else inputs
    np.testing.assert_allclose(matrix @ Y, np.eye(Y.shape[1])[cells], atol=1e-9)
    return matrix, S, Y


def _populations(k: int, rng) -> list[np.ndarray]:
    """Inputs distributions: a vertex, an edge, a face with zeros, a sparse one, the centre."""
    sparse = rng.dirichlet(np.full(k, 0.3))
    face = rng.dirichlet(np.ones(k))
    face[rng.choice(k, size=max(1, k // 3), replace=False)] = 0.0
    return [
        np.eye(k)[0],
        np.r_[0.5, 0.5, np.zeros(k - 2)],
        face / face.sum(),
        sparse,
        np.full(k, 1.0 / k),
    ]


SMALL = [
    GRR(5, 1.0),
    GRR(3, 6.0),
    UnaryEncoding(6, 1.0, p=0.6, q=0.3),
    SUE(6, 1.0),
    OUE(8, 1.0),
    LocalHashing(12, 1.0, g=3),  # GF(3): lines of three values break three-wise independence
    OLH(20, 1.5),  # GF(5)
    LocalHashing(3, 1.0, g=9),  # GF(3^2): the three values are one line
    LocalHashing(4, 1.0, g=6),  # the ring family
    BLH(9, 1.0),
    HadamardResponse(6, 1.0),
    HadamardResponse(7, 2.0),
    SubsetSelection(8, 1.0),
    SubsetSelection(7, 0.5, d=3, encoding="bits"),
    SubsetSelection(6, 2.0, d=1),
    LGRR(5, 1.0, 2.0),
    LOSUE(6, 1.0, 2.0),
    LOUE(6, 1.0, 2.0),
    RAPPOR(6, f=0.5, p=0.5, q=0.75),
    DBitFlipPM(8, 1.0, b=4, d=2),
    DBitFlipPM(6, 1.0, b=3, d=1),
    DBitFlipPM(5, 1.0, b=5, d=5),
]


@pytest.mark.parametrize("mech", SMALL, ids=repr)
def test_the_metric_dominates_the_exact_covariance(mech):
    K, _, Y = _enumerate(mech)
    rng = np.random.default_rng(3)
    for pi in _populations(K.shape[0], rng):
        mu = pi @ K
        mean = mu @ Y  # the value (or bucket) frequencies
        exact = (Y * mu[:, None]).T @ Y - np.outer(mean, mean)
        variance, df = plausibility._variance_bound(mech, np.clip(mean, 0.0, 1.0), 1)
        gap = np.linalg.eigvalsh(np.diag(variance) - exact)
        assert gap.min() >= -1e-12 * variance.max(), (pi, gap.min())
        assert np.linalg.matrix_rank(exact, tol=1e-9) <= df


# ----------------------------------------------------------------------------- level
def _decodable(name: str):
    mech = example(name)
    if isinstance(mech, ldp.Channel):
        return ChannelOracle(mech)
    return mech


FREQUENCY = [n for n in sorted(REGISTRY) if isinstance(_decodable(n), FrequencyMechanism)]


def test_every_registered_mechanism_has_a_test_or_says_why_not():
    for name in sorted(REGISTRY):
        mech = _decodable(name)
        if isinstance(mech, FrequencyMechanism | MeanMechanism):
            statistic = mech.empty_statistic()
            assert report_fit(mech, statistic) is None  # no report: nothing to test
        else:  # the sketches decode an open domain of items
            assert name in ("cms", "hcms")
            assert report_fit(mech, object()) is None
    assert len(FREQUENCY) == 15


def _false_alarms(mech, populations, n: int, reps: int, alpha: float, seed: int):
    K, S, _ = _enumerate(mech)
    rng = np.random.default_rng(seed)
    out = []
    for pi in populations:
        users = np.floor(pi * n).astype(np.int64)
        users[np.argmax(pi)] += n - users.sum()
        histograms = sum(rng.multinomial(int(c), K[x], size=reps) for x, c in enumerate(users) if c)
        p = [report_fit(mech, SupportCounts(s, n, mech.key)).p_value for s in histograms @ S]
        out.append(int(np.sum(np.asarray(p) < alpha)))
    return out


def _level_populations(k: int) -> list[np.ndarray]:
    return [np.eye(k)[0], np.r_[0.5, 0.5, np.zeros(k - 2)], np.full(k, 1.0 / k)]


def _assert_level(rejected: list[int], reps: int, alpha: float) -> None:
    # at most alpha: above binomial noise only with probability 1e-6 per population
    ceiling = stats.binom.ppf(1 - 1e-6, reps, alpha)
    assert max(rejected) <= ceiling, (rejected, ceiling)


@pytest.mark.parametrize("name", FREQUENCY)
def test_honest_reports_are_flagged_at_most_alpha_of_the_time(name):
    mech = _decodable(name)
    reps, alpha = 150, 0.1
    k = mech.channel.n_inputs if isinstance(mech, ChannelOracle) else mech.k
    rejected = _false_alarms(mech, _level_populations(k), 800, reps, alpha, seed=len(name))
    _assert_level(rejected, reps, alpha)


LONG = list(
    {
        m.key: m
        for m in (
            *(_decodable(n) for n in FREQUENCY),
            *SMALL,
            ChannelOracle(optimal_channel(4, 1.0, utility="mi").channel),
        )
    }.values()
)


def _assert_level_at_every_population(mech, reps: int) -> None:
    alpha = 0.05
    K, _, _ = _enumerate(mech)
    populations = _populations(K.shape[0], np.random.default_rng(1))
    for n in (300, 3000):
        rejected = _false_alarms(mech, populations, n, reps, alpha, seed=n)
        _assert_level(rejected, reps, alpha)


@pytest.mark.parametrize("mech", LONG, ids=repr)
def test_honest_reports_are_flagged_at_most_alpha_at_every_population(mech):
    """Every mechanism above, the five populations of :func:`_populations` (boundaries of
    the simplex included), 300 and 3,000 reports: 200 replications each (a level above
    about 0.13 fails); the test below repeats it with 1,000 (above about 0.09 fails)."""
    _assert_level_at_every_population(mech, reps=200)


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("mech", LONG, ids=repr)
def test_honest_reports_are_flagged_at_most_alpha_of_the_time_long(mech):
    _assert_level_at_every_population(mech, reps=1000)


@pytest.mark.parametrize("n", [10, 26, 40])
def test_the_level_holds_exactly_for_few_reports(n):
    """GRR(3, 1): the exact probability, summed over every possible histogram of ``n``
    reports, that the p-value falls below alpha is at most alpha, at a vertex, an edge and
    the centre of the simplex (the chi-square reference is asymptotic; here it is checked
    where the counts are small)."""
    grr = GRR(3, 1.0)
    K = grr.to_channel().matrix
    histograms = np.array([(a, b, n - a - b) for a in range(n + 1) for b in range(n + 1 - a)])
    p = np.array([report_fit(grr, SupportCounts(h, n, grr.key)).p_value for h in histograms])
    for pi in ([1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [1 / 3] * 3):
        law = stats.multinomial.pmf(histograms, n, np.asarray(pi) @ K)
        assert law.sum() == pytest.approx(1.0)
        for alpha in (1e-4, 1e-2, 0.05, 0.2):
            assert law[p < alpha].sum() <= alpha, (pi, alpha)


@pytest.mark.parametrize(
    "mech, x",
    [
        (Laplace(1.0), np.ones(1)),
        (Laplace(1.0), np.zeros(1)),
        (Duchi(1.0, d=3), np.ones((1, 3))),
        (PrivUnit(2.0, d=3), np.array([[1.0, 0.0, 0.0]])),
    ],
    ids=repr,
)
def test_honest_means_are_flagged_at_most_alpha_of_the_time(mech, x):
    rng = np.random.default_rng(2)
    reps, n, alpha = 150, 200, 0.1
    values = np.repeat(x, n, axis=0).squeeze()  # every user on the boundary (or the centre)
    p = [
        report_fit(mech, mech.aggregate(mech.privatize(values, rng=rng))).p_value
        for _ in range(reps)
    ]
    _assert_level([int(np.sum(np.asarray(p) < alpha))], reps, alpha)


# ----------------------------------------------------------------------------- power
TRUTH = np.repeat([0, 1, 2], [300, 1800, 900])  # 3000 answers, 10% / 60% / 30%


def test_the_identity_channel_under_a_krr_protocol_is_flagged():
    protocol = Protocol.from_mechanism(ldp.k_rr(3, 1.0), labels=["a", "b", "c"])
    records = [{"fingerprint": protocol.fingerprint, "report": [int(v)]} for v in TRUTH]
    decoder = protocol.decoder
    statistic = decoder.aggregate(read_reports(protocol, records))
    estimate = decoder.estimate(statistic)
    assert estimate[0] < -0.2  # far outside the simplex
    fit = report_fit(decoder, statistic)
    assert fit.p_value < 1e-12 and fit.df == 2
    with pytest.warns(ldp.ImplausibleReportsWarning, match="goodness-of-fit test.*p = "):
        check_reports(decoder, statistic)


@pytest.mark.parametrize(
    "mech, reports",
    [
        (GRR(3, 1.0), TRUTH),  # keep = [1, 0]: the true answer
        (OUE(10, 1.0), np.packbits(np.eye(10, dtype=bool)[TRUTH], axis=1)),  # no flip
    ],
    ids=["GRR true answers", "OUE one-hot"],
)
def test_devices_that_skip_the_noise_are_flagged(mech, reports):
    assert report_fit(mech, mech.aggregate(reports)).p_value < 1e-12


def test_the_true_hash_bucket_and_a_higher_epsilon_are_flagged():
    olh = OLH(20, 1.0)
    words = olh.privatize(TRUTH, rng=0)[:, :-1]
    bucket = olh.hash_values(words, TRUTH)
    assert report_fit(olh, olh.aggregate(np.column_stack([words, bucket]))).p_value < 1e-12
    # Hadamard response made at eps = 30 and decoded as eps = 1
    stated, made = HadamardResponse(10, 1.0), HadamardResponse(10, 30.0)
    assert report_fit(stated, stated.aggregate(made.privatize(TRUTH, rng=1))).p_value < 1e-9


def test_a_mean_outside_the_bounds_is_flagged():
    lap = Laplace(1.0)
    shifted = lap.privatize(np.ones(3000), rng=0) + 4.0  # on the grid, far above high = 1
    fit = report_fit(lap, lap.aggregate(shifted))
    assert fit.p_value < 1e-12 and fit.df == 2
    honest = report_fit(lap, lap.aggregate(lap.privatize(np.ones(3000), rng=0)))
    assert honest.p_value > 1e-4


def test_a_channel_output_that_no_input_produces_is_proof():
    channel = ldp.Channel([[0.5, 0.5, 0.0], [0.2, 0.8, 0.0]])
    oracle = ChannelOracle(channel)
    counts = SupportCounts(np.array([40, 59, 1]), 100, oracle.key)
    fit = report_fit(oracle, counts)
    assert fit.p_value == 0.0 and math.isinf(fit.statistic)


# ----------------------------------------------------------------------------- the checks
def test_check_reports_warns_refuses_or_stays_quiet():
    grr = GRR(3, 1.0)
    bad = grr.aggregate(TRUTH)
    good = grr.aggregate(grr.privatize(TRUTH, rng=0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_reports(grr, good).p_value > 1e-4
    with pytest.raises(ValueError) as refused:
        check_reports(grr, bad, strict=True, what="the reports in day1.csv")
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("the reports in day1.csv are implausible for GRR(k=3")
    assert "goodness-of-fit test against the mechanism's image" in message
    assert "p = " in message and "alpha = 0.0001" in message
    # the level is the caller's
    assert check_reports(grr, bad, alpha=1e-300) is not None
    for alpha in (0.0, 1.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="alpha"):
            check_reports(grr, good, alpha=alpha)
    with pytest.raises(TypeError, match="strict"):
        check_reports(grr, good, strict="yes")


def test_report_fit_refuses_a_statistic_of_another_kind():
    grr = GRR(3, 1.0)
    with pytest.raises(ValueError, match="counts come from"):
        report_fit(grr, GRR(4, 1.0).aggregate([0, 1]))
    with pytest.raises(TypeError, match="SupportCounts"):
        report_fit(grr, MeanSums(np.zeros(()), 1, "x"))
    lap = Laplace(1.0)
    with pytest.raises(ValueError, match="sums come from"):
        report_fit(lap, Laplace(2.0).aggregate([0.5]))
    with pytest.raises(TypeError, match="MeanSums"):
        report_fit(lap, grr.aggregate([0]))


def test_the_result_describes_itself_in_one_line():
    fit = report_fit(GRR(3, 1.0), GRR(3, 1.0).aggregate(TRUTH))
    line = fit.describe()
    assert "\n" not in line and "2 df" in line and "3000 reports" in line
    assert line.endswith(f"p = {fit.p_value:.3g}")


@pytest.mark.parametrize("mech", [m for m in SMALL if isinstance(m, DBitFlipPM)], ids=repr)
def test_the_declared_diagonal_moments_are_the_exact_second_moments(mech):
    """The test asks the mechanism (diagonal_moments) instead of checking its class: its
    answer is the exact second moment of one report's contribution, with zero cross moments."""
    K, _, Y = _enumerate(mech)
    rng = np.random.default_rng(5)
    for pi in _populations(K.shape[0], rng):
        mu = pi @ K
        mean = mu @ Y
        second = (Y * mu[:, None]).T @ Y  # E[Y_i Y_j] by enumeration of the outputs
        mean = np.clip(mean, 0.0, 1.0)  # rounding of the enumeration
        moments, rank = mech.diagonal_moments(mean)
        np.testing.assert_allclose(np.diag(second), moments, atol=1e-12)
        np.testing.assert_allclose(second - np.diag(np.diag(second)), 0.0, atol=1e-12)
        assert rank == mech.b
    assert GRR(5, 1.0).diagonal_moments(np.full(5, 0.2)) is None  # the default: not declared

"""ldp.Channel: exact privacy against brute force, properties, sampling, bad input."""

import itertools
import math
import pickle

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy import optimize, stats

import ldp
from ldp import Channel
from tests.strategies import random_channel_matrix, stochastic_matrices


def brute_epsilon(matrix):
    """max log ratio over every (x, x', z), with 0/0 ignored and c/0 = inf."""
    best = 0.0
    for x, y in itertools.permutations(range(matrix.shape[0]), 2):
        for z in range(matrix.shape[1]):
            a, b = matrix[x, z], matrix[y, z]
            if a > 0 and b == 0:
                return math.inf
            if a > 0:
                best = max(best, math.log(a) - math.log(b))
    return best


def brute_delta(matrix, eps):
    """sup over ordered pairs and events A of K_x(A) - e^eps K_x'(A) (Definition 1, eq. 4)."""
    k, m = matrix.shape
    gamma = math.exp(eps)
    best = 0.0
    for x, y in itertools.permutations(range(k), 2):
        for r in range(1, m + 1):
            for a in itertools.combinations(range(m), r):
                idx = list(a)
                best = max(best, matrix[x, idx].sum() - gamma * matrix[y, idx].sum())
    return best


def brute_tv(matrix):
    k, m = matrix.shape
    best = 0.0
    for x, y in itertools.permutations(range(k), 2):
        for r in range(1, m + 1):
            for a in itertools.combinations(range(m), r):
                best = max(best, matrix[x, list(a)].sum() - matrix[y, list(a)].sum())
    return best


# ----------------------------------------------------------------- exact privacy
@given(stochastic_matrices(max_inputs=4, max_outputs=5))
def test_privacy_matches_brute_force(matrix):
    channel = Channel(matrix)
    assert channel.epsilon == pytest.approx(brute_epsilon(matrix), rel=1e-12, abs=1e-12)
    assert channel.tv == pytest.approx(brute_tv(matrix), abs=1e-12)
    for eps in (0.0, 0.3, 1.0, 2.5):
        assert channel.delta(eps) == pytest.approx(brute_delta(matrix, eps), abs=1e-12)


@given(stochastic_matrices(), st.lists(st.floats(0, 20), min_size=2, max_size=6))
def test_delta_is_non_increasing_and_starts_at_tv(matrix, levels):
    channel = Channel(matrix)
    levels = sorted(levels)
    values = channel.delta(np.array(levels))
    assert np.all(np.diff(values) <= 1e-15)
    assert channel.delta(0.0) == channel.tv
    assert np.all((values >= 0) & (values <= 1))


@given(stochastic_matrices(), stochastic_matrices(min_inputs=1), st.floats(0, 5))
def test_post_processing_never_increases_privacy_loss(matrix, post_raw, eps):
    channel = Channel(matrix)
    m = channel.n_outputs
    post = Channel(
        np.resize(post_raw, (m, post_raw.shape[1])) if post_raw.shape[0] != m else post_raw
    )
    processed = channel.then(post)
    assert processed.epsilon <= channel.epsilon * (1 + 1e-12) + 1e-12
    assert processed.tv <= channel.tv + 1e-12
    assert processed.delta(eps) <= channel.delta(eps) + 1e-12
    assert processed == channel @ post


@given(
    stochastic_matrices(max_inputs=3, max_outputs=3),
    stochastic_matrices(max_inputs=3, max_outputs=3),
)
def test_product_epsilons_add(first, second):
    a, b = Channel(first), Channel(second)
    both = a.product(b)
    assert both.shape == (a.n_inputs * b.n_inputs, a.n_outputs * b.n_outputs)
    assert both.epsilon == pytest.approx(a.epsilon + b.epsilon, rel=1e-12, abs=1e-12)
    # marginalising is post-processing (lower), coupling each factor (upper, Polyanskiy-Wu)
    assert max(a.tv, b.tv) - 1e-12 <= both.tv <= 1 - (1 - a.tv) * (1 - b.tv) + 1e-12


def test_delta_accepts_arrays_and_keeps_shape():
    rr = ldp.randomized_response(1.0)
    out = rr.delta(np.array([[0.0, 0.5], [1.0, 2.0]]))
    assert out.shape == (2, 2)
    assert isinstance(rr.delta(0.5), float)
    assert rr.delta([0.5])[0] == rr.delta(0.5)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_rr_profile_equals_hockey_stick_closed_form(eps):
    # RR rows (E, 1)/(1+E): E_gamma = (E - gamma)_+ / (1 + E) for gamma >= 1
    rr = ldp.randomized_response(eps)
    for eps_prime in np.linspace(0, eps, 7):
        expected = (math.exp(eps) - math.exp(eps_prime)) / (1 + math.exp(eps))
        assert rr.delta(eps_prime) == pytest.approx(expected, abs=1e-14)
    assert rr.delta(eps * 1.01) == 0.0


def test_infinite_epsilon_and_limit_profile():
    channel = Channel([[0.5, 0.3, 0.2], [0.0, 0.5, 0.5], [0.2, 0.0, 0.8]])
    assert channel.epsilon == math.inf
    # delta(inf) = max over ordered pairs of K_x(support of K_x' complement) = 0.5
    assert channel.delta(math.inf) == pytest.approx(0.5)
    assert channel.delta(1e6) == pytest.approx(0.5)
    assert channel.epsilon_for_delta(0.49) == math.inf
    assert Channel([[0.2, 0.8]]).epsilon == 0.0
    assert Channel([[0.2, 0.8]]).delta(0.0) == 0.0
    # an output that no input produces is ignored
    assert Channel([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]]).epsilon == pytest.approx(math.log(2))


# ----------------------------------------------------------------- inverse profile
def bisect_epsilon_for_delta(channel, target):
    """Second method: root of delta(eps) - target by Brent's method on a bracket."""
    if channel.delta(0.0) <= target:
        return 0.0
    high = 1.0
    while channel.delta(high) > target:
        high *= 2
    return optimize.brentq(lambda e: channel.delta(e) - target, 0.0, high, xtol=1e-13)


@given(stochastic_matrices(max_inputs=5, max_outputs=5, zeros=False), st.floats(1e-6, 0.9))
def test_epsilon_for_delta_is_the_smallest_level(matrix, target):
    channel = Channel(matrix)
    found = channel.epsilon_for_delta(target)
    assert channel.delta(found) <= target + 1e-15
    if found > 1e-9:
        assert channel.delta(found * (1 - 1e-7) - 1e-12) > target
    assert found == pytest.approx(bisect_epsilon_for_delta(channel, target), abs=1e-9)


def test_epsilon_for_delta_edges():
    krr = ldp.k_rr(5, 2.0)
    assert krr.epsilon_for_delta(0.0) == krr.epsilon
    assert krr.epsilon_for_delta(1.0) == 0.0
    assert krr.epsilon_for_delta(krr.tv) == 0.0
    values = krr.epsilon_for_delta(np.array([0.0, 0.1, 1.0]))
    assert values.shape == (3,)
    # k-RR profile (E - gamma)/(E + k - 1) inverted in closed form
    target = 0.1
    expected = math.log(math.exp(2.0) - target * (math.exp(2.0) + 4))
    assert krr.epsilon_for_delta(target) == pytest.approx(expected, rel=1e-12)


# ----------------------------------------------------------------- is_ldp
@given(stochastic_matrices(max_inputs=4, max_outputs=4), st.floats(0, 4), st.floats(0, 1))
def test_is_ldp_is_the_profile_comparison(matrix, eps, delta):
    channel = Channel(matrix)
    exact = channel.delta(eps)
    assume(abs(exact - delta) > 1e-6)
    assert channel.is_ldp(eps, delta) == (exact <= delta)


def test_is_ldp_at_the_boundary():
    for eps in (0.2, 1.0, 7.0):
        rr = ldp.randomized_response(eps)
        assert rr.is_ldp(eps)
        assert not rr.is_ldp(eps * 0.999)
        assert rr.is_ldp(eps * 0.999, rr.delta(eps * 0.999))
    assert ldp.binary_erasure(1.0, 0.05, 0.3).is_ldp(1.0, 0.05)
    assert not ldp.binary_erasure(1.0, 0.05, 0.3).is_ldp(1.0, 0.049)


# ----------------------------------------------------------------- extremes
def test_large_epsilon_is_finite_and_correct():
    krr = ldp.k_rr(4, 50.0)
    assert krr.epsilon == pytest.approx(50.0, rel=1e-13)
    expected = (math.exp(50) - math.exp(49)) / (math.exp(50) + 3)
    assert krr.delta(49.0) == pytest.approx(expected, rel=1e-12)
    assert krr.tv == pytest.approx((math.exp(50) - 1) / (math.exp(50) + 3), rel=1e-14)
    assert krr.delta(50.0 * (1 + 1e-9)) == 0.0


def test_tiny_probabilities_are_exact():
    t = 1e-300
    channel = Channel([[1 - t, t], [t, 1 - t]])
    assert channel.epsilon == pytest.approx(300 * math.log(10), rel=1e-14)
    # E_gamma between the rows: (1 - t - gamma t)_+ + (t - gamma (1 - t))_+ = 1 - t (1 + gamma)
    mpmath.mp.dps = 40
    for eps in (10.0, 600.0, 690.0):
        expected = 1 - mpmath.mpf(t) * (1 + mpmath.exp(eps))
        assert channel.delta(eps) == pytest.approx(float(expected), rel=1e-12)
    # inverse: 1 - t (1 + gamma) = 1/2  =>  eps = log(1/(2t) - 1)
    expected = float(mpmath.log(1 / (2 * mpmath.mpf(t)) - 1))
    assert channel.epsilon_for_delta(0.5) == pytest.approx(expected, rel=1e-13)
    assert np.isfinite(channel.delta(700.0)) and channel.delta(800.0) == 0.0


# ----------------------------------------------------------------- sampling
@pytest.mark.parametrize(
    "matrix",
    [
        [[0.7, 0.2, 0.1], [0.1, 0.1, 0.8], [1 / 3, 1 / 3, 1 / 3]],
        [[0.5, 0.0, 0.5, 0.0], [0.0, 0.25, 0.25, 0.5]],
    ],
)
def test_privatize_matches_rows_chi_square(matrix):
    channel = Channel(matrix)
    rng = np.random.default_rng(12345)
    x = rng.integers(0, channel.n_inputs, size=60_000)
    z = channel.privatize(x, rng=rng)
    assert z.shape == x.shape and z.dtype == np.int64
    for value in range(channel.n_inputs):
        observed = np.bincount(z[x == value], minlength=channel.n_outputs)
        row = channel.matrix[value]
        assert np.all(observed[row == 0] == 0)
        support = row > 0
        expected = row[support] * observed.sum()
        pvalue = stats.chisquare(observed[support], expected).pvalue if support.sum() > 1 else 1
        assert pvalue > 1e-4  # a correct sampler fails with probability 1e-4 per row (seeded)


def test_privatize_randomness_contract():
    channel = ldp.k_rr(6, 1.0)
    x = np.arange(6).repeat(50).reshape(30, 10)
    state = np.random.get_state()[1].copy()  # noqa: NPY002 (checking it is untouched)
    first = channel.privatize(x, rng=7)
    assert first.shape == (30, 10)
    assert np.array_equal(first, channel.privatize(x, rng=np.random.default_rng(7)))
    assert not np.array_equal(first, channel.privatize(x, rng=8))
    assert np.array_equal(np.random.get_state()[1], state)  # noqa: NPY002
    assert channel.privatize([], rng=0).shape == (0,)
    assert np.array_equal(
        channel.privatize(np.array([1.0, 2.0]), rng=0), channel.privatize(np.array([1, 2]), rng=0)
    )


@pytest.mark.parametrize(
    ("x", "error", "match"),
    [
        ([0, 1, 3], ValueError, r"\[0, 3\); 1 of 3 entries do not"),
        ([-1], ValueError, r"\[0, 3\); 1 of 1 entries do not"),
        ([0.5], TypeError, "integer"),
        ([np.nan], TypeError, "integer"),
        (["a"], TypeError, "integer"),
        ([True, False], TypeError, "integer"),
    ],
)
def test_privatize_bad_input(x, error, match):
    """The inputs are private: a message counts the bad entries and never quotes one."""
    with pytest.raises(error, match=match) as info:
        ldp.k_rr(3, 1.0).privatize(x)
    assert "got 3" not in str(info.value) and "-1" not in str(info.value)


def test_privatize_bad_rng():
    with pytest.raises(TypeError, match="rng"):
        ldp.k_rr(3, 1.0).privatize([0], rng="seed")
    with pytest.raises(TypeError, match="RandomState"):
        ldp.k_rr(3, 1.0).privatize([0], rng=np.random.RandomState(0))


# ----------------------------------------------------------------- value object
def test_channel_is_an_immutable_validated_copy():
    raw = np.array([[0.5, 0.5], [0.1, 0.9]])
    channel = Channel(raw)
    raw[0, 0] = 0.9
    assert channel.matrix[0, 0] == 0.5
    with pytest.raises(ValueError):
        channel.matrix[0, 0] = 0.1
    with pytest.raises(AttributeError):
        channel.foo = 1
    with pytest.raises(AttributeError):
        channel._matrix = raw
    assert pickle.loads(pickle.dumps(channel)) == channel
    assert hash(Channel(channel.matrix)) == hash(channel)
    assert Channel(channel) == channel
    assert "Channel" in repr(channel) and "inputs" in repr(ldp.k_rr(10, 1.0))
    # rows within the tolerance are renormalised exactly
    nearly = Channel([[0.5, 0.5 + 1e-12], [0.2, 0.8]])
    assert nearly.matrix.sum(axis=1) == pytest.approx([1.0, 1.0], abs=1e-15)


@pytest.mark.parametrize(
    ("matrix", "error", "match"),
    [
        ([0.5, 0.5], ValueError, "2-D"),
        (np.zeros((0, 3)), ValueError, "at least one row"),
        ([[0.5, 0.6], [0.5, 0.5]], ValueError, "row 0 sums"),
        ([[1.2, -0.2], [0.5, 0.5]], ValueError, r"matrix\[0, 1\]"),
        ([[np.nan, 1.0]], ValueError, "finite"),
        ([[np.inf, 0.0]], ValueError, "finite"),
        ([["a", "b"]], TypeError, "real numbers"),
        ([[True, False]], TypeError, "real numbers"),
        ([[1.0, 0.0], [1.0]], TypeError, "real numbers"),
    ],
)
def test_malformed_matrices(matrix, error, match):
    with pytest.raises(error, match=match):
        Channel(matrix)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda c: c.delta(-0.1), ValueError, "epsilon must be >= 0"),
        (lambda c: c.delta(np.nan), ValueError, "NaN"),
        (lambda c: c.delta([0.1, -1.0]), ValueError, "epsilon must be >= 0"),
        (lambda c: c.delta("1"), TypeError, "epsilon"),
        (lambda c: c.epsilon_for_delta(1.5), ValueError, "delta must be <= 1"),
        (lambda c: c.epsilon_for_delta(-0.5), ValueError, "delta"),
        (lambda c: c.is_ldp(-1.0), ValueError, "epsilon"),
        (lambda c: c.is_ldp(1.0, 2.0), ValueError, "delta"),
        (lambda c: c.is_ldp(np.nan), ValueError, "epsilon"),
        (lambda c: c.output_distribution([0.5, 0.5, 0.0]), ValueError, "2 entries"),
        (lambda c: c.output_distribution([0.7, 0.7]), ValueError, "sum to 1"),
        (lambda c: c.then(np.eye(3)), ValueError, "2 inputs"),
        (lambda c: c.product(np.eye(2)), TypeError, "Channel"),
        (lambda c: c @ np.eye(2), TypeError, "support"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call(ldp.randomized_response(1.0))


def test_output_distribution_broadcasts():
    channel = Channel(random_channel_matrix(np.random.default_rng(3), 4, 3))
    priors = np.random.default_rng(4).dirichlet(np.ones(4), size=5)
    out = channel.output_distribution(priors)
    assert out.shape == (5, 3)
    assert out[2] == pytest.approx(sum(priors[2, x] * channel.matrix[x] for x in range(4)))


# ----------------------------------------------------------------------------- structure
def _structured_channel(seed, k=90, m=70, spread=3):
    """Rows that differ from a common background in a few columns (overlapping ones too),
    with repeated rows and repeated columns: the shapes the structured maximum reduces."""
    gen = np.random.default_rng(seed)
    background = gen.random(m)
    background[: m // 7] = background[m // 7 : 2 * (m // 7)]  # repeated columns (when equal)
    background /= background.sum()
    rows = []
    for _ in range(k):
        row = background.copy()
        cols = gen.choice(m, size=gen.integers(1, spread + 1), replace=False)
        weights = gen.random(cols.size) * (gen.random() < 0.9)  # some rows put 0 mass there
        if weights.sum() == 0:
            weights[0] = 1.0
        row[cols] = background[cols].sum() * weights / weights.sum()
        rows.append(row)
    rows += rows[:5]  # repeated rows
    return np.array(rows)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("gamma", [0.0, 0.4, 1.0, 1.7, 20.0, math.inf])
def test_structured_pairwise_maxima_equal_the_pairwise_ones(seed, gamma):
    """Distinct rows, merged columns and the background terms give the exact maxima of the
    pairwise computation, and the pair returned attains them."""
    from ldp import _pairwise
    from ldp.divergences import hockey_stick

    matrix = _structured_channel(seed)
    assert _pairwise._Reduced(matrix).structure is not None  # the structured path is taken
    value, i, j = _pairwise.max_pairwise_hockey_stick(matrix, gamma)
    dense, _, _ = _pairwise._dense_hockey_stick(matrix, gamma)
    assert value == pytest.approx(dense, rel=1e-12, abs=1e-15)
    if i != j and gamma >= 1:
        assert float(hockey_stick(matrix[i], matrix[j], gamma)) == pytest.approx(value, abs=1e-14)
    tv, a, b = _pairwise.max_pairwise_tv(matrix)
    assert tv == pytest.approx(_pairwise._dense_tv(matrix)[0], rel=1e-12, abs=1e-15)
    assert 0.5 * np.abs(matrix[a] - matrix[b]).sum() == pytest.approx(tv, rel=1e-12)


def test_k_rr_privacy_uses_its_structure():
    """k_rr(4096).tv took 19 minutes pairwise (k^3 work); the rows of k-RR differ from the
    background q of every column in one entry each, so tv and delta(eps) are O(k log k)
    after one pass. Checked against the closed forms (e^eps - e^eps') / (e^eps + k - 1)."""
    import time

    k, eps = 2048, 1.0
    channel = ldp.k_rr(k, eps)
    start = time.perf_counter()
    tv, delta = channel.tv, channel.delta(0.5)
    elapsed = time.perf_counter() - start
    e = math.exp(eps)
    assert tv == pytest.approx((e - 1) / (e + k - 1), rel=1e-12)
    assert delta == pytest.approx((e - math.exp(0.5)) / (e + k - 1), rel=1e-12)
    assert elapsed < 6.0  # was about 25 s here, pairwise


def test_channels_too_large_for_the_pairwise_maximum_are_refused_up_front():
    from ldp._pairwise import MAX_PAIRWISE_WORK

    gen = np.random.default_rng(0)
    matrix = gen.random((16385, 256))
    channel = ldp.Channel(matrix / matrix.sum(axis=1, keepdims=True))
    assert MAX_PAIRWISE_WORK < 16385**2 * 256
    with pytest.raises(ValueError, match=r"matrix: .*MAX_PAIRWISE_WORK = 2\^36"):
        channel.tv

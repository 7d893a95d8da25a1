"""Fuzzing the public API: every call returns finite, in-range values or raises a clear error.

Each test draws arguments that mix valid values with NaN, inf, negative, huge, empty, wrongly
typed and wrongly shaped ones, calls a public function, and requires either a result that
passes the function's range check (no NaN anywhere; inf only where the function documents
it) or a ``ValueError``/``TypeError`` whose message names one of the function's arguments as
a word (``k`` in "k must be >= 2", not the k of "k-RR" or of "keep") and shows numbers
plainly (``2.0``, never ``np.float64(2.0)``). Any other exception, and any warning (warnings
are errors in this test suite), fails. Epsilons range over the library's whole range,
``[MIN_EPSILON, MAX_EPSILON] = [1e-6, 700]``, and beyond it.

Further families: hostile reports fed to every registered mechanism's decoder; pickles of
every estimator and protocol; distinctive secret values that no message may quote; seeds
that a server might plant in a privatizer or a protocol; and concurrent updates of one
estimator.

The example budget per test is ``FUZZ_FACTOR`` times the hypothesis profile's (``ci``: fixed
and fast; ``dev``: ``HYPOTHESIS_PROFILE=dev`` for longer local runs).
"""

import contextlib
import functools
import math
import numbers
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ldp
from ldp import contraction, divergences, risk
from ldp.channel import Channel
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

FUZZ_FACTOR = 6
FUZZ = settings(
    max_examples=settings.default.max_examples * FUZZ_FACTOR,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# ----------------------------------------------------------------------------- strategies
NASTY_FLOATS = [
    math.nan,
    math.inf,
    -math.inf,
    -1.0,
    -1e-300,
    0.0,
    5e-324,
    1e-300,
    1e300,
    1.7976931348623157e308,
    -1e300,
]
NASTY_OTHERS = [
    None,
    True,
    "1.0",
    "",
    1 + 2j,
    [],
    [0.5],
    (1, 2),
    np.array([0.3, 0.4]),
    np.array([]),
    object(),
    2**70,
    -(2**70),
    np.float32(0.5),
    np.int64(3),
]


def scalars(low=0.0, high=10.0):
    """Mostly valid numbers in ``[low, high]``, else anything nasty."""
    return st.one_of(
        st.floats(low, high),
        st.floats(low, high),
        st.integers(math.ceil(low), math.floor(high)),
        st.sampled_from(NASTY_FLOATS),
        st.sampled_from(NASTY_OTHERS),
        st.floats(allow_nan=True, allow_infinity=True),
    )


def ints(low=1, high=12):
    """Mostly valid integers, else anything nasty (floats, huge, negative, wrong type)."""
    return st.one_of(
        st.integers(low, high),
        st.integers(low, high),
        st.integers(-(2**65), 2**65),
        st.sampled_from([0, -1, 1.0, 2.5, math.nan, math.inf, np.int32(3), np.uint8(2)]),
        st.sampled_from(NASTY_OTHERS),
    )


def probabilities(high=1.0):
    return scalars(0.0, high)


def epsilons(high=700.0):
    """Epsilons over the library's whole range ``[1e-6, 700]`` (its ends, tiny and huge ones
    included), else anything nasty."""
    edges = [1e-6, 1.5e-6, 1e-5, 1e-3, 0.5, 60.0, 300.0, 699.0, 700.0, 9.9e-7, 700.5]
    return st.one_of(
        scalars(0.0, high),
        st.floats(1e-6, 1e-2),
        st.sampled_from([e for e in edges if e <= high] + [9.9e-7, high * (1 + 1e-9)]),
    )


@st.composite
def pmf_like(draw, max_size=6):
    """Valid pmfs, near-pmfs and garbage arrays of many dtypes and shapes."""
    kind = draw(st.integers(0, 9))
    size = draw(st.integers(1, max_size))
    if kind <= 3:  # a valid pmf (with zeros sometimes)
        w = draw(hnp.arrays(np.float64, size, elements=st.floats(0, 1)))
        if w.sum() == 0:
            w[0] = 1.0
        return w / w.sum()
    if kind == 4:  # garbage floats
        return draw(hnp.arrays(np.float64, size, elements=st.floats(allow_nan=True)))
    if kind == 5:  # wrong shape
        shape = draw(st.sampled_from([(), (0,), (2, 0), (2, 3), (1, 1, 2)]))
        return np.full(shape, 1.0 / max(1, shape[-1] if shape else 1))
    if kind == 6:  # wrong dtype
        return draw(
            st.sampled_from(
                [
                    np.array([True, False]),
                    np.array([0.5 + 0j, 0.5]),
                    np.array(["a", "b"]),
                    np.array([0.5, None], dtype=object),
                    [[0.5, 0.5], [1.0]],
                    "0.5,0.5",
                ]
            )
        )
    if kind == 7:  # integers
        return draw(hnp.arrays(np.int64, size, elements=st.integers(-2, 2)))
    if kind == 8:  # off by a little
        w = np.full(size, 1.0 / size)
        w[0] += draw(st.sampled_from([1e-12, 1e-6, -1e-6, 0.5]))
        return w
    return draw(st.sampled_from(NASTY_OTHERS))


@st.composite
def matrix_like(draw, max_rows=5, max_cols=5):
    """Row-stochastic matrices (some with zeros), and garbage."""
    kind = draw(st.integers(0, 5))
    k = draw(st.integers(1, max_rows))
    m = draw(st.integers(1, max_cols))
    if kind <= 2:
        w = draw(hnp.arrays(np.float64, (k, m), elements=st.floats(0, 1)))
        w[:, 0] += w.sum(axis=1) == 0
        return w / w.sum(axis=1, keepdims=True)
    if kind == 3:
        return draw(hnp.arrays(np.float64, (k, m), elements=st.floats(allow_nan=True)))
    if kind == 4:
        return draw(
            st.sampled_from([np.eye(3)[0], np.ones((2, 2, 2)) / 2, np.zeros((0, 3)), [[1.0], [1]]])
        )
    return draw(pmf_like())


# ----------------------------------------------------------------------------- checks
def _numbers(value):
    """Every number inside ``value`` (arrays, tuples, dicts, result objects)."""
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        return []
    if isinstance(value, numbers.Number):
        return [complex(value).real] if not isinstance(value, complex) else [math.nan]
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "biuf":
            return value.astype(float).ravel().tolist()
        return [x for v in value.ravel() for x in _numbers(v)]
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _numbers(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _numbers(v)]
    if isinstance(value, Channel):
        return _numbers(value.matrix)
    for attribute in ("value", "epsilon", "delta", "tv", "mu"):
        if hasattr(value, attribute) and not callable(getattr(value, attribute)):
            return _numbers(getattr(value, attribute))
    return []


#: A NumPy scalar's repr in a message (``np.float64(2.0)``): messages show plain numbers.
NUMPY_REPR = re.compile(r"\bnp\.[a-z_]+[0-9]*\(")


def names_argument(message, names):
    """Whether ``message`` names one of ``names`` as a word: not inside another word, nor
    as the ``k`` of "k-RR" or the ``d`` of "d-dimensional"."""
    return any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", message) for name in names)


def check_message(exc, names, where=""):
    message = str(exc)
    assert names_argument(message, names), (
        f"{where}: {type(exc).__name__}({message!r}) names none of {names}"
    )
    assert not NUMPY_REPR.search(message), f"{where}: a NumPy repr in {message!r}"


def attempt(trust, function, *args, names, low=-math.inf, high=math.inf, allow_inf=False, **kw):
    """Call ``function``; the result must be in ``[low, high]`` without NaN (inf only if
    ``allow_inf``), or the error a ValueError/TypeError naming one of ``names``."""
    trust["fuzz_inputs"] += 1
    try:
        out = function(*args, **kw)
    except (ValueError, TypeError) as exc:
        check_message(exc, names, getattr(function, "__name__", str(function)))
        return None
    values = np.array(_numbers(out), dtype=float)
    assert not np.isnan(values).any(), f"{function}: NaN in {out!r}"
    if not allow_inf:
        assert np.isfinite(values).all(), f"{function}: inf in {out!r}"
    assert np.all((values >= low) & (values <= high)), f"{function}: {out!r} not in [{low}, {high}]"
    return out


# ----------------------------------------------------------------------------- constructors
@FUZZ
@given(matrix=matrix_like(), eps=epsilons(), delta=probabilities())
def test_channel(matrix, eps, delta, trust):
    names = ("matrix",)
    channel = attempt(trust, Channel, matrix, names=names, low=0, high=1)
    if channel is None:
        return
    np.testing.assert_allclose(channel.matrix.sum(axis=1), 1.0, rtol=1e-12)
    attempt(trust, lambda: channel.epsilon, names=names, low=0, allow_inf=True)
    attempt(trust, lambda: channel.tv, names=names, low=0, high=1)
    attempt(trust, channel.delta, eps, names=("epsilon",), low=0, high=1)
    attempt(trust, channel.epsilon_for_delta, delta, names=("delta",), low=0, allow_inf=True)
    attempt(trust, channel.is_ldp, eps, delta, names=("epsilon", "delta"))
    out = attempt(trust, channel.privatize, [0, channel.n_inputs - 1], names=("x",), rng=0, low=0)
    assert out is not None and out.max() < channel.n_outputs


@FUZZ
@given(k=ints(1, 40), eps=epsilons(), delta=probabilities(), eta=probabilities())
def test_channel_constructors(k, eps, delta, eta, trust):
    for channel in (
        attempt(trust, ldp.k_rr, k, eps, names=("k", "epsilon"), low=0, high=1),
        attempt(trust, ldp.randomized_response, eps, names=("epsilon",), low=0, high=1),
        attempt(
            trust, ldp.binary_erasure, eps, delta, eta, names=("epsilon", "delta", "eta"), low=0
        ),
    ):
        if channel is not None and channel.n_inputs <= 64:  # exact privacy is O(k^3)
            np.testing.assert_allclose(channel.matrix.sum(axis=1), 1.0, rtol=1e-12)
            assert channel.epsilon >= 0 and 0 <= channel.tv <= 1
    attempt(trust, ldp.eta_max, eps, delta, names=("epsilon", "delta"), low=0, high=1)


@FUZZ
@given(p0=pmf_like(4), p1=pmf_like(4), eps=epsilons(), eta=probabilities())
def test_binary_mechanism_with_erasure(p0, p1, eps, eta, trust):
    names = ("p0", "p1", "epsilon", "eta")
    attempt(trust, ldp.binary_mechanism_with_erasure, p0, p1, eps, eta, names=names, low=0, high=1)


ORACLES = [GRR, SUE, OUE, OLH, BLH, HadamardResponse, SubsetSelection]
MEANS = [Duchi, Laplace, Piecewise, Hybrid, SquareWave]


@FUZZ
@given(
    cls=st.sampled_from(ORACLES),
    k=ints(2, 64),
    eps=epsilons(),
    n=ints(1, 10**9),
    values=st.one_of(
        st.lists(st.integers(-2, 70), max_size=6),
        st.sampled_from([[0.5], [math.nan], ["a"], [[0, 1]], np.array([1, 2], dtype=np.uint8)]),
    ),
)
def test_frequency_oracles(cls, k, eps, n, values, trust):
    oracle = attempt(trust, cls, k, eps, names=("k", "epsilon", "d", "g"))
    if oracle is None:
        return
    assert 0 <= oracle.q < oracle.p <= 1
    assert oracle.epsilon == pytest.approx(float(eps), rel=1e-9, abs=1e-12)
    attempt(trust, oracle.variance, n, names=("n",), low=0)
    if oracle.k <= 64:
        reports = attempt(trust, oracle.privatize, values, names=("values",), rng=0)
        if reports is not None:
            estimate = attempt(trust, oracle.estimate, reports, names=("reports",))
            if len(values) == 0:
                assert estimate is None or np.all(np.isfinite(estimate))


@FUZZ
@given(
    cls=st.sampled_from(MEANS),
    eps=epsilons(),
    n=ints(1, 10**9),
    values=st.one_of(
        st.lists(st.floats(-1.5, 1.5), max_size=5),
        st.lists(st.floats(allow_nan=True), max_size=3),
        st.sampled_from([[[0.5]], ["a"], np.array([True])]),
    ),
)
def test_mean_mechanisms(cls, eps, n, values, trust):
    mechanism = attempt(trust, cls, eps, names=("epsilon",))
    if mechanism is None:
        return
    assert mechanism.epsilon == pytest.approx(float(eps), rel=1e-9, abs=1e-12)
    attempt(trust, mechanism.variance, n, names=("n",), low=0)
    reports = attempt(trust, mechanism.privatize, values, names=("values",), rng=0)
    if reports is not None:
        attempt(trust, mechanism.decode, reports, names=("reports",))


@FUZZ
@given(eps=epsilons(), d=ints(1, 6), radius=scalars(0, 5))
def test_vector_mean_mechanisms(eps, d, radius, trust):
    duchi = attempt(trust, Duchi, eps, d, names=("epsilon", "d"))
    l2 = attempt(trust, DuchiL2, eps, d, radius, names=("epsilon", "d", "radius"))
    for mechanism in (duchi, l2):
        if mechanism is not None:
            attempt(trust, mechanism.variance, 10, names=("n",), low=0)
            if mechanism.d > 64:
                continue
            values = np.zeros((3, mechanism.d))
            reports = attempt(trust, mechanism.privatize, values, names=("values",), rng=0)
            attempt(trust, mechanism.estimate, reports, names=("reports",))


# ----------------------------------------------------------------------------- divergences
@FUZZ
@given(p=pmf_like(), q=pmf_like(), gamma=scalars(0, 10))
def test_divergences(p, q, gamma, trust):
    names = ("p", "q")
    attempt(trust, divergences.tv, p, q, names=names, low=0, high=1)
    attempt(trust, divergences.hellinger, p, q, names=names, low=0, high=2)
    attempt(trust, divergences.kl, p, q, names=names, low=0, allow_inf=True)
    attempt(trust, divergences.chi2, p, q, names=names, low=0, allow_inf=True)
    attempt(trust, divergences.hockey_stick, p, q, gamma, names=(*names, "gamma"), low=0, high=1)


# ----------------------------------------------------------------------------- contraction
@FUZZ
@given(
    matrix=matrix_like(4, 4),
    kind=st.sampled_from(["tv", "hockey_stick", "chi2", "kl", "hellinger", "f", "bogus", 3]),
    gamma=st.one_of(st.none(), scalars(0, 10)),
)
def test_contraction_coefficient(matrix, kind, gamma, trust):
    names = ("channel", "matrix", "kind", "gamma", "f")
    attempt(trust, contraction.coefficient, matrix, kind, gamma=gamma, names=names, low=0, high=1)


@FUZZ
@given(
    eps=epsilons(),
    delta=probabilities(),
    eta=probabilities(),
    gamma=scalars(0, 10),
    n=ints(1, 10**9),
    k=ints(2, 2**16),
    kind=st.sampled_from(["tv", "hockey_stick", "chi2", "kl", "hellinger", "x"]),
)
def test_contraction_closed_forms(eps, delta, eta, gamma, n, k, kind, trust):
    attempt(trust, contraction.phi, eps, delta, n, names=("epsilon", "delta", "n"), low=0, high=1)
    attempt(trust, contraction.worst_case_tv, eps, delta, names=("epsilon", "delta"), low=0, high=1)
    attempt(
        trust,
        contraction.worst_case_hockey_stick,
        eps,
        delta,
        gamma,
        names=("epsilon", "delta", "gamma"),
        low=0,
        high=1,
    )
    g = gamma if kind == "hockey_stick" else None
    names = ("kind", "k", "epsilon", "gamma")
    attempt(trust, contraction.k_rr_coefficient, kind, k, eps, g, names=names, low=0, high=1)
    attempt(trust, contraction.rr_coefficient, kind, eps, g, names=names, low=0, high=1)
    names = ("epsilon", "eta", "delta")
    attempt(trust, contraction.max_kl_contraction, eps, eta, delta, names=names, low=0, high=1)
    attempt(
        trust,
        contraction.max_f_divergence,
        eps,
        eta,
        "kl",
        names=("epsilon", "eta", "f", "gamma"),
        low=0,
        allow_inf=True,
    )


@FUZZ
@given(
    eps=epsilons(),
    eta=probabilities(),
    p0=pmf_like(4),
    p1=pmf_like(4),
    tv_in=probabilities(),
    matrix=matrix_like(3, 3),
)
def test_contraction_bounds_and_erasure(eps, eta, p0, p1, tv_in, matrix, trust):
    names = ("epsilon", "eta", "p0", "p1")
    attempt(trust, contraction.max_output_tv, eps, eta, p0, p1, names=names, low=0, high=1)
    names = ("epsilon", "eta", "tv_in")
    attempt(
        trust, contraction.chi2_output_bound, eps, eta, tv_in, names=names, low=0, allow_inf=True
    )
    names = ("channel", "matrix", "epsilon", "eta")
    attempt(trust, contraction.erase, matrix, eps, eta, names=names, low=0, high=1)
    names = ("channel", "matrix", "kind")
    attempt(trust, contraction.best_bound, matrix, "tv", names=names, low=0, high=1)


# ----------------------------------------------------------------------------- risk
@FUZZ
@given(
    n=ints(1, 10**9),
    eps=st.one_of(epsilons(), st.just(math.inf)),
    delta=probabilities(),
    k=ints(2, 2**16),
    d=ints(1, 50),
    moment=scalars(1, 10),
    preset=st.integers(0, 5),
)
def test_risk_presets(n, eps, delta, k, d, moment, preset, trust):
    names = ("n", "epsilon", "delta", "k", "p", "d", "r", "support", "method", "loss")
    call = [
        lambda: risk.bernoulli_mean(n, eps, delta),
        lambda: risk.distribution_estimation(k, n, eps, delta),
        lambda: risk.ball_mean(n, eps, delta, d=d),
        lambda: risk.moment_mean(n, eps, delta, k=moment),
        lambda: risk.krr_distribution_risk(k, n, eps),
        lambda: risk.rr_mean_risk(n, eps),
    ][preset]
    # the achieved risk of the k-RR / RR estimators is infinite at epsilon = 0
    attempt(trust, call, names=names, low=0, allow_inf=preset >= 4)


@FUZZ
@given(
    p0=pmf_like(4),
    p1=pmf_like(4),
    n=ints(1, 10**6),
    eps=st.one_of(st.none(), epsilons()),
    delta=probabilities(),
    separation=scalars(0, 2),
    alpha=probabilities(),
    beta=probabilities(),
    which=st.integers(0, 4),
)
def test_risk_generic(p0, p1, n, eps, delta, separation, alpha, beta, which, trust):
    names = ("p0", "p1", "n", "epsilon", "delta", "separation", "alpha", "beta", "channel", "kl")
    call = [
        lambda: risk.le_cam(p0, p1, separation=separation, n=n, epsilon=eps, delta=delta),
        lambda: risk.stein_exponent(p0, p1, epsilon=eps, delta=delta),
        lambda: risk.min_sample_size(p0, p1, alpha=alpha, beta=beta, epsilon=eps, delta=delta),
        lambda: risk.mutual_information_bound(eps, delta, prior=p0),
        lambda: risk.entropy(p0),
    ][which]
    # the Stein bound is a lower bound on (1/n) log beta_n: a non-positive exponent
    low, high = (-math.inf, 0.0) if which == 1 else (0.0, math.inf)
    attempt(
        trust,
        call,
        names=(*names, "prior", "entropy"),
        low=low,
        high=high,
        allow_inf=which in (1, 2),
    )


@FUZZ
@given(matrix=matrix_like(3, 3), prior=pmf_like(3), joint=matrix_like(3, 3), gamma=scalars(0, 5))
def test_risk_information(matrix, prior, joint, gamma, trust):
    attempt(trust, risk.mutual_information, matrix, prior, names=("channel", "matrix", "prior"))
    attempt(trust, risk.e_gamma_information, joint, gamma, names=("joint", "gamma"), low=0)


# ----------------------------------------------------------------------------- design
@settings(max_examples=12, deadline=None)
@given(
    k=st.one_of(st.integers(2, 4), st.sampled_from([0, 1, -1, 2.5, None, "3", 2**65])),
    eps=scalars(0, 5),
    utility=st.sampled_from(["mi", "tv", "bogus", None]),
)
def test_design(k, eps, utility, trust):
    from ldp.design import optimal_channel

    names = ("k", "epsilon", "utility", "hypotheses", "prior")
    size = k if isinstance(k, int) and 2 <= k <= 3 else 2
    hypotheses = ([0.5, 0.5, 0.0][:size], [0.0, 0.5, 0.5][-size:]) if utility == "tv" else None
    result = attempt(
        trust, optimal_channel, k, eps, utility=utility, hypotheses=hypotheses, names=names
    )
    if result is not None:
        assert result.channel.epsilon <= float(eps) + 1e-9


# ----------------------------------------------------------------------------- accounting
ACCOUNTING_SCALARS = st.one_of(
    st.floats(0, 60), st.sampled_from(NASTY_FLOATS), st.sampled_from([None, "1.0", True, 2**70])
)


@FUZZ
@given(
    mu=ACCOUNTING_SCALARS,
    eps=ACCOUNTING_SCALARS,
    delta=st.one_of(st.floats(0, 1), st.sampled_from(NASTY_FLOATS)),
    k=st.one_of(st.integers(1, 200), st.sampled_from([0, -1, 2.5, math.nan, None, "3"])),
    small_eps=st.one_of(st.floats(0, 60), st.sampled_from([math.nan, math.inf, -1.0, None])),
)
def test_accounting(mu, eps, delta, k, small_eps, trust):
    accounting = pytest.importorskip("ldp.accounting")
    attempt(trust, accounting.get_delta_from_gdp, mu, eps, names=("mu", "epsilon"), low=0, high=1)
    attempt(
        trust, accounting.get_epsilon_from_gdp, mu, delta, names=("mu", "delta"), low=0,
        allow_inf=True,
    )  # fmt: skip
    attempt(trust, accounting.get_tv_from_gdp, mu, names=("mu",), low=0, high=1)
    attempt(
        trust, accounting.get_mu_from_epsilon_delta, eps, delta, names=("epsilon", "delta"),
        low=0, allow_inf=True,
    )  # fmt: skip
    names = ("epsilon", "delta", "eta", "k")
    # k and epsilon kept moderate: see the report on compose_eps_delta_eta with huge k / epsilon
    attempt(trust, accounting.compose_eps_delta_eta, small_eps, delta, None, k, names=names,
            low=0, allow_inf=True)  # fmt: skip


def test_the_name_check_matches_words_not_letters():
    """One-letter names (``k``, ``n``, ``d``, ``x``) pass a substring test in any message."""
    assert names_argument("k must be >= 2, got 1", ["k"])
    assert names_argument("values must lie in [0, 4) (k = 4)", ["k"])
    assert not names_argument("k-RR needs a larger alphabet", ["k"])
    assert not names_argument("keep the index", ["k"])
    assert not names_argument("expected an index", ["x", "d", "n"])
    assert NUMPY_REPR.search("epsilon must be > 0, got np.float64(-1.0)")
    assert not NUMPY_REPR.search("epsilon must be > 0, got -1.0")


# ----------------------------------------------------------------------------- hostile reports
REGISTERED = sorted(ldp.mechanisms.REGISTRY)


def _valid_reports(mechanism, n=4):
    """``n`` reports of ``mechanism`` as rows of its report fields."""
    domain = mechanism.domain
    if domain.kind == "categorical":
        values = np.arange(n) % domain.k
    elif domain.kind == "items":
        values = np.array([f"item-{i % 3}" for i in range(n)])
    elif getattr(domain, "d", 1) > 1:
        values = np.zeros((n, domain.d))
    else:
        values = np.zeros(n)
    return mechanism.codec.to_rows(mechanism.privatize(values, rng=0))


def _hostile(kind, rows, codec, row, field):
    """``rows`` with one hostile change (or a wholly wrong array) of ``kind``."""
    f = codec.fields[field]
    out = rows.astype(np.float64)

    def at(value):
        out[row, field] = value
        return out

    span = max(abs(f.low), abs(f.high), 1.0)
    return {
        "nan": lambda: at(math.nan),
        "inf": lambda: at(math.inf),
        "-inf": lambda: at(-math.inf),
        "huge": lambda: at(1e300),
        "huge int": lambda: np.array(
            [[2**70] * codec.width for _ in range(rows.shape[0])], dtype=object
        ),
        "above": lambda: at(f.high + (1 if f.kind == "int" else 0.5 * span)),
        "negative": lambda: at(f.low - (1 if f.kind == "int" else 0.5 * span)),
        "off-grid": lambda: at(
            f.low + 0.5 if f.kind == "int" else (f.low + f.high) / 2 + (f.step or 0) / 3
        ),
        "extra field": lambda: np.column_stack([rows, rows[:, :1]]),
        "missing field": lambda: rows[:, :-1] if codec.width > 1 else rows[:, :0],
        "3-D": lambda: rows[None],
        "bool": lambda: rows != 0,
        "strings": lambda: rows.astype(str),
        "text": lambda: np.full(rows.shape, "report"),
        "complex": lambda: rows + 1j,
        "None": lambda: np.full(rows.shape, None, dtype=object),
        "ragged": lambda: [list(r) for r in rows[:-1]] + [[*rows[-1], 0]],
    }[kind]()


HOSTILE = [
    "nan", "inf", "-inf", "huge", "huge int", "above", "negative", "off-grid", "extra field",
    "missing field", "3-D", "bool", "strings", "text", "complex", "None", "ragged",
]  # fmt: skip


def _delta_of(mechanism) -> float:
    """The delta a protocol states: 0 for pure mechanisms, 1e-6 for the others (Gaussian)."""
    return 1e-6 if math.isinf(mechanism.epsilon) else 0.0


def _decoders(mechanism):
    """Every entry point of ``mechanism``'s decoder that takes reports."""
    from ldp.protocol import Protocol

    decoder = Protocol.from_mechanism(mechanism, delta=_delta_of(mechanism)).decoder
    calls = [decoder.aggregate, decoder.estimate]
    if hasattr(decoder, "decode"):
        calls.append(decoder.decode)
    return decoder, calls


@pytest.mark.parametrize("name", REGISTERED)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(row=st.integers(0, 3), field=st.integers(0, 20))
def test_decoders_refuse_hostile_reports(name, row, field, trust):
    """Reports a mechanism cannot output (NaN, inf, huge, out of range, off the grid, the wrong
    width, dtype or shape, booleans, strings) raise an error naming the reports or the row;
    no decoder returns an estimate (or a NaN) for them."""
    mechanism = ldp.mechanisms.registry.example(name)
    decoder, calls = _decoders(mechanism)
    rows = _valid_reports(mechanism)
    codec = decoder.codec
    for kind in HOSTILE:
        target = codec.fields[field % codec.width]
        if kind == "off-grid" and target.kind == "float" and target.step is None:
            continue  # a float field without a grid has no off-grid value
        hostile = _hostile(kind, rows, codec, row, field % codec.width)
        for call in calls:
            trust["fuzz_inputs"] += 1
            with pytest.raises((ValueError, TypeError)) as info:
                call(hostile)
            check_message(info.value, ("reports", "row"), f"{name} {kind} {call.__name__}")


# ----------------------------------------------------------------------------- secrets
@st.composite
def secrets(draw):
    """A distinctive private value: a string, a whole number or a float, and the text that
    must never appear in a message."""
    kind = draw(st.sampled_from(["string", "int", "float"]))
    tag = draw(st.integers(10**6, 10**7 - 1))
    if kind == "string":
        value = f"user-{tag}@example.org"
        return value, str(tag)
    if kind == "int":
        return 10**9 + tag, str(10**9 + tag)
    value = tag + 0.4242
    return value, str(tag)


def _secret_calls(value):
    """Public entry points fed private data that holds ``value`` (each call must fail)."""
    import pandas as pd

    from estimators import (
        FrequencyEstimator,
        LDPLogisticRegression,
        LDPNaiveBayes,
        MeanEstimator,
        Privatizer,
    )
    from ldp.protocol import Protocol

    column = [0, value, 1]
    rows = np.array([[0, 0.5], [value, 0.5], [1, 0.5]], dtype=object)
    labels = Protocol.from_mechanism(GRR(3, 1.0), labels=["a", "b", "c"])
    cats = [[0, 1], None]
    calls = {
        "GRR.privatize": lambda: GRR(3, 1.0).privatize(column, rng=0),
        "OUE.privatize": lambda: OUE(4, 1.0).privatize(column, rng=0),
        "OLH.privatize": lambda: OLH(4, 1.0).privatize(column, rng=0),
        "HR.privatize": lambda: HadamardResponse(4, 1.0).privatize(column, rng=0),
        "SS.privatize": lambda: SubsetSelection(4, 1.0).privatize(column, rng=0),
        "Laplace.privatize": lambda: Laplace(1.0).privatize(column, rng=0),
        "Piecewise.privatize": lambda: Piecewise(1.0).privatize(column, rng=0),
        "Duchi.privatize": lambda: Duchi(1.0, 2).privatize(rows.tolist(), rng=0),
        "DuchiL2.privatize": lambda: DuchiL2(1.0, 2).privatize(rows.tolist(), rng=0),
        "Channel.privatize": lambda: ldp.k_rr(3, 1.0).privatize(column, rng=0),
        "Protocol.privatize": lambda: labels.privatize(["a", value], rng=0),
        "Protocol.encode": lambda: Protocol.from_mechanism(Laplace(1.0)).encode(column),
        "Privatizer.transform": lambda: (
            Privatizer(1.0, categories=cats, bounds=[None, (0, 1)]).fit(rows).transform(rows)
        ),
        "Privatizer.transform frame": lambda: (
            Privatizer(1.0, categories={"a": [0, 1]})
            .fit(pd.DataFrame({"a": [0, 1]}))
            .transform(pd.DataFrame({"a": column}))
        ),
        "FrequencyEstimator.fit": lambda: FrequencyEstimator(1.0, categories=cats[:1]).fit(
            rows[:, :1]
        ),
        "MeanEstimator.fit": lambda: MeanEstimator(1.0, bounds=(0, 1)).fit(rows),
        "LDPNaiveBayes.fit": lambda: LDPNaiveBayes(1.0, categories=[[0, 1]], classes=[0, 1]).fit(
            rows[:, :1], [0, 1, 0]
        ),
        "LDPNaiveBayes.fit y": lambda: LDPNaiveBayes(1.0, categories=[[0, 1]], classes=[0, 1]).fit(
            [[0], [1], [0]], [0, value, 1]
        ),
        "LDPLogisticRegression.fit": lambda: LDPLogisticRegression(
            1.0, bounds=(0, 1), classes=[0, 1]
        ).fit(rows, [0, 1, 0]),
        "1-D X": lambda: Privatizer(1.0, categories=[[0, 1]]).fit(np.array(column, dtype=object)),
    }
    return calls


SECRET_CALLS = sorted(_secret_calls(0))


@FUZZ
@given(secret=secrets(), call=st.sampled_from(SECRET_CALLS))
def test_messages_never_quote_a_private_value(secret, call, trust):
    """Whatever private value a call refuses, its message names the argument or the column and
    the problem, never the value (messages reach logs and crash reports)."""
    value, footprint = secret
    trust["fuzz_inputs"] += 1
    with pytest.raises((ValueError, TypeError)) as info:
        _secret_calls(value)[call]()
    message = str(info.value)
    assert footprint not in message, f"{call}: {message!r} quotes the private value"
    assert not NUMPY_REPR.search(message), message


# ----------------------------------------------------------------------------- pickles
@functools.lru_cache(maxsize=8)
def _fitted_estimators(random_state):
    """One fitted instance of every estimator (with ``random_state``) and the table it was
    fitted on (cached: the tests that use them never change them)."""
    import warnings

    import pandas as pd

    from estimators import (
        FrequencyEstimator,
        LDPLogisticRegression,
        LDPNaiveBayes,
        MeanEstimator,
        PrivacyLeakWarning,
        Privatizer,
    )
    from ldp.protocol import Protocol

    gen = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"city": gen.choice(["a", "b", "c"], 200), "age": gen.uniform(18, 90, 200)}
    )
    y = (frame["age"] > 50).to_numpy().astype(int)
    cats, bounds = {"city": ["a", "b", "c"]}, {"age": (18.0, 90.0)}
    protocol = Protocol.from_mechanism(GRR(3, 1.0), labels=["a", "b", "c"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return {
            "Privatizer": Privatizer(
                1.0, categories=cats, bounds=bounds, random_state=random_state
            ).fit(frame),
            "FrequencyEstimator": FrequencyEstimator(
                1.0, categories=cats, random_state=random_state
            ).fit(frame[["city"]]),
            "FrequencyEstimator(protocol)": FrequencyEstimator(
                protocol=protocol, random_state=random_state
            ).fit(frame[["city"]]),
            "MeanEstimator": MeanEstimator(1.0, bounds=bounds, random_state=random_state).fit(
                frame[["age"]]
            ),
            "LDPNaiveBayes": LDPNaiveBayes(
                1.0, categories=cats, classes=[0, 1], random_state=random_state
            ).fit(frame[["city"]], y),
            "LDPLogisticRegression": LDPLogisticRegression(
                1.0, bounds=bounds, classes=[0, 1], random_state=random_state
            ).fit(frame[["age"]], y),
        }, frame


def _same_fit(a, b, frame):
    """The fitted state that a copy must keep: statistics, estimates, predictions."""
    for inner in ("joint_", "statistics_"):
        if hasattr(getattr(a, inner, None), "statistics_"):  # a learner's statistic
            _same_fit(getattr(a, inner), getattr(b, inner), frame)
    stats = [getattr(e, "statistics_", None) for e in (a, b)]
    for x, y in zip(*(s if isinstance(s, list) else [] for s in stats)):
        assert x.n == y.n and x.mechanism == y.mechanism
        np.testing.assert_array_equal(getattr(x, "counts", None), getattr(y, "counts", None))
        np.testing.assert_array_equal(getattr(x, "total", None), getattr(y, "total", None))
    for name in ("n_rows_", "epsilon_total_", "classes_", "coef_", "intercept_"):
        if hasattr(a, name):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    if hasattr(a, "predict"):
        X = frame[[c.name for c in a.columns_]]
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


ESTIMATOR_NAMES = sorted(_fitted_estimators(None)[0])


@settings(max_examples=24, deadline=None)
@given(
    which=st.sampled_from(ESTIMATOR_NAMES),
    random_state=st.one_of(st.none(), st.just("os"), st.integers(0, 2**32 - 1)),
)
def test_estimators_pickle_round_trip_without_their_seed(which, random_state, trust):
    """Every fitted estimator survives pickling with its statistics and predictions; the copy
    carries no seed, no generator and no lock (a seeded privatizer warns that its seed stays
    behind)."""
    import pickle
    import warnings

    from ldp import PrivacyLeakWarning

    trust["fuzz_inputs"] += 1
    fitted, frame = _fitted_estimators(random_state)
    est = fitted[which]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        payload = pickle.dumps(est)
    warned = [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    seeded = random_state not in (None, "os")
    assert bool(warned) == (seeded and which == "Privatizer"), [str(w.message) for w in caught]
    copy = pickle.loads(payload)
    assert copy.random_state == (random_state if not seeded else None)
    assert not {"_rng", "_update_lock"} & set(vars(copy))
    _same_fit(est, copy, frame)


@pytest.mark.parametrize("name", REGISTERED)
def test_mechanisms_and_protocols_pickle_round_trip(name):
    """Every registered mechanism and its protocol: equal after pickling, same fingerprint,
    same reports from the same bytes, same estimate."""
    import pickle

    from ldp.protocol import Protocol

    mechanism = ldp.mechanisms.registry.example(name)
    copy = pickle.loads(pickle.dumps(mechanism))
    assert copy == mechanism and copy.key == mechanism.key
    protocol = Protocol.from_mechanism(mechanism, delta=_delta_of(mechanism))
    restored = pickle.loads(pickle.dumps(protocol))
    assert restored == protocol and restored.fingerprint == protocol.fingerprint
    rows = _valid_reports(mechanism, n=50)
    reports = restored.mechanism.codec.from_rows(rows)
    np.testing.assert_array_equal(
        np.asarray(restored.decoder.estimate(reports)),
        np.asarray(protocol.decoder.estimate(reports)),
    )


# ----------------------------------------------------------------------------- planted seeds
class _Planted:
    """Pickles ``cls`` with ``state`` as other code (a server) might write it: a seed and a
    generator included, bypassing the estimator's ``__getstate__``."""

    def __init__(self, cls, state):
        self.cls, self.state = cls, state

    def __reduce__(self):
        import copyreg

        return copyreg._reconstructor, (self.cls, object, None), self.state


@settings(max_examples=24, deadline=None)
@given(
    which=st.sampled_from(ESTIMATOR_NAMES),
    seed=st.one_of(st.integers(0, 2**63), st.integers(0, 99).map(np.random.default_rng)),
    with_generator=st.booleans(),
)
def test_a_seed_planted_in_a_pickle_is_dropped_with_a_warning(which, seed, with_generator):
    """A privatizer or estimator shipped to a device with a seed (or a generator state) would
    let its sender predict the noise and undo it: unpickling drops both and warns."""
    import pickle

    from ldp import PrivacyLeakWarning

    fitted, frame = _fitted_estimators(None)
    est = fitted[which]
    state = dict(vars(est))
    state.pop("_update_lock", None)
    state["random_state"] = seed
    if with_generator:
        state["_rng"] = np.random.default_rng(7)
    payload = pickle.dumps(_Planted(type(est), state))
    with pytest.warns(PrivacyLeakWarning, match="seed"):
        restored = pickle.loads(payload)
    assert restored.random_state is None and "_rng" not in vars(restored)
    _same_fit(est, restored, frame)


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(REGISTERED),
    field=st.sampled_from(["seed", "rng", "random_state", "state", "entropy"]),
    where=st.sampled_from(["top", "mechanism", "params", "sampler", "domain", "report"]),
    value=st.one_of(
        st.integers(0, 2**63), st.text(max_size=8), st.lists(st.integers(), max_size=3)
    ),
)
def test_a_protocol_file_carrying_a_seed_is_refused(name, field, where, value):
    """A protocol has no randomness field: a seed placed anywhere in its file (fingerprint
    recomputed, as a server would) is refused; devices draw from the operating system."""
    import json

    from ldp.protocol import Protocol, fingerprint_of

    mechanism = ldp.mechanisms.registry.example(name)
    document = json.loads(Protocol.from_mechanism(mechanism, delta=_delta_of(mechanism)).to_json())
    target = {
        "top": document,
        "mechanism": document["mechanism"],
        "params": document["mechanism"]["params"],
        "sampler": document["sampler"],
        "domain": document["domain"],
        "report": document["report"],
    }[where]
    target[field] = value
    with contextlib.suppress(ValueError):  # an integer above 2^53: no canonical text exists
        document["fingerprint"] = fingerprint_of(document)
    with pytest.raises(ValueError):
        Protocol.from_dict(document)


# ----------------------------------------------------------------------------- concurrency
# one chunk of reports added many times over is not what honest devices send, and the
# goodness-of-fit test may say so; only the counting is checked here
@pytest.mark.filterwarnings("ignore::ldp.ImplausibleReportsWarning")
@settings(max_examples=6, deadline=None)
@given(
    which=st.sampled_from(["FrequencyEstimator", "MeanEstimator", "FrequencyEstimator(protocol)"]),
    threads=st.integers(2, 8),
    chunk=st.integers(1, 40),
    chunks=st.integers(5, 40),
)
def test_concurrent_report_chunks_add_up_exactly(which, threads, chunk, chunks):
    """Chunks of reports added to one estimator from several threads at once give exactly the
    statistic of one fit on all of them."""
    import sys
    import threading

    fitted, frame = _fitted_estimators(0)
    est = fitted[which]
    priv = est.privatizer_
    rows = frame[[c.name for c in priv.columns_]][:chunk]
    reports = (
        est.privatizer_.protocol_.report_frame(
            priv.protocol_.privatize(rows.iloc[:, 0].to_numpy(), rng=1)
        )
        if which.endswith("(protocol)")
        else priv.transform(rows)
    )
    shared = type(est)(**est.get_params())
    single = type(est)(**est.get_params())
    args = () if which.endswith("(protocol)") else (priv,)
    single.fit_reports(reports, *args)
    barrier = threading.Barrier(threads)

    def work():
        barrier.wait()
        for _ in range(chunks):
            shared.partial_fit_reports(reports, *args)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        pool = [threading.Thread(target=work) for _ in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    total = threads * chunks
    assert shared.n_rows_ == total * single.n_rows_
    for a, b in zip(shared.statistics_, single.statistics_):
        assert a.n == total * b.n
        values = a.counts if hasattr(a, "counts") else a.total
        expected = (b.counts if hasattr(b, "counts") else b.total) * total
        np.testing.assert_allclose(values, expected, rtol=1e-12)


def test_numpy_scalars_are_plain_in_messages():
    """A NumPy scalar argument is shown as a number (``1.5``), not as ``np.float64(1.5)``."""
    from ldp._random import OSGenerator
    from ldp.risk import beta_bernoulli_e_gamma_information, binomial_mean_absolute_deviation

    calls = [
        (lambda: GRR(4, 1.0).variance(10, np.float64(1.5)), "f"),
        (lambda: binomial_mean_absolute_deviation(10, np.float64(1.5)), "p"),
        (lambda: beta_bernoulli_e_gamma_information(3, np.float64(-2.0)), "gamma"),
        (lambda: OSGenerator().integers(np.float64(2.0)), "high"),
        (lambda: ldp.Channel([[np.float64(-0.5), 1.5]]), "matrix"),
        (lambda: ldp.k_rr(3, 1.0).delta(np.array([-1.0])), "epsilon"),
    ]
    for call, name in calls:
        with pytest.raises((ValueError, TypeError)) as info:
            call()
        check_message(info.value, (name,))

"""Longitudinal (memoized) mechanisms: parameters, exact repeated-report accounting against
brute-force enumeration of the T-round output law, samplers against that law, unbiased
estimators, and the client's memo.

The oracle here is built from the sampler weights alone (the protocol's constants), not from
the mechanism's own probabilities: a memo is a table of permanent responses drawn per value,
each report an instantaneous response of the memoized one, so the law of a history of reports
is a sum over the memo tables of the values it visits.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ldp.mechanisms import LGRR, LOSUE, LOUE, RAPPOR, DBitFlipPM, Memo, mechanism_from_spec


# ----------------------------------------------------------------------------- the oracle
def _prob(weights, index=0):
    return weights[index] / sum(weights)


def grr_rounds(mech):
    """(memo alphabet, P1[x, m], P2[m, z]) of L-GRR from its sampler weights."""
    k = mech.k
    w = mech.sampler()
    p1, p2 = _prob(w["permanent"]), _prob(w["instant"])
    q1, q2 = (1 - p1) / (k - 1), (1 - p2) / (k - 1)
    first = np.full((k, k), q1)
    np.fill_diagonal(first, p1)
    second = np.full((k, k), q2)
    np.fill_diagonal(second, p2)
    return first, second


def unary_rounds(mech):
    """P1[x, B'] and P2[B', S] over bit vectors (index = bits, bit v = bit k-1-v)."""
    k = mech.k
    w = mech.sampler()
    own, other = _prob(w["own"]), _prob(w["other"])
    one, zero = _prob(w["one"]), _prob(w["zero"])
    vectors = np.array(list(itertools.product((0, 1), repeat=k)))  # row i: bits of i
    first = np.ones((k, 2**k))
    for x in range(k):
        for v in range(k):
            p = own if v == x else other
            first[x] *= np.where(vectors[:, v] == 1, p, 1 - p)
    second = np.ones((2**k, 2**k))
    for v in range(k):
        p_of_memo = np.where(vectors[:, v] == 1, one, zero)[:, None]
        second *= np.where(vectors[None, :, v] == 1, p_of_memo, 1 - p_of_memo)
    return first, second


def history_law(first, second, history):
    """The law of the reports of ``history`` (a tuple of values), over all report tuples."""
    values = sorted(set(history))
    memo_size, outputs = second.shape
    law = np.zeros((outputs,) * len(history))
    for memo in itertools.product(range(memo_size), repeat=len(values)):
        weight = math.prod(first[v, m] for v, m in zip(values, memo))
        table = dict(zip(values, memo))
        term = np.array(weight)
        for t, value in enumerate(history):
            shape = [1] * len(history)
            shape[t] = outputs
            term = term * second[table[value]].reshape(shape)
        law = law + term
    return law.ravel()


def max_log_ratio(a, b):
    mask = (a > 0) | (b > 0)
    with np.errstate(divide="ignore"):
        return float(np.max(np.abs(np.log(a[mask]) - np.log(b[mask]))))


def worst_constant_pair(first, second, k, rounds):
    laws = [history_law(first, second, (x,) * rounds) for x in range(k)]
    return max(max_log_ratio(laws[x], laws[y]) for x in range(k) for y in range(k) if x != y)


def change_pattern(history):
    """Which rounds hold equal values (the equality pattern)."""
    return tuple(history.index(v) for v in history)


def changes(history):
    return sum(a != b for a, b in itertools.pairwise(history))


# ----------------------------------------------------------------------------- parameters
def test_parameters_match_independent_values():
    # reference values: computed independently from the closed forms of Arcolezi et al. (2022)
    # (OSUE: eq. (15); OUE: the root of the one-report equation; GRR: eigenvalue product)
    losue = LOSUE(10, 1.0, 2.0)
    assert losue.permanent_probabilities == pytest.approx((0.5, 0.119203), abs=1e-6)
    assert losue.instant_probabilities == pytest.approx((0.803388, 0.196612), abs=1e-6)
    loue = LOUE(10, 1.0, 2.0)
    assert loue.instant_probabilities == pytest.approx((0.5, 0.080937), abs=1e-6)
    lgrr = LGRR(10, 1.0, 2.0)
    assert lgrr.permanent_probabilities == pytest.approx((0.450853, 0.061016), abs=1e-6)
    assert lgrr.instant_probabilities == pytest.approx((0.438525, 0.062386), abs=1e-6)
    for mech in (losue, loue, lgrr):
        assert mech.epsilon == pytest.approx(1.0, abs=1e-9)
        assert mech.epsilon_permanent == pytest.approx(2.0, abs=1e-12)
    assert loue.epsilon <= 1.0 + 1e-12  # bisection keeps the side at most epsilon (+ rounding up)


def test_the_papers_grr_parameters_give_less_than_the_asked_level_for_k_above_2():
    # Arcolezi et al. (2022), eq. (13); its one-report level is log(ps/qs)
    def eq13(k, eps1, eps_inf):
        a, b = math.exp(eps1), math.exp(eps_inf)
        p2 = (math.exp(eps1 + eps_inf) - 1) / (-k * a + (k - 1) * b + a + a * b - 1)
        p1 = b / (b + k - 1)
        q1, q2 = (1 - p1) / (k - 1), (1 - p2) / (k - 1)
        return math.log((p1 * p2 + (1 - p1) * q2) / (q1 * p2 + (1 - q1) * q2))

    assert eq13(2, 1.0, 2.0) == pytest.approx(1.0, abs=1e-12)
    assert eq13(10, 1.0, 2.0) == pytest.approx(0.6994, abs=1e-4)
    assert LGRR(10, 1.0, 2.0).epsilon == pytest.approx(1.0, abs=1e-12)


def test_rappor_one_hash_values():
    # one hash, one cohort: half the two-hash figures of the RAPPOR privacy formulas
    rappor = RAPPOR(8, f=0.5, p=0.5, q=0.75)
    assert rappor.epsilon_permanent == pytest.approx(math.log(9), abs=1e-12)
    assert rappor.epsilon == pytest.approx(1.0743 / 2, abs=1e-4)
    expected = {1: 1.0743, 2: 2.0170, 5: 3.6560, 10: 4.2993, 100: 4.3944}
    for t, value in expected.items():
        assert rappor.epsilon_repeated(t) == pytest.approx(value / 2, abs=1e-4)
    # the decoder's p* of a true 0 bit: p (1 - f/2) + q f/2
    assert rappor.q == pytest.approx(0.5 * 0.75 + 0.75 * 0.25)


@pytest.mark.parametrize(
    ("mech", "expected"),
    [
        (LGRR(10, 1.0, 2.0), {1: 1.0, 2: 1.7532, 3: 1.9601, 5: 1.9992, 10: 2.0}),
        (LOSUE(10, 1.0, 2.0), {1: 1.0, 2: 1.6417, 3: 1.8992, 5: 1.9937, 10: 2.0}),
    ],
    ids=["l-grr", "l-osue"],
)
def test_repeated_reports_worked_values(mech, expected):
    for t, value in expected.items():
        assert mech.epsilon_repeated(t) == pytest.approx(value, abs=1e-4)


def test_the_papers_eq_16_understates_the_loss():
    # Arcolezi et al. (2022), eq. (16), as printed: log((e^{eps_inf + t eps_1} + 1) /
    # (e^{eps_inf} + e^{t eps_1})); k = 2, eps_inf = 2, eps_1 = 1
    def eq16(t, eps_inf=2.0, eps1=1.0):
        return math.log(
            (math.exp(eps_inf + t * eps1) + 1) / (math.exp(eps_inf) + math.exp(t * eps1))
        )

    mech = LOSUE(2, 1.0, 2.0)
    assert eq16(1) == pytest.approx(0.7353, abs=1e-4)
    assert eq16(2) == pytest.approx(1.3250, abs=1e-4)
    assert mech.epsilon_repeated(1) == pytest.approx(1.0, abs=1e-9)
    assert mech.epsilon_repeated(2) == pytest.approx(1.6417, abs=1e-4)
    assert mech.epsilon_repeated(1) > eq16(1) and mech.epsilon_repeated(2) > eq16(2)


def test_the_shortcut_min_eps_inf_t_eps_1_understates_the_loss():
    lgrr = LGRR(1024, 0.2, 4.0)
    assert lgrr.epsilon_repeated(5) == pytest.approx(3.8051, abs=1e-4)
    assert lgrr.epsilon_repeated(5) > min(4.0, 5 * 0.2)
    assert LGRR(4, 0.5, 4.0).epsilon_repeated(2) == pytest.approx(1.0005, abs=1e-4)
    assert LOUE(8, 0.8, 8.0).epsilon_repeated(5) == pytest.approx(4.6693, abs=1e-4)


# ----------------------------------------------------------------------------- brute force
SMALL_GRR = [LGRR(3, 0.5, 1.5), LGRR(4, 0.3, 3.0), LGRR(2, 1.0, 2.0)]
SMALL_UNARY = [
    LOSUE(3, 1.0, 2.0),
    LOUE(3, 0.7, 2.5),
    RAPPOR(3, f=0.5, p=0.5, q=0.75),
    RAPPOR(2, f=0.3, p=0.1, q=0.9),
]


def _rounds(mech):
    return grr_rounds(mech) if isinstance(mech, LGRR) else unary_rounds(mech)


@pytest.mark.parametrize("mech", SMALL_GRR + SMALL_UNARY, ids=repr)
def test_repeated_reports_are_exact_against_enumeration(mech):
    first, second = _rounds(mech)
    horizon = 4 if isinstance(mech, LGRR) else 3
    if mech.k == 2:
        horizon += 1
    for t in range(1, horizon + 1):
        brute = worst_constant_pair(first, second, mech.k, t)
        assert mech.epsilon_repeated(t) >= brute
        assert mech.epsilon_repeated(t) == pytest.approx(brute, abs=1e-9)
        assert mech.epsilon_repeated(t) <= mech.epsilon_permanent
    assert mech.epsilon_repeated(1) == pytest.approx(mech.epsilon, abs=1e-12)


@pytest.mark.parametrize("mech", [LGRR(3, 0.5, 1.5), LOSUE(3, 1.0, 2.0), RAPPOR(2, 0.4, 0.2, 0.7)])
def test_changing_values_are_bounded_by_the_accounting(mech):
    first, second = _rounds(mech)
    rounds = 3 if isinstance(mech, LGRR) or mech.k == 2 else 2
    histories = list(itertools.product(range(mech.k), repeat=rounds))
    laws = {h: history_law(first, second, h) for h in histories}
    worst_same = dict.fromkeys(range(rounds), 0.0)
    worst_any = 0.0
    for h, g in itertools.product(histories, repeat=2):
        if h == g:
            continue
        loss = max_log_ratio(laws[h], laws[g])
        worst_any = max(worst_any, loss)
        if change_pattern(h) == change_pattern(g):
            c = max(changes(h), changes(g))
            worst_same[c] = max(worst_same[c], loss)
    for c in range(rounds):
        allowed = max(worst_same[j] for j in range(c + 1))
        assert mech.epsilon_rounds(rounds, c) >= allowed - 1e-12
    assert mech.epsilon_any_history(rounds) >= worst_any
    assert mech.epsilon_rounds(rounds, 0) == pytest.approx(worst_same[0], abs=1e-9)


def test_accounting_is_monotone_and_within_basic_composition():
    lgrr = LGRR(8, 0.5, 2.0)
    previous = 0.0
    for c in range(6):
        value = lgrr.epsilon_rounds(30, c)
        assert value >= previous - 1e-15
        assert value <= (c + 1) * lgrr.epsilon_permanent * (1 + 1e-12)
        assert value <= lgrr.epsilon_any_history(30)
        previous = value
    # every report its own value is one allowed history, but not always the worst: two
    # reports of one value can cost more than two reports of two values
    assert lgrr.epsilon_rounds(5, changes=4) >= 5 * lgrr.epsilon_repeated(1)
    assert lgrr.epsilon_repeated(2) > 2 * lgrr.epsilon_repeated(1)
    # the exact partition search agrees with a direct search over compositions
    t, groups = 7, 3
    single = [lgrr.epsilon_repeated(s) for s in range(1, t + 1)]
    direct = max(
        sum(single[s - 1] for s in parts)
        for m in range(1, groups + 1)
        for parts in itertools.product(range(1, t + 1), repeat=m)
        if sum(parts) == t
    )
    assert lgrr.epsilon_rounds(t, groups - 1) == pytest.approx(
        min(direct, lgrr.epsilon_any_history(t)), rel=1e-12
    )


# ----------------------------------------------------------------------------- dBitFlipPM
def _dbitflip_history_laws(mech, history):
    """Per sampled subset S: the law of the bits of every round (memo keyed by pattern)."""
    w = mech.sampler()
    own, other = _prob(w["own"]), _prob(w["other"])
    b, d, k = mech.b, mech.d, mech.k
    bucket = [v * b // k for v in range(k)]
    out = {}
    for subset in itertools.combinations(range(b), d):
        patterns = [
            next((i + 1 for i, j in enumerate(subset) if j == bucket[v]), 0) for v in history
        ]
        distinct = sorted(set(patterns))
        law = {}
        for responses in itertools.product(
            itertools.product((0, 1), repeat=d), repeat=len(distinct)
        ):
            prob = 1.0
            for pattern, bits in zip(distinct, responses):
                for i, bit in enumerate(bits):
                    p = own if pattern == i + 1 else other
                    prob *= p if bit else 1 - p
            key = tuple(responses[distinct.index(pt)] for pt in patterns)
            law[key] = law.get(key, 0.0) + prob
        out[subset] = (tuple(change_pattern(patterns)), law)
    return out


def test_dbitflip_accounting_against_enumeration():
    mech = DBitFlipPM(4, 1.2, b=4, d=2)
    rounds = 3
    histories = list(itertools.product(range(4), repeat=rounds))
    laws = {h: _dbitflip_history_laws(mech, h) for h in histories}
    infinite_seen = False
    for h, g in itertools.product(histories, repeat=2):
        for subset in laws[h]:
            (ph, lh), (pg, lg) = laws[h][subset], laws[g][subset]
            keys = set(lh) | set(lg)
            if any((lh.get(z, 0) > 0) != (lg.get(z, 0) > 0) for z in keys):
                infinite_seen = True
                assert ph != pg  # only a different pattern structure separates them
                continue
            loss = max(abs(math.log(lh[z]) - math.log(lg[z])) for z in keys if lh.get(z, 0) > 0)
            if ph == pg:
                c = max(changes(h), changes(g))
                assert mech.epsilon_rounds(rounds, c) >= loss - 1e-12
                if c == 0:
                    assert mech.epsilon >= loss - 1e-12
    assert infinite_seen and mech.epsilon_any_history(rounds) == math.inf
    assert mech.epsilon_any_history(1) == mech.epsilon
    assert mech.epsilon_rounds(100, 0) == pytest.approx(mech.epsilon)
    assert mech.epsilon_rounds(100, 10) == pytest.approx(3 * mech.epsilon)  # d + 1 patterns


@pytest.mark.parametrize(
    "mech",
    [
        DBitFlipPM(4, 1.0, b=4, d=1),
        DBitFlipPM(6, 0.7, b=3, d=1),
        DBitFlipPM(5, 2.5, b=5, d=1),
        DBitFlipPM(6, 1.0, b=3, d=2),
        DBitFlipPM(4, 1.3, b=4, d=4),
    ],
    ids=repr,
)
def test_dbitflip_spends_exactly_its_epsilon(mech):
    """Brute force from the sampler's weights: the largest log-ratio of one report's
    probabilities (sampled buckets and bits) over every pair of values is the requested
    epsilon. With d = 1 only one reported bit can differ, so each bit's odds are e^eps (at
    e^(eps/2), the paper's choice for every d, the level would be eps/2)."""
    w = mech.sampler()
    own, other = _prob(w["own"]), _prob(w["other"])
    subsets = list(itertools.combinations(range(mech.b), mech.d))
    laws = []
    for x in range(mech.k):
        law = []
        for subset in subsets:
            for bits in itertools.product((1, 0), repeat=mech.d):  # to_channel's order
                prob = 1.0 / len(subsets)
                for j, bit in zip(subset, bits):
                    p = own if j == x * mech.b // mech.k else other
                    prob *= p if bit else 1 - p
                law.append(prob)
        laws.append(np.array(law))
    worst = max(np.abs(np.log(a) - np.log(c)).max() for a in laws for c in laws)
    requested = mech.params["epsilon"]
    assert worst == pytest.approx(requested, rel=1e-12)
    assert mech.epsilon == pytest.approx(requested, rel=1e-12) and mech.epsilon >= worst
    np.testing.assert_allclose(mech.to_channel().matrix, np.array(laws), rtol=1e-12)
    assert mech.privacy_channel().epsilon == pytest.approx(requested, rel=1e-12)
    half = mech.d == 1
    assert w["own"][0] / w["own"][1] == pytest.approx(math.exp(requested / (1 if half else 2)))


def test_dbitflip_with_one_bucket_is_unbiased_with_its_variance():
    """Seeded simulation of d = 1: the estimates average to the bucket frequencies (z-test
    with the exact variance) and spread as the exact variance says (chi-square band)."""
    mech = DBitFlipPM(6, 1.0, b=3, d=1)
    users = np.repeat(np.arange(6), [400, 300, 100, 100, 50, 50])
    truth = np.bincount(mech.bucket(users), minlength=3) / users.size
    reps = 100
    reports = mech.privatize(np.tile(users, reps), rng=4).reshape(reps, users.size, 2)
    estimates = np.array([mech.estimate(r) for r in reports])
    var = mech.variance(users.size, truth, convention="fixed")
    z = (estimates.mean(axis=0) - truth) / np.sqrt(var / reps)
    assert np.all(np.abs(z) < 4.5), z
    ratio = estimates.var(axis=0, ddof=1) / var
    low, high = stats.chi2.ppf([1e-4, 1 - 1e-4], reps - 1) / (reps - 1)
    assert np.all((ratio > low) & (ratio < high)), ratio


def test_dbitflip_one_report_channel_and_pair():
    mech = DBitFlipPM(6, 1.0, b=3, d=2)
    channel = mech.to_channel()
    assert channel.epsilon == pytest.approx(mech.epsilon, rel=1e-12)
    assert mech.privacy_channel().tv == pytest.approx(channel.tv, abs=1e-12)
    for level in (0.0, 0.3, 0.7):
        assert float(mech.privacy_channel().delta(level)) == pytest.approx(
            float(channel.delta(level)), abs=1e-12
        )


# ----------------------------------------------------------------------------- sampler vs law
def _simulate(mech, history, n, seed, through_json=False, vectorised=False):
    rng = np.random.default_rng(seed)
    if vectorised:  # every round at once (privatize_history)
        reports = mech.privatize_history(np.tile(np.array(history), (n, 1)), rng=rng)
        return [reports[:, t] for t in range(len(history))]
    memos = None
    reports = []
    for value in history:
        out, memos = mech.privatize_round(np.full(n, value), memos, rng=rng)
        if through_json:
            memos = [Memo.from_json(m.to_json()) for m in memos]
        reports.append(out)
    return reports


def _encode(mech, reports):
    """Each client's reports across rounds as one outcome index (oracle's order)."""
    k = mech.k
    if isinstance(mech, LGRR):
        codes = [r.astype(np.int64) for r in reports]
        size = k
    else:
        codes = []
        for r in reports:
            bits = np.unpackbits(r, axis=1, count=k).astype(np.int64)
            codes.append(bits @ (1 << np.arange(k - 1, -1, -1)))
        size = 2**k
    index = np.zeros(reports[0].shape[0], dtype=np.int64)
    for c in codes:
        index = index * size + c
    return index, size ** len(reports)


@pytest.mark.parametrize(
    "mech",
    [LGRR(3, 0.5, 1.5), LOSUE(3, 1.0, 2.0), LOUE(3, 0.7, 2.5), RAPPOR(3, 0.5, 0.25, 0.75)],
    ids=repr,
)
@pytest.mark.parametrize("history", [(0, 0), (1, 2), (0, 1, 0)])
@pytest.mark.parametrize("vectorised", [False, True], ids=["rounds", "history"])
def test_sampler_matches_the_history_law(mech, history, vectorised):
    if len(history) == 3 and not isinstance(mech, LGRR):
        history = history[:2]
    first, second = _rounds(mech)
    law = history_law(first, second, history)
    n = 20_000
    through_json = history == (1, 2)  # the memo stored as JSON between rounds
    reports = _simulate(
        mech, history, n, seed=sum(history) + 7, through_json=through_json, vectorised=vectorised
    )
    index, size = _encode(mech, reports)
    observed = np.bincount(index, minlength=size)
    expected = law * n
    keep = expected > 5
    rest_obs, rest_exp = observed[~keep].sum(), expected[~keep].sum()
    obs = np.append(observed[keep], rest_obs)
    exp = np.append(expected[keep], rest_exp)
    if rest_exp == 0:
        obs, exp = obs[:-1], exp[:-1]
    assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-4


@pytest.mark.parametrize("vectorised", [False, True], ids=["rounds", "history"])
def test_dbitflip_sampler_matches_its_law(vectorised):
    mech = DBitFlipPM(4, 1.0, b=4, d=2)
    history = (0, 0, 3)
    laws = _dbitflip_history_laws(mech, history)
    n = 20_000
    reports = _simulate(mech, history, n, seed=5, vectorised=vectorised)
    subsets = list(laws)
    for r in reports[1:]:
        np.testing.assert_array_equal(r[:, :2], reports[0][:, :2])  # sampled once
    rows = np.column_stack([reports[0][:, :2]] + [r[:, 2:] for r in reports])
    unique, counts = np.unique(rows, axis=0, return_counts=True)
    observed = {
        (
            tuple(u[:2].tolist()),
            tuple(tuple(u[2 + 2 * t : 4 + 2 * t].tolist()) for t in range(3)),
        ): c
        for u, c in zip(unique, counts)
    }
    outcomes = [(s, z) for s in subsets for z in laws[s][1]]
    expected = np.array([laws[s][1][z] / len(subsets) * n for s, z in outcomes])
    obs = np.array([observed.get(o, 0) for o in outcomes])
    assert obs.sum() == n  # nothing outside the law's support
    assert stats.chisquare(obs, expected).pvalue > 1e-4


# ----------------------------------------------------------------------------- estimators
ESTIMATED = [
    DBitFlipPM(6, 1.0, b=3, d=1),
    LGRR(6, 1.0, 2.5),
    LOSUE(6, 1.0, 2.5),
    LOUE(6, 1.0, 2.5),
    RAPPOR(6, f=0.4, p=0.3, q=0.8),
    DBitFlipPM(6, 1.5, b=6, d=2),
    DBitFlipPM(12, 1.5, b=4, d=3),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "n",
    # the z-test and the chi-square band hold at any n (the exact variance scales them);
    # a larger n resolves a smaller bias: 4,000 users in the long run
    [1000, pytest.param(4000, marks=pytest.mark.long)],
)
@pytest.mark.parametrize("mech", ESTIMATED, ids=repr)
def test_estimates_are_unbiased_in_every_round(mech, n):
    """Seeded simulation: clients change value between rounds; in each round the mean of the
    estimates over repetitions is the true frequency (z-test with the exact variance), and
    the spread of the estimates is the exact variance (chi-square band)."""
    reps = 40
    cells = getattr(mech, "b", mech.k)
    rng = np.random.default_rng(1)
    day1 = rng.choice(mech.k, size=n, p=np.arange(1, mech.k + 1) / (mech.k * (mech.k + 1) / 2))
    day2 = np.where(rng.random(n) < 0.3, rng.integers(0, mech.k, n), day1)
    truth = [np.bincount(day * cells // mech.k, minlength=cells) / n for day in (day1, day2, day1)]
    estimates = np.zeros((reps, 3, cells))
    for r in range(reps):
        memos = None
        for t, day in enumerate((day1, day2, day1)):
            reports, memos = mech.privatize_round(day, memos, rng=rng)
            estimates[r, t] = mech.estimate(reports)
    for t in range(3):
        var = mech.variance(n, truth[t], convention="fixed")
        z = (estimates[:, t].mean(axis=0) - truth[t]) / np.sqrt(var / reps)
        assert np.all(np.abs(z) < 4.5), z
        ratio = estimates[:, t].var(axis=0, ddof=1) / var
        low, high = stats.chi2.ppf([1e-4, 1 - 1e-4], reps - 1) / (reps - 1)
        assert np.all((ratio > low) & (ratio < high)), ratio


@pytest.mark.parametrize("d", [3, 1])
def test_dbitflip_variance_formula_against_its_per_client_law(d):
    mech = DBitFlipPM(8, 1.0, b=8, d=d)
    w = mech.sampler()
    P, Q = _prob(w["own"]), _prob(w["other"])
    scale = (mech.b / mech.d) / (P - Q)
    # Y = scale * 1[sampled] * (bit - Q): exact second moments by enumeration
    sampled = mech.d / mech.b
    own = sampled * (P * (scale * (1 - Q)) ** 2 + (1 - P) * (scale * Q) ** 2)
    other = sampled * (Q * (scale * (1 - Q)) ** 2 + (1 - Q) * (scale * Q) ** 2)
    f, n = 0.3, 1000
    assert mech.variance(n, f) == pytest.approx((f * (own - 1) + (1 - f) * other) / n, rel=1e-12)
    assert mech.variance(n, f, "iid") == pytest.approx(mech.variance(n, f) + f * (1 - f) / n)
    # small-frequency approximation of the DKY17 analysis: (b/(n d)) e^{eps/2}/(e^{eps/2}-1)^2
    e = math.exp(0.5)
    assert DBitFlipPM(16, 1.0, b=16, d=4).variance(10_000) == pytest.approx(1.5671e-3, rel=1e-4)
    assert (16 / (10_000 * 4)) * e / (e - 1) ** 2 == pytest.approx(1.5671e-3, rel=1e-4)


def test_lgrr_estimate_and_variance_worked_values():
    # f = (N_v - n q1 (p2 - q2) - n q2) / (n (p1 - q1)(p2 - q2)), Arcolezi et al. (2022) eq. (9)
    lgrr = LGRR(10, 1.0, 2.0)
    counts = np.zeros(10, dtype=np.int64)
    counts[0] = 1500
    from ldp.mechanisms import SupportCounts

    est = lgrr.estimate(SupportCounts(counts, 10_000, lgrr.key))
    assert est[0] == pytest.approx(0.44099, abs=1e-5)
    assert lgrr.variance(10_000, 0.0, "iid") == pytest.approx(3.6302e-4, rel=1e-4)
    # the paper's eq. (10) gives a negative "probability" for the eq. (13) parameters at
    # f = 0.3; g = q + f (p - q) (the proof of its Theorem 1) is a probability for every f
    k, a, b = 10, math.e, math.e**2
    p2 = (math.exp(3.0) - 1) / (-k * a + (k - 1) * b + a + a * b - 1)
    p1, f = b / (b + k - 1), 0.3
    q1, q2 = (1 - p1) / (k - 1), (1 - p2) / (k - 1)
    eq10 = f * (2 * p1 * p2 - 2 * p1 * q2 + 2 * q2 - 1) + p2 * q1 + q2 * (1 - q1)
    support = q1 * p2 + (1 - q1) * q2 + f * (p1 - q1) * (p2 - q2)
    assert eq10 == pytest.approx(-0.0995, abs=1e-4) and support == pytest.approx(0.1184, abs=1e-4)
    for f in (0.0, 0.3, 1.0):
        g = lgrr.q + f * (lgrr.p - lgrr.q)
        expected = g * (1 - g) / (10_000 * (lgrr.p - lgrr.q) ** 2)
        assert lgrr.variance(10_000, f, "iid") == pytest.approx(expected, rel=1e-12)


# ----------------------------------------------------------------------------- memo
def test_memo_round_trips_and_refuses_what_it_cannot_hold():
    mech = LOSUE(10, 1.0, 2.0)
    _, memos = mech.privatize_round(np.array([3, 4]), rng=0)
    memo = memos[0]
    assert Memo.from_json(memo.to_json()) == memo
    with pytest.raises(AttributeError):
        memo.entries = ()  # frozen
    for field in ("seed", "rng", "state"):
        doc = memo.to_dict() | {field: 1}
        import json

        with pytest.raises(ValueError, match="unknown field"):
            Memo.from_json(json.dumps(doc))
    with pytest.raises(ValueError, match="format"):
        Memo.from_json('{"format": "x", "mechanism": "m"}')
    with pytest.raises(ValueError, match="JSON"):
        Memo.from_json("not json")
    with pytest.raises(ValueError, match="distinct"):
        Memo("m", ((2, (1,)), (1, (0,))))
    assert "3" not in repr(memo) and "1 memoized response" in repr(memo)
    # a memo from another mechanism, or a tampered response, is refused
    other = LOSUE(10, 1.0, 2.5)
    with pytest.raises(ValueError, match=r"memos\[0\] was written by"):
        other.privatize_round(np.array([3]), [memo])
    bad = Memo(mech.key, ((3, (255, 255)),))  # pad bits beyond k = 10 set
    with pytest.raises(ValueError, match=r"memos\[0\] holds a response"):
        mech.privatize_round(np.array([3]), [bad])
    with pytest.raises(ValueError, match="one Memo per value"):
        mech.privatize_round(np.array([3, 4, 5]), memos)
    with pytest.raises(TypeError, match="memos"):
        mech.privatize_round(np.array([3]), "memo")


def test_history_memos_continue_with_rounds():
    rng = np.random.default_rng(3)
    for mech in (LGRR(5, 1.0, 2.0), LOSUE(5, 1.0, 2.0), DBitFlipPM(10, 1.0, b=5, d=2)):
        history = rng.integers(0, 5 if mech.k == 5 else 10, size=(50, 4))
        reports, memos = mech.privatize_history(history, rng=1, return_memos=True)
        assert reports.shape[:2] == (50, 4)
        for i in range(50):
            keys = [key for key, _ in memos[i].entries]
            if isinstance(mech, DBitFlipPM):  # patterns: 0 (no sampled bucket) or 1 .. d
                buckets = set((history[i] * 5 // 10).tolist())
                hits = {s.index(b) + 1 for s in [list(memos[i].sampled)] for b in buckets if b in s}
                assert set(keys) == hits | ({0} if buckets - set(memos[i].sampled) else set())
            else:
                assert keys == sorted(set(history[i].tolist()))
        # the memos are those of privatize_round: it continues from them
        out, again = mech.privatize_round(history[:, -1], memos, rng=2)
        assert again == memos and out.shape[0] == 50
    with pytest.raises(ValueError, match="2-D"):
        LGRR(3, 0.5, 1.0).privatize_history([0, 1, 2])


def test_memoization_reuses_the_permanent_response():
    for mech in (LGRR(50, 0.5, 3.0), LOUE(12, 0.5, 3.0), DBitFlipPM(12, 1.0, b=6, d=2)):
        values = np.arange(40) % mech.k
        _, memos = mech.privatize_round(values, rng=1)
        stored = [m.entries for m in memos]
        _, again = mech.privatize_round(values, memos, rng=2)
        assert [m.entries for m in again] == stored  # same value: nothing new drawn
        _, moved = mech.privatize_round((values + 1) % mech.k, again, rng=3)
        assert all(len(m.entries) >= len(s) for m, s in zip(moved, stored))
    # dBitFlipPM with an unchanged value sends the same report every round
    mech = DBitFlipPM(12, 1.0, b=6, d=2)
    values = np.arange(30) % 12
    first, memos = mech.privatize_round(values, rng=4)
    second, _ = mech.privatize_round(values, memos, rng=5)
    np.testing.assert_array_equal(first, second)
    # memos never reach the reports: reports are the codec's fields only
    assert first.shape == (30, 4)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("factory", "match"),
    [
        (lambda: LGRR(5, 2.0, 2.0), "epsilon must be < epsilon_permanent"),
        (lambda: LOSUE(5, 3.0, 2.0), "epsilon must be < epsilon_permanent"),
        (lambda: LOUE(5, 1.9, 2.0), "cannot reach"),
        (lambda: RAPPOR(5, f=1.0, p=0.5, q=0.75), "f must lie in"),
        (lambda: RAPPOR(5, f=0.5, p=0.75, q=0.5), "p < q"),
        (lambda: DBitFlipPM(4, 1.0, b=5), "b must be <= k"),
        (lambda: DBitFlipPM(4, 1.0, b=4, d=5), "d must be <= b"),
        (lambda: LGRR(1, 0.5, 1.0), "k"),
    ],
)
def test_bad_parameters_are_refused(factory, match):
    with pytest.raises((ValueError, TypeError), match=match):
        factory()


def test_bad_rounds_are_refused():
    lgrr = LGRR(4, 0.5, 1.0)
    for bad in (0, -1):
        with pytest.raises(ValueError, match="rounds"):
            lgrr.epsilon_repeated(bad)
    with pytest.raises(ValueError, match="changes"):
        lgrr.epsilon_rounds(3, -1)
    with pytest.raises(TypeError, match="rounds"):
        lgrr.epsilon_rounds(2.5)


def test_registry_names_and_rebuild():
    for name in ("rappor", "l-grr", "l-osue", "l-oue", "dbitflip-pm"):
        from ldp.mechanisms.registry import example

        mech = example(name)
        assert mechanism_from_spec(name, mech.params) == mech


@pytest.mark.parametrize("mech", ESTIMATED, ids=repr)
def test_estimates_are_unbiased_after_a_change_quick(mech):
    """One seeded run of two rounds (a third of the clients change value): every estimate
    lies within 4.5 standard deviations (exact variance) of the true frequency."""
    n = 20_000
    cells = getattr(mech, "b", mech.k)
    rng = np.random.default_rng(3)
    day1 = rng.integers(0, mech.k, n) * (rng.random(n) < 0.6)
    day2 = np.where(rng.random(n) < 0.33, rng.integers(0, mech.k, n), day1)
    memos = None
    for day in (day1, day2):
        reports, memos = mech.privatize_round(day, memos, rng=rng)
        truth = np.bincount(day * cells // mech.k, minlength=cells) / n
        z = (mech.estimate(reports) - truth) / np.sqrt(mech.variance(n, truth))
        assert np.all(np.abs(z) < 4.5), z


# ----------------------------------------------------------------------------- rounding
def _exact(weights):
    from fractions import Fraction

    w = [Fraction(v) for v in weights]
    return w[0] / sum(w)


@pytest.mark.parametrize(
    ("mech", "rounds"),
    [
        (LGRR(3, 1e-5, 2e-5), (1, 7, 1000)),
        (LGRR(1024, 0.2, 4.0), (1, 5, 10**6)),
        (LOSUE(5, 1e-5, 3e-5), (1, 3, 10**5)),
        (LOUE(4, 0.3, 5.0), (1, 2, 50, 10**6)),
        (RAPPOR(4, f=0.02, p=0.49, q=0.51), (1, 10, 10**4)),
    ],
    ids=repr,
)
def test_repeated_reports_are_upper_bounds_in_high_precision(mech, rounds):
    """The closed forms evaluated at 60 digits from the exact rationals of the sampler
    weights: the library's value is never below them, and within 1e-9."""
    import mpmath

    mpmath.mp.dps = 60
    w = mech.sampler()
    mp = lambda v: mpmath.mpf(v.numerator) / v.denominator  # noqa: E731
    for t in rounds:
        if isinstance(mech, LGRR):
            p1, p2 = _exact(w["permanent"]), _exact(w["instant"])
            q1, q2 = (1 - p1) / (mech.k - 1), (1 - p2) / (mech.k - 1)
            ratio = mp(p2 / q2) ** t
            exact = mpmath.log((mp(p1) * ratio + mp(1 - p1)) / (mp(q1) * ratio + mp(1 - q1)))
        else:
            p1, q1 = _exact(w["own"]), _exact(w["other"])
            p2, q2 = _exact(w["one"]), _exact(w["zero"])
            one, zero = mp(p2 / q2) ** t, mp((1 - p2) / (1 - q2)) ** t
            exact = mpmath.log(
                (mp(p1) * one + mp(1 - p1)) / (mp(q1) * one + mp(1 - q1))
            ) + mpmath.log((mp(q1) * zero + mp(1 - q1)) / (mp(p1) * zero + mp(1 - p1)))
        value = mech.epsilon_repeated(t)
        assert value >= exact, (t, value, exact)
        assert value - exact < 1e-9


# ----------------------------------------------------------------------------- profiles
def _delta(first, second, level):
    return float(np.maximum(first - math.exp(level) * second, 0.0).sum())


@pytest.mark.parametrize("mech", SMALL_GRR + SMALL_UNARY, ids=repr)
def test_repeated_channel_has_the_profile_of_the_enumerated_law(mech):
    """delta(eps) of t memoized reports of an unchanged value: the 2-row channel equals the
    worst pair of the enumerated t-round laws."""
    first, second = _rounds(mech)
    horizon = 3 if isinstance(mech, LGRR) or mech.k == 2 else 2
    for t in range(1, horizon + 1):
        laws = [history_law(first, second, (x,) * t) for x in range(mech.k)]
        channel = mech.repeated_channel(t)
        assert channel.epsilon == pytest.approx(mech.epsilon_repeated(t), rel=1e-9)
        assert channel.tv == pytest.approx(
            max(0.5 * np.abs(a - b).sum() for a in laws for b in laws), abs=1e-12
        )
        for level in (0.0, 0.2, 0.7, 1.5):
            brute = max(
                _delta(laws[x], laws[y], level)
                for x in range(mech.k)
                for y in range(mech.k)
                if x != y
            )
            assert float(channel.delta(level)) == pytest.approx(brute, abs=1e-12)


def test_repeated_channel_of_dbitflip_and_its_limits():
    mech = DBitFlipPM(6, 1.0, b=3, d=2)
    assert mech.repeated_channel(50).delta(0.3) == pytest.approx(mech.delta(0.3), abs=1e-15)
    big = LGRR(1000, 0.5, 2.0)
    with pytest.raises(ValueError, match="MAX_COUNT_VECTORS"):
        big.repeated_channel(5)
    with pytest.raises(ValueError, match="rounds"):
        big.repeated_channel(0)
    # a year of reports of one value, L-OSUE: the profile is capped by the permanent level
    year = LOSUE(64, 0.5, 2.0).repeated_channel(365)
    assert year.epsilon <= 2.0 + 1e-9

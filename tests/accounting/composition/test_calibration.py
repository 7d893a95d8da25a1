"""Calibration: the returned per-report epsilon meets the target when re-accounted, and
1e-3 (relative) more does not; values against an independent trinomial formula and the
shuffle bounds' own re-evaluation."""

import math

import numpy as np
import pytest
from scipy.special import gammaln

import ldp
from ldp.accounting import calibrate, compose, shuffle_amplification
from ldp.accounting.amplification.shuffle import clone_probability, shuffle_delta, shuffle_pld
from ldp.mechanisms import OUE


def krr_folds_delta(k, eps0, t, eps):
    """Exact delta(eps) of t reports of k-RR: the loss is eps0 (a - b) with
    (a, b, t - a - b) ~ Multinomial(t; p, q, (k - 2) q) under the first input."""
    e = math.exp(eps0)
    p, q = e / (e + k - 1), 1 / (e + k - 1)
    total = 0.0
    for a in range(t + 1):
        b = np.arange(t - a + 1)
        rest = t - a - b
        loss = (a - b) * eps0
        logw = gammaln(t + 1) - gammaln(a + 1) - gammaln(b + 1) - gammaln(rest + 1)
        logw = logw + a * math.log(p) + b * math.log(q)
        if k > 2:
            logw = logw + rest * math.log((k - 2) * q)
        else:
            logw = np.where(rest == 0, logw, -np.inf)
        mass = np.exp(logw)
        total += float(np.sum(np.where(loss > eps, mass * -np.expm1(eps - loss), 0.0)))
    return total


def test_independent_formula_matches_the_accountant():
    for k, eps0, t, eps in [(3, 1.0, 4, 1.5), (2, 0.5, 10, 2.0), (10, 0.5, 10, 2.0)]:
        assert compose(ldp.k_rr(k, eps0), t).delta(eps) == pytest.approx(
            krr_folds_delta(k, eps0, t, eps), rel=1e-9
        )
    # brute force over the 3^4 output sequences of the two worst-case inputs (numpy)
    assert krr_folds_delta(3, 1.0, 4, 1.5) == pytest.approx(0.3260424900, rel=1e-9)


@pytest.mark.parametrize("k", [2, 16])
@pytest.mark.parametrize("folds", [1, 10, 365])
def test_folds_meets_target_and_is_tight(k, folds):
    target_eps, target_delta = 2.0, 1e-6
    eps0 = calibrate(target_eps, target_delta, mechanism="k-rr", k=k, folds=folds)
    assert compose(ldp.k_rr(k, eps0), folds).delta(target_eps) <= target_delta
    assert krr_folds_delta(k, eps0, folds, target_eps) <= target_delta * (1 + 1e-9)
    more = eps0 * (1 + 1e-3)
    assert compose(ldp.k_rr(k, more), folds).delta(target_eps) > target_delta
    assert krr_folds_delta(k, more, folds, target_eps) > target_delta


def test_worked_values():
    # T = 10 k-RR, target (2, 1e-6): k = 2 gives 0.200040, k = 10 gives 0.287533, computed by
    # brentq on the trinomial sum of the T-fold privacy loss evaluated with mpmath
    assert calibrate(2.0, 1e-6, mechanism="rr", folds=10) == pytest.approx(0.200040, abs=2e-6)
    assert calibrate(2.0, 1e-6, k=10, folds=10) == pytest.approx(0.287533, abs=2e-6)  # as computed
    # one report, pure target: eps0 = target_epsilon exactly (up to the tolerance)
    assert calibrate(1.0, 0.0, k=4) == pytest.approx(1.0, rel=2e-6)
    assert calibrate(1.0, 0.0, k=4) <= 1.0


@pytest.mark.parametrize("k", [2, 16])
def test_shuffled_meets_target_and_is_tight(k):
    n, target_eps, target_delta = 10_000, 0.5, 1e-6
    eps0 = calibrate(target_eps, target_delta, k=k, n_shuffled=n)
    # the k-RR clone probability; a reference computation of the Feldman-McMillan-Talwar (2021)
    # clone reduction, not recomputed by an independent tool
    assert eps0 == pytest.approx(4.336437, abs=1e-5)
    mech = ldp.k_rr(k, eps0)
    e0 = mech.epsilon
    assert shuffle_delta(target_eps, e0, n, clone_probability(mech, e0)) <= target_delta
    assert shuffle_amplification(eps0, n, target_delta, mechanism=mech).epsilon <= target_eps
    more = ldp.k_rr(k, eps0 * (1 + 1e-3))
    e1 = more.epsilon
    assert shuffle_delta(target_eps, e1, n, clone_probability(more, e1)) > target_delta


def test_shuffled_large_alphabet_uses_the_blanket_where_it_is_tighter():
    from ldp.accounting.amplification.blanket import BLANKET_BOUNDS, blanket_delta

    n, k, target_eps, target_delta = 10_000, 100, 0.5, 1e-6

    def best(e0):
        clones = shuffle_delta(target_eps, e0, n, clone_probability(ldp.k_rr(k, e0), e0))
        blanket = min(blanket_delta(target_eps, e0, n, k=k, bound=b) for b in BLANKET_BOUNDS)
        return clones, blanket

    eps0 = calibrate(target_eps, target_delta, k=k, n_shuffled=n)
    clones, blanket = best(eps0)
    assert min(clones, blanket) <= target_delta < clones  # only the blanket meets it here
    assert min(best(eps0 * (1 + 1e-3))) > target_delta
    assert shuffle_amplification(eps0, n, target_delta, mechanism=ldp.k_rr(k, eps0)).epsilon <= (
        target_eps
    )
    assert eps0 > 4.336437  # the Feldman-McMillan-Talwar (2021) clone answer above


def test_shuffled_generic_mechanism_uses_the_generic_clones():
    eps0 = calibrate(0.5, 1e-6, mechanism=OUE(10, 1.0), n_shuffled=10_000)
    # the generic clone pair of Feldman-McMillan-Talwar (2021): a reference computation, checked
    # here by the two delta evaluations that bracket it
    assert eps0 == pytest.approx(3.702417, abs=1e-5)
    assert shuffle_delta(0.5, eps0, 10_000) <= 1e-6
    assert shuffle_delta(0.5, eps0 * (1 + 1e-3), 10_000) > 1e-6


def test_shuffled_rounds_meet_target_and_are_tight():
    n, t, target_eps, target_delta = 300, 4, 1.0, 1e-5
    eps0 = calibrate(target_eps, target_delta, k=4, folds=t, n_shuffled=n)
    p_c = clone_probability(ldp.k_rr(4, eps0), eps0)
    assert shuffle_pld(eps0, n, rounds=t, clone_probability=p_c).delta(target_eps) <= 1e-5
    r = shuffle_amplification(eps0, n, target_delta, mechanism=ldp.k_rr(4, eps0), rounds=t)
    assert r.epsilon <= target_eps
    more = eps0 * (1 + 1e-3)
    p_c = clone_probability(ldp.k_rr(4, more), more)
    assert shuffle_pld(more, n, rounds=t, clone_probability=p_c).delta(target_eps) > 1e-5
    # shuffling buys more per-report budget than reporting without a shuffler
    assert eps0 > calibrate(target_eps, target_delta, k=4, folds=t)


def test_mechanism_forms_agree():
    a = calibrate(1.0, 1e-6, k=8, folds=5)
    assert calibrate(1.0, 1e-6, mechanism=ldp.k_rr(8, 3.0), folds=5) == a
    assert calibrate(1.0, 1e-6, mechanism=ldp.mechanisms.GRR(8, 3.0), folds=5) == pytest.approx(
        a, rel=1e-5
    )
    assert calibrate(1.0, 1e-6, mechanism=lambda e: ldp.k_rr(8, e), folds=5) == a


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"target_epsilon": -1.0, "target_delta": 1e-6, "k": 2}, "target_epsilon"),
        ({"target_epsilon": 1.0, "target_delta": 1.0, "k": 2}, "target_delta"),
        ({"target_epsilon": 1.0, "target_delta": -0.1, "k": 2}, "target_delta"),
        ({"target_epsilon": 0.0, "target_delta": 0.0, "k": 2}, "unreachable"),
        ({"target_epsilon": 1.0, "target_delta": 1e-6, "k": 2, "folds": 0}, "folds"),
        ({"target_epsilon": 1.0, "target_delta": 1e-6, "k": 2, "n_shuffled": 0}, "n_shuffled"),
        ({"target_epsilon": 1.0, "target_delta": 1e-6}, "k is needed"),
        ({"target_epsilon": 1.0, "target_delta": 1e-6, "mechanism": "laplace"}, "mechanism"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        calibrate(**kwargs)


def test_non_parametric_channel_is_refused():
    ch = ldp.Channel([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.3, 0.4, 0.3]])
    with pytest.raises(TypeError, match="mechanism"):
        calibrate(1.0, 1e-6, mechanism=ch)


# ----------------------------------------------------------------- a target mu-GDP
def _mu_of_vertices(p_tail, q_tail):
    """max over tests of Phi^{-1}(P(S)) - Phi^{-1}(Q(S)) (Dong-Roth-Su (2022): G_mu is
    convex, so below a piecewise-linear curve iff below its vertices)."""
    from scipy.special import ndtri

    with np.errstate(divide="ignore", invalid="ignore"):
        values = ndtri(p_tail) - ndtri(q_tail)
    return float(np.nanmax(values))


def krr_folds_mu(k, eps0, t):
    """Exact GDP level of t reports of k-RR, independently of the library: the tests
    {a - b >= d} of the trinomial (a, b, t - a - b) (a reports of the first input, b of the
    second), tails summed in log space from the small end."""
    from scipy.special import logsumexp

    e = math.exp(eps0)
    lp, lq = eps0 - math.log(e + k - 1), -math.log(e + k - 1)
    lr = math.log(k - 2) + lq if k > 2 else -np.inf
    a, b = np.meshgrid(np.arange(t + 1), np.arange(t + 1), indexing="ij")
    ok = a + b <= t
    a, b = a[ok], b[ok]
    rest = t - a - b
    base = gammaln(t + 1) - gammaln(a + 1) - gammaln(b + 1) - gammaln(rest + 1)
    with np.errstate(invalid="ignore"):
        rest_term = np.where(rest > 0, rest * lr, 0.0)
    log_p = base + a * lp + b * lq + rest_term  # under the first input
    log_q = base + a * lq + b * lp + rest_term  # under the second
    d = a - b
    levels = np.arange(0, t + 1)  # tests {d >= level}, level >= 0 (the symmetric half)
    p_tail = np.array([np.exp(logsumexp(log_p[d >= s])) for s in levels])
    q_tail = np.array([np.exp(logsumexp(log_q[d >= s])) for s in levels])
    return _mu_of_vertices(p_tail, q_tail)


def test_independent_mu_formula():
    # one report of randomized response: mu = -2 Phi^{-1}(1 / (1 + e^eps))
    from scipy.special import ndtri

    assert krr_folds_mu(2, 1.0, 1) == pytest.approx(-2 * ndtri(1 / (1 + math.e)), rel=1e-12)
    for k, eps0, t in [(2, 1.0, 1), (4, 0.9, 1), (4, 0.9, 10), (3, 0.2, 365), (2, 0.01, 365)]:
        exact = krr_folds_mu(k, eps0, t)
        value = compose(ldp.k_rr(k, eps0), t).gdp_mu
        assert exact <= value <= exact * (1 + 1e-5) + 1e-5, (k, eps0, t)


def test_gdp_level_of_a_pure_composition_is_finite():
    # f(0) = 1 - delta(inf) = 1 exactly: the curve of one 4-RR report is GDP
    from ldp.accounting import get_mu_from_tradeoff

    curve = compose(ldp.k_rr(4, 0.9), 1).tradeoff
    assert curve(0.0) == 1.0
    mu = get_mu_from_tradeoff(curve)
    assert krr_folds_mu(4, 0.9, 1) <= mu <= krr_folds_mu(4, 0.9, 1) * (1 + 1e-9)
    # a long composition: the stored curve loses its corners, the tails do not
    assert math.isfinite(compose(ldp.k_rr(4, 0.9), 365).gdp_mu)


@pytest.mark.parametrize("k", [2, 4])
@pytest.mark.parametrize("folds", [1, 10, 365])
def test_target_mu_is_met_and_tight(k, folds):
    target = 1.0
    eps0 = calibrate(target_mu=target, k=k, folds=folds)
    assert compose(ldp.k_rr(k, eps0), folds, adaptive=True).gdp_mu <= target
    assert krr_folds_mu(k, eps0, folds) <= target
    more = eps0 * (1 + 1e-3)
    assert krr_folds_mu(k, more, folds) > target
    assert compose(ldp.k_rr(k, more), folds, adaptive=True).gdp_mu > target


def test_target_mu_of_one_report_is_the_rr_formula():
    # RR is mu-GDP with mu = -2 Phi^{-1}(1/(1 + e^eps)): eps = log(Phi(mu/2) / Phi(-mu/2))
    from scipy.special import ndtr

    eps0 = calibrate(target_mu=1.0, mechanism="rr")
    exact = math.log(ndtr(0.5) / ndtr(-0.5))
    assert exact * (1 - 1e-5) <= eps0 <= exact


def _pair_mu(p, q):
    """Exact GDP level of a finite pair: outcomes sorted by likelihood ratio, both ways."""
    order = np.argsort(-(np.log(p) - np.log(q)))
    p_tail, q_tail = np.cumsum(p[order]), np.cumsum(q[order])
    back = np.argsort(-(np.log(q) - np.log(p)))
    return max(
        _mu_of_vertices(p_tail, q_tail),
        _mu_of_vertices(np.cumsum(q[back]), np.cumsum(p[back])),
    )


def test_target_mu_with_shuffling_holds_for_the_shuffled_mechanism():
    from tests.accounting.amplification.test_shuffle import exact_shuffled_krr

    n, k, target = 12, 2, 1.0
    eps0 = calibrate(target_mu=target, k=k, n_shuffled=n)
    assert eps0 > calibrate(target_mu=target, k=k)  # the shuffler buys budget
    mech = ldp.k_rr(k, eps0)
    e0 = mech.epsilon
    p_c = clone_probability(mech, e0)
    from ldp.accounting.amplification.shuffle import clone_pair_pld

    assert clone_pair_pld(e0, n, p_c).gdp_mu <= target
    more = ldp.k_rr(k, eps0 * (1 + 1e-3))
    assert clone_pair_pld(more.epsilon, n, clone_probability(more, more.epsilon)).gdp_mu > target
    # the exact shuffled mechanism (every configuration of the others) meets the target
    for p, q in exact_shuffled_krr(k, eps0, n):
        keep = (p > 0) | (q > 0)
        assert _pair_mu(p[keep], q[keep]) <= target


def test_target_mu_for_shuffled_rounds_composes_as_gdp():
    from ldp.accounting.amplification.shuffle import clone_pair_pld

    n, t, target = 1000, 10, 1.0
    eps0 = calibrate(target_mu=target, k=4, n_shuffled=n, folds=t)
    one = calibrate(target_mu=target / math.sqrt(t), k=4, n_shuffled=n)
    assert eps0 == pytest.approx(one, rel=1e-5)
    mech = ldp.k_rr(4, eps0)
    mu_one = clone_pair_pld(eps0, n, clone_probability(mech, eps0)).gdp_mu
    assert math.sqrt(t) * mu_one <= target


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"target_mu": 1.0, "target_epsilon": 1.0, "k": 2}, "not both"),
        ({"target_mu": 0.0, "k": 2}, "target_mu"),
        ({"target_mu": float("nan"), "k": 2}, "target_mu"),
        ({"k": 2}, "target_epsilon and target_delta are needed"),
        ({"target_epsilon": 1.0, "k": 2}, "target_delta"),
    ],
)
def test_bad_target_mu(kwargs, match):
    with pytest.raises(ValueError, match=match):
        calibrate(**kwargs)

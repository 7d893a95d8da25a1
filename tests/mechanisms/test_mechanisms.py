"""Constructors of finite mechanisms: closed forms derived in the tests, reference
values for the mechanisms of Ghazi-Issa (2023)."""

import math

import numpy as np
import pytest

import ldp
from ldp import divergences as dv


@pytest.mark.parametrize("k", [2, 3, 7, 64])
@pytest.mark.parametrize("eps", [0.0, 0.1, 1.0, 4.0, 30.0])
def test_k_rr_closed_forms(k, eps):
    krr = ldp.k_rr(k, eps)
    big = math.exp(eps)
    assert krr.shape == (k, k)
    assert krr.matrix[0, 0] == pytest.approx(big / (big + k - 1), rel=1e-14)
    assert krr.matrix[0, 1] == pytest.approx(1 / (big + k - 1), rel=1e-14)
    assert krr.epsilon == pytest.approx(eps, abs=1e-12)
    assert krr.tv == pytest.approx((big - 1) / (big + k - 1), abs=1e-14)
    for gamma in (1.0, 1.5, 3.0):
        if math.log(gamma) <= eps:
            expected = max(big - gamma, 0.0) / (big + k - 1)
            assert krr.delta(math.log(gamma)) == pytest.approx(expected, abs=1e-14)


def test_k_rr_special_cases():
    assert ldp.k_rr(2, 1.3) == ldp.randomized_response(1.3)
    assert np.array_equal(ldp.k_rr(4, math.inf).matrix, np.eye(4))
    assert np.allclose(ldp.k_rr(4, 0.0).matrix, 0.25)
    assert ldp.k_rr(4, 0.0).epsilon == 0.0
    omega = 1 / (1 + math.exp(0.7))  # Asoodeh-Aliakbarpour-Calmon (2021), Example 1: BSC(omega)
    assert ldp.randomized_response(0.7).matrix[0, 1] == pytest.approx(omega)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((1, 1.0), ValueError, "k must be >= 2"),
        ((2.5, 1.0), TypeError, "k must be an integer"),
        ((True, 1.0), TypeError, "k must be an integer"),
        (("3", 1.0), TypeError, "k"),
        ((3, -1.0), ValueError, "epsilon must be >= 0"),
        ((3, math.nan), ValueError, "NaN"),
        ((3, "1"), TypeError, "epsilon"),
    ],
)
def test_k_rr_bad_input(args, error, match):
    with pytest.raises(error, match=match):
        ldp.k_rr(*args)


# ----------------------------------------------------------------- binary_erasure
@pytest.mark.parametrize(
    ("eps", "delta"), [(0.5, 0.0), (1.0, 0.0), (1.0, 0.05), (3.0, 1e-6), (2.0, 0.3)]
)
@pytest.mark.parametrize("fraction", [0.0, 0.3, 1.0])
def test_binary_erasure_privacy_is_its_parameters(eps, delta, fraction):
    top = delta + (1 - delta) * math.tanh(eps / 2)
    eta = delta + fraction * (top - delta)
    be = ldp.binary_erasure(eps, delta, eta)
    assert be.shape == ((2, 3) if delta == 0 else (2, 5))
    assert be.tv == pytest.approx(eta, abs=1e-14)
    assert be.delta(eps) == pytest.approx(delta, abs=1e-14)
    assert be.is_ldp(eps, delta)
    if delta > 0:
        assert be.epsilon == math.inf
    elif eta > 0:
        assert be.epsilon == pytest.approx(eps, abs=1e-12)


def test_binary_erasure_default_eta_is_rr_with_disclosure():
    eps, delta = 1.0, 0.1
    big = math.exp(eps)
    be = ldp.binary_erasure(eps, delta)
    assert be.tv == pytest.approx((big - 1 + 2 * delta) / (big + 1), abs=1e-14)
    # Asoodeh-Aliakbarpour-Calmon (2021), RR with disclosure:
    # (delta, (1-delta)E/(1+E), (1-delta)/(1+E), 0), erasure column empty
    row0 = [delta, (1 - delta) * big / (1 + big), (1 - delta) / (1 + big), 0.0]
    assert be.matrix[0, 2] == 0.0 and be.matrix[1, 2] == 0.0
    assert np.delete(be.matrix, 2, axis=1)[0] == pytest.approx(row0, abs=1e-15)
    assert np.delete(be.matrix, 2, axis=1)[1] == pytest.approx(row0[::-1], abs=1e-15)
    assert ldp.binary_erasure(2.0) == ldp.binary_erasure(2.0, 0.0, math.tanh(1.0))
    assert np.delete(ldp.binary_erasure(2.0).matrix, 1, axis=1) == pytest.approx(
        ldp.randomized_response(2.0).matrix
    )


def test_binary_erasure_edges():
    assert np.allclose(ldp.binary_erasure(0.0).matrix, [[0, 1, 0], [0, 1, 0]])
    assert ldp.binary_erasure(0.0, 0.2).tv == pytest.approx(0.2)
    assert ldp.binary_erasure(math.inf, 0.0, 0.4).tv == pytest.approx(0.4)
    full = ldp.binary_erasure(1.0, 1.0)
    assert full.tv == 1.0 and full.delta(1.0) == 1.0
    # Ghazi-Issa (2023), Corollary 1 and Remark 1
    assert ldp.eta_max(1.0, 0.05) == pytest.approx(0.4890112994, abs=1e-10)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(epsilon=1.0, delta=0.1, eta=0.05), "eta must lie in"),
        (dict(epsilon=1.0, delta=0.0, eta=0.5), "eta must lie in"),
        (dict(epsilon=1.0, delta=1.5), "delta must be <= 1"),
        (dict(epsilon=1.0, delta=-0.1), "delta must be >= 0"),
        (dict(epsilon=-1.0), "epsilon must be >= 0"),
        (dict(epsilon=1.0, eta=math.nan), "eta must not be NaN"),
    ],
)
def test_binary_erasure_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ldp.binary_erasure(**kwargs)


def test_eta_at_its_maximum_after_rounding_is_accepted():
    eps, delta = 1.0, 0.05
    recomputed = (math.exp(eps) - 1 + 2 * delta) / (math.exp(eps) + 1)
    assert ldp.binary_erasure(eps, delta, recomputed).tv == pytest.approx(recomputed)


# ----------------------------------------------------------------- Q^(be)
# Ghazi-Issa (2023), Theorem 4: divergences between the rows of Q*_{eps,eta}
TABLE_K = [
    (1.0, 0.3, 0.3, 0.705120716186281, 0.146951197442225),
    (0.5, 0.1, 0.05, 0.104219061098749, 0.0248706003543192),
    (2.0, 0.7, 1.4, 5.07760457098583, 0.646964020164014),
    (2.0, 0.2, 0.4, 1.45074416313881, 0.184846862904004),
]


@pytest.mark.parametrize(("eps", "eta", "kl", "chi2", "hel"), TABLE_K)
def test_dominating_ldp_pair_attains_the_max_f_divergences(eps, eta, kl, chi2, hel):
    q = ldp.binary_mechanism_with_erasure([1.0, 0.0], [0.0, 1.0], eps, eta)
    p0, p1 = q.matrix
    assert dv.tv(p0, p1) == pytest.approx(eta, abs=1e-13)
    assert dv.kl(p0, p1) == pytest.approx(kl, rel=1e-12)  # = eps * eta (Thm 4)
    assert dv.chi2(p0, p1) == pytest.approx(chi2, rel=1e-12)
    assert dv.hellinger(p0, p1) == pytest.approx(hel, rel=1e-12)
    assert q.epsilon == pytest.approx(eps, abs=1e-12)


def test_binary_mechanism_with_erasure_attains_prop2():
    rng = np.random.default_rng(5)
    for _ in range(20):
        p0, p1 = rng.dirichlet(np.ones(6), size=2)
        eps = rng.uniform(0.1, 4)
        eta = rng.uniform(0, math.tanh(eps / 2))
        q = ldp.binary_mechanism_with_erasure(p0, p1, eps, eta)
        assert q.epsilon <= eps + 1e-12
        assert q.tv <= eta + 1e-14
        out0, out1 = q.output_distribution(p0), q.output_distribution(p1)
        # Ghazi-Issa (2023), Proposition 2: output TV is eta * TV(p0, p1)
        assert dv.tv(out0, out1) == pytest.approx(eta * dv.tv(p0, p1), abs=1e-13)
        # Ghazi-Issa (2023), eq. (28) rows, chosen by the bit 1[p1(x) > p0(x)] (eq. 31)
        big = math.exp(eps)
        up, down = eta * big / (big - 1), eta / (big - 1)
        star0 = np.array([up, down, 1 - up - down])
        star1 = star0[[1, 0, 2]]
        for x in range(6):
            assert q.matrix[x] == pytest.approx(star1 if p1[x] > p0[x] else star0, abs=1e-14)


def test_binary_mechanism_with_erasure_edges_and_errors():
    zero = ldp.binary_mechanism_with_erasure([0.5, 0.5], [0.2, 0.8], 0.0, 0.0)
    assert np.allclose(zero.matrix, [[0, 0, 1], [0, 0, 1]])
    with pytest.raises(ValueError, match="eta must lie in"):
        ldp.binary_mechanism_with_erasure([0.5, 0.5], [0.2, 0.8], 1.0, 0.5)
    with pytest.raises(ValueError, match="same length"):
        ldp.binary_mechanism_with_erasure([0.5, 0.5], [0.2, 0.3, 0.5], 1.0, 0.1)
    with pytest.raises(ValueError, match="p1 must sum to 1"):
        ldp.binary_mechanism_with_erasure([0.5, 0.5], [0.2, 0.3], 1.0, 0.1)
    with pytest.raises(ValueError, match="p0 must be 1-dimensional"):
        ldp.binary_mechanism_with_erasure([[0.5, 0.5]], [0.2, 0.8], 1.0, 0.1)

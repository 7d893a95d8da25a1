"""Tests of ldp.contraction: exact coefficients, closed forms and theorem bounds.

Expected values come from three independent places: reference tables computed with separate
scripts from the formulas of Asoodeh-Aliakbarpour-Calmon (2021) and Ghazi-Issa (2023), direct
numerical computations written here without the module's code (SVD of the normalised
channel over the whole simplex, random ratio searches, subset enumeration of the LDP
definition), and the closed forms checked against the channels they describe.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from ldp import Channel, binary_erasure, binary_mechanism_with_erasure, k_rr, randomized_response
from ldp import divergences as dv
from ldp.contraction import (
    BoundCandidate,
    ContractionBound,
    ContractionCoefficient,
    best_bound,
    chi2_output_bound,
    coefficient,
    erase,
    k_rr_coefficient,
    max_f_divergence,
    max_kl_contraction,
    max_output_tv,
    phi,
    rr_coefficient,
    worst_case_hockey_stick,
    worst_case_tv,
)
from tests.strategies import random_channel_matrix, stochastic_matrices

LN2, LN3 = math.log(2.0), math.log(3.0)


def th(eps):
    return math.tanh(eps / 2.0)


# ---------------------------------------------------------------- independent references
def sigma2_squared(p, matrix):
    """Squared second singular value of diag(sqrt p) K diag(pK)^(-1/2), by SVD."""
    p = np.asarray(p, dtype=float)
    out = p @ matrix
    cols = out > 0
    b = np.sqrt(p)[:, None] * matrix[:, cols] / np.sqrt(out[cols])[None, :]
    s = np.linalg.svd(b, compute_uv=False)
    return float(s[1] ** 2) if s.size > 1 else 0.0


def simplex_search(matrix, rng, starts=6):
    """Multi-start Nelder-Mead of sigma_2^2 over the whole input simplex (softmax)."""
    k = matrix.shape[0]

    def objective(z):
        w = np.exp(z - z.max())
        return -sigma2_squared(w / w.sum(), matrix)

    best = 0.0
    for _ in range(starts):
        res = minimize(
            objective,
            rng.normal(scale=2.0, size=k),
            method="Nelder-Mead",
            options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 3000},
        )
        best = max(best, -res.fun)
    return best


def subset_delta(matrix, eps):
    """max over ordered pairs and output subsets A of K(A|x) - e^eps K(A|x') (Definition 1)."""
    m = matrix.shape[1]
    subsets = np.array(list(itertools.product([0.0, 1.0], repeat=m)))
    mass = matrix @ subsets.T  # (k, 2^m)
    diff = mass[:, None, :] - math.exp(eps) * mass[None, :, :]
    return max(0.0, float(diff.max()))


def random_pairs(rng, k, n, sparse=True):
    """n random pairs (P, Q) of input distributions, some with small supports."""
    p = rng.dirichlet(np.full(k, 0.5), size=n)
    q = rng.dirichlet(np.full(k, 0.5), size=n)
    if sparse:
        a, b = rng.integers(k, size=n), rng.integers(k, size=n)
        w = rng.random(n)[:, None]
        p[: n // 4] = (
            np.eye(k)[a[: n // 4]] * w[: n // 4] + (1 - w[: n // 4]) * np.eye(k)[b[: n // 4]]
        )
    return p, q


# ------------------------------- reference values, Asoodeh-Aliakbarpour-Calmon (2021), Lemma 1
@pytest.mark.parametrize(
    ("eps", "delta", "phi_value", "tight_tv"),
    [
        (0.0, 0.0, 0.0, 0.0),
        (0.0, 0.1, 0.1, 0.1),
        (LN2, 0.0, 0.5, 1 / 3),
        (LN2, 0.5, 0.75, 2 / 3),
        (1.0, 0.0, 0.6321205588, 0.4621171573),
        (1.0, 1e-4, 0.6321573468, 0.4621709455),
        (1.0, 0.05, 0.6505145309, 0.4890112994),
        (LN3, 0.0, 2 / 3, 0.5),
        (LN3, 0.1, 0.7, 0.55),
        (2.0, 1e-5, 0.8646660701, 0.7615965400),
        (1.0, 1.0, 1.0, 1.0),
    ],
)
def test_phi_and_tight_tv_oracles(eps, delta, phi_value, tight_tv):
    assert phi(eps, delta) == pytest.approx(phi_value, abs=1e-10)
    assert worst_case_tv(eps, delta) == pytest.approx(tight_tv, abs=1e-10)
    # the tight TV value is attained by RR with delta-disclosure (a channel, not a formula)
    assert coefficient(binary_erasure(eps, delta), "tv").value == pytest.approx(tight_tv, abs=1e-10)
    assert worst_case_tv(eps, delta) <= phi(eps, delta) + 1e-15


@pytest.mark.parametrize(
    ("eps", "delta", "n", "expected"),
    [
        (LN2, 0.0, 2, 0.75),
        (LN2, 0.0, 3, 0.875),
        (LN2, 0.0, 10, 0.9990234375),
        (1.0, 0.0, 2, 0.8646647168),
        (1.0, 0.0, 10, 0.9999546001),
        (0.0, 0.1, 2, 0.19),
        (0.0, 0.1, 10, 0.6513215599),
        (5.0, 0.0, 1, 0.9932620530),
    ],
)
def test_phi_n_oracles(eps, delta, n, expected):
    assert phi(eps, delta, n) == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize(
    ("eps", "tv_value", "kl_value"),
    [
        (0.5, 0.244919, 0.059985),
        (1.0, 0.462117, 0.213552),
        (2.0, 0.761594, 0.580026),
        (3.0, 0.905148, 0.819293),
        (LN3, 0.5, 0.25),
    ],
)
def test_rr_contraction_reference_values(eps, tv_value, kl_value):
    rr = randomized_response(eps)
    for kind in ("kl", "chi2", "hellinger"):
        assert rr.contraction(kind).value == pytest.approx(kl_value, abs=1e-6)
        assert rr_coefficient(kind, eps) == pytest.approx(kl_value, abs=1e-6)
    assert rr.contraction("tv").value == pytest.approx(tv_value, abs=1e-6)
    assert rr_coefficient("tv", eps) == pytest.approx(tv_value, abs=1e-6)


@pytest.mark.parametrize(
    ("eps", "gamma", "expected"), [(LN3, 2.0, 0.25), (0.5, 1.5, 0.056148), (1.0, 1.5, 0.327646)]
)
def test_rr_hockey_stick_oracles(eps, gamma, expected):
    assert rr_coefficient("hockey_stick", eps, gamma) == pytest.approx(expected, abs=1e-6)
    value = randomized_response(eps).contraction("hockey_stick", gamma=gamma).value
    assert value == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("k", "eps", "tv_value", "chi2_value"),
    [
        (3, 0.5, 0.177794, 0.043545),
        (3, 1.0, 0.364175, 0.168292),
        (3, 3.0, 0.864164, 0.782197),
        (4, 1.0, None, 0.138861),
        (6, 1.0, None, 0.102879),
        (10, 1.0, None, 0.067761),
        (10, 3.0, None, 0.593946),
    ],
)
def test_k_rr_contraction_reference_values(k, eps, tv_value, chi2_value):
    channel = k_rr(k, eps)
    assert channel.contraction("chi2").value == pytest.approx(chi2_value, abs=1e-6)
    assert k_rr_coefficient("chi2", k, eps) == pytest.approx(chi2_value, abs=1e-6)
    if tv_value is not None:
        assert channel.contraction("tv").value == pytest.approx(tv_value, abs=1e-6)
    # larger than lambda^2 for k >= 3
    assert chi2_value > k_rr_coefficient("tv", k, eps) ** 2


def test_rr_with_disclosure_reference_values():
    chan = binary_erasure(1.0, 0.1)  # RR with delta-disclosure
    assert chan.contraction("hockey_stick", gamma=math.e).value == pytest.approx(0.1, abs=1e-12)
    # A reference table we were given prints eta_TV = 0.569694 for (eps, delta) = (1, 0.1). That is
    # delta + (1 - delta) tanh(1/2) at delta = 0.2; at delta = 0.1 the TV of the two rows,
    # computed directly, is 0.515905 (= (e - 1 + 0.2) / (e + 1)). The library follows the
    # channel: that row is a slip.
    rows = chan.matrix
    assert chan.contraction("tv").value == pytest.approx(dv.tv(rows[0], rows[1]), abs=1e-15)
    assert chan.contraction("tv").value == pytest.approx(0.515905, abs=1e-6)
    assert binary_erasure(1.0, 0.2).contraction("tv").value == pytest.approx(0.569694, abs=1e-6)
    assert chan.contraction("chi2").value == pytest.approx(0.292197, abs=1e-6)
    assert phi(1.0, 0.1) == pytest.approx(0.668909, abs=1e-6)
    assert binary_erasure(2.0, 0.5).contraction("tv").value == pytest.approx(0.880797, abs=1e-6)
    assert chan.contraction("hockey_stick", gamma=1.5).value == pytest.approx(0.394882, abs=1e-6)
    assert worst_case_hockey_stick(1.0, 0.1, 1.5) == pytest.approx(0.394882, abs=1e-6)
    other = binary_erasure(2.0, 0.05).contraction("hockey_stick", gamma=3.0).value
    assert other == pytest.approx(0.547029, abs=1e-6)
    assert worst_case_hockey_stick(2.0, 0.05, 3.0) == pytest.approx(0.547029, abs=1e-6)


# ------------------------------- Ghazi-Issa (2023), Theorems 4 and 5, eq. (36): reference values
TABLE_K = [
    # eps, eta, TV, KL, chi2, squared Hellinger, eta * th(eps)
    (1.0, 0.3, 0.3, 0.3, 0.705120716186281, 0.146951197442225, 0.138635147178003),
    (0.5, 0.1, 0.1, 0.05, 0.104219061098749, 0.0248706003543192, 0.0244918662403709),
    (2.0, 0.7, 0.7, 1.4, 5.07760457098583, 0.646964020164014, 0.533115909169035),
    (2.0, 0.2, 0.2, 0.4, 1.45074416313881, 0.184846862904004, 0.152318831191153),
]


@pytest.mark.parametrize(("eps", "eta", "tv_v", "kl_v", "chi2_v", "hel_v", "thm5"), TABLE_K)
def test_max_f_divergences_of_the_dominating_channel(eps, eta, tv_v, kl_v, chi2_v, hel_v, thm5):
    assert max_f_divergence(eps, eta, "tv") == pytest.approx(tv_v, abs=1e-12)
    assert max_f_divergence(eps, eta, "kl") == pytest.approx(kl_v, abs=1e-12)
    assert max_f_divergence(eps, eta, "chi2") == pytest.approx(chi2_v, abs=1e-12)
    assert max_f_divergence(eps, eta, "hellinger") == pytest.approx(hel_v, abs=1e-12)
    assert max_kl_contraction(eps, eta) == pytest.approx(thm5, abs=1e-12)
    # the generic Theorem 4 formula with the generators themselves
    generators = {
        "kl": lambda t: t * np.log(t),
        "chi2": lambda t: (t - 1.0) ** 2,
        "hellinger": lambda t: (np.sqrt(t) - 1.0) ** 2,
        "tv": lambda t: 0.5 * np.abs(t - 1.0),
    }
    for name, expected in (("kl", kl_v), ("chi2", chi2_v), ("hellinger", hel_v), ("tv", tv_v)):
        assert max_f_divergence(eps, eta, generators[name]) == pytest.approx(expected, rel=1e-9)
    # attained by the rows of the dominating channel Q*_{eps, eta}
    q = binary_erasure(eps, eta=eta).matrix
    assert dv.tv(q[0], q[1]) == pytest.approx(tv_v, abs=1e-12)
    assert dv.kl(q[0], q[1]) == pytest.approx(kl_v, abs=1e-12)
    assert dv.chi2(q[0], q[1]) == pytest.approx(chi2_v, abs=1e-12)
    assert dv.hellinger(q[0], q[1]) == pytest.approx(hel_v, abs=1e-12)
    # Theorem 5: the KL coefficient of Q*_{eps, eta} is eta * tanh(eps / 2)
    assert coefficient(q, "kl").value == pytest.approx(thm5, abs=1e-12)


@pytest.mark.parametrize(
    ("m", "eps", "eta_rr", "bound36"),
    [
        (2, 0.5, 0.244919, 0.059985),
        (3, 0.5, 0.177794, 0.043545),
        (3, 1.0, 0.364175, 0.168292),
        (3, 2.0, 0.680479, 0.518249),
        (4, 0.5, 0.139548, 0.034178),
        (4, 1.0, 0.300489, 0.138861),
        (4, 2.0, 0.614979, 0.468365),
    ],
)
def test_k_rr_tv_and_kl_coefficient_match_eq36(m, eps, eta_rr, bound36):
    channel = k_rr(m, eps)
    assert channel.tv == pytest.approx(eta_rr, abs=1e-6)
    assert channel.contraction("kl").value == pytest.approx(bound36, abs=1e-6)
    assert channel.contraction("chi2").value == pytest.approx(bound36, abs=1e-6)
    # (36) is eta_RR * tanh(eps / 2), Theorem 5 applied to k-RR
    assert max_kl_contraction(eps, channel.tv) == pytest.approx(bound36, abs=1e-6)


def test_max_f_divergence_hockey_stick_preset():
    for eps, eta, gamma in [(1.0, 0.3, 1.5), (2.0, 0.5, 1.0), (2.0, 0.5, 9.0)]:
        rows = binary_erasure(eps, eta=eta).matrix
        expected = dv.hockey_stick(rows[0], rows[1], gamma)
        value = max_f_divergence(eps, eta, "hockey_stick", gamma=gamma)
        assert value == pytest.approx(expected, abs=1e-12)
    assert max_f_divergence(math.inf, 0.4, "hockey_stick", gamma=3.0) == 0.4
    assert max_f_divergence(math.inf, 0.4, "kl") == math.inf
    assert max_f_divergence(0.0, 0.0, "kl") == 0.0


def test_max_f_divergence_dominates_random_pairs(rng):
    """Theorem 4: no eps-LDP, eta-TV pair of rows exceeds the bound."""
    for _ in range(200):
        eps = float(rng.uniform(0.1, 3.0))
        k = int(rng.integers(2, 5))
        post = Channel(rng.dirichlet(np.ones(4), size=k))
        chan = k_rr(k, eps).then(post)  # eps-LDP by post-processing, with a smaller tv
        rows = chan.matrix
        eta = chan.tv
        assert dv.kl(rows[0], rows[1]) <= max_f_divergence(eps, eta, "kl") + 1e-12
        assert dv.chi2(rows[0], rows[1]) <= max_f_divergence(eps, eta, "chi2") + 1e-12
        assert dv.hellinger(rows[0], rows[1]) <= max_f_divergence(eps, eta, "hellinger") + 1e-12


# ---------------------------------------------------------------- closed forms vs channels
@pytest.mark.parametrize("k", [2, 3, 4, 7, 16])
@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 2.0, 4.0, 8.0])
def test_k_rr_closed_forms_match_channel(k, eps):
    channel = k_rr(k, eps)
    for kind in ("tv", "kl", "chi2", "hellinger"):
        exact = channel.contraction(kind).value
        assert k_rr_coefficient(kind, k, eps) == pytest.approx(exact, abs=1e-10)
    for gamma in (0.3, 1.0, 1.5, math.exp(eps) * 0.999, math.exp(eps), 1e3, math.inf):
        exact = channel.contraction("hockey_stick", gamma=gamma).value
        assert k_rr_coefficient("hockey_stick", k, eps, gamma) == pytest.approx(exact, abs=1e-10)
    # the maximising input of chi2 is uniform on two symbols; check with an SVD
    two = np.zeros(k)
    two[:2] = 0.5
    assert sigma2_squared(two, channel.matrix) == pytest.approx(
        k_rr_coefficient("chi2", k, eps), abs=1e-10
    )
    if k == 2:
        assert rr_coefficient("kl", eps) == k_rr_coefficient("kl", 2, eps)


def test_closed_forms_at_extreme_epsilon():
    for kind in ("tv", "kl", "chi2", "hellinger"):
        assert k_rr_coefficient(kind, 5, 0.0) == 0.0
        assert k_rr_coefficient(kind, 5, math.inf) == 1.0
        assert k_rr(5, math.inf).contraction(kind).value == pytest.approx(1.0, abs=1e-15)
    assert k_rr_coefficient("hockey_stick", 3, math.inf, gamma=1e300) == 1.0
    for gamma in (0.5, 2.0, math.inf):  # eps = inf is the identity channel
        assert k_rr_coefficient("hockey_stick", 3, math.inf, gamma=gamma) == 1.0
        assert k_rr(3, math.inf).contraction("hockey_stick", gamma=gamma).value == 1.0
        assert k_rr(3, 2.0).contraction("hockey_stick", gamma=math.inf).value == 0.0
        assert k_rr_coefficient("hockey_stick", 3, 2.0, gamma=math.inf) == 0.0
    assert k_rr_coefficient("hockey_stick", 3, 800.0, gamma=2.0) == 1.0
    assert worst_case_hockey_stick(math.inf, 0.2, math.inf) == pytest.approx(0.2)
    assert worst_case_hockey_stick(math.inf, 0.2, 5.0) == 1.0
    assert worst_case_tv(math.inf, 0.0) == 1.0
    assert rr_coefficient("kl", 1e-8) == pytest.approx((1e-8 / 2) ** 2, rel=1e-6)


def test_rr_kl_coefficient_is_one_minus_two_w_squared():
    """Asoodeh-Aliakbarpour-Calmon (2021) print eta_KL(BSC(w)) = 1 - 2 w^2 after Lemma 1; the
    channel gives (1 - 2 w)^2."""
    for eps in (0.5, 1.0, 2.0):
        w = 1.0 / (1.0 + math.exp(eps))
        exact = randomized_response(eps).contraction("kl").value
        assert exact == pytest.approx((1.0 - 2.0 * w) ** 2, abs=1e-12)
        assert rr_coefficient("kl", eps) == pytest.approx((1.0 - 2.0 * w) ** 2, abs=1e-12)
        assert abs(exact - (1.0 - 2.0 * w**2)) > 0.3


def test_ldp_tv_bound_is_tanh_not_its_reciprocal(rng):
    """Ghazi-Issa (2023) eq. (26) / Thm 6 print (e^eps + 1)/(e^eps - 1); eps-LDP channels have
    tv <= tanh(eps / 2) and Theorem 5's value uses tanh, not its reciprocal."""
    for _ in range(50):
        eps = float(rng.uniform(0.05, 4.0))
        k = int(rng.integers(2, 6))
        chan = k_rr(k, eps).then(Channel(rng.dirichlet(np.ones(3), size=k)))
        assert chan.tv <= th(eps) + 1e-12
    eps = 1.0
    coth = 1.0 / th(eps)
    assert coefficient(binary_erasure(eps), "kl").value == pytest.approx(th(eps) ** 2, abs=1e-12)
    assert max_kl_contraction(eps, th(eps)) == pytest.approx(th(eps) ** 2, abs=1e-12)
    with pytest.raises(ValueError, match="eta"):
        max_kl_contraction(eps, min(1.0, coth * 0.5))  # 0.78 > tanh(1/2)
    with pytest.raises(ValueError, match="eta"):
        chi2_output_bound(eps, 0.9, 0.5)


@pytest.mark.parametrize(("eps", "delta"), [(0.5, 0.0), (1.0, 0.1), (2.0, 0.05), (3.0, 0.5)])
def test_worst_cases_attained_and_never_exceeded(eps, delta, rng):
    disclosure = binary_erasure(eps, delta)
    assert disclosure.contraction("tv").value == pytest.approx(worst_case_tv(eps, delta), abs=1e-12)
    for gamma in (1.0, 1.3, math.exp(eps), 2 * math.exp(eps), 0.5):
        exact = disclosure.contraction("hockey_stick", gamma=gamma).value
        assert exact == pytest.approx(worst_case_hockey_stick(eps, delta, gamma), abs=1e-12)
    # random channels that are (eps, delta)-LDP never exceed the suprema
    for _ in range(100):
        chan = Channel(random_channel_matrix(rng, int(rng.integers(2, 5)), 4, 0.5))
        d = float(chan.delta(eps))
        if d > delta:
            continue
        assert chan.tv <= worst_case_tv(eps, delta) + 1e-12
        for gamma in (1.2, 2.5):
            value = chan.contraction("hockey_stick", gamma=gamma).value
            assert value <= worst_case_hockey_stick(eps, delta, gamma) + 1e-12


@pytest.mark.parametrize(
    ("eps", "delta", "eta"), [(1.0, 0.1, 0.3), (2.0, 0.05, 0.5), (0.5, 0.0, 0.1), (1.0, 0.2, 0.2)]
)
def test_max_kl_contraction_delta_extension_is_attained(eps, delta, eta):
    """The derived (eps, delta) form delta + (eta - delta) tanh(eps/2) is the exact KL
    coefficient of the dominating pair M_{eps, delta, eta}."""
    chan = binary_erasure(eps, delta, eta)
    assert chan.contraction("kl").value == pytest.approx(
        max_kl_contraction(eps, eta, delta), abs=1e-12
    )
    # and at eta_max it is the RR-with-disclosure value delta + (1 - delta) th^2 of
    # Asoodeh-Aliakbarpour-Calmon (2021)
    top = binary_erasure(eps, delta).contraction("chi2").value
    assert top == pytest.approx(delta + (1 - delta) * th(eps) ** 2, abs=1e-12)


def test_max_kl_contraction_bounds_random_ldp_channels(rng):
    for _ in range(60):
        eps = float(rng.uniform(0.1, 3.0))
        k = int(rng.integers(2, 5))
        chan = k_rr(k, eps).then(Channel(rng.dirichlet(np.full(5, 0.5), size=k)))
        exact = chan.contraction("kl").value
        assert exact <= max_kl_contraction(eps, chan.tv) + 1e-12
        assert exact <= th(eps) ** 2 + 1e-12


def test_chi2_output_bound_theorem6(rng):
    assert chi2_output_bound(1.0, 0.3, 0.5) == pytest.approx(
        4 * 0.3 * (math.e - 1) * (1 + math.exp(-1)) * 0.25, rel=1e-14
    )
    worst = 0.0
    for _ in range(300):
        eps = float(rng.uniform(0.1, 3.0))
        k = int(rng.integers(2, 5))
        chan = k_rr(k, eps).then(Channel(rng.dirichlet(np.ones(4), size=k)))
        p0, p1 = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        out = dv.chi2(p0 @ chan.matrix, p1 @ chan.matrix)
        bound = chi2_output_bound(eps, chan.tv, dv.tv(p0, p1))
        assert out <= bound + 1e-12
        worst = max(worst, out / bound)
    assert worst > 0.01  # the check compared non-trivial numbers
    assert chi2_output_bound(math.inf, 0.5, 0.5) == math.inf
    assert chi2_output_bound(1.0, 0.0, 0.5) == 0.0


def test_max_output_tv_proposition2(rng):
    for _ in range(30):
        k = int(rng.integers(2, 6))
        eps = float(rng.uniform(0.2, 3.0))
        eta = float(rng.uniform(0.0, th(eps)))
        p0, p1 = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        bound = max_output_tv(eps, eta, p0, p1)
        assert bound == pytest.approx(eta * dv.tv(p0, p1), abs=1e-15)
        best = binary_mechanism_with_erasure(p0, p1, eps, eta).matrix
        assert dv.tv(p0 @ best, p1 @ best) == pytest.approx(bound, abs=1e-12)
        other = erase(k_rr(k, eps), eps, eta).matrix  # another eps-LDP, eta-TV channel
        assert dv.tv(p0 @ other, p1 @ other) <= bound + 1e-12


def test_erase_theorem7(rng):
    for _ in range(20):
        k = int(rng.integers(2, 6))
        eps = float(rng.uniform(0.2, 3.0))
        base = k_rr(k, eps).then(Channel(rng.dirichlet(np.ones(3), size=k)))
        eta = float(rng.uniform(0.0, th(eps)))
        out = erase(base, eps, eta)
        keep = eta * (math.exp(eps) + 1) / (math.exp(eps) - 1)  # 1 - alpha
        assert isinstance(out, Channel)
        assert out.shape == (k, base.n_outputs + 1)
        assert out.is_ldp(eps)
        assert out.tv == pytest.approx(keep * base.tv, abs=1e-12)
        assert out.tv <= eta + 1e-12
        p0, p1 = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k))
        before = dv.kl(p0 @ base.matrix, p1 @ base.matrix)
        after = dv.kl(p0 @ out.matrix, p1 @ out.matrix)
        assert after == pytest.approx(keep * before, rel=1e-9, abs=1e-15)
    assert erase(k_rr(3, 1.0), 1.0, 0.0).tv == 0.0
    assert erase(k_rr(3, 1.0), math.inf, 0.5).tv == pytest.approx(0.5 * k_rr(3, 1.0).tv)
    with pytest.raises(ValueError, match="epsilon"):
        erase(k_rr(3, 2.0), 1.0, 0.2)


# ---------------------------------------------------------------- exact coefficients
@settings(max_examples=40)
@given(stochastic_matrices(max_inputs=6, max_outputs=6, min_inputs=1))
def test_ordering_chi2_equals_kl_below_tv(matrix):
    chan = Channel(matrix)
    chi2 = coefficient(chan, "chi2").value
    assert coefficient(chan, "kl").value == chi2
    assert coefficient(chan, "hellinger").value == chi2
    tv_value = coefficient(chan, "tv").value
    assert 0.0 <= chi2 <= tv_value + 1e-12
    values = [coefficient(chan, "hockey_stick", gamma=g).value for g in (1.0, 1.5, 3.0, 50.0)]
    assert values[0] == pytest.approx(tv_value, abs=1e-15)
    assert all(b <= a + 1e-15 for a, b in itertools.pairwise(values))


@settings(max_examples=30)
@given(stochastic_matrices(max_inputs=5, max_outputs=5, min_inputs=2), st.data())
def test_every_exact_value_below_every_bound(matrix, data):
    chan = Channel(matrix)
    gamma = data.draw(st.sampled_from([0.4, 1.0, 1.7, 6.0, math.inf]))
    for kind, kw in [
        ("tv", {}),
        ("kl", {}),
        ("chi2", {}),
        ("hellinger", {}),
        ("hockey_stick", {"gamma": gamma}),
    ]:
        exact = coefficient(chan, kind, **kw).value
        bound = best_bound(chan, kind, **kw)
        assert isinstance(bound, ContractionBound)
        # the named bound is the smallest, up to ties at rounding level
        smallest = min(c.value for c in bound.candidates)
        assert bound.value == pytest.approx(smallest, rel=1e-12, abs=1e-15)
        for cand in bound.candidates:
            assert isinstance(cand, BoundCandidate)
            assert not math.isnan(cand.value)
            assert exact <= cand.value + 1e-12, (kind, cand)
    assert best_bound(chan, "tv").value == chan.tv
    assert best_bound(chan, "f").value <= chan.tv


def test_best_bound_names_the_theorem():
    krr = k_rr(3, 1.0)
    b = krr.contraction_bound("kl")
    assert b.theorem == "Ghazi-Issa (2023), Theorem 5"
    assert b.value == pytest.approx(krr.contraction("kl").value, abs=1e-12)  # tight for k-RR
    names = {c.theorem for c in b.candidates}
    assert {
        "Dobrushin (eta_f <= eta_TV)",
        "Asoodeh-Aliakbarpour-Calmon (2021), Lemma 1",
        "tight sup over Q_{eps,delta}",
        "Ghazi-Issa (2023), eq. (34)",
    } <= names
    # an (eps, delta) channel with infinite pure epsilon: the profile gives the bound
    chan = binary_erasure(1.0, 0.1, 0.3)
    assert chan.epsilon == math.inf
    b = best_bound(chan, "kl")
    assert b.theorem == "Ghazi-Issa (2023), Theorem 5, (eps, delta) extension (derived)"
    assert b.value == pytest.approx(max_kl_contraction(1.0, 0.3, 0.1), abs=1e-12)
    assert b.value == pytest.approx(chan.contraction("kl").value, abs=1e-12)
    hs = best_bound(chan, "hockey_stick", gamma=math.e)
    assert hs.value == pytest.approx(0.1, abs=1e-12)
    assert hs.theorem == "Asoodeh-Aliakbarpour-Calmon (2021), Theorem 1"
    with pytest.raises(ValueError, match="gamma"):
        chan.contraction_bound("hockey_stick")


@settings(max_examples=40)
@given(stochastic_matrices(max_inputs=5, max_outputs=5, min_inputs=2), st.data())
def test_theorem1_ldp_iff_hockey_stick_coefficient(matrix, data):
    """Asoodeh-Aliakbarpour-Calmon (2021), Theorem 1: (eps, delta)-LDP iff
    eta_{e^eps}(K) <= delta."""
    chan = Channel(matrix)
    eps = data.draw(st.sampled_from([0.0, 0.3, 1.0, 2.5]))
    eta = coefficient(chan, "hockey_stick", gamma=math.exp(eps)).value
    assert eta == pytest.approx(subset_delta(chan.matrix, eps), abs=1e-12)
    reference = subset_delta(chan.matrix, eps)
    assert chan.is_ldp(eps, eta)  # eta_{e^eps} is itself a valid delta
    for delta in (eta + 1e-9, eta - 1e-9, eta + 0.05, eta - 0.05, 0.0, 1.0):
        if not 0.0 <= delta <= 1.0 or abs(delta - eta) < 1e-12:
            continue
        assert chan.is_ldp(eps, delta, rtol=0.0) == (eta <= delta)
        assert (reference <= delta) == (eta <= delta)


def test_hockey_stick_below_one_equals_reciprocal_and_brute_force(rng):
    for _ in range(8):
        chan = Channel(random_channel_matrix(rng, 3, 4, 0.7))
        for gamma in (0.2, 0.5, 0.9):
            low = chan.contraction("hockey_stick", gamma=gamma)
            high = chan.contraction("hockey_stick", gamma=1.0 / gamma)
            assert low.value == pytest.approx(high.value, abs=1e-12)
            # no random (P, Q) beats it, and point masses attain it
            # (Asoodeh-Aliakbarpour-Calmon (2021), Section II)
            p, q = random_pairs(rng, 3, 4000)
            top = dv.hockey_stick(p @ chan.matrix, q @ chan.matrix, gamma)
            bottom = dv.hockey_stick(p, q, gamma)
            ok = bottom > 1e-9
            assert np.max(top[ok] / bottom[ok]) <= low.value + 1e-9
            attained = dv.hockey_stick(
                low.p0 @ chan.matrix, low.p1 @ chan.matrix, gamma
            ) / dv.hockey_stick(low.p0, low.p1, gamma)
            assert attained == pytest.approx(low.value, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_pairwise_reduction_equals_full_simplex_search(seed):
    """Ordentlich-Polyanskiy: binary inputs attain sup_p sigma_2^2; cross-checked against a
    multi-start search over the whole simplex (independent SVD code)."""
    rng = np.random.default_rng(seed)
    k = 3 + seed % 3
    matrix = random_channel_matrix(rng, k, int(rng.integers(2, 7)), [0.2, 1.0, 4.0][seed % 3])
    result = coefficient(matrix, "chi2")
    full = simplex_search(matrix, rng)
    assert full <= result.value + 1e-10
    assert full >= result.value - 1e-7
    # the reported input attains the value, with support on the reported pair
    assert sigma2_squared(result.p, matrix) == pytest.approx(result.value, abs=1e-10)
    assert set(np.flatnonzero(result.p)) <= set(result.pair)


@pytest.mark.parametrize("seed", range(5))
def test_kl_and_hellinger_brute_force_ratio_search(seed):
    """No random (P, Q) has a KL or Hellinger ratio above the coefficient, and pairs near
    the maximising input approach it (so eta_KL = eta_H2 = eta_chi2, not just <=)."""
    rng = np.random.default_rng(100 + seed)
    k = 2 + seed % 3
    matrix = random_channel_matrix(rng, k, 3 + seed % 2, 1.0)
    result = coefficient(matrix, "kl")
    eta = result.value
    p, q = random_pairs(rng, k, 20000)
    for div in (dv.kl, dv.hellinger):
        top = div(p @ matrix, q @ matrix)
        bottom = div(p, q)
        ok = bottom > 1e-8
        assert np.max(top[ok] / bottom[ok]) <= eta * (1 + 1e-9) + 1e-12
    i, j = result.pair
    direction = np.zeros(k)
    direction[i], direction[j] = 1.0, -1.0
    for div in (dv.kl, dv.hellinger):
        near = result.p + 1e-4 * direction
        ratio = div(near @ matrix, result.p @ matrix) / div(near, result.p)
        assert ratio == pytest.approx(eta, rel=2e-3)


def test_pairwise_search_with_zeros_matches_dense_grid(rng):
    """Rows with zeros: the supremum may sit at the boundary (beta -> 0 or 1)."""
    cases = [
        np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]),
        np.array([[1.0, 0.0], [0.3, 0.7]]),
        np.array([[0.9, 0.1, 0.0], [0.0, 0.2, 0.8], [0.4, 0.0, 0.6]]),
    ]
    for _ in range(10):
        m = random_channel_matrix(rng, 3, 4, 0.5)
        m[rng.random(m.shape) < 0.3] = 0.0
        m[m.sum(axis=1) == 0, 0] = 1.0
        cases.append(m / m.sum(axis=1, keepdims=True))
    # logit-spaced, reaching within 1e-13 of both ends, where boundary suprema sit
    beta = 1.0 / (1.0 + np.exp(-np.linspace(-30.0, 30.0, 200001)))
    for matrix in cases:
        dense = 0.0
        for i, j in itertools.combinations(range(matrix.shape[0]), 2):
            a, b = matrix[i], matrix[j]
            den = beta[:, None] * a + (1 - beta[:, None]) * b
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = np.where(den > 0, (a - b) ** 2 / den, 0.0)
            dense = max(dense, float(np.max(beta * (1 - beta) * terms.sum(axis=1))))
        value = coefficient(matrix, "chi2").value
        assert dense <= value + 1e-12
        assert value - dense < 1e-9


def test_tensorisation_and_lemma2(rng):
    """Lemma 2: eta(K^{(x)n}) <= phi_n(eps, delta) for every kind, at every level of the
    profile, and the Polyanskiy-Wu product bound on eta_TV."""
    chans = [
        randomized_response(1.0),
        k_rr(3, 0.7),
        Channel(random_channel_matrix(rng, 2, 3, 1.0)),
        Channel(random_channel_matrix(rng, 3, 3, 0.5)),
        binary_erasure(1.0, 0.1, 0.3),
    ]
    for chan in chans:
        eta_kl = chan.contraction("kl").value
        products = {2: chan.product(chan)}
        if chan.n_inputs == 2:
            products[3] = products[2].product(chan)
        for n, prod in products.items():
            # restricting the product to inputs (x, x0) gives K plus independent noise
            assert prod.contraction("kl").value >= eta_kl - 1e-12
            for level in (0.0, 0.5, 1.0, 2.0):
                bound = phi(level, float(chan.delta(level)), n)
                for kind in ("tv", "kl", "chi2"):
                    assert prod.contraction(kind).value <= bound + 1e-12
            assert prod.tv <= 1 - (1 - chan.tv) ** n + 1e-12


def test_kl_coefficient_does_not_tensorise_at_channel_level():
    """It is tempting to read eta_KL(K^{(x)n}) = eta_KL(K). That holds for product *inputs*
    (maximal correlation tensorises, Witsenhausen (1975)) but not for the channel-level
    supremum, which may use correlated inputs such as a repetition (X, X). Checked with an
    independent SVD; the library follows the numbers, and Lemma 2's phi_n
    (Asoodeh-Aliakbarpour-Calmon (2021)), not phi, bounds n uses of a channel."""
    rr = randomized_response(1.0)
    double = rr.product(rr)
    eta = rr.contraction("kl").value
    # product inputs: sigma_2^2(p (x) p, K (x) K) = sigma_2^2(p, K)
    for p in ([0.5, 0.5], [0.3, 0.7], [0.9, 0.1]):
        single = sigma2_squared(p, rr.matrix)
        assert sigma2_squared(np.kron(p, p), double.matrix) == pytest.approx(single, abs=1e-12)
    # the repetition input (1/2 on (0, 0) and (1, 1)) beats eta_KL(RR)
    repetition = sigma2_squared([0.5, 0.0, 0.0, 0.5], double.matrix)
    assert repetition > eta + 0.1
    assert double.contraction("kl").value == pytest.approx(repetition, abs=1e-12)
    ratio = dv.kl([0.5001, 0, 0, 0.4999] @ double.matrix, [0.5, 0, 0, 0.5] @ double.matrix)
    assert ratio / dv.kl([0.5001, 0, 0, 0.4999], [0.5, 0, 0, 0.5]) > eta + 0.1
    # binary erasure channel with erasure probability e: eta_KL(BEC^{(x)n}) = 1 - e^n, which
    # is Lemma 2's phi_n(0, 1 - e): Lemma 2 is tight at eps = 0
    e = 0.3
    bec = Channel([[1 - e, 0.0, e], [0.0, 1 - e, e]])
    prod = bec
    for n in (1, 2, 3):
        assert prod.contraction("kl").value == pytest.approx(1 - e**n, abs=1e-12)
        assert prod.contraction("kl").value == pytest.approx(phi(0.0, 1 - e, n), abs=1e-12)
        prod = prod.product(bec)


# ---------------------------------------------------------------- custom f
def test_custom_f_is_an_honest_lower_estimate(rng):
    generators = {
        "kl": lambda t: t * np.log(t),
        "hellinger": lambda t: (np.sqrt(t) - 1.0) ** 2,
        "tv": lambda t: 0.5 * np.abs(t - 1.0),
    }
    chans = [randomized_response(1.0), k_rr(3, 2.0)]
    chans += [Channel(random_channel_matrix(rng, 4, 4, 1.0)) for _ in range(2)]
    for chan in chans:
        for name, f in generators.items():
            est = coefficient(chan, "f", f=f)
            exact = coefficient(chan, "tv" if name == "tv" else "chi2").value
            assert est.method == "lower estimate"
            assert not est.is_exact
            assert est.value <= exact
            assert est.value >= exact - 1e-3
            # the reported inputs attain the estimate (up to the rounding margin)
            top = dv.f_divergence(est.p0 @ chan.matrix, est.p1 @ chan.matrix, f)
            ratio = top / dv.f_divergence(est.p0, est.p1, f)
            assert ratio == pytest.approx(est.value, rel=1e-6)
        est = coefficient(chan, "f", f=lambda t: np.maximum(t - 1.5, 0.0))
        assert est.value <= chan.contraction("hockey_stick", gamma=1.5).value
        exact = coefficient(chan, "f", f=generators["kl"], operator_convex=True)
        assert exact.is_exact
        assert exact.value == chan.contraction("chi2").value


# ---------------------------------------------------------------- result objects, edges
def test_result_object():
    res = k_rr(4, 1.0).contraction("chi2")
    assert isinstance(res, ContractionCoefficient)
    assert float(res) == res.value
    assert "chi2" in repr(res)
    assert "exact" in repr(res)
    assert res.p is not None
    assert res.p0 is None
    assert res.p.sum() == pytest.approx(1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.value = 0.0
    with pytest.raises(ValueError, match="read-only"):
        res.p[0] = 1.0
    hs = k_rr(4, 1.0).contraction("hockey_stick", gamma=2.0)
    assert hs.gamma == 2.0
    assert "gamma=2" in repr(hs)
    np.testing.assert_array_equal(hs.p0 + hs.p1, np.eye(4)[hs.pair[0]] + np.eye(4)[hs.pair[1]])
    b = k_rr(4, 1.0).contraction_bound("chi2")
    assert float(b) == b.value
    assert "chi2" in repr(b)


def test_degenerate_channels():
    single = Channel([[0.2, 0.8]])
    same = Channel([[0.2, 0.8], [0.2, 0.8], [0.2, 0.8]])
    identity = Channel(np.eye(3))
    kinds = [
        ("tv", {}),
        ("kl", {}),
        ("chi2", {}),
        ("hellinger", {}),
        ("hockey_stick", {"gamma": 2.0}),
        ("hockey_stick", {"gamma": 0.5}),
    ]
    for kind, kw in kinds:
        assert coefficient(single, kind, **kw).value == 0.0
        assert coefficient(same, kind, **kw).value == 0.0
        assert coefficient(identity, kind, **kw).value == pytest.approx(1.0, abs=1e-15)
    assert coefficient(single, "f", f=lambda t: (t - 1) ** 2).value == 0.0
    assert coefficient(identity, "hockey_stick", gamma=math.inf).value == 1.0
    assert best_bound(single, "kl").value == 0.0
    assert coefficient([[0.5, 0.5], [0.25, 0.75]], "kl").value > 0  # array_like accepted


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: coefficient(k_rr(3, 1.0), "hockey_stick", gamma=-1.0), ValueError, "gamma"),
        (lambda: coefficient(k_rr(3, 1.0), "hockey_stick", gamma=0.0), ValueError, "gamma"),
        (lambda: coefficient(k_rr(3, 1.0), "hockey_stick", gamma=math.nan), ValueError, "gamma"),
        (lambda: coefficient(k_rr(3, 1.0), "hockey_stick"), ValueError, "gamma"),
        (lambda: coefficient(k_rr(3, 1.0), "hockey_stick", gamma="2"), TypeError, "gamma"),
        (lambda: coefficient(k_rr(3, 1.0), "kl", gamma=2.0), ValueError, "gamma"),
        (lambda: coefficient(k_rr(3, 1.0), "renyi"), ValueError, "kind"),
        (lambda: coefficient(k_rr(3, 1.0), 3), TypeError, "kind"),
        (lambda: coefficient(k_rr(3, 1.0), "f"), ValueError, "f"),
        (lambda: coefficient(k_rr(3, 1.0), "kl", f=lambda t: t), ValueError, "f"),
        (lambda: coefficient(k_rr(3, 1.0), "f", f=lambda t: -np.log(t) + 1), ValueError, "f"),
        (lambda: coefficient(k_rr(3, 1.0), "f", f=lambda t: np.sqrt(t) - 1), ValueError, "f"),
        (lambda: coefficient(k_rr(3, 1.0), "f", f=lambda t: t**2), ValueError, "f"),
        (lambda: coefficient(k_rr(3, 1.0), "f", f=lambda t: t - 1, max_pairs=0), ValueError, "max"),
        (lambda: coefficient([[0.5, 0.6]], "kl"), ValueError, "matrix"),
        (lambda: best_bound(k_rr(3, 1.0), "wrong"), ValueError, "kind"),
        (lambda: best_bound(k_rr(3, 1.0), "hockey_stick", gamma=-2.0), ValueError, "gamma"),
        (lambda: phi(1.0, 0.1, n=0), ValueError, "n"),
        (lambda: phi(1.0, 0.1, n=1.5), TypeError, "n"),
        (lambda: phi(-1.0, 0.1), ValueError, "epsilon"),
        (lambda: phi(1.0, 1.5), ValueError, "delta"),
        (lambda: phi(1.0, -0.1), ValueError, "delta"),
        (lambda: worst_case_tv(-0.5), ValueError, "epsilon"),
        (lambda: worst_case_tv(1.0, 2.0), ValueError, "delta"),
        (lambda: worst_case_hockey_stick(1.0, 0.1, 0.0), ValueError, "gamma"),
        (lambda: worst_case_hockey_stick(1.0, -0.1, 2.0), ValueError, "delta"),
        (lambda: k_rr_coefficient("kl", 1, 1.0), ValueError, "k"),
        (lambda: k_rr_coefficient("kl", 2.5, 1.0), TypeError, "k"),
        (lambda: k_rr_coefficient("f", 3, 1.0), ValueError, "kind"),
        (lambda: k_rr_coefficient("hockey_stick", 3, 1.0), ValueError, "gamma"),
        (lambda: rr_coefficient("kl", -1.0), ValueError, "epsilon"),
        (lambda: max_output_tv(1.0, 0.9, [1, 0], [0, 1]), ValueError, "eta"),
        (lambda: max_output_tv(1.0, 0.1, [1, 0], [0, 0, 1]), ValueError, "p0"),
        (lambda: max_f_divergence(1.0, 0.1, "renyi"), ValueError, "f"),
        (lambda: max_f_divergence(1.0, 0.1, lambda t: t**2), ValueError, "f"),
        (lambda: max_f_divergence(math.inf, 0.1, lambda t: (t - 1) ** 2), ValueError, "epsilon"),
        (lambda: max_f_divergence(1.0, 0.1, "hockey_stick", gamma=0.5), ValueError, "gamma"),
        (lambda: max_f_divergence(1.0, -0.1, "kl"), ValueError, "eta"),
        (lambda: max_kl_contraction(1.0, 0.05, delta=0.1), ValueError, "eta"),
        (lambda: max_kl_contraction(1.0, 0.3, delta=1.5), ValueError, "delta"),
        (lambda: chi2_output_bound(1.0, 0.3, 1.5), ValueError, "tv_in"),
        (lambda: erase(k_rr(3, 1.0), -1.0, 0.1), ValueError, "epsilon"),
        (lambda: erase(k_rr(3, 1.0), 1.0, 0.9), ValueError, "eta"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()

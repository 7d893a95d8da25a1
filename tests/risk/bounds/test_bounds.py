"""Tests of ldp.risk: reference values, presets against the generic calculators,
validity against exact risks and simulation, monotonicity, and bad input.

Reference values were computed independently of this code from the formulas of
Asoodeh-Aliakbarpour-Calmon (2021) and Duchi-Jordan-Wainwright (2018), or are derived here from
the printed formula.
"""

from __future__ import annotations

import itertools
import math
import pickle

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import brentq

import ldp
from ldp import Channel
from ldp.contraction import phi
from ldp.divergences import kl, tv
from ldp.risk import (
    Bound,
    assouad,
    ball_mean,
    bayes,
    bernoulli_mean,
    beta_bernoulli_bayes,
    beta_bernoulli_e_gamma_information,
    beta_bernoulli_mutual_information,
    distribution_estimation,
    e_gamma_information,
    entropy,
    family_information,
    fano,
    hypercube_index,
    krr_distribution_risk,
    le_cam,
    min_sample_size,
    moment_mean,
    moment_mean_paper_rate,
    mutual_information,
    mutual_information_bound,
    paninski_family,
    product_tv,
    rr_mean_risk,
    stein_exponent,
)

INF = math.inf
E = math.e


def small_ball_uniform(z):
    """L(zeta) = min(2 zeta, 1) for Theta ~ U[0, 1] and absolute loss
    (Asoodeh-Aliakbarpour-Calmon (2021), Example 4)."""
    return np.minimum(2.0 * np.asarray(z, dtype=float), 1.0)


def random_ldp_channel(rng, k, m, eps):
    """A random pure eps-LDP channel on k inputs and m outputs.

    Either k-RR followed by a random post-processing, or a binary mechanism (two RR-style
    levels on a random split of the inputs) followed by one; both stay eps-LDP.
    """
    post = rng.dirichlet(np.ones(m) * 0.5, size=k if rng.random() < 0.5 else 2)
    if post.shape[0] == k:
        chan = ldp.k_rr(k, eps).then(post)
    else:
        side = rng.random(k) < 0.5
        side[0], side[-1] = True, False
        high = math.exp(eps) / (1 + math.exp(eps))
        binary = np.where(side[:, None], [high, 1 - high], [1 - high, high])
        chan = Channel(binary).then(post)
    assert chan.is_ldp(eps)
    return chan


# ----------------------------------------------------------------------- reference values
class TestReferenceValues:
    def test_lemma3_example(self):
        # tau = 1, n = 100, eps = 1, delta = 0, KL = 0.01 -> 0.218904 (Lemma 3)
        b = le_cam(kl=0.01, separation=2.0, n=100, epsilon=1.0, method="kl")
        assert b.value == pytest.approx(0.218904, abs=5e-7)
        by_hand = 0.5 * (1 - math.sqrt(100 * (1 - math.exp(-1)) * 0.01 / 2))
        assert b.value == pytest.approx(by_hand, rel=1e-12)
        assert b.tau == 1.0 and b.separation == 2.0
        assert "Lemma 3" in b.method

    def test_separation_is_two_tau(self):
        # doubling the separation doubles the bound: value = (separation / 4) [1 - TV]_+
        one = le_cam(kl=0.01, separation=1.0, n=100, epsilon=1.0, method="kl").value
        two = le_cam(kl=0.01, separation=2.0, n=100, epsilon=1.0, method="kl").value
        assert two == pytest.approx(2 * one, rel=1e-14)
        assert one == pytest.approx(0.25 * (1 - math.sqrt(100 * phi(1.0) * 0.01 / 2)))

    def test_corollary1_repaired(self):
        b = moment_mean(100, 1.0, 0.0, k=2)
        # reference values 5.2776e-4 and 1.5274e-6 use the metric reduction (tau = s^2), loose by
        # exactly 2 for squared loss; the preset reports the direct two-point bound, twice them
        assert b.value == pytest.approx(2 * 5.2776e-4, rel=1e-4)
        assert b.omega == pytest.approx(0.0021110, rel=1e-4)
        assert b.bracket == pytest.approx(0.5, abs=1e-12)
        assert moment_mean(1000, 0.5, 0.01, k=4).value == pytest.approx(2 * 1.5274e-6, rel=1e-4)

    @pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
    def test_corollary1_paper_omega_defect(self, eps):
        # the paper's omega = (1 - (7/8)^{1/sqrt n}) / phi makes the bracket negative from n = 27
        def paper_omega(n):
            return -math.expm1(math.log(7 / 8) / math.sqrt(n)) / phi(eps)

        assert moment_mean(26, eps, k=2, omega=paper_omega(26)).bracket > 0
        for n in (27, 100, 10_000):
            b = moment_mean(n, eps, k=2, omega=paper_omega(n))
            assert b.bracket == 0.0 and b.value == 0.0

    def test_corollary1_paper_rate_warns(self):
        with pytest.warns(UserWarning, match="Corollary 1 is not supported by its proof"):
            b = moment_mean_paper_rate(100, 1.0, k=2)
        assert b.value == pytest.approx((100 * phi(1.0) ** 2) ** -0.5)
        assert "not a certified" in b.quantity
        # the printed rate is far above the certified bound
        assert b.value > 100 * moment_mean(100, 1.0, k=2).value

    def test_corollary2_bracket(self):
        # with k = 16 and omega < 1 the bracket is 1 - ln 2 - 16 ln 2 / 50 = 0.085046
        b = ball_mean(1000, 0.5, 1e-3, d=16, method="fano")
        assert b.k == 16 and b.omega < 1
        assert b.bracket == pytest.approx(0.085046, abs=5e-7)
        assert b.bracket == pytest.approx(1 - math.log(2) - 16 * math.log(2) / 50, rel=1e-12)
        for d in (16, 40, 400):
            for n in (100, 5000):
                fano_part = ball_mean(n, 1.0, 1e-3, d=d, method="fano")
                if fano_part.omega < 1:
                    assert fano_part.bracket >= 1 - math.log(2) - 16 * math.log(2) / 50 - 1e-12

    def test_remark1(self):
        assert beta_bernoulli_mutual_information(1) == pytest.approx(0.193147, abs=5e-7)
        # eq. (15): sup = 0.045659 at zeta ~ 0.11340 (the paper's "0.03" is loose)
        cor3 = beta_bernoulli_bayes(1, INF, method="corollary3")
        assert cor3.value == pytest.approx(0.045659, abs=5e-7)
        assert cor3.zeta == pytest.approx(0.11340, abs=5e-5)
        generic = bayes(
            small_ball=small_ball_uniform,
            n=1,
            epsilon=INF,
            mutual_information=math.log(2) - 0.5,
            method="corollary3",
        )
        assert generic.value == pytest.approx(0.045659, abs=5e-7)
        # eq. (17): sup = 2/27 at gamma = 4/3, zeta = 1/6 (the paper's "0.08" is overstated)
        eq17 = bayes(
            small_ball=small_ball_uniform,
            n=1,
            epsilon=INF,
            e_gamma_information=lambda g: beta_bernoulli_e_gamma_information(1, g),
            method="theorem2",
        )
        assert eq17.value == pytest.approx(2 / 27, abs=1e-7)
        assert eq17.value <= 2 / 27 + 1e-12
        assert eq17.gamma == pytest.approx(4 / 3, abs=1e-3)
        assert eq17.zeta == pytest.approx(1 / 6, abs=1e-3)
        assert eq17.value < 0.08
        # both below the true Bayes l1 risk E|Theta - posterior median|
        true_risk = 2 / 3 - 1 / math.sqrt(2) + (2 / 3) * (1 / math.sqrt(2)) ** 3
        assert true_risk == pytest.approx(0.195262, abs=5e-7)
        assert max(cor3.value, eq17.value) < true_risk

    @pytest.mark.parametrize(
        ("gamma", "expected"),
        [(0.5, 0.0625), (1.0, 0.25), (1.5, 0.0625), (4 / 3, 1 / 9), (2.0, 0.0), (3.0, 0.0)],
    )
    def test_remark1_eq18(self, gamma, expected):
        # I_gamma(Theta; X) = gamma^2 / 4 on [0, 1], (gamma - 2)^2 / 4 on [1, 2], 0 beyond
        assert beta_bernoulli_e_gamma_information(1, gamma) == pytest.approx(expected, abs=1e-12)

    @pytest.mark.parametrize(
        ("gamma", "expected"),
        [(1.0, 0.636723), (2.0, 0.387066), (E, 0.250721), (5.0, 0.062986), (20.0, 0.000115)],
    )
    def test_fig1_e_gamma_information(self, gamma, expected):
        assert beta_bernoulli_e_gamma_information(20, gamma) == pytest.approx(expected, abs=6e-7)

    def test_fig1_mutual_information(self):
        assert beta_bernoulli_mutual_information(20) == pytest.approx(1.147209, abs=5e-7)

    @pytest.mark.parametrize(
        ("eps", "thm2", "cor3"),
        [
            (0.0, 0.124682, 0.063554),
            (0.01, 0.096726, 0.044405),
            (0.05, 0.043721, 0.019851),
            (0.1, 0.025544, 0.013507),
            (0.2, 0.019438, 0.011188),
            (0.3, 0.019657, 0.010909),
            (0.5, 0.021601, 0.010866),
            (1.0, 0.025817, 0.010866),
            (1.5, 0.023651, 0.010866),
            (2.0, 0.015955, 0.010866),
            (3.0, 0.006222, 0.010866),
            (5.0, 0.000842, 0.010866),
        ],
    )
    def test_fig1_table(self, eps, thm2, cor3):
        # the reference Cor. 3 column is a 2e5-point zeta grid, accurate to about 1e-6
        t2 = beta_bernoulli_bayes(20, eps, 1e-4)
        c3 = beta_bernoulli_bayes(20, eps, 1e-4, method="corollary3")
        assert t2.value == pytest.approx(thm2, abs=6e-7)
        assert c3.value == pytest.approx(cor3, abs=1.5e-6)
        assert c3.value >= cor3 - 6e-7  # a finer optimum can only be higher
        assert "Theorem 2" in t2.method and "Corollary 3" in c3.method

    def test_fig1_crossover(self):
        def gap(eps):
            return (
                beta_bernoulli_bayes(20, eps, 1e-4).value
                - beta_bernoulli_bayes(20, eps, 1e-4, method="corollary3").value
            )

        assert brentq(gap, 2.0, 3.0, xtol=1e-10) == pytest.approx(2.4166, abs=5e-5)

    @pytest.mark.parametrize(
        ("eps", "expected"), [(0.0, 0.124994), (0.5, 0.075816), (1.0, 0.045985), (2.0, 0.016917)]
    )
    def test_theorem2_n1(self, eps, expected):
        assert beta_bernoulli_bayes(1, eps, 1e-4).value == pytest.approx(expected, abs=6e-7)

    def test_stein(self):
        p0, p1 = [0.2, 0.5, 0.3], [0.4, 0.4, 0.2]
        for eps, delta in [(1.0, 0.0), (0.5, 0.1), (0.0, 0.3)]:
            b = stein_exponent(p0, p1, epsilon=eps, delta=delta)
            expected = -(1 - (1 - delta) * math.exp(-eps)) * kl(p0, p1)
            assert b.value == pytest.approx(expected, rel=1e-12)
        assert stein_exponent(kl=0.3, epsilon=1.0).value == pytest.approx(-0.3 * phi(1.0))

    @pytest.mark.parametrize(
        ("eps", "mi", "phi_ln2", "eta_ln2"),
        [
            (0.1, 0.001248, 0.065962, 0.001730),
            (0.5, 0.030300, 0.272732, 0.041579),
            (1.0, 0.110944, 0.438153, 0.148023),
            (2.0, 0.327813, 0.599340, 0.402043),
            (5.0, 0.652968, 0.688477, 0.674715),
        ],
    )
    def test_mutual_information_rr(self, eps, mi, phi_ln2, eta_ln2):
        exact = mutual_information(ldp.randomized_response(eps), [0.5, 0.5])
        assert exact.value == pytest.approx(mi, abs=6e-7)
        bound = mutual_information_bound(eps, 0.0, math.log(2))
        assert bound.value == pytest.approx(phi_ln2, abs=6e-7)
        assert exact.value <= eta_ln2 + 1e-6 <= bound.value
        assert "Corollary 5" in bound.method

    @pytest.mark.parametrize(
        ("k", "eps", "mi", "bound"), [(3, 1.0, 0.123284, 0.694455), (10, 3.0, 1.004048, 2.187946)]
    )
    def test_mutual_information_krr(self, k, eps, mi, bound):
        prior = np.full(k, 1 / k)
        assert mutual_information(ldp.k_rr(k, eps), prior).value == pytest.approx(mi, abs=6e-7)
        b = mutual_information_bound(eps, 0.0, prior=prior)
        assert b.value == pytest.approx(bound, abs=6e-7)
        assert b.entropy == pytest.approx(math.log(k))

    def test_reference_bernoulli_values(self):
        # DJW's Phi(delta)/2 reduction gives 2 / (27 n (e - 1)^2); the direct
        # two-point average (le_cam's convention) keeps a factor 2 more.
        e1 = 2.5088658321e-5
        lb = bernoulli_mean(1000, 1.0, support=(-1, 1), method="djw")
        assert lb.value == pytest.approx(2 * e1, rel=1e-9)
        # the matching RR/Duchi risk
        assert rr_mean_risk(1000, 1.0, support=(-1, 1)).value == pytest.approx(
            4.6826943768e-3, rel=1e-9
        )

    def test_reference_grr_variance(self):
        # (k = 10, n = 1e4, eps = 1): fixed-data variance 4.0958300584e-4 at
        # f = 0.1; the i.i.d. risk adds f (1 - f) / n per letter (uniform p: f = 0.1 each)
        b = krr_distribution_risk(10, 10_000, 1.0)
        assert b.value == pytest.approx(10 * (4.0958300584e-4 + 0.09 / 1e4), rel=1e-9)
        # f = 0 letters contribute 3.6302486929e-4 each
        point = krr_distribution_risk([1.0] + [0.0] * 9, 10_000, 1.0).value
        q, gap = 1 / (E + 9), (E - 1) / (E + 9)
        t0 = q + gap
        assert point == pytest.approx(t0 * (1 - t0) / (1e4 * gap**2) + 9 * 3.6302486929e-4)


# -------------------------------------------------------------- generic calculators
class TestLeCam:
    def test_valid_against_exact_two_point_bayes_risk(self):
        # minimax risk >= average risk >= exact two-point Bayes risk, computed by enumerating
        # the binomial sufficient statistic of RR outputs. Both losses; le_cam must not exceed.
        for eps, n, (a, b) in [
            (1.0, 10, (0.3, 0.7)),
            (0.5, 40, (0.45, 0.55)),
            (3.0, 5, (0.1, 0.9)),
        ]:
            chan = ldp.randomized_response(eps)
            m0 = chan.output_distribution([1 - a, a])
            m1 = chan.output_distribution([1 - b, b])
            s = np.arange(n + 1)
            l0 = stats.binom.pmf(s, n, m0[1])
            l1 = stats.binom.pmf(s, n, m1[1])
            d = b - a
            bayes_sq = 0.5 * np.sum(l0 * l1 / (l0 + l1)) * d * d
            bayes_abs = 0.5 * np.sum(np.minimum(l0, l1)) * d
            p0, p1 = [1 - a, a], [1 - b, b]
            for sep, truth in [(d * d, bayes_sq), (d, bayes_abs)]:
                exact = le_cam(p0, p1, separation=sep, n=n, channel=chan)
                worst = le_cam(p0, p1, separation=sep, n=n, epsilon=eps)
                assert 0 < exact.value <= truth + 1e-15
                assert worst.value <= exact.value + 1e-15
            assert "exact TV" in le_cam(p0, p1, separation=d, n=n, channel=chan).method

    def test_channel_uses_exact_product_tv(self):
        chan = ldp.randomized_response(1.0)
        p0, p1 = [0.6, 0.4], [0.4, 0.6]
        m0, m1 = chan.output_distribution(p0), chan.output_distribution(p1)
        s = np.arange(31)
        tv_exact = 0.5 * np.abs(stats.binom.pmf(s, 30, m0[1]) - stats.binom.pmf(s, 30, m1[1])).sum()
        b = le_cam(p0, p1, separation=1.0, n=30, channel=chan)
        assert b.value == pytest.approx(0.25 * (1 - tv_exact), rel=1e-12)

    def test_routes(self):
        p0, p1 = [0.6, 0.4], [0.4, 0.6]
        kl01 = kl(p0, p1)
        b = le_cam(p0, p1, separation=1.0, n=20, epsilon=0.3, method="kl")
        assert b.value == pytest.approx(0.25 * (1 - math.sqrt(20 * phi(0.3) * kl01 / 2)))
        b = le_cam(p0, p1, separation=1.0, n=20, epsilon=0.3, method="djw")
        assert b.value == pytest.approx(0.25 * (1 - math.sqrt(20) * math.expm1(0.3) * 0.2))
        h2 = (math.sqrt(0.6) - math.sqrt(0.4)) ** 2 * 2
        b = le_cam(p0, p1, separation=1.0, n=20, epsilon=0.3, method="hellinger")
        expected = 0.25 * (1 - math.sqrt(2 - 2 * (1 - phi(0.3) * h2 / 2) ** 20))
        assert b.value == pytest.approx(expected)
        # pure LDP: the same routes with tanh^2(eps/2) in place of phi
        # (Ghazi-Issa (2023), Theorem 5)
        t2 = math.tanh(0.15) ** 2
        b = le_cam(p0, p1, separation=1.0, n=20, epsilon=0.3, method="kl-tanh")
        assert b.value == pytest.approx(0.25 * (1 - math.sqrt(20 * t2 * kl01 / 2)))
        b = le_cam(p0, p1, separation=1.0, n=20, epsilon=0.3, method="hellinger-tanh")
        assert b.value == pytest.approx(0.25 * (1 - math.sqrt(2 - 2 * (1 - t2 * h2 / 2) ** 20)))
        best = le_cam(p0, p1, separation=1.0, n=20, epsilon=0.3)
        assert best.value == pytest.approx(
            max(
                le_cam(p0, p1, separation=1.0, n=20, epsilon=0.3, method=m).value
                for m in ("kl", "djw", "hellinger", "kl-tanh", "hellinger-tanh")
            )
        )
        with pytest.raises(ValueError, match="kl-tanh"):
            le_cam(p0, p1, separation=1.0, n=20, epsilon=0.3, delta=0.1, method="kl-tanh")
        with pytest.raises(ValueError, match="djw"):
            le_cam(p0, p1, separation=1.0, n=20, epsilon=0.3, delta=0.1, method="djw")

    def test_callable_kl_optimises_separation(self):
        # Gaussian location, squared loss: KL = separation / 2; sup_s (s/4)(1 - sqrt(n phi s/4))
        # is attained at s = 16 / (9 n phi) with value 4 / (27 n phi)
        for n, eps in [(100, 1.0), (1000, 0.2)]:
            b = le_cam(kl=lambda s: s / 2, separation=(1e-8, 10.0), n=n, epsilon=eps)
            f = phi(eps)
            assert b.value == pytest.approx(4 / (27 * n * f), rel=1e-6)
            assert b.separation == pytest.approx(16 / (9 * n * f), rel=1e-3)

    def test_infinite_kl_is_zero_not_nan(self):
        b = le_cam([1.0, 0.0], [0.0, 1.0], separation=1.0, n=5, epsilon=1.0, method="kl")
        assert b.value == 0.0
        assert le_cam(kl=INF, separation=1.0, n=5, epsilon=1.0).value == 0.0
        # the other routes still work on disjoint supports
        assert le_cam([1.0, 0.0], [0.0, 1.0], separation=1.0, n=1, epsilon=0.1).value > 0

    def test_product_tv_brute_force(self, rng):
        for m, n in [(2, 4), (3, 3), (4, 2)]:
            p, q = rng.dirichlet(np.ones(m)), rng.dirichlet(np.ones(m))
            big_p, big_q = p, q
            for _ in range(n - 1):
                big_p, big_q = np.outer(big_p, p).ravel(), np.outer(big_q, q).ravel()
            assert product_tv(p, q, n) == pytest.approx(tv(big_p, big_q), abs=1e-13)
        with pytest.raises(ValueError, match="max_types"):
            product_tv(np.full(5, 0.2), [0.1, 0.2, 0.3, 0.2, 0.2], 500, max_types=100)


class TestFano:
    def test_formula(self):
        fam = 0.7 * np.eye(4) + 0.075
        info = family_information(fam)
        mix = fam.mean(axis=0)
        assert info == pytest.approx(np.mean([kl(r, mix) for r in fam]))
        for contraction, factor in [("lemma4", phi(0.5, 0, 3)), ("per-sample", phi(0.5))]:
            b = fano(fam, separation=1.0, n=3, epsilon=0.5, contraction=contraction)
            expected = 0.5 * max(0.0, 1 - (3 * factor * info + math.log(2)) / math.log(4))
            assert b.value == pytest.approx(expected, rel=1e-12)
        sq = fano(fam, separation=1.0, n=3, epsilon=0.5, loss="squared", contraction="lemma4")
        assert sq.tau == 0.25

    def test_kl_pairs_is_weaker(self):
        fam = np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.2, 0.5]])
        exact = fano(fam, separation=1.0, n=1, epsilon=1.0, information="exact")
        pairs = fano(fam, separation=1.0, n=1, epsilon=1.0, information="kl-pairs")
        assert pairs.value <= exact.value
        assert pairs.information == pytest.approx(
            np.mean([[kl(a, b) for b in fam] for a in fam]) * phi(1.0)
        )

    def test_djw_information_bound_is_valid(self, rng):
        # I(Z;V) <= 2 (e^eps - 1)^2 |V|^-2 sum TV^2 on random families and eps-LDP channels
        for _ in range(40):
            eps = rng.uniform(0.05, 2.0)
            fam = rng.dirichlet(np.ones(4), size=3)
            chan = random_ldp_channel(rng, 4, 5, eps)
            exact = family_information(fam @ chan.matrix)
            tvs = np.array([[tv(a, b) for b in fam] for a in fam])
            assert exact <= 2 * math.expm1(eps) ** 2 * np.mean(tvs**2) + 1e-12

    def test_channel_exact_information(self):
        fam = 0.7 * np.eye(3) + 0.1
        chan = ldp.k_rr(3, 1.0)
        b = fano(fam, separation=1.0, n=2, channel=chan)
        per = family_information(fam @ chan.matrix)
        assert b.information == pytest.approx(2 * per)
        assert b.value >= fano(fam, separation=1.0, n=2, epsilon=1.0).value

    def test_non_integer_packing(self):
        b = fano(
            mutual_information=0.01, n_hypotheses=math.exp(2.0), separation=1.0, n=1, epsilon=INF
        )
        assert b.value == pytest.approx(0.5 * (1 - (0.01 + math.log(2)) / 2.0))

    def test_two_hypotheses_give_zero(self):
        assert fano([[0.9, 0.1], [0.1, 0.9]], separation=1.0, n=1, epsilon=0.1).value == 0.0


class TestAssouad:
    def test_hypercube_order(self):
        v = hypercube_index(3)
        assert v.shape == (8, 3)
        assert (v[5] == [1, -1, 1]).all()

    def test_djw_constant_is_valid(self, rng):
        # sum_j KL(M+j || M-j) + KL(M-j || M+j) <= 2 n (e^eps - 1)^2 S, exactly computed for
        # n = 1, 2 with random families (d = 2, m = 3) and random eps-LDP channels.
        from ldp.risk.bounds.assouad import _sup_box_quadratic

        for _ in range(25):
            eps = rng.uniform(0.1, 2.0)
            fam = rng.dirichlet(np.ones(3), size=4)
            chan = random_ldp_channel(rng, 3, 4, eps)
            index = np.arange(4)
            deltas = np.array(
                [
                    fam[(index >> j) & 1 == 1].mean(0) - fam[(index >> j) & 1 == 0].mean(0)
                    for j in range(2)
                ]
            )
            s_sup = _sup_box_quadratic(deltas)
            # exact S by brute force over a fine sign grid of the box vertices
            verts = np.array(np.meshgrid(*[[-1, 1]] * 3)).reshape(3, -1).T
            assert s_sup == pytest.approx(np.max(np.sum((verts @ deltas.T) ** 2, axis=1)))
            for n in (1, 2):
                out = fam @ chan.matrix
                laws = out
                for _ in range(n - 1):
                    laws = np.einsum("vi,vj->vij", laws, out).reshape(4, -1)
                total = 0.0
                for j in range(2):
                    plus = laws[(index >> j) & 1 == 1].mean(0)
                    minus = laws[(index >> j) & 1 == 0].mean(0)
                    total += kl(plus, minus) + kl(minus, plus)
                assert total <= 2 * n * math.expm1(eps) ** 2 * s_sup + 1e-12

    def test_phi_route_formula(self):
        fam = paninski_family(4, 0.3)
        b = assouad(fam, separation=1.0, n=5, epsilon=0.5, delta=0.1)
        kl_j = (2 * 0.3 / 4) * math.log(1.3 / 0.7)
        per = min(1.0, math.sqrt(5 * phi(0.5, 0.1) * kl_j / 2))
        assert b.route == "phi"
        assert b.value == pytest.approx(0.5 * (2 - 2 * per))

    def test_bad_shape(self):
        with pytest.raises(ValueError, match="2\\*\\*d"):
            assouad(np.full((3, 2), 0.5), separation=1.0, n=1, epsilon=1.0)


class TestBayesGeneric:
    def test_e_gamma_information_decomposition(self, rng):
        joint = rng.dirichlet(np.ones(12)).reshape(3, 4)
        pa, pb = joint.sum(1), joint.sum(0)
        for gamma in (0.0, 0.3, 1.0, 2.5):
            cond = joint / pa[:, None]
            by_rows = sum(
                pa[a] * (np.maximum(cond[a] - gamma * pb, 0).sum() - max(0.0, 1 - gamma))
                for a in range(3)
            )
            assert e_gamma_information(joint, gamma) == pytest.approx(by_rows, abs=1e-12)
        assert e_gamma_information(joint, 1.0) == pytest.approx(
            tv(joint.ravel(), np.outer(pa, pb).ravel())
        )

    def test_e_gamma_information_discretised_beta_bernoulli(self):
        # Theta on a fine midpoint grid of [0, 1], one Bernoulli observation: eq. (18)
        theta = (np.arange(4000) + 0.5) / 4000
        joint = np.stack([1 - theta, theta], axis=1) / theta.size
        for gamma in (0.5, 1.0, 4 / 3, 1.8):
            assert e_gamma_information(joint, gamma) == pytest.approx(
                beta_bernoulli_e_gamma_information(1, gamma), abs=1e-6
            )

    @pytest.mark.parametrize(
        ("n", "eps", "delta"), [(1, 0.5, 1e-4), (20, 1.0, 1e-4), (5, 0.2, 0.01)]
    )
    def test_beta_bernoulli_matches_generic(self, n, eps, delta):
        t2 = beta_bernoulli_bayes(n, eps, delta)
        g2 = bayes(
            small_ball=small_ball_uniform,
            n=n,
            epsilon=eps,
            delta=delta,
            e_gamma_information=beta_bernoulli_e_gamma_information(n, math.exp(eps)),
            method="theorem2",
        )
        assert g2.value == pytest.approx(t2.value, rel=1e-9)
        c3 = beta_bernoulli_bayes(n, eps, delta, method="corollary3")
        g3 = bayes(
            small_ball=small_ball_uniform,
            n=n,
            epsilon=eps,
            delta=delta,
            mutual_information=beta_bernoulli_mutual_information(n),
            method="corollary3",
        )
        assert g3.value == pytest.approx(c3.value, rel=1e-9)
        both = bayes(
            small_ball=small_ball_uniform,
            n=n,
            epsilon=eps,
            delta=delta,
            mutual_information=beta_bernoulli_mutual_information(n),
            e_gamma_information=beta_bernoulli_e_gamma_information(n, math.exp(eps)),
        )
        assert both.value == pytest.approx(max(t2.value, c3.value), rel=1e-9)

    def test_beta_bernoulli_mi_against_enumeration(self):
        # I(Theta; X^n) = H(S) - E_theta H(Bin(n, theta)), S uniform on {0..n}
        n = 6
        theta = (np.arange(20000) + 0.5) / 20000
        cond = stats.binom.pmf(np.arange(n + 1)[None, :], n, theta[:, None])
        h_cond = -(cond * np.log(np.where(cond > 0, cond, 1))).sum(1).mean()
        # X^n given S is uniform over C(n, s) sequences, independent of theta: drops out
        assert beta_bernoulli_mutual_information(n) == pytest.approx(
            math.log(n + 1) - h_cond, abs=1e-7
        )

    def test_envelope(self):
        eps_grid = [0.1, 0.2, 0.3, 0.5, 1.0, 2.0]
        raw = [beta_bernoulli_bayes(20, e, 1e-4).value for e in eps_grid]
        assert raw[1] < raw[4]  # not monotone in epsilon
        env = [beta_bernoulli_bayes(20, e, 1e-4, envelope=True).value for e in eps_grid]
        assert all(a >= b - 1e-15 for a, b in itertools.pairwise(env))
        assert all(e >= r - 1e-15 for e, r in zip(env, raw, strict=True))
        # the envelope at 0.2 is the peak of Theorem 2 over eps' >= 0.2 (near eps = 1.19)
        fine = [beta_bernoulli_bayes(20, e, 1e-4).value for e in np.linspace(1.1, 1.3, 201)]
        assert env[1] == pytest.approx(max(fine), abs=2e-7)
        assert env[1] >= max(fine) - 1e-12 and env[1] > raw[4]

    def test_default_zeta_max_and_unbounded(self):
        with pytest.raises(ValueError, match="zeta_max"):
            bayes(
                small_ball=lambda z: 0.0 * np.asarray(z), n=1, epsilon=1.0, mutual_information=0.1
            )
        b = bayes(
            small_ball=lambda z: 0.0 * np.asarray(z),
            n=1,
            epsilon=1.0,
            mutual_information=0.1,
            zeta_max=3.0,
        )
        assert b.value == pytest.approx(3.0)  # L = 0: the loss always exceeds zeta

    def test_scalar_small_ball(self):
        b = bayes(
            small_ball=lambda z: min(2 * z, 1.0),
            n=1,
            epsilon=INF,
            mutual_information=math.log(2) - 0.5,
        )
        assert b.value == pytest.approx(0.045659, abs=5e-7)


class TestTesting:
    def test_sample_size_formula(self):
        p0, p1 = [0.5, 0.5], [0.4, 0.6]
        b = min_sample_size(p0, p1, alpha=0.05, beta=0.01, epsilon=1.0, delta=0.01)
        expected = (0.95 * math.log(100) - math.log(2)) / (phi(1.0, 0.01) * kl(p0, p1))
        assert b.value == pytest.approx(expected)
        assert b.n_min == math.ceil(expected)

    def test_sample_size_is_necessary_for_rr(self):
        # exact Neyman-Pearson tests of Bin(n, a) vs Bin(n, b) after RR: whenever a test with
        # type-I <= alpha reaches type-II <= beta, n is at least the bound
        chan = ldp.randomized_response(1.0)
        p0, p1 = np.array([0.5, 0.5]), np.array([0.3, 0.7])
        a, b = chan.output_distribution(p0)[1], chan.output_distribution(p1)[1]
        alpha, beta = 0.1, 0.1
        bound = min_sample_size(p0, p1, alpha=alpha, beta=beta, channel=chan).value
        for n in range(1, 200):
            s = np.arange(n + 1)
            # reject H0 for large counts; randomisation is not needed for a necessary check
            tail0 = stats.binom.sf(s - 1, n, a)  # P0(S >= s)
            ok = tail0 <= alpha
            if ok.any():
                cut = s[ok][0]
                type2 = stats.binom.cdf(cut - 1, n, b)
                if type2 <= beta:
                    assert n >= bound
                    break
        else:
            pytest.fail("no test reached the target errors")

    def test_edge_cases(self):
        assert min_sample_size(kl=0.1, alpha=0.5, beta=0.9, epsilon=1.0).value == 0.0
        assert min_sample_size(kl=0.1, alpha=0.0, beta=1e-3, epsilon=0.0).value == INF
        assert min_sample_size([1, 0], [0, 1], alpha=0.0, beta=1e-3, epsilon=1.0).value == 0
        assert stein_exponent([1, 0], [0, 1], epsilon=1.0).value == -INF
        assert stein_exponent([1, 0], [0, 1], epsilon=0.0).value == 0.0


# ---------------------------------------------------------- presets against generic
class TestPresetsAgainstGeneric:
    @pytest.mark.parametrize(
        ("n", "eps", "delta", "method"),
        [
            (100, 1.0, 0.0, "best"),
            (1000, 0.1, 0.0, "djw"),
            (50, 2.0, 0.01, "best"),
            (10, 0.5, 0.0, "kl"),
            (10, 0.5, 0.0, "hellinger"),
            (3, INF, 0.0, "best"),
        ],
    )
    def test_bernoulli_mean_is_le_cam(self, n, eps, delta, method):
        for support in [(0.0, 1.0), (-1.0, 1.0)]:
            b = bernoulli_mean(n, eps, delta, support=support, method=method)
            s = b.s
            generic = le_cam(
                [0.5 + s, 0.5 - s],
                [0.5 - s, 0.5 + s],
                separation=b.separation,
                n=n,
                epsilon=eps,
                delta=delta,
                method=b.route if method == "best" else method,
            )
            assert b.separation == pytest.approx((support[1] - support[0]) ** 2 * 4 * s * s)
            assert b.value == pytest.approx(generic.value, rel=1e-9)
            if method == "best":
                assert b.value == pytest.approx(
                    le_cam(
                        [0.5 + s, 0.5 - s],
                        [0.5 - s, 0.5 + s],
                        separation=b.separation,
                        n=n,
                        epsilon=eps,
                        delta=delta,
                    ).value,
                    rel=1e-9,
                )

    @pytest.mark.parametrize(("n", "eps"), [(1, 1.0), (10, 0.5), (1000, 2.0), (10**6, 0.01)])
    def test_bernoulli_djw_closed_form(self, n, eps):
        c = math.sqrt(n) * math.expm1(eps)
        s = min(0.5, 1 / (3 * c))
        assert bernoulli_mean(n, eps, method="djw").value == pytest.approx(
            s * s * (1 - 2 * c * s), rel=1e-9
        )

    @pytest.mark.parametrize(
        ("n", "eps", "delta", "k"), [(100, 1.0, 0.0, 2), (1000, 0.5, 0.01, 4), (30, 3.0, 0.0, 1.5)]
    )
    def test_moment_mean_is_le_cam_on_its_pair(self, n, eps, delta, k):
        # the preset specialises le_cam's direct two-point average on the construction's pair
        # (separation 4 omega^{2(k-1)/k}); the metric reduction's constant is half of it
        b = moment_mean(n, eps, delta, k=k)
        w = b.omega
        atom = w ** (-1 / k)
        p0 = [w, 1 - w, 0.0]  # support (-atom, 0, +atom)
        p1 = [0.0, 1 - w, w]
        assert abs(-w * atom - w * atom) ** 2 == pytest.approx(b.separation)
        generic = le_cam(
            p0, p1, separation=b.separation, n=n, epsilon=eps, delta=delta, method="hellinger"
        )
        assert generic.value == pytest.approx(b.value, rel=1e-9)
        assert (
            le_cam(
                p0, p1, separation=b.separation, n=n, epsilon=eps, delta=delta, method="kl"
            ).value
            == 0.0
        )  # disjoint atoms: infinite KL

    @pytest.mark.parametrize(
        ("n", "eps", "delta", "d"), [(1000, 0.5, 1e-3, 16), (50, 1.0, 0.0, 200), (10, 0.2, 0.1, 64)]
    )
    def test_ball_fano_is_fano(self, n, eps, delta, d):
        b = ball_mean(n, eps, delta, d=d, r=2.0, method="fano")
        k, w = b.k, b.omega
        generic = fano(
            mutual_information=w * math.log(2),
            n_hypotheses=math.exp(k / 16),
            separation=4.0 * w * w / k,
            n=n,
            epsilon=eps,
            delta=delta,
            loss="squared",
            contraction="lemma4",
        )
        assert b.value == pytest.approx(generic.value, rel=1e-9)
        # packing: the real packing is at least ceil(e^{k/16}); Fano only improves
        assert (
            b.value
            <= fano(
                mutual_information=w * math.log(2),
                n_hypotheses=math.ceil(math.exp(k / 16)),
                separation=4 * w * w / k,
                n=n,
                epsilon=eps,
                delta=delta,
                loss="squared",
                contraction="lemma4",
            ).value
            + 1e-15
        )

    def test_ball_best_is_max(self):
        for d in (4, 16, 1000):
            best = ball_mean(100, 1.0, 0.0, d=d)
            parts = [ball_mean(100, 1.0, 0.0, d=d, method=m).value for m in ("fano", "lecam")]
            assert best.value == pytest.approx(max(parts))
        assert ball_mean(100, 1.0, d=4, method="fano").value == 0.0
        lecam = ball_mean(100, 1.0, d=4, r=3.0, method="lecam")
        assert lecam.value == pytest.approx(bernoulli_mean(100, 1.0, support=(-3, 3)).value)

    @pytest.mark.parametrize(
        ("k", "n", "eps", "delta", "loss", "method"),
        [
            (4, 100, 1.0, 0.0, "l2sq", "assouad"),
            (6, 500, 0.2, 0.0, "l2sq", "djw"),
            (6, 500, 0.2, 0.0, "l1", "djw"),
            (5, 50, 1.0, 0.05, "l1", "assouad"),
            (8, 20, 2.0, 0.0, "l2sq", "phi"),
            (4, 10, INF, 0.0, "l1", "assouad"),
        ],
    )
    def test_distribution_is_assouad(self, k, n, eps, delta, loss, method):
        b = distribution_estimation(k, n, eps, delta, loss=loss, method=method)
        fam = paninski_family(b.support, b.gamma, k=k)
        generic = assouad(
            fam, separation=b.separation, n=n, epsilon=eps, delta=delta, contraction=b.route
        )
        assert b.value == pytest.approx(generic.value, rel=1e-9)
        u, g = b.support, b.gamma
        assert b.separation == pytest.approx(2 * g * g / u**2 if loss == "l2sq" else 2 * g / u)

    @pytest.mark.parametrize(
        ("k", "n", "eps"), [(10, 10_000, 1.0), (20, 10**5, 0.3), (3, 1000, 0.1)]
    )
    def test_distribution_djw_closed_forms(self, k, n, eps):
        c = math.expm1(eps) * math.sqrt(2 * n)
        ke = k - k % 2
        assert ke <= 3 * c
        l2 = distribution_estimation(k, n, eps, method="djw")
        assert l2.value == pytest.approx(ke / (108 * n * math.expm1(eps) ** 2), rel=1e-9)
        l1 = distribution_estimation(k, n, eps, loss="l1", method="djw")
        assert l1.value == pytest.approx(ke / (16 * c), rel=1e-9)

    def test_distribution_djw_large_alphabet(self):
        # k >> 3c: the optimum uses about 4c letters at gamma = 1 and gives about 1 / (16 c)
        n, eps = 100, 0.5
        c = math.expm1(eps) * math.sqrt(2 * n)
        b = distribution_estimation(10_000, n, eps, method="djw")
        assert b.gamma == 1.0
        assert b.value == pytest.approx(1 / (16 * c), rel=0.01)
        assert b.support == pytest.approx(4 * c, abs=2)


# ---------------------------------------------------------------- monotonicity, limits
def _decreasing(values, strict=False):
    pairs = list(itertools.pairwise(values))
    if strict:
        return all(a > b for a, b in pairs)
    return all(a >= b - 1e-15 * max(1.0, abs(a)) for a, b in pairs)


NS = [1, 3, 10, 30, 100, 1000, 10**4]
EPSS = [0.0, 0.05, 0.2, 0.5, 1.0, 2.0, 5.0]


class TestMonotonicity:
    def calculators(self):
        fam = 0.6 * np.eye(5) + 0.08
        p0, p1 = [0.55, 0.45], [0.45, 0.55]
        cube = paninski_family(4, 0.2)
        return {
            "le_cam": lambda n, e, d: le_cam(p0, p1, separation=0.01, n=n, epsilon=e, delta=d),
            "le_cam_kl": lambda n, e, d: le_cam(kl=0.02, separation=1.0, n=n, epsilon=e, delta=d),
            "fano": lambda n, e, d: fano(fam, separation=1.0, n=n, epsilon=e, delta=d),
            "fano_lemma4": lambda n, e, d: fano(
                fam, separation=1.0, n=n, epsilon=e, delta=d, contraction="lemma4"
            ),
            "assouad": lambda n, e, d: assouad(cube, separation=1.0, n=n, epsilon=e, delta=d),
            "bernoulli": lambda n, e, d: bernoulli_mean(n, e, d),
            "moment": lambda n, e, d: moment_mean(n, e, d, k=3),
            "ball": lambda n, e, d: ball_mean(n, e, d, d=50),
            "distribution": lambda n, e, d: distribution_estimation(6, n, e, d),
            "cor3": lambda n, e, d: beta_bernoulli_bayes(min(n, 30), e, d, method="corollary3"),
        }

    @pytest.mark.parametrize("delta", [0.0, 0.01])
    def test_decreasing_in_n_and_eps(self, delta):
        for name, calc in self.calculators().items():
            for eps in (0.1, 1.0):
                assert _decreasing([calc(n, eps, delta).value for n in NS]), name
            for n in (10, 1000):
                values = [calc(n, e, delta).value for e in EPSS]
                assert _decreasing(values), (name, values)

    def test_eps_to_infinity_is_non_private(self):
        for name, calc in self.calculators().items():
            for n in (3, 100):
                public = calc(n, INF, 0.0)
                assert calc(n, 60.0, 0.0).value == pytest.approx(public.value, rel=1e-9), name
                assert calc(n, 60.0, 0.5).value == pytest.approx(public.value, rel=1e-9), name
                if name not in ("moment", "cor3"):
                    assert "non-private" in public.method or "Xu-Raginsky" in public.method

    def test_delta_one_is_non_private(self):
        p0, p1 = [0.55, 0.45], [0.45, 0.55]
        assert (
            le_cam(p0, p1, separation=1.0, n=50, epsilon=0.0, delta=1.0).value
            == le_cam(p0, p1, separation=1.0, n=50, epsilon=INF).value
        )

    def test_theorem2_non_monotone_documented(self):
        values = [beta_bernoulli_bayes(20, e, 1e-4).value for e in (0.2, 1.0)]
        assert values[0] < values[1]  # Theorem 2 rises again near eps = 1

    def test_theorem2_decreasing_in_n(self):
        assert _decreasing([beta_bernoulli_bayes(n, 0.5, 1e-4).value for n in (2, 5, 10, 20)])

    def test_non_private_limits(self):
        # non-private Le Cam (7) for a Bernoulli pair
        p0, p1 = [0.55, 0.45], [0.45, 0.55]
        b = le_cam(p0, p1, separation=1.0, n=20, epsilon=INF, method="kl")
        assert b.value == pytest.approx(0.25 * (1 - math.sqrt(20 * kl(p0, p1) / 2)))
        # the identity channel gives the exact non-private (6)
        ident = le_cam(p0, p1, separation=1.0, n=20, channel=Channel(np.eye(2)))
        assert ident.value == pytest.approx(0.25 * (1 - product_tv(p0, p1, 20)))
        assert ident.value >= b.value


# -------------------------------------------------------------------------- objects
class TestBoundObject:
    def test_float_attributes_pickle(self):
        b = le_cam(kl=0.01, separation=2.0, n=100, epsilon=1.0, method="kl")
        assert float(b) == b.value
        assert isinstance(b.value, float) and isinstance(b.method, str)
        assert b.tau == 1.0
        assert pickle.loads(pickle.dumps(b)) == b
        with pytest.raises(AttributeError):
            b.value = 1.0
        with pytest.raises(AttributeError, match="no attribute"):
            _ = b.omega
        assert "Lemma 3" in repr(b)

    def test_nan_rejected(self):
        with pytest.raises(ValueError, match="NaN"):
            Bound(math.nan, "x", "y")

    def test_rate_on_presets(self):
        for b in (
            bernoulli_mean(10, 1.0),
            moment_mean(10, 1.0, k=2),
            ball_mean(10, 1.0, d=20),
            distribution_estimation(4, 10, 1.0),
            beta_bernoulli_bayes(5, 1.0),
        ):
            assert isinstance(b.rate, str) and b.rate

    def test_entropy(self):
        assert entropy([0.25] * 4) == pytest.approx(math.log(4))
        assert entropy([1.0, 0.0]) == 0.0


# ------------------------------------------------------------------------ bad input
class TestBadInput:
    @pytest.mark.parametrize("n", [0, -3])
    def test_n_too_small(self, n):
        with pytest.raises(ValueError, match="n"):
            le_cam(kl=0.1, separation=1.0, n=n, epsilon=1.0)
        with pytest.raises(ValueError, match="n"):
            bernoulli_mean(n, 1.0)
        with pytest.raises(ValueError, match="n"):
            beta_bernoulli_bayes(n, 1.0)

    def test_n_not_integer(self):
        with pytest.raises(TypeError, match="n"):
            fano([[0.5, 0.5], [0.1, 0.9], [0.9, 0.1]], separation=1.0, n=2.5, epsilon=1.0)

    @pytest.mark.parametrize("sep", [0.0, -1.0, math.nan])
    def test_separation(self, sep):
        with pytest.raises(ValueError, match="separation"):
            le_cam([0.5, 0.5], [0.4, 0.6], separation=sep, n=1, epsilon=1.0)
        with pytest.raises(ValueError, match="separation"):
            fano(np.eye(3), separation=sep, n=1, epsilon=1.0)
        with pytest.raises(ValueError, match="separation"):
            assouad(paninski_family(2, 0.5), separation=sep, n=1, epsilon=1.0)

    def test_not_pmf(self):
        with pytest.raises(ValueError, match="p0"):
            le_cam([0.5, 0.6], [0.4, 0.6], separation=1.0, n=1, epsilon=1.0)
        with pytest.raises(ValueError, match="p1"):
            le_cam([0.5, 0.5], [-0.4, 1.4], separation=1.0, n=1, epsilon=1.0)
        with pytest.raises(ValueError, match="family"):
            fano([[0.5, 0.6], [0.5, 0.5]], separation=1.0, n=1, epsilon=1.0)
        with pytest.raises(TypeError, match="p0"):
            stein_exponent(["a", "b"], [0.5, 0.5], epsilon=1.0)
        with pytest.raises(ValueError, match="joint"):
            e_gamma_information([[0.5, 0.6]], 1.0)

    def test_too_few_hypotheses(self):
        with pytest.raises(ValueError, match="\\|V\\| >= 2"):
            fano([[0.5, 0.5]], separation=1.0, n=1, epsilon=1.0)
        with pytest.raises(ValueError, match="n_hypotheses"):
            fano(mutual_information=0.1, n_hypotheses=1, separation=1.0, n=1, epsilon=1.0)

    @pytest.mark.parametrize(
        ("eps", "delta", "name"),
        [
            (-0.1, 0.0, "epsilon"),
            (math.nan, 0.0, "epsilon"),
            (1.0, 1.5, "delta"),
            (1.0, -0.1, "delta"),
        ],
    )
    def test_privacy_range(self, eps, delta, name):
        with pytest.raises(ValueError, match=name):
            le_cam(kl=0.1, separation=1.0, n=1, epsilon=eps, delta=delta)
        with pytest.raises(ValueError, match=name):
            mutual_information_bound(eps, delta, 1.0)
        with pytest.raises(ValueError, match=name):
            distribution_estimation(4, 10, eps, delta)

    def test_privacy_arguments(self):
        with pytest.raises(TypeError, match="epsilon"):
            le_cam(kl=0.1, separation=1.0, n=1)
        with pytest.raises(ValueError, match="not both"):
            le_cam(
                [0.5, 0.5],
                [0.4, 0.6],
                separation=1.0,
                n=1,
                epsilon=1.0,
                channel=ldp.randomized_response(1.0),
            )
        with pytest.raises(TypeError, match="channel"):
            le_cam([0.5, 0.5], [0.4, 0.6], separation=1.0, n=1, channel=np.eye(2))
        with pytest.raises(ValueError, match="inputs"):
            le_cam([0.5, 0.5], [0.4, 0.6], separation=1.0, n=1, channel=ldp.k_rr(3, 1.0))

    def test_other_arguments(self):
        with pytest.raises(ValueError, match="kl"):
            le_cam(kl=-0.1, separation=1.0, n=1, epsilon=1.0)
        with pytest.raises(ValueError, match="alpha"):
            min_sample_size(kl=0.1, alpha=1.0, beta=0.1, epsilon=1.0)
        with pytest.raises(ValueError, match="beta"):
            min_sample_size(kl=0.1, alpha=0.1, beta=0.0, epsilon=1.0)
        with pytest.raises(ValueError, match="k"):
            moment_mean(10, 1.0, k=1.0)
        with pytest.raises(ValueError, match="omega"):
            moment_mean(10, 1.0, k=2, omega=1.5)
        with pytest.raises(ValueError, match="loss"):
            fano(np.eye(3), separation=1.0, n=1, epsilon=1.0, loss="hamming")
        with pytest.raises(ValueError, match="loss"):
            distribution_estimation(4, 10, 1.0, loss="l3")
        with pytest.raises(ValueError, match="method"):
            le_cam([0.5, 0.5], [0.4, 0.6], separation=1.0, n=1, epsilon=1.0, method="magic")
        with pytest.raises(ValueError, match="small_ball"):
            bayes(
                small_ball=lambda z: 2.0 + 0 * np.asarray(z),
                n=1,
                epsilon=1.0,
                mutual_information=0.1,
                zeta_max=1.0,
            )
        with pytest.raises(ValueError, match="gamma"):
            beta_bernoulli_e_gamma_information(3, -1.0)
        with pytest.raises(ValueError, match="support"):
            rr_mean_risk(10, 1.0, support=(1.0, 1.0))
        with pytest.raises(ValueError, match="d"):
            ball_mean(10, 1.0, d=0)
        with pytest.raises(ValueError, match="r"):
            ball_mean(10, 1.0, d=3, r=0.0)
        with pytest.raises(ValueError, match="entropy"):
            mutual_information_bound(1.0, 0.0, -1.0)
        with pytest.raises(TypeError, match="entropy"):
            mutual_information_bound(1.0, 0.0)

    def test_results_never_nan(self):
        p0, p1 = [1.0, 0.0], [0.0, 1.0]
        for eps in (0.0, 1.0, INF):
            for b in (
                le_cam(p0, p1, separation=1.0, n=3, epsilon=eps),
                fano(np.eye(3), separation=1.0, n=3, epsilon=eps),
                stein_exponent(p0, p1, epsilon=eps),
                min_sample_size(p0, p1, alpha=0.1, beta=0.1, epsilon=eps),
                mutual_information_bound(eps, 0.0, INF),
                bernoulli_mean(3, eps),
                distribution_estimation(3, 3, eps),
                beta_bernoulli_bayes(3, eps),
            ):
                assert not math.isnan(b.value)
        assert fano(np.eye(3), separation=1.0, n=3, epsilon=1.0, information="kl-pairs").value == 0


def test_ball_mean_with_a_subnormal_epsilon_is_silent():
    """phi(eps) ~ 2e-311 made k / (50 n phi) overflow (a numpy warning, an error here)."""
    from ldp import risk

    bound = risk.ball_mean(1, 2.225073858507e-311, 0.0, d=16)
    assert bound.value >= 0.0 and math.isfinite(bound.value)


def test_bernoulli_mean_rate_names_the_factor_its_value_uses():
    """The tanh routes' values follow tanh^2(eps/2); the rate said phi(eps, delta)."""
    from scipy.optimize import minimize_scalar

    from ldp.risk import bernoulli_mean

    for n, eps in [(1000, 0.5), (10**6, 0.1), (1000, 3.0)]:
        b = bernoulli_mean(n, eps)
        assert b.route.endswith("-tanh")
        assert "tanh^2(eps/2)" in b.rate and "phi" not in b.rate
        assert b.factor == pytest.approx(math.tanh(eps / 2) ** 2)

    # the constants of the rates, derived independently: with u = n f s^2 the KL route's
    # TV is 2 sqrt(u) and the Hellinger route's sqrt(2 (1 - e^{-2u})); maximise u (1 - TV)
    def best(g, top):
        return -minimize_scalar(lambda u: -g(u), bounds=(0, top), method="bounded").fun

    kl_c = best(lambda u: u * (1 - 2 * math.sqrt(u)), 0.25)
    h_c = best(lambda u: u * (1 - math.sqrt(2 * -math.expm1(-2 * u))), 0.5)
    n, eps = 10**8, 0.5
    t2 = math.tanh(eps / 2) ** 2
    for method, const, text in [("kl-tanh", kl_c, "27 n"), ("hellinger-tanh", h_c, "23.7 n")]:
        b = bernoulli_mean(n, eps, method=method)
        assert b.value * n * t2 == pytest.approx(const, rel=1e-3)
        assert text in b.rate and "tanh^2(eps/2)" in b.rate
    b = bernoulli_mean(n, eps, 1e-9, method="hellinger")
    assert "23.7 n phi(eps, delta)" in b.rate

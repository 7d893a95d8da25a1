"""Privacy-loss distributions on a lattice (exactness, pessimistic rounding, numerics)."""

import math

import numpy as np
import pytest

from ldp import Channel, k_rr
from ldp.accounting.curves.pld import PrivacyLossDistribution
from ldp.divergences import hockey_stick


def _brute_force_delta(p, q, n, eps):
    """Hockey-stick of the explicit n-fold product (kron), independent of the PLD code."""
    pn, qn = np.array([1.0]), np.array([1.0])
    for _ in range(n):
        pn, qn = np.kron(pn, p), np.kron(qn, q)
    gamma = np.exp(np.asarray(eps, dtype=float))[..., None]
    return np.maximum(pn - gamma * qn, 0.0).sum(axis=-1)  # sum (p - e^eps q)_+, any real eps


def test_exact_lattice_detected_for_commensurate_losses():
    k = k_rr(4, 0.7).matrix
    pld = PrivacyLossDistribution.from_pair(k[0], k[1])
    assert pld.exact and pld.interval == pytest.approx(0.7)
    mixed = PrivacyLossDistribution.from_pair([0.5, 0.3, 0.2], [0.2, 0.3, 0.5])
    assert mixed.exact  # losses +-log 2.5 and 0


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_composition_matches_brute_force_product(n):
    p = np.array([8, 4, 2, 1]) / 15  # log-ratios +-log 2, +-3 log 2: a lattice
    q = p[::-1]
    pld = PrivacyLossDistribution.from_pair(p, q).self_compose(n)
    assert pld.exact
    eps = np.array([-0.5, 0.0, 0.4, 1.0, 2.5, 5.0])
    np.testing.assert_allclose(pld.delta(eps), _brute_force_delta(p, q, n, eps), atol=1e-13)


def test_rounding_up_is_an_upper_bound_and_converges(rng):
    p, q = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
    eps = np.array([0.0, 0.2, 0.5, 1.0])
    truth = _brute_force_delta(p, q, 3, eps)
    previous = None
    for h in [1e-2, 1e-3, 1e-4]:
        pld = PrivacyLossDistribution.from_pair(p, q, interval=h)
        assert not pld.exact
        got = pld.self_compose(3).delta(eps)
        assert np.all(got >= truth - 1e-14)
        assert np.all(got - truth <= 3 * h)  # each loss moves up by < h
        if previous is not None:
            assert np.all(got <= previous + 1e-14)
        previous = got


def test_infinite_losses_and_tv():
    p = np.array([0.1, 0.6, 0.3, 0.0])
    q = np.array([0.0, 0.3, 0.6, 0.1])
    pld = PrivacyLossDistribution.from_pair(p, q)
    assert pld.inf_mass == pytest.approx(0.1)
    assert pld.tv == pytest.approx(0.5 * np.abs(p - q).sum())
    two = pld.self_compose(2)
    assert two.inf_mass == pytest.approx(1 - 0.9**2)
    assert two.delta(np.inf) == pytest.approx(0.19)
    np.testing.assert_allclose(two.delta([0.0, 1.0]), _brute_force_delta(p, q, 2, [0.0, 1.0]))


def test_epsilon_inverts_delta():
    e = math.exp(0.5)
    pld = PrivacyLossDistribution.from_pair([e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)])
    ten = pld.self_compose(25)
    targets = np.array([0.5, 0.1, 1e-3, 1e-6, 1e-9])
    eps = ten.epsilon(targets)
    assert np.all(ten.delta(eps) <= targets * (1 + 1e-9))
    assert np.all(ten.delta(eps * (1 - 1e-6) - 1e-9) > targets)
    assert ten.epsilon(0.0) == pytest.approx(12.5)
    assert ten.epsilon(1.0) == 0.0


def test_fft_path_error_bound_small_and_exact_values():
    k = k_rr(3, 1.0).matrix
    pld = PrivacyLossDistribution.from_pair(k[0], k[1]).self_compose(3000)
    assert pld.error < 1e-11
    # mean of the composed loss under P is n KL(P||Q); TV and tail are in [0, 1]
    kl = float(np.sum(k[0] * np.log(k[0] / k[1])))
    mean = float(np.sum(pld.probs * pld.losses))
    assert mean == pytest.approx(3000 * kl, rel=1e-9)


def test_compose_checks():
    a = PrivacyLossDistribution(np.array([0.5, 0.5]), 0, 0.1)
    b = PrivacyLossDistribution(np.array([1.0]), 0, 0.2)
    with pytest.raises(ValueError, match="interval mismatch"):
        a.compose(b)
    with pytest.raises(ValueError, match="n must be >= 0"):
        a.self_compose(-1)
    with pytest.raises(ValueError, match="probs"):
        PrivacyLossDistribution(np.array([-0.1, 1.1]), 0, 0.1)
    with pytest.raises(ValueError, match="interval"):
        PrivacyLossDistribution(np.array([1.0]), 0, 0.0)
    with pytest.raises(ValueError, match="same length"):
        PrivacyLossDistribution.from_pair([0.5, 0.5], [1.0])
    assert a.self_compose(0).delta(0.0) == 0.0


def test_channel_rows_agree_with_channel_profile():
    m = Channel([[0.6, 0.3, 0.1], [0.2, 0.3, 0.5]])
    pld = PrivacyLossDistribution.from_pair(m.matrix[0], m.matrix[1])  # log 3, 0, -log 5
    assert not pld.exact  # incommensurate: rounded up onto 1e-4
    truth = hockey_stick(m.matrix[0], m.matrix[1], math.exp(0.3))
    assert truth <= pld.delta(0.3) <= truth + 1e-4


def test_dp_accounting_interop_agrees():
    dpl = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    e = math.exp(1.0)
    ours = PrivacyLossDistribution.from_pair([e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)])
    theirs = ours.to_dp_accounting().self_compose(10)
    mine = ours.self_compose(10)
    for eps in [0.0, 0.5, 3.0, 7.0]:
        assert theirs.get_delta_for_epsilon(eps) == pytest.approx(mine.delta(eps), abs=1e-12)
    # dp-accounting's own randomized-response PLD gives the same profile
    # noise_parameter: probability of a uniformly random report (flip probability / 2)
    native = dpl.from_randomized_response(2 / (1 + e), 2, value_discretization_interval=1.0)
    assert native.self_compose(10).get_delta_for_epsilon(3.0) == pytest.approx(
        mine.delta(3.0), abs=1e-9
    )


# ------------------------------------------------------------- rounding only upwards
def _pair_with_losses(l1, l2):
    """Two-outcome pair (p, q) with log(p/q) = (l1, l2): p2 = (1 - e^-l1)/(e^-l2 - e^-l1)."""
    p2 = -math.expm1(-l1) / (math.exp(-l2) - math.exp(-l1))
    p = np.array([1.0 - p2, p2])
    return p, p * np.exp(-np.array([l1, l2]))


def _hockey_stick_mpmath(p, q, n, eps):
    """E_{e^eps}(P^n || Q^n) of the float pair (normalised exactly), at 60 digits."""
    import mpmath

    mpmath.mp.dps = 60
    p = [mpmath.mpf(float(v)) for v in p]
    q = [mpmath.mpf(float(v)) for v in q]
    sp, sq = sum(p), sum(q)
    p, q = [v / sp for v in p], [v / sq for v in q]
    gamma = mpmath.exp(mpmath.mpf(eps))
    total = mpmath.mpf(0)
    for k in range(n + 1):  # two outcomes: the binomial over the count of outcome 0
        a = mpmath.binomial(n, k) * p[0] ** k * p[1] ** (n - k)
        b = mpmath.binomial(n, k) * q[0] ** k * q[1] ** (n - k)
        total += max(a - gamma * b, 0)
    return total


@pytest.mark.parametrize("n", [1, 3])
def test_losses_near_a_lattice_are_not_snapped_down(n):
    """log-ratios 2 + 1.5e-9 and -1 are not 2 and -1: rounding goes up only."""
    import mpmath

    p, q = _pair_with_losses(2 + 1.5e-9, -1.0)
    assert np.log(p / q)[0] - 2.0 == pytest.approx(1.5e-9, rel=1e-6)
    pld = PrivacyLossDistribution.from_pair(p, q).self_compose(n)
    assert not pld.exact
    for eps in [0.0, 0.5, 1.5, 2.0 * n - 0.5, 2.0 * n - 1e-3]:
        exact = _hockey_stick_mpmath(p, q, n, eps)
        got = pld.delta(eps)
        assert mpmath.mpf(got) >= exact
        assert got - float(exact) <= n * 1e-4


def test_a_commensurate_pair_rounds_its_float_losses_up():
    """RR at eps = 16: the computed loss sits a few ulps from the exact log-ratio; the
    profile just below the top loss must still be an upper bound (it was a relative 6e-8
    low there when the loss was snapped down onto the lattice)."""
    import mpmath

    e = math.exp(16.0)
    p, q = np.array([e / (1 + e), 1 / (1 + e)]), np.array([1 / (1 + e), e / (1 + e)])
    for n in [1, 2, 3]:
        pld = PrivacyLossDistribution.from_pair(p, q).self_compose(n)
        assert pld.exact
        top = float(mpmath.log(mpmath.mpf(p[0]) / mpmath.mpf(q[0])))
        # 1e-6 below the top loss an ulp of the loss is a relative 1e-9 of delta
        for eps, rel in [(n * top - 1e-6, 1e-7), (n * top - 1e-3, 1e-10), (0.5, 1e-12)]:
            exact = _hockey_stick_mpmath(p, q, n, eps)
            got = pld.delta(eps)
            assert mpmath.mpf(got) >= exact
            assert float((got - exact) / exact) < rel


def test_top_level_is_where_the_profile_is_the_infinite_atom():
    import ldp
    from ldp.accounting import compose

    for k, eps0, t in [(4, 0.9, 1), (2, 1.0, 7), (10, 3.0, 3)]:
        (pld,) = compose(ldp.k_rr(k, eps0), t).plds
        top = pld.top_level
        assert t * eps0 <= top <= t * eps0 * (1 + 1e-12)  # the largest loss, rounded up
        assert pld.delta(top) == 0.0 == pld.inf_mass
        assert pld.delta(t * eps0 * (1 - 1e-9)) > 0.0


def test_curve_of_a_pure_composition_keeps_its_corners():
    # two nearly equal top levels (the last lattice level and the top level) once made the
    # hull drop both lines, so the curve reached 0 before alpha = 1 (no finite GDP level)
    import ldp
    from ldp.accounting import compose, get_mu_from_tradeoff

    c = compose(ldp.k_rr(4, 0.9), 10)
    f = c.tradeoff
    assert f(0.0) == 1.0 and f(1.0 - 1e-6) > 0.0
    assert get_mu_from_tradeoff(f) == pytest.approx(c.gdp_mu, rel=1e-5)


def test_sparse_powers_of_a_channel_pair_match_exact_enumeration():
    """A finite channel's pair has few atoms on a fine lattice: its first powers are summed
    atom by atom (rounded up), the later ones by FFT. Both must stay above the exact law of
    the composed losses (enumerated over all output sequences) and close to it."""
    import itertools

    rng = np.random.default_rng(4)
    matrix = rng.uniform(0.5, 1.5, (2, 4))
    matrix /= matrix.sum(axis=1, keepdims=True)
    p, q = matrix
    pld = PrivacyLossDistribution.from_pair(p, q)
    assert not pld.exact and np.count_nonzero(pld.probs) == 4 and pld.probs.size > 1000
    losses = np.log(p / q)
    for n in (2, 3, 5):
        composed = pld.self_compose(n)
        total = np.zeros(0)
        weights = np.zeros(0)
        for outputs in itertools.product(range(4), repeat=n):
            total = np.append(total, losses[list(outputs)].sum())
            weights = np.append(weights, np.prod(p[list(outputs)]))
        for eps in (0.0, 0.3, 1.0):
            exact = float(np.sum(weights * np.clip(1.0 - np.exp(eps - total), 0.0, None)))
            got = float(composed.delta(eps))
            assert got >= exact - 1e-15
            assert got <= exact + n * composed.interval + 1e-9  # losses rounded up by < h each

"""Curves answer for themselves: each gives its own pessimistic PLD and its dominating pair.

:func:`~ldp.accounting.compose` asks every curve for ``dominating_pair()`` (to find one
lattice for all) and ``pld(interval)`` instead of switching on its class, so a curve class
defined outside the library composes and converts without any library edit (the
randomized-response curve below). Each curve's own answer is checked against the
construction the switch used before (identical numbers) and against an independent
computation (closed form or brute force): a privacy loss is never rounded down.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.special import comb

from ldp.accounting import (
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    PiecewiseLinearTradeOff,
    PrivacyLossDistribution,
    TradeOffFunction,
    compose,
    get_epsilon_from_tradeoff,
    subsample_tradeoff,
)
from ldp.accounting.curves.curve_plds import gaussian_pld, laplace_pld

EPS_GRID = np.linspace(0.0, 6.0, 61)


class RandomizedResponseCurve(TradeOffFunction):
    """The trade-off curve of binary randomized response at ``epsilon``, written from
    scratch: ``P = (e^eps, 1)/(1 + e^eps)``, ``Q = (1, e^eps)/(1 + e^eps)``."""

    is_symmetric = True

    def __init__(self, epsilon: float) -> None:
        self.epsilon = float(epsilon)

    def _pair(self) -> tuple[np.ndarray, np.ndarray]:
        e = math.exp(self.epsilon)
        return np.array([e, 1.0]) / (1 + e), np.array([1.0, e]) / (1 + e)

    def _evaluate(self, alpha: np.ndarray) -> np.ndarray:
        e = math.exp(self.epsilon)
        return np.maximum.reduce([np.zeros_like(alpha), 1 - e * alpha, (1 - alpha) / e])

    def _delta(self, epsilon: np.ndarray) -> np.ndarray:
        p, q = self._pair()
        e = np.asarray(epsilon, dtype=np.float64)
        gap = q - np.exp(e)[..., None] * p
        return np.clip(gap, 0.0, None).sum(axis=-1) * (1 + 1e-15)

    def dominating_pair(self) -> tuple[np.ndarray, np.ndarray]:
        return self._pair()


def _rr_composed_delta(epsilon: float, k: int, levels: np.ndarray) -> np.ndarray:
    """Brute force: k-fold RR loses ``(k - 2j) eps`` with binomial probabilities."""
    p = math.exp(epsilon) / (1 + math.exp(epsilon))
    j = np.arange(k + 1)
    mass = comb(k, j) * p ** (k - j) * (1 - p) ** j
    loss = (k - 2 * j) * epsilon
    return np.array([np.sum(mass * np.clip(1 - np.exp(e - loss), 0, None)) for e in levels])


# ------------------------------------------------------------- a curve from outside composes
@pytest.mark.parametrize(("epsilon", "k"), [(0.5, 10), (1.0, 7), (2.0, 3)])
def test_a_new_curve_composes_without_library_edits(epsilon, k):
    curve = RandomizedResponseCurve(epsilon)
    composed = compose(curve, k)
    exact = _rr_composed_delta(epsilon, k, EPS_GRID)
    got = np.asarray(composed.delta(EPS_GRID))
    assert np.all(got >= exact - 1e-15)  # never below the truth
    np.testing.assert_allclose(got, exact, atol=1e-12)
    # the same numbers as the library's own piecewise-linear spelling of the curve
    library = np.asarray(compose(EpsDeltaTradeOff(epsilon), k).delta(EPS_GRID))
    np.testing.assert_allclose(got, library, atol=1e-14)


def test_a_new_curve_composes_with_library_curves_and_converts():
    mixed = compose([RandomizedResponseCurve(1.0), GaussianTradeOff(0.5), EpsDeltaTradeOff(0.3)])
    alone = compose([EpsDeltaTradeOff(1.0), GaussianTradeOff(0.5), EpsDeltaTradeOff(0.3)])
    np.testing.assert_allclose(mixed.delta(EPS_GRID), alone.delta(EPS_GRID), atol=1e-12)
    curve = RandomizedResponseCurve(1.0)
    # conversions ask the curve's profile
    assert get_epsilon_from_tradeoff(curve, 0.0) == pytest.approx(1.0, abs=1e-9)
    assert curve.epsilon_for_delta(0.1) == pytest.approx(
        EpsDeltaTradeOff(1.0).epsilon_for_delta(0.1), abs=1e-9
    )
    pld = PrivacyLossDistribution.from_tradeoff(curve)
    assert pld.delta(0.5) >= float(curve.delta(0.5)) - 1e-15


def test_what_is_not_a_curve_with_a_pld_is_one_type_error():
    class Opaque(RandomizedResponseCurve):
        def dominating_pair(self):  # type: ignore[override]
            return None

    with pytest.raises(TypeError, match="Opaque has no privacy-loss distribution"):
        compose([Opaque(1.0), EpsDeltaTradeOff(1.0)])
    with pytest.raises(TypeError, match="got Opaque"):
        PrivacyLossDistribution.from_tradeoff(Opaque(1.0))
    with pytest.raises(TypeError, match="no privacy-loss distribution"):
        compose([subsample_tradeoff(GaussianTradeOff(1.0), 0.5), GaussianTradeOff(1.0)])


# ------------------------------------------- each curve's own answer, against the old switch
@pytest.mark.parametrize("mu", [0.0, 0.3, 1.0, 2.5, math.inf])
def test_the_gaussian_curve_gives_the_pld_the_switch_built(mu):
    curve = GaussianTradeOff(mu)
    assert curve.dominating_pair() is None
    own, before = curve.pld(1e-3), gaussian_pld(mu, 1e-3)  # the switch's construction
    np.testing.assert_array_equal(own.probs, before.probs)
    assert own.delta(1.0) == before.delta(1.0)
    # and against the closed form: on the safe side, and close
    truth = np.asarray(curve.delta(EPS_GRID))
    got = np.asarray(own.delta(EPS_GRID))
    assert np.all(got >= truth - 1e-15)
    np.testing.assert_allclose(got, truth, atol=5e-3)


@pytest.mark.parametrize("mu", [0.0, 0.5, 1.0, 3.0])
def test_the_laplace_curve_gives_the_pld_the_switch_built(mu):
    curve = LaplaceTradeOff(mu)
    assert curve.dominating_pair() is None
    own, before = curve.pld(1e-3), laplace_pld(mu, 1e-3)
    np.testing.assert_array_equal(own.probs, before.probs)
    truth = np.asarray(curve.delta(EPS_GRID))
    got = np.asarray(own.delta(EPS_GRID))
    assert np.all(got >= truth - 1e-15)
    np.testing.assert_allclose(got, truth, atol=5e-3)


@pytest.mark.parametrize(
    "curve",
    [
        EpsDeltaTradeOff(1.0),
        EpsDeltaTradeOff(0.5, 1e-3),
        PiecewiseLinearTradeOff([0, 0.1, 1], [0.7, 0.2, 0]),
    ],
    ids=repr,
)
def test_a_piecewise_linear_curve_gives_the_pld_of_its_dominating_pair(curve):
    p, q = curve.dominating_pair()
    own = curve.pld(1e-4)
    before = PrivacyLossDistribution.from_pair(q, p, 1e-4)  # the switch's construction
    np.testing.assert_array_equal(own.probs, before.probs)
    assert (own.offset, own.inf_mass) == (before.offset, before.inf_mass)
    # brute force from the pair: sum (q - e^eps p)_+
    truth = np.array([np.clip(q - math.exp(e) * p, 0, None).sum() for e in EPS_GRID])
    assert np.all(np.asarray(own.delta(EPS_GRID)) >= truth - 1e-15)


# ------------------------------------------------------------- the docs example runs as shown
DEVELOPER = Path(__file__).resolve().parents[3] / "docs" / "developer.md"


def test_the_add_a_curve_example_of_the_docs_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", DEVELOPER.read_text(), flags=re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "docs/developer.md", "exec"), {"__name__": "developer_md"})
    printed = capsys.readouterr().out
    assert "10 reports of 1-RR: delta(2) = " in printed
    assert "the largest per-report epsilon: 1.06952" in printed  # log((e + 0.05) / 0.95)


# ------------------------------------------------------ the privacy-profile protocol, hooks
def test_curves_mechanisms_and_channels_are_privacy_profiles():
    from ldp import Channel
    from ldp.core import PrivacyProfile, check_privacy_profile
    from ldp.mechanisms import k_rr

    for value in (
        RandomizedResponseCurve(1.0),
        GaussianTradeOff(1.0),
        k_rr(3, 1.0),
        Channel([[0.7, 0.3], [0.3, 0.7]]),
    ):
        assert isinstance(value, PrivacyProfile)
        assert check_privacy_profile(value, "x") is value
    for bad in ("rr", 1.0, None, GaussianTradeOff):
        with pytest.raises(TypeError, match=r"x=.* is not a privacy profile"):
            check_privacy_profile(bad, "x")
    with pytest.raises(TypeError, match="is not a privacy profile"):
        compose([RandomizedResponseCurve(1.0), object()])


def test_a_curve_that_overrides_no_hook_takes_the_generic_path():
    from ldp.accounting import group_privacy, tradeoff_summary

    curve = RandomizedResponseCurve(1.0)
    assert curve.gdp_mu() is None and curve.gdp_level() is None
    assert curve.group_curve(2) is None and curve.area() is None
    assert curve.subsampled_gaussian() is None
    # the generic answers agree with the library's own RR curve (EpsDeltaTradeOff)
    same = EpsDeltaTradeOff(1.0)
    assert tradeoff_summary(curve).gamma == pytest.approx(tradeoff_summary(same).gamma, abs=1e-9)
    pair = group_privacy(curve, 2)
    alphas = np.linspace(0.0, 1.0, 101)
    exact = group_privacy(same, 2)(alphas)  # the library's pair curve of RR
    assert np.all(pair(alphas) <= exact + 1e-12)  # the generic path is never optimistic
    assert np.max(exact - pair(alphas)) < 1e-3


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_closed_form_hooks_against_quadrature(mu):
    from scipy.integrate import quad

    for curve in (GaussianTradeOff(mu), LaplaceTradeOff(mu), EpsDeltaTradeOff(mu, 0.01)):
        value, _ = quad(lambda x, f=curve: float(f(x)), 0.0, 1.0, limit=400, epsabs=1e-13)
        assert curve.area() == pytest.approx(value, abs=1e-9)
    assert GaussianTradeOff(mu).gdp_mu() == mu
    assert GaussianTradeOff(mu).group_curve(3).mu == pytest.approx(3 * mu)
    assert LaplaceTradeOff(mu).group_curve(2).mu == pytest.approx(2 * mu)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_piecewise_gdp_level_against_a_grid_search(epsilon):
    curve = EpsDeltaTradeOff(epsilon)
    level = curve.gdp_level()
    alphas = np.linspace(1e-6, 1 - 1e-6, 20001)
    assert np.all(GaussianTradeOff(level)(alphas) <= curve(alphas) + 1e-12)
    assert np.any(GaussianTradeOff(level * (1 - 1e-3))(alphas) > curve(alphas))


# ------------------------------------------------------------ divergences ask the curve
@pytest.mark.parametrize("epsilon", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("order", [1.5, 2.0, 8.0])
def test_a_curve_without_closed_form_divergences_takes_its_dominating_pair(epsilon, order):
    from ldp.accounting import tradeoff_chi2_plus, tradeoff_renyi

    curve = RandomizedResponseCurve(epsilon)
    assert curve.closed_form_divergence("renyi", order) is None
    # by hand (Dong-Roth-Su (2022), proof of Proposition B.7): the cosh form of RR
    renyi = math.log(math.cosh(epsilon * (order - 0.5)) / math.cosh(epsilon / 2)) / (order - 1)
    assert tradeoff_renyi(curve, order) == pytest.approx(renyi, rel=1e-12)
    e = math.exp(epsilon)  # slope e^eps on a piece of width 1 / (1 + e^eps)
    assert tradeoff_chi2_plus(curve) == pytest.approx((e - 1) ** 2 / (1 + e), rel=1e-12)
    # the same numbers as the library's piecewise-linear spelling, which answers itself
    library = EpsDeltaTradeOff(epsilon)
    assert library.closed_form_divergence("renyi", order) is not None
    assert tradeoff_renyi(curve, order) == pytest.approx(tradeoff_renyi(library, order), 1e-12)


def test_a_curve_with_its_own_closed_form_divergence_is_asked_first():
    from ldp.accounting import tradeoff_chi2_plus, tradeoff_renyi

    asked = []

    class Answering(RandomizedResponseCurve):
        def closed_form_divergence(self, kind, order=None):
            asked.append((kind, order))
            return 0.125 if kind == "renyi" else None  # no closed chi^2_+: the pair

    curve = Answering(1.0)
    assert tradeoff_renyi(curve, 3.0) == 0.125
    e = math.e
    assert tradeoff_chi2_plus(curve) == pytest.approx((e - 1) ** 2 / (1 + e), rel=1e-12)
    assert asked == [("renyi", 3.0), ("chi2_plus", None)]


def test_a_curve_with_neither_closed_form_nor_pair_is_one_type_error():
    from ldp.accounting import tradeoff_chi2_plus, tradeoff_renyi

    class Opaque(RandomizedResponseCurve):
        def dominating_pair(self):  # type: ignore[override]
            return None

    with pytest.raises(TypeError, match="Opaque gives no closed-form Renyi divergence"):
        tradeoff_renyi(Opaque(1.0), 2.0)
    with pytest.raises(TypeError, match=r"Opaque gives no closed-form chi\^2_\+"):
        tradeoff_chi2_plus(Opaque(1.0))


@pytest.mark.parametrize(
    "curve",
    [EpsDeltaTradeOff(1.0, 0.01), PiecewiseLinearTradeOff([0, 0.1, 0.6, 1], [0.9, 0.2, 0, 0])],
    ids=repr,
)
def test_the_pair_route_agrees_with_the_pieces_at_atoms_and_zero_slopes(curve):
    from ldp.accounting import tradeoff_chi2_plus, tradeoff_renyi

    class PairOnly(TradeOffFunction):
        def __init__(self, f):
            self.f = f

        def _evaluate(self, alpha):
            return self.f(alpha)

        def _delta(self, epsilon):
            return self.f.delta(epsilon)

        def dominating_pair(self):
            return self.f.dominating_pair()

    for order in (1.5, 4.0):
        assert tradeoff_renyi(PairOnly(curve), order) == pytest.approx(
            tradeoff_renyi(curve, order), rel=1e-12
        )
    assert tradeoff_chi2_plus(PairOnly(curve)) == tradeoff_chi2_plus(curve) == math.inf


# ---------------------------------------------------- the CLT and Edgeworth ask the curve
@pytest.mark.parametrize("epsilon", [0.2, 1.0, 3.0])
def test_a_curve_without_functionals_is_summed_over_its_dominating_pair(epsilon):
    from ldp.accounting import clt_mu_approx, tradeoff_functionals

    curve = RandomizedResponseCurve(epsilon)
    assert curve.functionals() is None
    v = tradeoff_functionals(curve)
    # by hand: the log-slope is +eps on a piece of width 1/(1 + e^eps), -eps on the rest
    kl = epsilon * math.tanh(epsilon / 2)
    w = 1 / (1 + math.exp(epsilon))
    bar = w * abs(epsilon + kl) ** 3 + (1 - w) * abs(-epsilon + kl) ** 3
    expected = {"kl": kl, "kappa2": epsilon**2, "kappa3": epsilon**3, "kappa3_bar": bar}
    for name, value in expected.items():
        assert v[name] == pytest.approx(value, rel=1e-12), name
    # Dong-Roth-Su (2022), §3.2: n copies of eps-RR give mu = 2 sqrt(n) sinh(eps / 2)
    assert clt_mu_approx([curve] * 9) == pytest.approx(6 * math.sinh(epsilon / 2), rel=1e-12)


def test_a_curve_with_its_own_functionals_and_key_is_asked_and_counted_once():
    from ldp.accounting import clt_mu_approx, edgeworth_cumulants, tradeoff_functionals

    calls = []

    class Answering(RandomizedResponseCurve):
        def functionals(self):
            calls.append(self.epsilon)
            return dict.fromkeys(("kl", "kappa2", "kappa3", "kappa3_bar"), 0.5)

        def identity_key(self):
            return ("rr", self.epsilon)

        def loss_cumulants(self):
            return np.array([-0.5, 1.0, 0.0, 0.0]), np.array([0.5, 1.0, 0.0, 0.0])

    assert tradeoff_functionals(Answering(1.0))["kappa3"] == 0.5
    calls.clear()
    # ten equal curves (distinct objects) are evaluated once: mu = 2 * 5 / sqrt(10 * 0.25)
    mu = clt_mu_approx([Answering(1.0) for _ in range(10)])
    assert calls == [1.0]
    assert mu == pytest.approx(10 / math.sqrt(2.5), rel=1e-12)
    kp, kq = edgeworth_cumulants(Answering(1.0))
    assert kp.tolist() == [-0.5, 1.0, 0.0, 0.0] and kq.tolist() == [0.5, 1.0, 0.0, 0.0]


def test_edgeworth_refuses_lattice_curves_and_curves_it_knows_nothing_of():
    from ldp.accounting import edgeworth_cumulants, tradeoff_functionals

    class Opaque(RandomizedResponseCurve):
        def dominating_pair(self):  # type: ignore[override]
            return None

    with pytest.raises(ValueError, match="lattice"):
        edgeworth_cumulants(RandomizedResponseCurve(1.0))
    with pytest.raises(TypeError, match="no cumulants known for Opaque"):
        edgeworth_cumulants(Opaque(1.0))
    with pytest.raises(TypeError, match=r"tradeoff_functionals needs .* got Opaque"):
        tradeoff_functionals(Opaque(1.0))


# ------------------------------------------------- the natural filter asks the curve's family
def test_the_natural_filter_asks_the_curve_which_family_it_belongs_to():
    from ldp.accounting import InvalidFilterError, NaturalFDPFilter

    class PureMember(RandomizedResponseCurve):
        def chain_family(self):
            return ("pure_dp", self.epsilon)

    class ExactlyGaussian(RandomizedResponseCurve):  # a stand-in that claims G_0.6
        def gdp_mu(self):
            return 0.6

    assert RandomizedResponseCurve(1.0).chain_family() is None
    assert EpsDeltaTradeOff(1.0).chain_family() == ("pure_dp", 1.0)
    assert EpsDeltaTradeOff(1.0, 1e-6).chain_family() is None
    assert GaussianTradeOff(0.5).chain_family() == ("gaussian", 0.5)
    assert LaplaceTradeOff(0.5).chain_family() == ("laplace", 0.5)
    rr = NaturalFDPFilter(EpsDeltaTradeOff(2.0, 0.05), family="pure_dp", max_steps=2)
    assert rr.request(PureMember(1.0)) and rr.history == [1.0]
    with pytest.raises(InvalidFilterError, match="got RandomizedResponseCurve"):
        rr.request(RandomizedResponseCurve(1.0))
    with pytest.raises(InvalidFilterError, match="got PureMember"):
        NaturalFDPFilter(GaussianTradeOff(1.0)).request(PureMember(1.0))
    gdp = NaturalFDPFilter(GaussianTradeOff(1.0))  # mu budget 1: 0.6^2 + 0.6^2 < 1 < 3 * 0.36
    assert gdp.request(ExactlyGaussian(1.0)) and gdp.request(ExactlyGaussian(1.0))
    assert gdp.history == [0.6, 0.6] and not gdp.request(ExactlyGaussian(1.0))


# ------------------------------------------------- calibrate a family of one's own curves
def _rr_level_for(target_epsilon: float, target_delta: float) -> float:
    """By hand: RR at e0 has delta(t) = (e^e0 - e^t)/(1 + e^e0), so the largest e0 with
    delta(t) <= d is log((e^t + d)/(1 - d))."""
    return math.log((math.exp(target_epsilon) + target_delta) / (1 - target_delta))


@pytest.mark.parametrize(("target_epsilon", "target_delta"), [(0.5, 0.0), (1.0, 0.05), (2.0, 0.3)])
def test_calibrate_a_user_defined_curve_family(target_epsilon, target_delta):
    from ldp.accounting import calibrate

    exact = _rr_level_for(target_epsilon, target_delta)
    got = calibrate(
        target_epsilon, target_delta, family=RandomizedResponseCurve, bracket=(1e-6, 20.0)
    )
    assert exact * (1 - 1e-6) <= got <= exact  # rounded down: the safe side
    assert float(RandomizedResponseCurve(got).delta(target_epsilon)) <= target_delta
    # the same family by its flip probability q (leaks less as q grows): rounded up
    flip = calibrate(
        target_epsilon,
        target_delta,
        family=lambda q: RandomizedResponseCurve(math.log((1 - q) / q)),
        bracket=(1e-9, 0.5 - 1e-9),
        increasing=False,
    )
    exact_flip = 1 / (1 + math.exp(exact))
    assert exact_flip <= flip <= exact_flip * (1 + 1e-6)


def test_calibrate_a_user_defined_family_over_several_reports():
    from ldp.accounting import calibrate

    got = calibrate(1.0, 1e-3, family=RandomizedResponseCurve, bracket=(1e-6, 5.0), folds=5)
    # by brute force (binomial losses): the result meets the target, 0.1% more does not
    assert _rr_composed_delta(got, 5, np.array([1.0]))[0] <= 1e-3
    assert _rr_composed_delta(got * 1.001, 5, np.array([1.0]))[0] > 1e-3


def test_calibrate_a_user_defined_family_refuses_what_it_cannot_do():
    from ldp.accounting import calibrate

    with pytest.raises(ValueError, match="bracket"):
        calibrate(1.0, 0.0, family=RandomizedResponseCurve)
    with pytest.raises(ValueError, match="unreachable"):  # 1e-3-DP is not met at eps0 = 2
        calibrate(1e-3, 0.0, family=RandomizedResponseCurve, bracket=(2.0, 5.0))
    with pytest.raises(ValueError, match="family takes no"):
        calibrate(1.0, 0.0, family=RandomizedResponseCurve, bracket=(0.1, 2.0), n_shuffled=10)
    with pytest.raises(TypeError, match=r"family\(2\.0\)=.* is not a privacy profile"):
        calibrate(1.0, 0.0, family=lambda e: "rr", bracket=(0.1, 2.0))
    assert calibrate(5.0, 0.0, family=RandomizedResponseCurve, bracket=(0.1, 2.0)) == 2.0


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
def test_profile_kinks_are_where_the_profile_bends(eps):
    """A piecewise-linear curve's profile bends at log of its slopes: (eps, delta)-DP at eps,
    k-RR at its epsilon (and 0, the flat middle piece); a smooth curve has none."""
    from ldp import k_rr
    from ldp.accounting import EpsDeltaTradeOff, GaussianTradeOff, tradeoff_from_channel

    assert set(np.round(EpsDeltaTradeOff(eps, 0.01).profile_kinks(), 12)) == {eps}
    kinks = tradeoff_from_channel(k_rr(4, eps)).profile_kinks()
    assert set(np.round(kinks, 12)) == {0.0, eps}
    profile = tradeoff_from_channel(k_rr(4, eps))
    # between its bends delta(eps) is linear in e^eps: find them on a grid uniform in e^eps
    x = np.linspace(1.0, math.exp(2 * eps + 1), 4001)
    second = np.diff(np.asarray(profile.delta(np.log(x))), 2)
    bends = x[1:-1][np.abs(second) > 1e-9]
    assert bends.size > 0
    distance = np.min(np.abs(bends[:, None] - np.exp(kinks)[None, :]), axis=1)
    assert np.all(distance <= 1.5 * (x[1] - x[0]))
    assert GaussianTradeOff(1.0).profile_kinks().size == 0

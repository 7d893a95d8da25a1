"""Displays render to PNG with the Agg backend and carry the data they were built from."""

import numpy as np
import pytest

import ldp

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ldp.plotting import PrivacyProfileDisplay, PrivacyUtilityDisplay  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_privacy_profile_display(tmp_path):
    channel = ldp.binary_erasure(1.0, 0.02, 0.3)
    levels = np.linspace(0, 3, 31)
    display = PrivacyProfileDisplay.from_channels({"M": channel}, levels)
    line = display.lines_[0]
    assert np.array_equal(line.get_xdata(), levels)
    assert np.allclose(line.get_ydata(), [channel.delta(e) for e in levels])
    display.figure_.savefig(tmp_path / "profile.png")
    assert (tmp_path / "profile.png").stat().st_size > 1000
    _, ax = plt.subplots()
    again = PrivacyProfileDisplay.from_channels(channel, levels, ax=ax)
    assert again.ax_ is ax


def test_privacy_utility_display(tmp_path):
    display = PrivacyUtilityDisplay.from_design(6, [0.5, 1.1], utility="mi")
    optimum = dict(zip([line.get_label() for line in display.lines_], display.lines_, strict=True))
    # MI of the 2-subset mechanism, k = 6, eps = 1.1, computed by enumeration (numpy)
    assert optimum["optimum"].get_ydata()[1] == pytest.approx(0.1487078233, abs=1e-8)
    display.figure_.savefig(tmp_path / "utility.png")


def test_bad_levels():
    with pytest.raises(ValueError, match="epsilons"):
        PrivacyProfileDisplay.from_channels(ldp.k_rr(3, 1.0), [1.0])
    with pytest.raises(TypeError, match="Channel"):
        PrivacyProfileDisplay.from_channels({"x": np.eye(2)})


# ------------------------------------------------------------------------------- trade-off
def test_tradeoff_display_of_a_channel(tmp_path):
    from ldp.accounting import (
        EpsDeltaTradeOff,
        GaussianTradeOff,
        get_mu_from_tradeoff,
        tradeoff_from_channel,
    )
    from ldp.plotting import TradeOffDisplay

    channel = ldp.k_rr(4, 1.0)
    alphas = np.linspace(0, 1, 201)
    display = TradeOffDisplay.from_channel({"4-RR": channel}, alphas=alphas)
    f = tradeoff_from_channel(channel)
    curve, f_eps, g_mu = display.lines_
    assert np.array_equal(curve.get_xdata(), alphas)
    assert np.allclose(curve.get_ydata(), f(alphas))
    # the references: f_{eps, 0} at the channel's pure epsilon and G_mu with the least mu
    assert np.allclose(f_eps.get_ydata(), EpsDeltaTradeOff(channel.epsilon)(alphas))
    mu = get_mu_from_tradeoff(f)
    assert np.allclose(g_mu.get_ydata(), GaussianTradeOff(mu)(alphas))
    # both lie below the channel's curve (it satisfies them), and G_mu touches it
    assert np.all(f_eps.get_ydata() <= curve.get_ydata() + 1e-12)
    assert np.all(g_mu.get_ydata() <= curve.get_ydata() + 1e-9)
    fine = np.linspace(0, 1, 20001)
    assert np.min(f(fine) - GaussianTradeOff(mu)(fine)) < 1e-3
    # randomized response is exactly f_{eps,0}
    rr = TradeOffDisplay.from_channel(ldp.randomized_response(1.0), alphas=alphas)
    assert np.allclose(rr.lines_[0].get_ydata(), rr.lines_[1].get_ydata())
    display.figure_.savefig(tmp_path / "tradeoff.png")
    assert (tmp_path / "tradeoff.png").stat().st_size > 1000


def test_tradeoff_display_of_a_composition_and_a_curve(tmp_path):
    from ldp.accounting import EpsDeltaEtaTradeOff, EpsDeltaTradeOff, compose
    from ldp.plotting import TradeOffDisplay

    composition = compose(ldp.randomized_response(0.5), 8)
    display = TradeOffDisplay.from_composition({"8 x RR": composition}, epsilon=2.0)
    xs = display.alphas
    assert np.allclose(display.lines_[0].get_ydata(), composition.tradeoff(xs))
    # f_{eps, delta(eps)} at the requested epsilon, with the composition's own delta
    delta = float(composition.delta(2.0))
    assert np.allclose(display.references[next(iter(display.references))],
                       EpsDeltaTradeOff(2.0, delta)(xs))  # fmt: skip
    assert np.all(display.references[next(iter(display.references))] <= display.curves["8 x RR"]
                  + 1e-9)  # fmt: skip
    # a curve that is not pure (delta > 0): f_{1, delta(1)} and no finite mu (f(0) < 1)
    curve = EpsDeltaEtaTradeOff(1.0, 0.05, 0.3)
    display = TradeOffDisplay.from_tradeoff(curve)
    assert len(display.lines_) == 2
    assert np.allclose(display.lines_[1].get_ydata(), EpsDeltaTradeOff(1.0, 0.05)(xs))
    display.figure_.savefig(tmp_path / "composition.png")
    with pytest.raises(TypeError, match="TradeOffFunction"):
        TradeOffDisplay.from_tradeoff({"x": 1.0})
    with pytest.raises(ValueError, match="alphas"):
        TradeOffDisplay.from_tradeoff(curve, alphas=[0.5, 2.0])


# ----------------------------------------------------------------------------- contraction
def test_contraction_display(tmp_path):
    from ldp.contraction import k_rr_coefficient
    from ldp.plotting import ContractionDisplay

    levels = np.array([0.25, 0.5, 1.0, 2.0, 4.0])
    display = ContractionDisplay.from_family("k-rr", levels, k=5, kinds=("tv", "kl"))
    lines = {line.get_label(): line for line in display.lines_}
    assert set(lines) == {"tv", "tv bound", "kl", "kl bound"}
    for kind in ("tv", "kl"):
        assert np.array_equal(lines[kind].get_xdata(), levels)
        expected = [k_rr_coefficient(kind, 5, e) for e in levels]
        assert np.allclose(lines[kind].get_ydata(), expected)
        bounds = [float(ldp.k_rr(5, e).contraction_bound(kind)) for e in levels]
        assert np.allclose(lines[f"{kind} bound"].get_ydata(), bounds)
        assert np.all(lines[kind].get_ydata() <= lines[f"{kind} bound"].get_ydata() + 1e-12)
    display.figure_.savefig(tmp_path / "contraction.png")
    assert (tmp_path / "contraction.png").stat().st_size > 1000


def test_contraction_display_of_erasure_and_callables():
    from ldp.plotting import ContractionDisplay

    levels = np.array([1.0, 2.0, 3.0])
    erasure = ContractionDisplay.from_family("binary-erasure", levels, eta=0.3, kinds=["tv"])
    assert np.allclose(erasure.exact["tv"], 0.3)  # its eta-TV, whatever epsilon
    custom = ContractionDisplay.from_family(lambda e: ldp.randomized_response(e), levels)
    assert np.allclose(custom.exact["chi2"], np.tanh(levels / 2) ** 2)
    assert custom.theorems["chi2"] == [ldp.randomized_response(e).contraction_bound("chi2").theorem
                                       for e in levels]  # fmt: skip
    with pytest.raises(ValueError, match="family"):
        ContractionDisplay.from_family("nope")
    with pytest.raises(ValueError, match="kinds"):
        ContractionDisplay.from_family("rr", kinds="tv")
    with pytest.raises(TypeError, match="Channels"):
        ContractionDisplay.from_family(lambda e: np.eye(2), levels)


# ------------------------------------------------------------------------------------ risk
def test_risk_display(tmp_path):
    from ldp.plotting import RiskDisplay

    ns = np.array([100, 1000, 10_000, 100_000])
    display = RiskDisplay.from_preset("bernoulli-mean", ns, epsilon=1.0)
    lower, achieved = display.lines_
    assert np.array_equal(lower.get_xdata(), ns)
    assert np.allclose(lower.get_ydata(), [ldp.risk.bernoulli_mean(int(n), 1.0).value for n in ns])
    assert np.allclose(achieved.get_ydata(), [ldp.risk.rr_mean_risk(int(n), 1.0).value for n in ns])
    assert np.all(lower.get_ydata() < achieved.get_ydata())
    # the achieved risk is not a lower bound: each curve says what it is, the axis is the risk
    assert (
        lower.get_label()
        == "lower bound: private Le Cam via Hellinger, Ghazi-Issa (2023), Theorem 5"
    )
    assert achieved.get_label() == "achieved: randomized response + unbiased estimator"
    assert (
        display.ax_.get_ylabel() == "minimax risk" and "lower bound" not in display.ax_.get_title()
    )
    assert [t.get_text() for t in display.legend_.get_texts()] == [
        lower.get_label(),
        achieved.get_label(),
    ]
    assert display.ax_.get_xscale() == "log" and display.ax_.get_yscale() == "log"
    display.figure_.savefig(tmp_path / "risk.png")
    assert (tmp_path / "risk.png").stat().st_size > 1000
    dist = RiskDisplay.from_preset("distribution", ns, epsilon=2.0, k=6, loss="l1")
    assert np.allclose(
        dist.lower,
        [ldp.risk.distribution_estimation(6, int(n), 2.0, loss="l1").value for n in ns],
    )
    assert np.allclose(
        dist.achieved, [ldp.risk.krr_distribution_risk(6, int(n), 2.0, loss="l1").value for n in ns]
    )


def test_risk_display_without_an_estimator():
    from ldp.plotting import RiskDisplay

    ns = np.array([10, 20, 40])
    display = RiskDisplay.from_preset("beta-bernoulli", ns, epsilon=1.0, delta=1e-4)
    assert display.achieved is None and len(display.lines_) == 1
    # Asoodeh-Aliakbarpour-Calmon (2021), Fig. 1 at n = 20
    assert display.lower[1] == pytest.approx(0.025817, abs=1e-6)
    # one curve: the axis says it is a lower bound
    assert display.ax_.get_ylabel() == "Bayes risk lower bound"
    moment = RiskDisplay.from_preset("moment-mean", [100, 1000], epsilon=1.0, moment=2)
    assert moment.lower[0] == pytest.approx(ldp.risk.moment_mean(100, 1.0, k=2).value)
    with pytest.raises(TypeError, match="moment"):
        RiskDisplay.from_preset("moment-mean", [100, 1000], epsilon=1.0)
    with pytest.raises(TypeError, match="does not take"):
        RiskDisplay.from_preset("bernoulli-mean", [100, 1000], epsilon=1.0, k=3)
    with pytest.raises(ValueError, match="preset"):
        RiskDisplay.from_preset("nope", [100, 1000], epsilon=1.0)
    with pytest.raises(ValueError, match="ns"):
        RiskDisplay.from_preset("bernoulli-mean", [100.5, 1000], epsilon=1.0)


def test_progress_is_a_bool_and_changes_nothing(capsys):
    from ldp.plotting import ContractionDisplay, RiskDisplay

    quiet = RiskDisplay.from_preset("bernoulli-mean", [10, 100], epsilon=1.0)
    loud = RiskDisplay.from_preset("bernoulli-mean", [10, 100], epsilon=1.0, progress=True)
    assert np.array_equal(quiet.lower, loud.lower)
    with pytest.raises(TypeError, match="progress"):
        ContractionDisplay.from_family("rr", [1.0, 2.0], progress="yes")


def test_tradeoff_display_of_fine_lattice_compositions():
    """from_composition on a Laplace and a Gaussian + RR composition (quadratic memory before)."""
    from ldp.accounting import EpsDeltaTradeOff, GaussianTradeOff, LaplaceTradeOff, compose
    from ldp.plotting import TradeOffDisplay

    display = TradeOffDisplay.from_composition(
        {
            "Laplace": compose(LaplaceTradeOff(3.0), 1),
            "G + RR": compose([GaussianTradeOff(1.0), EpsDeltaTradeOff(1.0)]),
        }
    )
    assert len(display.curves) == 2

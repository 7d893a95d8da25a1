"""Results, curves and mechanisms are immutable, and every privacy profile is spelled alike.

A privacy claim (a profile, its inverse, the symmetry of a trade-off curve) is fixed when the
object is built: assigning an attribute afterwards raises. Every object with a privacy
profile answers ``delta(epsilon)`` and ``epsilon_for_delta(delta)``; curves, compositions
and privacy-loss distributions keep ``epsilon(delta)`` as a synonym.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import ldp
from ldp.accounting import (
    EpsDeltaEtaTradeOff,
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    PiecewiseLinearTradeOff,
    PrivacyLossDistribution,
    compose,
    compose_eps_delta_eta,
    subsample_tradeoff,
    symmetrize,
    tradeoff_from_channel,
    tradeoff_from_pair,
)
from ldp.accounting.central import PoissonSubsampledGaussian
from ldp.contraction import best_bound, coefficient
from ldp.design import optimal_channel, optimal_frequency_channel
from ldp.mechanisms import GRR, OLH, SquareWave, SubsetSelection


def _curves():
    asymmetric = PiecewiseLinearTradeOff([0, 0.1, 1], [0.7, 0.2, 0])
    return {
        "eps-delta": EpsDeltaTradeOff(1.0, 0.01),
        "eps-delta-eta": EpsDeltaEtaTradeOff(1.0, 0.01, 0.3),
        "gaussian": GaussianTradeOff(1.0),
        "laplace": LaplaceTradeOff(1.0),
        "pair": tradeoff_from_pair([0.7, 0.3], [0.2, 0.8]),
        "channel": tradeoff_from_channel(ldp.k_rr(3, 1.0)),
        "asymmetric": asymmetric,
        "inverse": asymmetric.inverse(),
        "symmetrized": symmetrize(asymmetric),
        "subsampled": subsample_tradeoff(GaussianTradeOff(1.0), 0.3),
    }


def _compositions():
    return {
        "same-input": compose(ldp.randomized_response(1.0), 4),
        "adaptive": compose([EpsDeltaTradeOff(0.5), LaplaceTradeOff(1.0)]),
        "gdp": compose([GaussianTradeOff(0.5)] * 4),
        "theorem-2": compose_eps_delta_eta(1.0, 0.0, 0.3, 5),
    }


CURVES = _curves()
COMPOSITIONS = _compositions()


# ----------------------------------------------------------------------------- immutability
@pytest.mark.parametrize("name", sorted(CURVES))
def test_curves_refuse_new_values(name):
    f = CURVES[name]
    before = f.inverse() is f
    with pytest.raises(AttributeError, match="immutable"):
        f.is_symmetric = not f.is_symmetric
    with pytest.raises(AttributeError, match="immutable"):
        f.approx = True
    with pytest.raises(AttributeError, match="immutable"):
        del f.is_symmetric
    assert (f.inverse() is f) == before  # what inverse() returns cannot be changed


def test_vertices_are_read_only():
    f = CURVES["asymmetric"]
    with pytest.raises(ValueError, match="read-only"):
        f._a[1] = 0.5
    alphas, _ = f.vertices  # copies, free to change
    alphas[1] = 0.5
    assert f(0.1) == pytest.approx(0.2)


def test_symmetry_is_decided_at_construction():
    asymmetric = CURVES["asymmetric"]
    assert not asymmetric.is_symmetric and asymmetric.inverse() is not asymmetric
    assert CURVES["symmetrized"].is_symmetric and CURVES["symmetrized"].inverse() is not None
    for name in ("eps-delta", "eps-delta-eta", "gaussian", "laplace", "channel", "subsampled"):
        assert CURVES[name].is_symmetric and CURVES[name].inverse() is CURVES[name], name
    # the inverse of T(P, Q) is T(Q, P), mirrored in the diagonal (an independent check)
    inv = asymmetric.inverse()
    for beta in (0.05, 0.2, 0.5, 0.9):
        alpha = float(asymmetric(beta))
        assert float(inv(alpha)) == pytest.approx(beta, abs=1e-9)


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_compositions_refuse_new_values(name):
    c = COMPOSITIONS[name]
    for attribute, value in (("exact", False), ("mu", 0.0), ("kind", "same-input"), ("plds", ())):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(c, attribute, value)


def test_pld_and_subsampled_gaussian_refuse_new_values():
    pld = PrivacyLossDistribution(np.array([0.25, 0.75]), -1, 1.0)
    with pytest.raises(AttributeError, match="immutable"):
        pld.inf_mass = 0.5
    with pytest.raises(ValueError, match="read-only"):
        pld.probs[0] = 0.0
    sg = PoissonSubsampledGaussian(0.1, 1.0, 3)
    with pytest.raises(AttributeError, match="immutable"):
        sg.sigma = 10.0
    assert sg.delta(1.0) == sg.delta(1.0)  # the lazy cache still fills


@pytest.mark.parametrize(
    "mechanism",
    [SquareWave(1.0), GRR(5, 1.0), OLH(20, 1.0), SubsetSelection(6, 1.0)],
    ids=lambda m: type(m).__name__,
)
def test_mechanisms_refuse_new_values(mechanism):
    name = "b" if isinstance(mechanism, SquareWave) else "_eps_budget"
    with pytest.raises(AttributeError, match="immutable"):
        setattr(mechanism, name, 0.1)
    clone = pickle.loads(pickle.dumps(mechanism))
    assert clone.params == mechanism.params
    with pytest.raises(AttributeError, match="immutable"):
        setattr(clone, name, 0.1)


def test_square_wave_b_is_fixed():
    sw = SquareWave(1.0)
    with pytest.raises(AttributeError):
        sw.b = 0.0
    e = math.e  # b = (eps e^eps - e^eps + 1) / (2 e^eps (e^eps - 1 - eps)) at eps = 1
    assert sw.b == pytest.approx(1.0 / (2 * e * (e - 2)), rel=1e-12)


def test_results_are_frozen():
    channel = ldp.k_rr(3, 1.0)
    for result in (coefficient(channel, "kl"), best_bound(channel, "kl")):
        with pytest.raises(AttributeError):
            result.value = 0.0
    design = optimal_channel(3, 1.0, utility="mi")
    with pytest.raises(AttributeError):
        design.epsilon = 0.0
    with pytest.raises(TypeError):
        design.extras["kept_outputs"] = None
    with pytest.raises(AttributeError):
        channel.matrix = np.eye(3)
    best = optimal_frequency_channel(4, 1.0, n=10)
    with pytest.raises(AttributeError):
        best.risk = 0.0
    with pytest.raises(ValueError, match="read-only"):
        best.decoder[0, 0] = 1.0


def test_pickled_curves_and_compositions_stay_frozen():
    for obj in (CURVES["eps-delta"], COMPOSITIONS["same-input"]):
        clone = pickle.loads(pickle.dumps(obj))
        assert clone.delta(0.5) == obj.delta(0.5)
        with pytest.raises(AttributeError, match="immutable"):
            clone.approx = True


# ----------------------------------------------------------------------------- spellings
def _profiles():
    out = dict(CURVES)
    out.pop("asymmetric")  # negative-level profile only; kept in the synonym test below
    out.update(COMPOSITIONS)
    out["pld"] = compose(ldp.randomized_response(1.0), 3).pld
    out["subsampled-gaussian"] = PoissonSubsampledGaussian(0.1, 1.0, 3)
    out["channel-object"] = ldp.k_rr(3, 1.0)
    out["grr"] = GRR(3, 1.0)
    return out


PROFILES = _profiles()
DELTAS = [0.0, 1e-6, 1e-3, 0.05, 0.2]


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_epsilon_for_delta_inverts_delta(name):
    obj = PROFILES[name]
    for d in DELTAS:
        eps = obj.epsilon_for_delta(d)
        assert isinstance(eps, float)
        if math.isfinite(eps):
            assert obj.delta(eps) <= d * (1 + 1e-9) + 1e-15, (name, d, eps)
            if eps > 1e-9:  # smallest such eps: a little less is not enough
                assert obj.delta(eps * (1 - 1e-6)) > d, (name, d, eps)
    values = obj.epsilon_for_delta(np.array(DELTAS))
    assert isinstance(values, np.ndarray) and values.shape == (len(DELTAS),)


@pytest.mark.parametrize("name", sorted(set(CURVES) | set(COMPOSITIONS) | {"pld", "sg"}))
def test_epsilon_is_a_synonym_on_curves_compositions_and_plds(name):
    obj = {**CURVES, **COMPOSITIONS, "pld": PROFILES["pld"], "sg": PROFILES["subsampled-gaussian"]}[
        name
    ]
    for d in DELTAS:
        assert obj.epsilon(d) == obj.epsilon_for_delta(d)


def test_channel_mechanism_curve_and_composition_agree():
    """One channel, four objects, one profile (exact for k-RR; rounding outward only)."""
    channel = ldp.k_rr(4, 1.2)
    grr = GRR(4, 1.2)
    curve = tradeoff_from_channel(channel)
    single = compose(channel, 1)
    for d in (1e-4, 0.01, 0.1):
        reference = channel.epsilon_for_delta(d)
        for other in (grr, curve, single):
            assert other.epsilon_for_delta(d) == pytest.approx(reference, rel=1e-9, abs=1e-12)
    for e in (0.0, 0.3, 0.9):
        reference = channel.delta(e)
        for other in (grr, curve, single):
            assert other.delta(e) == pytest.approx(reference, rel=1e-9, abs=1e-12)
    assert channel.epsilon == pytest.approx(1.2) and grr.epsilon == pytest.approx(1.2)


def test_codec_bounds_are_the_fields_and_read_only():
    """A codec's field bounds are built once, equal the fields' and cannot be changed; a unary
    encoding hands out one codec per alphabet size (its bounds are not rebuilt per call)."""
    from ldp.mechanisms import OUE, SUE

    codec = SUE(20, 1.0).codec
    lows, highs = codec.bounds
    assert lows.tolist() == [f.low for f in codec.fields] == [0, 0, 0]
    assert highs.tolist() == [f.high for f in codec.fields] == [255, 255, 255]
    with pytest.raises(ValueError):
        lows[0] = 1
    assert codec.bounds is codec.bounds
    assert OUE(20, 2.0).codec is codec
    with pytest.raises(ValueError, match="bits set beyond k = 20"):
        codec.from_rows([[0, 0, 1]])
    assert pickle.loads(pickle.dumps(SUE(20, 1.0))).codec.names == codec.names

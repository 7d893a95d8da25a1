"""Blackwell order of channels: the garbling LP against Blackwell's theorem (trade-off order)."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.accounting import tradeoff_from_pair
from ldp.accounting.comparisons.blackwell import BlackwellResult, blackwell_dominates


def _random_channel(rng, n, m):
    return rng.dirichlet(np.ones(m), size=n)


def test_rr_closed_form_garbling():
    # RR(eps1) = RR(eps2) followed by a symmetric flip with probability r, where
    # (1 - 2 r) tanh(eps2 / 2) = tanh(eps1 / 2) (products of the bias 2p - 1)
    rr1, rr2 = ldp.randomized_response(0.5), ldp.randomized_response(2.0)
    res = blackwell_dominates(rr2, rr1)
    assert isinstance(res, BlackwellResult) and res
    g = res.garbling
    assert g.shape == (2, 2) and np.all(g >= 0)
    np.testing.assert_allclose(g.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(rr2.matrix @ g, rr1.matrix, atol=1e-9)
    r = (1 - np.tanh(0.25) / np.tanh(1.0)) / 2
    np.testing.assert_allclose(g, [[1 - r, r], [r, 1 - r]], atol=1e-8)
    assert res.residual <= 1e-9 and "exact re-check" in res.reason
    with pytest.raises(ValueError):
        g[0, 0] = 0.5  # read-only
    no = blackwell_dominates(rr1, rr2)
    assert (
        not no and no.garbling is None and no.residual > 1e-3 and "no row-stochastic" in no.reason
    )


def _tradeoff_leq(k, l_):
    """T(K0, K1) <= T(L0, L1) everywhere (both piecewise linear: check on all vertices)."""
    f, g = tradeoff_from_pair(k[0], k[1]), tradeoff_from_pair(l_[0], l_[1])
    grid = np.union1d(f.vertices[0], g.vertices[0])
    return bool(np.all(f(grid) <= g(grid) + 1e-7))


@pytest.mark.parametrize("seed", range(12))
def test_two_input_channels_agree_with_blackwell_theorem(seed):
    # Dong-Roth-Su (2022), Theorem 2.7: for two inputs, L is a garbling of K iff
    # T(K0, K1) <= T(L0, L1), computed independently from the Neyman-Pearson vertices
    rng = np.random.default_rng(seed)
    k = _random_channel(rng, 2, int(rng.integers(2, 5)))
    if seed % 2:
        l_ = k @ _random_channel(rng, k.shape[1], int(rng.integers(2, 5)))
    else:
        l_ = _random_channel(rng, 2, int(rng.integers(2, 5)))
    res = blackwell_dominates(k, l_)
    # the two tests must agree (gap = min of T(L) - T(K) over all vertices, <= 0 at alpha = 1)
    f, g = tradeoff_from_pair(k[0], k[1]), tradeoff_from_pair(l_[0], l_[1])
    grid = np.union1d(f.vertices[0], g.vertices[0])
    gap = float(np.min(g(grid) - f(grid)))
    if gap < -1e-6:
        assert not res, (seed, gap, res.reason)
    elif gap >= -1e-12:
        assert res, (seed, gap, res.reason)
    if seed % 2:
        assert res and _tradeoff_leq(k, l_)
    if res:
        np.testing.assert_allclose(k @ res.garbling, l_, atol=1e-9)


def test_many_inputs_post_processing_and_epsilon():
    rng = np.random.default_rng(7)
    k = ldp.k_rr(4, 1.5)
    post = _random_channel(rng, 4, 6)
    l_ = k.matrix @ post
    assert blackwell_dominates(k, l_)
    # post-processing cannot raise epsilon: k-RR(4, 2) is no garbling of k-RR(4, 1.5)
    res = blackwell_dominates(k, ldp.k_rr(4, 2.0))
    assert not res
    # a permutation of the inputs is not a garbling in general (rows are fixed)
    assert not blackwell_dominates(np.eye(3)[[0, 0, 1]], np.eye(3)[[1, 0, 0]])


def test_mechanisms_and_bad_input():
    from ldp.mechanisms import GRR

    assert blackwell_dominates(GRR(5, 2.0), GRR(5, 1.0))
    with pytest.raises(ValueError, match="same inputs"):
        blackwell_dominates(ldp.k_rr(3, 1.0), ldp.k_rr(4, 1.0))
    with pytest.raises(TypeError, match="K must be"):
        blackwell_dominates("rr", ldp.k_rr(3, 1.0))
    with pytest.raises(ValueError, match="atol"):
        blackwell_dominates(ldp.k_rr(3, 1.0), ldp.k_rr(3, 1.0), atol=0.0)
    with pytest.raises(ValueError, match="rows must sum"):
        blackwell_dominates([[0.5, 0.6], [0.5, 0.5]], ldp.k_rr(2, 1.0))

"""The same-input composition composes only the pairs that can be the worst.

Refuting checks: the Chernoff bound lies above the n-fold profile found by enumerating every
output sequence; the pruned composition is the curve of the composition of every pair (the
unpruned path, kept callable) wherever it is above the floating-point floors of the
compositions, never below it by more than those floors, and at or above the exact
same-input profile computed by enumeration.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from ldp import Channel, k_rr
from ldp.accounting import compose
from ldp.accounting.composition.exact import _compose_same_input
from ldp.accounting.composition.same_input import chernoff_profile_bound, same_input_plds
from ldp.accounting.curves.pld import PrivacyLossDistribution

#: The floating-point allowances of one composition (L1 bound of FFT rounding, masses moved
#: to +inf by the 1e-15 truncation) stay below this; only there may the curves differ.
FLOOR = 1e-11


def _enumerated_profile(p, q, n, eps):
    """``E_{e^eps}(P^n || Q^n)`` by summing over every output sequence."""
    gamma = math.exp(eps)
    total = 0.0
    for seq in itertools.product(range(len(p)), repeat=n):
        a = math.prod(p[z] for z in seq)
        b = math.prod(q[z] for z in seq)
        total += max(a - gamma * b, 0.0)
    return total


def _channel(seed, k, d=None, concentration=1.0):
    rng = np.random.default_rng(seed)
    return Channel(rng.dirichlet(np.full(d or k, concentration), size=k))


@pytest.mark.parametrize("seed", range(6))
def test_chernoff_bound_lies_above_the_enumerated_profile(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 5))
    p, q = rng.dirichlet(np.ones(d)), rng.dirichlet(np.ones(d))
    if seed % 2:  # an output that only p reaches: a +inf loss
        q[0] = 0.0
        q = q / q.sum()
    n = int(rng.integers(1, 6))
    pld = PrivacyLossDistribution.from_pair(p, q)
    levels = np.array([0.0, 0.2, 0.7, 1.5, 3.0, 6.0, math.inf])
    bound = chernoff_profile_bound(pld, n, levels)
    assert np.all(np.diff(bound) <= 0.0)  # non-increasing
    for eps, b in zip(levels[:-1], bound[:-1]):
        assert b >= _enumerated_profile(p, q, n, eps)
    assert bound[-1] >= 1.0 - (1.0 - p[q == 0].sum()) ** n


def test_chernoff_bound_vanishes_above_n_times_the_largest_loss():
    e = math.exp(1.0)
    rr = PrivacyLossDistribution.from_pair([e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)])
    levels = np.array([4.5, 5.0 + 1e-9, 7.0])
    bound = chernoff_profile_bound(rr, 5, levels)
    assert bound[0] > 0.0 and bound[1] == 0.0 and bound[2] == 0.0


def _levels(*compositions):
    grid = [np.linspace(0.0, 40.0, 801)]
    for c in compositions:
        grid.extend(pld.levels for pld in c.plds)
    levels = np.unique(np.concatenate(grid))
    return levels[levels >= 0.0]


def _assert_same_curve(pruned, full):
    levels = _levels(full)
    new, old = np.asarray(pruned.delta(levels)), np.asarray(full.delta(levels))
    assert np.all(new <= old)  # a maximum over fewer of the same compositions
    assert np.all(new >= old - FLOOR)
    above = old >= FLOOR
    np.testing.assert_array_equal(new[above], old[above])
    targets = np.array([0.5, 0.1, 1e-3, 1e-6, 1e-9])
    np.testing.assert_array_equal(pruned.epsilon(targets), full.epsilon(targets))


@pytest.mark.parametrize(
    ("seed", "k", "n"),
    [(0, 2, 1), (1, 3, 2), (2, 4, 5), (3, 5, 3), (5, 3, 12), (7, 6, 1)],
)
def test_pruned_composition_is_the_curve_of_every_pair(seed, k, n):
    ch = _channel(seed, k)
    pruned = compose(ch, n)
    full = _compose_same_input(ch, n, None, False, prune=False)
    assert len(pruned.plds) <= len(full.plds)
    _assert_same_curve(pruned, full)


@pytest.mark.long
@pytest.mark.parametrize(
    ("seed", "k", "n"),
    [(3, 5, 9), (4, 6, 3), (6, 4, 17), (5, 3, 30), (8, 8, 20), (9, 7, 30), (10, 8, 12)],
)
def test_pruned_composition_is_the_curve_of_every_pair_large(seed, k, n):
    ch = _channel(seed, k)
    pruned = compose(ch, n)
    full = _compose_same_input(ch, n, None, False, prune=False)
    assert len(pruned.plds) < len(full.plds)
    _assert_same_curve(pruned, full)


def test_pruning_drops_pairs_and_stays_above_the_enumerated_profile():
    ch = _channel(11, 5, 3, concentration=2.0)
    n = 4
    pruned = compose(ch, n)
    full = _compose_same_input(ch, n, None, False, prune=False)
    assert len(pruned.plds) < len(full.plds) == 20
    m = ch.matrix
    for eps in [0.0, 0.4, 1.2, 3.0]:
        exact = max(
            _enumerated_profile(m[i], m[j], n, eps) for i in range(5) for j in range(5) if i != j
        )
        assert pruned.delta(eps) >= exact * (1.0 - 1e-12)
        assert pruned.delta(eps) - exact <= n * 1e-4  # each loss rounded up by < 1e-4


def test_exact_lattices_and_symmetric_channels_are_unchanged():
    ch = k_rr(5, 1.3)  # every ordered pair has the same distribution
    plds, distinct = same_input_plds(ch.matrix, 7, 1e-4, 1 << 22)
    assert distinct == 1 and len(plds) == 1
    pruned = compose(ch, 7)
    full = _compose_same_input(ch, 7, None, False, prune=False)
    assert pruned.exact and full.exact
    _assert_same_curve(pruned, full)


def test_a_channel_with_zeros_keeps_its_infinite_losses():
    m = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5], [0.0, 0.4, 0.6], [0.3, 0.3, 0.4]])
    ch = Channel(m)
    for n in [1, 3, 6]:
        pruned = compose(ch, n)
        full = _compose_same_input(ch, n, None, False, prune=False)
        _assert_same_curve(pruned, full)
        assert pruned.delta(math.inf) == full.delta(math.inf) > 0.0

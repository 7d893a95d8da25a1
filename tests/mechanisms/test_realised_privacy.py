"""Realised privacy: the worst-case log-likelihood ratio of the coins the samplers draw.

Every coin is drawn by :func:`ldp._sampling.choose` or :func:`ldp._sampling.bernoulli`, whose
realised law is the exact ratio of the stored weights (``tests/helpers/test_sampling.py`` walks the
tree of byte prefixes to show it), and every uniform integer by exact rejection. So the law a
sampler realises is a rational function of the doubles in its :meth:`sampler` constants, and
the worst-case log-likelihood ratio it realises is computed here in exact rationals (then
``mpmath`` at 60 digits), independently of the library's floating-point ``epsilon``, for
every mechanism at epsilon from ``1e-6`` to ``700``. The claim must never be below it.

For the continuous mechanisms the realised branch probabilities are exact and the densities
are those of the lengths the sampler actually uses (the stored ``width``, ``C + 1`` and
``2 b``); the position drawn within a branch is a 53-bit uniform scaled in floating point,
whose rounding (a few units of ``2^-53`` relative) the module notes of
:mod:`ldp.mechanisms.numeric` describe.
"""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import ldp
from ldp.mechanisms import (
    BLH,
    GRR,
    OLH,
    OUE,
    SUE,
    Duchi,
    DuchiL2,
    HadamardResponse,
    Hybrid,
    Laplace,
    Piecewise,
    SquareWave,
    SubsetSelection,
)

mpmath.mp.dps = 60
EPSILONS = [1e-6, 1.0, 10.0, 40.0, 80.0, 300.0, 700.0]


def _log(ratio: Fraction) -> mpmath.mpf:
    return mpmath.log(mpmath.mpf(ratio.numerator) / ratio.denominator)


def _odds(pair) -> Fraction:
    """The exact odds of the first outcome of a two-weight coin."""
    return Fraction(pair[0]) / Fraction(pair[1])


def realised(mechanism) -> mpmath.mpf:
    """The realised worst-case log-likelihood ratio, from the sampler's own constants."""
    s = mechanism.sampler()
    name = mechanism.name
    if name in ("GRR", "OLH", "BLH", "LH"):
        k = mechanism.k if name == "GRR" else s["g"]
        # keep: w0 / S; one given other value: w1 / (S (k - 1)), randint exact
        return _log(_odds(s["keep"]) * (k - 1))
    if name in ("SUE", "OUE", "UE"):
        a1, a0 = map(Fraction, s["own"])
        b1, b0 = map(Fraction, s["other"])
        return _log((a1 * b0) / (a0 * b1))
    if name in ("HR", "Duchi", "DuchiL2"):
        return _log(_odds(s["keep"]))
    if name == "SS":
        k, d = mechanism.k, s["d"]
        return _log(_odds(s["include"]) * Fraction(k - d, d))
    if name == "Piecewise":
        # window: mass z / (z + 1) on `width`; tails: 1 / (z + 1) on C + 1 (as the sampler
        # computes it in floating point)
        width, c_plus = Fraction(s["width"]), Fraction(s["C"] + 1.0)
        return _log(_odds(s["keep"]) * c_plus / width)
    if name == "SquareWave":
        # near: mass w0 / S on 2b; far: w1 / S on length 1
        return _log(_odds(s["keep"]) / (2 * Fraction(s["b"])))
    if name == "Hybrid":
        duchi = _log(_odds(s["duchi"]["keep"]))
        if s["mix"] is None:
            return duchi
        pm = s["piecewise"]
        piecewise = _log(_odds(pm["keep"]) * Fraction(pm["C"] + 1.0) / Fraction(pm["width"]))
        return max(duchi, piecewise)
    if name == "Laplace":
        # the density ratio of x + Lap(scale) at distance 2 is exp(2 / scale); the sign coin
        # (1/2) and the geometric count of zero bits are exact
        return 2 / mpmath.mpf(s["scale"])
    raise AssertionError(name)


FACTORIES = {
    "GRR k=4": lambda e: GRR(4, e),
    "GRR k=2^40": lambda e: GRR(2**40, e),
    "SUE": lambda e: SUE(8, e),
    "OUE": lambda e: OUE(8, e),
    "OLH": lambda e: OLH(100, e, g=None if e < 30 else 2**31),
    "BLH": lambda e: BLH(100, e),
    "HR": lambda e: HadamardResponse(9, e),
    "SS": lambda e: SubsetSelection(10, e, d=3),
    "Duchi": lambda e: Duchi(e),
    "Duchi d=4": lambda e: Duchi(e, d=4),
    "DuchiL2": lambda e: DuchiL2(e, d=3),
    "Laplace": lambda e: Laplace(e),
    "Piecewise": lambda e: Piecewise(e),
    "Hybrid": lambda e: Hybrid(e),
    "SquareWave": lambda e: SquareWave(e),
}


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("name", list(FACTORIES))
def test_the_claim_bounds_the_realised_privacy_loss(name, epsilon):
    mechanism = FACTORIES[name](epsilon)
    truth = realised(mechanism)
    claim = mpmath.mpf(mechanism.epsilon)
    assert claim >= truth, f"{name} at {epsilon}: claims {claim}, realises {truth}"
    # and it is tight: rounded outward by a few units of 2^-53 of the logarithms involved
    assert claim - truth <= 1e-12 * truth + 2e-14


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_channel_rows_realised_exactly(epsilon):
    """A channel samples ``row / exact sum(row)``: its claim bounds that exact law."""
    for channel in (ldp.k_rr(3, epsilon), ldp.binary_erasure(min(epsilon, 50.0), 0.0, None)):
        rows = [[Fraction(v) for v in row] for row in channel.matrix.tolist()]
        sums = [sum(row) for row in rows]
        ratios = [
            (rows[i][z] / sums[i]) / (rows[j][z] / sums[j])
            for i in range(len(rows))
            for j in range(len(rows))
            for z in range(len(rows[0]))
            if rows[j][z] > 0 and rows[i][z] > 0
        ]
        truth = max(_log(r) for r in ratios)
        assert mpmath.mpf(channel.epsilon) >= truth


def test_large_epsilon_tails_are_reachable_for_every_input():
    """At eps = 700 the piecewise tails have mass ~1e-288: both must still be drawn.

    ``C`` is the double above 1 there (``(z+1)/(z-1)`` rounds to 1), so the window of length
    ``C - 1 = 2^-52`` takes the odds ``e^700 (C - 1) / (C + 1) ~ e^700 / 2^53`` against the
    tails, a finite double: the tail coin is not rounded to zero.
    """
    pm = Piecewise(700.0)
    s = pm.sampler()
    assert s["C"] == 1 + 2.0**-52 and s["width"] == 2.0**-52
    expected = mpmath.exp(700) / (mpmath.mpf(2) ** 53 + 1)
    assert abs(_odds(s["keep"]) / expected - 1) < 1e-15 and s["keep"][1] == 1.0
    for x in (-0.999, 0.0, 0.999):
        # the tail position (C + 1) u - C, shifted past the window: both sides reachable
        left = (pm.C + 1) * x / 2 - pm.width / 2
        lowest, highest = -pm.C, (pm.C + 1) * (1 - 2.0**-53) - pm.C
        assert lowest < left and (highest if highest < left else highest + pm.width) > left
    assert math.isfinite(pm.epsilon) and pm.epsilon <= 700.0 * (1 + 1e-12)


def test_grr_at_huge_k_and_tiny_epsilon_realises_its_epsilon():
    """The audit's case: k = 2^40, eps = 1.41e-6 was realised as 1.22e-4 with 53-bit coins."""
    grr = GRR(2**40, 1.41e-6)
    assert float(realised(grr)) == pytest.approx(1.41e-6, rel=1e-9)
    counts = np.bincount(grr.privatize(np.zeros(200_000, dtype=int), rng=0) == 0, minlength=2)
    assert counts[1] <= 5  # keeping x has probability ~1e-12 here


def _exact_profile(channel, epsilon: float) -> mpmath.mpf:
    """The realised delta(eps) of a channel at 60 digits (rows over their exact sums)."""
    rows = [[Fraction(v) for v in row] for row in channel.matrix.tolist()]
    sums = [sum(row) for row in rows]
    gamma = mpmath.exp(mpmath.mpf(epsilon))
    best = mpmath.mpf(0)
    for i, j in itertools.permutations(range(len(rows)), 2):
        total = mpmath.mpf(0)
        for z in range(len(rows[0])):
            p = rows[i][z] / sums[i]
            q = rows[j][z] / sums[j]
            total += max(
                mpmath.mpf(0),
                mpmath.mpf(p.numerator) / p.denominator
                - gamma * mpmath.mpf(q.numerator) / q.denominator,
            )
        best = max(best, total)
    return best


@pytest.mark.parametrize(
    "channel",
    [
        ldp.k_rr(4, 1e-6),
        ldp.k_rr(4, 1.0),
        ldp.k_rr(3, 30.0),
        ldp.k_rr(4, 700.0),
        ldp.binary_erasure(1.0, 0.1, 0.3),
        ldp.binary_erasure(50.0, 1e-15, 0.3),
        ldp.Channel([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5]]),
    ],
    ids=["krr-tiny", "krr-1", "krr-30", "krr-700", "erasure", "erasure-50", "random"],
)
def test_channel_profiles_are_never_below_the_exact_ones(channel):
    """delta(eps) and epsilon_for_delta are rounded outward (60-digit references)."""
    levels = [0.0, 1e-7, 0.5, 1.0, 5.0, 29.9, 699.0]
    for level in levels:
        assert mpmath.mpf(float(channel.delta(level))) >= _exact_profile(channel, level)
    for target in (1e-300, 1e-15, 1e-8, 1e-3, 0.1):
        eps = float(channel.epsilon_for_delta(target))
        if math.isfinite(eps):
            assert _exact_profile(channel, eps) <= target, (target, eps)
    assert mpmath.mpf(channel.tv) >= _exact_profile(channel, 0.0)

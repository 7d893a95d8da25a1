"""Helpers shared by the numeric mechanisms: the coins, scales and small channels they build
the privacy of their reports from.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ldp._exact import (
    exp_down,
    nearest_within,
)
from ldp._sampling import ExactLaw
from ldp.channel import Channel
from ldp.core import ReportCodec


def exp_tail(t: float) -> float:
    """``e^t - 1 - t`` accurately (a series for small ``|t|``, where it cancels)."""
    if abs(t) > 0.5:
        return math.expm1(t) - t
    term, total = t * t / 2, 0.0
    for j in range(3, 30):
        total += term
        term *= t / j
    return total


def coth_half(odds: float) -> float:
    """``(o + 1) / (o - 1)`` for the odds ``o`` of a truthful coin (``(e^eps + 1) /
    (e^eps - 1)`` at ``o = e^eps``): ``1 / (2 P(truthful) - 1)``, the scale that makes a
    randomized sign unbiased."""
    return (odds + 1.0) / (odds - 1.0)


def scale_within(level: float) -> float:
    """The smallest double ``s`` whose level ``2 / s`` is at most ``level``, exactly (the
    noise scale of a mechanism whose extreme inputs are 2 apart)."""
    target = Fraction(level)
    return nearest_within(lambda s: Fraction(2) / Fraction(s) <= target, 2.0 / level, math.inf)


def coin_channel(law: ExactLaw) -> Channel:
    """The 2-row channel of a truthful coin with the odds of ``law``: outputs that agree with
    the first input or with the second."""
    truthful, lying = law.probabilities()
    return Channel([[truthful, lying], [lying, truthful]])


def report_bins(y: np.ndarray, low: float, high: float, n_bins: int = 8) -> np.ndarray:
    """Bin index of ``y``: ``0`` below ``low``, ``n_bins + 1`` above ``high``."""
    return np.digitize(y, np.linspace(low, high, n_bins + 1)).astype(np.int64)


def coin_law(epsilon: float) -> ExactLaw:
    """Odds ``e^eps : 1`` (the largest double at most ``e^eps``): the truthful side of a
    randomized-response coin."""
    return ExactLaw([exp_down(epsilon), 1.0])


def _check_float_reports(reports, codec: ReportCodec):
    """Native float reports, checked by the codec (range, grid, structure)."""
    return codec.from_rows(reports)

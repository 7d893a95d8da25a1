"""The Laplace mechanism on a bounded interval, with an exact exponential sampler."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._rounding import round_up
from ldp._sampling import bernoulli
from ldp._validation import check_random_state
from ldp.channel import Channel
from ldp.core import ReportCodec, float_codec
from ldp.mechanisms.base import MeanMechanism
from ldp.mechanisms.draws import LAPLACE_TAIL_BITS, LN2, exponential_draws, grid_step, snap_to_grid
from ldp.mechanisms.numeric._common import report_bins, scale_within

__all__ = ["Laplace"]


# --------------------------------------------------------------------------- Laplace
class Laplace(MeanMechanism):
    """The Laplace mechanism on ``[-1, 1]``: ``Y = x + Lap(2/eps)``, variance ``8/eps^2``.

    The scale is the smallest double ``s`` with ``2 / s <= eps`` exactly, so that the
    density ratio ``e^{2/s}`` of the extreme inputs is at most ``e^eps``.

    ``Y`` is released rounded to multiples of ``resolution`` (``2^-24`` of the scale,
    a power of two) by unbiased randomized rounding, with an exponential sampler whose tail
    is not truncated: the floating-point attack on naive Laplace sampling (Mironov 2012) does
    not apply; see the module notes for the remaining rounding error.

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> from ldp.mechanisms import Laplace
    >>> lap = Laplace(1.0)
    >>> lap.scale, lap.epsilon, lap.variance(1)
    (2.0, 1.0, 8.0)
    >>> lap.resolution == 2.0**-23
    True
    """

    name = "Laplace"

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        self.scale = scale_within(self._eps_budget)
        self.resolution = grid_step(self.scale)
        # beyond this the sampler would need 1100 zero bits in a row (module notes)
        reach = 1.0 + self.scale * LN2 * (LAPLACE_TAIL_BITS + 1) + self.resolution
        self._reach = math.ceil(reach / self.resolution) * self.resolution

    @property
    def epsilon(self) -> float:
        # the density ratio is exp(|y - x'| - |y - x|) / scale <= exp(2 / scale)
        level = Fraction(2) / Fraction(self.scale)
        if level <= Fraction(self._eps_budget):
            return self._eps_budget
        return round_up(float(level))  # pragma: no cover - the scale is calibrated

    @property
    def codec(self) -> ReportCodec:
        return float_codec(-self._reach, self._reach, self.resolution)

    def sampler(self) -> dict[str, object]:
        """``scale`` of the noise and ``step`` of the output grid."""
        return {"scale": self.scale, "step": self.resolution}

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        negative = bernoulli(gen, np.full(x.shape, 0.5))
        sign = np.where(negative, -self.scale, self.scale)
        return snap_to_grid(x + sign * exponential_draws(x.size, gen), self.resolution, gen)

    def decode(self, reports: ArrayLike) -> np.ndarray:
        return self.codec.from_rows(reports)

    privacy_exact = False

    def privacy_channel(self) -> Channel:
        """Randomized response at ``epsilon``: it dominates every epsilon-LDP mechanism
        (Kairouz-Oh-Viswanath, 2015), so its profile is an upper bound of the Laplace
        mechanism's; :meth:`delta` and :attr:`tv` give the Laplace pair's own closed forms."""
        odds = math.exp(self.epsilon)
        return Channel([[odds / (odds + 1), 1 / (odds + 1)], [1 / (odds + 1), odds / (odds + 1)]])

    @property
    def tv(self) -> float:
        """``1 - e^{-eps/2}``: the inputs ``-1`` and ``1`` (the grid rounding can only lower it)."""
        return -math.expm1(-self.epsilon / 2)

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """``max(0, 1 - e^{(eps' - eps)/2})`` for the inputs ``-1, 1`` at distance ``2 / scale``
        in noise units (the grid rounding is post-processing: it can only lower it)."""
        levels = np.asarray(epsilon, dtype=np.float64)
        if np.any(~(levels >= 0)):
            raise ValueError("epsilon must be >= 0")
        with np.errstate(over="ignore"):
            out = np.maximum(0.0, -np.expm1((np.minimum(levels, self.epsilon) - self.epsilon) / 2))
        return float(out) if out.ndim == 0 else out

    def epsilon_for_delta(self, delta: ArrayLike) -> float | np.ndarray:
        """The inverse of :meth:`delta`: ``eps + 2 log(1 - delta)`` (at least 0)."""
        targets = np.asarray(delta, dtype=np.float64)
        if np.any(~((targets >= 0) & (targets <= 1))):
            raise ValueError("delta must lie in [0, 1]")
        with np.errstate(divide="ignore"):
            out = np.maximum(0.0, self.epsilon + 2 * np.log1p(-targets))
        return float(out) if out.ndim == 0 else out

    def audit_statistic(self, x0: Any, x1: Any):
        """Bins of the report between ``x0`` and ``x1``."""
        low, high = sorted((float(x0), float(x1)))
        return lambda reports: report_bins(np.asarray(reports, dtype=float), low, high)

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        return np.full(x.shape, 2 * self.scale**2)

    def worst_case_variance(self) -> float:
        return 2 * self.scale**2

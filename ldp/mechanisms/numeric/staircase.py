"""The staircase mechanism of Geng and Viswanath on a bounded interval."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._exact import (
    certified_epsilon,
    exp_up,
    nearest_within,
    within_exp,
)
from ldp._sampling import bernoulli, uniform
from ldp._validation import check_random_state, check_scalar
from ldp.channel import Channel
from ldp.core import ReportCodec, float_codec
from ldp.mechanisms.base import MeanMechanism
from ldp.mechanisms.categorical.channels import binary_erasure
from ldp.mechanisms.draws import LAPLACE_TAIL_BITS, LN2, grid_step, snap_to_grid
from ldp.mechanisms.numeric._common import report_bins

__all__ = ["Staircase", "staircase_tv"]


# --------------------------------------------------------------------------- staircase
def staircase_tv(epsilon: float, gamma: float) -> float:
    r"""The eta-TV of the staircase mechanism (Ghazi-Issa (2023), §VI-C and Appendix K).

    With ``b = e^{-eps}``: ``(1 - b)(2 gamma (1 - b) + b) / (2 (gamma + b (1 - gamma)))`` for
    ``gamma < 1/2`` and ``(1 - b) / (2 (gamma + b (1 - gamma)))`` for ``gamma >= 1/2``; it is
    ``tanh(eps/2)`` at ``gamma = 1/2`` (the largest) and ``(1 - e^{-eps})/2`` at 0 and 1. The
    paper's Appendix K1 prints one intermediate step with ``1 - e^{eps}``; the correct factor
    is ``1 - e^{-eps}`` (the final formula above is right: ``tests/mechanisms/test_staircase.py``
    integrates the densities).

    Parameters
    ----------
    epsilon : float
        ``> 0`` (finite).
    gamma : float
        The staircase's shape, in ``[0, 1]``.

    Returns
    -------
    float
        The TV between the outputs at inputs one sensitivity apart (the worst pair).

    Examples
    --------
    >>> import math
    >>> from ldp.mechanisms import staircase_tv
    >>> round(staircase_tv(1.0, 0.0139), 7), round(staircase_tv(1.0, 0.5) - math.tanh(0.5), 15)
    (0.323433, 0.0)
    """
    eps = check_scalar(epsilon, "epsilon", low=0.0, low_open=True)
    g = check_scalar(gamma, "gamma", low=0.0, high=1.0)
    b = math.exp(-eps)
    shrink = -math.expm1(-eps)
    denominator = 2.0 * (g + b * (1.0 - g))
    if g < 0.5:
        return shrink * (2.0 * g * shrink + b) / denominator
    return shrink / denominator


class Staircase(MeanMechanism):
    r"""The staircase mechanism on ``[-1, 1]``: ``Y = x + N`` with staircase noise.

    The noise density (sensitivity ``D = 2``, ``b = e^{-eps}``) is ``a`` on ``[0, gamma D)``
    and ``b a`` on ``[gamma D, D)``, repeated on ``[k D, (k + 1) D)`` scaled by ``b^k``, and
    symmetric, ``a = (1 - b) / (2 D (gamma + b (1 - gamma)))`` (Ghazi-Issa (2023), §VI-C,
    after Geng-Viswanath). It is ``eps``-LDP; the log-likelihood ratio of the two extreme
    inputs takes only the values ``-eps, 0, eps``, so the pair is exactly the dominating
    ``(eps, 0, eta)`` mechanism with ``eta`` = :func:`staircase_tv` (their Appendix K2):
    :meth:`privacy_channel` is the 3-output :func:`~ldp.binary_erasure`.

    Sampling, with exact coins: a fair sign; ``G`` periods, each continued with probability
    ``b`` (an exact coin per period); the lower step with probability
    ``p0 = gamma / (gamma + b (1 - gamma))``; a uniform position in the step; the result
    released on a grid of ``2^-24`` times the scale ``D`` by unbiased randomized rounding
    (as :class:`Laplace`). Unbiased, variance ``E N^2`` (:meth:`variance`).

    **As sampled.** ``b`` is the smallest double at least ``e^{-eps}`` (so ``1/b <= e^eps``
    exactly) and ``p0`` is moved down from its formula, if needed, to the first double at
    which every ratio of adjacent density levels (:attr:`epsilon`) is at most ``e^eps``
    exactly.

    Parameters
    ----------
    epsilon : float
        The LDP level.
    gamma : float, optional
        Shape in ``[0, 1]``; default ``1 / (1 + e^{eps/2})``, which minimises ``E|N|``
        (checked numerically in the tests).

    Examples
    --------
    >>> from ldp.mechanisms import Staircase
    >>> m = Staircase(1.0, gamma=0.0139)
    >>> round(m.tv, 7), m.epsilon
    (0.323433, 1.0)
    >>> m.privatize([0.5], rng=1).shape
    (1,)
    """

    name = "staircase"

    def __init__(self, epsilon: float, gamma: float | None = None) -> None:
        super().__init__(epsilon)
        eps = self._eps_budget
        if gamma is None:
            gamma = 1.0 / (1.0 + math.exp(eps / 2.0))
        self._gamma = check_scalar(gamma, "gamma", low=0.0, high=1.0)
        self.sensitivity = 2.0
        self._b = exp_up(-eps)  # continuation probability of a period: 1 / b <= e^eps
        g = self._gamma
        self._p0 = g
        if 0.0 < g < 1.0:  # the lower step, moved down until its ratios are within e^eps
            self._p0 = nearest_within(
                lambda p0: self._within(p0), g / (g + self._b * (1.0 - g)), 0.0
            )
        self.resolution = grid_step(self.sensitivity)
        periods = math.ceil(LAPLACE_TAIL_BITS * LN2 / eps) + 1
        reach = 1.0 + self.sensitivity * (periods + 1) + self.resolution
        self._reach = math.ceil(reach / self.resolution) * self.resolution

    @property
    def params(self) -> dict[str, object]:
        return {"epsilon": self._eps_budget, "gamma": self._gamma}

    @property
    def gamma(self) -> float:
        """The staircase's shape in ``[0, 1]``."""
        return self._gamma

    def _within(self, p0: float) -> bool:
        """Whether the ratios that grow with ``p0`` are at most ``e^eps`` exactly."""
        ratios = self._ratios(p0)
        return ratios is not None and within_exp(max(ratios[1], ratios[4]), self._eps_budget)

    def _ratios(self, p0: float) -> list[Fraction] | None:
        """The ratios of density levels two inputs can see, exactly (``None``: infinite).

        Along ``|noise|`` the density is ``b^g L0`` on the lower step of period ``g`` and
        ``b^g L1`` on the upper one, ``L0 = p0 / gamma``, ``L1 = (1 - p0) / (1 - gamma)``.
        Two points at most one sensitivity apart are in one step, in the two steps of one
        period, in one step of adjacent periods, or in the upper step of a period and the
        lower step of the next: ``1/b``, ``L0/L1``, ``L1/L0``, ``L1/(b L0)``, ``b L0/L1``.
        """
        b, g = Fraction(self._b), Fraction(self._gamma)
        if not 0 < g < 1:
            return [1 / b]
        low, high = Fraction(p0) / g, (1 - Fraction(p0)) / (1 - g)
        if low == 0 or high == 0:
            return None
        return [1 / b, low / high, high / low, high / (b * low), b * low / high]

    def _ratio(self) -> Fraction | None:
        """The largest density ratio of the law sampled, exactly."""
        ratios = self._ratios(self._p0)
        return None if ratios is None else max(ratios)

    @property
    def epsilon(self) -> float:
        """The level asked for: the largest density ratio of the law as sampled (between
        periods, ``1/b``, and between adjacent steps; all ``1/b`` in real numbers, here from
        the doubles ``b`` and ``p0``) is at most ``e^eps`` exactly."""
        return certified_epsilon(self._ratio(), self._eps_budget)

    @property
    def codec(self) -> ReportCodec:
        return float_codec(-self._reach, self._reach, self.resolution)

    def sampler(self) -> dict[str, object]:
        """``b`` (continue to the next period), ``p0`` (lower step), ``gamma``, the
        sensitivity ``D`` and the output grid ``step``."""
        return {
            "b": self._b,
            "p0": self._p0,
            "gamma": self._gamma,
            "sensitivity": self.sensitivity,
            "step": self.resolution,
        }

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        n = x.size
        negative = bernoulli(gen, np.full(n, 0.5))
        periods = np.zeros(n)
        pending = np.arange(n)
        while pending.size:
            more = bernoulli(gen, np.full(pending.size, self._b))
            pending = pending[more]
            periods[pending] += 1.0
        lower = bernoulli(gen, np.full(n, self._p0))
        u = uniform(gen, n)
        d, g = self.sensitivity, self._gamma
        within = np.where(lower, g * d * u, g * d + (1.0 - g) * d * u)
        noise = periods * d + within
        return snap_to_grid(x + np.where(negative, -noise, noise), self.resolution, gen)

    def decode(self, reports: ArrayLike) -> np.ndarray:
        return self.codec.from_rows(reports)

    #: the output grid (post-processing) can only lower the continuous pair's profile
    privacy_exact = False

    def privacy_channel(self) -> Channel:
        """The dominating ``(eps, 0, eta)`` pair (``binary_erasure(eps, 0, tv)``): the extreme
        inputs' log-likelihood ratio takes the values ``-eps, 0, eps`` with these masses
        (Ghazi-Issa (2023), Appendix K2), and every other pair is a garbling of it."""
        eps = self._eps_budget
        return binary_erasure(eps, 0.0, min(staircase_tv(eps, self._gamma), math.tanh(eps / 2)))

    @property
    def tv(self) -> float:
        """:func:`staircase_tv` of ``(eps, gamma)``."""
        return staircase_tv(self._eps_budget, self._gamma)

    def audit_statistic(self, x0: Any, x1: Any):
        """Bins of the report between ``x0`` and ``x1``."""
        low, high = sorted((float(x0), float(x1)))
        return lambda reports: report_bins(np.asarray(reports, dtype=float), low, high)

    def noise_moments(self) -> tuple[float, float]:
        """``(E|N|, E N^2)`` of the staircase noise (closed forms)."""
        b, p0, g, d = self._b, self._p0, self._gamma, self.sensitivity
        mean_g = b / (1.0 - b)
        second_g = b * (1.0 + b) / (1.0 - b) ** 2
        mean_w = p0 * g * d / 2.0 + (1.0 - p0) * (1.0 + g) * d / 2.0
        second_w = p0 * (g * d) ** 2 / 3.0 + (1.0 - p0) * d * d * (1.0 + g + g * g) / 3.0
        first = d * mean_g + mean_w
        return first, d * d * second_g + 2.0 * d * mean_g * mean_w + second_w

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        return np.full(x.shape, self.noise_moments()[1])

    def worst_case_variance(self) -> float:
        return self.noise_moments()[1]

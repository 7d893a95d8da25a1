"""The piecewise mechanism of Wang et al. (2019) and its hybrid with Duchi's."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._exact import (
    certified_epsilon,
    exp_down,
    nearest_within,
    probabilities,
    within_exp,
)
from ldp._sampling import ExactLaw, choose, uniform
from ldp._validation import check_random_state
from ldp.channel import Channel
from ldp.core import Field, ReportCodec, float_codec
from ldp.mechanisms.base import MeanMechanism
from ldp.mechanisms.draws import grid_step, snap_to_grid
from ldp.mechanisms.numeric._common import report_bins
from ldp.mechanisms.numeric.duchi import Duchi
from ldp.mechanisms.worst_pair import window_channel

__all__ = ["Hybrid", "Piecewise", "hybrid_threshold"]


# --------------------------------------------------------------------------- piecewise
class Piecewise(MeanMechanism):
    """The piecewise mechanism (Wang et al., ICDE 2019) on ``[-1, 1]``.

    With ``z = e^{eps/2}``, ``C = (z+1)/(z-1)``, ``l(x) = (C+1)x/2 - (C-1)/2`` and
    ``r(x) = l(x) + C - 1``: the output is uniform on ``[l, r]`` with probability
    ``z/(z+1)``, on ``[-C, l)`` with probability ``(x+1)/(2z+2)`` and on ``(r, C]`` with
    probability ``(1-x)/(2z+2)``. Variance ``x^2/(z-1) + (z+3)/(3(z-1)^2)``. The output is
    released on a grid of ``resolution`` (``2^-24`` of ``C``) by unbiased randomized
    rounding, against the floating-point leak of continuous sampling (module notes).

    **As sampled.** ``C`` is ``(z+1)/(z-1)`` in doubles (at least the double above 1); the
    window is ``width = C - 1`` exactly, so that it stays inside ``[-C, C]``; its odds ``a``
    against the tails are the largest double with ``a (C+1) / width <= e^eps`` exactly, the
    density ratio of the law sampled. That is ``z`` up to a few units in the last place
    while ``C - 1`` holds its digits; above ``eps ~ 20`` the rounding of ``C - 1`` moves
    ``a`` further (above ``eps ~ 73``, ``C`` is the double above 1 and ``a`` is about
    ``e^eps / 2^53``), so that the level sampled is the one asked for. The raw output's mean
    is ``kappa x`` with ``kappa = (a (C+1) - width) / (2 (a+1))``, which is 1 for the real
    ``z`` and within about ``1e-10`` of it here (``eps = 1e-6``; ``1e-16`` at ``eps = 1``):
    :meth:`decode` divides by it and :meth:`variance` is the decoded value's, both for the
    constants sampled.

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> from ldp.mechanisms import Piecewise
    >>> pm = Piecewise(1.0)
    >>> round(pm.variance(1), 10), round(pm.variance(1, 0.0), 10)
    (5.223597452, 3.6821033695)
    >>> pm.width == pm.C - 1, pm.epsilon
    (True, 1.0)
    """

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        eps = self._eps_budget
        nominal = (math.exp(eps / 2) + 1) / math.expm1(eps / 2)
        self.C = max(nominal, math.nextafter(1.0, math.inf))  # 1.0 above eps ~ 73
        self.width = self.C - 1.0  # exact: 1 < C < 2^53; the length of the window around x
        self.resolution = grid_step(self.C)

        def within(a: float) -> bool:
            return within_exp(self._ratio(a), eps)

        start = exp_down(eps / 2)
        odds = nearest_within(within, start, 0.0)
        if odds == start:  # up to the last double within (C - 1 is coarse at large eps)
            odds = math.nextafter(nearest_within(lambda a: not within(a), start, math.inf), 0.0)
        self._law = ExactLaw([odds, 1.0])  # window : tails
        self._reach = (math.ceil(self.C / self.resolution) + 1) * self.resolution
        a, c, width = Fraction(odds), Fraction(self.C), Fraction(self.width)
        self._slope = float((a * (c + 1) - width) / (2 * (a + 1)))  # kappa, to the nearest double

    name = "Piecewise"

    def _tails(self) -> Fraction:
        """The tails' length ``C + 1``: the larger of its exact value (the specification's)
        and its double (by which :meth:`privatize` scales the uniform draw)."""
        return max(Fraction(self.C) + 1, Fraction(self.C + 1.0))

    def _ratio(self, odds: float | None = None) -> Fraction:
        """The density ratio of the law sampled (with window odds ``odds``, default those
        sampled), exactly: the window has mass ``a / (a+1)`` on its length ``width``, the
        tails ``1 / (a+1)`` on the rest, ``C + 1``."""
        a = self._law.weights[0] if odds is None else odds
        return Fraction(a) * self._tails() / Fraction(self.width)

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._ratio(), self._eps_budget)

    @property
    def codec(self) -> ReportCodec:
        return float_codec(-self._reach, self._reach, self.resolution)

    def sampler(self) -> dict[str, object]:
        """``keep``: odds of the window around ``x`` against the tails; ``C``, ``width``
        (``C - 1``) and the output grid's ``step``."""
        return {
            "keep": list(self._law.weights),
            "C": self.C,
            "width": self.width,
            "step": self.resolution,
        }

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        c, width = self.C, self.width
        window = choose(gen, [self._law], np.zeros(x.size, dtype=np.int64)) == 0
        u = uniform(gen, x.size)
        left = (c + 1) * x / 2 - width / 2
        # the tails [-C, left) and [left + width, C] have one density whatever x is: draw a
        # point of their total length C + 1 and skip the window
        tail = (c + 1) * u - c
        tail = np.where(tail >= left, tail + width, tail)
        y = np.where(window, left + width * u, tail)
        return snap_to_grid(y, self.resolution, gen)

    def decode(self, reports: ArrayLike) -> np.ndarray:
        """The reports divided by the raw output's mean slope ``kappa`` (class notes)."""
        return self.codec.from_rows(reports) / self._slope

    def privacy_channel(self) -> Channel:
        """The inputs ``-1`` and ``1`` (disjoint windows): each window has mass ``a/(a+1)``
        under its own input and ``width / ((a+1)(C+1))`` under the other (``1/(z(z+1))``
        for the real constants); closer inputs overlap and are garblings of this pair."""
        a = self._law.weights[0]
        return window_channel(a / (a + 1), self.width / ((a + 1) * (self.C + 1)))

    def audit_statistic(self, x0: Any, x1: Any):
        """Bins of the report between ``x0`` and ``x1``."""
        low, high = sorted((float(x0), float(x1)))
        return lambda reports: report_bins(np.asarray(reports, dtype=float), low, high)

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        """``Var(decode(Y) | x)`` for the constants sampled (``a``, ``C``, ``w = C - 1``).

        The raw output has mean ``s m`` and second moment ``s m^2 + R`` with
        ``m = (C+1) x / 2`` the window's centre, ``s = n / ((a+1)(C+1))``,
        ``n = a (C+1) - w = (a-1)(C+1) + 2`` and
        ``R = (a w^2/12 + (2C^3/3 - w^3/12) / (C+1)) / (a+1)``; divided by
        ``kappa = n / (2(a+1))`` its variance is ``(2C/n) x^2 + R (2(a+1)/n)^2``, which is
        ``x^2/(z-1) + (z+3)/(3(z-1)^2)`` for the real constants.
        """
        a, c, w = self._law.weights[0], self.C, self.width
        n = (a - 1.0) * (c + 1.0) + 2.0
        rest = (a * w * w / 12 + (2 * c**3 / 3 - w**3 / 12) / (c + 1.0)) / (a + 1.0)
        return (2 * c / n) * x**2 + rest * (2 * (a + 1.0) / n) ** 2

    def worst_case_variance(self) -> float:
        return float(self.per_user_variance(np.ones(()))[()])


# --------------------------------------------------------------------------- hybrid
def hybrid_threshold() -> float:
    """``eps* ~ 0.6093525``, below which :class:`Hybrid` uses Duchi's mechanism only.

    Returns
    -------
    float
        The root ``eps*`` of the equation that equates the piecewise mechanism's variance at
        ``x = 0`` with Duchi's, in closed form (a Cardano root).

    Examples
    --------
    >>> from ldp.mechanisms import hybrid_threshold
    >>> round(hybrid_threshold(), 10)
    0.609352493
    """
    root = math.sqrt(241.0)
    inner = -5 + 2 * np.cbrt(6353 - 405 * root) + 2 * np.cbrt(6353 + 405 * root)
    return math.log(float(inner) / 27)


class Hybrid(MeanMechanism):
    """The hybrid mechanism (Wang et al., ICDE 2019): piecewise with probability
    ``alpha = 1 - e^{-eps/2}`` and Duchi otherwise when ``eps > eps*`` (Duchi only below).

    Above the threshold its variance does not depend on ``x``:
    ``(z+3)/(3z(z-1)) + (e^eps+1)^2/(z(e^eps-1)^2)`` with ``z = e^{eps/2}`` (up to the
    rounding of the constants sampled, from which :meth:`variance` is computed). Reports are
    the released floats. The output law mixes an atomic part (Duchi, at ``+-C``) and a
    continuous part (piecewise) with weights that do not depend on ``x``, so its epsilon is
    the larger of the two components'; each is calibrated as in :class:`Duchi` and
    :class:`Piecewise`. The raw mean is ``lambda x`` with ``lambda = alpha kappa + 1 -
    alpha`` (``kappa`` the piecewise part's slope, :class:`Piecewise`): :meth:`decode`
    divides by it.

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> from ldp.mechanisms import Hybrid
    >>> round(Hybrid(1.0).variance(1), 10), round(Hybrid(2.0).variance(1), 10)
    (4.2889924933, 1.0423363417)
    """

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        self._pm = Piecewise(self._eps_budget)
        self._duchi = Duchi(self._eps_budget)
        if self._eps_budget > hybrid_threshold():
            zm1 = math.expm1(self._eps_budget / 2)
            self._law: ExactLaw | None = ExactLaw([zm1, 1.0])  # piecewise : Duchi
            mix = probabilities(self._law.weights)[0]  # 1 - e^{-eps/2}, as sampled
        else:
            self._law = None
            mix = Fraction(0)
        self.alpha = float(mix)
        self._duchi_share = float(1 - mix)  # 1 - alpha, exactly rounded (alpha is near 1)
        slope = mix * Fraction(self._pm._slope) + 1 - mix
        self._slope = float(slope)  # lambda, the raw mean per unit of x
        self._excess = float(Fraction(self._pm._slope) - 1)  # kappa - 1

    name = "Hybrid"

    def _ratio(self) -> Fraction:
        """The larger of the two parts' ratios (a mixture with weights that do not depend on
        ``x`` is no worse than its worst part), exactly."""
        duchi = self._duchi._ratio()
        return duchi if self._law is None else max(duchi, self._pm._ratio())

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._ratio(), self._eps_budget)

    @property
    def codec(self) -> ReportCodec:
        reach = max(self._pm.codec.fields[0].high, self._duchi.bound)
        return ReportCodec(
            (Field("value", "float", -reach, reach),),
            "float64",
            vector=False,
            check=self._check_values_released,
        )

    def _check_values_released(self, reports: np.ndarray, where) -> None:
        # within 1e-9 of +-B: reports made under earlier versions, whose bound differed from
        # today's calibrated one in the last digits, still decode
        duchi = np.abs(np.abs(reports) - self._duchi.bound) <= 1e-9 * self._duchi.bound
        field = self._pm.codec.fields[0]
        scaled = reports / field.step
        piecewise = (scaled == np.floor(scaled)) & (np.abs(reports) <= field.high)
        bad = ~(duchi | (piecewise if self._law is not None else False))
        if np.any(bad):
            raise ValueError(
                f"{where(int(np.argmax(bad)))}: the report is neither a piecewise output nor "
                "+-the Duchi bound (not a report of this mechanism)"
            )

    def sampler(self) -> dict[str, object]:
        """``mix``: odds of the piecewise branch against Duchi's (``None`` below the
        threshold: Duchi only); ``piecewise`` and ``duchi``: their constants; ``bound``: the
        magnitude of a Duchi report."""
        return {
            "mix": None if self._law is None else list(self._law.weights),
            "piecewise": self._pm.sampler(),
            "duchi": self._duchi.sampler(),
            "bound": self._duchi.bound,
        }

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        if self._law is None:
            use_pm = np.zeros(x.shape, dtype=bool)
        else:
            use_pm = choose(gen, [self._law], np.zeros(x.size, dtype=np.int64)) == 0
        out = np.empty(x.shape)
        out[use_pm] = self._pm.privatize(x[use_pm], rng=gen)
        out[~use_pm] = self._duchi.bound * self._duchi.privatize(x[~use_pm], rng=gen)
        return out

    def decode(self, reports: ArrayLike) -> np.ndarray:
        """The reports divided by the raw mean slope ``lambda`` (class notes)."""
        return self.codec.from_rows(reports) / self._slope

    def privacy_channel(self) -> Channel:
        """The inputs ``-1`` and ``1`` for both branches at once: the piecewise pair with weight
        ``alpha`` beside Duchi's randomized response (atoms, apart from the densities)."""
        duchi = self._duchi.privacy_channel().matrix
        if self._law is None:
            return Channel(duchi)
        piecewise = self._pm.privacy_channel().matrix
        return Channel(np.hstack([self.alpha * piecewise, self._duchi_share * duchi]))

    def audit_statistic(self, x0: Any, x1: Any):
        """Bins of the report between ``x0`` and ``x1``, with Duchi's atoms coded apart."""
        low, high = sorted((float(x0), float(x1)))
        atom = self._duchi.bound

        def statistic(reports: np.ndarray) -> np.ndarray:
            y = np.asarray(reports, dtype=float)
            codes = report_bins(y, low, high)
            return np.where(y == atom, -1, np.where(y == -atom, -2, codes))

        return statistic

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        """``Var(decode(Y) | x)``: the raw variance ``alpha kappa^2 V_pm(x) + (1 - alpha)
        V_duchi(x) + alpha (1 - alpha) (kappa - 1)^2 x^2`` (the branches' means are
        ``kappa x`` and ``x``) divided by ``lambda^2``."""
        alpha, rest, kappa = self.alpha, self._duchi_share, self._pm._slope
        raw = (
            alpha * kappa**2 * self._pm.per_user_variance(x)
            + rest * self._duchi.per_user_variance(x)
            + alpha * rest * self._excess**2 * x**2
        )
        return raw / self._slope**2

    def worst_case_variance(self) -> float:
        return float(np.max(self.per_user_variance(np.array([0.0, 1.0]))))

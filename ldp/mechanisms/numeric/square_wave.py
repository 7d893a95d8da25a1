"""The square wave mechanism of Li et al. (2020): distribution estimation on an interval."""

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
    within_exp,
)
from ldp._sampling import ExactLaw, choose, uniform
from ldp._validation import check_integer, check_random_state
from ldp.channel import Channel
from ldp.core import ReportCodec, float_codec
from ldp.mechanisms.base import MeanMechanism
from ldp.mechanisms.draws import grid_step, snap_to_grid
from ldp.mechanisms.numeric._common import exp_tail, report_bins
from ldp.mechanisms.numeric.distribution import (
    MAX_BINS,
    METHODS,
    NumericDistribution,
    em_histogram,
    report_histogram,
    square_wave_transition,
)
from ldp.mechanisms.worst_pair import window_channel

__all__ = ["SquareWave"]


# --------------------------------------------------------------------------- square wave
def _window_ratio(near: float, b: float) -> Fraction:
    """The density ratio of the square wave with odds ``near : 1`` of its window, exactly:
    mass ``near / (near + 1)`` on the window's length ``2b``, the rest on length 1."""
    return Fraction(near) / (2 * Fraction(b))


class SquareWave(MeanMechanism):
    """The square wave mechanism (Li et al., SIGMOD 2020) on ``[0, 1]``, with the unbiased
    decoder.

    Output in ``[-b, 1+b]`` with density ``p = e^eps/(2b e^eps + 1)`` on ``|y - v| <= b``
    and ``q = 1/(2b e^eps + 1)`` elsewhere, ``b = (eps e^eps - e^eps + 1)/(2e^eps(e^eps - 1 -
    eps))``. The raw output is biased for the mean (it is meant for distribution estimation);
    :meth:`decode` returns ``(Y - q(1+2b)/2) / (2b(p - q))``, which is unbiased because
    ``E[Y | v] = q(1+2b)/2 + 2b(p-q)v``. The output is released on a grid of
    ``resolution`` (``2^-24`` of ``1 + b``) by unbiased randomized rounding, against the
    floating-point leak of continuous sampling (module notes).

    **As sampled.** The odds of the window against the rest, ``2b e^eps : 1``, are moved
    down to the first double ``w`` with ``w / (2b) <= e^eps`` exactly (the density ratio of
    the law sampled); ``p = w / (2b (w + 1))`` and ``q = 1 / (w + 1)`` are those odds', and
    the decoder and the variance use them.

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[1e-6, 700]``.

    Examples
    --------
    >>> from ldp.mechanisms import SquareWave
    >>> sw = SquareWave(1.0)
    >>> round(sw.b, 10), round(sw.variance(1, 0.0), 10), round(sw.variance(1, 0.5), 10)
    (0.2560829375, 1.3790245116, 0.9494540545)
    """

    low = 0.0
    high = 1.0

    def __init__(self, epsilon: float) -> None:
        super().__init__(epsilon)
        eps = self._eps_budget
        # b = (eps e^eps - e^eps + 1) / (2 e^eps (e^eps - 1 - eps)), divided through by e^eps
        # so that it neither overflows at large eps nor cancels catastrophically at small eps
        self.b = exp_tail(-eps) / (2 * exp_tail(eps))
        span = 2 * self.b  # exact: the window's length
        near = nearest_within(
            lambda w: within_exp(_window_ratio(w, self.b), eps), span * exp_down(eps), 0.0
        )
        self._law = ExactLaw([near, 1.0])  # within b of v : farther
        self.p_density = near / (span * (near + 1.0))
        self.q_density = 1.0 / (near + 1.0)
        self._gap = (near - span) / (span * (near + 1.0))  # p - q, without cancellation
        self.resolution = grid_step(1.0 + self.b)
        self._reach = (math.ceil((1.0 + self.b) / self.resolution) + 1) * self.resolution

    name = "SquareWave"

    def _ratio(self) -> Fraction:
        """The density ratio of the law sampled, exactly (:func:`_window_ratio`)."""
        return _window_ratio(self._law.weights[0], self.b)

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._ratio(), self._eps_budget)

    @property
    def codec(self) -> ReportCodec:
        return float_codec(-self._reach, self._reach, self.resolution)

    def sampler(self) -> dict[str, object]:
        """``keep``: odds of an output within ``b`` of ``v``; ``b``; the grid's ``step``."""
        return {"keep": list(self._law.weights), "b": self.b, "step": self.resolution}

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        v = self._check_values(values)
        gen = check_random_state(rng)
        b = self.b
        near = choose(gen, [self._law], np.zeros(v.size, dtype=np.int64)) == 0
        u = uniform(gen, v.size)
        far = np.where(u < v, u - b, u + b)  # [-b, v-b) or [v+b, 1+b), length 1
        return snap_to_grid(np.where(near, (v - b) + (2 * b) * u, far), self.resolution, gen)

    def decode(self, reports: ArrayLike) -> np.ndarray:
        y = self.codec.from_rows(reports)
        b, q = self.b, self.q_density
        return (y - q * (1 + 2 * b) / 2) / (2 * b * self._gap)

    def privacy_channel(self) -> Channel:
        """The inputs ``0`` and ``1`` (disjoint windows, ``b < 1/2``): mass ``2b p`` of each
        window under its own input and ``2b q`` under the other."""
        near, far = self._law.probabilities()
        return window_channel(near, far * 2 * self.b)

    def audit_statistic(self, x0: Any, x1: Any):
        """Bins of the report between ``x0`` and ``x1``."""
        low, high = sorted((float(x0), float(x1)))
        return lambda reports: report_bins(np.asarray(reports, dtype=float), low, high)

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        b, q, gap = self.b, self.q_density, self._gap
        first = q * (1 + 2 * b) / 2 + 2 * b * gap * x
        second = q * ((1 + b) ** 3 + b**3) / 3 + gap * (6 * x**2 * b + 2 * b**3) / 3
        return (second - first**2) / (2 * b * gap) ** 2

    def worst_case_variance(self) -> float:
        # convex in x (the x^2 coefficient is 2b(p-q)(1 - 2b(p-q)) > 0): max at an end
        return float(np.max(self.per_user_variance(np.array([0.0, 1.0]))))

    def transition(self, bins: int = 256, output_bins: int | None = None) -> np.ndarray:
        """``M[j, i] = P(report in output bin j | value uniform in input bin i)``, exact for
        the report as released (on the grid, by randomized rounding): see
        ``ldp.mechanisms.numeric.distribution``.

        Parameters
        ----------
        bins : int, default 256
            Equal input bins on ``[0, 1]``.
        output_bins : int, optional
            Bins of consecutive grid points covering the reports (default ``bins``).

        Returns
        -------
        ndarray, shape (output_bins, bins)
            Column-stochastic.
        """
        n_in, n_out = self._check_bins(bins, output_bins)
        b, p, q = self.b, self.p_density, self.q_density
        return square_wave_transition(b, p, q, self.resolution, n_in, n_out)

    @staticmethod
    def _check_bins(bins: object, output_bins: object) -> tuple[int, int]:
        n_in = check_integer(bins, "bins", low=2)
        n_out = n_in if output_bins is None else check_integer(output_bins, "output_bins", low=2)
        for name, value in (("bins", n_in), ("output_bins", n_out)):
            if value > MAX_BINS:
                raise ValueError(f"{name} must be <= {MAX_BINS} (MAX_BINS), got {value}")
        return n_in, n_out

    def estimate_distribution(
        self,
        reports: ArrayLike,
        bins: int = 256,
        *,
        method: str = "ems",
        output_bins: int | None = None,
        max_iter: int = 10_000,
        tol: float = 1e-3,
    ) -> NumericDistribution:
        """The distribution of the values on ``[0, 1]``, as a histogram of ``bins`` equal
        bins, by EM or EMS (Li et al. (2020); the stopping rule of their reference code).

        EMS (the default) smooths the histogram after every EM round; plain EM is the
        maximum-likelihood histogram and is spiky. The transition is ``transition``,
        the law of the report as released.

        Parameters
        ----------
        reports : array_like
            Reports of this mechanism (checked by the codec).
        bins : int, default 256
            Input bins (``2 .. 4096``).
        method : {"ems", "em"}
            With or without the smoothing step.
        output_bins : int, optional
            Report bins (default ``bins``).
        max_iter : int, default 10000
            Largest number of EM rounds.
        tol : float, default 1e-3
            Stop when the log-likelihood (nats, summed over reports) changes by less.

        Returns
        -------
        NumericDistribution
            Bin edges, probabilities, and the CDF, quantiles and mean they imply.

        Examples
        --------
        >>> import numpy as np
        >>> from ldp.mechanisms import SquareWave
        >>> sw = SquareWave(2.0)
        >>> values = np.random.default_rng(0).beta(2.0, 5.0, 50_000)
        >>> dist = sw.estimate_distribution(sw.privatize(values, rng=1), bins=64)
        >>> bool(abs(dist.quantile(0.5) - np.median(values)) < 0.03)
        True
        """
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        n_in, n_out = self._check_bins(bins, output_bins)
        y = self.codec.from_rows(reports)
        if y.size == 0:
            raise ValueError("cannot estimate a distribution from zero reports")
        counts = report_histogram(y, self.b, self.resolution, n_out)
        theta, rounds, converged = em_histogram(
            self.transition(n_in, n_out), counts, method=method, max_iter=max_iter, tol=tol
        )
        edges = np.linspace(0.0, 1.0, n_in + 1)
        return NumericDistribution(edges, theta, method, rounds, converged, int(y.size))

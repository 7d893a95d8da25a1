"""The Gaussian mechanism (approximate LDP), with untruncated normal draws."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp._gdp import (
    get_delta_from_gdp,
    get_epsilon_from_gdp,
    get_mu_from_epsilon_delta,
    get_tv_from_gdp,
)
from ldp._validation import check_random_state, check_scalar
from ldp.channel import Channel
from ldp.core import ReportCodec, float_codec
from ldp.mechanisms.base import MeanMechanism
from ldp.mechanisms.draws import GAUSSIAN_REACH, gaussian_tail_draws, grid_step, snap_to_grid
from ldp.mechanisms.numeric._common import report_bins, scale_within

__all__ = ["Gaussian"]


class Gaussian(MeanMechanism):
    r"""The Gaussian mechanism on ``[-1, 1]``: ``Y = x + N(0, sigma^2)``, ``sigma = 2 / mu``
    (the smallest double with ``2 / sigma <= mu`` exactly).

    Exactly ``mu``-GDP (Dong-Roth-Su (2022), Theorem 2.7: the two extreme inputs are at
    distance ``2 / sigma = mu`` in noise units and every other pair is closer), so it is
    ``(eps, delta_mu(eps))``-LDP at every ``eps >= 0`` with the tight profile
    ``delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``; it is not
    ``eps``-LDP for any finite ``eps`` (:attr:`epsilon` is ``inf``). It composes exactly:
    ``T`` reports are ``sqrt(T) mu``-GDP (:func:`ldp.accounting.compose`).

    Sampling: ``sqrt(2 E) cos(2 pi U)`` with an exponential ``E`` whose tail is not cut off
    (a geometric number of ``log 2`` steps and a remainder, as :class:`Laplace`), released on
    a grid of ``2^-24`` times ``sigma`` by unbiased randomized rounding, which is
    post-processing: the released law keeps the profile above up to the floating-point
    rounding of the value computed before snapping (module notes).

    Parameters
    ----------
    mu : float
        The GDP level, ``> 0``. :meth:`from_epsilon_delta` finds the ``mu`` that meets an
        ``(epsilon, delta)`` target.

    Examples
    --------
    >>> from ldp.mechanisms import Gaussian
    >>> g = Gaussian(1.0)
    >>> g.sigma, g.epsilon, round(g.delta(1.0), 6), round(g.tv, 6)
    (2.0, inf, 0.126937, 0.382925)
    >>> round(Gaussian.from_epsilon_delta(1.0, 1e-5).mu, 6)
    0.268051
    """

    name = "gaussian"

    def __init__(self, mu: float) -> None:
        self._mu = check_scalar(mu, "mu", low=0.0, low_open=True, high=1e6)
        self.sigma = scale_within(self._mu)
        self.resolution = grid_step(self.sigma)
        reach = 1.0 + self.sigma * GAUSSIAN_REACH + self.resolution
        self._reach = math.ceil(reach / self.resolution) * self.resolution

    @classmethod
    def from_epsilon_delta(cls, epsilon: float, delta: float) -> Gaussian:
        """The Gaussian mechanism with the largest ``mu`` whose profile meets ``delta`` at
        ``epsilon`` (the ``mu`` is rounded down: the target is never exceeded).

        Parameters
        ----------
        epsilon : float
            Target ``epsilon >= 0``.
        delta : float
            Target ``delta`` in ``(0, 1)``.

        Returns
        -------
        Gaussian

        Examples
        --------
        >>> from ldp.mechanisms import Gaussian
        >>> g = Gaussian.from_epsilon_delta(2.0, 1e-6)
        >>> bool(g.delta(2.0) <= 1e-6)
        True
        """
        eps = check_scalar(epsilon, "epsilon", low=0.0)
        d = check_scalar(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
        return cls(float(get_mu_from_epsilon_delta(eps, d)))

    @property
    def params(self) -> dict[str, object]:
        return {"mu": self._mu}

    @property
    def mu(self) -> float:
        """The GDP level ``2 / sigma``."""
        return self._mu

    def gdp_mu(self) -> float:
        """:attr:`mu`: the mechanism is exactly ``mu``-GDP."""
        return self._mu

    @property
    def epsilon(self) -> float:
        """``inf``: the Gaussian mechanism is not pure LDP (see :meth:`delta`)."""
        return math.inf

    @property
    def codec(self) -> ReportCodec:
        return float_codec(-self._reach, self._reach, self.resolution)

    def sampler(self) -> dict[str, object]:
        """``sigma`` of the noise and ``step`` of the output grid."""
        return {"sigma": self.sigma, "step": self.resolution}

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        return snap_to_grid(x + self.sigma * gaussian_tail_draws(gen, x.size), self.resolution, gen)

    def decode(self, reports: ArrayLike) -> np.ndarray:
        return self.codec.from_rows(reports)

    privacy_exact = False

    def privacy_channel(self) -> Channel:
        """Not available: no finite channel has the Gaussian profile. :meth:`delta`,
        :meth:`epsilon_for_delta` and :attr:`tv` are the closed forms, and
        :func:`ldp.accounting.compose` composes its curve ``G_mu`` exactly."""
        raise NotImplementedError(
            "the Gaussian mechanism has no finite privacy channel; use its delta(), "
            "epsilon_for_delta() and tv, or compose it with ldp.accounting.compose"
        )

    @property
    def tv(self) -> float:
        """``2 Phi(mu / 2) - 1`` (rounded up)."""
        return float(get_tv_from_gdp(self._mu))

    def delta(self, epsilon: ArrayLike) -> float | np.ndarray:
        """The tight ``delta_mu(eps)`` (rounded up; Dong-Roth-Su (2022), Corollary 2.13)."""
        return get_delta_from_gdp(self._mu, epsilon)

    def epsilon_for_delta(self, delta: ArrayLike) -> float | np.ndarray:
        """The smallest ``eps`` with ``delta_mu(eps) <= delta`` (rounded up; ``inf`` at 0)."""
        return get_epsilon_from_gdp(self._mu, delta)

    def audit_statistic(self, x0: Any, x1: Any):
        """Bins of the report between ``x0`` and ``x1``."""
        low, high = sorted((float(x0), float(x1)))
        return lambda reports: report_bins(np.asarray(reports, dtype=float), low, high)

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        return np.full(x.shape, self.sigma**2)

    def worst_case_variance(self) -> float:
        return self.sigma**2

"""Duchi et al.'s mechanisms: :class:`Duchi` (one randomized sign per coordinate, l_inf)
and :class:`DuchiL2` (a random direction of the l2 ball).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import gammaln

from ldp._exact import (
    certified_epsilon,
)
from ldp._sampling import bernoulli, choose, randint
from ldp._validation import check_integer, check_random_state, check_scalar
from ldp.channel import Channel
from ldp.core import Ball, Field, ReportCodec
from ldp.mechanisms.base import MeanMechanism
from ldp.mechanisms.draws import gaussian_draws, unit_rows
from ldp.mechanisms.numeric._common import coin_channel, coin_law, coth_half

__all__ = ["Duchi", "DuchiL2"]


# --------------------------------------------------------------------------- Duchi (l_inf)
class Duchi(MeanMechanism):
    r"""Duchi, Jordan and Wainwright's mechanism on ``[-1, 1]^d`` (JASA 2018).

    ``d = 1``: report ``+-C`` with ``P(+C) = 1/2 + x/(2C)``, ``C = (e^eps+1)/(e^eps-1)``;
    per-user variance ``C^2 - x^2``. Here ``e^eps`` is the odds of the truthful coin as
    sampled (the largest double at most ``e^eps``), so that ``C`` makes the released value
    exactly unbiased.

    ``d > 1`` (odd): draw ``v in {+-1}^d`` with ``P(v_j = 1) = (1 + x_j)/2`` and
    ``T ~ Bern(e^eps/(e^eps+1))``; output ``B z`` with ``z`` uniform on
    ``{z : <z, v> > 0}`` if ``T`` else on ``{<z, v> < 0}``, where
    ``B = C 2^{d-1} / binom(d-1, (d-1)/2)``. Then ``E[B z] = x`` and the per-coordinate
    variance is ``B^2 - x_j^2``.

    **Even d.** The commonly restated tie rule (ties ``<z, v> = 0`` in both halves, with
    ``B = C (2^{d-1} + binom(d, d/2)/2) / binom(d-1, d/2)``) is unbiased but only
    ``log(1 + e^eps)``-LDP (1.3133 at eps = 1; checked by enumeration in the tests). This
    class follows the spec's fix instead: pad ``x`` with a zero coordinate, run the odd
    ``(d+1)``-dimensional mechanism and release the first ``d`` coordinates, so
    ``B = C 2^d / binom(d, d/2)`` and the release is exactly eps-LDP (the dropped coordinate
    is post-processing; the tests enumerate ``d = 2, 4``).

    Reports are int8 signs (shape ``(n,)`` for ``d = 1``, else ``(n, d)``); the released
    value is ``B * sign`` (``B`` is :attr:`bound`).

    Parameters
    ----------
    epsilon : float
        Privacy level, ``> 0``.
    d : int, default 1
        Dimension.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import Duchi
    >>> duchi = Duchi(1.0, d=3)
    >>> round(duchi.bound, 10)            # 2 (e+1)/(e-1)
    4.3279068275
    >>> reports = duchi.privatize(np.full((20_000, 3), 0.5), rng=0)
    >>> bool(np.all(np.abs(duchi.estimate(reports) - 0.5) < 0.1))
    True
    """

    def __init__(self, epsilon: float, d: int = 1) -> None:
        super().__init__(epsilon)
        self._d = check_integer(d, "d", low=1)
        if self._d > 1 << 31:
            raise ValueError(f"d must be <= 2^31, got {self._d}")
        self._odd = self._d if self._d % 2 else self._d + 1
        m = self._odd
        # 2^(m-1) / binom(m-1, (m-1)/2), exactly for small m and in logs (no huge binomial)
        if m <= 1025:
            self._cd = 2 ** (m - 1) / math.comb(m - 1, (m - 1) // 2)
        else:
            log_binom = math.lgamma(m) - 2 * math.lgamma((m + 1) / 2)
            self._cd = math.exp((m - 1) * math.log(2.0) - log_binom)
        self._law = coin_law(self._eps_budget)  # T: the truthful side, odds e^eps : 1
        odds = self._law.weights[0]
        self._pi = odds / (odds + 1.0)  # P(T = 1)
        self._pi_complement = 1.0 / (odds + 1.0)
        self._bound = coth_half(odds) * self._cd

    name = "Duchi"

    @property
    def params(self) -> dict[str, object]:
        return {"epsilon": self._eps_budget, "d": self._d}

    @property
    def d(self) -> int:
        return self._d

    @property
    def bound(self) -> float:
        """Magnitude of each released coordinate."""
        return self._bound

    def _ratio(self) -> Fraction:
        """The coin's odds, exactly. Given ``v``, every ``z`` on the agreeing side has
        probability ``pi / 2^(m-1)`` and every ``z`` on the other side ``(1 - pi) / 2^(m-1)``;
        dropping the padded coordinate keeps the extreme outputs (``z = v`` and ``z = -v``),
        so the ratio is ``pi / (1 - pi)`` either way."""
        return Fraction(self._law.weights[0])

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._ratio(), self._eps_budget)

    @property
    def codec(self) -> ReportCodec:
        names = ["sign"] if self._d == 1 else [f"sign_{j}" for j in range(self._d)]
        fields = tuple(Field(name, "int", -1, 1) for name in names)
        return ReportCodec(fields, "int8", vector=self._d > 1, check=_check_signs)

    def sampler(self) -> dict[str, object]:
        """``keep``: odds of the side that agrees with the rounded input."""
        return {"keep": list(self._law.weights)}

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        n = x.shape[0]
        m = self._odd
        # round x to a vertex v of the cube (P(v_j = 1) = (1 + x_j) / 2; the padded
        # coordinate of even d is 0), pure pre-processing: the privacy is in the coin T
        padded = np.zeros((n, m))
        padded[:, : self._d] = x.reshape(n, self._d)
        v = np.where(bernoulli(gen, (1.0 + padded.ravel()) / 2.0), 1, -1).reshape(n, m)
        if m == 1:
            truthful = choose(gen, [self._law], np.zeros(n, dtype=np.int64)) == 0
            return np.where(truthful, v[:, 0], -v[:, 0]).astype(np.int8)
        z = (randint(gen, 2, n * m).reshape(n, m) * 2 - 1).astype(np.int8)
        agree = (z.astype(np.int64) * v).sum(axis=1) > 0  # never 0: m is odd
        truthful = choose(gen, [self._law], np.zeros(n, dtype=np.int64)) == 0
        z *= np.where(agree == truthful, 1, -1).astype(np.int8)[:, None]
        return np.ascontiguousarray(z[:, : self._d])

    def decode(self, reports: ArrayLike) -> np.ndarray:
        return self.bound * self.codec.from_rows(reports).astype(np.float64)

    @property
    def privacy_exact(self) -> bool:  # type: ignore[override]
        """Exact for odd ``d`` (opposite vertices are the worst pair); for even ``d`` the
        padded coordinate makes randomized response a dominating bound (compute the exact
        profile with :meth:`to_channel` for small ``d``)."""
        return self._d % 2 == 1

    def privacy_channel(self) -> Channel:
        """Randomized response with the truthful coin's odds: the pair ``v, -v``."""
        return coin_channel(self._law)

    def audit_statistic(self, x0: Any, x1: Any):
        """The sign pattern (``d <= 62``), else the side of ``x0 - x1``."""
        if self._d == 1:
            return lambda reports: (np.asarray(reports) > 0).astype(np.int64)
        if self._d <= 62:
            weights = 1 << np.arange(self._d, dtype=np.int64)
            return lambda reports: (np.asarray(reports) > 0).astype(np.int64) @ weights
        direction = np.asarray(x0, dtype=float) - np.asarray(x1, dtype=float)
        return lambda reports: np.sign(np.asarray(reports) @ direction).astype(np.int64)

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        return self.bound**2 - x**2

    def worst_case_variance(self) -> float:
        return self.bound**2

    def to_channel(self) -> Channel:
        """The channel from the ``2^d`` vertices of the cube to the ``2^d`` sign patterns
        (index bit ``d - 1 - j`` = coordinate ``j`` is ``+1``). Output probabilities are
        multilinear in ``x``, so the vertices carry the mechanism's exact epsilon."""
        if self._d > 10:
            raise ValueError(f"to_channel enumerates 4^d entries; d = {self._d} is too large")
        m = self._odd
        full = _sign_patterns(m)  # (2^m, m)
        agree = (full @ full.T) > 0  # [v, z]
        probs = np.where(agree, self._pi, self._pi_complement) / 2 ** (m - 1)
        if m == self._d:
            return Channel(probs)
        # v_pad uniform (x_pad = 0), z_pad marginalised; pattern index: pad is the last bit
        probs = probs.reshape(2**self._d, 2, 2**self._d, 2)
        return Channel(probs.mean(axis=1).sum(axis=2))


def _check_signs(reports: np.ndarray, where) -> None:
    bad = reports == 0
    if bad.ndim > 1:
        bad = bad.any(axis=1)
    if np.any(bad):
        raise ValueError(
            f"{where(int(np.argmax(bad)))}: the report is not a sign +1 or -1 "
            "(not a report of this mechanism)"
        )


def _sign_patterns(d: int) -> np.ndarray:
    idx = np.arange(2**d)[:, None]
    return np.where((idx >> (d - 1 - np.arange(d))) & 1, 1, -1)


# --------------------------------------------------------------------------- Duchi (l2)
class DuchiL2(MeanMechanism):
    r"""Duchi et al.'s mechanism on the l2 ball of radius ``radius`` in ``R^d``.

    Draw ``X~ = +-r x/||x||`` with ``P(+) = 1/2 + ||x||/(2r)`` and
    ``T ~ Bern(e^eps/(e^eps+1))``; output ``Z`` uniform on the sphere of radius ``B``
    (:attr:`bound`), in the half-space ``<z, X~> > 0`` if ``T`` and ``<= 0`` otherwise, with

    .. math:: B = r \frac{e^\varepsilon + 1}{e^\varepsilon - 1}
              \frac{\sqrt{\pi}\,\Gamma((d+1)/2)}{\Gamma(d/2)}.

    Some transcriptions write ``sqrt(pi) d Gamma((d-1)/2 + 1) / Gamma(d/2 + 1)``, which is
    twice this; the tests settle it by Monte Carlo (this constant is unbiased, the other
    doubles the mean) and by the odd-d identity with the l_inf constant. Reports are the
    float vectors ``Z``; ``E||Z - x||^2 = B^2 - ||x||^2``, and :meth:`variance` returns this
    total (trace) over the ``d`` coordinates.

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[1e-6, 700]``.
    d : int
        Dimension, ``d >= 1``.
    radius : float, default 1.0
        Radius ``r > 0`` of the input ball.

    Examples
    --------
    >>> from ldp.mechanisms import DuchiL2
    >>> round(DuchiL2(1.0, d=5).bound, 10)
    5.7705424366
    """

    def __init__(self, epsilon: float, d: int, radius: float = 1.0) -> None:
        super().__init__(epsilon)
        self._d = check_integer(d, "d", low=1)
        if self._d > 1 << 31:
            raise ValueError(f"d must be <= 2^31, got {self._d}")
        self.radius = check_scalar(radius, "radius", low=0.0, low_open=True)
        self.low, self.high = -self.radius, self.radius
        self._law = coin_law(self._eps_budget)
        gamma_ratio = math.exp(gammaln((self._d + 1) / 2) - gammaln(self._d / 2))
        coin = coth_half(self._law.weights[0])  # (e^eps + 1) / (e^eps - 1), as sampled
        self._B = self.radius * coin * math.sqrt(math.pi) * gamma_ratio
        if not self._B < 1e150:  # B^2 (the variance) must stay finite
            raise ValueError(
                "radius is too large: the output radius B must be < 1e150 (rescale the data)"
            )

    name = "DuchiL2"

    @property
    def params(self) -> dict[str, object]:
        return {"epsilon": self._eps_budget, "d": self._d, "radius": self.radius}

    @property
    def d(self) -> int:
        return self._d

    @property
    def domain(self) -> Ball:
        """The l2 ball of radius ``radius`` in ``R^d``."""
        return Ball(self.radius, self._d)

    @property
    def bound(self) -> float:
        """Radius of the output sphere."""
        return self._B

    def _ratio(self) -> Fraction:
        """The coin's odds, exactly: the pair ``{z, -z}`` always lands on the side the coin
        ``T`` picks, so whatever the law of the direction, the densities of the two
        half-spheres are in the ratio of its odds."""
        return Fraction(self._law.weights[0])

    @property
    def epsilon(self) -> float:
        return certified_epsilon(self._ratio(), self._eps_budget)

    @property
    def codec(self) -> ReportCodec:
        fields = tuple(Field(f"z_{j}", "float", -self._B, self._B) for j in range(self._d))
        return ReportCodec(fields, "float64", vector=True, check=self._check_norms)

    def _check_norms(self, reports: np.ndarray, where) -> None:
        norms = np.sqrt((reports**2).sum(axis=1))
        bad = np.abs(norms - self._B) > 1e-9 * self._B
        if np.any(bad):
            raise ValueError(
                f"{where(int(np.argmax(bad)))}: the report does not have norm B "
                "(not a report of this mechanism)"
            )

    def sampler(self) -> dict[str, object]:
        """``keep``: odds of the half-sphere that agrees with ``x``; ``bound``: ``B``."""
        return {"keep": list(self._law.weights), "bound": self._B}

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        n, d = x.shape
        norms = np.sqrt((x**2).sum(axis=1))
        positive = bernoulli(gen, np.minimum(0.5 + norms / (2 * self.radius), 1.0))
        direction = unit_rows(gaussian_draws(gen, n * d).reshape(n, d))
        nonzero = norms > 0
        direction[nonzero] = x[nonzero] / norms[nonzero, None]
        target = direction * np.where(positive, 1.0, -1.0)[:, None]
        z = unit_rows(gaussian_draws(gen, n * d).reshape(n, d))
        truthful = choose(gen, [self._law], np.zeros(n, dtype=np.int64)) == 0
        flip = ((z * target).sum(axis=1) > 0) != truthful
        z[flip] *= -1.0
        return self._B * z

    def decode(self, reports: ArrayLike) -> np.ndarray:
        return self.codec.from_rows(reports)

    def privacy_channel(self) -> Channel:
        """Randomized response: ``x`` and ``-x`` on the sphere of radius ``radius`` pick
        opposite half-spheres with the truthful coin's odds."""
        return coin_channel(self._law)

    def audit_statistic(self, x0: Any, x1: Any):
        """The side of ``x0 - x1`` the report lies on."""
        direction = np.asarray(x0, dtype=float) - np.asarray(x1, dtype=float)
        return lambda reports: (np.asarray(reports) @ direction > 0).astype(np.int64)

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        return self._B**2 - (x**2).sum(axis=1)

    def worst_case_variance(self) -> float:
        return self._B**2

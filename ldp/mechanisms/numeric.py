"""Unbiased mean mechanisms for bounded numbers and vectors under pure LDP (and the
Gaussian mechanism, which is ``mu``-GDP).

Inputs lie in ``[-1, 1]`` (``[0, 1]`` for :class:`SquareWave`; the ball of radius
``radius`` for :class:`DuchiL2`); rescale first. Values outside the domain raise, they are
never clipped. Each class cites the paper its formulas come from.

**Floating point (Mironov 2012).** A continuous mechanism implemented naively on doubles
leaks: ``x + scale * log(u)`` reaches a set of doubles that depends on ``x`` (so some outputs
are impossible under one input and possible under another), and a uniform ``u`` with 53 bits
truncates the tails. The continuous mechanisms here (:class:`Laplace`, :class:`Piecewise`,
:class:`SquareWave`, and :class:`Hybrid` through its piecewise part) therefore release
their output rounded to a fixed grid, ``resolution`` = a power of two ``2^-24`` times the
output's scale, by *unbiased randomized rounding* (up with probability equal to the
fractional part). Rounding the exact continuous output this way is post-processing, so the
idealised released law is exactly ``epsilon``-LDP and unbiased, and every grid point is
reachable from every input; Laplace noise comes from an exponential sampler with an
unbounded tail (a geometric number of ``log 2`` steps plus a 53-bit remainder). What remains
is the rounding of the double computed before snapping: at most a few ulps, i.e. a relative
error of about ``2^-28`` in the probability of a grid cell near the input (growing with
``|y| / scale`` in the Laplace tail), which changes the privacy loss by about ``1e-8``, not
the set of possible outputs. The variance formulas omit the rounding's own variance, at most
``resolution^2 / 4`` (about ``1e-15`` relative).

**Calibrated constants.** The constants of every sampler are doubles chosen so that the law
they realise is ``epsilon``-LDP *exactly*, not up to rounding: a coin's odds ``e^eps`` is the
largest double at most ``e^eps`` (:func:`ldp._exact.exp_down`), a scale ``2 / eps`` is the
smallest double whose level ``2 / scale`` is at most ``eps``, and any other constant moves
from its nominal value, one double at a time towards more privacy, until the largest
likelihood ratio it realises (an exact rational of the doubles) is at most ``e^eps``. Each
``epsilon`` is then the level asked for (:func:`ldp._exact.certified_epsilon`), and the
decoders, bounds and variances are computed from the calibrated constants, so that the
estimates are unbiased for the law actually sampled.
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
    exp_down,
    exp_up,
    nearest_within,
    probabilities,
    within_exp,
)
from ldp._gdp import (
    get_delta_from_gdp,
    get_epsilon_from_gdp,
    get_mu_from_epsilon_delta,
    get_tv_from_gdp,
)
from ldp._rounding import round_up
from ldp._sampling import ExactLaw, bernoulli, choose, randint, uniform, zero_bits
from ldp._validation import check_integer, check_random_state, check_scalar
from ldp.channel import Channel
from ldp.core import Ball, Field, ReportCodec, float_codec
from ldp.mechanisms.base import MeanMechanism
from ldp.mechanisms.channels import binary_erasure
from ldp.mechanisms.numeric_distribution import (
    MAX_BINS,
    METHODS,
    NumericDistribution,
    em_histogram,
    report_histogram,
    square_wave_transition,
)

__all__ = [
    "Duchi",
    "DuchiL2",
    "Gaussian",
    "Hybrid",
    "Laplace",
    "Piecewise",
    "SquareWave",
    "Staircase",
    "hybrid_threshold",
    "staircase_tv",
]


def _exp_tail(t: float) -> float:
    """``e^t - 1 - t`` accurately (a series for small ``|t|``, where it cancels)."""
    if abs(t) > 0.5:
        return math.expm1(t) - t
    term, total = t * t / 2, 0.0
    for j in range(3, 30):
        total += term
        term *= t / j
    return total


def _coth_half(odds: float) -> float:
    """``(o + 1) / (o - 1)`` for the odds ``o`` of a truthful coin (``(e^eps + 1) /
    (e^eps - 1)`` at ``o = e^eps``): ``1 / (2 P(truthful) - 1)``, the scale that makes a
    randomized sign unbiased."""
    return (odds + 1.0) / (odds - 1.0)


def _scale_within(level: float) -> float:
    """The smallest double ``s`` whose level ``2 / s`` is at most ``level``, exactly (the
    noise scale of a mechanism whose extreme inputs are 2 apart)."""
    target = Fraction(level)
    return nearest_within(lambda s: Fraction(2) / Fraction(s) <= target, 2.0 / level, math.inf)


#: Bits of the output grid below the scale of a continuous mechanism's output.
GRID_BITS = 24


def _grid_step(scale: float) -> float:
    """The power of two ``2^(floor(log2 scale) - GRID_BITS)``."""
    return math.ldexp(1.0, math.frexp(scale)[1] - 1 - GRID_BITS)


#: ``log 2`` as a double (the clients use the same literal).
LN2 = 0.6931471805599453
#: ``2 pi`` as a double (the clients use the same literal).
TWO_PI = 6.283185307179586
#: Zero bits of the exponential sampler beyond which a report cannot occur in practice
#: (probability ``2^-1100``, below the smallest double): the Laplace report range.
LAPLACE_TAIL_BITS = 1100


def _snap(y: np.ndarray, step: float, gen) -> np.ndarray:
    """Unbiased randomized rounding of ``y`` to multiples of ``step`` (a power of two): up
    with probability exactly the fractional part (an exact coin, :func:`bernoulli`)."""
    scaled = y / step  # exact: step is a power of two
    low = np.floor(scaled)
    return (low + bernoulli(gen, scaled - low)) * step


def _exponential(n: int, gen) -> np.ndarray:
    """``n`` standard exponential draws ``E = log(2) J + R`` with an unbounded tail.

    ``J`` (``P(J >= j) = 2^-j``) counts the zero bits before the first one bit of the byte
    stream (exact); ``R = -log1p(-U/2)`` with ``U`` uniform on ``[0, 1)`` is an exponential
    conditioned on ``[0, log 2)``. By memorylessness ``E`` is exponential, and unlike
    ``-log(u)`` of one 53-bit uniform it is not cut off at ``53 log 2``.
    """
    steps = zero_bits(gen, n).astype(np.float64)
    rest = -np.log1p(-0.5 * uniform(gen, n))
    return LN2 * steps + rest


def _gaussian(gen, n: int) -> np.ndarray:
    """``n`` standard normal draws by Box-Muller: ``sqrt(-2 log1p(-U1)) cos(2 pi U2)``."""
    first = uniform(gen, n)
    second = uniform(gen, n)
    return np.sqrt(-2.0 * np.log1p(-first)) * np.cos(TWO_PI * second)


#: The continuous draws above under public names, for the other vector mechanisms
#: (:mod:`ldp.mechanisms.privunit`): one home for each sampler the clients reproduce.
grid_step = _grid_step
snap_to_grid = _snap
exponential_draws = _exponential
gaussian_draws = _gaussian


def _randomized_response(law: ExactLaw) -> Channel:
    """The 2-row channel of a truthful coin with the odds of ``law``: outputs that agree with
    the first input or with the second."""
    truthful, lying = law.probabilities()
    return Channel([[truthful, lying], [lying, truthful]])


def _windows(near: float, far: float) -> Channel:
    """Two inputs whose high-density windows are disjoint: mass ``near`` of each window under
    its own input, ``far`` under the other, the rest alike."""
    rest = max(0.0, 1.0 - near - far)
    return Channel([[near, far, rest], [far, near, rest]])


def _bins(y: np.ndarray, low: float, high: float, n_bins: int = 8) -> np.ndarray:
    """Bin index of ``y``: ``0`` below ``low``, ``n_bins + 1`` above ``high``."""
    return np.digitize(y, np.linspace(low, high, n_bins + 1)).astype(np.int64)


def _coin_law(epsilon: float) -> ExactLaw:
    """Odds ``e^eps : 1`` (the largest double at most ``e^eps``): the truthful side of a
    randomized-response coin."""
    return ExactLaw([exp_down(epsilon), 1.0])


def _check_float_reports(reports, codec: ReportCodec):
    """Native float reports, checked by the codec (range, grid, structure)."""
    return codec.from_rows(reports)


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
        self._law = _coin_law(self._eps_budget)  # T: the truthful side, odds e^eps : 1
        odds = self._law.weights[0]
        self._pi = odds / (odds + 1.0)  # P(T = 1)
        self._pi_complement = 1.0 / (odds + 1.0)
        self._bound = _coth_half(odds) * self._cd

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

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
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
        return _randomized_response(self._law)

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


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    """Rows divided by their Euclidean norms (a zero row becomes the first basis vector)."""
    norms = np.sqrt((rows**2).sum(axis=1))
    zero = norms == 0
    rows[zero] = 0.0
    rows[zero, 0] = 1.0
    norms[zero] = 1.0
    return rows / norms[:, None]


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
        self._law = _coin_law(self._eps_budget)
        gamma_ratio = math.exp(gammaln((self._d + 1) / 2) - gammaln(self._d / 2))
        coin = _coth_half(self._law.weights[0])  # (e^eps + 1) / (e^eps - 1), as sampled
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

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        n, d = x.shape
        norms = np.sqrt((x**2).sum(axis=1))
        positive = bernoulli(gen, np.minimum(0.5 + norms / (2 * self.radius), 1.0))
        direction = _unit_rows(_gaussian(gen, n * d).reshape(n, d))
        nonzero = norms > 0
        direction[nonzero] = x[nonzero] / norms[nonzero, None]
        target = direction * np.where(positive, 1.0, -1.0)[:, None]
        z = _unit_rows(_gaussian(gen, n * d).reshape(n, d))
        truthful = choose(gen, [self._law], np.zeros(n, dtype=np.int64)) == 0
        flip = ((z * target).sum(axis=1) > 0) != truthful
        z[flip] *= -1.0
        return self._B * z

    def decode(self, reports: ArrayLike) -> np.ndarray:
        return self.codec.from_rows(reports)

    def privacy_channel(self) -> Channel:
        """Randomized response: ``x`` and ``-x`` on the sphere of radius ``radius`` pick
        opposite half-spheres with the truthful coin's odds."""
        return _randomized_response(self._law)

    def audit_statistic(self, x0: Any, x1: Any):
        """The side of ``x0 - x1`` the report lies on."""
        direction = np.asarray(x0, dtype=float) - np.asarray(x1, dtype=float)
        return lambda reports: (np.asarray(reports) @ direction > 0).astype(np.int64)

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        return self._B**2 - (x**2).sum(axis=1)

    def worst_case_variance(self) -> float:
        return self._B**2


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
        self.scale = _scale_within(self._eps_budget)
        self.resolution = _grid_step(self.scale)
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

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        negative = bernoulli(gen, np.full(x.shape, 0.5))
        sign = np.where(negative, -self.scale, self.scale)
        return _snap(x + sign * _exponential(x.size, gen), self.resolution, gen)

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
        return lambda reports: _bins(np.asarray(reports, dtype=float), low, high)

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        return np.full(x.shape, 2 * self.scale**2)

    def worst_case_variance(self) -> float:
        return 2 * self.scale**2


# --------------------------------------------------------------------------- Gaussian
#: Largest standard normal draw of :func:`_exact_gaussian`: ``sqrt(2 E)`` with ``E`` at most
#: ``log 2`` times ``LAPLACE_TAIL_BITS + 1``.
GAUSSIAN_REACH = math.sqrt(2.0 * LN2 * (LAPLACE_TAIL_BITS + 1))


def _exact_gaussian(gen, n: int) -> np.ndarray:
    """``n`` standard normal draws ``sqrt(2 E) cos(2 pi U)`` (Box-Muller in polar form) with
    ``E`` from :func:`_exponential`, so the radius has the untruncated tail that the
    one-uniform form ``sqrt(-2 log(u))`` lacks (it stops at ``8.6``)."""
    radius = np.sqrt(2.0 * _exponential(n, gen))
    return radius * np.cos(TWO_PI * uniform(gen, n))


#: The untruncated normal draws under a public name (for :mod:`ldp.mechanisms.privunit`).
gaussian_tail_draws = _exact_gaussian


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
        self.sigma = _scale_within(self._mu)
        self.resolution = _grid_step(self.sigma)
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

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        return _snap(x + self.sigma * _exact_gaussian(gen, x.size), self.resolution, gen)

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
        return lambda reports: _bins(np.asarray(reports, dtype=float), low, high)

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        return np.full(x.shape, self.sigma**2)

    def worst_case_variance(self) -> float:
        return self.sigma**2


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
        self.resolution = _grid_step(self.C)

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

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
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
        return _snap(y, self.resolution, gen)

    def decode(self, reports: ArrayLike) -> np.ndarray:
        """The reports divided by the raw output's mean slope ``kappa`` (class notes)."""
        return self.codec.from_rows(reports) / self._slope

    def privacy_channel(self) -> Channel:
        """The inputs ``-1`` and ``1`` (disjoint windows): each window has mass ``a/(a+1)``
        under its own input and ``width / ((a+1)(C+1))`` under the other (``1/(z(z+1))``
        for the real constants); closer inputs overlap and are garblings of this pair."""
        a = self._law.weights[0]
        return _windows(a / (a + 1), self.width / ((a + 1) * (self.C + 1)))

    def audit_statistic(self, x0: Any, x1: Any):
        """Bins of the report between ``x0`` and ``x1``."""
        low, high = sorted((float(x0), float(x1)))
        return lambda reports: _bins(np.asarray(reports, dtype=float), low, high)

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

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        if self._law is None:
            use_pm = np.zeros(x.shape, dtype=bool)
        else:
            use_pm = choose(gen, [self._law], np.zeros(x.size, dtype=np.int64)) == 0
        out = np.empty(x.shape)
        out[use_pm] = self._pm.privatize(x[use_pm], gen)
        out[~use_pm] = self._duchi.bound * self._duchi.privatize(x[~use_pm], gen)
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
            codes = _bins(y, low, high)
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
        self.b = _exp_tail(-eps) / (2 * _exp_tail(eps))
        span = 2 * self.b  # exact: the window's length
        near = nearest_within(
            lambda w: within_exp(_window_ratio(w, self.b), eps), span * exp_down(eps), 0.0
        )
        self._law = ExactLaw([near, 1.0])  # within b of v : farther
        self.p_density = near / (span * (near + 1.0))
        self.q_density = 1.0 / (near + 1.0)
        self._gap = (near - span) / (span * (near + 1.0))  # p - q, without cancellation
        self.resolution = _grid_step(1.0 + self.b)
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

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
        v = self._check_values(values)
        gen = check_random_state(rng)
        b = self.b
        near = choose(gen, [self._law], np.zeros(v.size, dtype=np.int64)) == 0
        u = uniform(gen, v.size)
        far = np.where(u < v, u - b, u + b)  # [-b, v-b) or [v+b, 1+b), length 1
        return _snap(np.where(near, (v - b) + (2 * b) * u, far), self.resolution, gen)

    def decode(self, reports: ArrayLike) -> np.ndarray:
        y = self.codec.from_rows(reports)
        b, q = self.b, self.q_density
        return (y - q * (1 + 2 * b) / 2) / (2 * b * self._gap)

    def privacy_channel(self) -> Channel:
        """The inputs ``0`` and ``1`` (disjoint windows, ``b < 1/2``): mass ``2b p`` of each
        window under its own input and ``2b q`` under the other."""
        near, far = self._law.probabilities()
        return _windows(near, far * 2 * self.b)

    def audit_statistic(self, x0: Any, x1: Any):
        """Bins of the report between ``x0`` and ``x1``."""
        low, high = sorted((float(x0), float(x1)))
        return lambda reports: _bins(np.asarray(reports, dtype=float), low, high)

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
        ``ldp.mechanisms.numeric_distribution``.

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


# --------------------------------------------------------------------------- staircase
def staircase_tv(epsilon: float, gamma: float) -> float:
    r"""The eta-TV of the staircase mechanism (Ghazi-Issa (2023), §VI-C and Appendix K).

    With ``b = e^{-eps}``: ``(1 - b)(2 gamma (1 - b) + b) / (2 (gamma + b (1 - gamma)))`` for
    ``gamma < 1/2`` and ``(1 - b) / (2 (gamma + b (1 - gamma)))`` for ``gamma >= 1/2``; it is
    ``tanh(eps/2)`` at ``gamma = 1/2`` (the largest) and ``(1 - e^{-eps})/2`` at 0 and 1. The
    paper's Appendix K1 prints one intermediate step with ``1 - e^{eps}``; the correct factor
    is ``1 - e^{-eps}`` (the final formula above is right: ``tests/test_staircase.py``
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
        self.resolution = _grid_step(self.sensitivity)
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

    def privatize(self, values: ArrayLike, rng: object = None) -> np.ndarray:
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
        return _snap(x + np.where(negative, -noise, noise), self.resolution, gen)

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
        return lambda reports: _bins(np.asarray(reports, dtype=float), low, high)

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

"""PrivUnit and PrivUnitG: unbiased mean estimation of unit vectors under pure LDP.

**PrivUnit** (Bhowmick et al. (2018), Algorithm 1). For a unit
vector ``u`` in ``R^d``, draw ``V`` uniformly from the cap ``{<v, u> >= gamma}`` of the
sphere with probability ``p``, else uniformly from its complement, and release ``V / m``:

.. math:: m = \frac{\\Gamma(d/2)}{\\sqrt{\\pi}\\,\\Gamma((d-1)/2)}
          \frac{(1-\\gamma^2)^{(d-1)/2}}{d-1}
          \\Big(\frac{p}{C} - \frac{1-p}{1-C}\\Big),

with ``C = P(<V, u> >= gamma) = I_{(1-gamma)/2}((d-1)/2, (d-1)/2)`` the cap's probability under
the uniform law (a regularized incomplete beta function). This is the paper's scaling
(eq. (15) in the reference implementations' comments) rewritten with the regularized
function: ``E[<V, u> 1{<V, u> >= gamma}] = c_d (1 - gamma^2)^((d-1)/2) / (d - 1)`` with ``c_d =
Gamma(d/2) / (sqrt(pi) Gamma((d-1)/2))`` and ``E[<V, u>] = 0``, so ``E[V / m] = u``. Every constant
is computed in logs (``gammaln``, ``log1p``, ``betainc`` at ``(1-gamma)/2``, never ``1 - betainc``
at ``(1+gamma)/2``), exact up to ``d = 10^6`` and beyond.

**Exact epsilon and the budget split.** The output density relative to the uniform law is
``p / C`` on ``u``'s cap and ``(1-p) / (1-C)`` off it, so the mechanism is exactly
``log(p/(1-p)) + log((1-C)/C)``-LDP. Bhowmick et al. (2018), Theorem 1 splits the budget as
``eps_0 + eps_1`` (``p = e^eps_0 / (1 + e^eps_0)`` and a sufficient condition on ``gamma`` for
``eps_1``, as ``apple/pfl-research`` and Google's code do); that condition is loose, so the
split spends less than its budget and is noisier (at ``d = 256``, ``eps = 4``: error 156.4
spending only 3.57, against 110.7 at exactly 4). :class:`PrivUnit` spends exactly ``eps``:
``p = e^eps C / (e^eps C + 1 - C)`` and ``gamma`` maximises ``m`` (a search over
``gamma sqrt(d - 1)``); Asi-Feldman-Talwar (2022) show (as their abstract states) that
this is optimal among unbiased randomizers of the sphere. :func:`privunit_design` gives both
designs' numbers.
**PrivUnitG** (Asi-Feldman-Talwar (2022)). ``Y = sigma (g - <g, u> u + alpha u)`` with
``g ~ N(0, I_d)`` and ``alpha ~ N(0, 1)`` conditioned on ``alpha >= gamma`` with probability
``p`` and on ``alpha < gamma`` otherwise, ``q = P(N(0,1) >= gamma)`` fixed by
``p (1-q) / (q (1-p)) = e^eps``. The density of ``Y / sigma`` is the standard Gaussian's times
``p/q`` on ``{<y, u> >= gamma}`` and ``(1-p)/(1-q)`` off it: exactly eps-LDP. Unbiased with
``sigma = 1 / E[alpha]``; ``p`` minimises ``sigma`` (it does not depend on ``d``).

**Inputs** are vectors of norm at most ``radius`` (pfl-research's pre-processing): ``x`` is
sent as the unit vector ``x / ||x||``, flipped to ``-x / ||x||`` with probability
``(1 - ||x|| / radius) / 2`` (a uniformly random direction for ``x = 0``), and the output is
multiplied by ``radius``. This keeps the estimate unbiased, and the privacy (which holds for
any two unit vectors) unchanged; the per-user error is ``radius^2 E||Z||^2 - ||x||^2``.

**Sampling, and what the privacy statement covers.** The cap coin is exact (its weights are
doubles, ``ldp._sampling``), and :attr:`~PrivUnit.epsilon` is computed from those weights and
from ``C`` (or ``q``) *for the double* ``gamma`` the sampler uses, with a margin of ``1e-12``
relative for the special functions (``betainc``, ``log_ndtr``; checked against ``mpmath`` in
the tests), and rounded up. The conditional laws are drawn with elementary functions only, so
that the dependency-free clients reproduce the reports byte for byte: ``<V, u>`` as the cosine
of a uniform angle for ``d = 2``, else by rejection
(from the full law, ``<V, u> = g / sqrt(g^2 + chi^2_{d-1})`` with a gamma draw of
Marsaglia-Tsang (2000), or, for a cap of probability below 1/4, from the tangent
exponential envelope of the log-concave density ``(1 - t^2)^((d-3)/2)``), the rest of ``V`` by
projecting a Gaussian vector, ``alpha`` by the exponential rejection of Robert (1995) in the tail.
As for every continuous mechanism (module notes of :mod:`ldp.mechanisms.numeric`), the release is
rounded to a grid (``2^-24`` of the output's scale, unbiased randomized rounding: post-processing of
the ideal output). The statement is an **approximation** in one respect, said here plainly:
the ideal law is exactly ``epsilon``-LDP, but a floating-point sampler only approximates a
continuous law (53-bit uniforms, Box-Muller's radius capped at about 8.6 for the direction
and the gamma draws, a few ulps of rounding), so the sampled law's own density ratio is
within those errors of the ideal one; PrivUnitG, whose output carries the Gaussian tails
themselves, draws them with an unbounded exponential radius (as the Laplace sampler).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import log_ndtr, ndtri_exp

from ldp._rounding import round_up
from ldp._sampling import ExactLaw, bernoulli, choose, uniform
from ldp._validation import check_random_state, check_scalar
from ldp.channel import Channel
from ldp.core import Ball, Field, ReportCodec
from ldp.mechanisms.base import MeanMechanism
from ldp.mechanisms.draws import (
    GAUSSIAN_REACH,
    exponential_draws,
    gaussian_draws,
    gaussian_tail_draws,
    grid_step,
    snap_to_grid,
    unit_rows,
)
from ldp.mechanisms.limits import chunk_rows
from ldp.mechanisms.vector.privunit_design import (
    ENVELOPE_CAP,
    MIN_CAP,
    SPECIAL_FUNCTION_ERROR,
    cap_probability,
    check_dimension,
    grid_maximise,
    log_first_moment,
    optimal_gamma,
)
from ldp.mechanisms.worst_pair import window_channel

__all__ = ["PrivUnit", "PrivUnitG"]


# ----------------------------------------------------------------------------- draws
def _gamma_draws(gen, n: int, shape: float) -> np.ndarray:
    """``n`` Gamma(``shape``, 1) draws, ``shape >= 1``, by Marsaglia-Tsang (2000).

    Each try reads a Gaussian (two uniforms) and a uniform ``U``; it accepts ``dd v`` when
    ``v = (1 + c x)^3 > 0`` and ``log(1 - U) < x^2/2 + dd (3 log1p(c x) - (v - 1))`` (the
    usual test, arranged against cancellation at large ``shape``)."""
    dd = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * dd)
    out = np.empty(n)
    pending = np.arange(n)
    while pending.size:
        x = gaussian_draws(gen, pending.size)
        u = uniform(gen, pending.size)
        cx = c * x
        positive = cx > -1.0
        safe = np.where(positive, cx, 0.0)
        v = (1.0 + safe) * (1.0 + safe) * (1.0 + safe)
        bound = 0.5 * x * x + dd * (3.0 * np.log1p(safe) - safe * (3.0 + safe * (3.0 + safe)))
        accept = positive & (np.log1p(-u) < bound)
        out[pending[accept]] = dd * v[accept]
        pending = pending[~accept]
    return out


def envelope_constants(d: int, gamma: float) -> dict[str, float]:
    """The exponential envelope of the cap's ``<V, u>`` (``d >= 3``): the tangent at ``gamma``
    of ``k log(1 - t^2)``, ``k = (d-3)/2``, has slope ``-rate``; ``length = rate (1 - gamma)``,
    ``shrink = expm1(-length)`` and ``base = log1p(-gamma^2)`` (written into the protocol, so
    that the clients need no transcendental function of their own for them)."""
    k = (d - 3) / 2.0
    rate = 2.0 * k * gamma / ((1.0 - gamma) * (1.0 + gamma))
    length = rate * (1.0 - gamma)
    return {
        "k": k,
        "rate": rate,
        "length": length,
        "shrink": math.expm1(-length),
        "base": math.log1p(-gamma * gamma),
    }


def angle_constants(gamma: float) -> dict[str, float]:
    """``d = 2``: ``V`` is at a uniform angle from ``u``, in ``[0, angle)`` on the cap and in
    ``[angle, pi)`` off it, ``angle = acos(gamma)`` and ``rest = pi - angle``."""
    angle = math.acos(gamma)
    return {"angle": angle, "rest": math.pi - angle}


def _inner_products(
    gen,
    n: int,
    d: int,
    gamma: float,
    cap: bool,
    envelope: dict[str, float] | None,
    angle: dict[str, float] | None = None,
) -> np.ndarray:
    """``n`` draws of ``T = <V, u>`` for ``V`` uniform on the cap (``T >= gamma``) or on its
    complement (``T < gamma``): a uniform angle (``d = 2``), or by rejection from the
    exponential ``envelope`` (cap only) or from the full law ``g / sqrt(g^2 + chi^2_{d-1})``."""
    out = np.empty(n)
    pending = np.arange(n)
    if angle is not None:
        u = uniform(gen, n)
        theta = angle["angle"] * u if cap else angle["angle"] + angle["rest"] * u
        return np.cos(theta)
    if envelope is not None:
        k, rate, length = envelope["k"], envelope["rate"], envelope["length"]
        shrink, base = envelope["shrink"], envelope["base"]
        while pending.size:
            first = uniform(gen, pending.size)
            second = uniform(gen, pending.size)
            if length > 0:
                t = gamma + (1.0 - gamma) * (-np.log1p(first * shrink) / length)
            else:
                t = gamma + (1.0 - gamma) * first
            inside = t < 1.0
            safe = np.where(inside, t, gamma)
            log_ratio = k * (np.log1p(-safe * safe) - base) + rate * (safe - gamma)
            accept = inside & (np.log1p(-second) <= np.minimum(log_ratio, 0.0))
            out[pending[accept]] = t[accept]
            pending = pending[~accept]
        return out
    while pending.size:
        g = gaussian_draws(gen, pending.size)
        rest = 2.0 * _gamma_draws(gen, pending.size, (d - 1) / 2.0)  # d >= 3
        t = g / np.sqrt(g * g + rest)
        accept = (t >= gamma) if cap else (t < gamma)
        out[pending[accept]] = t[accept]
        pending = pending[~accept]
    return out


def _perpendicular(gen, u: np.ndarray) -> np.ndarray:
    """Unit vectors uniform on the sphere of ``u^perp``, row by row (a projected Gaussian)."""
    n, d = u.shape
    g = gaussian_draws(gen, n * d).reshape(n, d)
    w = g - (g * u).sum(axis=1)[:, None] * u
    norms = np.sqrt((w**2).sum(axis=1))
    degenerate = norms == 0  # probability 0; any perpendicular direction keeps the law's support
    if np.any(degenerate):
        for i in np.flatnonzero(degenerate):
            j = int(np.argmin(np.abs(u[i])))
            w[i] = -u[i, j] * u[i]
            w[i, j] += 1.0
        norms = np.sqrt((w**2).sum(axis=1))
    return w / norms[:, None]


def _directions(gen, x: np.ndarray, radius: float) -> np.ndarray:
    """The unit vector each user sends: ``+-x/||x||`` (minus with probability
    ``(1 - ||x||/radius)/2``), a uniform direction for ``x = 0``."""
    n, d = x.shape
    norms = np.sqrt((x**2).sum(axis=1))
    positive = bernoulli(gen, np.minimum(0.5 + norms / (2.0 * radius), 1.0))
    u = np.empty((n, d))
    nonzero = norms > 0
    u[nonzero] = x[nonzero] / norms[nonzero, None]
    zero = np.flatnonzero(~nonzero)
    if zero.size:
        u[zero] = unit_rows(gaussian_draws(gen, zero.size * d).reshape(zero.size, d))
    return u * np.where(positive, 1.0, -1.0)[:, None]


def _in_blocks(x: np.ndarray, gen, block) -> np.ndarray:
    """``block(rows, gen)`` on consecutive blocks of users of at most ``CHUNK_ELEMENTS``
    entries (bounded working memory), in order: one user's draws are those of a batch of one."""
    out = np.empty(x.shape)
    for rows in chunk_rows(x.shape[0], x.shape[1]):
        out[rows] = block(x[rows], gen)
    return out


def _cap_codes(reports: np.ndarray, scale: float, gamma: float, x0, x1) -> np.ndarray:
    """Which of the caps of ``+-x0/||x0||`` and ``+-x1/||x1||`` each report lies in (4 bits):
    the output's likelihood ratio between any inputs along those directions."""
    v = np.asarray(reports, dtype=float) / scale
    code = np.zeros(v.shape[0], dtype=np.int64)
    bit = 0
    for x in (x0, x1):
        direction = np.asarray(x, dtype=float)
        norm = float(np.sqrt((direction**2).sum()))
        unit = direction / norm if norm > 0 else direction
        projection = v @ unit
        for sign in (1.0, -1.0):
            code |= (sign * projection >= gamma).astype(np.int64) << bit
            bit += 1
    return code


# ----------------------------------------------------------------------------- PrivUnit
class _UnitVectorMechanism(MeanMechanism):
    """What PrivUnit and PrivUnitG share: inputs in the l2 ball of ``radius`` in ``R^d``,
    privatized block by block, reports decoded as they are (already unbiased)."""

    _d: int
    radius: float

    @property
    def d(self) -> int:
        return self._d

    @property
    def domain(self) -> Ball:
        """The l2 ball of radius ``radius`` in ``R^d``."""
        return Ball(self.radius, self._d)

    def privatize(self, values: ArrayLike, *, rng: object = None) -> np.ndarray:
        x = self._check_values(values)
        gen = check_random_state(rng)
        return _in_blocks(x, gen, self._privatize_block)

    def _privatize_block(self, x: np.ndarray, gen) -> np.ndarray:
        raise NotImplementedError

    def decode(self, reports: ArrayLike) -> np.ndarray:
        return self.codec.from_rows(reports)

    #: the grid rounding (post-processing) can only lower the pair's profile
    privacy_exact = False


class PrivUnit(_UnitVectorMechanism):
    r"""PrivUnit (Bhowmick et al. (2018), Algorithm 1) on the l2 ball, spending exactly ``epsilon``.

    A unit input ``u`` is released as ``V / m``, ``V`` uniform on the cap ``<v, u> >= gamma``
    with probability ``p`` and on its complement otherwise (see the module notes for the
    formulas, the pre-processing of shorter inputs and the sampler). ``p`` spends exactly
    ``epsilon`` and ``gamma`` maximises ``m`` unless given. Reports are the ``d`` coordinates
    of ``radius V / m``, on a grid of ``resolution``; the per-user error is
    ``radius^2 / m^2 - ||x||^2`` (:meth:`per_user_variance`, the trace over coordinates, as
    for :class:`~ldp.mechanisms.DuchiL2`).

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[1e-6, 700]``.
    d : int
        Dimension, ``>= 2``.
    radius : float, default 1.0
        Largest norm of an input.
    gamma : float, optional
        Cap threshold in ``[0, 1)``; default: the one that minimises the error.

    Examples
    --------
    >>> import numpy as np
    >>> from ldp.mechanisms import PrivUnit
    >>> mech = PrivUnit(4.0, d=256)
    >>> round(mech.gamma, 6), round(mech.worst_case_variance() - 1, 3)   # 1/m^2 - 1
    (0.094607, 110.726)
    >>> x = np.zeros((2000, 256)); x[:, 0] = 1.0
    >>> estimate = mech.estimate(mech.privatize(x, rng=0))
    >>> bool(abs(estimate[0] - 1.0) < 5 * np.sqrt(mech.variance(2000) / 256))
    True
    """

    name = "privunit"

    def __init__(
        self, epsilon: float, d: int, radius: float = 1.0, gamma: float | None = None
    ) -> None:
        super().__init__(epsilon)
        eps = self._eps_budget
        self._d = check_dimension(d)
        self.radius = check_scalar(radius, "radius", low=0.0, low_open=True)
        if gamma is None:
            gamma = optimal_gamma(self._d, eps)
        self._gamma = check_scalar(gamma, "gamma", low=0.0, high=1.0, high_open=True)
        cap = float(cap_probability(self._d, self._gamma))
        if not cap > MIN_CAP:
            raise ValueError(
                f"gamma = {self._gamma!r} leaves the cap a probability below 1e-300 in "
                f"d = {self._d}; choose a smaller gamma"
            )
        self._cap_probability = cap
        # the cap coin: odds e^eps C / (1 - C) : 1, so that p/C : (1-p)/(1-C) = e^eps
        odds = math.exp(eps + math.log(cap) - math.log1p(-cap))
        self._law = ExactLaw([odds, 1.0])
        self._p = odds / (odds + 1.0)
        gain = math.log(odds / cap - 1.0 / (1.0 - cap)) - math.log1p(odds)
        log_m = float(log_first_moment(self._d, self._gamma)) + gain
        self._norm = self.radius * math.exp(-log_m)  # radius / m
        if not self._norm < 1e150:
            raise ValueError(
                "the output norm radius/m must be < 1e150 (rescale the data or raise epsilon)"
            )
        self.resolution = grid_step(self._norm)
        use_envelope = cap < ENVELOPE_CAP and self._d >= 3
        self._envelope = envelope_constants(self._d, self._gamma) if use_envelope else None
        self._angle = angle_constants(self._gamma) if self._d == 2 else None
        self.low, self.high = -self.radius, self.radius

    @property
    def params(self) -> dict[str, object]:
        return {
            "epsilon": self._eps_budget,
            "d": self._d,
            "radius": self.radius,
            "gamma": self._gamma,
        }

    @property
    def gamma(self) -> float:
        """The cap threshold on ``<V, u>``."""
        return self._gamma

    @property
    def p(self) -> float:
        """Probability of drawing from the cap (the exact coin's, as a double)."""
        return self._p

    @property
    def cap(self) -> float:
        """``C``: the cap's probability under the uniform law on the sphere."""
        return self._cap_probability

    @property
    def bound(self) -> float:
        """The norm of every output, ``radius / m`` (before the grid rounding)."""
        return self._norm

    @property
    def epsilon(self) -> float:
        """``log(odds) + log((1-C)/C)`` with the coin's odds and ``C`` for the double
        ``gamma``, plus the special-function margin, rounded up (module notes)."""
        cap = self._cap_probability
        odds = self._law.weights[0]
        value = math.log(odds) + math.log1p(-cap) - math.log(cap)
        margin = 2 * SPECIAL_FUNCTION_ERROR + 1e-15 * (abs(math.log(odds)) + abs(math.log(cap)))
        return round_up(max(0.0, value) + margin, 4)

    @property
    def codec(self) -> ReportCodec:
        reach = (math.ceil(self._norm / self.resolution) + 1) * self.resolution
        fields = tuple(
            Field(f"z_{j}", "float", -reach, reach, self.resolution) for j in range(self._d)
        )
        return ReportCodec(fields, "float64", vector=True, check=self._check_norms)

    def _check_norms(self, reports: np.ndarray, where) -> None:
        norms = np.sqrt((reports**2).sum(axis=1))
        slack = math.sqrt(self._d) * self.resolution + 1e-9 * self._norm
        bad = np.abs(norms - self._norm) > slack
        if np.any(bad):
            raise ValueError(
                f"{where(int(np.argmax(bad)))}: the report does not have norm radius/m "
                "(not a report of this mechanism)"
            )

    def sampler(self) -> dict[str, object]:
        """``keep``: odds of the cap; ``gamma``; ``envelope``: the constants of the exponential
        envelope the cap's ``<V, u>`` is drawn from (``None``: rejection from the full law);
        ``angle`` (``d = 2``): the angles of the cap and of its complement; ``bound``:
        ``radius / m``; the grid's ``step``."""
        return {
            "keep": list(self._law.weights),
            "gamma": self._gamma,
            "envelope": None if self._envelope is None else dict(self._envelope),
            "angle": None if self._angle is None else dict(self._angle),
            "bound": self._norm,
            "step": self.resolution,
        }

    def _privatize_block(self, x: np.ndarray, gen) -> np.ndarray:
        n, d = x.shape
        u = _directions(gen, x, self.radius)
        in_cap = choose(gen, [self._law], np.zeros(n, dtype=np.int64)) == 0
        t = np.empty(n)
        gamma, envelope, angle = self._gamma, self._envelope, self._angle
        t[in_cap] = _inner_products(gen, int(in_cap.sum()), d, gamma, True, envelope, angle)
        t[~in_cap] = _inner_products(gen, int((~in_cap).sum()), d, gamma, False, None, angle)
        w = _perpendicular(gen, u)
        side = np.sqrt(np.maximum(0.0, (1.0 - t) * (1.0 + t)))
        v = t[:, None] * u + side[:, None] * w
        return snap_to_grid((self._norm * v).ravel(), self.resolution, gen).reshape(n, d)

    def privacy_channel(self) -> Channel:
        """The antipodal pair ``u, -u``: the cap of each has mass ``p`` under its own input
        and ``(1 - p) C / (1 - C)`` under the other; every other pair is a garbling."""
        p, cap = self._p, self._cap_probability
        return window_channel(p, (1.0 - p) * cap / (1.0 - cap))

    def audit_statistic(self, x0: Any, x1: Any):
        """Which caps of the directions of ``x0`` and ``x1`` the report lies in."""
        return lambda reports: _cap_codes(reports, self._norm, self._gamma, x0, x1)

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        return self._norm**2 - (x**2).sum(axis=1)

    def worst_case_variance(self) -> float:
        return self._norm**2


# ----------------------------------------------------------------------------- PrivUnitG
def _log_signal(epsilon: float, logit: np.ndarray) -> np.ndarray:
    """``log E[alpha]`` when ``p = expit(logit)`` spends exactly ``epsilon``:
    ``phi(gamma) (p + e^eps (1-p)) (1 - e^-eps)`` with ``log q = -log(1 + e^eps (1-p)/p)``."""
    t = np.asarray(logit, dtype=float)
    log_p, log_not_p = -np.logaddexp(0.0, -t), -np.logaddexp(0.0, t)
    log_q = -np.logaddexp(0.0, epsilon + log_not_p - log_p)
    gamma = -ndtri_exp(log_q)
    log_phi = -0.5 * gamma * gamma - 0.5 * math.log(2 * math.pi)
    return log_phi + np.logaddexp(log_p, epsilon + log_not_p) + math.log(-math.expm1(-epsilon))


def _optimal_logit(epsilon: float) -> float:
    # E[alpha] is unimodal in the logit of p; gamma > 0 needs logit < epsilon
    return grid_maximise(lambda t: _log_signal(epsilon, t), epsilon) if epsilon > 0 else 0.0


class PrivUnitG(_UnitVectorMechanism):
    r"""PrivUnitG (Asi-Feldman-Talwar (2022)) on the l2 ball, spending exactly ``epsilon``.

    A unit input ``u`` is released as ``sigma (g - <g, u> u + alpha u)``, ``g`` standard
    Gaussian in ``R^d`` and ``alpha`` a standard normal conditioned on ``alpha >= gamma``
    with probability ``p`` and on ``alpha < gamma`` otherwise (module notes). Unbiased with
    ``sigma = 1 / E[alpha]``; per-user error
    ``radius^2 sigma^2 (d - 1 + E[alpha^2]) - ||x||^2``. ``p`` minimises ``sigma`` unless
    given (it does not depend on ``d``: 0.790946 at ``eps = 4``). Reports are the ``d``
    coordinates, on a grid of ``resolution``.

    Parameters
    ----------
    epsilon : float
        Privacy level in ``[1e-6, 700]``.
    d : int
        Dimension, ``>= 2``.
    radius : float, default 1.0
        Largest norm of an input.
    p : float, optional
        Probability of the tail ``alpha >= gamma``, in ``(1/2, e^eps/(1 + e^eps))`` (so that
        ``gamma > 0``); default: the one that minimises the error.

    Examples
    --------
    >>> from ldp.mechanisms import PrivUnitG
    >>> mech = PrivUnitG(4.0, d=256)
    >>> round(mech.p, 6), round(mech.gamma, 6), round(mech.sigma, 6)
    (0.790946, 1.515638, 0.659788)
    >>> round(mech.worst_case_variance() - 1, 2)
    111.44
    """

    name = "privunitg"

    def __init__(self, epsilon: float, d: int, radius: float = 1.0, p: float | None = None) -> None:
        super().__init__(epsilon)
        eps = self._eps_budget
        self._d = check_dimension(d)
        self.radius = check_scalar(radius, "radius", low=0.0, low_open=True)
        if p is None:
            logit = _optimal_logit(eps)
            p = 1.0 / (1.0 + math.exp(-logit))
        self._p_param = check_scalar(p, "p", low=0.5, high=1.0, low_open=True, high_open=True)
        p = self._p_param
        log_q = -float(np.logaddexp(0.0, eps + math.log1p(-p) - math.log(p)))
        self._gamma = float(-ndtri_exp(log_q))
        if not self._gamma > 0:
            raise ValueError(
                f"p must be < e^eps/(1 + e^eps) = {1 / (1 + math.exp(-eps)):.6g} (so that "
                f"gamma > 0), got {p!r}"
            )
        self._law = ExactLaw([p, 1.0 - p])
        w0, w1 = self._law.weights
        self._p = w0 / (w0 + w1)
        g = self._gamma
        self._log_upper = float(log_ndtr(-g))  # log P(N >= gamma) for the double gamma
        self._log_lower = float(log_ndtr(g))
        phi = math.exp(-0.5 * g * g) / math.sqrt(2 * math.pi)
        tail_mean = math.exp(math.log(phi) - self._log_upper)  # E[N | N >= gamma]
        body_mean = -math.exp(math.log(phi) - self._log_lower)  # E[N | N < gamma]
        signal = self._p * tail_mean + (1.0 - self._p) * body_mean
        self.sigma = 1.0 / signal
        self._second = self._p * (1.0 + g * tail_mean) + (1.0 - self._p) * (1.0 + g * body_mean)
        self._scale = self.radius * self.sigma
        if not self._scale * math.sqrt(self._d) < 1e150:
            raise ValueError("the output scale radius*sigma*sqrt(d) must be < 1e150")
        self.resolution = grid_step(self._scale)
        self._rate = (g + math.sqrt(g * g + 4.0)) / 2.0  # the exponential rate of Robert (1995)
        self.low, self.high = -self.radius, self.radius

    @property
    def params(self) -> dict[str, object]:
        return {
            "epsilon": self._eps_budget,
            "d": self._d,
            "radius": self.radius,
            "p": self._p_param,
        }

    @property
    def p(self) -> float:
        """Probability of the tail ``alpha >= gamma``."""
        return self._p

    @property
    def gamma(self) -> float:
        """The threshold on ``alpha`` (standard normal scale)."""
        return self._gamma

    @property
    def epsilon(self) -> float:
        """``log(p/(1-p)) + log(Phi(gamma)/Phi(-gamma))`` with the coin's weights and the double
        ``gamma``, plus the special-function margin, rounded up."""
        w0, w1 = self._law.weights
        value = math.log(w0) - math.log(w1) + self._log_lower - self._log_upper
        margin = 2 * SPECIAL_FUNCTION_ERROR + 1e-15 * (abs(math.log(w1)) + abs(self._log_upper))
        return round_up(max(0.0, value) + margin, 4)

    @property
    def codec(self) -> ReportCodec:
        bound = GAUSSIAN_REACH * (2.0 + math.sqrt(self._d)) + self._rate + self._gamma + 1.0
        reach = (math.ceil(self._scale * bound / self.resolution) + 1) * self.resolution
        fields = tuple(
            Field(f"y_{j}", "float", -reach, reach, self.resolution) for j in range(self._d)
        )
        return ReportCodec(fields, "float64", vector=True)

    def sampler(self) -> dict[str, object]:
        """``keep``: odds of the tail; ``gamma``; ``rate``: the rate of the exponential proposal;
        ``scale``: ``radius sigma``; the grid's ``step``."""
        return {
            "keep": list(self._law.weights),
            "gamma": self._gamma,
            "rate": self._rate,
            "scale": self._scale,
            "step": self.resolution,
        }

    def _alphas(self, gen, tail: np.ndarray) -> np.ndarray:
        out = np.empty(tail.size)
        g, rate = self._gamma, self._rate
        pending = np.flatnonzero(tail)
        while pending.size:  # Robert (1995): gamma + E/rate, kept when E' >= (z - rate)^2/2
            z = g + exponential_draws(pending.size, gen) / rate
            accept = exponential_draws(pending.size, gen) >= 0.5 * (z - rate) * (z - rate)
            out[pending[accept]] = z[accept]
            pending = pending[~accept]
        pending = np.flatnonzero(~tail)
        while pending.size:
            z = gaussian_tail_draws(gen, pending.size)
            accept = z < g
            out[pending[accept]] = z[accept]
            pending = pending[~accept]
        return out

    def _privatize_block(self, x: np.ndarray, gen) -> np.ndarray:
        n, d = x.shape
        u = _directions(gen, x, self.radius)
        tail = choose(gen, [self._law], np.zeros(n, dtype=np.int64)) == 0
        alpha = self._alphas(gen, tail)
        g = gaussian_tail_draws(gen, n * d).reshape(n, d)
        y = g + (alpha - (g * u).sum(axis=1))[:, None] * u
        return snap_to_grid((self._scale * y).ravel(), self.resolution, gen).reshape(n, d)

    def privacy_channel(self) -> Channel:
        """The antipodal pair: the half-space ``<y, u> >= gamma`` has mass ``p`` under ``u`` and
        ``(1 - p) q / (1 - q)`` under ``-u`` (disjoint half-spaces for ``gamma > 0``)."""
        ratio = math.exp(self._log_upper - self._log_lower)  # q / (1 - q)
        return window_channel(self._p, (1.0 - self._p) * ratio)

    def audit_statistic(self, x0: Any, x1: Any):
        """Which half-spaces ``<y, +-x/||x||> >= gamma sigma radius`` the report lies in."""
        return lambda reports: _cap_codes(reports, self._scale, self._gamma, x0, x1)

    def second_moment(self) -> float:
        """``E||Y||^2`` for a unit input on the unit scale: ``sigma^2 (d - 1 + E[alpha^2])``."""
        return self.sigma**2 * (self._d - 1 + self._second)

    def per_user_variance(self, x: np.ndarray) -> np.ndarray:
        return self.radius**2 * self.second_moment() - (x**2).sum(axis=1)

    def worst_case_variance(self) -> float:
        return self.radius**2 * self.second_moment()

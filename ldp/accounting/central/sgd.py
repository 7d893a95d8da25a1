r"""NoisySGD: the exact ``C_p(G_{1/sigma})^{(x)T}`` object, its Berry-Esseen bound, and the
composed Poisson-subsampled Gaussian curve.

* :func:`noisy_sgd` is Dong-Roth-Su (2022), Theorem 5.1: ``T`` steps of NoisySGD with
  sampling rate ``p`` and noise multiplier ``sigma`` are ``C_p(G_{1/sigma})^{(x)T}``-DP,
  where ``C_p(f) = min{f_p, f_p^{-1}}**`` and ``f_p = p f + (1 - p) Id`` (sampling
  symmetrised *before* composing). The returned :class:`NoisySGDComposition` answers
  ``delta(eps)`` and ``epsilon_for_delta(delta)`` with certified upper bounds: the privacy
  loss of ``C_p(G_mu)`` has the law of the remove-direction loss on ``(0, inf)``, of the
  add-direction loss on ``(-inf, 0)`` and an atom at 0 (the slope -1 piece of eq. (14)); it
  is put on a lattice by the connect-the-dots split (both masses kept per bin, so its
  profile lies above the exact one) and composed exactly on the lattice
  (:mod:`ldp.accounting.curves.pld`). :meth:`NoisySGDComposition.berry_esseen` is the
  Berry-Esseen guarantee of Dong-Roth-Su (2022), §5.3, with the third-moment functional
  corrected (the paper's formula for ``kappa3_bar(C_p(G_mu))`` leaves out
  ``kl^3 (1 - p)(1 - 2 Phi(-mu/2))``, the contribution of the slope -1 piece; see
  tests/accounting/central/test_noisy_sgd.py).
* :func:`poisson_sgd_tradeoff` is the trade-off curve of ``T`` Poisson-subsampled Gaussian
  steps, ``g = (p G_{1/sigma} + (1-p) Id)^{(x)T}`` (Zheng-Dong-Long-Su (2020), §2, after Bu
  et al. (2019)), or its two-sided form ``min{g, g^{-1}}**`` (symmetrised *after*
  composing, which is tighter than :func:`noisy_sgd` for add/remove neighbours).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

from ldp._validation import check_integer, check_probability, check_scalar
from ldp.accounting.central.poisson_gaussian import PoissonSubsampledGaussian
from ldp.accounting.composition import Composition
from ldp.accounting.composition.approximations import berry_esseen_approx
from ldp.accounting.curves import (
    GaussianTradeOff,
    PiecewiseLinearTradeOff,
    SubsampledTradeOff,
    TradeOffFunction,
    get_tradeoff_from_profile,
)
from ldp.accounting.curves.gdp import get_delta_from_gdp
from ldp.accounting.curves.pld import PrivacyLossDistribution

__all__ = [
    "BerryEsseenTradeOff",
    "NoisySGDComposition",
    "noisy_sgd",
    "poisson_sgd_tradeoff",
    "subsampled_gaussian_pld",
]

_UNIT = float(np.finfo(np.float64).eps) / 2.0
#: Relative allowance by which the quadrature-based Berry-Esseen parameters are enlarged.
_BE_SLACK = 1e-9


def _check(sample_rate: float, sigma: float, steps: int) -> tuple[float, float, int]:
    p = check_probability(sample_rate, "sample_rate")
    s = check_scalar(sigma, "sigma", low=0.0, low_open=True)
    t = check_integer(steps, "steps", low=0)
    return p, s, t


def subsampled_gaussian_pld(
    sample_rate: float, mu: float, interval: float
) -> PrivacyLossDistribution:
    """The connect-the-dots PLD of ``C_p(G_mu)`` (symmetric) on the lattice ``interval``.

    Positive losses from the remove direction, negative ones from the add direction, the
    rest of the mass at 0 (which is where the connect-the-dots split of the exact law puts
    it: each bin keeps its ``P``- and ``Q``-mass, the atom at 0 is a lattice point).
    """
    remove, add = PoissonSubsampledGaussian(sample_rate, 1.0 / mu, 1, interval=interval).step_plds()
    low = min(remove.offset, add.offset, 0)
    high = max(remove.offset + remove.probs.size, add.offset + add.probs.size, 1)
    probs = np.zeros(high - low)
    r_k = remove.offset + np.arange(remove.probs.size)
    a_k = add.offset + np.arange(add.probs.size)
    probs[r_k[r_k > 0] - low] = remove.probs[r_k > 0]
    probs[a_k[a_k < 0] - low] = add.probs[a_k < 0]
    rest = 1.0 - math.fsum(probs) - remove.inf_mass
    probs[-low] = max(rest, 0.0)
    return PrivacyLossDistribution(
        probs,
        low,
        remove.interval,
        remove.inf_mass,
        exact=False,
        error=remove.error + add.error,
        shift=max(remove.shift, add.shift),
    )


class BerryEsseenTradeOff(TradeOffFunction):
    r"""``f(a) = max(G_mu(a + gamma) - gamma, 0)``: the Berry-Esseen lower bound.

    The guarantee of the Berry-Esseen theorem for compositions (Dong-Roth-Su (2022), §3.2
    and §5.3): symmetric, a valid trade-off function, and below the composed curve whenever
    ``mu`` and ``gamma`` are the theorem's parameters. Its profile is exact:
    ``delta(eps) = 1 + gamma (1 + e^eps) - min_{b in [gamma, G_mu(gamma)]} (G_mu(b) + e^eps b)``.

    Parameters
    ----------
    mu : float
        The Gaussian parameter ``mu >= 0`` (``inf`` allowed).
    gamma : float
        The Berry-Esseen shift in ``[0, 1/2]``.

    Examples
    --------
    >>> from ldp.accounting.central import BerryEsseenTradeOff
    >>> f = BerryEsseenTradeOff(1.56109, 0.11158)
    >>> [round(float(v), 4) for v in f([0.01, 0.05, 0.1, 0.2])]
    [0.2352, 0.1717, 0.112, 0.0308]
    """

    is_symmetric = True

    def __init__(self, mu: float, gamma: float) -> None:
        self.mu = check_scalar(mu, "mu", low=0.0, allow_inf=True)
        self.gamma = check_scalar(gamma, "gamma", low=0.0, high=0.5)
        self._g = GaussianTradeOff(self.mu)

    def _evaluate(self, alpha: np.ndarray) -> np.ndarray:
        shifted = np.minimum(alpha + self.gamma, 1.0)
        return np.maximum(self._g._evaluate(shifted) - self.gamma, 0.0)

    def _delta(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.abs(np.asarray(epsilon, dtype=np.float64))
        gam = self.gamma
        top = float(self._g._evaluate(np.array([gam]))[0])  # G(gamma): where f reaches 0
        with np.errstate(over="ignore", invalid="ignore"):
            g = np.exp(e)
            mu = self.mu
            # the minimiser of G(b) + e^eps b is b* = Phi(-eps/mu - mu/2)
            b = ndtr(-e / mu - mu / 2.0) if 0 < mu < math.inf else np.full(e.shape, gam)
            b = np.clip(b, gam, max(top, gam))
            inside = (b > gam) & (b < top)
            free = get_delta_from_gdp(mu, e) if mu > 0 else np.zeros(e.shape)
            free = np.asarray(free) + gam * (1.0 + g)
            edge = 1.0 + gam * (1.0 + g) - (self._g._evaluate(b) + g * b)
            value = np.where(inside, free, edge) * (1.0 + 8.0 * _UNIT) + 4.0 * _UNIT
        pos = np.clip(np.nan_to_num(value, nan=1.0, posinf=1.0), 0.0, 1.0)
        pos = np.where(np.isposinf(e), 1.0 - float(self._evaluate(np.zeros(1))[0]), pos)
        neg_e = np.asarray(epsilon, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            reflected = (-np.expm1(neg_e) + np.exp(neg_e) * pos) * (1.0 + 4.0 * _UNIT)
        return np.where(neg_e >= 0, pos, reflected)

    def __repr__(self) -> str:
        return f"BerryEsseenTradeOff(mu={self.mu!r}, gamma={self.gamma!r})"


class NoisySGDComposition(Composition):
    """``C_p(G_{1/sigma})^{(x)T}`` (Dong-Roth-Su (2022), Theorem 5.1), built by :func:`noisy_sgd`.

    A :class:`~ldp.accounting.Composition` (certified ``delta``, ``epsilon_for_delta``,
    ``tv`` and ``tradeoff``) that also knows its parameters and the Berry-Esseen
    guarantee.

    Parameters
    ----------
    sample_rate : float
        ``p`` in ``[0, 1]``.
    sigma : float
        Noise multiplier ``> 0``.
    steps : int
        ``T >= 0``.
    interval : float
        Lattice spacing of the privacy loss.

    Attributes
    ----------
    sample_rate, sigma, steps : float, float, int
    step_curve : TradeOffFunction
        ``C_p(G_{1/sigma})`` (closed form, Dong-Roth-Su (2022), eq. (14)).

    Examples
    --------
    >>> from ldp.accounting.central import NoisySGDComposition
    >>> sgd = NoisySGDComposition(0.05, 1.0, 400, 5e-4)
    >>> round(float(sgd.epsilon_for_delta(1e-5)), 2)
    7.87
    """

    def __init__(self, sample_rate: float, sigma: float, steps: int, interval: float) -> None:
        self.sample_rate, self.sigma, self.steps = sample_rate, sigma, steps
        self.interval = interval
        mu = 1.0 / sigma
        self.step_curve = SubsampledTradeOff(GaussianTradeOff(mu), sample_rate)
        what = f"C_{sample_rate:.6g}(G_{mu:.6g})^(x){steps} (Dong-Roth-Su (2022), Thm 5.1)"
        if steps == 0 or sample_rate == 0.0:
            super().__init__(mu=0.0, exact=True, description=what + ": nothing released")
        elif sample_rate == 1.0:
            total = mu * math.sqrt(steps) * (1.0 + 4.0 * _UNIT)
            super().__init__(mu=total, exact=True, description=what)
        else:
            step = subsampled_gaussian_pld(sample_rate, mu, interval)
            super().__init__(
                pld=step.self_compose(steps),
                exact=False,
                description=what + f", connect-the-dots lattice {interval:.3g}",
            )

    def berry_esseen_params(self) -> tuple[float, float]:
        r"""``(mu_tilde, gamma)`` of the Berry-Esseen theorem for this composition.

        ``mu_tilde = 2 sqrt(T) kl / sqrt(kappa2 - kl^2)`` and ``gamma = 0.56 kappa3_bar /
        (sqrt(T) (kappa2 - kl^2)^{3/2})`` with the functionals of ``C_p(G_{1/sigma})``
        (Dong-Roth-Su (2022), §5.3, corollary), the third one including the slope -1 piece
        the paper leaves out. Both are enlarged by a relative ``1e-9`` for the quadrature
        error (a larger ``mu`` and ``gamma`` give a smaller, still valid curve).
        """
        if self.steps == 0 or self.sample_rate == 0.0:
            return 0.0, 0.0
        mu1, gamma1 = berry_esseen_approx([self.step_curve])
        root = math.sqrt(self.steps)
        return mu1 * root * (1.0 + _BE_SLACK), gamma1 / root * (1.0 + _BE_SLACK)

    def berry_esseen(self) -> TradeOffFunction:
        """The Berry-Esseen guarantee ``max(G_mu(a + gamma) - gamma, 0)`` (a valid bound).

        Dong-Roth-Su (2022), §5.3: NoisySGD is ``f``-DP with this ``f`` (Shevtsova's constant
        0.56). Looser than the exact composition (:attr:`tradeoff`), but closed form; with
        ``gamma >= 1/2`` it says nothing (the zero curve).
        """
        mu, gamma = self.berry_esseen_params()
        if gamma >= 0.5:
            return BerryEsseenTradeOff(math.inf, 0.0)
        return BerryEsseenTradeOff(mu, gamma)

    def __repr__(self) -> str:
        return (
            f"<NoisySGDComposition sample_rate={self.sample_rate!r}, sigma={self.sigma!r}, "
            f"steps={self.steps!r} (upper bounds)>"
        )


def noisy_sgd(
    sample_rate: float, sigma: float, steps: int, *, interval: float = 5e-4
) -> NoisySGDComposition:
    r"""NoisySGD accounting: ``C_p(G_{1/sigma})^{(x)T}`` (Dong-Roth-Su (2022), Theorem 5.1).

    Each step of NoisySGD (clipped per-example gradients on a subsample of rate ``p``, plus
    Gaussian noise of ``sigma`` times the sensitivity) is ``1/sigma``-GDP on its batch;
    subsampling turns this into ``C_p(G_{1/sigma})`` and ``T`` steps compose to the
    returned object. ``delta(eps)`` and ``epsilon_for_delta(delta)`` are certified upper
    bounds (connect-the-dots discretisation with lattice ``interval``, exact composition
    on the lattice, floating-point allowances added); ``tradeoff`` is a curve below the
    exact one; ``berry_esseen()`` is the closed-form guarantee of §5.3.

    Parameters
    ----------
    sample_rate : float
        ``p = m/n`` in ``[0, 1]``.
    sigma : float
        Noise multiplier ``> 0`` (per-step GDP ``mu = 1/sigma``).
    steps : int
        ``T >= 0``.
    interval : float, default 5e-4
        Lattice spacing of the privacy loss (the bias is second order in it).

    Returns
    -------
    NoisySGDComposition
        The composition, with certified ``delta``/``epsilon_for_delta``.

    Examples
    --------
    >>> from ldp.accounting.central import noisy_sgd
    >>> sgd = noisy_sgd(0.05, 1.0, 400)
    >>> round(float(sgd.epsilon_for_delta(1e-5)), 2)
    7.87
    >>> [round(v, 4) for v in sgd.berry_esseen_params()]
    [1.5611, 0.1116]
    """
    p, s, t = _check(sample_rate, sigma, steps)
    h = check_scalar(interval, "interval", low=0.0, low_open=True)
    return NoisySGDComposition(p, s, t, h)


def poisson_sgd_tradeoff(
    sample_rate: float,
    sigma: float,
    steps: int,
    *,
    two_sided: bool = True,
    interval: float = 5e-4,
) -> PiecewiseLinearTradeOff:
    r"""Trade-off curve of ``T`` Poisson-subsampled Gaussian steps (a valid lower bound).

    ``g = (p G_{1/sigma} + (1 - p) Id)^{(x)T} = T(N(0,1)^T, ((1-p) N(0,1) + p N(1/sigma, 1))^T)``
    (Zheng-Dong-Long-Su (2020), §2 and Lemma C.1): with ``two_sided=False`` the curve ``g``
    itself (the remove direction, asymmetric), otherwise the two-sided guarantee for
    add/remove neighbours, ``min{g, g^{-1}}**``, whose profile is the larger of the two
    composed directions (the paper writes ``min{g, g^{-1}}``; the valid curve is its
    convex envelope). Both are ``max_j max(0, 1 - delta(eps_j) - e^{eps_j} a)`` over the
    lattice levels of the composed connect-the-dots PLDs, whose profiles are upper bounds:
    the curve lies below the exact one.

    Parameters
    ----------
    sample_rate : float
        ``p`` in ``[0, 1]``.
    sigma : float
        Noise multiplier ``> 0``.
    steps : int
        ``T >= 0``.
    two_sided : bool, default True
        The two-sided (add/remove) curve, or the remove direction only.
    interval : float, default 5e-4
        Lattice spacing of the privacy loss.

    Returns
    -------
    PiecewiseLinearTradeOff
        A curve below the exact composed trade-off curve.

    Examples
    --------
    >>> from ldp.accounting.central import poisson_sgd_tradeoff
    >>> g = poisson_sgd_tradeoff(0.18803, 1.0, 50, two_sided=False)
    >>> [round(float(v), 3) for v in g([0.05, 0.5])]
    [0.544, 0.081]
    """
    p, s, t = _check(sample_rate, sigma, steps)
    if not isinstance(two_sided, bool):
        raise TypeError(f"two_sided must be True or False, got {two_sided!r}")
    h = check_scalar(interval, "interval", low=0.0, low_open=True)
    if t == 0 or p == 0.0:
        return PiecewiseLinearTradeOff([0.0, 1.0], [1.0, 0.0])
    remove, add = PoissonSubsampledGaussian(p, s, 1, interval=h).step_plds()
    remove, add = remove.self_compose(t), add.self_compose(t)
    if two_sided:
        curve = Composition(plds=[remove, add], exact=False).tradeoff
        assert isinstance(curve, PiecewiseLinearTradeOff)  # a PLD composition, not G_mu
        return curve
    levels = remove.losses
    levels = np.union1d(levels, levels + remove.shift)
    return get_tradeoff_from_profile(levels, remove.delta(levels), symmetric=False)

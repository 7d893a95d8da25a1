r"""Trade-off functions (f-DP) as objects, and conversions to and from privacy profiles.

A trade-off function :math:`f = T(P, Q)` maps a type I error :math:`\alpha` of a test of
``P`` against ``Q`` to the smallest achievable type II error (Dong-Roth-Su (2022),
Definition 2.1). It is convex, continuous, non-increasing and
:math:`f(\alpha) \le 1 - \alpha`; larger means more private. Its privacy profile is
(Dong-Roth-Su (2022), §2.4; Zheng-Dong-Long-Su (2020), Lemma 5.1)

.. math:: \delta_f(\varepsilon) = 1 + f^*(-e^\varepsilon)
          = \sup_{\alpha} \,[1 - f(\alpha) - e^\varepsilon \alpha]
          = E_{e^\varepsilon}(Q \,\|\, P),

so a mechanism is ``f``-DP for a symmetric ``f`` iff it is ``(eps, delta_f(eps))``-DP for
every ``eps >= 0``. Every object here has ``__call__`` (vectorised over ``alpha``),
``delta(epsilon)``, ``epsilon_for_delta(delta)`` (the privacy-profile spelling shared with
:class:`~ldp.Channel`, the mechanisms, compositions and privacy-loss distributions;
``epsilon(delta)`` is a synonym kept for older code), ``tv``, ``inverse()``,
``symmetrize()`` and ``fixed_point()``; the ``approx`` attribute is ``True`` only for curves
built by an approximation (CLT, Edgeworth), which are not guarantees.

Curves are immutable: ``is_symmetric`` and ``approx`` are decided when a curve is built
(setting any attribute afterwards raises ``AttributeError``), so what ``inverse()`` and
``symmetrize()`` return cannot be changed by a caller.

Conventions: ``tradeoff_from_pair(p, q)`` is ``T(P, Q)`` (null ``P``, alternative ``Q``); its
profile is the hockey-stick ``E_{e^eps}(Q || P)``. Piecewise-linear curves (finite
channels, ``f_{eps,delta}``, ``f_{eps,delta,eta}``) are handled exactly through their
vertices: ``delta(eps) = max_v (1 - beta_v - e^eps alpha_v)``.

The code lives in :mod:`ldp.accounting.tradeoff_base` (the base class and the generic
piecewise-linear curve), :mod:`ldp.accounting.tradeoff_families` (the named curves) and
:mod:`ldp.accounting.tradeoff_conversions` (profiles and GDP levels); every name stays
importable from here.
"""

from __future__ import annotations

from ldp.accounting.tradeoff_base import (
    PiecewiseLinearTradeOff,
    TradeOffFunction,
    check_tradeoff,
    symmetrize,
)
from ldp.accounting.tradeoff_base import (
    left_inverse as left_inverse,
)
from ldp.accounting.tradeoff_conversions import (
    get_delta_from_tradeoff,
    get_epsilon_from_tradeoff,
    get_mu_from_tradeoff,
    get_tradeoff_from_profile,
)
from ldp.accounting.tradeoff_families import (
    EpsDeltaEtaTradeOff,
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    SubsampledTradeOff,
    tradeoff_from_channel,
    tradeoff_from_pair,
)

__all__ = [
    "EpsDeltaEtaTradeOff",
    "EpsDeltaTradeOff",
    "GaussianTradeOff",
    "LaplaceTradeOff",
    "PiecewiseLinearTradeOff",
    "SubsampledTradeOff",
    "TradeOffFunction",
    "check_tradeoff",
    "get_delta_from_tradeoff",
    "get_epsilon_from_tradeoff",
    "get_mu_from_tradeoff",
    "get_tradeoff_from_profile",
    "symmetrize",
    "tradeoff_from_channel",
    "tradeoff_from_pair",
]

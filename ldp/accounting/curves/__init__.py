r"""Privacy curves of one release: trade-off functions (f-DP), privacy-loss distributions,
their conversions (GDP, profiles), divergences, group privacy and what a curve tells an
attacker.

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

The code lives in :mod:`ldp.accounting.curves.tradeoff_base` (the base class and the generic
piecewise-linear curve), :mod:`ldp.accounting.curves.tradeoff_families` (the named curves),
:mod:`ldp.accounting.curves.tradeoff_conversions` (profiles and GDP levels),
:mod:`ldp.accounting.curves.pld` (privacy-loss distributions on a lattice) and
:mod:`ldp.accounting.curves.curve_plds` (the lattices of the Gaussian and Laplace curves),
:mod:`ldp.accounting.curves.gdp` (GDP conversions), ``curve_divergences`` (Renyi and
``chi^2_+`` of a curve), ``group`` (group privacy), ``summary`` and ``attacks`` (what a curve
says); every name imports from here and from :mod:`ldp.accounting`. This subpackage is the
lowest of the LDP core: it imports no other part of :mod:`ldp.accounting`.

Examples
--------
>>> from ldp.accounting.curves import GaussianTradeOff, get_mu_from_tradeoff
>>> round(get_mu_from_tradeoff(GaussianTradeOff(1.5)), 9)
1.5
"""

from __future__ import annotations

from ldp.accounting.curves.attacks import attacker_success_rate
from ldp.accounting.curves.curve_divergences import (
    get_rdp_from_gdp,
    rr_renyi,
    tradeoff_chi2_plus,
    tradeoff_renyi,
)
from ldp.accounting.curves.curve_plds import gaussian_pld, laplace_pld
from ldp.accounting.curves.gdp import (
    get_delta_from_gdp,
    get_epsilon_from_gdp,
    get_mu_from_epsilon_delta,
    get_tv_from_gdp,
)
from ldp.accounting.curves.group import group_privacy
from ldp.accounting.curves.pld import PrivacyLossDistribution
from ldp.accounting.curves.summary import TradeOffSummary, tradeoff_summary
from ldp.accounting.curves.tradeoff_base import (
    PiecewiseLinearTradeOff,
    TradeOffFunction,
    check_tradeoff,
    symmetrize,
)
from ldp.accounting.curves.tradeoff_base import (
    left_inverse as left_inverse,
)
from ldp.accounting.curves.tradeoff_conversions import (
    get_delta_from_tradeoff,
    get_epsilon_from_tradeoff,
    get_mu_from_tradeoff,
    get_tradeoff_from_profile,
)
from ldp.accounting.curves.tradeoff_families import (
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
    "PrivacyLossDistribution",
    "SubsampledTradeOff",
    "TradeOffFunction",
    "TradeOffSummary",
    "attacker_success_rate",
    "check_tradeoff",
    "gaussian_pld",
    "get_delta_from_gdp",
    "get_delta_from_tradeoff",
    "get_epsilon_from_gdp",
    "get_epsilon_from_tradeoff",
    "get_mu_from_epsilon_delta",
    "get_mu_from_tradeoff",
    "get_rdp_from_gdp",
    "get_tradeoff_from_profile",
    "get_tv_from_gdp",
    "group_privacy",
    "laplace_pld",
    "rr_renyi",
    "symmetrize",
    "tradeoff_chi2_plus",
    "tradeoff_from_channel",
    "tradeoff_from_pair",
    "tradeoff_renyi",
    "tradeoff_summary",
]

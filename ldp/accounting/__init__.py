"""Privacy accounting for repeated reports: f-DP, GDP, composition, subsampling, filters.

The LDP core is here, in subpackages by job that import one way (each only those before
it): ``curves`` (trade-off functions, privacy-loss distributions and their conversions),
then ``comparisons`` (the Blackwell order, approximate GDP), ``amplification`` (shuffling,
subsampling) and ``filters`` (privacy filters, Renyi DP), then ``composition`` (exact and
approximate composition, calibration). Every public name imports from here. The module
paths of the last release (``ldp.accounting.pld``, ``ldp.accounting.tradeoff``, ...) still
import for one release, with a ``DeprecationWarning`` naming the new home. Central-DP
machinery for DP-SGD (the Poisson-subsampled Gaussian, NoisySGD, individual approximate GDP
accounting) lives beside it in :mod:`ldp.accounting.central`; its old names still import
from here for one release, with a ``DeprecationWarning``.

Every number reported here is an upper bound on the privacy loss that holds, rounded
outward (floating point included), unless its name and docstring say ``approx`` (CLT,
Edgeworth, the approximate GDP filter); the Edgeworth approximations warn with
:class:`ApproximationWarning` outside the range where they can be trusted.

Examples
--------
>>> from ldp.accounting import EpsDeltaTradeOff, GaussianTradeOff, compose
>>> one = GaussianTradeOff(0.5)
>>> ten = compose(one, 10)  # mu-GDP composes to sqrt(k) mu-GDP
>>> round(ten.mu, 12)
1.581138830084
>>> 0 <= EpsDeltaTradeOff(1.0).delta(1.0) < 1e-15  # pure 1-DP: delta(1) = 0, rounded up
True
"""

import importlib

from ldp._deprecation import moved_names
from ldp.accounting.amplification import (
    ShuffleAmplification,
    shuffle_amplification,
    subsample_eps_delta,
    subsample_eps_delta_eta,
    subsample_tradeoff,
    subsampled_eps_delta_tradeoff,
)
from ldp.accounting.central.filters import (
    ApproxGDPFilter,
    NaturalFDPFilter,
    natural_filter_counterexample,
    two_step_counterexample,
)
from ldp.accounting.comparisons import (
    BlackwellComparison,
    BlackwellResult,
    approx_gdp_delta,
    approx_gdp_distance,
    blackwell_compare,
    blackwell_dominates,
    delta_divergence,
    is_approx_gdp,
    is_blackwell_chain,
    worst_case_adaptive_profile,
)
from ldp.accounting.composition import (
    EDGEWORTH_RELIABLE,
    ApproximationWarning,
    Composition,
    EdgeworthTradeOff,
    EpsDeltaEtaComposition,
    IntersectedComposition,
    berry_esseen_approx,
    calibrate,
    clt_mu_approx,
    compose,
    compose_eps_delta_eta,
    compose_eps_delta_eta_intersection,
    edgeworth_cumulants,
    edgeworth_tradeoff_approx,
    edgeworth_value_approx,
    laplace_cumulants,
    tradeoff_functionals,
)
from ldp.accounting.curves import (
    EpsDeltaEtaTradeOff,
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    PiecewiseLinearTradeOff,
    PrivacyLossDistribution,
    SubsampledTradeOff,
    TradeOffFunction,
    TradeOffSummary,
    attacker_success_rate,
    check_tradeoff,
    get_delta_from_gdp,
    get_delta_from_tradeoff,
    get_epsilon_from_gdp,
    get_epsilon_from_tradeoff,
    get_mu_from_epsilon_delta,
    get_mu_from_tradeoff,
    get_rdp_from_gdp,
    get_tradeoff_from_profile,
    get_tv_from_gdp,
    group_privacy,
    rr_renyi,
    symmetrize,
    tradeoff_chi2_plus,
    tradeoff_from_channel,
    tradeoff_from_pair,
    tradeoff_renyi,
    tradeoff_summary,
)
from ldp.accounting.filters import (
    DEFAULT_ORDERS,
    FilterHaltedError,
    InvalidFilterError,
    PrivacyFilter,
    RDPFilter,
    get_epsilon_from_rdp,
    rdp_subsampled_gaussian,
)
from ldp.core.privacy_profile import PrivacyProfile  # noqa: F401  (documented in ldp.core)

# The LDP core, by topic (not alphabetically): curves and their conversions, composition,
# amplification and calibration, comparison and divergences, filters, approximations.
__all__ = [  # noqa: RUF022
    # privacy curves
    "TradeOffFunction",
    "EpsDeltaTradeOff",
    "EpsDeltaEtaTradeOff",
    "GaussianTradeOff",
    "LaplaceTradeOff",
    "PiecewiseLinearTradeOff",
    "SubsampledTradeOff",
    "PrivacyLossDistribution",
    "check_tradeoff",
    "symmetrize",
    "tradeoff_from_channel",
    "tradeoff_from_pair",
    "get_tradeoff_from_profile",
    # conversions
    "get_delta_from_tradeoff",
    "get_epsilon_from_tradeoff",
    "get_mu_from_tradeoff",
    "get_delta_from_gdp",
    "get_epsilon_from_gdp",
    "get_mu_from_epsilon_delta",
    "get_tv_from_gdp",
    # composition
    "Composition",
    "EpsDeltaEtaComposition",
    "compose",
    "compose_eps_delta_eta",
    "IntersectedComposition",
    "compose_eps_delta_eta_intersection",
    "group_privacy",
    # amplification and calibration
    "ShuffleAmplification",
    "shuffle_amplification",
    "subsample_tradeoff",
    "subsampled_eps_delta_tradeoff",
    "subsample_eps_delta",
    "subsample_eps_delta_eta",
    "calibrate",
    # the Blackwell order of channels and curves; comparison, attacks, divergences of curves
    "BlackwellResult",
    "blackwell_dominates",
    "BlackwellComparison",
    "blackwell_compare",
    "is_blackwell_chain",
    "delta_divergence",
    "approx_gdp_delta",
    "approx_gdp_distance",
    "is_approx_gdp",
    "worst_case_adaptive_profile",
    "attacker_success_rate",
    "TradeOffSummary",
    "tradeoff_summary",
    "tradeoff_renyi",
    "tradeoff_chi2_plus",
    "get_rdp_from_gdp",
    "rr_renyi",
    # filters and Renyi DP
    "PrivacyFilter",
    "NaturalFDPFilter",
    "ApproxGDPFilter",
    "RDPFilter",
    "FilterHaltedError",
    "InvalidFilterError",
    "natural_filter_counterexample",
    "two_step_counterexample",
    "DEFAULT_ORDERS",
    "get_epsilon_from_rdp",
    "rdp_subsampled_gaussian",
    # approximations (not guarantees)
    "ApproximationWarning",
    "EDGEWORTH_RELIABLE",
    "EdgeworthTradeOff",
    "berry_esseen_approx",
    "clt_mu_approx",
    "edgeworth_cumulants",
    "edgeworth_tradeoff_approx",
    "edgeworth_value_approx",
    "laplace_cumulants",
    "tradeoff_functionals",
]

_CENTRAL = "ldp.accounting.central"

#: Old names of the central-DP machinery: importable from here for one release, with a
#: ``DeprecationWarning`` naming the new name and home.
_moved_name = moved_names(
    __name__,
    {
        "AdaptiveCLTParams": (_CENTRAL, "AdaptiveCLTParams"),
        "BerryEsseenTradeOff": (_CENTRAL, "BerryEsseenTradeOff"),
        "IndividualApproxGDPAccountant": (_CENTRAL, "IndividualApproxGDPAccountant"),
        "NoisySGDComposition": (_CENTRAL, "NoisySGDComposition"),
        "PoissonSubsampledGaussian": (_CENTRAL, "PoissonSubsampledGaussian"),
        "SubsampledGaussianTradeOff": (_CENTRAL, "SubsampledGaussianTradeOff"),
        "adaptive_clt_params": (_CENTRAL, "adaptive_clt_params"),
        "approx_gdp_charge": (_CENTRAL, "approx_gdp_charge"),
        "approx_gdp_clip": (_CENTRAL, "approx_gdp_clip"),
        "drs_sgd_mu_clt_approx": (_CENTRAL, "noisy_sgd_mu_clt_approx"),
        "noisy_sgd": (_CENTRAL, "noisy_sgd"),
        "poisson_sgd_tradeoff": (_CENTRAL, "poisson_sgd_tradeoff"),
        "sg_cumulants": (_CENTRAL, "subsampled_gaussian_cumulants"),
        "sg_plrv_moments": (_CENTRAL, "subsampled_gaussian_loss_moments"),
        "sg_plrv_moments_approx": (_CENTRAL, "subsampled_gaussian_loss_moments_approx"),
        "sg_remove_profile": (_CENTRAL, "subsampled_gaussian_remove_profile"),
    },
)

#: The module paths of the last release, now shims that forward to the subpackages: reachable
#: as attributes after ``import ldp.accounting``, as they were, imported on first use.
_OLD_MODULES = frozenset(
    {
        "adaptive_clt",
        "approximations",
        "attacks",
        "blackwell",
        "blanket",
        "calibration",
        "comparison",
        "curve_divergences",
        "curve_plds",
        "divergences",
        "gdp",
        "group",
        "intersection",
        "pld",
        "rdp",
        "sgd",
        "shuffle",
        "subsampled_gaussian",
        "subsampling",
        "summary",
        "tradeoff",
        "tradeoff_base",
        "tradeoff_conversions",
        "tradeoff_families",
    }
)


def __getattr__(name: str) -> object:
    """An old module path (imported on first use) or a moved central-DP name (warned)."""
    if name in _OLD_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    return _moved_name(name)

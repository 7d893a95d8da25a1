"""Privacy accounting for repeated reports: f-DP, GDP, composition, subsampling, filters.

Every number reported here is an upper bound on the privacy loss that holds, rounded
outward (floating point included), unless its name and docstring say ``approx`` (CLT,
Edgeworth, the approximate GDP filter); the Edgeworth approximations warn with
:class:`ApproximationWarning` outside the range where they can be trusted.
"""

from ldp.accounting.approximations import (
    EDGEWORTH_RELIABLE,
    ApproximationWarning,
    EdgeworthTradeOff,
    berry_esseen_approx,
    clt_mu_approx,
    edgeworth_cumulants,
    edgeworth_tradeoff_approx,
    edgeworth_value_approx,
    laplace_cumulants,
    sg_cumulants,
    tradeoff_functionals,
)
from ldp.accounting.attacks import attacker_success_rate
from ldp.accounting.composition import (
    Composition,
    EpsDeltaEtaComposition,
    compose,
    compose_eps_delta_eta,
)
from ldp.accounting.divergences import (
    get_rdp_from_gdp,
    rr_renyi,
    tradeoff_chi2_plus,
    tradeoff_renyi,
)
from ldp.accounting.filters import (
    ApproxGDPFilter,
    FilterHaltedError,
    PrivacyFilter,
    natural_filter_counterexample,
    two_step_counterexample,
)
from ldp.accounting.gdp import (
    get_delta_from_gdp,
    get_epsilon_from_gdp,
    get_mu_from_epsilon_delta,
    get_tv_from_gdp,
)
from ldp.accounting.group import group_privacy
from ldp.accounting.intersection import (
    IntersectedComposition,
    compose_eps_delta_eta_intersection,
)
from ldp.accounting.pld import PrivacyLossDistribution
from ldp.accounting.subsampling import (
    PoissonSubsampledGaussian,
    SubsampledTradeOff,
    drs_sgd_mu_clt_approx,
    subsample_eps_delta,
    subsample_eps_delta_eta,
    subsample_tradeoff,
    subsampled_eps_delta_tradeoff,
)
from ldp.accounting.summary import TradeOffSummary, tradeoff_summary
from ldp.accounting.tradeoff import (
    EpsDeltaEtaTradeOff,
    EpsDeltaTradeOff,
    GaussianTradeOff,
    LaplaceTradeOff,
    PiecewiseLinearTradeOff,
    TradeOffFunction,
    check_tradeoff,
    get_delta_from_tradeoff,
    get_epsilon_from_tradeoff,
    get_mu_from_tradeoff,
    get_tradeoff_from_profile,
    symmetrize,
    tradeoff_from_channel,
    tradeoff_from_pair,
)

__all__ = [
    "EDGEWORTH_RELIABLE",
    "ApproxGDPFilter",
    "ApproximationWarning",
    "Composition",
    "EdgeworthTradeOff",
    "EpsDeltaEtaComposition",
    "EpsDeltaEtaTradeOff",
    "EpsDeltaTradeOff",
    "FilterHaltedError",
    "GaussianTradeOff",
    "IntersectedComposition",
    "LaplaceTradeOff",
    "PiecewiseLinearTradeOff",
    "PoissonSubsampledGaussian",
    "PrivacyFilter",
    "PrivacyLossDistribution",
    "SubsampledTradeOff",
    "TradeOffFunction",
    "TradeOffSummary",
    "attacker_success_rate",
    "berry_esseen_approx",
    "check_tradeoff",
    "clt_mu_approx",
    "compose",
    "compose_eps_delta_eta",
    "compose_eps_delta_eta_intersection",
    "drs_sgd_mu_clt_approx",
    "edgeworth_cumulants",
    "edgeworth_tradeoff_approx",
    "edgeworth_value_approx",
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
    "laplace_cumulants",
    "natural_filter_counterexample",
    "rr_renyi",
    "sg_cumulants",
    "subsample_eps_delta",
    "subsample_eps_delta_eta",
    "subsample_tradeoff",
    "subsampled_eps_delta_tradeoff",
    "symmetrize",
    "tradeoff_chi2_plus",
    "tradeoff_from_channel",
    "tradeoff_from_pair",
    "tradeoff_functionals",
    "tradeoff_renyi",
    "tradeoff_summary",
    "two_step_counterexample",
]

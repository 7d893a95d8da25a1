"""Privacy accounting for repeated reports: f-DP, GDP, composition, subsampling, filters.

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

from ldp.accounting.adaptive_clt import (
    AdaptiveCLTParams,
    IndividualApproxGDPAccountant,
    adaptive_clt_params,
    approx_gdp_charge,
    approx_gdp_clip,
)
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
from ldp.accounting.calibration import calibrate
from ldp.accounting.comparison import (
    BlackwellComparison,
    approx_gdp_delta,
    approx_gdp_distance,
    blackwell_compare,
    delta_divergence,
    is_approx_gdp,
    is_blackwell_chain,
    worst_case_adaptive_profile,
)
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
    InvalidFilterError,
    NaturalFDPFilter,
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
from ldp.accounting.rdp import (
    DEFAULT_ORDERS,
    RDPFilter,
    get_epsilon_from_rdp,
    rdp_subsampled_gaussian,
)
from ldp.accounting.sgd import (
    BerryEsseenTradeOff,
    NoisySGDComposition,
    noisy_sgd,
    poisson_sgd_tradeoff,
)
from ldp.accounting.shuffle import ShuffleAmplification, shuffle_amplification
from ldp.accounting.subsampled_gaussian import (
    SubsampledGaussianTradeOff,
    sg_plrv_moments,
    sg_plrv_moments_approx,
    sg_remove_profile,
)
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
    "DEFAULT_ORDERS",
    "EDGEWORTH_RELIABLE",
    "AdaptiveCLTParams",
    "ApproxGDPFilter",
    "ApproximationWarning",
    "BerryEsseenTradeOff",
    "BlackwellComparison",
    "Composition",
    "EdgeworthTradeOff",
    "EpsDeltaEtaComposition",
    "EpsDeltaEtaTradeOff",
    "EpsDeltaTradeOff",
    "FilterHaltedError",
    "GaussianTradeOff",
    "IndividualApproxGDPAccountant",
    "IntersectedComposition",
    "InvalidFilterError",
    "LaplaceTradeOff",
    "NaturalFDPFilter",
    "NoisySGDComposition",
    "PiecewiseLinearTradeOff",
    "PoissonSubsampledGaussian",
    "PrivacyFilter",
    "PrivacyLossDistribution",
    "RDPFilter",
    "ShuffleAmplification",
    "SubsampledGaussianTradeOff",
    "SubsampledTradeOff",
    "TradeOffFunction",
    "TradeOffSummary",
    "adaptive_clt_params",
    "approx_gdp_charge",
    "approx_gdp_clip",
    "approx_gdp_delta",
    "approx_gdp_distance",
    "attacker_success_rate",
    "berry_esseen_approx",
    "blackwell_compare",
    "calibrate",
    "check_tradeoff",
    "clt_mu_approx",
    "compose",
    "compose_eps_delta_eta",
    "compose_eps_delta_eta_intersection",
    "delta_divergence",
    "drs_sgd_mu_clt_approx",
    "edgeworth_cumulants",
    "edgeworth_tradeoff_approx",
    "edgeworth_value_approx",
    "get_delta_from_gdp",
    "get_delta_from_tradeoff",
    "get_epsilon_from_gdp",
    "get_epsilon_from_rdp",
    "get_epsilon_from_tradeoff",
    "get_mu_from_epsilon_delta",
    "get_mu_from_tradeoff",
    "get_rdp_from_gdp",
    "get_tradeoff_from_profile",
    "get_tv_from_gdp",
    "group_privacy",
    "is_approx_gdp",
    "is_blackwell_chain",
    "laplace_cumulants",
    "natural_filter_counterexample",
    "noisy_sgd",
    "poisson_sgd_tradeoff",
    "rdp_subsampled_gaussian",
    "rr_renyi",
    "sg_cumulants",
    "sg_plrv_moments",
    "sg_plrv_moments_approx",
    "sg_remove_profile",
    "shuffle_amplification",
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
    "worst_case_adaptive_profile",
]

"""Privacy accounting for repeated reports: f-DP, GDP, composition, subsampling, filters.

The LDP core is here: privacy curves (trade-off functions, privacy-loss distributions),
their conversions, composition, shuffling and subsampling, comparison, calibration and
filters. Central-DP machinery for DP-SGD (the Poisson-subsampled Gaussian, NoisySGD,
individual approximate GDP accounting) lives beside it in :mod:`ldp.accounting.central`;
its old names still import from here for one release, with a ``DeprecationWarning``.

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

from ldp._deprecation import moved_names
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
    tradeoff_functionals,
)
from ldp.accounting.attacks import attacker_success_rate
from ldp.accounting.blackwell import (
    BlackwellComparison,
    BlackwellResult,
    blackwell_compare,
    blackwell_dominates,
    is_blackwell_chain,
)
from ldp.accounting.calibration import calibrate
from ldp.accounting.central.filters import (
    ApproxGDPFilter,
    NaturalFDPFilter,
    natural_filter_counterexample,
    two_step_counterexample,
)
from ldp.accounting.comparison import (
    approx_gdp_delta,
    approx_gdp_distance,
    delta_divergence,
    is_approx_gdp,
    worst_case_adaptive_profile,
)
from ldp.accounting.composition import (
    Composition,
    EpsDeltaEtaComposition,
    compose,
    compose_eps_delta_eta,
)
from ldp.accounting.curve_divergences import (
    get_rdp_from_gdp,
    rr_renyi,
    tradeoff_chi2_plus,
    tradeoff_renyi,
)
from ldp.accounting.filters import (
    FilterHaltedError,
    InvalidFilterError,
    PrivacyFilter,
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
from ldp.accounting.shuffle import ShuffleAmplification, shuffle_amplification
from ldp.accounting.subsampling import (
    SubsampledTradeOff,
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
__getattr__ = moved_names(
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

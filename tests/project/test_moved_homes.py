"""Names that moved keep working from their old homes for one release, with a warning.

Every old name imports from its old module and returns the very object of the new home,
with a ``DeprecationWarning`` that names the new name and home; a pickle written under the
old module path (the last release) loads. Nothing in the library goes through the old
homes (the suite runs with warnings as errors).
"""

from __future__ import annotations

import importlib
import pickle
import warnings

import pytest

import ldp
import ldp.accounting
from ldp.accounting import central

C = "ldp.accounting.central"
BLACKWELL = "ldp.accounting.comparisons.blackwell"

#: (old module, old name, new module, new name)
MOVED = [
    *[
        ("ldp.accounting", name, C, name)
        for name in (
            "AdaptiveCLTParams",
            "BerryEsseenTradeOff",
            "IndividualApproxGDPAccountant",
            "NoisySGDComposition",
            "PoissonSubsampledGaussian",
            "SubsampledGaussianTradeOff",
            "adaptive_clt_params",
            "approx_gdp_charge",
            "approx_gdp_clip",
            "noisy_sgd",
            "poisson_sgd_tradeoff",
        )
    ],
    ("ldp.accounting", "drs_sgd_mu_clt_approx", C, "noisy_sgd_mu_clt_approx"),
    ("ldp.accounting", "sg_cumulants", C, "subsampled_gaussian_cumulants"),
    ("ldp.accounting", "sg_plrv_moments", C, "subsampled_gaussian_loss_moments"),
    ("ldp.accounting", "sg_plrv_moments_approx", C, "subsampled_gaussian_loss_moments_approx"),
    ("ldp.accounting", "sg_remove_profile", C, "subsampled_gaussian_remove_profile"),
    ("ldp.accounting.sgd", "noisy_sgd", f"{C}.sgd", "noisy_sgd"),
    ("ldp.accounting.sgd", "subsampled_gaussian_pld", f"{C}.sgd", "subsampled_gaussian_pld"),
    (
        "ldp.accounting.subsampled_gaussian",
        "sg_plrv_moments",
        f"{C}.subsampled_gaussian",
        "subsampled_gaussian_loss_moments",
    ),
    (
        "ldp.accounting.subsampled_gaussian",
        "SubsampledGaussianTradeOff",
        f"{C}.subsampled_gaussian",
        "SubsampledGaussianTradeOff",
    ),
    (
        "ldp.accounting.adaptive_clt",
        "approx_gdp_clip",
        f"{C}.adaptive_clt",
        "approx_gdp_clip",
    ),
    (
        "ldp.accounting.subsampling",
        "drs_sgd_mu_clt_approx",
        f"{C}.poisson_gaussian",
        "noisy_sgd_mu_clt_approx",
    ),
    (
        "ldp.accounting.subsampling",
        "PoissonSubsampledGaussian",
        f"{C}.poisson_gaussian",
        "PoissonSubsampledGaussian",
    ),
    (
        "ldp.accounting.approximations",
        "sg_cumulants",
        f"{C}.subsampled_gaussian",
        "subsampled_gaussian_cumulants",
    ),
    *[
        ("ldp.accounting.divergences", name, "ldp.accounting.curves.curve_divergences", name)
        for name in ("get_rdp_from_gdp", "rr_renyi", "tradeoff_chi2_plus", "tradeoff_renyi")
    ],
    ("ldp.blackwell", "blackwell_dominates", BLACKWELL, "blackwell_dominates"),
    ("ldp.blackwell", "BlackwellResult", BLACKWELL, "BlackwellResult"),
    *[
        ("ldp.accounting.comparison", name, BLACKWELL, name)
        for name in ("BlackwellComparison", "blackwell_compare", "is_blackwell_chain")
    ],
    *[
        ("ldp.risk.attained", name, "ldp.risk.achieved.achievable", name)
        for name in ("ACHIEVED", "best_distribution_risk", "best_mean_risk", "oracle_risks")
    ],
    *[
        (f"ldp.risk.{old}", name, f"ldp.risk.{home}.{old}", name)
        for old, home, name in (
            ("lecam", "bounds", "le_cam"),
            ("fano", "bounds", "fano"),
            ("assouad", "bounds", "ROUTE_NAMES"),
            ("bayes", "bounds", "beta_bernoulli_bayes"),
            ("testing", "bounds", "stein_exponent"),
            ("information", "bounds", "mutual_information"),
            ("minimax", "bounds", "distribution_van_trees"),
            ("presets", "bounds", "paninski_family"),
            ("achievable", "achieved", "krr_distribution_risk"),
            ("projection", "achieved", "projected_oracle_risk"),
            ("planner", "planning", "Plan"),
        )
    ],
    ("ldp.risk.presets", "preset", "ldp.risk.planning.problems", "preset"),
    ("ldp.risk.presets", "PRESETS", "ldp.risk.planning.problems", "PRESETS"),
    (
        "ldp.accounting.filters",
        "sg_remove_profile",
        f"{C}.subsampled_gaussian",
        "subsampled_gaussian_remove_profile",
    ),
]


#: The modules of the LDP core of ``ldp.accounting`` in the last release -> (their module
#: now, under ``ldp.accounting``, and the names of their ``__all__`` then).
OLD_CORE_MODULES = {
    "attacks": ("curves.attacks", ("attacker_success_rate",)),
    "curve_divergences": (
        "curves.curve_divergences",
        ("get_rdp_from_gdp", "rr_renyi", "tradeoff_chi2_plus", "tradeoff_renyi"),
    ),
    "curve_plds": ("curves.curve_plds", ("gaussian_pld", "laplace_pld")),
    "gdp": (
        "curves.gdp",
        (
            "get_delta_from_gdp",
            "get_epsilon_from_gdp",
            "get_mu_from_epsilon_delta",
            "get_tv_from_gdp",
        ),
    ),
    "group": ("curves.group", ("group_privacy",)),
    "pld": ("curves.pld", ("PrivacyLossDistribution",)),
    "summary": ("curves.summary", ("TradeOffSummary", "tradeoff_summary")),
    "tradeoff": (
        "curves",
        (
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
        ),
    ),
    "tradeoff_base": (
        "curves.tradeoff_base",
        (
            "PiecewiseLinearTradeOff",
            "TradeOffFunction",
            "check_tradeoff",
            "left_inverse",
            "symmetrize",
            "trusted_tradeoff",
        ),
    ),
    "tradeoff_conversions": (
        "curves.tradeoff_conversions",
        (
            "get_delta_from_tradeoff",
            "get_epsilon_from_tradeoff",
            "get_mu_from_tradeoff",
            "get_tradeoff_from_profile",
        ),
    ),
    "tradeoff_families": (
        "curves.tradeoff_families",
        (
            "EpsDeltaEtaTradeOff",
            "EpsDeltaTradeOff",
            "GaussianTradeOff",
            "LaplaceTradeOff",
            "SubsampledTradeOff",
            "tradeoff_from_channel",
            "tradeoff_from_pair",
        ),
    ),
    "blackwell": (
        "comparisons.blackwell",
        (
            "BlackwellComparison",
            "BlackwellResult",
            "blackwell_compare",
            "blackwell_dominates",
            "is_blackwell_chain",
        ),
    ),
    "comparison": (
        "comparisons.comparison",
        (
            "approx_gdp_delta",
            "approx_gdp_distance",
            "delta_divergence",
            "is_approx_gdp",
            "worst_case_adaptive_profile",
        ),
    ),
    "blanket": (
        "amplification.blanket",
        ("BLANKET_BOUNDS", "blanket_delta", "blanket_probability"),
    ),
    "shuffle": (
        "amplification.shuffle",
        (
            "METHODS",
            "ShuffleAmplification",
            "clone_probability",
            "krr_alphabet",
            "shuffle_amplification",
            "shuffle_delta",
            "shuffle_pld",
        ),
    ),
    "subsampling": (
        "amplification.subsampling",
        (
            "SubsampledTradeOff",
            "subsample_eps_delta",
            "subsample_eps_delta_eta",
            "subsample_tradeoff",
            "subsampled_eps_delta_tradeoff",
        ),
    ),
    "approximations": (
        "composition.approximations",
        (
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
        ),
    ),
    "calibration": ("composition.calibration", ("calibrate",)),
    "intersection": (
        "composition.intersection",
        ("IntersectedComposition", "compose_eps_delta_eta_intersection"),
    ),
    "rdp": (
        "filters.rdp",
        ("DEFAULT_ORDERS", "RDPFilter", "get_epsilon_from_rdp", "rdp_subsampled_gaussian"),
    ),
}

MOVED += [
    (f"ldp.accounting.{old}", name, f"ldp.accounting.{new}", name)
    for old, (new, names) in OLD_CORE_MODULES.items()
    for name in names
]
MOVED += [
    (
        "ldp.accounting.tradeoff",
        "left_inverse",
        "ldp.accounting.curves.tradeoff_base",
        "left_inverse",
    ),
]


@pytest.mark.parametrize(("old", "name", "new", "new_name"), MOVED)
def test_an_old_name_warns_and_returns_the_new_object(old, name, new, new_name):
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to ") as caught:
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), new_name)
    assert f"{new}.{new_name}" in str(caught[0].message)


@pytest.mark.parametrize(("old", "name", "new", "new_name"), MOVED)
def test_from_import_of_an_old_name_works(old, name, new, new_name):
    with pytest.warns(DeprecationWarning):
        namespace: dict = {}
        exec(f"from {old} import {name} as value", namespace)
    assert namespace["value"] is getattr(importlib.import_module(new), new_name)


def test_the_two_divergence_modules_have_two_names():
    """ldp.divergences: between probability vectors; curve_divergences: of a curve."""
    import ldp.accounting.curves.curve_divergences as of_curves
    import ldp.divergences as between_vectors

    assert not set(of_curves.__all__) & set(between_vectors.__all__)
    assert "tradeoff_renyi" in ldp.accounting.__all__


def test_an_unknown_name_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="sg_nothing"):
        ldp.accounting.sg_nothing


def test_the_core_comes_first_and_the_central_names_are_not_in_it():
    moved = {name for old, name, _, _ in MOVED if old == "ldp.accounting"}
    assert not moved & set(ldp.accounting.__all__)
    assert not set(central.__all__) & set(ldp.accounting.__all__)
    assert ldp.accounting.__all__[0] == "TradeOffFunction"
    assert len(ldp.accounting.__all__) == len(set(ldp.accounting.__all__))


def _old_pickle(obj: object, new: str, old: str) -> bytes:
    """The pickle the last release wrote: the class under its old module path."""
    data = pickle.dumps(obj, protocol=2)  # GLOBAL opcodes: "c<module>\n<name>\n"
    assert f"c{new}\n".encode() in data
    return data.replace(f"c{new}\n".encode(), f"c{old}\n".encode())


@pytest.mark.parametrize(
    ("make", "new", "old"),
    [
        (
            lambda: central.SubsampledGaussianTradeOff(0.3, 2.0),
            f"{C}.subsampled_gaussian",
            "ldp.accounting.subsampled_gaussian",
        ),
        (
            lambda: central.PoissonSubsampledGaussian(0.01, 1.0, 10),
            f"{C}.poisson_gaussian",
            "ldp.accounting.subsampling",
        ),
        (lambda: central.noisy_sgd(0.01, 1.0, 10), f"{C}.sgd", "ldp.accounting.sgd"),
    ],
)
def test_pickles_of_the_last_release_load(make, new, old):
    obj = make()
    with pytest.warns(DeprecationWarning, match="moved to"):
        back = pickle.loads(_old_pickle(obj, new, old))
    assert type(back) is type(obj)
    assert float(back.delta(1.0)) == float(obj.delta(1.0))


@pytest.mark.parametrize(
    ("make", "old"),
    [
        (
            lambda: ldp.blackwell_dominates(
                ldp.randomized_response(2.0), ldp.randomized_response(1.0)
            ),
            "ldp.blackwell",
        ),
        (
            lambda: ldp.blackwell_dominates(
                ldp.randomized_response(2.0), ldp.randomized_response(1.0)
            ),
            "ldp.accounting.blackwell",
        ),
        (
            lambda: ldp.accounting.blackwell_compare(
                ldp.accounting.GaussianTradeOff(1.0), ldp.accounting.GaussianTradeOff(2.0)
            ),
            "ldp.accounting.comparison",
        ),
    ],
)
def test_pickles_of_blackwell_results_of_the_last_release_load(make, old):
    obj = make()
    with pytest.warns(DeprecationWarning, match="moved to"):
        back = pickle.loads(_old_pickle(obj, BLACKWELL, old))
    assert type(back) is type(obj)
    assert back.__dict__.keys() == obj.__dict__.keys()
    assert bool(back) == bool(obj)


def test_one_blackwell_home():
    from ldp.accounting.comparisons import blackwell

    assert ldp.blackwell_dominates is blackwell.blackwell_dominates
    assert ldp.accounting.blackwell_compare is blackwell.blackwell_compare


@pytest.mark.parametrize("name", ["fano", "assouad", "bayes"])
def test_an_old_module_named_like_a_function_does_not_hide_the_function(name):
    import ldp.risk

    function = getattr(ldp.risk, name)
    old = importlib.import_module(f"ldp.risk.{name}")
    assert getattr(ldp.risk, name) is function and callable(function)
    with pytest.warns(DeprecationWarning, match=rf"ldp\.risk\.{name}\.{name} moved to "):
        assert getattr(old, name) is function


@pytest.mark.parametrize(
    ("statement", "names"),
    [
        (
            "from ldp.accounting.composition import",
            ("Composition", "EpsDeltaEtaComposition", "compose", "compose_eps_delta_eta"),
        ),
        (
            "from ldp.accounting.filters import",
            ("FilterHaltedError", "InvalidFilterError", "PrivacyFilter"),
        ),
    ],
)
def test_an_old_module_that_became_a_subpackage_keeps_its_names_without_a_warning(statement, names):
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(f"{statement} {', '.join(names)}", namespace)
    assert all(namespace[name] is getattr(ldp.accounting, name) for name in names)


def _pld():
    return ldp.accounting.GaussianTradeOff(1.0).pld(1e-2)


#: Objects of the LDP core, the module the last release pickled their class under, and its
#: home now.
CORE_PICKLES = [
    (_pld, "ldp.accounting.pld", "ldp.accounting.curves.pld"),
    (
        lambda: ldp.accounting.GaussianTradeOff(1.0),
        "ldp.accounting.tradeoff_families",
        "ldp.accounting.curves.tradeoff_families",
    ),
    (
        lambda: ldp.accounting.PiecewiseLinearTradeOff([0.0, 0.3, 1.0], [1.0, 0.3, 0.0]),
        "ldp.accounting.tradeoff_base",
        "ldp.accounting.curves.tradeoff_base",
    ),
    (
        lambda: ldp.accounting.tradeoff_summary(ldp.accounting.GaussianTradeOff(1.0)),
        "ldp.accounting.summary",
        "ldp.accounting.curves.summary",
    ),
    (
        lambda: ldp.accounting.shuffle_amplification(4.0, 100_000, 1e-6, method="closed-form"),
        "ldp.accounting.shuffle",
        "ldp.accounting.amplification.shuffle",
    ),
    (
        lambda: ldp.accounting.edgeworth_tradeoff_approx(
            *ldp.accounting.laplace_cumulants(1.0), n=5
        ),
        "ldp.accounting.approximations",
        "ldp.accounting.composition.approximations",
    ),
    (
        lambda: ldp.accounting.compose_eps_delta_eta_intersection(
            [0.5, 1.0], [0.1, 0.01], eta=0.3, k=3
        ),
        "ldp.accounting.intersection",
        "ldp.accounting.composition.intersection",
    ),
    (
        lambda: ldp.accounting.RDPFilter(2.0, 1e-5),
        "ldp.accounting.rdp",
        "ldp.accounting.filters.rdp",
    ),
]


@pytest.mark.parametrize(
    ("make", "old", "new"), CORE_PICKLES, ids=lambda v: v if isinstance(v, str) else ""
)
def test_pickles_of_the_ldp_core_of_the_last_release_load(make, old, new):
    obj = make()
    assert type(obj).__module__ == new
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{type(obj).__name__} moved to {new}\."):
        back = pickle.loads(_old_pickle(obj, new, old))
    assert type(back) is type(obj)
    assert pickle.dumps(back, protocol=2) == pickle.dumps(obj, protocol=2)


@pytest.mark.parametrize(
    ("make", "old"),
    [
        (
            lambda: ldp.accounting.compose(ldp.accounting.GaussianTradeOff(0.5), 3),
            "ldp.accounting.composition",
        ),
        (lambda: ldp.accounting.PrivacyFilter(1.0), "ldp.accounting.filters"),
    ],
)
def test_pickles_under_a_path_that_became_a_subpackage_load_without_a_warning(make, old):
    obj = make()
    data = _old_pickle(obj, type(obj).__module__, old)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = pickle.loads(data)
    assert type(back) is type(obj)

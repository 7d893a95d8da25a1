"""Names that moved keep working from their old homes for one release, with a warning.

Every old name imports from its old module and returns the very object of the new home,
with a ``DeprecationWarning`` that names the new name and home; a pickle written under the
old module path (the last release) loads. Nothing in the library goes through the old
homes (the suite runs with warnings as errors).
"""

from __future__ import annotations

import importlib
import pickle

import pytest

import ldp
import ldp.accounting
from ldp.accounting import central

C = "ldp.accounting.central"

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
        ("ldp.accounting.divergences", name, "ldp.accounting.curve_divergences", name)
        for name in ("get_rdp_from_gdp", "rr_renyi", "tradeoff_chi2_plus", "tradeoff_renyi")
    ],
    ("ldp.blackwell", "blackwell_dominates", "ldp.accounting.blackwell", "blackwell_dominates"),
    ("ldp.blackwell", "BlackwellResult", "ldp.accounting.blackwell", "BlackwellResult"),
    *[
        ("ldp.accounting.comparison", name, "ldp.accounting.blackwell", name)
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
    import ldp.accounting.curve_divergences as of_curves
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
        back = pickle.loads(_old_pickle(obj, "ldp.accounting.blackwell", old))
    assert type(back) is type(obj)
    assert back.__dict__.keys() == obj.__dict__.keys()
    assert bool(back) == bool(obj)


def test_one_blackwell_home():
    from ldp.accounting import blackwell

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

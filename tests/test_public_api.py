"""Every public function and class is documented the numpydoc way: a docstring with an
Examples section (run by the doctests), a Parameters section when it takes parameters, and
a Returns (or Yields) section when a function returns something.

The public API is the ``__all__`` of the packages below. ``PENDING`` lists the public names
whose docstrings still lack a section, with what they lack; the list only shrinks: an entry
that no longer has the gap (or no longer exists) fails ``test_pending_list_is_current`` until
it is removed.
"""

from __future__ import annotations

import importlib
import inspect
import re
import types

import pytest

PACKAGES = (
    "ldp",
    "ldp.mechanisms",
    "ldp.protocol",
    "ldp.accounting",
    "ldp.risk",
    "ldp.contraction",
    "ldp.design",
    "ldp.plotting",
    "ldp.audit",
    "ldp.datasets",
    "ldp.references",
    "estimators",
)

#: Documentation gaps still open: public name -> missing sections.
PENDING = {
    "ldp.accounting": {"Examples"},
    "ldp.accounting.ApproximationWarning": {"Examples"},
    "ldp.accounting.Composition": {"Parameters"},
    "ldp.accounting.EdgeworthTradeOff": {"Examples", "Parameters"},
    "ldp.accounting.EpsDeltaEtaComposition": {"Examples", "Parameters"},
    "ldp.accounting.EpsDeltaEtaTradeOff": {"Parameters"},
    "ldp.accounting.EpsDeltaTradeOff": {"Parameters"},
    "ldp.accounting.FilterHaltedError": {"Examples"},
    "ldp.accounting.GaussianTradeOff": {"Parameters"},
    "ldp.accounting.LaplaceTradeOff": {"Parameters"},
    "ldp.accounting.PoissonSubsampledGaussian": {"Parameters"},
    "ldp.accounting.SubsampledTradeOff": {"Examples", "Parameters"},
    "ldp.accounting.TradeOffFunction": {"Examples", "Parameters"},
    "ldp.accounting.berry_esseen_approx": {"Parameters", "Returns"},
    "ldp.accounting.clt_mu_approx": {"Parameters", "Returns"},
    "ldp.accounting.drs_sgd_mu_clt_approx": {"Parameters", "Returns"},
    "ldp.accounting.edgeworth_cumulants": {"Parameters", "Returns"},
    "ldp.accounting.edgeworth_tradeoff_approx": {"Returns"},
    "ldp.accounting.edgeworth_value_approx": {"Parameters", "Returns"},
    "ldp.accounting.get_delta_from_tradeoff": {"Parameters", "Returns"},
    "ldp.accounting.get_epsilon_from_tradeoff": {"Parameters", "Returns"},
    "ldp.accounting.get_mu_from_tradeoff": {"Parameters", "Returns"},
    "ldp.accounting.get_tradeoff_from_profile": {"Parameters", "Returns"},
    "ldp.accounting.get_tv_from_gdp": {"Parameters", "Returns"},
    "ldp.accounting.laplace_cumulants": {"Parameters", "Returns"},
    "ldp.accounting.sg_cumulants": {"Parameters", "Returns"},
    "ldp.accounting.subsample_eps_delta": {"Parameters", "Returns"},
    "ldp.accounting.subsample_eps_delta_eta": {"Parameters", "Returns"},
    "ldp.accounting.subsample_tradeoff": {"Parameters", "Returns"},
    "ldp.accounting.subsampled_eps_delta_tradeoff": {"Parameters", "Returns"},
    "ldp.accounting.symmetrize": {"Parameters", "Returns"},
    "ldp.accounting.tradeoff_from_channel": {"Parameters", "Returns"},
    "ldp.accounting.tradeoff_from_pair": {"Parameters", "Returns"},
    "ldp.accounting.tradeoff_functionals": {"Parameters", "Returns"},
    "ldp.accounting.two_step_counterexample": {"Parameters", "Returns"},
    "ldp.binary_erasure": {"Returns"},
    "ldp.binary_mechanism_with_erasure": {"Returns"},
    "ldp.contraction": {"Examples"},
    "ldp.contraction.BoundCandidate": {"Examples", "Parameters"},
    "ldp.contraction.ContractionBound": {"Examples", "Parameters"},
    "ldp.contraction.ContractionCoefficient": {"Examples", "Parameters"},
    "ldp.contraction.chi2_output_bound": {"Parameters", "Returns"},
    "ldp.contraction.erase": {"Returns"},
    "ldp.contraction.k_rr_coefficient": {"Parameters", "Returns"},
    "ldp.contraction.max_f_divergence": {"Returns"},
    "ldp.contraction.max_kl_contraction": {"Returns"},
    "ldp.contraction.max_output_tv": {"Returns"},
    "ldp.contraction.phi": {"Parameters", "Returns"},
    "ldp.contraction.rr_coefficient": {"Parameters", "Returns"},
    "ldp.contraction.worst_case_hockey_stick": {"Parameters", "Returns"},
    "ldp.contraction.worst_case_tv": {"Parameters", "Returns"},
    "ldp.design.DesignError": {"Examples"},
    "ldp.design.DesignResult": {"Examples", "Parameters"},
    "ldp.design.FrequencyDesign": {"Examples", "Parameters"},
    "ldp.design.compare": {"Parameters", "Returns"},
    "ldp.design.frequency_risk": {"Returns"},
    "ldp.design.optimal_frequency_channel": {"Returns"},
    "ldp.design.utility_value": {"Returns"},
    "ldp.divergences": {"Examples"},
    "ldp.eta_max": {"Parameters", "Returns"},
    "ldp.k_rr": {"Returns"},
    "ldp.mechanisms.BLH": {"Parameters"},
    "ldp.mechanisms.Ball": {"Examples", "Parameters"},
    "ldp.mechanisms.Categories": {"Examples", "Parameters"},
    "ldp.mechanisms.DuchiL2": {"Parameters"},
    "ldp.mechanisms.Field": {"Examples", "Parameters"},
    "ldp.mechanisms.FrequencyMechanism": {"Examples", "Parameters"},
    "ldp.mechanisms.FrequencyOracle": {"Examples", "Parameters"},
    "ldp.mechanisms.HadamardResponse": {"Parameters"},
    "ldp.mechanisms.Hybrid": {"Parameters"},
    "ldp.mechanisms.Interval": {"Examples", "Parameters"},
    "ldp.mechanisms.Laplace": {"Parameters"},
    "ldp.mechanisms.LocalHashing": {"Parameters"},
    "ldp.mechanisms.MeanMechanism": {"Examples", "Parameters"},
    "ldp.mechanisms.MeanSums": {"Parameters"},
    "ldp.mechanisms.Mechanism": {"Examples", "Parameters"},
    "ldp.mechanisms.OUE": {"Parameters"},
    "ldp.mechanisms.Piecewise": {"Parameters"},
    "ldp.mechanisms.ReportCodec": {"Examples"},
    "ldp.mechanisms.SUE": {"Parameters"},
    "ldp.mechanisms.SquareWave": {"Parameters"},
    "ldp.mechanisms.SubsetSelection": {"Parameters"},
    "ldp.mechanisms.hybrid_threshold": {"Returns"},
    "ldp.protocol.Protocol": {"Parameters"},
    "ldp.protocol.ReportWriter": {"Parameters"},
    "ldp.protocol.client_source": {"Parameters", "Returns"},
    "ldp.protocol.fingerprint_of": {"Parameters", "Returns"},
    "ldp.protocol.iter_reports": {"Examples"},
    "ldp.protocol.load": {"Parameters", "Returns"},
    "ldp.protocol.read_reports": {"Parameters", "Returns"},
    "ldp.protocol.records_frame": {"Examples", "Parameters", "Returns"},
    "ldp.protocol.report_frame": {"Parameters", "Returns"},
    "ldp.protocol.write_reports": {"Parameters"},
    "ldp.randomized_response": {"Parameters", "Returns"},
}


def _sections(doc: str) -> set[str]:
    return set(re.findall(r"^\s*([A-Z][a-z]+(?: [A-Z][a-z]+)?)\n\s*-{3,}\s*$", doc, re.M))


def _takes_parameters(obj: object) -> bool:
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return False
    return any(p.name not in ("self", "cls") for p in signature.parameters.values())


def _returns_something(obj: object) -> bool:
    if not inspect.isfunction(obj):
        return False
    annotation = inspect.signature(obj).return_annotation
    return annotation not in (None, "None")


def public_api() -> dict[str, object]:
    """Public name (first package that exports it) -> object, functions, classes and the
    exported modules; constants are left out."""
    found: dict[str, object] = {}
    seen: set[int] = set()
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            obj = getattr(module, name)
            if not (isinstance(obj, types.ModuleType) or inspect.isclass(obj) or callable(obj)):
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            found[obj.__name__ if isinstance(obj, types.ModuleType) else f"{package}.{name}"] = obj
    return found


def missing_sections(obj: object) -> set[str]:
    """The numpydoc sections ``obj``'s docstring should have and does not."""
    doc = obj.__doc__ if isinstance(obj, types.ModuleType) else inspect.getdoc(obj)
    if not doc:
        return {"docstring"}
    sections = _sections(doc)
    missing = {"Examples"} - sections
    if isinstance(obj, types.ModuleType):
        return missing
    exception = inspect.isclass(obj) and issubclass(obj, BaseException)
    if _takes_parameters(obj) and not exception and "Parameters" not in sections:
        missing.add("Parameters")
    if _returns_something(obj) and not {"Returns", "Yields"} & sections:
        missing.add("Returns")
    return missing


API = public_api()


def test_the_public_api_is_large_enough_to_mean_something():
    assert len(API) > 150
    assert {"ldp.Channel", "ldp.risk.le_cam", "estimators.FrequencyEstimator"} <= set(API)


@pytest.mark.parametrize("name", sorted(set(API) - set(PENDING)))
def test_numpydoc_sections(name):
    missing = missing_sections(API[name])
    assert not missing, f"{name} lacks {sorted(missing)}"


def test_pending_list_is_current():
    stale = {
        name: (sorted(gaps), sorted(missing_sections(API[name])) if name in API else "gone")
        for name, gaps in PENDING.items()
        if name not in API or missing_sections(API[name]) != gaps
    }
    assert not stale, f"update PENDING (listed gaps, actual gaps): {stale}"

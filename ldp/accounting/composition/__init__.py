"""Composition of many reports, exact or approximate, and calibration to a target.

* :mod:`ldp.accounting.composition.exact`: the exact composition of curves and channels
  (:func:`compose`, privacy-loss lattices and GDP; :func:`compose_eps_delta_eta`);
* :mod:`ldp.accounting.composition.intersection`: the intersection of composition bounds;
* :mod:`ldp.accounting.composition.approximations`: the CLT, Berry-Esseen and Edgeworth
  approximations (names and docstrings say ``approx``: they are not guarantees);
* :mod:`ldp.accounting.composition.calibration`: the largest per-report epsilon that meets
  a target after ``T`` reports or after shuffling (:func:`calibrate`).

Built on :mod:`ldp.accounting.curves` and :mod:`ldp.accounting.amplification`. The names of
the module ``ldp.accounting.composition`` of the last release import from here as before.

Examples
--------
>>> from ldp.accounting.composition import compose
>>> from ldp.accounting.curves import GaussianTradeOff
>>> round(compose(GaussianTradeOff(0.5), 4).mu, 12)
1.0
"""

from __future__ import annotations

from ldp.accounting.composition.approximations import (
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
from ldp.accounting.composition.calibration import calibrate
from ldp.accounting.composition.exact import (
    Composition,
    EpsDeltaEtaComposition,
    compose,
    compose_eps_delta_eta,
)
from ldp.accounting.composition.intersection import (
    IntersectedComposition,
    compose_eps_delta_eta_intersection,
)

__all__ = [
    "EDGEWORTH_RELIABLE",
    "ApproximationWarning",
    "Composition",
    "EdgeworthTradeOff",
    "EpsDeltaEtaComposition",
    "IntersectedComposition",
    "berry_esseen_approx",
    "calibrate",
    "clt_mu_approx",
    "compose",
    "compose_eps_delta_eta",
    "compose_eps_delta_eta_intersection",
    "edgeworth_cumulants",
    "edgeworth_tradeoff_approx",
    "edgeworth_value_approx",
    "laplace_cumulants",
    "tradeoff_functionals",
]

"""Deprecated home: the adaptive CLT and approximate GDP accounting moved.

The new home is :mod:`ldp.accounting.central`.

Every public name of this module still imports from here for one release, with a
``DeprecationWarning`` naming its new name and home (pickles saved under this path load).
"""

from __future__ import annotations

from ldp._deprecation import moved_names

_HOME = "ldp.accounting.central.adaptive_clt"

__getattr__ = moved_names(
    __name__,
    {
        "AdaptiveCLTParams": (_HOME, "AdaptiveCLTParams"),
        "IndividualApproxGDPAccountant": (_HOME, "IndividualApproxGDPAccountant"),
        "adaptive_clt_params": (_HOME, "adaptive_clt_params"),
        "approx_gdp_charge": (_HOME, "approx_gdp_charge"),
        "approx_gdp_clip": (_HOME, "approx_gdp_clip"),
    },
)

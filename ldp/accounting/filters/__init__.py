"""Privacy filters: the valid GDP filter, the Renyi DP filter and their errors.

* :mod:`ldp.accounting.filters.gdp_filter`: :class:`PrivacyFilter` (valid under full
  adaptivity), :class:`FilterHaltedError` and :class:`InvalidFilterError`;
* :mod:`ldp.accounting.filters.rdp`: Renyi DP of the subsampled Gaussian, its conversion to
  ``(eps, delta)`` and the RDP filter (:class:`RDPFilter`).

Built on :mod:`ldp.accounting.curves` only. The natural f-DP filter and Algorithm 2 live with
the central-DP machinery in :mod:`ldp.accounting.central.filters`; their names still import
from here for one release, through a lazy module ``__getattr__`` with a
``DeprecationWarning``, so this package imports nothing of :mod:`ldp.accounting.central`.

Examples
--------
>>> from ldp.accounting.curves import GaussianTradeOff
>>> from ldp.accounting.filters import PrivacyFilter
>>> budget = PrivacyFilter(1.0)
>>> budget.request(GaussianTradeOff(0.6)), budget.request(GaussianTradeOff(0.9))
(True, False)
"""

from __future__ import annotations

from ldp._deprecation import moved_names
from ldp.accounting.filters.gdp_filter import FilterHaltedError, InvalidFilterError, PrivacyFilter
from ldp.accounting.filters.rdp import (
    DEFAULT_ORDERS,
    RDPFilter,
    get_epsilon_from_rdp,
    rdp_subsampled_gaussian,
)

__all__ = [
    "DEFAULT_ORDERS",
    "FilterHaltedError",
    "InvalidFilterError",
    "PrivacyFilter",
    "RDPFilter",
    "get_epsilon_from_rdp",
    "rdp_subsampled_gaussian",
]

_HOME = "ldp.accounting.central.filters"

#: Names that moved to :mod:`ldp.accounting.central` (deprecated here for one release).
__getattr__ = moved_names(
    __name__,
    {
        "sg_remove_profile": (
            "ldp.accounting.central.subsampled_gaussian",
            "subsampled_gaussian_remove_profile",
        ),
        "ApproxGDPFilter": (_HOME, "ApproxGDPFilter"),
        "MAX_SELF_COMPOSITIONS": (_HOME, "MAX_SELF_COMPOSITIONS"),
        "NATURAL_FILTER_FAMILIES": (_HOME, "NATURAL_FILTER_FAMILIES"),
        "NaturalFDPFilter": (_HOME, "NaturalFDPFilter"),
        "natural_filter_counterexample": (_HOME, "natural_filter_counterexample"),
        "two_step_counterexample": (_HOME, "two_step_counterexample"),
    },
)

"""Deprecated home: this module became the subpackage ``ldp.accounting.curves``.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home (``left_inverse`` too, which it imported without listing it in ``__all__``). The
old path is a package, not a module file, so that git pairs the old file with its new home
and carries edits made on the old path over.
"""

from __future__ import annotations

from ldp._deprecation import moved_names

_HOME = "ldp.accounting.curves"

__getattr__ = moved_names(
    __name__,
    {
        name: (_HOME, name)
        for name in (
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
        )
    }
    | {
        "left_inverse": ("ldp.accounting.curves.tradeoff_base", "left_inverse"),
    },
)

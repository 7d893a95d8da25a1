"""Deprecated home: the divergences of a trade-off curve moved to ``curve_divergences``.

:mod:`ldp.divergences` is the home of divergences between probability vectors;
:mod:`ldp.accounting.curves.curve_divergences` the home of divergences of a privacy curve (Renyi,
``chi^2_+``). Every public name of this module still imports from here for one release,
with a ``DeprecationWarning`` naming its new home.
"""

from __future__ import annotations

from ldp._deprecation import moved_names

_HOME = "ldp.accounting.curves.curve_divergences"

__getattr__ = moved_names(
    __name__,
    {
        name: (_HOME, name)
        for name in ("get_rdp_from_gdp", "rr_renyi", "tradeoff_chi2_plus", "tradeoff_renyi")
    },
)

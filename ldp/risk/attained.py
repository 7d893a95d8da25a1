"""Deprecated home: the risk of the best mechanism moved to :mod:`ldp.risk.achieved.achievable`.

One module holds the risk that estimators of the library achieve (the presets' estimators
and the best mechanism of the library). The names of this module still import from here
for one release, with a ``DeprecationWarning`` naming the new home.
"""

from __future__ import annotations

from ldp._deprecation import moved_names

__getattr__ = moved_names(
    __name__,
    {
        name: ("ldp.risk.achieved.achievable", name)
        for name in ("ACHIEVED", "best_distribution_risk", "best_mean_risk", "oracle_risks")
    },
)

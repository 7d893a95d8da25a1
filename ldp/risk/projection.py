"""Deprecated home: this module moved to :mod:`ldp.risk.achieved.projection`.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    dict.fromkeys(("max_deviation_bound", "projected_oracle_risk"), "ldp.risk.achieved.projection"),
)

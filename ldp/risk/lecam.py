"""Deprecated home: this module moved to :mod:`ldp.risk.bounds.lecam`.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    dict.fromkeys(("MAX_TYPES", "ROUTE_NAMES", "le_cam", "product_tv"), "ldp.risk.bounds.lecam"),
)

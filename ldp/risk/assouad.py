"""Deprecated home: this module moved to :mod:`ldp.risk.bounds.assouad`.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    dict.fromkeys(("ROUTE_NAMES", "assouad", "hypercube_index"), "ldp.risk.bounds.assouad"),
)

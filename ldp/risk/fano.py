"""Deprecated home: this module moved to :mod:`ldp.risk.bounds.fano`.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__, dict.fromkeys(("family_information", "fano", "loss_tau"), "ldp.risk.bounds.fano")
)

"""Deprecated home: this module moved to :mod:`ldp.risk.bounds.information`.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    dict.fromkeys(
        ("entropy", "mutual_information", "mutual_information_bound"), "ldp.risk.bounds.information"
    ),
)

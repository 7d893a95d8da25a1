"""Deprecated home: this module moved to ``ldp.accounting.filters.rdp``.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home. The old path is a package, not a module file, so that git pairs the old file with
its new home and carries edits made on the old path over.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    dict.fromkeys(
        (
            "DEFAULT_ORDERS",
            "RDPFilter",
            "get_epsilon_from_rdp",
            "rdp_subsampled_gaussian",
        ),
        "ldp.accounting.filters.rdp",
    ),
)

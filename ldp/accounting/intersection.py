"""Deprecated home: this module moved to ``ldp.accounting.composition.intersection``.

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
            "IntersectedComposition",
            "compose_eps_delta_eta_intersection",
        ),
        "ldp.accounting.composition.intersection",
    ),
)

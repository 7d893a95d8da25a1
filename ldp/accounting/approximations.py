"""Deprecated home: this module moved to ``ldp.accounting.composition.approximations``.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home (the central-DP names it already forwarded go straight to their homes). The old
path is a package, not a module file, so that git pairs the old file with its new home and
carries edits made on the old path over.
"""

from __future__ import annotations

from ldp._deprecation import moved_names

_HOME = "ldp.accounting.composition.approximations"

__getattr__ = moved_names(
    __name__,
    {
        name: (_HOME, name)
        for name in (
            "ApproximationWarning",
            "EDGEWORTH_RELIABLE",
            "EdgeworthTradeOff",
            "berry_esseen_approx",
            "clt_mu_approx",
            "edgeworth_cumulants",
            "edgeworth_tradeoff_approx",
            "edgeworth_value_approx",
            "laplace_cumulants",
            "tradeoff_functionals",
        )
    }
    | {
        "sg_cumulants": (
            "ldp.accounting.central.subsampled_gaussian",
            "subsampled_gaussian_cumulants",
        ),
    },
)

"""Deprecated home: this module moved to ``ldp.accounting.comparisons.comparison``.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home (the Blackwell names it already forwarded go straight to their home). The old path
is a package, not a module file, so that git pairs the old file with its new home and
carries edits made on the old path over.
"""

from __future__ import annotations

from ldp._deprecation import moved_names

_HOME = "ldp.accounting.comparisons.comparison"

__getattr__ = moved_names(
    __name__,
    {
        name: (_HOME, name)
        for name in (
            "approx_gdp_delta",
            "approx_gdp_distance",
            "delta_divergence",
            "is_approx_gdp",
            "worst_case_adaptive_profile",
        )
    }
    | {
        "BlackwellComparison": ("ldp.accounting.comparisons.blackwell", "BlackwellComparison"),
        "blackwell_compare": ("ldp.accounting.comparisons.blackwell", "blackwell_compare"),
        "is_blackwell_chain": ("ldp.accounting.comparisons.blackwell", "is_blackwell_chain"),
    },
)

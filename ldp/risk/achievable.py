"""Deprecated home: this module moved to :mod:`ldp.risk.achieved.achievable`.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    dict.fromkeys(
        (
            "ACHIEVED",
            "best_distribution_risk",
            "best_mean_risk",
            "binomial_mean_absolute_deviation",
            "krr_distribution_risk",
            "oracle_risks",
            "rr_mean_risk",
        ),
        "ldp.risk.achieved.achievable",
    ),
)

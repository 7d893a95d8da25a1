"""Deprecated home: this module moved to :mod:`ldp.risk.bounds.minimax`.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    dict.fromkeys(
        (
            "DISTRIBUTION_LOSSES",
            "MEAN_DOMAINS",
            "binary_test_sample_size",
            "distribution_fano",
            "distribution_lower_bound",
            "distribution_van_trees",
            "fisher_column_bound",
            "kl_chi2_factor",
            "mean_estimation",
        ),
        "ldp.risk.bounds.minimax",
    ),
)

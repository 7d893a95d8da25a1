"""Deprecated home: this module moved to :mod:`ldp.risk.bounds.testing`.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    dict.fromkeys(
        (
            "best_binary_test",
            "kl_ceiling",
            "min_sample_size",
            "sample_size_lower_bound",
            "stein_exponent",
        ),
        "ldp.risk.bounds.testing",
    ),
)

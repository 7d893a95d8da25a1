"""Deprecated home: this module moved to :mod:`ldp.risk.bounds.bayes`.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    dict.fromkeys(
        (
            "bayes",
            "beta_bernoulli_bayes",
            "beta_bernoulli_e_gamma_information",
            "beta_bernoulli_mutual_information",
            "e_gamma_information",
        ),
        "ldp.risk.bounds.bayes",
    ),
)

"""Achieved risk: the worst-case risk that the library's own estimators attain.

The exact risk of randomized response and k-RR (:mod:`~ldp.risk.achieved.achievable`), the
best mechanism of the library for a problem, the worst-case risk of the marginal designs
(:mod:`~ldp.risk.achieved.marginals`), and the certified risk of a frequency oracle
followed by simplex projection (:mod:`~ldp.risk.achieved.projection`). These are upper
bounds on the minimax risk, the counterpart of :mod:`ldp.risk.bounds`; every public name is
re-exported by :mod:`ldp.risk`.

Examples
--------
>>> from ldp.risk.achieved import krr_distribution_risk
>>> krr_distribution_risk(10, 10_000, 1.0).value > 0
True
"""

from ldp.risk.achieved.achievable import (
    best_distribution_risk,
    best_mean_risk,
    binomial_mean_absolute_deviation,
    krr_distribution_risk,
    rr_mean_risk,
)
from ldp.risk.achieved.marginals import marginals_risk
from ldp.risk.achieved.projection import projected_oracle_risk

__all__ = [
    "best_distribution_risk",
    "best_mean_risk",
    "binomial_mean_absolute_deviation",
    "krr_distribution_risk",
    "marginals_risk",
    "projected_oracle_risk",
    "rr_mean_risk",
]

"""Deprecated home: this module moved to :mod:`ldp.risk.planning.planner`.

Its names still import from here for one release, with a ``DeprecationWarning`` naming the
new home.
"""

from __future__ import annotations

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    dict.fromkeys(
        ("MAX_EPSILON", "MAX_USERS", "PROBLEMS", "Plan", "RiskGap", "gap", "plan"),
        "ldp.risk.planning.planner",
    ),
)

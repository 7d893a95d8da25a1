"""Planning: a lower bound of :mod:`ldp.risk.bounds` beside the risk of
:mod:`ldp.risk.achieved`.

The sample-size planner :func:`plan` and :func:`gap` (bound, achieved risk, ratio) in
:mod:`~ldp.risk.planning.planner`, and the named problems of :func:`preset` in
:mod:`~ldp.risk.planning.problems`. Every public name is re-exported by :mod:`ldp.risk`.

Examples
--------
>>> from ldp.risk.planning import preset
>>> lower, achieved = preset("bernoulli-mean", 1000, 1.0)
>>> lower.value < achieved.value
True
"""

from ldp.risk.planning.planner import PROBLEMS, Plan, RiskGap, TargetOutOfReach, gap, plan
from ldp.risk.planning.problems import PRESETS, preset

__all__ = ["PRESETS", "PROBLEMS", "Plan", "RiskGap", "TargetOutOfReach", "gap", "plan", "preset"]

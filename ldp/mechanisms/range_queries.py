"""Deprecated: ``ldp.mechanisms.range_queries`` moved to ``ldp.tasks.range_queries``
(the tasks layer).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "BranchingChoice": "ldp.tasks.range_queries",
        "DEFAULT_BRANCHINGS": "ldp.tasks.range_queries",
        "HierarchicalCounts": "ldp.tasks.range_queries",
        "HierarchicalHistogram": "ldp.tasks.range_queries",
        "HierarchicalReports": "ldp.tasks.range_queries",
        "LEVEL_ORACLES": "ldp.tasks.range_queries",
        "MAX_LEAVES": "ldp.tasks.range_queries",
        "MAX_PLANNED_VALUES": "ldp.tasks.range_queries",
        "RangeEstimate": "ldp.tasks.range_queries",
        "recommend_branching": "ldp.tasks.range_queries",
    },
)

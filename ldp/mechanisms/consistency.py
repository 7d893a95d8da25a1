"""Deprecated: ``ldp.mechanisms.consistency`` moved to ``ldp.tasks.consistency``
(the tasks layer).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "ibu": "ldp.tasks.consistency",
        "norm_mul": "ldp.tasks.consistency",
        "norm_sub": "ldp.tasks.consistency",
        "project_simplex": "ldp.tasks.consistency",
    },
)

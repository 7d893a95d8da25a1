"""Deprecated: ``ldp.mechanisms.tree`` moved to ``ldp.tasks.tree``
(the tasks layer).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "b_adic_nodes": "ldp.tasks.tree",
        "consistency_adjoint": "ldp.tasks.tree",
        "expand_children": "ldp.tasks.tree",
        "sum_children": "ldp.tasks.tree",
        "tree_consistency": "ldp.tasks.tree",
    },
)

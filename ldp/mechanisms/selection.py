"""Deprecated: ``ldp.mechanisms.selection`` moved to ``ldp.tasks.selection``
(the tasks layer).

Kept for one release so that old imports, and pickles that name classes by this path, still
load; every name read from here warns with a :class:`DeprecationWarning` naming its new
module.
"""

from ldp._deprecation import forward

__getattr__ = forward(
    __name__,
    {
        "FREQUENCY_ORACLES": "ldp.tasks.selection",
        "Recommendation": "ldp.tasks.selection",
        "SKETCHES": "ldp.tasks.selection",
        "VARIANCE_TOLERANCE": "ldp.tasks.selection",
        "recommend": "ldp.tasks.selection",
        "sketch_shape": "ldp.tasks.selection",
        "work_per_report": "ldp.tasks.selection",
    },
)
